#!/usr/bin/env python3
"""make test-python: the tessel package (host_driver/python) against independent references.

Usage: PYTHONPATH=build/python test_tessel.py   (SEED=n replays; without it the seed is random)
Prints the seed first and "python: N passed, M failed" last; a failure prints the case, the first
mismatch (index, expected, got) and the bound.

  - every Device method on the model backend over seeded random shapes and options, int8 and
    float32 inputs, every output dtype;
  - the errors: a wrong dtype or shape, an empty array, negative or zero sizes and options, a bad
    option, a refusal of the library itself, misuse of the raw layer, a closed device, closing
    twice, a bad backend: each raises tessel.Error with the status expected and the interpreter
    goes on; the context manager closes; several threads share a device, and one closes it;
  - the encoders of device buffers (conv2d_cmd, pool2d_cmd, rowwise_cmd, eltwise_cmd,
    attention_cmd, gemm_cmd's strides): their words, submitted on buffers, give the Device
    method's result bit for bit; their refusals are the library's, with its message;
  - stats: the last call's counters and the totals against what tessel.h defines;
  - issue 32: a scale that rounds to 0 or overflows in float32 (1e-50, -1e-50, 1e39) is refused by
    matmul, bmm, conv2d, softmax and attention, an eps that does by layernorm and rmsnorm, with
    libtessel's message (tessel_f32_arg); the raw layer's scale None is "not given"; elementwise
    functions of a 0-d array give a 0-d array (numpy's habit); Device("model", firmware=...) and
    timeline=... are refused by tessel_open;
  - one matmul and one conv2d on the simulated SoC ("sim"), checked the same way;
  - custom kernels on the sim (build/kernels, `make kernels`): examples/kernels/scale_add.c (a loop
    on the control core) and scale_add_vpu.c (DMA and VPU instructions, chunks of 16 K values)
    against numpy's int32 arithmetic (wrapping modulo 2^32), exact; the arguments a kernel sees; a negative
    return, bad images and arguments, kernels that trap (illegal instruction, ECALL, EBREAK) and one
    that never returns (a timeout), each followed by a matmul or a kernel that is right; the model
    backend's refusal;
  - each examples/python/*.py runs and exits 0;
  - pods (docs/pod.md) on the model backend: all_reduce, reduce_scatter, all_gather and broadcast on
    rings and tori against numpy, exact (int32 wrapping; float sums of integers, which no order
    rounds; max and min; bf16 inputs rounded as torch rounds them); the refusals, a closed pod, a
    chip's device that only the pod closes, a dead chip.

References (nothing from the code under test):
  - int8 matmul, bmm and conv2d: numpy int64, with the epilogue and REQUANT of docs/isa.md §7: bias,
    ReLU, then for an int8 output sat8(sat32(round_shift(x * scale, shift) + zero_point)), where
    round_shift(v, s) = floor((v + 2^(s-1)) / 2^s) for s >= 1. Exact. int8 pooling: the max, or
    the sum over the taps (padding the zero point) divided by their count, rounded to nearest with
    ties away from zero (tessel.h). Exact.
  - float paths: float64 of the inputs as the device reads them (rounded to bf16 by torch's
    bfloat16 conversion, round to nearest even, unless in_dtype is "fp32"), within the bounds
    derived in tests/torch/test_torch_ref.py's docstring (u = 2^-24, FP32's unit roundoff):
    matmul, bmm, conv2d 2 (K + 1) u (scale sum|a b| + |bias|) for K products per output; average
    pooling 2 (k + 1) u mean|x|; softmax, layer norm, RMS norm, GELU (tanh form) and SiLU
    (64 + n) u of the row's scale (its largest |y|; for the norms max|gamma| max|x| / rms + max|beta|);
    attention that docstring's bound. Max pooling and add are exact: the max of bf16 values, and
    one fp32 rounding of an exact sum. A "bf16" output adds half a bf16 ulp, 2^-8 |y|. References
    from torch 1.13's CPU ops in float64 (softmax, layer_norm, gelu, silu) or numpy float64.
"""
import glob
import math
import os
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
import torch
import torch.nn.functional as F

import tessel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tally import Tally, mismatch   # noqa: E402  (tests/ is no package)

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
U = 2.0**-24
tally = Tally()
ok = tally.check


def pod_cases(rng):
    for backend, chips, topology, dims in (("model", 2, "ring", None), ("model", 3, "ring", None),
                                           ("model", 4, "ring", None), ("model", 4, "torus", (2, 2)),
                                           ("model", 8, "torus", (2, 4)), ("sim", 2, "ring", None),
                                           ("sim", 4, "torus", (2, 2))):
        what = f"pod {backend} {chips} {topology}"
        with tessel.Pod(backend, chips=chips, topology=topology, dims=dims) as pod:
            ok(len(pod.devices) == chips and all(d.backend == backend for d in pod.devices), what + ": devices")
            shape = (int(rng.integers(1, 5)) * chips, int(rng.integers(1, 40)))
            xi = [rng.integers(-2**31, 2**31, shape, dtype=np.int64).astype(np.int32) for _ in range(chips)]
            xf = [rng.integers(-512, 512, shape).astype(np.float32) for _ in range(chips)]
            xr = [rng.standard_normal(shape).astype(np.float32) for _ in range(chips)]
            total = np.sum(np.stack(xi), axis=0, dtype=np.int32)
            for got in pod.all_reduce(xi):
                check(what + ": all_reduce int32 sum", got, total, np.int32)
            for op, ref in (("max", np.max), ("min", np.min)):
                for got in pod.all_reduce(xr, op=op):
                    check(f"{what}: all_reduce fp32 {op}", got, ref(np.stack(xr), axis=0), np.float32)
            for got in pod.all_reduce(xf):
                check(what + ": all_reduce fp32 sum of integers", got, np.sum(np.stack(xf), axis=0), np.float32)
            small = [np.round(x / 64) for x in xf]
            for got in pod.all_reduce(small, dtype="bf16"):
                check(what + ": all_reduce bf16 sum of small integers", got, np.sum(np.stack(small), axis=0),
                      np.float32)
            k = shape[0] // chips
            for i, got in enumerate(pod.reduce_scatter(xi, op="max")):
                check(f"{what}: reduce_scatter int32 max, chip {i}", got, np.max(np.stack(xi), axis=0)[i * k:(i + 1) * k],
                      np.int32)
            for got in pod.all_gather(xr):
                check(what + ": all_gather fp32", got, np.concatenate(xr), np.float32)
            root = int(rng.integers(0, chips))
            for got in pod.broadcast(xr[root], root=root, dtype="bf16"):
                check(f"{what}: broadcast bf16 from {root}", got, bf16(xr[root]), np.float32)
            s = pod.stats()
            ok(s["collectives"] == 8 and s["ici_bytes"] > 0 and s["model_cycles"] > 0 and
               (s["cycles"] > 0) == (backend == "sim"), what + ": stats (cycles on the sim only)", str(s))
            expect_error(what + ": too few arrays", lambda: pod.all_reduce(xi[1:]), "EINVAL", "arrays for")
            expect_error(what + ": int8", lambda: pod.all_reduce([x.astype(np.int8) for x in xi]), "EINVAL", "int32")
            expect_error(what + ": mixed shapes", lambda: pod.all_gather(xi[:-1] + [xi[0][:1]]), "EINVAL", "differ")
            expect_error(what + ": a chip's close", lambda: pod.devices[0].close(), "EINVAL", "closes with its pod")
            if chips > 1:
                bad = [np.zeros((chips + 1, 2), np.int32)] * chips
                expect_error(what + ": reduce_scatter of rows not split", lambda: pod.reduce_scatter(bad), "EINVAL",
                             "multiple")
        expect_error(what + ": a call on the closed pod", lambda: pod.all_reduce(xi), "EINVAL", "closed")
        expect_error(what + ": a call on a closed chip", lambda: pod.devices[0].info(), "EINVAL", "closed")
    expect_error("pod on a board", lambda: tessel.Pod("uart", chips=4), "ENODEV", "uart")
    expect_error("pod of one chip", lambda: tessel.Pod("model", chips=1), "EINVAL", "2 or more")
    expect_error("pod torus of other dims", lambda: tessel.Pod("model", chips=4, topology="torus", dims=(2, 3)),
                 "EINVAL", "2 x 3")
    expect_error("pod topology", lambda: tessel.Pod("model", chips=4, topology="mesh"), "EINVAL", "topology")
    with tessel.Pod("sim", chips=2) as pod:   # a chip that waits in vain gives up at the bound set
        expect_error("pod set_wait of -1", lambda: pod.set_wait(-1), "EINVAL", "at least 0")
        pod.set_wait(20000)
        pod.raw.kill(1)
        expect_error("sim pod with a dead chip, a bound of 20000 cycles",
                     lambda: pod.all_reduce([np.ones(8, np.int32)] * 2), "EDEVICE", "SEM_DEADLOCK")
    with tessel.Pod("model", chips=3) as pod:
        pod.raw.kill(1)
        expect_error("pod with a dead chip", lambda: pod.all_reduce([np.ones(8, np.float32)] * 3), "EDEVICE",
                     "SEM_DEADLOCK")


def guarded(fn, *args):
    """fn(*args); an exception it lets out (a call the package refused by mistake, say) is a failure."""
    try:
        fn(*args)
    except Exception as e:   # the cases go on
        opts = [a for a in args if isinstance(a, (str, bool))]
        ok(False, f"{fn.__name__} {opts} raised {type(e).__name__}", str(e))


def check(what, got, ref, dtype, tol=None):
    """got (the device's array, of numpy dtype `dtype`) against ref: exact when tol is None."""
    why = f"dtype {got.dtype}, expected {np.dtype(dtype)}" if got.dtype != dtype else \
        mismatch(got, np.asarray(ref, np.float64), tol)
    ok(not why, what, why)


def expect_error(what, fn, name, part=""):
    """fn() raises tessel.Error with status name `name`, its message holding `part`."""
    try:
        fn()
    except tessel.Error as e:
        ok(e.name == name and part in e.message and isinstance(e.status, int) and str(e).startswith(name + ": "),
           what, f"raised {e.name} ({e.status}): {e.message!r}; expected {name}" + (f" with {part!r}" if part else ""))
    except Exception as e:   # anything but tessel.Error is a failure too
        ok(False, what, f"raised {type(e).__name__}: {e}")
    else:
        ok(False, what, f"no error; expected {name}")


def bf16(a):
    """float32 values rounded to bf16 (torch's conversion: to nearest even), as float64."""
    return torch.from_numpy(np.asarray(a, np.float32)).to(torch.bfloat16).to(torch.float64).numpy()


def bf16_bits(a):
    """float32 values rounded to bf16 (as bf16()), their 16-bit patterns: what the device reads."""
    return torch.from_numpy(np.asarray(a, np.float32)).to(torch.bfloat16).view(torch.int16).numpy()


def as_read(a, in_dtype="bf16"):
    """The float64 values the device computes with."""
    return bf16(a) if in_dtype == "bf16" else np.asarray(a, np.float64)


def rand_f32(rng, shape, s=1.0):
    return (rng.standard_normal(shape) * s).astype(np.float32)


def rand_i8(rng, shape):
    return rng.integers(-128, 128, shape).astype(np.int8)


def bf16_out(ref, out_dtype):
    """The extra error of a bf16 output: half an ulp."""
    return np.abs(ref) * 2.0**-8 if out_dtype == "bf16" else 0


# ---- the epilogue of the integer paths (docs/isa.md §7) ---------------------------------------------
def int_epilogue(acc, bias, relu, out_dtype, requant):
    """acc (int64) + bias, ReLU, then REQUANT and saturation for an int8 output."""
    v = acc + (0 if bias is None else np.asarray(bias, np.int64))
    if relu:
        v = np.maximum(v, 0)
    if out_dtype != "int8":
        return v
    scale, shift, zp = requant or (1, 0, 0)
    v = v * scale
    if shift:
        v = (v + (1 << (shift - 1))) >> shift   # arithmetic shift: floor
    return np.clip(np.clip(v + zp, -2**31, 2**31 - 1), -128, 127)


def rand_requant(rng):
    """A requantisation whose outputs both fit and saturate for products of a few dozen int8 terms."""
    return int(rng.integers(1, 1 << 16)), int(rng.integers(8, 26)), int(rng.integers(-30, 31))


def int8_options(rng, n):
    """Random epilogue options of an int8 product with n output columns: (kwargs, bias, relu, out, rq)."""
    bias = rng.integers(-1 << 15, 1 << 15, n).astype(np.int32) if rng.random() < 0.6 else None
    if bias is not None and rng.random() < 0.3:
        bias = rng.integers(-128, 128, n).astype(np.int8)   # widened to int32 by the package
    relu = bool(rng.random() < 0.5)
    out = "int8" if rng.random() < 0.5 else None
    rq = rand_requant(rng) if out and rng.random() < 0.8 else None
    kw = dict(bias=bias, relu=relu, out_dtype=out, requant=rq)
    return kw, bias, relu, out or "int32", rq


def float_options(rng, n):
    bias = rand_f32(rng, n) if rng.random() < 0.6 else None
    relu = bool(rng.random() < 0.5)
    scale = float(np.float32(rng.choice([0.75, 2.5]))) if rng.random() < 0.4 else None
    out = "bf16" if rng.random() < 0.3 else None
    return dict(bias=bias, relu=relu, out_dtype=out, scale=scale), bias, relu, out or "fp32", scale


def float_epilogue(acc, abs_acc, k, bias, relu, scale):
    """The reference and bound of a float product: acc = sum a b, abs_acc = sum |a b| in float64."""
    s = 1.0 if scale is None else scale
    b = 0 if bias is None else np.asarray(bias, np.float64)
    v = acc * s + b
    return (np.maximum(v, 0) if relu else v), 2 * (k + 1) * U * (s * abs_acc + np.abs(b))


# ---- matmul and bmm --------------------------------------------------------------------------------------------
def product_case(dev, rng, lead, max_size):
    """matmul (lead ()) or bmm of random int8 or float32 operands, max_size at most in each of m, k, n."""
    m, k, n = (int(v) for v in rng.integers(1, max_size + 1, 3))
    call = dev.bmm if lead else dev.matmul
    if rng.random() < 0.5:
        a, b = rand_i8(rng, lead + (m, k)), rand_i8(rng, lead + (k, n))
        kw, bias, relu, out, rq = int8_options(rng, n)
        ref = int_epilogue(np.matmul(a.astype(np.int64), b.astype(np.int64)), bias, relu, out, rq)
        dtype, tol = (np.int8 if out == "int8" else np.int32), None
    else:
        a, b = rand_f32(rng, lead + (m, k)), rand_f32(rng, lead + (k, n))
        kw, bias, relu, out, scale = float_options(rng, n)
        ad, bd = bf16(a), bf16(b)
        ref, tol = float_epilogue(np.matmul(ad, bd), np.matmul(np.abs(ad), np.abs(bd)), k, bias, relu, scale)
        dtype, tol = np.float32, tol + bf16_out(ref, out)
    check(f"{call.__name__} {a.dtype} {a.shape} by {b.shape} {kw | {'bias': bias is not None}}", call(a, b, **kw), ref,
          dtype, tol)


def matmul_case(dev, rng):
    product_case(dev, rng, (), 40)


def matmul_epilogue_case(dev, rng):
    """matmul's float epilogues in its one command: epilogue="gelu" gives the bits of the product into fp32
    followed by the device's gelu (and is within the bounds of PyTorch's tanh form of the float64
    product); add=r those of the product plus r in float32 (one rounding of an exact sum)."""
    m, k, n = (int(v) for v in rng.integers(1, 40, 3))
    a, b, bias, r = rand_f32(rng, (m, k)), rand_f32(rng, (k, n)), rand_f32(rng, (n,)), rand_f32(rng, (m, n))
    what = f"matmul {a.shape} by {b.shape} + bias"
    c = dev.matmul(a, b, bias=bias)
    check(f"{what}, gelu: the product then gelu", dev.matmul(a, b, bias=bias, epilogue="gelu"),
          dev.gelu(c, in_dtype="fp32"), np.float32)
    ad, bd = bf16(a), bf16(b)
    ref, tol = float_epilogue(np.matmul(ad, bd), np.matmul(np.abs(ad), np.abs(bd)), k, bias, False, None)
    g = F.gelu(torch.from_numpy(ref), approximate="tanh").numpy()   # |gelu'| <= 1.13
    check(f"{what}, gelu: PyTorch's", dev.matmul(a, b, bias=bias, epilogue="gelu"), g, np.float32,
          1.13 * tol + (64 * U + 2.0**-52) * np.abs(g) + 2.0**-52 * np.abs(ref))
    check(f"{what}, add: the product plus add", dev.matmul(a, b, bias=bias, add=r), c + r, np.float32)


def bmm_case(dev, rng):
    product_case(dev, rng, tuple(int(v) for v in rng.integers(1, 4, int(rng.integers(1, 3)))), 24)


# ---- windows ----------------------------------------------------------------------------------------------------
def window(rng, max_k, dil=True):
    """A random geometry that fits: window, stride, dilation, padding (top, bottom, left, right), h, w."""
    k = tuple(int(v) for v in rng.integers(1, max_k + 1, 2))
    d = tuple(int(v) for v in rng.integers(1, 3, 2)) if dil else (1, 1)
    s = tuple(int(v) for v in rng.integers(1, 4, 2))
    pad = tuple(int(v) for v in rng.integers(0, 4, 4))
    h, w = (max(1, d[i] * (k[i] - 1) + 1 - pad[2 * i] - pad[2 * i + 1]) + int(rng.integers(0, 9)) for i in range(2))
    return k, s, d, pad, h, w


def taps(x, k, s, d, pad, fill):
    """The window taps of NHWC x: a list over (i, j) of batch x oh x ow x c arrays, padding `fill`."""
    xp = np.pad(x, ((0, 0), (pad[0], pad[1]), (pad[2], pad[3]), (0, 0)), constant_values=fill)
    oh = (xp.shape[1] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (xp.shape[2] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    return [xp[:, i * d[0]:i * d[0] + s[0] * (oh - 1) + 1:s[0], j * d[1]:j * d[1] + s[1] * (ow - 1) + 1:s[1], :]
            for i in range(k[0]) for j in range(k[1])]


def conv_ref(x, w, s, d, pad, groups, fill):
    """conv2d of NHWC x and HWIO w, summed tap by tap, in x's dtype."""
    kh, kw, cg, cout = w.shape
    og = cout // groups
    t = taps(x, (kh, kw), s, d, pad, fill)
    y = np.zeros(t[0].shape[:3] + (cout,), x.dtype)
    for idx, patch in enumerate(t):
        wt = w[idx // kw, idx % kw]
        for g in range(groups):
            y[..., g * og:(g + 1) * og] += patch[..., g * cg:(g + 1) * cg] @ wt[:, g * og:(g + 1) * og]
    return y


def padding_arg(rng, pad):
    """padding as the package takes it: (t, b, l, r), or an int or (h, w) when they say the same."""
    if pad[0] == pad[1] and pad[2] == pad[3]:
        return pad[0] if pad[0] == pad[2] and rng.random() < 0.5 else (pad[0], pad[2])
    return pad


def conv_case(dev, rng, int8):
    k, s, d, pad, h, w = window(rng, 4)
    depthwise = rng.random() < 0.25
    groups = int(rng.integers(1, 20 if depthwise else 4))
    cg = 1 if depthwise else int(rng.integers(1, 25))
    c, cout, n = cg * groups, groups * int(rng.integers(1, 3 if depthwise else 21)), int(rng.integers(1, 3))
    geo = dict(stride=s, padding=padding_arg(rng, pad), dilation=d, groups=groups)
    what = f"conv2d {'int8' if int8 else 'float32'} x {n}x{h}x{w}x{c}, w {k[0]}x{k[1]}x{cg}x{cout}, {geo}"
    if int8:
        x, wt, zp = rand_i8(rng, (n, h, w, c)), rand_i8(rng, k + (cg, cout)), int(rng.integers(-128, 128))
        kw, bias, relu, out, rq = int8_options(rng, cout)
        acc = conv_ref(x.astype(np.int64), wt.astype(np.int64), s, d, pad, groups, zp)
        check(what + f", zero point {zp}, {kw | {'bias': bias is not None}}",
              dev.conv2d(x, wt, x_zero_point=zp, **geo, **kw), int_epilogue(acc, bias, relu, out, rq),
              np.int8 if out == "int8" else np.int32)
    else:
        x, wt = rand_f32(rng, (n, h, w, c)), rand_f32(rng, k + (cg, cout))
        kw, bias, relu, out, scale = float_options(rng, cout)
        xd, wd = bf16(x), bf16(wt)
        ref, tol = float_epilogue(conv_ref(xd, wd, s, d, pad, groups, 0.0),
                                  conv_ref(np.abs(xd), np.abs(wd), s, d, pad, groups, 0.0), k[0] * k[1] * cg, bias,
                                  relu, scale)
        check(what + f", {kw | {'bias': bias is not None}}", dev.conv2d(x, wt, **geo, **kw), ref, np.float32,
              tol + bf16_out(ref, out))


def pool_case(dev, rng, kind, int8):
    k, s, d, pad, h, w = window(rng, 3, dil=kind == "max")
    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 20))
    x = rand_i8(rng, (n, h, w, c)) if int8 else rand_f32(rng, (n, h, w, c))
    xd = x.astype(np.float64) if int8 else bf16(x)
    geo = dict(stride=s, padding=padding_arg(rng, pad), dilation=d)
    what = f"{kind} pool {'int8' if int8 else 'float32'} x {x.shape}, window {k}, {geo}"
    if kind == "max":
        ref = np.max(taps(xd, k, s, d, pad, -np.inf), axis=0)
        if np.isinf(ref).any():   # a window of padding alone has no max: draw again
            return pool_case(dev, rng, kind, int8)
        return check(what, dev.pool2d(x, "max", k, **geo), ref, np.int8 if int8 else np.float32)
    kk = k[0] * k[1]
    if int8:
        zp = int(rng.integers(-128, 128))
        sm = np.sum(taps(x.astype(np.int64), k, s, d, pad, zp), axis=0)
        ref = np.sign(sm) * ((2 * np.abs(sm) + kk) // (2 * kk))   # to nearest, ties away from zero
        return check(what + f", zero point {zp}", dev.pool2d(x, "avg", k, x_zero_point=zp, **geo), ref, np.int8)
    out = "bf16" if rng.random() < 0.3 else None
    ref = np.sum(taps(xd, k, s, d, pad, 0.0), axis=0) / kk
    tol = 2 * (kk + 1) * U * np.sum(taps(np.abs(xd), k, s, d, pad, 0.0), axis=0) / kk
    check(what + f", out {out}", dev.pool2d(x, "avg", k, out_dtype=out, **geo), ref, np.float32,
          tol + bf16_out(ref, out))


# ---- the row functions -------------------------------------------------------------------------------------
def row_case(dev, rng, fn):
    shape = tuple(int(v) for v in rng.integers(1, 5, int(rng.integers(0, 3)))) + (int(rng.integers(1, 100)),)
    n = shape[-1]
    x = rand_f32(rng, shape, float(rng.choice([1.0, 3.0])))
    in_dtype = "fp32" if rng.random() < 0.3 else "bf16"
    out = "bf16" if rng.random() < 0.3 else None
    xd = as_read(x, in_dtype)
    xt = torch.from_numpy(xd)
    what = f"{fn} x {shape}, in {in_dtype}, out {out}"
    if fn in ("add", "mul", "max", "min", "relu"):   # one fp32 rounding of the exact result
        y = None if fn == "relu" else rand_f32(rng, shape)
        yd = None if y is None else as_read(y, in_dtype)
        exact = {"add": lambda: xd + yd, "mul": lambda: xd.astype(np.float64) * yd, "max": lambda: np.maximum(xd, yd),
                 "min": lambda: np.minimum(xd, yd), "relu": lambda: np.maximum(xd, 0)}[fn]
        ref = exact().astype(np.float32)
        got = dev.add(x, y, in_dtype=in_dtype, out_dtype=out) if fn == "add" else \
            dev.relu(x, in_dtype=in_dtype, out_dtype=out) if fn == "relu" else \
            dev.eltwise(fn, x, y, in_dtype=in_dtype, out_dtype=out)
        return check(what, got, bf16(ref) if out else ref, np.float32)
    if fn == "softmax":
        scale = float(np.float32(rng.choice([0.125, 2.0, -0.5]))) if rng.random() < 0.5 else None
        mask = None
        t = xt * (scale or 1.0)
        if rng.random() < 0.5:
            mask = np.where(rng.random(shape) < 0.3, -np.inf, rng.standard_normal(shape)).astype(np.float32)
            mask[..., 0] = 0   # never a whole row masked
            t = t + torch.from_numpy(mask.astype(np.float64))
        got = dev.softmax(x, scale=scale, mask=mask, in_dtype=in_dtype, out_dtype=out)
        ref = F.softmax(t, dim=-1).numpy()
        big = np.abs(ref).max(-1, keepdims=True)
    elif fn in ("layernorm", "rmsnorm"):
        g = rand_f32(rng, n)
        b = rand_f32(rng, n) if fn == "layernorm" and rng.random() < 0.7 else None
        eps = float(np.float32(rng.choice([1e-5, 1e-3])))
        res = rand_f32(rng, shape, float(rng.choice([1.0, 10.0]))) if rng.random() < 0.5 else None
        if res is not None:   # held as out_dtype, added to x with one fp32 rounding, in the same command
            xd = (xd + as_read(res, out or "fp32")).astype(np.float32).astype(np.float64)
            xt = torch.from_numpy(xd)
            what += ", residual"
        if fn == "layernorm":
            got = dev.layernorm(x, g, b, eps=eps, in_dtype=in_dtype, out_dtype=out, residual=res)
            ref = F.layer_norm(xt, (n,), torch.from_numpy(g.astype(np.float64)),
                               None if b is None else torch.from_numpy(b.astype(np.float64)), eps).numpy()
            rms = np.sqrt(xd.var(-1, keepdims=True) + eps)
        else:
            got = dev.rmsnorm(x, g, eps=eps, in_dtype=in_dtype, out_dtype=out, residual=res)
            rms = np.sqrt(np.mean(xd * xd, -1, keepdims=True) + eps)
            ref = xd / rms * g
        big = np.abs(g).max() * np.abs(xd).max(-1, keepdims=True) / rms + (0 if b is None else np.abs(b).max())
    else:
        got = getattr(dev, fn)(x, in_dtype=in_dtype, out_dtype=out)
        ref = (F.gelu(xt, approximate="tanh") if fn == "gelu" else F.silu(xt)).numpy()
        big = np.abs(ref).max(-1, keepdims=True)
    # + float64's own error, 2^-52 |x|: GELU's 1 + tanh cancels where tanh is near -1
    check(what, got, ref, np.float32, (64 + n) * U * big + bf16_out(ref, out) + 2.0**-52 * np.abs(xd))


def attention_case(dev, rng):
    heads = tuple(int(v) for v in rng.integers(1, 4, int(rng.integers(0, 3))))
    lk, d, dv = int(rng.integers(1, 25)), int(rng.integers(1, 41)), int(rng.integers(1, 21))
    causal = bool(rng.random() < 0.5)
    lq = int(rng.integers(1, lk + 1)) if causal else int(rng.integers(1, 21))
    q, k, v = rand_f32(rng, heads + (lq, d)), rand_f32(rng, heads + (lk, d)), rand_f32(rng, heads + (lk, dv))
    scale = float(np.float32(rng.choice([0.25, 0.1]))) if rng.random() < 0.5 else None
    out = "bf16" if rng.random() < 0.3 else None
    got = dev.attention(q, k, v, causal=causal, scale=scale, out_dtype=out)
    qd, kd, vd = bf16(q), bf16(k), bf16(v)
    sc = scale or 1 / np.sqrt(d)
    s = np.matmul(qd, np.swapaxes(kd, -1, -2)) * sc
    e = d * U * sc * np.matmul(np.abs(qd), np.swapaxes(np.abs(kd), -1, -2)) + 3 * U * np.abs(s)
    if causal:
        s = np.where(np.arange(lk) > np.arange(lq)[:, None] + lk - lq, -np.inf, s)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    ref = p @ vd
    big_e = np.where(p == 0, 0, e).max(-1, keepdims=True)   # the masked keys do not count
    tol = (p @ np.abs(vd)) * (2.0**-8 + 4 * big_e + 2 * lk * U) + 2 * (64 + lk) * U * np.abs(vd).sum(-2, keepdims=True)
    check(f"attention q {q.shape}, k {k.shape}, v {v.shape}, causal {causal}, scale {scale}, out {out}", got, ref,
          np.float32, tol + bf16_out(ref, out))


def head_columns_case(dev, rng):
    """ATTENTION with HEAD_COLUMNS (Q, V and O as L x heads*width matrices, head h's columns side by
    side, as one projection splits into heads) against the same heads stacked by rows, whose path
    attention_case checks: bit for bit, raw commands on one device. Then a LDA short of the heads'
    row is refused (BAD_SHAPE, EDEVICE)."""
    t, raw = tessel._tessel, dev.raw
    h, lk, d, dv = (int(v) for v in rng.integers(1, (5, 25, 41, 21)))
    causal = int(rng.random() < 0.5)
    lq = int(rng.integers(1, lk + 1)) if causal else int(rng.integers(1, 21))
    out = "bf16" if rng.random() < 0.3 else "fp32"
    es = 2 if out == "bf16" else 4
    q, k, v = (bf16_bits(rand_f32(rng, (rows, h * w))) for rows, w in ((lq, d), (lk, d), (lk, dv)))
    kt = np.ascontiguousarray(k.T)   # K transposed: head h's D rows of LK at row h D, in both layouts

    def stacked(a, w):   # heads stacked by rows: head h's rows at h L
        return np.ascontiguousarray(a.reshape(a.shape[0], h, w).transpose(1, 0, 2).reshape(-1, w))
    addr = {}
    for name, a in (("q", q), ("kt", kt), ("v", v), ("qs", stacked(q, d)), ("vs", stacked(v, dv))):
        addr[name] = raw.alloc(a.nbytes)
        raw.write(addr[name], a)
    got = {}
    for cols in (1, 0):
        c = raw.alloc(lq * h * dv * es)
        fields = dict(opcode=t.CMD_OP["ATTENTION"], flags=(cols << t.CMD_FLAG["HEAD_COLUMNS"]) |
                      (causal << t.CMD_FLAG["CAUSAL"]), a_dtype=t.DTYPE["BF16"], b_dtype=t.DTYPE["BF16"],
                      c_dtype=t.DTYPE[out.upper()], lq=lq, lk=lk, d=d, dv=dv, batch=h, b_addr=addr["kt"], ldb=2 * lk,
                      c_addr=c, scale=int(np.float32(d**-0.5).view(np.uint32)))
        if cols:
            fields.update(a_addr=addr["q"], lda=2 * h * d, v_addr=addr["v"], ldv=2 * h * dv, ldc=es * h * dv)
        else:
            fields.update(a_addr=addr["qs"], lda=2 * d, v_addr=addr["vs"], ldv=2 * dv, ldc=es * dv)
        raw.wait(raw.submit(t.command(**fields)))
        got[cols] = np.empty(lq * h * dv * es, np.uint8)
        raw.read(c, got[cols])
        if cols and h > 1:
            expect_error("attention: HEAD_COLUMNS with LDA short of the heads' row is refused",
                         lambda: raw.wait(raw.submit(t.command(**dict(fields, lda=2 * d)))), "EDEVICE", "BAD_SHAPE")
    as_rows = got[1].view(np.uint16 if es == 2 else np.uint32).reshape(lq, h, dv)
    stacked_out = got[0].view(as_rows.dtype).reshape(h, lq, dv).transpose(1, 0, 2)
    ok(np.array_equal(as_rows, stacked_out), f"attention HEAD_COLUMNS: {h} heads, lq {lq}, lk {lk}, d {d}, dv {dv}, "
       f"causal {causal}, {out}: the stacked heads' result bit for bit")


# ---- stats ---------------------------------------------------------------------------------------------------
# ---- device arrays ---------------------------------------------------------------------------------
def array_case(dev, rng):
    """Two matmuls on Arrays, the second reading the first's result on the device (int8 requantised,
    or bf16), run as one submission and give what the same products give on numpy arrays, bit for
    bit, in both results; the int8 layer also against the integer reference."""
    m, k, n, n2 = (int(v) for v in rng.integers(1, 70, 4))
    int8 = rng.random() < 0.5
    if int8:
        x, w1, w2 = rand_i8(rng, (m, k)), rand_i8(rng, (k, n)), rand_i8(rng, (n, n2))
        kw, bias, relu, _, rq = int8_options(rng, n)
        kw.update(out_dtype="int8", requant=rq or (1, 0, 0))
        xa, w1a, w2a = dev.array(x), dev.array(w1), dev.array(w2)
    else:
        x, w1, w2 = rand_f32(rng, (m, k)), rand_f32(rng, (k, n)), rand_f32(rng, (n, n2))
        kw = float_options(rng, n)[0]
        kw["out_dtype"] = "bf16"
        xa, w1a, w2a = dev.array(x, "bf16"), dev.array(w1, "bf16"), dev.array(w2, "bf16")
    dev.sync()
    dev.stats_reset()
    h = dev.matmul(xa, w1a, **kw)
    y = dev.matmul(h, w2a)
    yv, hv = y.numpy(), h.numpy()
    stats = dev.stats()["total"]
    ok(stats["submissions"] == 1 and stats["commands"] == 2, f"array: {stats['commands']} commands in "
       f"{stats['submissions']} submissions, expected 2 in 1")
    h_np = dev.matmul(x, w1, **kw)
    y_np = dev.matmul(h_np, w2)
    what = f"array: {'int8' if int8 else 'bf16'} {m}x{k}x{n}x{n2} chain against numpy arrays"
    check(what + ", first product", hv, h_np, h_np.dtype)
    check(what, yv, y_np, y_np.dtype)
    if int8:
        check(f"array: int8 {m}x{k}x{n} against the integer reference", hv,
              int_epilogue(x.astype(np.int64) @ w1, kw["bias"], kw["relu"], "int8", kw["requant"]), np.int8)


def array_errors(dev, rng):
    a, b = dev.array(rand_i8(rng, (4, 8))), dev.array(rand_i8(rng, (8, 3)))
    expect_error("array: a float64 array", lambda: dev.array(np.zeros((2, 2))), "EINVAL", "float64")
    expect_error("array: int8 as bf16", lambda: dev.array(rand_i8(rng, (2, 2)), "bf16"), "EINVAL", "int8")
    expect_error("array: an Array with a numpy array", lambda: dev.matmul(a, rand_i8(rng, (8, 3))), "EINVAL",
                 "Array")
    expect_error("array: shapes", lambda: dev.matmul(a, a), "EINVAL", "shape mismatch")
    expect_error("array: an fp32 Array with an int8 one", lambda: dev.matmul(dev.array(rand_f32(rng, (4, 8))), b),
                 "EINVAL", "one input dtype")
    expect_error("array: fp32 Arrays into a GEMM", lambda: dev.matmul(dev.array(rand_f32(rng, (4, 8))),
                                                                      dev.array(rand_f32(rng, (8, 3)))),
                 "EINVAL", "tessel_gemm: in_dtype fp32 is not int8 or bf16")
    expect_error("array: add", lambda: dev.matmul(a, b, add=np.zeros((4, 3), np.int32)), "EINVAL", "add")
    with tessel.Device("model") as other:
        expect_error("array: another device's Array", lambda: dev.matmul(a, other.array(rand_i8(rng, (8, 3)))),
                     "EINVAL", "this device")
    a.free()
    expect_error("array: a freed Array", a.numpy, "EINVAL", "freed")
    check("array: numpy() of an upload", b.numpy().astype(np.int64), b.numpy().astype(np.int64), np.int64)


def encoder_cases(dev, rng):
    """The encoders of device buffers (RawDevice.*_cmd): each one's words, submitted on buffers,
    give the host call's result bit for bit; the library's refusals come back as tessel.Error with
    its message."""
    raw = dev.raw

    def put(a):
        addr = raw.alloc(max(a.nbytes, 4))
        raw.write(addr, np.ascontiguousarray(a))
        return addr

    def run(words, addr, out):
        raw.wait(raw.submit(words))
        raw.read(addr, out)
        return out

    x = rand_i8(rng, (2, 6, 5, 4))
    w = rand_i8(rng, (3, 3, 2, 6))
    want = dev.conv2d(x, w, groups=2, padding=1, stride=(2, 1), relu=True)
    px, pw, py = put(x), put(w), raw.alloc(want.nbytes)
    geo = dict(batch=2, h=6, w=5, c=4, kh=3, kw=3, stride_h=2, stride_w=1, pad_t=1, pad_b=1, pad_l=1, pad_r=1,
               dil_h=1, dil_w=1, in_dtype="int8", out_dtype="int32")
    got = run(raw.conv2d_cmd(px, pw, py, 6, 2, relu=True, **geo), py, np.empty_like(want))
    ok(np.array_equal(got, want), "conv2d_cmd: tessel.conv2d's result", "differs")
    want = dev.pool2d(x, "max", 3, stride=2, padding=1)
    got = run(raw.pool2d_cmd("max", px, py, **dict(geo, stride_w=2, out_dtype="int8")), py, np.empty_like(want))
    ok(np.array_equal(got, want), "pool2d_cmd: tessel.pool2d's result", "differs")

    f = rand_f32(rng, (5, 12))
    pf, pm, pg, po = put(f), put(np.where(np.arange(12) > np.arange(5)[:, None] + 7, -np.inf, 0).astype(np.float32)), \
        put(rand_f32(rng, (12,))), raw.alloc(f.nbytes)
    kw = dict(m=5, n=12, in_dtype="fp32", out_dtype="fp32")
    want = dev.softmax(f, scale=0.5, mask=np.where(np.arange(12) > np.arange(5)[:, None] + 7, -np.inf, 0)
                       .astype(np.float32), in_dtype="fp32")
    got = run(raw.rowwise_cmd("softmax", pf, po, scale=0.5, mask=pm, **kw), po, np.empty_like(f))
    ok(np.array_equal(got, want), "rowwise_cmd softmax (scale, mask): tessel.softmax's result", "differs")
    got = run(raw.eltwise_cmd("mul", pf, po, imm=0.5, **kw), po, np.empty_like(f))
    ok(np.array_equal(got, f * np.float32(0.5)), "eltwise_cmd mul imm=0.5: x * 0.5", "differs")
    got = run(raw.eltwise_cmd("add", pf, po, b=pg, b_row=True, **kw), po, np.empty_like(f))
    gamma = np.empty(12, np.float32)
    raw.read(pg, gamma)
    ok(np.array_equal(got, f + gamma), "eltwise_cmd add b_row: x + the row", "differs")

    q, k, v = rand_f32(rng, (2, 4, 8)), rand_f32(rng, (2, 6, 8)), rand_f32(rng, (2, 6, 5))
    want = dev.attention(q, k, v, causal=True)
    pq, pk, pv, pa = put(bf16_bits(q)), put(bf16_bits(k)), put(bf16_bits(v)), raw.alloc(want.nbytes)
    if (dev.info()["features"] >> tessel._tessel.FEATURE["TRANSPOSE"]) & 1:
        got = run(raw.attention_cmd(pq, pk, pv, pa, 2, 4, 6, 8, 5, "fp32", causal=True, k_rows=True), pa,
                  np.empty_like(want))
        ok(np.array_equal(got, want), "attention_cmd (K_ROWS, causal): tessel.attention's result", "differs")

    expect_error("rowwise_cmd: int8 rows", lambda: raw.rowwise_cmd("softmax", pf, po, 5, 12, "int8", "fp32"),
                 "EINVAL", "tessel_softmax: in_dtype int8 is not bf16 or fp32")
    expect_error("rowwise_cmd: an unknown fn", lambda: raw.rowwise_cmd("mean", pf, po, **kw), "EINVAL", "softmax")
    expect_error("eltwise_cmd: b to a unary op", lambda: raw.eltwise_cmd("exp", pf, po, b=pg, **kw), "EINVAL",
                 "unary")
    expect_error("conv2d_cmd: a window past 255", lambda: raw.conv2d_cmd(px, pw, py, 6, 2, **dict(geo, kh=256)),
                 "EINVAL", "tessel_conv2d: kh 256 is outside 1..255")
    expect_error("attention_cmd: O past 32 bits",
                 lambda: raw.attention_cmd(pq, pk, pv, 1 << 33, 2, 4, 6, 8, 5, "fp32"), "ERANGE", "32-bit")
    expect_error("gemm_cmd: lda shorter than a row",
                 lambda: raw.gemm_cmd(pq, pk, pa, 4, 4, 8, "bf16", "fp32", lda=7), "EINVAL", "tessel_gemm")
    for addr in (px, pw, py, pf, pm, pg, po, pq, pk, pv, pa):
        raw.free(addr)


def stats_cases(dev, rng):
    """The counters of tessel.h: one command per GEMM, M * Kp * Np MACs (K and N padded to the MXU's
    n), hbm_bytes each operand, the bias and the result once."""
    nn = dev.info()["n"]
    pad = lambda v: -(-v // nn) * nn   # noqa: E731
    dev.stats_reset()
    s = dev.stats()
    ok(s["total"] == s["last"] == dict(commands=0, submissions=0, cycles=0, macs=0, hbm_bytes=0, program_cache_hits=0,
                                       program_cache_misses=0, mxu_utilization=None),
       "stats after stats_reset are 0", str(s))
    want = dict(commands=0, macs=0, hbm_bytes=0)
    for m, k, n in ((5, 20, 33), (17, 3, 16)):
        dev.matmul(rand_i8(rng, (m, k)), rand_i8(rng, (k, n)), bias=np.zeros(n, np.int32))
        last = dict(commands=1, macs=m * pad(k) * pad(n), hbm_bytes=m * k + k * n + 4 * n + 4 * m * n)
        want = {f: want[f] + last[f] for f in want}
        s = dev.stats()
        ok({f: s["last"][f] for f in last} == last and s["last"]["cycles"] > 0, f"stats last of a {m}x{k}x{n} int8 "
           f"matmul + bias", f"{s['last']}, expected {last}")
        ok({f: s["total"][f] for f in want} == want, "stats total of the matmuls", f"{s['total']}, expected {want}")
    ok(s["total"]["mxu_utilization"] is None, "the model backend is not timed: mxu_utilization None", str(s))
    dev.softmax(rand_f32(rng, (4, 8)))
    s = dev.stats()["last"]
    ok(s["commands"] == 1 and s["macs"] == 0 and s["hbm_bytes"] > 0, "stats last of a softmax", str(s))
    # the program cache, on a device of its own: keyed by shapes and addresses, never by data
    cache = lambda part: (part["program_cache_hits"], part["program_cache_misses"])   # noqa: E731
    with tessel.Device("model") as fresh:
        fresh.matmul(rand_i8(rng, (6, 10)), rand_i8(rng, (10, 5)))
        s = fresh.stats()["last"]
        ok(cache(s) == (0, 1), "program cache: a first matmul is compiled", str(s))
        x, w = rand_i8(rng, (6, 10)), rand_i8(rng, (10, 5))
        y = fresh.matmul(x, w)
        s = fresh.stats()
        ok(cache(s["last"]) == (1, 0) and cache(s["total"]) == (1, 1),
           "program cache: the same shapes with other data come from the cache", str(s))
        check("program cache: the matmul from the cache", y, x.astype(np.int64) @ w, np.int32)
        fresh.matmul(rand_i8(rng, (7, 10)), w)
        s = fresh.stats()["last"]
        ok(cache(s) == (0, 1), "program cache: another shape is compiled", str(s))


# ---- errors ----------------------------------------------------------------------------------------------------
def error_cases(dev, rng):
    i8, f32 = rand_i8(rng, (4, 6)), rand_f32(rng, (4, 6))
    x4, w4 = rand_i8(rng, (1, 5, 5, 4)), rand_i8(rng, (3, 3, 4, 8))
    E = "EINVAL"
    cases = [
        # dtypes
        ("matmul int8 by float32", lambda: dev.matmul(i8, f32.T), E, "need all int8 or all float32"),
        ("matmul float64", lambda: dev.matmul(f32.astype(np.float64), f32.T.astype(np.float64)), E, "float64"),
        ("matmul int16", lambda: dev.matmul(i8.astype(np.int16), i8.T.astype(np.int16)), E, "int16"),
        ("conv2d int32", lambda: dev.conv2d(x4.astype(np.int32), w4.astype(np.int32)), E, "int32"),
        ("softmax of int8", lambda: dev.softmax(i8), E, "need float32"),
        ("attention float64", lambda: dev.attention(*(f32.astype(np.float64),) * 3), E, "need float32"),
        ("int8 bias float32", lambda: dev.matmul(i8, i8.T, bias=np.zeros(4, np.float32)), E, "bias"),
        ("float bias int32", lambda: dev.matmul(f32, f32.T, bias=np.zeros(4, np.int32)), E, "bias"),
        ("an object that is no array", lambda: dev.matmul([[1, 2], [3]], i8), E, "not an array"),
        # shapes
        ("matmul 4x6 by 4x6", lambda: dev.matmul(i8, i8), E, "shape mismatch"),
        ("matmul of 1-D", lambda: dev.matmul(i8[0], i8.T), E, "dimensions"),
        ("matmul of 3-D", lambda: dev.matmul(i8[None], i8.T), E, "dimensions"),
        ("bmm of 2-D", lambda: dev.bmm(i8, i8.T), E, "dimensions"),
        ("bmm leading dimensions differ", lambda: dev.bmm(i8[None], np.stack([i8.T, i8.T])), E, "shape mismatch"),
        ("bias of the wrong length", lambda: dev.matmul(i8, i8.T, bias=np.zeros(5, np.int32)), E, "4 values"),
        ("conv2d w's channels", lambda: dev.conv2d(x4, w4[:, :, :3]), E, "c/groups"),
        ("conv2d groups not dividing", lambda: dev.conv2d(x4, w4[:, :, :2], groups=3), E,
         "tessel_conv2d: groups 3 must divide c (4) and cout (8)"),
        ("conv2d of 3-D x", lambda: dev.conv2d(x4[0], w4), E, "dimensions"),
        ("softmax mask shape", lambda: dev.softmax(f32, mask=f32[:, :5]), E, "shape mismatch"),
        ("layernorm gamma length", lambda: dev.layernorm(f32, np.ones(5, np.float32)), E, "6 values"),
        ("layernorm residual shape", lambda: dev.layernorm(f32, np.ones(6, np.float32), residual=f32[:, :5]), E,
         "shape mismatch"),
        ("add y shape", lambda: dev.add(f32, f32.T), E, "shape mismatch"),
        ("attention k's d", lambda: dev.attention(f32, f32[:, :5], f32), E, "shape mismatch"),
        # empty, zero and negative sizes
        ("conv2d stride 0", lambda: dev.conv2d(x4, w4, stride=0), E, "tessel_conv2d: stride_h 0 is outside 1..255"),
        ("conv2d stride -1", lambda: dev.conv2d(x4, w4, stride=-1), E, "stride"),
        ("conv2d padding -1", lambda: dev.conv2d(x4, w4, padding=-1), E, "padding"),
        ("conv2d padding of 3 values", lambda: dev.conv2d(x4, w4, padding=(1, 1, 1)), E, "padding"),
        ("conv2d dilation 0", lambda: dev.conv2d(x4, w4, dilation=(1, 0)), E, "tessel_conv2d: dil_w 0 is outside 1..255"),
        ("conv2d groups 0", lambda: dev.conv2d(x4, w4, groups=0), E, "tessel_conv2d: groups 0 is outside 1..65535"),
        ("conv2d stride 1.5", lambda: dev.conv2d(x4, w4, stride=1.5), E, "integer"),
        ("conv2d window larger than the input", lambda: dev.conv2d(x4, w4, dilation=3), E, "does not fit"),
        ("pool2d window 0", lambda: dev.pool2d(x4, "max", 0), E, "tessel_pool2d: kh 0 is outside 1..255"),
        ("pool2d window of 3 values", lambda: dev.pool2d(x4, "max", (2, 2, 2)), E, "window"),
        ("layernorm eps -1", lambda: dev.layernorm(f32, np.ones(6, np.float32), eps=-1), E, "eps"),
        # options
        ("scale 0", lambda: dev.matmul(f32, f32.T, scale=0), E, "scale"),
        ("scale nan", lambda: dev.softmax(f32, scale=float("nan")), E, "scale"),
        ("scale of int8", lambda: dev.matmul(i8, i8.T, scale=2.0), E, "tessel_gemm: scale 2 applies to bf16 inputs only"),
        ("gelu of int8", lambda: dev.matmul(i8, i8.T, epilogue="gelu"), E, "tessel_gemm: gelu applies to bf16 inputs only"),
        ("add of int8", lambda: dev.matmul(i8, i8.T, add=np.zeros((4, 4), np.float32)), E,
         "tessel_gemm: add_c applies to bf16 inputs only"),
        ("gelu with relu", lambda: dev.matmul(f32, f32.T, relu=True, epilogue="gelu"), E,
         "tessel_gemm: gelu does not go with relu"),
        ("epilogue of no name", lambda: dev.matmul(f32, f32.T, epilogue="tanh"), E, "epilogue must be one of"),
        ("epilogue and add", lambda: dev.matmul(f32, f32.T, epilogue="gelu", add=np.zeros((4, 4), np.float32)), E,
         "both a last step"),
        ("add of the wrong shape", lambda: dev.matmul(f32, f32.T, add=np.zeros((4, 5), np.float32)), E, "4 x 4"),
        ("requant of float", lambda: dev.matmul(f32, f32.T, requant=(1, 0, 0)), E, "int8"),
        ("requant with int32 out", lambda: dev.matmul(i8, i8.T, out_dtype="int32", requant=(1, 0, 0)), E,
         "tessel_gemm: rq_scale, rq_shift and rq_zero_point need out_dtype int8"),
        ("requant of two values", lambda: dev.matmul(i8, i8.T, requant=(1, 0)), E, "requant"),
        ("requant shift -1", lambda: dev.matmul(i8, i8.T, requant=(1, -1, 0)), E, "shift"),
        ("out_dtype int16", lambda: dev.matmul(i8, i8.T, out_dtype="int16"), E, "out_dtype"),
        ("out_dtype int8 of float", lambda: dev.matmul(f32, f32.T, out_dtype="int8"), E, "out_dtype"),
        ("out_dtype fp32 of a max pool", lambda: dev.pool2d(f32.reshape(1, 4, 6, 1), "max", 2, out_dtype="fp32"),
         E, "out_dtype"),
        ("in_dtype int8 of softmax", lambda: dev.softmax(f32, in_dtype="int8"), E, "in_dtype"),
        ("pool2d kind min", lambda: dev.pool2d(x4, "min", 2), E, "kind"),
        ("x_zero_point of a float conv", lambda: dev.conv2d(x4.astype(np.float32), w4.astype(np.float32),
                                                             x_zero_point=3), E, "x_zero_point"),
        ("x_zero_point of a max pool", lambda: dev.pool2d(x4, "max", 2, x_zero_point=3), E, "x_zero_point"),
        # refused by the library itself: its message comes through
        ("conv2d stride 300", lambda: dev.conv2d(x4, w4, stride=300), E,
         "tessel_conv2d: stride_h 300 is outside 1..255"),
        ("x_zero_point 200", lambda: dev.conv2d(x4, w4, x_zero_point=200), E,
         "tessel_conv2d: x_zero_point 200 is outside -128..127"),
        ("causal attention with lq > lk", lambda: dev.attention(f32, f32[:2], f32[:2], causal=True), E,
         "tessel_attention: causal needs lq <= lk (lq 4, lk 2: more queries than keys)"),
        # the raw layer: no argument reaches past a buffer
        ("raw gemm: c too short", lambda: dev.raw.gemm(a=i8, b=i8.T.copy(), c=np.empty(3, np.int32), m=4, n=4, k=6,
                                                       in_dtype="int8", out_dtype="int32"), E, "c must hold 16"),
        ("raw gemm: a of float32", lambda: dev.raw.gemm(a=f32, b=i8.T.copy(), c=np.empty(16, np.int32), m=4, n=4,
                                                        k=6, in_dtype="int8", out_dtype="int32"), E, "a must hold"),
        ("raw gemm: a not contiguous", lambda: dev.raw.gemm(a=i8.T, b=i8, c=np.empty(36, np.int32), m=6, n=6, k=4,
                                                            in_dtype="int8", out_dtype="int32"), E, "C-contiguous"),
        ("raw gemm: c read-only", lambda: dev.raw.gemm(a=i8, b=i8.T.copy(), c=bytes(64), m=4, n=4, k=6,
                                                       in_dtype="int8", out_dtype="int32"), E, "writable"),
        ("raw gemm: m -1", lambda: dev.raw.gemm(a=i8, b=i8, c=i8, m=-1, n=4, k=6, in_dtype="int8",
                                                out_dtype="int32"), E, "m must be"),
        ("raw gemm: an unknown argument", lambda: dev.raw.gemm(a=i8, ldx=3), E, "no argument ldx"),
        ("raw gemm: no c", lambda: dev.raw.gemm(a=i8, b=i8, m=4, n=4, k=6, in_dtype="int8", out_dtype="int32"), E,
         "needs c"),
        ("raw gemm: batch", lambda: dev.raw.gemm(batch=2), E, "no argument batch"),
        ("raw gemm: an unknown dtype", lambda: dev.raw.gemm(in_dtype="int4"), E, "in_dtype"),
        ("raw conv2d: sizes past 64 bits", lambda: dev.raw.conv2d(
            x=x4, weights=w4, y=x4, cout=8, groups=1, batch=2**32 - 1, h=2**32 - 1, w=2**32 - 1, c=2**32 - 1, kh=1,
            kw=1, stride_h=1, stride_w=1, pad_t=0, pad_b=0, pad_l=0, pad_r=0, dil_h=1, dil_w=1, in_dtype="int8",
            out_dtype="int32"), E, "64 bits"),
        ("raw read of the rings", lambda: dev.raw.read(0, bytearray(16)), "ERANGE", "tessel_read"),
        ("raw read into bytes", lambda: dev.raw.read(0x10000, b"1234"), E, "writable"),
        ("raw alloc of 0 bytes", lambda: dev.raw.alloc(0), E, "tessel_alloc"),
        ("raw free of no block", lambda: dev.raw.free(0x12340), E, "not an allocated block"),
        ("raw wait on no command", lambda: dev.raw.wait(12345), E, "not an outstanding command"),
        ("raw submit of 3 words", lambda: dev.raw.submit([0, 0, 0]), E, "16 integers"),
        ("raw submit of a word past 32 bits", lambda: dev.raw.submit([2**32] + [0] * 15), E, "command word"),
        ("raw open without a backend", lambda: tessel._tessel.open(), E, "backend"),
        ("raw open with a NUL in the port", lambda: tessel._tessel.open("uart", port="a\0b"), E, "NUL"),
        # backends
        ("backend tpu", lambda: tessel.Device("tpu"), "ENODEV", "unknown backend"),
        ("backend uart without a port", lambda: tessel.Device("uart"), E, "port"),
    ]
    for what, fn, name, part in cases:
        expect_error(what, fn, name, part)
    # a size of 0 goes to the library, which refuses it naming the field: through the Device methods, the raw
    # calls and the raw encoders alike (Python checks no range of its own)
    raw = dev.raw
    win = dict(batch=1, h=5, w=5, c=4, kh=3, kw=3, stride_h=1, stride_w=1, pad_t=0, pad_b=0, pad_l=0, pad_r=0,
               dil_h=1, dil_w=1, in_dtype="int8")
    rows = dict(m=4, n=6, in_dtype="fp32", out_dtype="fp32")
    e8, ef = np.empty(0, np.int8), np.empty(0, np.float32)
    zeros = [
        ("matmul of 0x6", lambda: dev.matmul(i8[:0], i8.T), "tessel_gemm: m 0 must be at least 1"),
        ("raw gemm k 0", lambda: raw.gemm(a=e8, b=e8, c=np.empty(16, np.int32), m=4, n=4, k=0, in_dtype="int8",
                                          out_dtype="int32"), "tessel_gemm: k 0 must be at least 1"),
        ("bmm of 0 blocks", lambda: dev.bmm(i8[None][:0], i8.T[None][:0]), "tessel_bmm: batch 0 must be at least 1"),
        ("conv2d of 0 images", lambda: dev.conv2d(x4[:0], w4), "tessel_conv2d: batch 0 is outside 1..65535"),
        ("raw conv2d cout 0", lambda: raw.conv2d(x=x4, weights=e8, y=np.empty(0, np.int32), cout=0, groups=1,
                                                 out_dtype="int32", **win), "tessel_conv2d: cout 0 is outside 1..65535"),
        ("pool2d stride 0", lambda: dev.pool2d(x4, "max", 2, stride=(2, 0)), "tessel_pool2d: stride_w 0 is outside 1..255"),
        ("softmax of 4x0", lambda: dev.softmax(f32[:, :0]), "tessel_softmax: n 0 must be at least 1"),
        ("raw gelu m 0", lambda: raw.gelu(x=ef, y=np.empty(0, np.float32), **dict(rows, m=0)),
         "tessel_gelu: m 0 must be at least 1"),
        ("attention of 0 heads", lambda: dev.attention(*(rand_f32(rng, (0, 4, 6)),) * 3),
         "tessel_attention: batch 0 must be at least 1"),
        ("raw attention dv 0", lambda: raw.attention(q=f32, k=f32, v=ef, o=np.empty(0, np.float32), batch=1, lq=4, lk=4,
                                                     d=6, dv=0, out_dtype="fp32"), "tessel_attention: dv 0 must be at least 1"),
        ("gemm_cmd n 0", lambda: raw.gemm_cmd(0, 0, 0, 4, 0, 6, "int8", "int32"), "tessel_gemm: n 0 must be at least 1"),
        ("conv2d_cmd groups 0", lambda: raw.conv2d_cmd(0, 0, 0, 8, 0, out_dtype="int32", **win),
         "tessel_conv2d: groups 0 is outside 1..65535"),
        ("pool2d_cmd dil_h 0", lambda: raw.pool2d_cmd("max", 0, 0, **dict(win, dil_h=0, out_dtype="int8")),
         "tessel_pool2d: dil_h 0 is outside 1..255"),
        ("rowwise_cmd n 0", lambda: raw.rowwise_cmd("softmax", 0, 0, **dict(rows, n=0)),
         "tessel_softmax: n 0 must be at least 1"),
        ("eltwise_cmd m 0", lambda: raw.eltwise_cmd("relu", 0, 0, **dict(rows, m=0)),
         "tessel_eltwise: m 0 must be at least 1"),
        ("attention_cmd lk 0", lambda: raw.attention_cmd(0, 0, 0, 0, 1, 4, 0, 6, 6, "fp32"),
         "tessel_attention: lk 0 is outside 1..65535"),
    ]
    for what, fn, text in zeros:
        expect_error(f"size 0: {what}", fn, E, text)
    # the rules are the library's: a Device method's refusal is the text tessel_last_error gives for the
    # same arguments through the library's encoder (the CLI's test_cli.py shows the same lines)
    same = [
        ("rq_shift 63", lambda: dev.matmul(i8, i8.T, out_dtype="int8", requant=(1, 63, 0)),
         lambda: raw.gemm_cmd(0, 0, 0, 4, 4, 6, "int8", "int8", rq_scale=1, rq_shift=63),
         "tessel_gemm: rq_shift 63 is outside 0..62"),
        ("bf16 out of int8", lambda: dev.matmul(i8, i8.T, out_dtype="bf16"),
         lambda: raw.gemm_cmd(0, 0, 0, 4, 4, 6, "int8", "bf16"),
         "tessel_gemm: out_dtype bf16 does not go with int8 inputs (int32 or int8)"),
        ("groups 3", lambda: dev.conv2d(x4, w4[:, :, :1, :], groups=3),
         lambda: raw.conv2d_cmd(0, 0, 0, 8, 3, batch=1, h=5, w=5, c=4, kh=3, kw=3, stride_h=1, stride_w=1, pad_t=0,
                                pad_b=0, pad_l=0, pad_r=0, dil_h=1, dil_w=1, in_dtype="int8", out_dtype="int32"),
         "tessel_conv2d: groups 3 must divide c (4) and cout (8)"),
        ("causal lq > lk", lambda: dev.attention(rand_f32(rng, (2, 9, 8)), rand_f32(rng, (2, 6, 8)),
                                                 rand_f32(rng, (2, 6, 3)), causal=True),
         lambda: raw.attention_cmd(0, 0, 0, 0, 2, 9, 6, 8, 3, "fp32", causal=True),
         "tessel_attention: causal needs lq <= lk (lq 9, lk 6: more queries than keys)"),
    ]
    for what, method, encoder, text in same:
        got = []
        for fn in (method, encoder):
            try:
                fn()
                got.append(None)
            except tessel.Error as e:
                got.append((e.name, e.message))
        ok(got == [("EINVAL", text)] * 2, f"the library's refusal ({what}): the Device method's is the encoder's",
           str(got))
    ok(tessel.Error(-6, "x").name == "ERANGE" and issubclass(tessel.Error, Exception), "tessel.Error(status, message)")

    addr = dev.raw.alloc(256)
    data = np.arange(64, dtype=np.int32)
    back = np.zeros_like(data)
    dev.raw.write(addr, data)
    dev.raw.read(addr, back)
    dev.raw.free(addr)
    ok((back == data).all(), "raw alloc, write, read and free")


def issue32_cases(dev, rng):
    """Issue 32: one rule per float argument (the library's), 0-d elementwise, open options."""
    f32, x4, w4 = rand_f32(rng, (4, 6)), rand_f32(rng, (1, 5, 5, 4)), rand_f32(rng, (3, 3, 4, 8))
    q = rand_f32(rng, (2, 3, 8))
    g = np.ones(6, np.float32)
    tiny, huge = "rounds to 0 in float32", "overflows float32"
    calls = [
        ("matmul", lambda s: dev.matmul(f32, f32.T, scale=s)),
        ("bmm", lambda s: dev.bmm(f32[None], f32.T[None], scale=s)),
        ("conv2d", lambda s: dev.conv2d(x4, w4, scale=s)),
        ("softmax", lambda s: dev.softmax(f32, scale=s)),
        ("attention", lambda s: dev.attention(q, q, q, scale=s)),
        ("raw gemm", lambda s: dev.raw.gemm(a=f32, b=f32.T.copy(), c=np.empty(16, np.float32), m=4, n=4, k=6,
                                            in_dtype="bf16", out_dtype="fp32", scale=s)),
    ]
    for name, call in calls:
        for v, part in ((1e-50, tiny), (-1e-50, tiny), (1e-40, "subnormal"), (1e39, huge), (-1e39, huge),
                        (0.0, "not given")):
            expect_error(f"{name} scale={v!r}: refused (the library's rule)", lambda: call(v), "EINVAL",
                         f"scale {v:g} is refused: ")
            expect_error(f"{name} scale={v!r}: the library's reason", lambda: call(v), "EINVAL", part)
    for name, call in (("layernorm", lambda e: dev.layernorm(f32, g, eps=e)),
                       ("rmsnorm", lambda e: dev.rmsnorm(f32, g, eps=e))):
        for v, part in ((1e-50, tiny), (1e39, huge), (-1.0, "eps must be >= 0"), (float("inf"), "not a finite")):
            expect_error(f"{name} eps={v!r}: refused", lambda: call(v), "EINVAL", f"eps {v:g} is refused: ")
            expect_error(f"{name} eps={v!r}: the library's reason", lambda: call(v), "EINVAL", part)
        y = call(0.0)
        ok(y.shape == f32.shape and np.isfinite(y).all(), f"{name} eps=0: taken", f"{y}")
    # a scale whose float32 is a small normal number is honoured: softmax of x * 1e-30 is uniform
    y = dev.softmax(f32, scale=1e-30)
    check("softmax scale=1e-30: uniform rows", y, np.full(f32.shape, 1 / 6), np.float32, 1e-6)
    y = dev.matmul(f32, f32.T, scale=1e-30)
    ok(np.abs(y).max() < 1e-27, "matmul scale=1e-30: the product times 1e-30", f"max |C| {np.abs(y).max()}")
    # the raw layer: scale None is "not given"
    c = np.empty(16, np.float32)
    dev.raw.gemm(a=f32, b=f32.T.copy(), c=c, m=4, n=4, k=6, in_dtype="bf16", out_dtype="fp32", scale=None)
    check("raw gemm scale=None: unscaled", c.reshape(4, 4), dev.matmul(f32, f32.T), np.float32)

    # elementwise of a 0-d array: a 0-d array, as numpy's
    x0 = np.float32(0.75)
    for name, fn, ref in (("gelu", lambda: dev.gelu(np.array(x0)), F.gelu(torch.tensor(0.75, dtype=torch.float64),
                                                                          approximate="tanh").item()),
                          ("silu", lambda: dev.silu(np.array(x0)), 0.75 / (1 + math.exp(-0.75))),
                          ("relu", lambda: dev.relu(np.array(np.float32(-2))), 0.0),
                          ("add", lambda: dev.add(np.array(x0), np.array(np.float32(0.5))), 1.25),
                          ("gelu of a numpy scalar", lambda: dev.gelu(x0), F.gelu(torch.tensor(0.75, dtype=torch.float64),
                                                                                 approximate="tanh").item())):
        y = fn()
        ok(isinstance(y, np.ndarray) and y.shape == () and abs(float(y) - ref) <= 1e-2 * abs(ref) + 1e-6,
           f"{name} of a 0-d array: shape () and the value", f"shape {getattr(y, 'shape', None)}, {y!r}, "
           f"expected {ref}")
    expect_error("softmax of a 0-d array: refused (no last axis)", lambda: dev.softmax(np.array(x0)), "EINVAL",
                 "dimensions")

    # open options the backend would ignore: refused by tessel_open
    for kw, part in ((dict(firmware=os.path.join(ROOT, "build", "fw", "cp.elf")), "firmware"),
                     (dict(timeline=os.path.join(ROOT, "build", "python", "t32.json")), "timeline")):
        expect_error(f"Device('model', {list(kw)[0]}=...): refused", lambda: tessel.Device("model", **kw), "EINVAL",
                     f"the {part} option is refused")
    ok(not os.path.exists(os.path.join(ROOT, "build", "python", "t32.json")), "model timeline: no file written")


def lifetime_cases(rng):
    a = rand_i8(rng, (3, 5))
    with tessel.Device("model") as d:
        ok((d.matmul(a, a.T) == a.astype(np.int64) @ a.T).all(), "a matmul inside a with block")
    expect_error("matmul after the with block", lambda: d.matmul(a, a.T), "EINVAL", "closed")
    try:
        with tessel.Device("model") as d:
            raise KeyError("inside")
    except KeyError:
        pass
    expect_error("the with block closes on an exception", lambda: d.stats(), "EINVAL", "closed")
    d = tessel.Device("model")
    d.close()
    d.close()
    ok(True, "closing twice")
    for what, fn in (("matmul", lambda: d.matmul(a, a.T)), ("stats", d.stats), ("info", d.info),
                     ("stats_reset", d.stats_reset), ("raw read", lambda: d.raw.read(0x10000, bytearray(4))),
                     ("raw alloc", lambda: d.raw.alloc(64)), ("raw last_error", d.raw.last_error)):
        expect_error(f"{what} on a closed device", fn, "EINVAL", "closed")


def thread_cases(rng):
    """Threads share a device (its calls run one at a time); closing it under them raises in them."""
    dev = tessel.Device("model")
    pairs = [(rand_i8(rng, (9, 30)), rand_i8(rng, (30, 7))) for _ in range(4)]
    wrong, errors = [], []

    def work(a, b, stop):
        want = a.astype(np.int64) @ b
        for i in range(10**6 if stop else 20):
            try:
                if not (dev.matmul(a, b) == want).all():
                    wrong.append(i)
            except tessel.Error as e:
                errors.append(e.message)
                return
    threads = [threading.Thread(target=work, args=p + (False,)) for p in pairs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ok(not wrong and not errors, "4 threads, 20 matmuls each, on one device", f"{wrong} {errors}")
    errors.clear()
    t = threading.Thread(target=work, args=pairs[0] + (True,))
    t.start()
    time.sleep(0.05)
    dev.close()
    t.join()
    ok(not wrong and errors == ["the device is closed"], "close while another thread runs matmuls", str(errors))


def sim_cases(rng):
    """One matmul and one conv2d on the simulated SoC, and its stats (cycles counted)."""
    with tessel.Device("sim") as dev:
        a, b = rand_i8(rng, (20, 40)), rand_i8(rng, (40, 24))
        bias = rng.integers(-5000, 5000, 24).astype(np.int32)
        check("matmul int8 20x40x24 + bias + ReLU on sim", dev.matmul(a, b, bias=bias, relu=True),
              int_epilogue(a.astype(np.int64) @ b, bias, True, "int32", None), np.int32)
        s = dev.stats()["last"]
        util = s["mxu_utilization"]
        ok(s["commands"] == 1 and s["cycles"] > 0 and util is not None and 0 < util <= 1,
           "stats of a matmul on sim: cycles counted, utilisation in (0, 1]", str(s))
        x, w = rand_f32(rng, (1, 6, 6, 4)), rand_f32(rng, (3, 3, 4, 8))
        xd, wd = bf16(x), bf16(w)
        geo = ((1, 1), (1, 1), (1, 1, 1, 1), 1)
        ref, tol = float_epilogue(conv_ref(xd, wd, *geo, 0.0), conv_ref(np.abs(xd), np.abs(wd), *geo, 0.0), 36, None,
                                  False, None)
        check("conv2d float32 1x6x6x4 by 3x3x4x8, padding 1, on sim", dev.conv2d(x, w, padding=1), ref, np.float32,
              tol)


def command_cases(rng):
    """_tessel.command() against the spec itself (hw/spec/tessel.toml, read here): each field of the
    command, and of the window, attention and kernel geometries under their opcodes, lands at its
    word and bits; a value too wide, an unknown field and a field of another geometry are refused."""
    import tomllib
    with open(os.path.join(ROOT, "hw", "spec", "tessel.toml"), "rb") as f:
        spec = tomllib.load(f)
    command, op = tessel._tessel.command, tessel._tessel.CMD_OP
    for key, opcode in (("command", op["GEMM"]), ("window", op["CONV2D"]), ("attention", op["ATTENTION"]),
                        ("kernel", op["KERNEL"])):
        for fld in spec[key]["fields"]:
            name, width = fld["name"].lower(), fld["width"]
            v = int(rng.integers(1, 1 << width, dtype=np.uint64))
            words = command(**dict({"opcode": opcode}, **{name: v}))
            want = [0] * 16
            want[fld["word"]] |= v << fld["lsb"]
            want[0] |= opcode if name != "opcode" else 0
            ok(list(words) == want, f"command: {key} field {name} at word {fld['word']} bit {fld['lsb']}",
               f"got {words}")
            if width < 32:
                too_wide = dict({"opcode": opcode}, **{name: 1 << width})
                expect_error(f"command: {name} wider than {width} bits", lambda: command(**too_wide), "EINVAL",
                             "does not fit")
    tc = next(b for b in spec["block"] if b["name"] == "TC")
    feats = next(r for r in tc["regs"] if r["name"] == "CFG_FEATURES")["fields"]
    ok(tessel._tessel.FEATURE == {f["name"]: f["lsb"] for f in feats}, "FEATURE: the spec's CFG_FEATURES bits",
       f"got {tessel._tessel.FEATURE}")
    expect_error("command: an unknown field", lambda: command(opcode=op["GEMM"], foo=1), "EINVAL", "no field foo")
    expect_error("command: an attention field in a CONV2D", lambda: command(opcode=op["CONV2D"], lq=1),
                 "EINVAL", "no field lq")
    expect_error("command: a window field over a command field of its word",
                 lambda: command(opcode=op["CONV2D"], h=1, m=1), "EINVAL", "shares its word")


KERNELS = os.path.join(ROOT, "build", "kernels")


def kernel_cases(rng):
    """Custom kernels (`make kernels`): scale_add (examples/kernels) against numpy int32, exact; the
    arguments as a kernel sees them (tests/kernels/ret.c); a negative return; bad images and
    arguments; kernels that trap (tests/kernels/trap.c) and one that never returns (spin.c), each
    followed by kernels and library ops that are right; the model backend, which cannot run kernels."""
    image, image_vpu = os.path.join(KERNELS, "scale_add.bin"), os.path.join(KERNELS, "scale_add_vpu.bin")
    with tessel.Device("model") as dev:
        expect_error("a kernel on the model backend", lambda: dev.kernel(image)(0, 0, 0, 1, 0), "EDEVICE",
                     "model backend cannot run kernels")
        with tempfile.TemporaryDirectory() as tmp:   # a FIFO with no writer: refused, not waited on
            fifo = os.path.join(tmp, "fifo")
            os.mkfifo(fifo)
            expect_error("a kernel image that is a FIFO", lambda: dev.kernel(fifo), "EINVAL", "not a regular file")
    with tessel.Device("sim", check=True) as dev:
        expect_error("a kernel in checking mode", lambda: dev.kernel(image)(0, 0, 0, 1, 0), "EINVAL", "checking mode")
    with tessel.Device("sim") as dev:
        scale_add, ret = dev.kernel(image), dev.kernel(os.path.join(KERNELS, "ret.bin"))
        on_vpu = dev.kernel(image_vpu)
        for n, in_place, k, name in ((int(rng.integers(1, 300)), False, scale_add, "scale_add"),
                                     (int(rng.integers(1, 300)), True, scale_add, "scale_add"),
                                     (int(rng.integers(1, 300)), False, on_vpu, "scale_add_vpu"),
                                     (int(rng.integers(16400, 40000)), True, on_vpu, "scale_add_vpu")):
            x = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
            a, b = (int(v) for v in rng.integers(-2**31, 2**31, 2))
            xa = dev.raw.alloc(4 * n)
            ya = xa if in_place else dev.raw.alloc(4 * n)
            dev.raw.write(xa, x)
            r = k(xa, ya, n, a, b)
            y = np.empty(n, np.int32)
            dev.raw.read(ya, y)
            want = ((x.astype(np.int64) * a + b + 2**31) % 2**32 - 2**31).astype(np.int32)   # int32 wrap-around
            ok(r == n, f"{name} of {n} values returns n", f"returned {r}")
            check(f"{name} y = {a} x + {b}, {n} int32 values{' in place' if in_place else ''}, on sim", y, want,
                  np.int32)
            s = dev.stats()["last"]
            ok(s["commands"] == 1 and s["cycles"] > 0, "stats of a kernel run: one command, cycles counted", str(s))
            dev.raw.free(xa)
            if not in_place:
                dev.raw.free(ya)
        out = dev.raw.alloc(28)
        args = [int(v) for v in rng.integers(0, 2**32, 6, dtype=np.uint64)]
        r = ret(12345, out, *args)
        seen = np.empty(7, np.uint32)
        dev.raw.read(out, seen)
        ok(r == 12345 and seen.tolist() == [out] + args, "ret: its return value and the 8 arguments it saw",
           f"returned {r}, saw {seen.tolist()}, sent {[out] + args}")
        ok(ret(-1 + 2**31) == 2**31 - 1 and ret(0) == 0, "ret: returns 0 and 2^31 - 1", "")
        expect_error("a kernel returning -5", lambda: ret(-5), "EDEVICE", "the kernel returned -5")
        expect_error("scale_add past HBM returns TSL_ERANGE", lambda: scale_add(out, out, 2**30, 1, 1), "EDEVICE",
                     "returned -6 (out of range)")
        expect_error("9 kernel arguments", lambda: ret(*range(9)), "EINVAL", "at most 8")
        expect_error("a kernel budget of 2^32 cycles", lambda: ret(1, budget=2**32), "EINVAL", "budget")
        expect_error("a kernel argument of 2^32", lambda: ret(2**32), "EINVAL", "kernel argument")
        expect_error("a kernel argument below -2^31", lambda: ret(-2**31 - 1), "EINVAL", "kernel argument")
        expect_error("an empty kernel image", lambda: dev.kernel(b""), "EINVAL", "a multiple of 4")
        expect_error("a kernel image of 6 bytes", lambda: dev.kernel(b"\0" * 6), "EINVAL", "a multiple of 4")
        expect_error("a kernel image larger than the region", lambda: dev.kernel(bytes(2**20)), "EINVAL",
                     "kernel region")
        expect_error("a kernel image that is no file", lambda: dev.kernel(os.path.join(KERNELS, "none.bin")),
                     "EINVAL", "cannot read")
        trap = dev.kernel(os.path.join(KERNELS, "trap.bin"))
        for how, mcause, text in ((0, 2, "illegal instruction"), (1, 11, "ECALL"), (2, 3, "breakpoint")):
            expect_error(f"a kernel that traps: {text}", lambda: trap(how), "EDEVICE",
                         f"the kernel trapped: mcause {mcause} ({text})")
            ok(ret(how + 40) == how + 40, f"a kernel after a trap ({text})", "")
        trap.free()
        spin = dev.kernel(os.path.join(KERNELS, "spin.bin"))
        t0 = time.time()
        expect_error("a kernel that never returns", lambda: spin(budget=1_000_000), "ETIMEOUT",
                     "did not return within its budget of 1000000 cycles")
        ok(time.time() - t0 < 60, "the hung kernel is reported within 60 s", f"{time.time() - t0:.1f} s")
        a8, b8 = rand_i8(rng, (12, 20)), rand_i8(rng, (20, 9))
        check("matmul after a hung kernel, on sim", dev.matmul(a8, b8), a8.astype(np.int64) @ b8, np.int32)
        ok(ret(77) == 77, "a kernel after a hung kernel", "")
        spin.free()
        spin.free()
        expect_error("a freed kernel", lambda: spin(), "EINVAL", "freed")
        scale_add.free()
        on_vpu.free()
        ret.free()


def example_cases():
    for path in sorted(glob.glob(os.path.join(ROOT, "examples", "python", "*.py"))):
        p = subprocess.run([sys.executable, path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=120)
        ok(p.returncode == 0, f"example {os.path.relpath(path, ROOT)}", p.stdout[-2000:])


def main():
    seed = int(os.environ["SEED"]) if os.environ.get("SEED") else int.from_bytes(os.urandom(4), "little")
    print(f"python: SEED={seed}", flush=True)
    rng = np.random.default_rng(seed)
    torch.set_num_threads(1)
    with tessel.Device("model") as dev:
        for _ in range(24):
            guarded(matmul_case, dev, rng)
        for _ in range(6):
            guarded(matmul_epilogue_case, dev, rng)
            guarded(bmm_case, dev, rng)
        for _ in range(20):
            guarded(conv_case, dev, rng, True)
            guarded(conv_case, dev, rng, False)
        for kind in ("max", "avg"):
            for _ in range(12):
                guarded(pool_case, dev, rng, kind, True)
                guarded(pool_case, dev, rng, kind, False)
        for fn in ("softmax", "layernorm", "rmsnorm", "gelu", "silu", "add", "mul", "max", "min", "relu"):
            for _ in range(10):
                guarded(row_case, dev, rng, fn)
        for _ in range(20):
            guarded(attention_case, dev, rng)
        for _ in range(6):
            guarded(head_columns_case, dev, rng)
        for _ in range(12):
            guarded(array_case, dev, rng)
        guarded(array_errors, dev, rng)
        guarded(encoder_cases, dev, rng)
        guarded(stats_cases, dev, rng)
        guarded(error_cases, dev, rng)
        guarded(issue32_cases, dev, rng)
    for fn in (command_cases, lifetime_cases, thread_cases, sim_cases, kernel_cases, pod_cases):
        guarded(fn, rng)
    example_cases()
    return tally.summary("python")


if __name__ == "__main__":
    sys.exit(main())
