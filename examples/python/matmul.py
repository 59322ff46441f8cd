#!/usr/bin/env python3
"""Matrix products on a Tessel device from Python (docs/python.md): int8 exact, float32 in bf16.

Usage: PYTHONPATH=build/python python3 examples/python/matmul.py [model|sim]
"""
import sys

import numpy as np

import tessel

backend = sys.argv[1] if len(sys.argv) > 1 else "model"
rng = np.random.default_rng(0)

with tessel.Device(backend) as dev:
    print(f"{backend}: a {dev.n}x{dev.n} MXU")

    # int8 x int8 accumulates exactly in int32; the bias and ReLU run on the device too.
    a = rng.integers(-128, 128, (64, 96), dtype=np.int8)
    b = rng.integers(-128, 128, (96, 48), dtype=np.int8)
    bias = rng.integers(-1000, 1000, 48, dtype=np.int32)
    c = dev.matmul(a, b, bias=bias, relu=True)
    assert c.dtype == np.int32 and (c == np.maximum(a.astype(np.int64) @ b + bias, 0)).all()
    print(f"int8 {a.shape} @ {b.shape} + bias, ReLU -> {c.dtype} {c.shape}: equal to numpy's")

    # Requantised to int8: sat8(round_shift(x * 3, 10) + 5).
    q = dev.matmul(a, b, requant=(3, 10, 5))
    print(f"requantised -> {q.dtype}, from {q.min()} to {q.max()}")

    # float32 is rounded to bf16 (8 significant bits) on the way in and accumulated in fp32.
    x = rng.standard_normal((64, 96), dtype=np.float32)
    w = rng.standard_normal((96, 48), dtype=np.float32)
    y = dev.matmul(x, w)
    err = np.abs(y - x.astype(np.float64) @ w)
    assert (err <= 2**-7 * (np.abs(x) @ np.abs(w))).all()   # each product's inputs off by 2^-9 at most
    print(f"float32 {x.shape} @ {w.shape} -> {y.dtype}: largest difference from float64 {err.max():.3f}")

    s = dev.stats()["last"]
    util = s["mxu_utilization"]   # None on the model backend, which is not timed
    print(f"the last call: {s['commands']} command, {s['macs']} MACs, {s['cycles']} cycles, MXU utilisation "
          f"{'not timed' if util is None else f'{util:.1%}'}")

    # A wrong argument raises tessel.Error before anything reaches the device.
    try:
        dev.matmul(a, w)
    except tessel.Error as e:
        print(f"refused: {e}")
