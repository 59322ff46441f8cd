"""tessel.onnx: ONNX models on a Tessel device (docs/python.md, "ONNX models").

    import tessel.onnx
    outputs = tessel.onnx.run("model.onnx", {"input": x}, backend="model")   # a list, the graph's order
    with tessel.onnx.Runner("model.onnx", backend="sim") as runner:         # plans the graph once
        print(runner.report())
        y, = runner.run({"input": x})

Command line: python3 -m tessel.onnx MODEL.onnx --input NAME=X.npy ... [--backend model|sim]
[--out-dir DIR] prints where each node runs, the fallbacks and the outputs (saved as DIR/NAME.npy).

The model is read with Debian's python3-onnx and planned once, when the runner is made: each node
gets a placement, and constant operands (weights) are put in the device's layout then.
  device    the library's calls (tessel.Device): Conv, Gemm, MatMul, MaxPool, AveragePool and
            GlobalAveragePool in bf16 with fp32 accumulation (the MXU and the windows read float32
            rounded to bf16); Add, Softmax, LayerNormalization and Gelu (approximate="tanh") on fp32
            values as they are (ROWWISE, ELTWISE); a Relu that follows a Conv, Gemm or MatMul whose
            output has no other consumer is that call's ReLU flag, any other an ELTWISE RELU in
            fp32 (exact). QLinearConv and QLinearMatMul: int8 x int8 with exact int32
            accumulators on the device, requantised on the host (below). uint8 tensors run as int8
            minus 128, which keeps their order and differences exactly.
  host      numpy by design: QuantizeLinear and DequantizeLinear (elementwise scales), and the
            tensor bookkeeping of exported graphs (Shape, Gather, Concat, Cast, ...).
  free      no arithmetic: Constant, Identity, Reshape, Flatten, Transpose, Squeeze, Unsqueeze
            (numpy's reshapes and transposes: views where numpy can make one), and a Relu fused
            into the op before it.
  fallback  numpy, because the device has no path for the node (the reason is reported): an
            unsupported op, an input dtype other than float32 (or int8/uint8 where it applies),
            Gelu's erf form. A node with neither makes Runner() raise tessel.Error.

Layout: activations stay channels last (NHWC) from one window op to the next. A graph input is
transposed from NCHW once, for the window ops that read it; a graph output, or the input of ops
that need ONNX's layout, once back. Flatten of an NHWC tensor is a view, its columns in (h, w, c)
order; a Gemm or MatMul reading it with constant weights has their rows put in that order when it
is planned. Conv weights go from OIHW to HWIO once. 1-D windows (N x C x L) run as 2-D windows one
row high.

Integer ops: ONNX defines QLinearConv and QLinearMatMul as y = saturate(round((x - zx) (w - zw) *
sx sw / sy) + zy) with float scales and rounding half to even. The device's REQUANT is an integer
multiplier and shift that rounds ties up, which differs on ties (acc * sx sw / sy = 2.5 gives 2 in
ONNX, 3 on the device) and, by its 31-bit multiplier, near them: so the device computes the exact
int32 sums sum x w (padding reads the input's zero point) and the host requantises them: the
multiplier sx sw / sy in float32, as ONNX's reference, the product in float64, rounded half to
even. The device has no weight zero point: the weights minus their zero point are used when they
fit int8 (so always for zero point 0), else the sums are corrected by the standard terms
sum (x - zx)(w - zw) = sum x w - zw sum x - zx sum w + K zx zw, with sum x from one extra all-ones
output column (per group) on the device, sum w and K from the weights.
"""
import argparse
import math
import os
import re
import sys
from dataclasses import dataclass

import numpy as np
import onnx
from onnx import numpy_helper

from . import Device, Error, _tessel

__all__ = ["run", "Runner", "Placement"]

# An ONNX element type's numpy dtype: onnx.mapping in Debian's onnx 1.12, a helper from 1.13 on.
_TO_NUMPY = getattr(onnx.helper, "tensor_dtype_to_np_dtype", None) or onnx.mapping.TENSOR_TYPE_TO_NP_TYPE.get
F32 = np.dtype(np.float32)
# The layouts a value is held in: ONNX's own, channels last (4-D), or ("flat", C): a 2-D Flatten of
# an NHWC tensor of C channels, its columns in (h, w, c) order.
ONNX, NHWC = "onnx", "nhwc"


def _fail(message):
    raise Error(_tessel.EINVAL, message)


class _NoDevice(Exception):
    """A node the device cannot run; the message says why."""


@dataclass
class Placement:
    """Where one node runs: where is "device", "host", "free" or "fallback"; note says how or why."""
    node: str
    op: str
    where: str
    note: str = ""


def _constant(at):
    """The value of a Constant node's attributes."""
    if "value" in at:
        return numpy_helper.to_array(at["value"])
    key, v = next(iter(at.items()))
    kind = key.split("_")[1].rstrip("s")   # value_float(s), value_int(s), value_string(s)
    return np.array(v, {"float": np.float32, "int": np.int64}.get(kind))


def _attrs(node):
    out = {}
    for a in node.attribute:
        v = onnx.helper.get_attribute_value(a)
        out[a.name] = v.decode() if isinstance(v, bytes) else v
    return out


def _onnx_layout(a, layout):
    """a, held in layout, in ONNX's layout (a view where numpy can)."""
    if layout == NHWC:
        return a.transpose(0, 3, 1, 2)
    if layout != ONNX:
        n = a.shape[0]
        return a.reshape(n, -1, layout[1]).transpose(0, 2, 1).reshape(n, -1)
    return a


def _int8(a, zero_point):
    """(a, zero_point) as int8 values: uint8 minus 128, which keeps a - zero_point."""
    zp = np.asarray(zero_point, np.int64)
    if a.dtype == np.uint8:
        return (a.astype(np.int16) - 128).astype(np.int8), zp - 128
    if a.dtype != np.int8:
        _fail(f"an integer op needs int8 or uint8 tensors, not {a.dtype}")
    return a, zp


def _per_axis(p, ndim, axis):
    """A quantisation parameter: a scalar, or 1-D along axis of an ndim tensor."""
    p = np.asarray(p)
    if p.size == 1:
        return p.reshape(())
    shape = [1] * ndim
    shape[axis] = -1
    return p.reshape(shape)


def _saturate(v, dtype):
    info = np.iinfo(dtype)
    return np.clip(v, info.min, info.max).astype(dtype)


def _multiplier(sx, sw, sy):
    """The requantisation multiplier sx sw / sy in float32, as ONNX's reference computes it."""
    return np.asarray(sx, np.float32) * np.asarray(sw, np.float32) / np.asarray(sy, np.float32)


def _requant(acc, multiplier, zero_point):
    """ONNX's requantisation of exact int64 sums: saturate(round_half_even(acc * multiplier) + zp)."""
    zp = np.asarray(zero_point)
    return _saturate(np.rint(acc * np.asarray(multiplier, np.float64)) + zp, zp.dtype)


class _IntWeights:
    """The device's int8 weights of an integer product, the output channels on the last axis, and
    the exact sums sum (x - zx)(w - zw) from the device's sums sum x w (module docstring).
    k_axes: the axes summed over (a GEMM's K rows, a convolution's kh, kw and c/groups)."""

    def __init__(self, w, zw, k_axes, groups=1):
        w, zw = _int8(w, zw)
        d = w.astype(np.int16) - zw
        if d.min() >= -128 and d.max() <= 127:
            w, zw = d.astype(np.int8), np.zeros_like(zw)
        self.zw, self.groups = zw, groups
        self.k = math.prod(w.shape[a] for a in k_axes)
        self.colsum = w.sum(axis=k_axes, dtype=np.int64, keepdims=True)
        self.ones = bool(zw.any())   # sum x is needed: one all-ones column per group gives it
        if self.ones:
            g = w.reshape(w.shape[:-1] + (groups, -1))
            w = np.concatenate([g, np.ones(g.shape[:-1] + (1,), np.int8)], axis=-1).reshape(w.shape[:-1] + (-1,))
        self.w = np.ascontiguousarray(w)

    def sums(self, p, zx):
        """The exact sums from the device's int32 products p (with the ones columns) and x's zero point."""
        p = p.astype(np.int64)
        if not self.ones:
            return p - zx * self.colsum
        g = p.reshape(p.shape[:-1] + (self.groups, -1))
        sx = np.repeat(g[..., -1], g.shape[-1] - 1, axis=-1)
        p = g[..., :-1].reshape(p.shape[:-1] + (-1,))
        return p - zx * self.colsum - self.zw * sx + self.k * zx * self.zw


class _Window:
    """The geometry of an ONNX window op (kernel_shape, strides, dilations, pads, auto_pad,
    ceil_mode) with one or two spatial axes, as the device's 2-D window: 1-D is one row high."""

    def __init__(self, at, kernel, nd):
        pads = list(at.get("pads") or [0] * 2 * nd)
        lead = [(1, 1, 1, 0, 0)] * (2 - nd)
        self.axes = lead + list(zip(kernel, at.get("strides") or [1] * nd, at.get("dilations") or [1] * nd,
                                    pads[:nd], pads[nd:]))
        self.auto, self.ceil = at.get("auto_pad", "NOTSET"), at.get("ceil_mode", 0)

    def _axis(self, i, size):
        """(pad before, pad after for the device, pad after as declared, output size) along axis i."""
        k, s, d, pb, pe = self.axes[i]
        span = (k - 1) * d + 1
        if self.auto in ("SAME_UPPER", "SAME_LOWER"):
            total = max((-(-size // s) - 1) * s + span - size, 0)
            pb = total // 2 if self.auto == "SAME_UPPER" else total - total // 2
            pe = total - pb
        elif self.auto == "VALID":
            pb = pe = 0
        room = size + pb + pe - span
        out = (-(-room // s) if self.ceil else room // s) + 1
        if self.ceil and (out - 1) * s >= size + pb:   # a window that would start in the padding after
            out -= 1
        return pb, max((out - 1) * s + span - size - pb, 0), pe, out

    def kwargs(self, hw):
        """The keywords of Device.conv2d and pool2d for an input of hw = (h, w)."""
        (t, b, _, _), (l, r, _, _) = self._axis(0, hw[0]), self._axis(1, hw[1])
        return dict(stride=tuple(a[1] for a in self.axes), padding=(t, b, l, r),
                    dilation=tuple(a[2] for a in self.axes))

    def avg_factors(self, hw, include_pad):
        """kh kw / (the taps each average counts), oh x ow x 1: the device divides by kh kw. ONNX
        counts the taps inside the input, or inside the declared padding with count_include_pad;
        padding added for ceil_mode never counts. None when every factor is 1."""
        f = []
        for i, size in enumerate(hw):
            k, s, d, _, _ = self.axes[i]
            pb, _, pe, out = self._axis(i, size)
            taps = np.arange(out)[:, None] * s - pb + np.arange(k)[None, :] * d
            lo, hi = (-pb, size + pe) if include_pad else (0, size)
            f.append(k / ((taps >= lo) & (taps < hi)).sum(axis=1))
        factors = np.outer(f[0], f[1])[..., None].astype(np.float32)
        return None if (factors == 1).all() else factors


def _hwio(w):
    """Conv weights, O x I x kh x kw (or O x I x k, 1-D: one row high), as the device's HWIO."""
    return (w if w.ndim == 4 else w[:, :, None]).transpose(2, 3, 1, 0)


def _np_div(at, a, b):
    if a.dtype.kind == "f":
        return a / b
    return np.trunc(a / b).astype(a.dtype)   # ONNX's integer division truncates


def _np_gelu(at, x):
    v = x.astype(np.float64)
    if at.get("approximate", "none") == "tanh":
        t = np.tanh(np.sqrt(2 / np.pi) * (v + 0.044715 * v**3))
    else:
        t = np.vectorize(math.erf, otypes=[np.float64])(v / np.sqrt(2))
    return (0.5 * v * (1 + t)).astype(x.dtype)


def _np_reshape(at, x, shape):
    shape = [int(d) for d in shape]
    if not at.get("allowzero", 0):
        shape = [x.shape[i] if d == 0 else d for i, d in enumerate(shape)]
    return x.reshape(shape)


def _np_flatten(at, x):
    axis = at.get("axis", 1)
    axis += x.ndim if axis < 0 else 0
    return x.reshape(math.prod(x.shape[:axis]), math.prod(x.shape[axis:]))


def _axes(at, axes):
    """Squeeze's and Unsqueeze's axes: an input from opset 13, an attribute before."""
    axes = at.get("axes") if axes is None else axes
    return None if axes is None else tuple(int(a) for a in axes)


def _np_quantize(at, x, scale, zero_point=None):
    zp = np.zeros((), np.uint8) if zero_point is None else zero_point
    axis = at.get("axis", 1) % max(x.ndim, 1)
    q = np.rint(x / _per_axis(scale, x.ndim, axis)) + _per_axis(zp, x.ndim, axis)
    return _saturate(q, zp.dtype)


def _np_dequantize(at, x, scale, zero_point=None):
    axis = at.get("axis", 1) % max(x.ndim, 1)
    zp = 0 if zero_point is None else _per_axis(zero_point, x.ndim, axis).astype(np.int64)
    return (x.astype(np.int64) - zp).astype(np.float32) * _per_axis(scale, x.ndim, axis)


def _unary(fn):
    return lambda at, x: fn(x).astype(x.dtype)


# numpy's version of each op the runner computes on the host, on ONNX-layout arrays.
_NUMPY = {
    "Add": lambda at, a, b: a + b, "Sub": lambda at, a, b: a - b, "Mul": lambda at, a, b: a * b, "Div": _np_div,
    "Pow": lambda at, a, b: np.power(a, b).astype(a.dtype),
    "Relu": lambda at, x: np.maximum(x, 0).astype(x.dtype), "Neg": _unary(np.negative), "Abs": _unary(np.abs),
    "Exp": _unary(np.exp), "Log": _unary(np.log), "Sqrt": _unary(np.sqrt), "Tanh": _unary(np.tanh),
    "Reciprocal": _unary(np.reciprocal), "Sigmoid": _unary(lambda x: 1 / (1 + np.exp(-x))),
    "Erf": _unary(np.vectorize(math.erf, otypes=[np.float64])), "Gelu": _np_gelu,
    "MatMul": lambda at, a, b: np.matmul(a, b),
    "Identity": lambda at, x: x, "Cast": lambda at, x: x.astype(_TO_NUMPY(at["to"])),
    "Shape": lambda at, x: np.array(x.shape[at.get("start", 0):at.get("end")], np.int64),
    "Gather": lambda at, x, i: np.take(x, i, axis=at.get("axis", 0)),
    "Concat": lambda at, *xs: np.concatenate(xs, axis=at["axis"]),
    "Reshape": _np_reshape, "Flatten": _np_flatten, "Transpose": lambda at, x: x.transpose(at.get("perm")),
    "Squeeze": lambda at, x, axes=None: np.squeeze(x, axis=_axes(at, axes)),
    "Unsqueeze": lambda at, x, axes=None: np.expand_dims(x, _axes(at, axes)),
    "QuantizeLinear": _np_quantize, "DequantizeLinear": _np_dequantize,
}
# Ops that compute nothing (views), and the bookkeeping the host runs by design (not as a fallback).
_FREE = {"Identity", "Reshape", "Flatten", "Transpose", "Squeeze", "Unsqueeze"}
_HOST = {"Shape", "Gather", "Concat", "Cast"}


def _product(dev, a, b, **kw):
    """ONNX's MatMul of a by b on the device (numpy's matmul rules): a GEMM of a's rows when b is
    2-D, else a GEMM per block of the broadcast leading dimensions."""
    if b.ndim == 1:
        return _product(dev, a, b[:, None], **kw)[..., 0]
    if a.ndim == 1:
        return _product(dev, a[None], b, **kw)[..., 0, :]
    if b.ndim == 2:
        y = dev.matmul(a.reshape(-1, a.shape[-1]), b, **kw)
        return y.reshape(a.shape[:-1] + (b.shape[1],))
    lead = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return dev.bmm(np.broadcast_to(a, lead + a.shape[-2:]), np.broadcast_to(b, lead + b.shape[-2:]), **kw)


class Runner:
    """An ONNX model (a path or an onnx.ModelProto) planned for a Tessel device.

    device: a tessel.Device to run on; without one, the runner opens Device(backend) at its first
    run and closes it in close(). placements lists every node's Placement in graph order,
    fallbacks those that fell back to numpy. A context manager. Raises tessel.Error (EINVAL) for a
    node that neither the device nor numpy runs, and at run() for missing or mistyped inputs."""

    def __init__(self, model, backend="model", device=None):
        if not isinstance(model, onnx.ModelProto):
            model = onnx.load(os.fspath(model))
        try:
            model = onnx.shape_inference.infer_shapes(model)
        except Exception:   # an op that onnx does not know (Gelu before opset 20): the declared types only
            pass
        g = model.graph
        self.backend, self.device, self._own = backend, device, device is None
        self.opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 1)
        self._consts = {t.name: numpy_helper.to_array(t) for t in g.initializer}
        self.inputs = [v.name for v in g.input if v.name not in self._consts]
        self.outputs = [v.name for v in g.output]
        self._types = {}      # name -> (numpy dtype, dims with None where unknown, or None)
        for v in list(g.input) + list(g.value_info) + list(g.output):
            t = v.type.tensor_type
            if t.elem_type:
                dims = tuple(d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim)
                self._types[v.name] = (np.dtype(_TO_NUMPY(t.elem_type)), dims if t.HasField("shape") else None)
        self._consumers = {}
        for node in g.node:
            for name in node.input:
                self._consumers.setdefault(name, []).append(node)
        self._layout = {name: ONNX for name in list(self._consts) + self.inputs}
        self._fused = {}      # a fused Relu's output -> the name of the node it is fused into
        self._steps = []      # (output names, fn(device, values) -> the outputs: an array or a tuple)
        self.placements = []
        for i, node in enumerate(g.node):
            self._plan(node, node.name or f"{node.op_type}_{i}")

    # ---- planning -----------------------------------------------------------------------------------
    def _plan(self, node, name):
        op, at = node.op_type, _attrs(node)
        if op == "Constant":
            self._consts[node.output[0]] = _constant(at)
            self._layout[node.output[0]] = ONNX
            return self._place(name, node, "free", "a constant")
        if node.output[0] in self._fused:
            return self._place(name, node, "free", f"fused into {self._fused[node.output[0]]} (its ReLU flag)")
        planner = getattr(self, "_op_" + op, None)
        if planner is None and op in _FREE:
            return self._numpy(node, at, name, "free", "numpy, no arithmetic")
        if planner is None and op in _HOST:
            return self._numpy(node, at, name, "host", "numpy")
        try:
            if planner is None:
                raise _NoDevice(f"no device path for {op}")
            planner(node, at, name)
        except _NoDevice as e:
            if op not in _NUMPY:
                _fail(f"{name} ({op}): {e}, and no numpy fallback either")
            self._numpy(node, at, name, "fallback", str(e))

    def _place(self, name, node, where, note):
        self.placements.append(Placement(name, node.op_type, where, note))

    def _step(self, name, node, note, fn, layout, outs=None):
        """A device step: fn(dev, values) gives the node's outputs (outs: the names they take, by
        default the node's), held in layout."""
        outs = outs or [o for o in node.output if o]
        for o in outs:
            self._layout[o] = layout
        self._steps.append((outs, fn))
        self._place(name, node, "device", note)

    def _numpy(self, node, at, name, where, note="", keep_layout=False):
        """The node by _NUMPY on ONNX-layout inputs; computed once, now, when they are all constants.
        keep_layout: input 0 is taken as held and the outputs held alike (an elementwise op whose
        other operands are scalars)."""
        fn, ins = _NUMPY[node.op_type], list(node.input)

        def run(dev, vals):
            return fn(at, *(None if not n else vals[n] if keep_layout and i == 0 else self._get(vals, n)
                            for i, n in enumerate(ins)))
        outs = [o for o in node.output if o]
        for o in outs:
            self._layout[o] = self._layout[ins[0]] if keep_layout else ONNX
        if all(n in self._consts for n in ins if n):
            res = run(None, self._consts)
            self._consts.update(zip(outs, res if isinstance(res, tuple) else (res,)))
            note = ", ".join(filter(None, [note, "folded once, when planned"]))
        else:
            self._steps.append((outs, run))
        self._place(name, node, where, note)

    def _const(self, name):
        return self._consts.get(name) if name else None

    def _dtype(self, name):
        if name in self._consts:
            return self._consts[name].dtype
        return self._types.get(name, (None, None))[0]

    def _dims(self, name):
        """name's dimensions (None where unknown), or None when its rank is unknown."""
        if name in self._consts:
            return self._consts[name].shape
        return self._types.get(name, (None, None))[1]

    def _float32(self, *names):
        for n in names:
            if n and self._dtype(n) not in (None, F32):
                raise _NoDevice(f"{n} is {self._dtype(n)}: the device computes float32 (in bf16 or fp32) and int8")

    def _relu_after(self, node, name):
        """(the name the node's result takes, relu): a Relu that is the only consumer of the node's
        output, which is no graph output, is fused into it."""
        out = node.output[0]
        users = self._consumers.get(out, [])
        if len(users) == 1 and users[0].op_type == "Relu" and out not in self.outputs:
            self._fused[users[0].output[0]] = name
            return users[0].output[0], True
        return out, False

    def _once(self, fn, *names):
        """fn of the named inputs' values (ONNX layout; "" gives None): computed now, once, when each
        is a constant (weights), else at every run."""
        if all(n in self._consts for n in names if n):
            value = fn(*(self._const(n) for n in names))
            return lambda vals: value
        return lambda vals: fn(*(self._get(vals, n) if n else None for n in names))

    def _window_nd(self, x, kernel):
        """The spatial axes of a window op (from its kernel, else its input's rank): 1 or 2."""
        dims = self._dims(x)
        nd = len(kernel) if kernel else len(dims) - 2 if dims is not None else 2
        if nd not in (1, 2):
            raise _NoDevice(f"{nd}-D window: the device's windows are 2-D")
        return nd

    def _conv_nd(self, at, x, w):
        """A convolution's spatial axes, from its kernel_shape, else its weights' rank."""
        return self._window_nd(x, at.get("kernel_shape") or (self._dims(w) or ())[2:])

    def _window_in(self, vals, name, nd):
        """The NHWC input of a window op; a 1-D op's N x C x L as N x 1 x L x C."""
        if nd == 2:
            return self._get(vals, name, NHWC)
        return self._get(vals, name).transpose(0, 2, 1)[:, None]

    @staticmethod
    def _window_out(y, nd):
        return y if nd == 2 else y[:, 0].transpose(0, 2, 1)

    def _dense_b(self, a, b, trans_b):
        """(B as a K x N float32 constant, the layout A is read in) of a Gemm or MatMul whose B is a
        constant matrix: an A held flattened from NHWC is read as it is, B's rows put in its (h, w, c)
        column order; else A is read in ONNX's layout."""
        w = self._consts[b].T if trans_b else self._consts[b]
        layout = self._layout[a]
        if layout in (ONNX, NHWC):
            return np.ascontiguousarray(w, np.float32), ONNX
        k, n = w.shape
        return np.ascontiguousarray(w.reshape(layout[1], -1, n).transpose(1, 0, 2).reshape(k, n), np.float32), layout

    # ---- the ops the device runs ---------------------------------------------------------------------
    def _op_Conv(self, node, at, name):
        x, w, b = (list(node.input) + [""])[:3]
        self._float32(x, w, b)
        nd, groups = self._conv_nd(at, x, w), at.get("group", 1)
        hwio = self._once(lambda v: np.ascontiguousarray(_hwio(v), np.float32), w)
        out, relu = self._relu_after(node, name)

        def run(dev, vals):
            xa, wt = self._window_in(vals, x, nd), hwio(vals)
            win = _Window(at, wt.shape[2 - nd:2], nd)
            y = dev.conv2d(xa, wt, bias=vals[b] if b else None, groups=groups, relu=relu, **win.kwargs(xa.shape[1:3]))
            return self._window_out(y, nd)
        self._step(name, node, "conv2d, bf16 x bf16, fp32 accumulation" + (", ReLU fused" if relu else ""), run,
                   NHWC if nd == 2 else ONNX, [out])

    def _op_Gemm(self, node, at, name):
        a, b, c = (list(node.input) + [""])[:3]
        self._float32(a, b, c)
        alpha, beta = at.get("alpha", 1.0), at.get("beta", 1.0)
        ta, tb = at.get("transA", 0), at.get("transB", 0)
        if b in self._consts and not ta:
            w, a_layout = self._dense_b(a, b, tb)
            weights = lambda vals: w
        else:
            a_layout = ONNX
            weights = lambda vals: self._get(vals, b).T if tb else self._get(vals, b)
        # C: one bias row (a scalar, or N values along the last axis) goes in the GEMM's epilogue, with
        # a fused ReLU; any other C is added by a second command.
        dims = self._dims(c) if c else ()
        row = dims is not None and all(d == 1 for d in dims[:-1])
        out, relu = self._relu_after(node, name) if row else (node.output[0], False)

        def run(dev, vals):
            am, bm = self._get(vals, a, a_layout), weights(vals)
            kw = dict(relu=relu, scale=alpha if alpha != 1 else None)
            if c and row:
                kw["bias"] = np.ascontiguousarray(np.broadcast_to(beta * vals[c].reshape(-1), bm.shape[1:]))
            y = dev.matmul(am.T if ta else am, bm, **kw)
            if c and not row:
                y = dev.add(y, np.ascontiguousarray(np.broadcast_to(beta * self._get(vals, c), y.shape)),
                            in_dtype="fp32")
            return y
        note = "gemm, bf16 x bf16, fp32 accumulation" + (", alpha as its scale" if alpha != 1 else "") + \
            (", then an fp32 add of beta C" if c and not row else "") + (", ReLU fused" if relu else "")
        self._step(name, node, note, run, ONNX, [out])

    def _op_MatMul(self, node, at, name):
        a, b = node.input
        self._float32(a, b)
        if b in self._consts and self._consts[b].ndim == 2:
            w, a_layout = self._dense_b(a, b, False)
            weights = lambda vals: w
        else:
            a_layout, weights = ONNX, lambda vals: self._get(vals, b)
        out, relu = self._relu_after(node, name)

        def run(dev, vals):
            return _product(dev, self._get(vals, a, a_layout), weights(vals), relu=relu)
        self._step(name, node, "gemm (one per block of an N-D B), bf16 x bf16, fp32 accumulation" +
                   (", ReLU fused" if relu else ""), run, ONNX, [out])

    def _op_Relu(self, node, at, name):
        x = node.input[0]
        self._float32(x)

        def run(dev, vals):
            xa = vals[x]
            return dev.relu(xa.reshape(1, -1), in_dtype="fp32", out_dtype="fp32").reshape(xa.shape)
        self._step(name, node, "ELTWISE RELU in fp32 (exact)", run, self._layout[x])

    def _op_Add(self, node, at, name):
        a, b = node.input
        self._float32(a, b)
        layout = self._layout[a] if self._layout[a] == self._layout[b] else ONNX

        def run(dev, vals):
            x, y = self._get(vals, a, layout), self._get(vals, b, layout)
            shape = np.broadcast_shapes(x.shape, y.shape)
            return dev.add(*(np.ascontiguousarray(np.broadcast_to(v, shape)) for v in (x, y)), in_dtype="fp32")
        dims = self._dims(a), self._dims(b)
        same = dims[0] is not None and None not in dims[0] and dims[0] == dims[1]
        self._step(name, node, "add, fp32" + ("" if same else " (an operand broadcast on the host)"), run, layout)

    def _pool(self, node, at, name, kind, kernel):
        """MaxPool, AveragePool (kernel: the attribute) and GlobalAveragePool (kernel None: the input's)."""
        x = node.input[0]
        if len([o for o in node.output if o]) > 1:
            raise _NoDevice("the Indices output: the device's max pooling gives no argmax")
        dtype = self._dtype(x)
        if dtype not in (None, F32) and (kind == "avg" or dtype not in (np.int8, np.uint8)):
            raise _NoDevice(f"{x} is {dtype}: the device pools float32, and int8 and uint8 by max")
        nd = self._window_nd(x, kernel)
        include_pad = at.get("count_include_pad", 0)

        def run(dev, vals):
            xa = self._window_in(vals, x, nd)
            hw = xa.shape[1:3]
            win = _Window(at, kernel or hw[2 - nd:], nd)
            k = tuple(a[0] for a in win.axes)
            if xa.dtype == np.uint8:
                return self._window_out(dev.pool2d(_int8(xa, 0)[0], kind, k, **win.kwargs(hw)).view(np.uint8) ^
                                        np.uint8(0x80), nd)
            y = dev.pool2d(xa, kind, k, **win.kwargs(hw))
            f = win.avg_factors(hw, include_pad) if kind == "avg" else None
            return self._window_out(y if f is None else y * f, nd)
        rescale = kind == "avg" and (at.get("ceil_mode", 0) or not include_pad and
                                     (any(at.get("pads", ())) or at.get("auto_pad", "NOTSET").startswith("SAME")))
        if kind == "max":
            note = "pool2d max" + {F32: " of bf16 values", np.dtype(np.uint8): " of uint8 as int8 minus 128"}.get(
                dtype, "")
        else:
            note = "pool2d avg, fp32 sum of bf16 values" + ("; averages over fewer taps rescaled on the host"
                                                             if rescale else "")
        self._step(name, node, note, run, NHWC if nd == 2 else ONNX)

    def _op_MaxPool(self, node, at, name):
        self._pool(node, at, name, "max", at.get("kernel_shape"))

    def _op_AveragePool(self, node, at, name):
        self._pool(node, at, name, "avg", at.get("kernel_shape"))

    def _op_GlobalAveragePool(self, node, at, name):
        self._pool(node, {}, name, "avg", None)

    def _op_Softmax(self, node, at, name):
        x = node.input[0]
        self._float32(x)
        axis = at.get("axis", -1 if self.opset >= 13 else 1)

        def run(dev, vals):
            xa = self._get(vals, x)
            ax = axis % xa.ndim
            if self.opset >= 13:   # along one axis
                return np.moveaxis(dev.softmax(np.moveaxis(xa, ax, -1), in_dtype="fp32"), -1, ax)
            return dev.softmax(xa.reshape(math.prod(xa.shape[:ax]), -1), in_dtype="fp32").reshape(xa.shape)
        self._step(name, node, "softmax, fp32", run, ONNX)

    def _op_LayerNormalization(self, node, at, name):
        x, scale, bias = (list(node.input) + [""])[:3]
        self._float32(x, scale, bias)
        axis, eps = at.get("axis", -1), at.get("epsilon", 1e-5)
        stats = any(node.output[1:])

        def run(dev, vals):
            xa = self._get(vals, x)
            ax = axis % xa.ndim
            rows = xa.reshape(-1, math.prod(xa.shape[ax:]))
            gamma, beta = (np.ascontiguousarray(np.broadcast_to(self._get(vals, p), xa.shape[ax:])).reshape(-1)
                           if p else None for p in (scale, bias))
            y = dev.layernorm(rows, gamma, beta, eps=eps, in_dtype="fp32").reshape(xa.shape)
            if not stats:
                return y
            r = rows.astype(np.float64)
            shape = xa.shape[:ax] + (1,) * (xa.ndim - ax)
            return (y,) + tuple(v.astype(np.float32).reshape(shape) for v in (r.mean(1), 1 / np.sqrt(r.var(1) + eps)))
        self._step(name, node, "layernorm, fp32" + ("; Mean and InvStdDev on the host" if stats else ""), run, ONNX,
                   list(node.output))

    def _op_Gelu(self, node, at, name):
        x = node.input[0]
        self._float32(x)
        if at.get("approximate", "none") != "tanh":
            raise _NoDevice("approximate='none' is GELU's erf form; the device's GELU is the tanh form")
        self._step(name, node, "gelu (tanh form), fp32",
                   lambda dev, vals: dev.gelu(self._get(vals, x), in_dtype="fp32"), ONNX)

    def _op_Flatten(self, node, at, name):
        x = node.input[0]
        dims = self._dims(x)
        if self._layout[x] != NHWC or at.get("axis", 1) != 1 or dims is None or dims[1] is None:
            return self._numpy(node, at, name, "free", "numpy, no arithmetic")
        self._steps.append(([node.output[0]], lambda dev, vals: vals[x].reshape(len(vals[x]), -1)))
        self._layout[node.output[0]] = ("flat", dims[1])
        self._place(name, node, "free", "a view of the NHWC tensor, its columns in (h, w, c) order")

    def _quant_linear(self, node, at, name):
        """QuantizeLinear and DequantizeLinear on the host; with a constant per-tensor scale and zero
        point the tensor stays in the layout it is held in."""
        scalar = all(n in self._consts and self._consts[n].size == 1 for n in node.input[1:] if n)
        self._numpy(node, at, name, "host", "elementwise scale and zero point", keep_layout=scalar)

    _op_QuantizeLinear = _op_DequantizeLinear = _quant_linear

    def _op_QLinearMatMul(self, node, at, name):
        a, sa, za, b, sb, zb, sy, zy = node.input
        weights = self._once(lambda w, z: _IntWeights(w, z, (-2,)), b, zb)

        def run(dev, vals):
            am, zx = _int8(self._get(vals, a), vals[za])
            per_row = zx.size > 1   # a's zero point and scale per row
            zx, sx = (zx.reshape(-1, 1), vals[sa].reshape(-1, 1)) if per_row else (zx.reshape(()), vals[sa])
            w = weights(vals)
            return _requant(w.sums(_product(dev, am, w.w), zx), _multiplier(sx, vals[sb], vals[sy]), vals[zy])
        self._step(name, node, "gemm int8, int32 accumulation; requantised on the host", run, ONNX)

    def _op_QLinearConv(self, node, at, name):
        x, sx, zx, w, sw, zw, sy, zy, b = (list(node.input) + [""])[:9]
        nd, groups = self._conv_nd(at, x, w), at.get("group", 1)
        weights = self._once(lambda v, z: _IntWeights(_hwio(v), z, (0, 1, 2), groups), w, zw)

        def run(dev, vals):
            xa, zp = _int8(self._window_in(vals, x, nd), vals[zx])
            wt = weights(vals)
            win = _Window(at, wt.w.shape[2 - nd:2], nd)
            p = dev.conv2d(xa, wt.w, groups=groups, x_zero_point=zp.item(), **win.kwargs(xa.shape[1:3]))
            acc = wt.sums(p, zp) + (vals[b].astype(np.int64) if b else 0)
            return self._window_out(_requant(acc, _multiplier(vals[sx], vals[sw], vals[sy]), vals[zy]), nd)
        self._step(name, node, "conv2d int8, int32 accumulation; requantised on the host", run,
                   NHWC if nd == 2 else ONNX)

    # ---- running ----------------------------------------------------------------------------------
    def _get(self, vals, name, want=ONNX):
        """The value of name in the layout want (ONNX, NHWC, or the layout it is held in); a
        conversion is made once a run, however many ops read it, and kept in vals."""
        have = self._layout[name]
        if want == have:
            return vals[name]
        if (name, want) not in vals:
            a = _onnx_layout(vals[name], have)
            vals[name, want] = np.ascontiguousarray(a.transpose(0, 2, 3, 1) if want == NHWC else a)
        return vals[name, want]

    @property
    def fallbacks(self):
        return [p for p in self.placements if p.where == "fallback"]

    def report(self):
        """The placement of every node and the fallbacks, as text."""
        counts = {}
        for p in self.placements:
            counts[p.where] = counts.get(p.where, 0) + 1
        lines = [f"{len(self.placements)} nodes: " + ", ".join(f"{n} {w}" for w, n in counts.items())]
        width = max([len(p.node) for p in self.placements] + [4])
        lines += [f"  {p.node:<{width}}  {p.op:<18} {p.where:<8}  {p.note}".rstrip() for p in self.placements]
        fb = self.fallbacks
        lines.append("fell back to numpy: " + ("; ".join(f"{p.node} ({p.op}: {p.note})" for p in fb) if fb else "none"))
        return "\n".join(lines)

    def run(self, inputs):
        """The graph's outputs (a list of numpy arrays, in the graph's order) for inputs, a dict of
        each graph input's name to its array."""
        missing = [n for n in self.inputs if n not in inputs]
        extra = [n for n in inputs if n not in self.inputs]
        if missing or extra:
            _fail(f"inputs: the model's are {self.inputs}" + (f"; missing {missing}" if missing else "") +
                  (f"; unknown {extra}" if extra else ""))
        vals = dict(self._consts)
        for n in self.inputs:
            a = np.asarray(inputs[n])
            if self._dtype(n) not in (None, a.dtype):
                _fail(f"input {n} is {a.dtype}; the model declares {self._dtype(n)}")
            vals[n] = a
        if self.device is None:
            self.device = Device(self.backend)
        for outs, fn in self._steps:
            res = fn(self.device, vals)
            vals.update(zip(outs, res if isinstance(res, tuple) else (res,)))
        return [np.ascontiguousarray(self._get(vals, o)) for o in self.outputs]

    def close(self):
        """Closes the device the runner opened (not one it was given)."""
        if self._own and self.device is not None:
            self.device.close()
            self.device = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def run(model, inputs, backend="model", device=None, report=None):
    """The outputs of an ONNX model (a path or an onnx.ModelProto) for inputs ({name: array}), as
    a list of numpy arrays in the graph's order. device: a tessel.Device to use, else one of backend
    is opened and closed. report: a text stream (sys.stdout) to print where each node ran to."""
    with Runner(model, backend, device) as runner:
        if report is not None:
            print(runner.report(), file=report)
        return runner.run(inputs)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m tessel.onnx", description="Run an ONNX model on a Tessel device.")
    ap.add_argument("model", help="the .onnx file")
    ap.add_argument("--input", action="append", default=[], metavar="NAME=X.npy", help="a graph input (repeat)")
    ap.add_argument("--backend", default="model", help="model (default), sim or uart")
    ap.add_argument("--port", help="the serial port of the uart backend")
    ap.add_argument("--out-dir", help="save each output as DIR/NAME.npy")
    args = ap.parse_args(argv)
    inputs = {}
    for item in args.input:
        n, eq, path = item.partition("=")
        if not eq:
            ap.error(f"--input {item!r}: expected NAME=FILE.npy")
        inputs[n] = np.load(path)
    try:
        with Device(args.backend, port=args.port) as dev, Runner(args.model, device=dev) as runner:
            print(runner.report())
            outputs = runner.run(inputs)
    except (Error, OSError) as e:
        sys.exit(f"tessel.onnx: {e}")
    for n, y in zip(runner.outputs, outputs):
        saved = ""
        if args.out_dir:
            os.makedirs(args.out_dir, exist_ok=True)
            saved = os.path.join(args.out_dir, re.sub(r"[^\w.-]", "_", n) + ".npy")
            np.save(saved, y)
        print(f"output {n}: {y.dtype} {y.shape}" + (f" -> {saved}" if saved else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
