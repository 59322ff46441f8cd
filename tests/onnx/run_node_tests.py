#!/usr/bin/env python3
"""make test-onnx: ONNX's backend node tests, as Debian's libonnx-testdata ships them, through
tessel.onnx on the model backend.

Usage: PYTHONPATH=build/python run_node_tests.py [DATA]   (DATA: /usr/share/libonnx-testdata/data/node)
Prints one line per test, a table of counts per op, and last "onnx_nodes: N passed, M failed".

The tests: every DATA/test_*/ whose model is one node of an op in OPS, matched by the node's
op_type (test_convinteger is ConvInteger and test_convtranspose ConvTranspose: not listed; a
test_*_expanded model is the op's function body, many other nodes: not counted). Each runs through
tessel.onnx.Runner on every test_data_set_*/input_*.pb, its outputs compared with output_*.pb.

Verdicts:
  pass, fail  the node ran on the device (or is free, or on the host by design: QuantizeLinear and
              DequantizeLinear), within the bound below, or exactly;
  skip        not applicable, for the reason printed: an input dtype the device has no path for, a
              3-D window, MaxPool's Indices output (skip_reason). The runner still runs it when it can (a
              numpy fallback), and a wrong result still fails;
  fallback    applicable, but the runner gave the node to numpy: counted apart, compared too.

Exact: integer outputs (QLinearConv, QLinearMatMul, QuantizeLinear, int max pooling), and
Reshape, Flatten, Transpose and DequantizeLinear (one float32 product, as the reference's). Float
outputs are within a bound from the device's arithmetic (docs/isa.md §7) and the reference's own
float32 evaluation, with u = 2^-8 (the unit roundoff of inputs rounded to bf16) and v = 2^-24 (FP32's):
  - MatMul, Gemm, Conv: the MXU takes bf16(a) bf16(b), each product within (2u + u^2) |a b|, and
    accumulates K of them in FP32, as the reference does in float32: (K - 1) v sum|a b| each. Gemm's
    alpha, beta C and the bias add, Conv's bias, a few roundings more. Bound: (2u + u^2) S + 2 (K + 4)
    v (S + |beta C| + |bias|), S = alpha sum|a b| (for Conv, conv_ref.conv of |x| by |w|).
  - Relu: bf16(x): u |y|. MaxPool of float32: the max of bf16 values is bf16 of the max: u |y|.
  - AveragePool, GlobalAveragePool: the FP32 sum of k bf16 values times FP32(1/k), and a host
    rescale where fewer taps count: (u + 2 (k + 3) v) max|x| (a window's mean |x| is at most it).
  - Add: fp32 on the device, one rounding as the reference's: 2 v |y|.
  - Softmax, LayerNormalization's Y (fp32 ROWWISE): tests/torch/test_torch_ref.py's (64 + n) v of
    the row's scale, n its length: 1 for softmax; max|gamma| max|x| / sqrt(var + eps) + max|beta|
    for layer norm. Its Mean and InvStdDev (host, float64 then float32): (n + 2) v max|x| for the
    mean; (64 + n) v |y| (1 + max x^2 / (var + eps)) for InvStdDev, whose float32 reference loses
    about that much to cancellation.
"""
import glob
import math
import os
import sys
import time

import numpy as np
import onnx
from onnx import numpy_helper

import tessel.onnx
from conv_ref import conv

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tally import mismatch   # noqa: E402  (tests/ is no package)

DATA = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/libonnx-testdata/data/node"
OPS = ["Gemm", "MatMul", "Conv", "Relu", "Add", "MaxPool", "AveragePool", "GlobalAveragePool", "Softmax",
       "LayerNormalization", "Gelu", "Reshape", "Flatten", "Transpose", "QuantizeLinear", "DequantizeLinear",
       "QLinearConv", "QLinearMatMul"]
U, V = 2.0**-8, 2.0**-24
F32, ANY = {np.dtype(np.float32)}, None
# The input dtypes the device has a path for, by op (the rest: float32).
DTYPES = {"MaxPool": F32 | {np.dtype(np.int8), np.dtype(np.uint8)},
          "QLinearConv": ANY, "QLinearMatMul": ANY, "QuantizeLinear": ANY, "DequantizeLinear": ANY,
          "Reshape": ANY, "Flatten": ANY, "Transpose": ANY}
EXACT = {"Reshape", "Flatten", "Transpose", "DequantizeLinear"}


def skip_reason(node, inputs):
    """Why a test is not applicable to the device, or ''."""
    allowed = DTYPES.get(node.op_type, F32)
    bad = [f"{n} is {a.dtype}" for n, a in zip(node.input, inputs) if allowed is not ANY and a.dtype not in allowed]
    if bad:
        return f"{', '.join(bad)}: the device's {node.op_type} takes {' or '.join(sorted(map(str, allowed)))}"
    if node.op_type in ("MaxPool", "AveragePool") and inputs[0].ndim > 4:
        return f"{inputs[0].ndim - 2}-D window: the device's windows are 2-D"
    if node.op_type == "MaxPool" and len([o for o in node.output if o]) > 1:
        return "the Indices output: the device's max pooling gives no argmax"
    return ""


def attrs(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def bound(node, inputs, ref, index):
    """The bound of output number index of the node (module docstring), or None: exact."""
    op, at = node.op_type, attrs(node)
    if op in EXACT or ref.dtype.kind != "f":
        return None
    if op in ("MatMul", "Gemm"):
        a, b = inputs[:2]
        if op == "Gemm":
            a, b = (a.T if at.get("transA", 0) else a), (b.T if at.get("transB", 0) else b)
        s = abs(at.get("alpha", 1.0)) * np.matmul(np.abs(a.astype(np.float64)), np.abs(b))
        c = abs(at.get("beta", 1.0)) * np.abs(inputs[2]) if len(inputs) > 2 else 0
        return (2 * U + U * U) * s + 2 * (a.shape[-1] + 4) * V * (s + c)
    if op == "Conv":
        x, w = inputs[:2]
        s, k = conv(np.abs(x), np.abs(w), at), math.prod(w.shape[1:])
        bias = np.abs(inputs[2]).reshape(-1, *[1] * (s.ndim - 2)) if len(inputs) > 2 else 0
        return (2 * U + U * U) * s + 2 * (k + 4) * V * (s + bias)
    if op in ("Relu", "MaxPool"):
        return U * np.abs(ref)
    if op in ("AveragePool", "GlobalAveragePool"):
        k = math.prod(at["kernel_shape"]) if op == "AveragePool" else math.prod(inputs[0].shape[2:])
        return (U + 2 * (k + 3) * V) * np.abs(inputs[0]).max()
    if op == "Add":
        return 2 * V * np.abs(ref)
    if op == "Softmax":
        return (64 + inputs[0].shape[at.get("axis", -1)]) * V
    if op == "LayerNormalization":
        x = inputs[0].astype(np.float64)
        axis = at.get("axis", -1) % x.ndim
        rows = x.reshape(math.prod(x.shape[:axis]), -1)
        n, eps = rows.shape[1], at.get("epsilon", 1e-5)
        big, var = np.abs(rows).max(1), rows.var(1)
        shape = x.shape[:axis] + (1,) * (x.ndim - axis)
        if index == 0:
            beta = np.abs(inputs[2]).max() if len(inputs) > 2 else 0
            scale = np.abs(inputs[1]).max() * big / np.sqrt(var + eps) + beta
            return (64 + n) * V * scale.reshape(shape)
        if index == 1:
            return (n + 2) * V * big.reshape(shape)
        return (64 + n) * V * np.abs(ref) * (1 + big**2 / (var + eps)).reshape(shape)
    raise AssertionError(f"no bound for {op}")


def compare(got, ref, tol):
    """'' when got matches ref (exactly when tol is None), else the first mismatch; and the largest
    error as a fraction of its bound (0 when exact)."""
    if got.dtype != ref.dtype or got.shape != ref.shape:
        return f"{got.dtype} {got.shape}, expected {ref.dtype} {ref.shape}", 0.0
    why = mismatch(got, ref, tol)
    if why or tol is None or not ref.size:
        return why, 0.0
    diff, tol = np.abs(got.astype(np.float64) - ref), np.broadcast_to(tol, ref.shape)
    return "", float(np.max(np.divide(diff, tol, out=np.zeros_like(diff), where=tol > 0)))


def load_pb(path):
    return numpy_helper.to_array(onnx.load_tensor(path))


def run_test(dev, folder, model):
    """(verdict, text) of one node test."""
    node = model.graph.node[0]
    sets = sorted(glob.glob(os.path.join(folder, "test_data_set_*")))
    data = [([load_pb(p) for p in sorted(glob.glob(os.path.join(s, "input_*.pb")))],
             [load_pb(p) for p in sorted(glob.glob(os.path.join(s, "output_*.pb")))]) for s in sets]
    why = skip_reason(node, data[0][0])
    try:
        runner = tessel.onnx.Runner(model, device=dev)
    except tessel.Error as e:
        return ("skip", f"{why} (the runner refuses it: {e.message})") if why else ("fail", f"refused: {e}")
    place = runner.placements[0]
    worst, exact = 0.0, True
    for inputs, refs in data:
        names = [n for n in node.input if n]
        try:
            outs = runner.run(dict(zip(names, inputs)))
        except Exception as e:   # a runner that raises fails this test; the others go on
            return "fail", f"{place.where}: {type(e).__name__}: {e}"
        for i, (got, ref) in enumerate(zip(outs, refs)):
            tol = bound(node, inputs, ref, i)
            mismatch, ratio = compare(got, ref, tol)
            if mismatch:
                return "fail", f"{place.where}: output {i}: {mismatch}"
            worst, exact = max(worst, ratio), exact and tol is None
    how = f"{place.where}: {place.note}" if place.note else place.where
    if why:
        return "skip", f"{why} (ran: {how}; matches)"
    if place.where == "fallback":
        return "fallback", how
    return "pass", how + ("; exact" if exact else f"; largest error {worst:.2f} of the bound")


def main():
    start = time.time()
    counts = {op: dict.fromkeys(("pass", "fail", "skip", "fallback"), 0) for op in OPS}
    with tessel.Device("model") as dev:
        for folder in sorted(glob.glob(os.path.join(DATA, "test_*"))):
            model = onnx.load(os.path.join(folder, "model.onnx"))
            if len(model.graph.node) != 1 or model.graph.node[0].op_type not in OPS:
                continue
            op = model.graph.node[0].op_type
            verdict, text = run_test(dev, folder, model)
            counts[op][verdict] += 1
            shown = verdict.upper() if verdict == "fail" else verdict
            print(f"{shown:<8} {os.path.basename(folder):<58} {op:<18} {text}", flush=True)
    print(f"\n{'op':<20}{'tests':>6}{'pass':>6}{'fail':>6}{'skip':>6}{'fallback':>10}")
    for op, c in counts.items():
        print(f"{op:<20}{sum(c.values()):>6}{c['pass']:>6}{c['fail']:>6}{c['skip']:>6}{c['fallback']:>10}")
    total = {k: sum(c[k] for c in counts.values()) for k in ("pass", "fail", "skip", "fallback")}
    print(f"{'all':<20}{sum(total.values()):>6}{total['pass']:>6}{total['fail']:>6}{total['skip']:>6}"
          f"{total['fallback']:>10}   ({time.time() - start:.1f} s)")
    print(f"onnx_nodes: {total['pass']} passed, {total['fail']} failed")
    return 1 if total["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
