#!/usr/bin/env python3
"""make test-onnx, the runner's own cases: what the node tests do not reach, on models built here.

Usage: PYTHONPATH=build/python test_runner.py WORKDIR   (SEED=n replays; without it the seed is random)
Prints the seed first and "onnx_runner: N passed, M failed" last; a failure prints the case and the
first mismatch (index, expected, got, bound).

  - Gelu (ONNX 1.12 ships no test_gelu): approximate="tanh" on the device against torch's
    gelu(approximate="tanh") in float64 within (64 + n) 2^-24 of the row's largest |y| (the bound
    of tests/torch/test_torch_ref.py); approximate="none" falls back to numpy, reported, within
    4 2^-24 |y| of torch's erf form;
  - Mul(x, Sigmoid(x)), either way round (torch.onnx's silu): one ROWWISE SILU, both nodes on the
    device, against torch's silu in float64 within Gelu's bound and |x| 2^-125 (the device flushes
    sigmoid(x) < 2^-126); with the Sigmoid also a graph output, no fusion (both nodes on the host);
  - QLinearMatMul and QLinearConv over seeded random shapes, zero points, per-channel weight scales
    and zero points, groups, strides, dilations, asymmetric and SAME padding, 1-D and 2-D, uint8
    and int8, power-of-two scales that make ties, weights as initializers (planned once) and as
    inputs: exactly against ONNX's
    definition in numpy int64 (torch's conv in float64 on the integer values, exact below 2^53),
    requantised with the multiplier in float32, rounded half to even; both weight paths (the
    weights minus their zero point, and the all-ones column);
  - a float CNN (Conv + Relu, MaxPool, grouped Conv + Relu, Flatten, Gemm): the Relus fused, the
    Flatten a view, one command per layer and one submission a run; bit for bit the same layers as
    tessel.Device's calls (a submission each); against torch in float64 within 2^-5 of the output's
    largest |y| (three layers of bf16 inputs, each about 2^-8, compound to well inside it; a wrong
    layout or tap is of the order of |y|); run twice, the same bits; a 1-D Conv likewise;
  - a QDQ chain (DequantizeLinear, float Conv, QuantizeLinear; the weights' DequantizeLinear folded
    when planned): against the quantised float64 reference within one step and the steps that the
    inputs' rounding to bf16 can move it (2^-8 of sum |x||w| over the output scale);
  - a fallback (Sigmoid) reported and exact; between device nodes it splits their graph in two
    submissions, the result bit for bit that of tessel.Device's calls and numpy; an op with no path,
    a missing input and a wrong dtype raise tessel.Error EINVAL;
  - what the loader refuses, each a tessel.Error EINVAL naming the node or tensor (issue 32): external
    data outside the model's folder (.. through a subfolder, a symlink out, ../, an absolute path),
    shorter than or of another length than declared, or in a ModelProto (inside the folder, through
    x/.., it is read right); window attributes (strides or dilations 0, group 0, negative pads,
    disagreeing lengths, an unknown auto_pad, a kernel_shape other than the weights'), each in a
    subprocess, as onnx's shape inference dies of a stride 0 (SIGFPE); a cycle, an unsorted graph, a
    dangling input, an output written twice, a declared output nobody gives, a foreign domain;
    inputs of another shape than declared (named dimensions bound once a run); initializers of dims
    [-1, 4], [2^40], [2^20, 2^20]; 0-d inputs to Softmax, Conv, MaxPool, Flatten; an empty and a
    truncated file; an opset-1 Reshape (shape an attribute) runs right; python3 -m tessel.onnx ends
    a refusal with one line and exit status 2;
  - the command line (python3 -m tessel.onnx) and a Conv model on the simulated SoC ("sim"), whose
    output equals the model backend's bit for bit.
"""
import os
import subprocess
import sys

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
from onnx import helper, numpy_helper

import tessel
import tessel.onnx
from conv_ref import conv

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tally import Tally, mismatch   # noqa: E402  (tests/ is no package)

WORK = sys.argv[1]
V = 2.0**-24
tally = Tally()
ok = tally.check


def check(what, got, ref, tol=None):
    """got against ref: exact (and of ref's dtype) when tol is None."""
    why = f"dtype {got.dtype}, expected {ref.dtype}" if tol is None and got.dtype != ref.dtype else \
        mismatch(got, ref, tol)
    ok(not why, what, why)


def model(nodes, inputs, outputs, inits=(), opset=13):
    """A model of nodes; inputs and outputs: (name, numpy dtype, shape) each; inits: (name, array)."""
    def info(n, dt, shape):
        return helper.make_tensor_value_info(n, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(dt)], shape)
    g = helper.make_graph(nodes, "g", [info(*i) for i in inputs], [info(*o) for o in outputs],
                          [numpy_helper.from_array(a, n) for n, a in inits])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def raises(what, fn, *parts):
    """fn() raises tessel.Error EINVAL, its message holding each of parts; any other outcome fails."""
    try:
        fn()
    except tessel.Error as e:
        ok(e.name == "EINVAL" and all(p in e.message for p in parts), what, f"raised {e.name}: {e.message}")
    except Exception as e:   # noqa: BLE001 (the case is what it raises)
        ok(False, what, f"raised {type(e).__name__}: {e}")
    else:
        ok(False, what, "no error")


def run(m, inputs, **kw):
    with tessel.onnx.Runner(m, **kw) as r:
        return r.run(inputs), r


def t64(a):
    return torch.from_numpy(np.asarray(a, np.float64))


# ---- Gelu -------------------------------------------------------------------------------------------
def gelu_cases(rng):
    x = (rng.standard_normal((4, 37)) * 3).astype(np.float32)
    for approx in ("tanh", "none"):
        m = model([helper.make_node("Gelu", ["x"], ["y"], approximate=approx)], [("x", np.float32, x.shape)],
                  [("y", np.float32, x.shape)], opset=20)
        (y,), r = run(m, {"x": x})
        ref = F.gelu(t64(x), approximate=approx).numpy()
        where = r.placements[0].where
        if approx == "tanh":
            ok(where == "device", "Gelu tanh runs on the device", where)
            check("Gelu tanh against torch", y, ref, (64 + x.shape[1]) * V * np.abs(ref).max(1, keepdims=True))
        else:
            ok(where == "fallback" and "erf" in r.placements[0].note and r.fallbacks, "Gelu erf falls back, reported",
               r.report())
            check("Gelu erf (numpy) against torch", y, ref, 4 * V * np.abs(ref))


# ---- SiLU written out: Mul(x, Sigmoid(x)) ------------------------------------------------------------------
def silu_cases(rng):
    x = (rng.standard_normal((4, 37)) * 8).astype(np.float32)
    x[0, :3] = (-90, -87, 90)   # sigmoid flushed below 2^-126 (x < -87.34), and saturated
    ref = F.silu(t64(x)).numpy()
    bound = (64 + x.shape[1]) * V * np.abs(ref).max(1, keepdims=True) + 2.0**-125 * np.abs(x)
    for ins in (["x", "s"], ["s", "x"]):
        m = model([helper.make_node("Sigmoid", ["x"], ["s"]), helper.make_node("Mul", ins, ["y"])],
                  [("x", np.float32, x.shape)], [("y", np.float32, x.shape)])
        (y,), r = run(m, {"x": x})
        ok([p.where for p in r.placements] == ["device", "device"] and "SILU" in r.placements[1].note,
           f"Mul({', '.join(ins)}) of Sigmoid(x): one ROWWISE SILU on the device", r.report())
        check(f"Mul({', '.join(ins)}) of Sigmoid(x) against torch's silu", y, ref, bound)
    # the sigmoid also a graph output: no SiLU, the Sigmoid on the host
    m = model([helper.make_node("Sigmoid", ["x"], ["s"]), helper.make_node("Mul", ["x", "s"], ["y"])],
              [("x", np.float32, x.shape)], [("y", np.float32, x.shape), ("s", np.float32, x.shape)])
    (y, s), r = run(m, {"x": x})
    ok([p.where for p in r.placements] == ["fallback", "fallback"], "a Sigmoid that is an output is no SiLU's",
       r.report())
    check("Sigmoid, then Mul (numpy), against torch", y, ref, bound + 8 * V * np.abs(ref))


# ---- the integer ops -------------------------------------------------------------------------------------
def rand_q(rng, dtype, shape):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, shape).astype(dtype)


def requant(acc, sx, sw, sy, zy):
    """ONNX's saturate(round_half_even(acc sx sw / sy) + zy), the multiplier in float32."""
    m = np.float32(sx) * np.asarray(sw, np.float32) / np.float32(sy)
    info = np.iinfo(zy.dtype)
    return np.clip(np.rint(acc * m.astype(np.float64)) + int(zy), info.min, info.max).astype(zy.dtype)


def scales(rng, w_shape):
    """(x's scale, the weights' (w_shape), y's), float32; half the time powers of two, whose
    multiplier makes ties (acc sx sw / sy = k + 1/2) that ONNX rounds to even."""
    if rng.random() < 0.5:
        sy = np.float32(2.0**-int(rng.integers(5, 8)))
        return np.float32(2.0**-5), np.full(w_shape, 2.0**-4, np.float32), sy
    return np.float32(rng.uniform(0.002, 0.05)), rng.uniform(0.002, 0.05, w_shape).astype(np.float32), \
        np.float32(rng.uniform(0.05, 2))


def weight_zero_point(rng, w_dtype, n, fits):
    """A weight zero point (per channel when n > 1). fits: one that keeps every weight minus it in
    int8 (0 for int8, 128 for uint8); else a random one, with which the full-range weights need the
    all-ones column."""
    if fits:
        return np.full(n, 0 if w_dtype == np.int8 else 128, w_dtype)
    return rand_q(rng, w_dtype, n)


def qlinear_matmul_case(rng, const_w):
    x_dt, w_dt = rng.choice([np.uint8, np.int8], 2)
    lead = tuple(int(v) for v in rng.integers(1, 4, int(rng.integers(0, 2))))
    m_, k, n = (int(v) for v in rng.integers(1, 40, 3))
    batched_w = bool(lead) and rng.random() < 0.5
    a, b = rand_q(rng, x_dt, lead + (m_, k)), rand_q(rng, w_dt, (lead if batched_w else ()) + (k, n))
    fits = rng.random() < 0.5
    za, zb = rand_q(rng, x_dt, ()), weight_zero_point(rng, w_dt, 1 if batched_w else n, fits)
    sa, sb, sy = scales(rng, zb.shape)
    zy = rand_q(rng, x_dt, ())
    acc = np.matmul(a.astype(np.int64) - za, b.astype(np.int64) - zb.astype(np.int64))
    ref = requant(acc, sa, sb, sy, zy)
    vals = dict(a=a, sa=sa, za=za, b=b, sb=sb, zb=zb, sy=sy, zy=zy)
    what = f"QLinearMatMul {a.dtype} {a.shape} by {b.dtype} {b.shape}, weights {'fit' if fits else 'with ones'}" \
        f"{' (initializer)' if const_w else ''}"
    qlinear_run(what, "QLinearMatMul", {}, vals, {"b", "sb", "zb"} if const_w else set(), x_dt, ref)


def qlinear_run(what, op, attrs, vals, consts, y_dt, ref):
    """A one-node model of op over the inputs `vals` (name: value, in the node's order), those in
    `consts` as initializers: it runs on the device, and its y is ref exactly."""
    m = model([helper.make_node(op, list(vals), ["y"], **attrs)],
              [(nm, v.dtype, v.shape) for nm, v in vals.items() if nm not in consts], [("y", y_dt, ref.shape)],
              [(nm, np.asarray(v)) for nm, v in vals.items() if nm in consts])
    (y,), r = run(m, {nm: np.asarray(v) for nm, v in vals.items() if nm not in consts})
    ok(r.placements[0].where == "device", what + ": on the device", r.report())
    check(what, y, ref)


def qlinear_conv_case(rng, const_w):
    x_dt, w_dt = rng.choice([np.uint8, np.int8], 2)
    nd = int(rng.integers(1, 3))
    g = int(rng.integers(1, 3))
    cin, cout = g * int(rng.integers(1, 4)), g * int(rng.integers(1, 4))
    k = tuple(int(v) for v in rng.integers(1, 4, nd))
    s, d = tuple(int(v) for v in rng.integers(1, 3, nd)), tuple(int(v) for v in rng.integers(1, 3, nd))
    size = tuple(int(v) for v in rng.integers(6, 11, nd))
    same = rng.random() < 0.25
    pads = [int(v) for v in rng.integers(0, 3, 2 * nd)]
    x = rand_q(rng, x_dt, (int(rng.integers(1, 3)), cin) + size)
    w = rand_q(rng, w_dt, (cout, cin // g) + k)
    fits = rng.random() < 0.5
    zx, zw = rand_q(rng, x_dt, ()), weight_zero_point(rng, w_dt, cout if rng.random() < 0.5 else 1, fits)
    zw_b = zw.astype(np.int64).reshape(-1, *[1] * (nd + 1))
    bias = rng.integers(-3000, 3000, cout).astype(np.int32)
    sx, sw, sy = scales(rng, zw.shape)
    zy = rand_q(rng, x_dt, ())
    attrs = dict(kernel_shape=k, strides=s, dilations=d, group=g)
    if same:
        attrs["auto_pad"] = str(rng.choice(["SAME_UPPER", "SAME_LOWER"]))
    else:
        attrs["pads"] = pads
    acc = conv(x.astype(np.int64) - int(zx), w.astype(np.int64) - zw_b, attrs).astype(np.int64) + \
        bias.reshape(-1, *[1] * nd)
    ref = requant(acc, sx, sw.reshape(-1, *[1] * nd), sy, zy)
    vals = dict(x=x, sx=sx, zx=zx, w=w, sw=sw, zw=zw, sy=sy, zy=zy, b=bias)
    what = f"QLinearConv {nd}-D {x.dtype} {x.shape} by {w.dtype} {w.shape} {attrs}, weights " \
        f"{'fit' if fits else 'with ones'}{' (initializer)' if const_w else ''}"
    qlinear_run(what, "QLinearConv", attrs, vals, {"w", "sw", "zw", "b"} if const_w else set(), x_dt, ref)


# ---- float models ----------------------------------------------------------------------------------------
def cnn_cases(rng):
    """Conv + Relu, MaxPool, grouped Conv + Relu, Flatten, Gemm (transB) against torch in float64."""
    x = rng.standard_normal((3, 4, 10, 10)).astype(np.float32)
    w1, b1 = (rng.standard_normal((8, 4, 3, 3)) / 6).astype(np.float32), rng.standard_normal(8).astype(np.float32)
    w2 = (rng.standard_normal((8, 4, 3, 3)) / 6).astype(np.float32)
    w3, b3 = (rng.standard_normal((5, 8 * 5 * 5)) / 14).astype(np.float32), rng.standard_normal(5).astype(np.float32)
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Conv", ["p1", "w2"], ["c2"], pads=[1, 1, 1, 1], group=2),
             helper.make_node("Relu", ["c2"], ["r2"]),
             helper.make_node("Flatten", ["r2"], ["f"]),
             helper.make_node("Gemm", ["f", "w3", "b3"], ["y"], transB=1)]
    m = model(nodes, [("x", np.float32, x.shape)], [("y", np.float32, (3, 5))],
              [("w1", w1), ("b1", b1), ("w2", w2), ("w3", w3), ("b3", b3)])
    with tessel.Device("model") as dev, tessel.onnx.Runner(m, device=dev) as r:
        y, = r.run({"x": x})
        dev.stats_reset()
        again, = r.run({"x": x})
        run_stats = dev.stats()["total"]
        # the same layers as tessel.Device's calls, one submission each, the activations read back
        h = dev.conv2d(x.transpose(0, 2, 3, 1), w1.transpose(2, 3, 1, 0), b1, padding=1, relu=True)
        h = dev.conv2d(dev.pool2d(h, "max", 2), w2.transpose(2, 3, 1, 0), padding=1, groups=2, relu=True)
        w3_hwc = w3.reshape(5, 8, 5, 5).transpose(0, 2, 3, 1).reshape(5, -1)   # Flatten's (h, w, c) columns
        calls = dev.matmul(h.reshape(3, -1), np.ascontiguousarray(w3_hwc.T), bias=b3)
    ok(run_stats["submissions"] == 1 and run_stats["commands"] == 4, "the CNN: one submission a run, a command "
       "per device node (each activation made in bf16, as the next layer reads it)", str(run_stats))
    check("the CNN, bit for bit tessel.Device's calls", y, calls)
    where = [p.where for p in r.placements]
    ok(where == ["device", "free", "device", "device", "free", "free", "device"] and "fused" in r.placements[1].note
       and "view" in r.placements[5].note, "the CNN's placements: Relus fused, Flatten a view", r.report())
    h = F.relu(F.conv2d(t64(x), t64(w1), t64(b1), padding=1))
    h = F.relu(F.conv2d(F.max_pool2d(h, 2), t64(w2), padding=1, groups=2))
    ref = F.linear(h.flatten(1), t64(w3), t64(b3)).numpy()
    check("the CNN against torch", y, ref, 2.0**-5 * np.abs(ref).max())
    check("the CNN, run again", again, y)

    xs = rng.standard_normal((2, 3, 17)).astype(np.float32)
    wc = (rng.standard_normal((6, 3, 4)) / 3).astype(np.float32)
    at = dict(pads=[2, 1], strides=[2], dilations=[2])
    m = model([helper.make_node("Conv", ["x", "w"], ["y"], **at)], [("x", np.float32, xs.shape)],
              [("y", np.float32, None)], [("w", wc)])
    (y,), _ = run(m, {"x": xs})
    s = conv(np.abs(xs), np.abs(wc), at)
    check("1-D Conv against torch", y, conv(xs, wc, at), (2 * 2.0**-8 + 2.0**-16) * s + 2 * 16 * V * s)


def qdq_case(rng):
    """DequantizeLinear, float Conv (its weights' DequantizeLinear folded), QuantizeLinear."""
    xq = rng.integers(0, 256, (1, 3, 8, 8)).astype(np.uint8)
    wq = rng.integers(-127, 128, (4, 3, 3, 3)).astype(np.int8)
    sx, zx, sw, sy, zy = np.float32(0.02), np.uint8(120), np.float32(0.01), np.float32(0.05), np.uint8(128)
    nodes = [helper.make_node("DequantizeLinear", ["xq", "sx", "zx"], ["x"]),
             helper.make_node("DequantizeLinear", ["wq", "sw"], ["w"]),
             helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("QuantizeLinear", ["c", "sy", "zy"], ["y"])]
    m = model(nodes, [("xq", np.uint8, xq.shape)], [("y", np.uint8, (1, 4, 8, 8))],
              [("sx", np.array(sx)), ("zx", np.array(zx)), ("wq", wq), ("sw", np.array(sw)), ("sy", np.array(sy)),
               ("zy", np.array(zy))])
    (y,), r = run(m, {"xq": xq})
    ok([p.where for p in r.placements] == ["host", "host", "device", "host"] and "folded" in r.placements[1].note,
       "the QDQ chain's placements", r.report())
    x64, w64 = (xq.astype(np.float64) - zx) * sx, wq.astype(np.float64) * sw
    c = F.conv2d(t64(x64), t64(w64), padding=1).numpy()
    ref = np.clip(np.rint(c / sy) + zy, 0, 255)
    # the device rounds x and w to bf16 (each within 2^-9 of itself, a product within 2^-8 + 2^-18):
    # c is within 2^-8 of sum |x||w| (fp32 sums add far less), which is that over sy in steps of y,
    # and one step more where c / sy lies near a rounding boundary
    s = F.conv2d(t64(np.abs(x64)), t64(np.abs(w64)), padding=1).numpy()
    check("the QDQ chain against float64, within its steps", y, ref, 1.0 + (2.0**-8 + 2.0**-16) * s / sy)


def fallback_and_error_cases(rng):
    x = rng.standard_normal((2, 5)).astype(np.float32)
    m = model([helper.make_node("Sigmoid", ["x"], ["y"])], [("x", np.float32, x.shape)], [("y", np.float32, x.shape)])
    (y,), r = run(m, {"x": x})
    fell_back = [line for line in r.report().splitlines() if line.startswith("fell back to numpy:")]
    ok(r.placements[0].where == "fallback" and fell_back and "Sigmoid" in fell_back[0],
       "Sigmoid falls back, reported", r.report())
    ref = 1 / (1 + np.exp(-x.astype(np.float64)))
    check("Sigmoid (numpy)", y, ref, 8 * V * ref)

    # a host node between device nodes: the commands before it run (one submission), then those after
    w = rng.standard_normal((5, 5)).astype(np.float32)
    m2 = model([helper.make_node("MatMul", ["x", "w"], ["a"]), helper.make_node("MatMul", ["a", "w"], ["b"]),
                helper.make_node("Sigmoid", ["b"], ["s"]), helper.make_node("MatMul", ["s", "w"], ["y"])],
               [("x", np.float32, x.shape)], [("y", np.float32, x.shape)], [("w", w)])
    with tessel.Device("model") as dev, tessel.onnx.Runner(m2, device=dev) as r:
        y, = r.run({"x": x})
        total = dev.stats()["total"]
        b = dev.matmul(dev.matmul(x, w), w)
        calls = dev.matmul((1 / (1 + np.exp(-b.astype(np.float64)))).astype(np.float32), w)
    ok(total["submissions"] == 2 and [p.where for p in r.placements] == ["device", "device", "fallback", "device"],
       "a host node splits the graph: two submissions", f"{total}; {r.report()}")
    check("MatMul, MatMul, Sigmoid, MatMul: bit for bit tessel.Device's calls and numpy", y, calls)

    # An op of ONNX's domain that neither the device nor numpy runs (no such op: every real one may
    # gain a host path).
    nop = model([helper.make_node("TesselNoSuchOp", ["x"], ["y"])], [("x", np.float32, (2, 5))],
                [("y", np.float32, None)])
    raises("an op with no path", lambda: tessel.onnx.Runner(nop), "TesselNoSuchOp_0 (TesselNoSuchOp)", "no device path")
    raises("a missing input", lambda: run(m, {}), "missing ['x']")
    raises("a float64 input", lambda: run(m, {"x": x.astype(np.float64)}), "float64")


# ---- one device program: layer norms written out, copies, transformer layers --------------------------------
def layernorm_graph(x, gamma, beta, eps, exponent=2.0):
    """A layer norm over the last axis written out as torch.onnx writes it before opset 17."""
    c = lambda name, v: helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.float32(v)))
    nodes = [helper.make_node("ReduceMean", ["x"], ["m"], axes=[-1]), helper.make_node("Sub", ["x", "m"], ["d"]),
             c("two", exponent), helper.make_node("Pow", ["d", "two"], ["p"]),
             helper.make_node("ReduceMean", ["p"], ["v"], axes=[-1]), c("eps", eps),
             helper.make_node("Add", ["v", "eps"], ["ve"]), helper.make_node("Sqrt", ["ve"], ["s"]),
             helper.make_node("Div", ["d", "s"], ["n"]), helper.make_node("Mul", ["n", "gamma"], ["g"]),
             helper.make_node("Add", ["g", "beta"], ["y"])]
    return model(nodes, [("x", np.float32, x.shape)], [("y", np.float32, x.shape)], [("gamma", gamma), ("beta", beta)])


def layernorm_cases(rng):
    """The written-out layer norm as one ROWWISE LAYERNORM, against torch's in float64 within the bound
    of tests/python/test_tessel.py's device layernorm; with another exponent it stays on the host."""
    x = (rng.standard_normal((3, 5, 40)) * 2 + 1).astype(np.float32)
    gamma, beta = rng.standard_normal(40).astype(np.float32), rng.standard_normal(40).astype(np.float32)
    eps = float(np.float32(1e-3))
    with tessel.Device("model") as dev, tessel.onnx.Runner(layernorm_graph(x, gamma, beta, eps), device=dev) as r:
        y, = r.run({"x": x})
        total = dev.stats()["total"]
    where = [(p.where, p.note) for p in r.placements if p.op != "Constant"]
    ok(total["commands"] == 1 and total["submissions"] == 1 and all(w == "device" for w, _ in where) and
       "ROWWISE LAYERNORM" in where[0][1] and "0.001" in where[0][1] and
       all(n.startswith("fused into ReduceMean_0") for _, n in where[1:]),
       "a written-out layer norm: its nine nodes one ROWWISE LAYERNORM on the device, epsilon the graph's",
       f"{total}; {r.report()}")
    xd = x.astype(np.float64)
    ref = F.layer_norm(t64(x), (40,), t64(gamma), t64(beta), eps).numpy()
    rms = np.sqrt(xd.var(-1, keepdims=True) + eps)
    big = np.abs(gamma).max() * np.abs(xd).max(-1, keepdims=True) / rms + np.abs(beta).max()
    check("a written-out layer norm against torch", y, ref, (64 + 40) * V * big)
    (y3,), r = run(layernorm_graph(x, gamma, beta, eps, exponent=3.0), {"x": x})
    ok(r.placements[0].where == "fallback", "with Pow 3 it is no layer norm: on the host", r.report())


def copy_cases(rng):
    """Transposes and Slices of a device node's result: COPY commands in the one graph, bit for bit
    numpy's on tessel.Device's result; a Transpose that moves the last axis too."""
    a = rng.standard_normal((6, 4, 10)).astype(np.float32)
    w = rng.standard_normal((10, 12)).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["a", "w"], ["p"]),
             helper.make_node("Transpose", ["p"], ["t"], perm=[1, 0, 2]),
             helper.make_node("Transpose", ["p"], ["u"], perm=[2, 0, 1]),
             helper.make_node("Slice", ["p", "starts", "ends", "axes"], ["s"])]
    inits = [("w", w), ("starts", np.array([1, 3], np.int64)), ("ends", np.array([5, 9], np.int64)),
             ("axes", np.array([1, 2], np.int64))]
    m = model(nodes, [("a", np.float32, a.shape)],
              [("t", np.float32, None), ("u", np.float32, None), ("s", np.float32, None)], inits)
    with tessel.Device("model") as dev, tessel.onnx.Runner(m, device=dev) as r:
        t, u, s = r.run({"a": a})
        total = dev.stats()["total"]
        p = dev.matmul(a.reshape(-1, 10), w).reshape(6, 4, 12)
    ok(total["submissions"] == 1 and [q.where for q in r.placements] == ["device"] * 4,
       "a MatMul, two Transposes and a Slice: one submission", f"{total}; {r.report()}")
    check("Transpose perm [1, 0, 2] by row copies", t, p.transpose(1, 0, 2))
    check("Transpose perm [2, 0, 1] by element copies", u, p.transpose(2, 0, 1))
    check("Slice of axes 1 and 2 by row copies", s, p[:, 1:5, 3:9])
    sim = tessel.onnx.run(m, {"a": a}, backend="sim")
    check("the copies on the sim, bit for bit the model backend's", np.concatenate([v.ravel() for v in sim]),
          np.concatenate([v.ravel() for v in (t, u, s)]))

    # a MatMul whose result only a MatMul reads, through a Transpose: made in bf16, copied as 2-byte elements
    w2 = rng.standard_normal((4, 3)).astype(np.float32)
    m = model([helper.make_node("MatMul", ["a", "w"], ["p"]),
               helper.make_node("Transpose", ["p"], ["q"], perm=[0, 2, 1]),
               helper.make_node("MatMul", ["q", "w2"], ["z"])], [("a", np.float32, a.shape)],
              [("z", np.float32, None)], [("w", w), ("w2", w2)])
    with tessel.Device("model") as dev, tessel.onnx.Runner(m, device=dev) as r:
        z, = r.run({"a": a})
        total = dev.stats()["total"]
        q = dev.matmul(a.reshape(-1, 10), w, out_dtype="bf16").reshape(6, 4, 12).transpose(0, 2, 1)
        calls = dev.matmul(np.ascontiguousarray(q).reshape(-1, 4), w2).reshape(6, 12, 3)
    # p (6 x 4 x 12) to q (6 x 12 x 4): each of p's 24 rows of 12 becomes a column of q, one COPY of 12
    # elements 4 apart each; two GEMMs; no ELTWISE MOV, p being made in bf16
    ok(total["submissions"] == 1 and total["commands"] == 2 + 24, "MatMul, Transpose, MatMul: one submission, "
       "2 GEMMs and 24 COPYs", f"{total}; {r.report()}")
    check("MatMul, Transpose (bf16 element copies), MatMul: bit for bit tessel.Device's calls", z, calls)


def transformer_cases(rng):
    """nn.TransformerEncoderLayer exported by torch.onnx (d 32, 4 heads, ReLU; d 64, 8 heads, GELU),
    as tests/onnx/exports.py exports and checks them: within L u max|y| of torch in float64, L = 6 the
    products on the longest path (in-projection, Q K^T, P V, out-projection, linear1, linear2). The
    ReLU layer runs as one device program (one submission); the GELU layer's erf form (Erf) runs on
    the host, so it takes two."""
    for d, heads, act, submissions in ((32, 4, "relu", 1), (64, 8, "gelu", 2)):
        torch.manual_seed(int(rng.integers(2**31)))
        layer = nn.TransformerEncoderLayer(d, heads, dim_feedforward=2 * d, activation=act, batch_first=True).eval()
        x = torch.from_numpy(rng.standard_normal((2, 12, d)).astype(np.float32))
        os.makedirs(WORK, exist_ok=True)
        path = os.path.join(WORK, f"transformer_d{d}_{act}.onnx")
        torch.onnx.export(layer, x, path, input_names=["x"], output_names=["y"],
                          dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
        with torch.no_grad():
            ref = layer.double()(x.double()).numpy()
        with tessel.Device("model") as dev, tessel.onnx.Runner(path, device=dev) as r:
            y, = r.run({"x": x.numpy()})
            total = dev.stats()["total"]
        name = f"the transformer layer d {d}, {act}"
        host = [p.op for p in r.placements if p.where == "fallback" and p.op in ("Erf", "ReduceMean", "Sqrt",
                                                                                  "Pow", "Transpose")]
        moved = [p.where for p in r.placements if p.op == "Transpose"]
        ok(total["submissions"] == submissions and host == (["Erf"] if act == "gelu" else []) and
           moved == ["free"] + ["device"] * 5, f"{name}: {submissions} submission(s), the head transposes and "
           "the layer norms on the device", f"{total}; {r.report()}")
        check(f"{name} against torch", y, ref, 6 * 2.0**-8 * np.abs(ref).max())


# ---- what the loader refuses ------------------------------------------------------------------------------
def relu_model(nodes=None, inputs=(("x", np.float32, (2, 3)),), outputs=(("y", np.float32, (2, 3)),), **kw):
    return model(nodes or [helper.make_node("Relu", ["x"], ["y"])], inputs, outputs, **kw)


def external_model(folder, location, **info):
    """A model that adds a 4-value float32 initializer c, its data external at location (info:
    offset, length), saved as folder/model.onnx; onnx.save writes the external fields as they are."""
    c = onnx.TensorProto(name="c", data_type=onnx.TensorProto.FLOAT, dims=[4], data_location=onnx.TensorProto.EXTERNAL)
    for key, value in dict(location=location, **info).items():
        entry = c.external_data.add()
        entry.key, entry.value = key, str(value)
    m = model([helper.make_node("Add", ["x", "c"], ["y"])], [("x", np.float32, (4,))], [("y", np.float32, (4,))])
    m.graph.initializer.append(c)
    path = os.path.join(folder, "model.onnx")
    onnx.save(m, path)
    return path


def external_data_cases():
    """External data stays inside the model's folder after resolving .. and symlinks, and holds
    exactly what its tensor declares. A secret beside the folder must never come back."""
    root = os.path.join(WORK, "external")
    folder = os.path.join(root, "m")
    os.makedirs(os.path.join(folder, "x"), exist_ok=True)
    secret = os.path.join(root, "secret.txt")
    with open(secret, "wb") as f:
        f.write(b"tessel-secret-16")   # 16 bytes: four float32 values, as c declares
    link = os.path.join(folder, "link.bin")
    if not os.path.lexists(link):
        os.symlink(secret, link)
    w = np.array([1, -2, 3.5, 0], np.float32)
    with open(os.path.join(folder, "w.bin"), "wb") as f:
        f.write(b"\0" * 8 + w.tobytes())
    x = np.ones(4, np.float32)
    for location in ("w.bin", "x/../w.bin"):
        (y,), _ = run(external_model(folder, location, offset=8), {"x": x})
        check(f"external data {location!r} inside the folder", y, x + w)
    for location in ("x/../../../../../../../../etc/passwd", "x/../../secret.txt", "link.bin", "../secret.txt",
                     secret):
        path = external_model(folder, location)
        raises(f"external data {location!r} outside the folder", lambda: run(path, {"x": x}), "initializer 'c'",
               "outside the model's folder")
    raises("external data shorter than declared", lambda: run(external_model(folder, "w.bin", offset=16), {"x": x}),
           "initializer 'c'", "holds 8 bytes")
    raises("external data of another length than its dims", lambda: run(external_model(folder, "w.bin", length=8),
                                                                          {"x": x}), "initializer 'c'", "take 16 bytes")
    raises("a missing external data file", lambda: run(external_model(folder, "none.bin"), {"x": x}), "none.bin")
    m = onnx.load(external_model(folder, "w.bin", offset=8), load_external_data=False)
    raises("a ModelProto with external data", lambda: tessel.onnx.Runner(m), "initializer 'c'", "the model's path")
    # the folder is checked on the file opened, not on a path that could be swapped after the check
    raises("a file that leads out of the folder once opened", lambda: tessel._read_file(link, root=os.path.realpath(
        folder)), "outside")


def attribute_cases():
    """A window op's attributes are checked before onnx's shape inference, which divides by the
    strides unchecked (SIGFPE): each case in a subprocess, which must end with a tessel.Error."""
    w = np.ones((4, 2, 3, 3), np.float32)
    x = (("x", np.float32, (1, 2, 6, 6)),)
    for op, at, part in (("Conv", dict(strides=[0, 0]), "strides"), ("Conv", dict(dilations=[0, 1]), "dilations"),
                         ("Conv", dict(group=0), "group"), ("Conv", dict(pads=[-1, 0, 0, 0]), "pads"),
                         ("Conv", dict(strides=[1]), "spatial axes"), ("Conv", dict(auto_pad="SAME"), "auto_pad"),
                         ("Conv", dict(kernel_shape=[2, 2]), "kernel_shape"),
                         ("MaxPool", dict(kernel_shape=[2, 2], strides=[0, 1]), "strides"),
                         ("AveragePool", dict(kernel_shape=[0, 2]), "kernel_shape"),
                         ("Gemm", dict(transB=2), "transB")):
        xs = (("x", np.float32, (3, 4)),) if op == "Gemm" else x
        ins, consts = {"Conv": (["x", "w"], [("w", w)]), "Gemm": (["x", "g"], [("g", np.ones((5, 4), np.float32))])}.get(
            op, (["x"], []))
        m = model([helper.make_node(op, ins, ["y"], name="the_op", **at)], xs, [("y", np.float32, None)], consts)
        code = ("import sys, onnx, tessel, tessel.onnx\n"
                "try:\n    tessel.onnx.Runner(onnx.load_model_from_string(sys.stdin.buffer.read()))\n"
                "except tessel.Error as e:\n    print(e.name, e.message)\n")
        p = subprocess.run([sys.executable, "-c", code], input=m.SerializeToString(), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
        out = p.stdout.decode(errors="replace")
        ok(p.returncode == 0 and out.startswith(f"EINVAL the_op ({op}): ") and part in out,
           f"{op} {at}: refused before shape inference", f"exit {p.returncode}: {out}")


def graph_cases():
    x = np.ones((2, 3), np.float32)
    relu = lambda i, o, **kw: helper.make_node("Relu", [i], [o], **kw)   # noqa: E731
    cases = (("a cycle", [relu("b", "a", name="r0"), relu("a", "y", name="r1"), relu("y", "b", name="r2")],
              "r0 (Relu) reads 'b'", "cycle through r0, r1, r2"),
             ("nodes out of topological order", [relu("a", "y", name="late"), relu("x", "a", name="early")],
              "late (Relu) reads 'a' before early writes it", "topological order"),
             ("a dangling node input", [relu("q", "y")], "Relu_0 (Relu) reads 'q'"),
             ("two nodes writing one output", [relu("x", "y"), helper.make_node("Neg", ["x"], ["y"])],
              "Neg_1 (Neg) writes 'y'"),
             ("Relu in a foreign domain", [relu("x", "y", domain="foo")], "Relu_0 (Relu)", "domain 'foo'"))
    for what, nodes, *parts in cases:
        raises(what, lambda: run(relu_model(nodes), {"x": x}), *parts)
    raises("a declared output that no node gives", lambda: run(relu_model(outputs=[("z", np.float32, (2, 3))]),
                                                               {"x": x}), "declared output 'z'")
    raises("an input of another shape", lambda: run(relu_model(), {"x": np.ones((4, 5), np.float32)}),
           "input x has shape (4, 5)")
    add = model([helper.make_node("Add", ["x", "b"], ["y"])], [("x", np.float32, (2, 3)), ("b", np.float32, (2, 3))],
                [("y", np.float32, (2, 3))])
    raises("a (1, 3) input declared (2, 3)", lambda: run(add, {"x": x, "b": np.ones((1, 3), np.float32)}),
           "input b has shape (1, 3)")
    sym = model([helper.make_node("Add", ["x", "b"], ["y"])],
                [("x", np.float32, ("n", 3)), ("b", np.float32, ("n", 3))], [("y", np.float32, None)])
    (y,), _ = run(sym, {"x": np.ones((4, 3), np.float32), "b": np.ones((4, 3), np.float32)})
    check("inputs of a named dimension, the same size", y, np.full((4, 3), 2, np.float32))
    raises("a named dimension of two sizes", lambda: run(sym, {"x": x, "b": np.ones((4, 3), np.float32)}),
           "input b has shape (4, 3)")
    for dims in ([-1, 4], [2**40], [2**20, 2**20]):
        m = relu_model([helper.make_node("Add", ["x", "c"], ["y"])])
        m.graph.initializer.append(onnx.TensorProto(name="c", data_type=onnx.TensorProto.FLOAT, dims=dims,
                                                    raw_data=b"\0" * 16))
        raises(f"an initializer of dims {dims}", lambda: run(m, {"x": x}), "initializer 'c'", f"dims {dims}")
    # Reshape of opset 1 takes its shape as an attribute.
    m = relu_model([helper.make_node("Reshape", ["x"], ["y"], shape=[3, 2])], outputs=[("y", np.float32, (3, 2))],
                   opset=1)
    try:
        (y,), _ = run(m, {"x": np.arange(6, dtype=np.float32).reshape(2, 3)})
        check("Reshape of opset 1 (shape an attribute)", y, np.arange(6, dtype=np.float32).reshape(3, 2))
    except Exception as e:   # noqa: BLE001
        ok(False, "Reshape of opset 1 (shape an attribute)", f"raised {type(e).__name__}: {e}")
    for op in ("Softmax", "Conv", "MaxPool", "Flatten"):
        at = dict(kernel_shape=[1, 1]) if op == "MaxPool" else {}
        ins = ["x", "w"] if op == "Conv" else ["x"]
        m = model([helper.make_node(op, ins, ["y"], **at)], [("x", np.float32, None)], [("y", np.float32, None)],
                  [("w", np.ones((1, 1, 1, 1), np.float32))] if op == "Conv" else ())
        raises(f"a 0-d input to {op}", lambda: run(m, {"x": np.float32(2)}), f"{op}_0 ({op})")
    empty = os.path.join(WORK, "empty.onnx")
    open(empty, "wb").close()
    raises("an empty file", lambda: tessel.onnx.Runner(empty), "empty")
    truncated = os.path.join(WORK, "truncated.onnx")
    with open(truncated, "wb") as f:
        f.write(relu_model().SerializeToString()[:-9])
    raises("a truncated model", lambda: tessel.onnx.Runner(truncated), "no ONNX model")


def cli_refusal_cases():
    """python3 -m tessel.onnx ends a refusal with one line and exit status 2, no traceback."""
    good = os.path.join(WORK, "relu.onnx")
    onnx.save(relu_model(), good)
    np.save(os.path.join(WORK, "x23.npy"), np.ones((2, 3), np.float32))
    cycle = os.path.join(WORK, "cycle.onnx")
    onnx.save(relu_model([helper.make_node("Relu", ["y"], ["y"])]), cycle)
    x_arg = "x=" + os.path.join(WORK, "x23.npy")
    for what, path, x_in, part in (("a missing model file", os.path.join(WORK, "none.onnx"), x_arg, "none.onnx"),
                                   ("a missing input file", good, "x=" + os.path.join(WORK, "none.npy"), "none.npy"),
                                   ("a truncated model", os.path.join(WORK, "truncated.onnx"), x_arg, "no ONNX model"),
                                   ("a cycle", cycle, x_arg, "cycle")):
        p = subprocess.run([sys.executable, "-m", "tessel.onnx", path, "--input", x_in], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        lines = p.stderr.splitlines()
        ok(p.returncode == 2 and len(lines) == 1 and lines[0].startswith("tessel.onnx: ") and part in lines[0],
           f"python3 -m tessel.onnx, {what}: exit 2, one line", f"exit {p.returncode}: {p.stderr}")


def conv_model(path, rng):
    x = rng.standard_normal((1, 3, 9, 9)).astype(np.float32)
    w, b = rng.standard_normal((4, 3, 3, 3)).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    m = model([helper.make_node("Conv", ["x", "w", "b"], ["y"], pads=[1, 0, 1, 2], strides=[2, 1])],
              [("x", np.float32, x.shape)], [("y", np.float32, None)], [("w", w), ("b", b)])
    onnx.save(m, path)
    return x


def cli_and_sim_cases(rng):
    os.makedirs(WORK, exist_ok=True)
    path = os.path.join(WORK, "conv.onnx")
    x = conv_model(path, rng)
    np.save(os.path.join(WORK, "x.npy"), x)
    want = tessel.onnx.run(path, {"x": x})[0]
    out = os.path.join(WORK, "out")
    p = subprocess.run([sys.executable, "-m", "tessel.onnx", path, "--input", f"x={os.path.join(WORK, 'x.npy')}",
                        "--out-dir", out], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    ok(p.returncode == 0 and "Conv" in p.stdout and "device" in p.stdout and "fell back to numpy: none" in p.stdout,
       "python3 -m tessel.onnx: exit 0, the placements", p.stdout)
    if p.returncode == 0:
        check("python3 -m tessel.onnx's y.npy", np.load(os.path.join(out, "y.npy")), want)
    sim = tessel.onnx.run(path, {"x": x}, backend="sim")[0]
    check("a Conv on the sim, bit for bit the model backend's", sim, want)


def main():
    seed = int(os.environ["SEED"]) if os.environ.get("SEED") else int.from_bytes(os.urandom(4), "little")
    print(f"onnx_runner: SEED={seed}", flush=True)
    rng = np.random.default_rng(seed)
    gelu_cases(rng)
    silu_cases(rng)
    for i in range(16):
        qlinear_matmul_case(rng, i % 2 == 0)
        qlinear_conv_case(rng, i % 2 == 0)
    cnn_cases(rng)
    qdq_case(rng)
    fallback_and_error_cases(rng)
    layernorm_cases(rng)
    copy_cases(rng)
    transformer_cases(rng)
    external_data_cases()
    attribute_cases()
    graph_cases()
    cli_refusal_cases()
    cli_and_sim_cases(rng)
    return tally.summary("onnx_runner")


if __name__ == "__main__":
    sys.exit(main())
