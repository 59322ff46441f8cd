#!/usr/bin/env python3
"""A custom kernel called from Python, between library ops (docs/python.md, "Custom kernels").

examples/kernels/scale_add.c is C for the control core: y[i] = a * x[i] + b over int32 values in
device memory, a loop through the HBM window. `make kernels` builds it into
build/kernels/scale_add.bin; Device.kernel uploads the image once, and each call runs it with
integer arguments (device addresses, sizes, scalars). Here a matmul's int32 result goes through the
kernel, in place, and the result is checked against numpy; then scale_add_vpu.c, the same kernel
written with the SDK's tensor-core calls (DMA and VPU instructions), does it again on 40 000 values.

Usage: PYTHONPATH=build/python python3 examples/python/kernel.py [kernels folder]
Kernels run where the firmware runs on a control core: the sim backend (or a board with one).
"""
import os
import sys

import numpy as np

import tessel

root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
kernels = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build", "kernels")
rng = np.random.default_rng(3)

with tessel.Device("sim") as dev, dev.kernel(os.path.join(kernels, "scale_add.bin")) as scale_add:
    a = rng.integers(-128, 128, (16, 48), dtype=np.int8)
    b = rng.integers(-128, 128, (48, 8), dtype=np.int8)
    c = dev.matmul(a, b)                        # a library op: int32 16 x 8
    buf = dev.raw.alloc(c.nbytes)
    dev.raw.write(buf, c)
    n = scale_add(buf, buf, c.size, 3, -7)      # the kernel: c = 3 c - 7, in place, returns c.size
    cycles = dev.stats()["last"]["cycles"]
    y = np.empty_like(c)
    dev.raw.read(buf, y)
    dev.raw.free(buf)
    want = (a.astype(np.int64) @ b * 3 - 7).astype(np.int32)
    assert n == c.size and (y == want).all(), "scale_add differs from numpy"
    print(f"scale_add: 3 (a @ b) - 7 over {n} int32 values, exact, {cycles} device cycles")
    d = dev.matmul(a[:, :16], (y % 7 - 3).astype(np.int8))   # and a library op after it
    assert (d == a[:, :16].astype(np.int64) @ (want % 7 - 3)).all(), "matmul after the kernel differs"
    print("matmul after the kernel: exact")

    with dev.kernel(os.path.join(kernels, "scale_add_vpu.bin")) as on_vpu:
        x = rng.integers(-2**31, 2**31, 40000, dtype=np.int64).astype(np.int32)
        buf = dev.raw.alloc(x.nbytes)
        dev.raw.write(buf, x)
        n = on_vpu(buf, buf, x.size, -3, 12345)
        cycles = dev.stats()["last"]["cycles"]
        y = np.empty_like(x)
        dev.raw.read(buf, y)
        dev.raw.free(buf)
        want = ((x.astype(np.int64) * -3 + 12345 + 2**31) % 2**32 - 2**31).astype(np.int32)   # int32 wraps
        assert n == x.size and (y == want).all(), "scale_add_vpu differs from numpy"
        print(f"scale_add_vpu: -3 x + 12345 over {n} int32 values on the VPU, exact, {cycles} device cycles")
