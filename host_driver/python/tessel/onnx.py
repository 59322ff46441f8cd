"""tessel.onnx: ONNX models on a Tessel device (docs/python.md, "ONNX models").

    import tessel.onnx
    outputs = tessel.onnx.run("model.onnx", {"input": x}, backend="model")   # a list, the graph's order
    with tessel.onnx.Runner("model.onnx", backend="sim") as runner:         # plans the graph once
        print(runner.report())
        y, = runner.run({"input": x})

Command line: python3 -m tessel.onnx MODEL.onnx --input NAME=X.npy ... [--backend model|sim]
[--out-dir DIR] prints where each node runs, the fallbacks, the outputs (saved as DIR/NAME.npy) and
the device's commands, submissions and (but on the model backend) cycles.

The model is read with Debian's python3-onnx and planned once, when the runner is made: each node
gets a placement, and constant operands (weights) are put in the device's layout then.
  device    the library's commands: Conv, Gemm, MatMul, MaxPool, AveragePool and
            GlobalAveragePool in bf16 with fp32 accumulation (the MXU and the windows read float32
            rounded to bf16); Add, Softmax, LayerNormalization and Gelu (approximate="tanh") on fp32
            values as they are (ROWWISE, ELTWISE), and x * sigmoid(x) (a Sigmoid read only by a Mul
            of its input, torch.onnx's silu) as one ROWWISE SILU; a Relu that follows a Conv, Gemm or MatMul whose
            output has no other consumer is that call's ReLU flag, any other an ELTWISE RELU in
            fp32 (exact). A layer norm over the last axis written out op by op (ReduceMean, Sub,
            Pow 2, ReduceMean, Add eps, Sqrt, Div, Mul gamma, Add beta: torch.onnx's before opset
            17; _layernorms) is one ROWWISE LAYERNORM with the graph's eps, its nine nodes placed on
            the device. Of a value on the device: Transpose and Slice (steps 1) are COPY commands
            there (bytes, exact); a Mul is an ELTWISE MUL in fp32 (exact); a Div by a float32
            scalar constant c an ELTWISE MUL by 1/c (within 1.5 ulp of the quotient).
            QLinearConv and QLinearMatMul: int8 x int8 with exact int32
            accumulators on the device, requantised on the host (below). uint8 tensors run as int8
            minus 128, which keeps their order and differences exactly.
  host      numpy by design: QuantizeLinear and DequantizeLinear (elementwise scales), and the
            tensor bookkeeping of exported graphs (Shape, Gather, Concat, Cast, ...).
  free      no arithmetic: Constant, Identity, Reshape, Flatten, Transpose (of a value on the host),
            Squeeze, Unsqueeze (numpy's reshapes and transposes: views where numpy can make one),
            and a Relu fused into the op before it.
  fallback  numpy, because the device has no path for the node (the reason is reported): an
            unsupported op, an input dtype other than float32 (or int8/uint8 where it applies),
            Gelu's erf form. A node with neither makes Runner() raise tessel.Error.

Running: the device nodes' commands go on device buffers (_onnx_memory.py, RawDevice's encoders,
the same words as tessel.Device's calls), added to one graph and run as one program, one
submission. A device node's result stays on the device, in bf16 when every node that reads it reads
bf16 (the rounding those nodes would make), and a reshape of it (Reshape, Flatten, Squeeze,
Unsqueeze, Identity) is the same buffer; Shape and Size read only its shape. It is read back for a
graph output and for a node that runs on the host: that submits the commands before it, and those
after it go into the next graph.
Inputs go to the device once a run, the weights once a session (the runner frees them at close()).

Layout: activations stay channels last (NHWC) from one window op to the next. A graph input is
transposed from NCHW once, for the window ops that read it; a graph output, or the input of ops
that need ONNX's layout, once back; an Add of an NHWC tensor and a 4-D one in ONNX's layout runs
in NHWC. Flatten of an NHWC tensor is a view, its columns in (h, w, c)
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
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import onnx
from google.protobuf.message import DecodeError
from onnx import TensorProto, numpy_helper

from . import Device, Error, _read_file, _tessel
from . import _onnx_host as _host
from ._onnx_memory import Memory, Value
from ._onnx_host import _per_axis, _saturate   # a quantisation parameter's broadcast, saturation to a dtype

__all__ = ["run", "Runner", "Placement"]

# An ONNX element type's numpy dtype: onnx.mapping in Debian's onnx 1.12, a helper from 1.13 on.
_TO_NUMPY = getattr(onnx.helper, "tensor_dtype_to_np_dtype", None) or onnx.mapping.TENSOR_TYPE_TO_NP_TYPE.get
F32 = np.dtype(np.float32)
# The layouts a value is held in: ONNX's own, channels last (4-D), or ("flat", C): a 2-D Flatten of
# an NHWC tensor of C channels, its columns in (h, w, c) order.
ONNX, NHWC = "onnx", "nhwc"


def _fail(message):
    raise Error(_tessel.EINVAL, message)


def _axis(axis, ndim, extra=0):
    """An axis attribute of an ndim-D tensor, from -ndim to ndim - 1 + extra (Flatten's reaches ndim),
    as a non-negative axis; any other is refused."""
    if not -ndim <= axis < ndim + extra:
        _fail(f"axis {axis} is out of range for a {ndim}-D tensor")
    return axis + ndim if axis < 0 else axis


def _broadcast_shape(*shapes):
    """The shape that shapes broadcast to (numpy's rules); shapes that do not broadcast are refused."""
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        _fail(f"shapes {', '.join(str(tuple(s)) for s in shapes)} do not broadcast")


def _broadcast_to(a, shape):
    """a broadcast to shape, contiguous; an a that does not broadcast to it is refused."""
    if _broadcast_shape(np.shape(a), shape) != tuple(shape):
        _fail(f"shape {np.shape(a)} does not broadcast to {tuple(shape)}")
    return np.ascontiguousarray(np.broadcast_to(a, shape))


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
        out[a.name] = v.decode(errors="replace") if isinstance(v, bytes) else v
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


def _hwio(w, nd, kernel=None):
    """Conv weights, O x I x kh x kw (or O x I x k, 1-D: one row high), as the device's HWIO; weights
    of another rank than the nd spatial axes take, or another kernel than kernel_shape, are refused."""
    if w.ndim != nd + 2 or kernel and tuple(kernel) != w.shape[2:]:
        _fail(f"weights of shape {w.shape}: a {nd}-D convolution" +
              (f" of kernel_shape {list(kernel)}" if kernel else "") + " takes O x C/group x kernel")
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


def _np_reshape(at, x, shape=None):
    shape = at.get("shape", []) if shape is None else shape   # an attribute before opset 5
    if np.ndim(shape) != 1:
        raise ValueError(f"Reshape's shape is {np.ndim(shape)}-D, not 1-D")
    shape = [int(d) for d in shape]
    if not at.get("allowzero", 0):
        shape = [x.shape[i] if d == 0 else d for i, d in enumerate(shape)]
    return x.reshape(shape)


def _np_flatten(at, x):
    axis = _axis(at.get("axis", 1), x.ndim, 1)
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


# The ops that only reshape: on a value on the device, the same buffer in the new shape.
_VIEWS = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"}
# The ops that only move elements: on a value on the device held in ONNX's layout, row copies there
# when whole rows move (Runner._move).
_MOVES = {"Transpose", "Slice"}
# The inputs (by index) that the device's float ops read in bf16.
_BF16_INPUTS = {"Conv": (0,), "MaxPool": (0,), "AveragePool": (0,), "GlobalAveragePool": (0,), "Gemm": (0, 1),
                "MatMul": (0, 1)}
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
# The host's ops (_onnx_host.py): each op's numpy version, and whether it is free (no arithmetic),
# the host's by design (bookkeeping) or a fallback (the device has no path for it).
for _op, _o in _host.OPS.items():   # the table above keeps its own versions
    _NUMPY.setdefault(_op, _o.fn)


def _product(mem, a, b, **kw):
    """ONNX's MatMul of a by b (Values or arrays) on the device (numpy's matmul rules): a GEMM of
    a's rows when b is 2-D, else a GEMM per block of the broadcast leading dimensions."""
    if b.ndim == 1:
        y = _product(mem, a, b.reshape(-1, 1), **kw)
        return y.reshape(y.shape[:-1])
    if a.ndim == 1:
        y = _product(mem, a.reshape(1, -1), b, **kw)
        return y.reshape(y.shape[:-2] + y.shape[-1:])
    if b.ndim == 2:
        y = mem.matmul(a.reshape(-1, a.shape[-1]), b, **kw)
        return y.reshape(a.shape[:-1] + (b.shape[1],))
    _broadcast_shape(a.shape[:-2], b.shape[:-2])
    return mem.bmm(a, b, **kw)


@dataclass
class _Norm:
    """A layer norm written out op by op: y = (x - mean) / sqrt(var + eps) * gamma + beta over x's last
    axis; nodes: ReduceMean (named name), Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add in that order."""
    name: str
    x: str
    gamma: np.ndarray
    beta: np.ndarray
    eps: float
    nodes: list


def _layernorms(nodes, consumers, consts, outputs):
    """The layer norms among nodes that exporters write out op by op (torch.onnx's layer_norm before
    opset 17's LayerNormalization): m = ReduceMean(x), d = Sub(x, m), Pow(d, 2), v = ReduceMean of it,
    Add(v, eps), Sqrt, Div(d, that), Mul by gamma, Add beta (Mul and the Adds either way round); both
    ReduceMeans over the last axis only (axes [-1]), keeping it; eps, gamma and beta float32 constants
    (initializers, Constant nodes, or an Identity of one), eps one value, gamma and beta one value or
    a row; the exponent a constant 2; each intermediate no graph output and read only by the next op
    (d by Pow and Div). A list of _Norm."""
    made = {n.output[0]: n for n in nodes if n.output}

    def const(name):
        """name's value when it is a constant: an initializer, a Constant node's, or an Identity of one."""
        node = made.get(name)
        if node is None or name in consts:
            return consts.get(name)
        return _constant(_attrs(node)) if node.op_type == "Constant" else \
            const(node.input[0]) if node.op_type == "Identity" else None

    def next_op(name, op, reads=1):
        """The node that alone reads name (reads: the readers there are, each listed), if it is op."""
        users = consumers.get(name, []) if name is not None else []
        ok = name not in outputs and len(users) == reads
        return next((u for u in users if u.op_type == op), None) if ok else None

    def other(node, name):
        """The operand of binary node besides name, or None."""
        ins = list(node.input)
        return ins[1 - ins.index(name)] if len(ins) == 2 and name in ins else None

    def float_row(a):
        return a is not None and a.dtype == F32 and a.ndim <= 1

    def last_axis(node):
        at = _attrs(node)
        axes = at.get("axes") or (const(node.input[1]) if len(node.input) > 1 else None)
        return at.get("keepdims", 1) == 1 and axes is not None and list(np.ravel(axes)) == [-1]

    found = []
    for i, mean in enumerate(nodes):
        if mean.op_type != "ReduceMean" or not last_axis(mean):
            continue
        x, m = mean.input[0], mean.output[0]
        sub = next_op(m, "Sub")
        d = sub.output[0] if sub is not None and list(sub.input) == [x, m] else None
        sq, div = next_op(d, "Pow", 2), next_op(d, "Div", 2)
        if sq is None or div is None or sq.input[0] != d or div.input[0] != d or \
                np.size(const(sq.input[1])) != 1 or float(np.ravel(const(sq.input[1]))[0]) != 2:
            continue
        var = next_op(sq.output[0], "ReduceMean")
        add_eps = next_op(var.output[0], "Add") if var is not None and last_axis(var) else None
        root = next_op(add_eps.output[0], "Sqrt") if add_eps is not None else None
        if root is None or next_op(root.output[0], "Div") is not div or list(div.input) != [d, root.output[0]]:
            continue
        mul = next_op(div.output[0], "Mul")
        add = next_op(mul.output[0], "Add") if mul is not None else None
        eps, gamma = const(other(add_eps, var.output[0])), const(other(mul, div.output[0]))
        beta = const(other(add, mul.output[0])) if add is not None else None
        if float_row(eps) and eps.size == 1 and float_row(gamma) and float_row(beta):
            found.append(_Norm(_node_name(mean, i), x, gamma, beta, float(np.ravel(eps)[0]),
                               [mean, sub, sq, var, add_eps, root, div, mul, add]))
    return found


# ---- loading: what a model must pass before onnx's shape inference sees it and anything runs ----------
# Every refusal is a tessel.Error EINVAL that names the node ("name (op)", op_type_index when it has no
# name), the tensor or the file (docs/python.md, "What the loader refuses").
_STANDARD = ("", "ai.onnx")   # the domains of ONNX's own ops: tessel.onnx runs no other
_LARGEST = 2**31 - 1          # the largest window attribute value (int32, as ONNX runtimes read them)
# The window attributes of the window ops: (each value's least, values per spatial axis). onnx's
# shape inference divides by strides unchecked (a stride of 0 kills the interpreter with SIGFPE).
_WINDOW_OPS = {"Conv", "ConvInteger", "QLinearConv", "ConvTranspose", "MaxPool", "AveragePool", "LpPool", "MaxUnpool"}
_WINDOW = {"kernel_shape": (1, 1), "strides": (1, 1), "dilations": (1, 1), "pads": (0, 2)}
_WEIGHTS = {"Conv": 1, "ConvInteger": 1, "ConvTranspose": 1, "QLinearConv": 3}   # the weights' input
_CHOICES = {"auto_pad": ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"), "approximate": ("none", "tanh"),
            "transA": (0, 1), "transB": (0, 1)}
# The field that holds a tensor's values when they are not raw bytes, and its entries per value
# (onnx.proto); every other element type is held in int32_data, one entry each.
_FIELD = {TensorProto.FLOAT: ("float_data", 1), TensorProto.COMPLEX64: ("float_data", 2),
          TensorProto.DOUBLE: ("double_data", 1), TensorProto.COMPLEX128: ("double_data", 2),
          TensorProto.INT64: ("int64_data", 1), TensorProto.UINT32: ("uint64_data", 1),
          TensorProto.UINT64: ("uint64_data", 1), TensorProto.STRING: ("string_data", 1)}
_HOST_ERRORS = (ValueError, TypeError, IndexError, KeyError, ArithmeticError, MemoryError)


def _np_dtype(elem_type):
    """The numpy dtype of an ONNX element type, or None (UNDEFINED, or one onnx maps to no dtype)."""
    try:
        dt = _TO_NUMPY(elem_type) if elem_type else None
    except (KeyError, ValueError, TypeError):
        return None
    return None if dt is None else np.dtype(dt)


def _node_name(node, i):
    return node.name or f"{node.op_type}_{i}"


@contextmanager
def _about(what, host=False):
    """Errors inside name what (a node, "name (op)"): tessel.Error keeps its status; in a host step
    (numpy's ops on the model's values) numpy's errors, an index out of range say, become EINVAL. A
    message that names it already is kept."""
    try:
        yield
    except Error as e:
        if e.message.startswith(what):
            raise
        raise Error(e.status, f"{what}: {e.message}") from None
    except _HOST_ERRORS if host else () as e:
        _fail(f"{what}: {type(e).__name__}: {e}")


def _load(model):
    """model (a path or an onnx.ModelProto), read and checked (_check_model), its external data read in."""
    if isinstance(model, onnx.ModelProto):
        return _check_model(model, None)
    path = os.fspath(model)
    data = _read_file(path)
    if not data:
        _fail(f"{path} is empty, no ONNX model")
    m = onnx.ModelProto()
    try:
        m.ParseFromString(data)
    except DecodeError as e:
        _fail(f"{path} is no ONNX model (truncated?): {e}")
    return _check_model(m, os.path.dirname(os.path.abspath(path)))


def _check_model(model, folder):
    """model, checked before onnx's shape inference sees it: its opset, every tensor (_check_tensor,
    external data read from folder, the model's), the declared types, the edges and every node
    (_check_nodes). A model given as a ModelProto (folder None) may hold no external data."""
    opsets = {o.domain: o.version for o in model.opset_import}
    version = opsets.get("", opsets.get("ai.onnx", 0))
    if version < 1:
        _fail("the model imports no opset of ONNX's own domain")
    g = model.graph
    if len(g.sparse_initializer):
        _fail(f"sparse initializer {g.sparse_initializer[0].values.name!r}: sparse tensors are not supported")
    for t, where in _tensors(g):
        _check_tensor(t, where, folder)
    for kind, values in (("input", g.input), ("output", g.output), ("value_info", g.value_info)):
        for v in values:
            which = v.type.WhichOneof("value")
            if which not in (None, "tensor_type") and kind != "value_info":
                _fail(f"graph {kind} {v.name!r} is of {which}: tessel.onnx takes and gives tensors only")
            t = v.type.tensor_type
            if which == "tensor_type" and t.elem_type and _np_dtype(t.elem_type) is None:
                _fail(f"{kind} {v.name!r}: element type {t.elem_type} has no numpy dtype")
            if any(d.HasField("dim_value") and d.dim_value < 0 for d in t.shape.dim):
                _fail(f"{kind} {v.name!r}: a negative dimension in its declared shape")
    _check_nodes(g, version)
    return model


def _tensors(g):
    """(tensor, where it is) for every TensorProto of graph g: its initializers, the tensors of its
    nodes' attributes (Constant's value), and those of the graphs in attributes (If, Loop)."""
    for t in g.initializer:
        yield t, f"initializer {t.name!r}"
    for i, node in enumerate(g.node):
        for a in node.attribute:
            for t in ([a.t] if a.HasField("t") else []) + list(a.tensors):
                yield t, f"{_node_name(node, i)} ({node.op_type}): attribute {a.name}"
            for sub in ([a.g] if a.HasField("g") else []) + list(a.graphs):
                yield from _tensors(sub)


def _check_tensor(t, where, folder):
    """Tensor t: an element type numpy has, no negative dimension, and data (inline, or external,
    read in by _external) of exactly as many values as its dims declare."""
    dtype = _np_dtype(t.data_type)
    if dtype is None:
        _fail(f"{where}: element type {t.data_type} is not supported")
    if any(d < 0 for d in t.dims):
        _fail(f"{where}: dims {list(t.dims)} hold a negative dimension")
    count = math.prod(t.dims)
    size = 2 if t.data_type == TensorProto.BFLOAT16 else dtype.itemsize
    strings = t.data_type == TensorProto.STRING
    if t.data_location == TensorProto.EXTERNAL:
        if strings:
            _fail(f"{where}: a string tensor cannot have external data")
        _external(t, where, folder, count * size)
    if t.HasField("raw_data"):
        held, ok = f"{len(t.raw_data)} bytes", not strings and len(t.raw_data) == count * size
    else:
        field, per = _FIELD.get(t.data_type, ("int32_data", 1))
        n = len(getattr(t, field))
        held, ok = f"{n} entries of {field}", n == count * per
    if not ok:
        _fail(f"{where}: dims {list(t.dims)} declare {count} {dtype} values; its data holds {held}")


def _external(t, where, folder, nbytes):
    """Reads tensor t's external data into it: nbytes at its offset in a regular file inside folder,
    the model's, after resolving .. and symlinks. onnx's own loader never follows an unchecked path."""
    if folder is None:
        _fail(f"{where}: its data is in an external file; give tessel.onnx the model's path, so that it "
              f"reads the file from the model's folder")
    info = {e.key: e.value for e in t.external_data}
    location = info.get("location", "")
    root = os.path.realpath(folder)
    path = os.path.realpath(os.path.join(root, location))
    if not location or os.path.isabs(location) or os.path.commonpath([root, path]) != root:
        _fail(f"{where}: external data {location!r} is outside the model's folder {folder}")
    try:
        offset, length = int(info.get("offset", 0)), int(info.get("length", nbytes))
    except ValueError:
        _fail(f"{where}: external data offset {info.get('offset')!r} or length {info.get('length')!r} is no integer")
    if offset < 0 or length != nbytes:
        _fail(f"{where}: external data of {length} bytes at offset {offset}; its dims and type take {nbytes} bytes")
    try:
        data = _read_file(path, offset, nbytes, root)
    except OSError as e:
        _fail(f"{where}: external data {location!r} cannot be read: {e.strerror}")
    if len(data) != nbytes:
        _fail(f"{where}: external data {location!r} holds {len(data)} bytes at offset {offset}, its dims take {nbytes}")
    t.raw_data = data
    del t.external_data[:]
    t.data_location = TensorProto.DEFAULT


def _check_nodes(g, version):
    """The edges of graph g: each node reads what a graph input, an initializer or an earlier node
    gives (ONNX's topological order), no name is written twice, each declared output is given; and
    every node (_check_node), before onnx's shape inference sees it."""
    given = {}
    for what, values in (("an initializer", g.initializer), ("a graph input", g.input)):
        for n in (v.name for v in values):
            if given.get(n) == what:
                _fail(f"two of the graph's {what[3:]}s are named {n!r}")
            given.setdefault(n, what)
    writer = {}   # a node output's name -> the index of the node that writes it
    for i, node in enumerate(g.node):
        for o in node.output:
            if o and (o in given or o in writer):
                other = given.get(o) or _node_name(g.node[writer[o]], writer[o])
                _fail(f"{_node_name(node, i)} ({node.op_type}) writes {o!r}, which {other} gives too")
            writer[o] = i
    for i, node in enumerate(g.node):
        name = _node_name(node, i)
        for n in node.input:
            if not n or n in given or writer.get(n, i) < i:
                continue
            if n not in writer:
                _fail(f"{name} ({node.op_type}) reads {n!r}, which no node, graph input or initializer gives")
            cycle = _cycle(g, writer)
            _fail(f"{name} ({node.op_type}) reads {n!r} before {_node_name(g.node[writer[n]], writer[n])} writes it: " +
                  (f"the graph has a cycle through {', '.join(cycle)}" if cycle else
                   "ONNX requires the nodes in topological order"))
        _check_node(node, name, version)
    for v in g.output:
        if v.name not in given and v.name not in writer:
            _fail(f"declared output {v.name!r}: no node, graph input or initializer gives it")
    if not len(g.output):
        _fail("the graph declares no outputs")


def _cycle(g, writer):
    """The names of the nodes on or after a cycle of g's edges ([] when g has no cycle)."""
    deps = [{writer[n] for n in node.input if n in writer} for node in g.node]
    done, grown = set(), True
    while grown:
        ready = {i for i, d in enumerate(deps) if i not in done and d <= done}
        done |= ready
        grown = bool(ready)
    return [_node_name(g.node[i], i) for i in range(len(deps)) if i not in done]


def _check_node(node, name, version):
    """node: ONNX's own domain; its inputs, outputs and attributes as ONNX's schema of its op at the
    model's opset says (where onnx 1.12 knows them); the window attributes (_WINDOW) and choices
    (_CHOICES) of every op."""
    what = f"{name} ({node.op_type})"
    if node.domain not in _STANDARD:
        _fail(f"{what}: domain {node.domain!r} is not ONNX's own; tessel.onnx runs ONNX's ops only")
    if not any(node.output):
        _fail(f"{what}: it writes no output")
    exact = version <= onnx.defs.onnx_opset_version()
    try:   # at an opset above onnx's, its latest schema: the required inputs and known attributes' types only
        schema = onnx.defs.get_schema(node.op_type, min(version, onnx.defs.onnx_opset_version()), "")
    except onnx.defs.SchemaError:   # no such op at this opset: the planner decides
        schema = None
    required = [i for i, p in enumerate(schema.inputs if schema else [])
                if p.option == onnx.defs.OpSchema.FormalParameterOption.Single]
    if any(i < len(node.input) and not node.input[i] for i in required):
        _fail(f"{what}: a required input is left out (named '')")
    names = [a.name for a in node.attribute]
    for a in node.attribute:
        if names.count(a.name) > 1 or a.ref_attr_name or a.type in (
                onnx.AttributeProto.UNDEFINED, onnx.AttributeProto.SPARSE_TENSOR, onnx.AttributeProto.SPARSE_TENSORS):
            _fail(f"{what}: attribute {a.name!r} is given twice, refers to a function's, or is sparse or untyped")
        known = schema and a.name in schema.attributes
        if schema and (exact or known) and (not known or int(schema.attributes[a.name].type) != a.type):
            _fail(f"{what}: ONNX's {node.op_type}-{schema.since_version} has " +
                  (f"no attribute {a.name!r}" if a.name not in schema.attributes else
                   f"{a.name} of another type ({onnx.AttributeProto.AttributeType.Name(a.type)} given)"))
    if schema and exact:
        for kind, n, lo, hi in (("inputs", len(node.input), schema.min_input, schema.max_input),
                                ("outputs", len(node.output), schema.min_output, schema.max_output)):
            if not lo <= n <= hi:
                _fail(f"{what}: {n} {kind}; ONNX's {node.op_type}-{schema.since_version} has {lo} to {hi}")
        missing = [n for n, a in schema.attributes.items() if a.required and n not in names]
        if missing:
            _fail(f"{what}: no {', '.join(missing)}, which ONNX's {node.op_type}-{schema.since_version} requires")
    at = _attrs(node)
    for key, choices in _CHOICES.items():
        if key in at and at[key] not in choices:
            _fail(f"{what}: {key} {at[key]!r} is none of {', '.join(map(str, choices))}")
    if node.op_type in _WINDOW_OPS:
        for key, (least, _) in _WINDOW.items():
            v = at.get(key, [])
            if not isinstance(v, list) or not all(isinstance(i, int) and least <= i <= _LARGEST for i in v):
                _fail(f"{what}: {key} {v} must be integers from {least} to {_LARGEST}")
        group = at.get("group", 1)
        if not isinstance(group, int) or not 1 <= group <= _LARGEST:
            _fail(f"{what}: group {group} must be an integer from 1 to {_LARGEST}")
        with _about(what):
            _window_axes(at)
    if node.op_type == "Cast" and _np_dtype(at.get("to", 0)) is None:
        _fail(f"{what}: to {at.get('to')} is no element type numpy has")


def _window_axes(at, nd=None):
    """The number of spatial axes that a window op's kernel_shape, strides, dilations and pads (two
    values per axis) give, which must agree with each other and with nd where it is known; None
    when none of them is given."""
    counts = {len(at[k]) // per for k, (_, per) in _WINDOW.items() if k in at}
    if nd is not None:
        counts.add(nd)
    if len(counts) > 1 or 0 in counts or any(len(at[k]) % per for k, (_, per) in _WINDOW.items() if k in at):
        _fail(f"kernel_shape, strides, dilations and pads (two per axis) disagree on the number of "
              f"spatial axes{f' ({nd}, from the input and weights)' if nd is not None else ''}")
    return next(iter(counts), None)


def _infer(model):
    """model with the value_info of onnx's shape inference, or as it is where that fails (an op onnx
    does not know: Gelu before opset 20). Inference runs on a copy in which each convolution without
    kernel_shape gets its weights' (an initializer's dims), or reads no weights: onnx 1.12 reads the
    input's dims for each of the weights' unchecked (weights of higher rank: SIGSEGV)."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    dims = {t.name: t.dims[2:] for t in copy.graph.initializer}
    changed = []
    for i, node in enumerate(copy.graph.node):
        w = _WEIGHTS.get(node.op_type)
        if w is not None and w < len(node.input) and not any(a.name == "kernel_shape" for a in node.attribute):
            if node.input[w] in dims:
                node.attribute.append(onnx.helper.make_attribute("kernel_shape", list(dims[node.input[w]])))
            else:
                node.input[w] = ""
            changed.append(i)
    try:
        copy = onnx.shape_inference.infer_shapes(copy)
    except Exception:   # noqa: BLE001 (onnx's errors have no common class)
        return model
    for i in changed:
        copy.graph.node[i].CopyFrom(model.graph.node[i])
    return copy


class Runner:
    """An ONNX model (a path or an onnx.ModelProto) planned for a Tessel device.

    device: a tessel.Device to run on; without one, the runner opens Device(backend) at its first
    run and closes it in close(). placements lists every node's Placement in graph order,
    fallbacks those that fell back to numpy. A context manager. Raises tessel.Error (EINVAL) for a
    model the loader refuses (docs/python.md, "What the loader refuses"), a node that neither the
    device nor numpy runs, and at run() for missing inputs or inputs of another dtype or shape than
    the model declares."""

    def __init__(self, model, backend="model", device=None):
        model = _infer(_load(model))
        g = model.graph
        self._elem = _host.elem_types(g)   # element types, for the host's refusals
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
        self._declared = {}   # a graph input -> its dims as declared: a size, a name (dim_param) or None
        for v in g.input:
            t = v.type.tensor_type
            self._declared[v.name] = tuple(d.dim_value if d.HasField("dim_value") else d.dim_param or None
                                           for d in t.shape.dim) if t.HasField("shape") else None
        self._consumers = {}
        for node in g.node:
            for name in node.input:
                self._consumers.setdefault(name, []).append(node)
        self._layout = {name: ONNX for name in list(self._consts) + self.inputs}
        self._fused = {}      # a fused Relu's output -> the name of the node it is fused into
        self._silu = {}       # x * sigmoid(x): the Mul's output -> (x, the Sigmoid's name), and the
        self._sigmoid = {}    # Sigmoid's output -> x (_silu_of)
        self._on_device = set()   # the values device steps give (and reshapes of them): Values at a run
        self._steps = []      # ("name (op)", host, output names, fn(memory, values) -> the outputs: array or tuple)
        self.placements = []
        self._nodes, self._flops = list(g.node), {}   # (op, where) -> FLOPs over every run (device_share)
        # a layer norm written out op by op: each of its nodes' output -> (_Norm, the node's index in it)
        self._norm_part = {n.output[0]: (norm, i) for norm in _layernorms(self._nodes, self._consumers, self._consts,
                                                                           self.outputs)
                           if self._dtype(norm.x) in (None, F32) for i, n in enumerate(norm.nodes)}
        self._keep, self._pinned = {}, {}   # the constants a run uploads once a session: id -> array; their buffers
        self._mem = None      # the running run's Memory
        for i, node in enumerate(g.node):
            name = _node_name(node, i)
            with _about(f"{name} ({node.op_type})"):
                self._plan(node, name)
        for a in self._consts.values():
            self._pin(a)
        where = {id(n): p.where for n, p in zip(self._nodes, self.placements)}
        self._bf16 = {n for n in self._layout if self._read_as_bf16(n, where)}

    # ---- planning -----------------------------------------------------------------------------------
    def _plan(self, node, name):
        op, at = node.op_type, _host.Attrs(_attrs(node), self.opset, len(node.output))
        if op == "Constant":
            self._consts[node.output[0]] = _constant(at)
            self._layout[node.output[0]] = ONNX
            return self._place(name, node, "free", "a constant")
        if node.output[0] in self._fused:
            return self._place(name, node, "free", f"fused into {self._fused[node.output[0]]} (its ReLU flag)")
        if op == "Sigmoid" and self._silu_of(node, name):
            return self._place(name, node, "device", "fused with the Mul that reads it into one ROWWISE SILU")
        if node.output[0] in self._silu:
            x, sigmoid = self._silu[node.output[0]]
            return self._step(name, node, f"x * {sigmoid}'s sigmoid(x): ROWWISE SILU, fp32",
                              lambda mem, vals: mem.silu(self._dev(vals, x), self._out(node.output[0])), ONNX)
        norm, i = self._norm_part.get(node.output[0], (None, 0))
        if i:
            return self._place(name, node, "device", f"fused into {norm.name}'s ROWWISE LAYERNORM")
        if norm:
            return self._layernorm(node, name, norm)
        planner = getattr(self, "_op_" + op, None)
        why = _host.refusal(node, at, self._elem)
        if why:
            _fail(f"{name} ({op}): {why}")
        if planner is None and op in _host.OPS:
            where = _host.OPS[op].where
            return self._numpy(node, at, name, where, {"free": "numpy, no arithmetic", "host": "numpy"}.get(
                where, f"no device path for {op}"))
        try:
            if planner is None:
                raise _NoDevice(f"no device path for {op}")
            planner(node, at, name)
        except _NoDevice as e:
            if op not in _NUMPY:
                _fail(f"{name} ({op}): {e}; {_host.why_not(op)}")
            self._numpy(node, at, name, "fallback", str(e))

    def _place(self, name, node, where, note):
        self.placements.append(Placement(name, node.op_type, where, note))

    def _read_as_bf16(self, name, where):
        """Whether name is float32, no graph output, and every reader of it, through reshapes, a device
        node's input that reads bf16 (_BF16_INPUTS): the command that makes it then gives it in bf16,
        the rounding each reader would make (the same values, one ELTWISE MOV fewer)."""
        if name in self.outputs or not self._consumers.get(name) or self._dtype(name) != F32:
            return False
        for node in self._consumers[name]:
            at = [i for i, n in enumerate(node.input) if n == name]
            if at == [0] and (node.op_type in _VIEWS and where[id(node)] == "free" or
                              node.op_type in _MOVES and where[id(node)] == "device"):
                if not self._read_as_bf16(node.output[0], where):
                    return False
            elif where[id(node)] != "device" or not set(at) <= set(_BF16_INPUTS.get(node.op_type, ())):
                return False
        return True

    def _out(self, name):
        """The dtype a device op gives name in: "bf16" when only bf16 readers read it, else its default."""
        return "bf16" if name in self._bf16 else None

    def _pin(self, a):
        """a, a constant: a run uploads it once a session (Memory)."""
        self._keep[id(a)] = a
        return a

    def _step(self, name, node, note, fn, layout, outs=None):
        """A device step: fn(memory, values) gives the node's outputs (outs: the names they take, by
        default the node's; Values, or arrays where the host finishes the node), held in layout."""
        outs = outs or [o for o in node.output if o]
        for o in outs:
            self._layout[o] = layout
        self._on_device.update(outs)
        self._steps.append((f"{name} ({node.op_type})", False, outs, fn))
        self._place(name, node, "device", note)

    def _numpy(self, node, at, name, where, note="", keep_layout=False):
        """The node by _NUMPY on ONNX-layout inputs; computed once, now, when they are all constants.
        keep_layout: input 0 is taken as held and the outputs held alike (an elementwise op whose
        other operands are scalars)."""
        fn, ins = _NUMPY[node.op_type], list(node.input)

        shapes_only = node.op_type in _VIEWS or node.op_type in ("Shape", "Size")

        def run(mem, vals):
            x = vals[ins[0]] if ins[0] else None
            if shapes_only and isinstance(x, Value) and (keep_layout or self._layout[ins[0]] == ONNX):
                # a value on the device: a reshape is the same buffer, Shape and Size read no values; numpy's
                # op on a stand-in of x's shape gives them
                y = fn(at, np.broadcast_to(np.zeros((), x.dtype), x.shape),
                       *(self._get(vals, n) if n else None for n in ins[1:]))
                return x.reshape(y.shape) if node.op_type in _VIEWS else y
            return fn(at, *(None if not n else self._get(vals, n, self._layout[n] if keep_layout and i == 0 else ONNX)
                            for i, n in enumerate(ins)))
        outs = [o for o in node.output if o]
        for o in outs:
            self._layout[o] = self._layout[ins[0]] if keep_layout else ONNX
        if node.op_type in _VIEWS and ins[0] in self._on_device:
            self._on_device.update(outs)
        if all(n in self._consts for n in ins if n):
            with _about(f"{name} ({node.op_type})", host=True):
                res = run(None, self._consts)
            self._consts.update(zip(outs, res if isinstance(res, tuple) else (res,)))
            note = ", ".join(filter(None, [note, "folded once, when planned"]))
        else:
            self._steps.append((f"{name} ({node.op_type})", True, outs, run))
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

    def _silu_of(self, node, name):
        """Whether Sigmoid node s = sigmoid(x), x float32, has one reader, a Mul of x and s (either way
        round), and s is no graph output: the Mul is x * sigmoid(x), SiLU (torch.onnx's export of
        silu), which the Mul's step computes; recorded in _silu and _sigmoid."""
        x, s = node.input[0], node.output[0]
        users = self._consumers.get(s, [])
        if len(users) != 1 or users[0].op_type != "Mul" or sorted(users[0].input) != sorted([x, s]) or \
                s in self.outputs or self._dtype(x) not in (None, F32):
            return False
        self._silu[users[0].output[0]] = (x, name)
        self._sigmoid[s] = x
        return True

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
        is a constant (weights; pinned, or its device weights w), else at every run."""
        if all(n in self._consts for n in names if n):
            value = fn(*(self._const(n) for n in names))
            self._pin(getattr(value, "w", value))
            return lambda vals: value
        return lambda vals: fn(*(self._get(vals, n) if n else None for n in names))

    def _window_nd(self, x, kernel, at):
        """The spatial axes of a window op (from its kernel, else its input's rank, else its attributes
        at, which must agree): 1 or 2."""
        dims = self._dims(x)
        nd = _window_axes(at, len(kernel) if kernel else len(dims) - 2 if dims is not None else None) or 2
        if nd not in (1, 2):
            raise _NoDevice(f"{nd}-D window: the device's windows are 2-D")
        return nd

    def _conv_nd(self, at, x, w):
        """A convolution's spatial axes, from its kernel_shape, else its weights' rank."""
        return self._window_nd(x, at.get("kernel_shape") or (self._dims(w) or ())[2:], at)

    def _window_in(self, vals, name, nd):
        """The NHWC input of a window op; a 1-D op's N x C x L as N x 1 x L x C (on the host)."""
        if vals[name].ndim != nd + 2:
            _fail(f"{name} has shape {vals[name].shape}; a {nd}-D window op reads N x C x {nd} spatial axes")
        if nd == 2:
            return self._dev(vals, name, NHWC)
        return self._get(vals, name).transpose(0, 2, 1)[:, None]

    def _window_out(self, y, nd):
        """A window op's result y in the layout it is held in: a 1-D op's back to N x C x L, on the host."""
        return y if nd == 2 else self._mem.host(y)[:, 0].transpose(0, 2, 1)

    def _dense_b(self, a, b, trans_b):
        """(B as a K x N float32 constant, the layout A is read in) of a Gemm or MatMul whose B is a
        constant matrix: an A held flattened from NHWC is read as it is, B's rows put in its (h, w, c)
        column order; else A is read in ONNX's layout."""
        w = self._consts[b].T if trans_b else self._consts[b]
        layout, k_a = self._layout[a], (self._dims(a) or (None,))[-1]
        if k_a not in (None, w.shape[0]) or layout not in (ONNX, NHWC) and w.shape[0] % layout[1]:
            _fail(f"A has {k_a} columns, B {w.shape[0]} rows")
        if layout in (ONNX, NHWC):
            return self._pin(np.ascontiguousarray(w, np.float32)), ONNX
        k, n = w.shape
        return self._pin(np.ascontiguousarray(w.reshape(layout[1], -1, n).transpose(1, 0, 2).reshape(k, n),
                                              np.float32)), layout

    # ---- the ops the device runs ---------------------------------------------------------------------
    def _op_Conv(self, node, at, name):
        x, w, b = (list(node.input) + [""])[:3]
        self._float32(x, w, b)
        nd, groups = self._conv_nd(at, x, w), at.get("group", 1)
        hwio = self._once(lambda v: np.ascontiguousarray(_hwio(v, nd, at.get("kernel_shape")), np.float32), w)
        out, relu = self._relu_after(node, name)

        def run(mem, vals):
            xa, wt = self._window_in(vals, x, nd), hwio(vals)
            win = _Window(at, wt.shape[2 - nd:2], nd)
            y = mem.conv2d(xa, wt, bias=self._get(vals, b) if b else None, groups=groups, relu=relu,
                           out_dtype=self._out(out), **win.kwargs(xa.shape[1:3]))
            return self._window_out(y, nd)
        self._step(name, node, "conv2d, bf16 x bf16, fp32 accumulation" + (", ReLU fused" if relu else ""), run,
                   NHWC if nd == 2 else ONNX, [out])

    def _op_Gemm(self, node, at, name):
        a, b, c = (list(node.input) + [""])[:3]
        self._float32(a, b, c)
        alpha, beta = at.get("alpha", 1.0), at.get("beta", 1.0)
        ta, tb = at.get("transA", 0), at.get("transB", 0)
        if any(len(self._dims(n)) != 2 for n in (a, b) if self._dims(n) is not None):
            _fail(f"A is {self._dims(a)} and B {self._dims(b)}: Gemm multiplies matrices")
        if b in self._consts and not ta:
            w, a_layout = self._dense_b(a, b, tb)
            weights = lambda vals: w
        else:
            a_layout = ONNX
            weights = lambda vals: np.ascontiguousarray(self._get(vals, b).T) if tb else self._dev(vals, b)
        # C: one bias row (a scalar, or N values along the last axis) goes in the GEMM's epilogue, with
        # a fused ReLU; any other C is added by a second command.
        dims = self._dims(c) if c else ()
        row = dims is not None and all(d == 1 for d in dims[:-1])
        out, relu = self._relu_after(node, name) if row else (node.output[0], False)

        def run(mem, vals):
            am = np.ascontiguousarray(self._get(vals, a).T) if ta else self._dev(vals, a, a_layout)
            bm = weights(vals)
            if len(am.shape) != 2 or len(bm.shape) != 2:   # shapes the graph left unknown
                _fail(f"A is {tuple(am.shape)} and B {tuple(bm.shape)}: Gemm multiplies matrices")
            kw = dict(relu=relu, scale=alpha if alpha != 1 else None)
            if c and row:
                kw["bias"] = _broadcast_to(beta * self._get(vals, c).reshape(-1), bm.shape[1:])
            if c and not row:
                y = mem.matmul(am, bm, **kw)
                return mem.binary("add", y, _broadcast_to(beta * self._get(vals, c), y.shape), self._out(out))
            return mem.matmul(am, bm, out_dtype=self._out(out), **kw)
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
            a_layout, weights = ONNX, lambda vals: self._dev(vals, b)
        out, relu = self._relu_after(node, name)

        def run(mem, vals):
            return _product(mem, self._dev(vals, a, a_layout), weights(vals), relu=relu, out_dtype=self._out(out))
        self._step(name, node, "gemm (one per block of an N-D B), bf16 x bf16, fp32 accumulation" +
                   (", ReLU fused" if relu else ""), run, ONNX, [out])

    def _op_Relu(self, node, at, name):
        x = node.input[0]
        self._float32(x)

        def run(mem, vals):
            xa = vals[x]
            return mem.relu(xa.reshape(1, -1), self._out(node.output[0])).reshape(xa.shape)
        self._step(name, node, "ELTWISE RELU in fp32 (exact)", run, self._layout[x])

    def _op_Add(self, node, at, name):
        self._binary(node, name, "add")

    def _op_Mul(self, node, at, name):
        if not set(node.input) & self._on_device:
            raise _NoDevice("no device path for Mul")
        self._binary(node, name, "mul")

    def _binary(self, node, name, op):
        """Add, and a Mul with an operand on the device: ELTWISE in fp32 (exact, as numpy's), by a
        float32 scalar constant as ELTWISE's scalar, else of two tensors, one broadcast on the host."""
        a, b = node.input
        self._float32(a, b)
        # one layout for both: the one they share, channels last when the other is a 4-D tensor in ONNX's
        # (transposed once, so that a tensor on the device stays there), else ONNX's
        layouts = {self._layout[a], self._layout[b]}
        layout = layouts.pop() if len(layouts) == 1 else NHWC if layouts == {ONNX, NHWC} and all(
            len(self._dims(n) or ()) == 4 for n in (a, b)) else ONNX
        scalar = next((n for n in (b, a) if n in self._consts and self._consts[n].size == 1), None)
        tensor = a if scalar == b else b

        def run(mem, vals):
            x = self._dev(vals, tensor, layout)
            if scalar and x.ndim >= self._consts[scalar].ndim:
                return mem.binary(op, x, float(self._consts[scalar].reshape(())), self._out(node.output[0]))
            x, y = self._dev(vals, a, layout), self._dev(vals, b, layout)
            shape = _broadcast_shape(x.shape, y.shape)
            return mem.binary(op, *(v if v.shape == shape else _broadcast_to(mem.host(v), shape) for v in (x, y)),
                              self._out(node.output[0]))
        dims = self._dims(a), self._dims(b)
        same = dims[0] is not None and None not in dims[0] and dims[0] == dims[1]
        self._step(name, node, f"{op}, fp32" + (" by a scalar" if scalar else "" if same else
                                               " (an operand broadcast on the host)"), run, layout)

    def _op_Div(self, node, at, name):
        """A float32 value on the device divided by a float32 scalar constant c: ELTWISE MUL by 1/c in
        fp32 (within 1.5 ulp of the quotient, exact when c is a power of two); any other Div by numpy."""
        a, b = node.input
        c = self._const(b)
        if c is None or c.size != 1 or c.dtype != F32 or a not in self._on_device or \
                self._dtype(a) not in (None, F32):
            raise _NoDevice("no device path for Div")
        r = float(np.float32(1) / c.reshape(()))
        self._step(name, node, f"ELTWISE MUL by 1/{float(c.reshape(())):.9g}, fp32", lambda mem, vals: mem.binary(
            "mul", self._dev(vals, a, self._layout[a]), r, self._out(node.output[0])), self._layout[a])

    def _pool(self, node, at, name, kind, kernel):
        """MaxPool, AveragePool (kernel: the attribute) and GlobalAveragePool (kernel None: the input's)."""
        x = node.input[0]
        if len([o for o in node.output if o]) > 1:
            raise _NoDevice("the Indices output: the device's max pooling gives no argmax")
        dtype = self._dtype(x)
        if dtype not in (None, F32) and (kind == "avg" or dtype not in (np.int8, np.uint8)):
            raise _NoDevice(f"{x} is {dtype}: the device pools float32, and int8 and uint8 by max")
        nd = self._window_nd(x, kernel, at)
        include_pad = at.get("count_include_pad", 0)

        def run(mem, vals):
            xa = self._window_in(vals, x, nd)
            hw = xa.shape[1:3]
            win = _Window(at, kernel or hw[2 - nd:], nd)
            k = tuple(a[0] for a in win.axes)
            if xa.dtype == np.uint8:
                y = mem.host(mem.pool2d(_int8(xa, 0)[0], kind, k, **win.kwargs(hw)))
                return self._window_out(y.view(np.uint8) ^ np.uint8(0x80), nd)
            f = win.avg_factors(hw, include_pad) if kind == "avg" else None
            if f is not None:
                return self._window_out(mem.host(mem.pool2d(xa, kind, k, **win.kwargs(hw))) * f, nd)
            return self._window_out(mem.pool2d(xa, kind, k, out_dtype=self._out(node.output[0]), **win.kwargs(hw)), nd)
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

        def run(mem, vals):
            xa = self._dev(vals, x)
            ax = _axis(axis, xa.ndim)
            out = self._out(node.output[0])
            if self.opset < 13:   # on the 2-D coercion
                return mem.softmax(xa.reshape(math.prod(xa.shape[:ax]), -1), out).reshape(xa.shape)
            if ax == xa.ndim - 1:
                return mem.softmax(xa, out)
            # along another axis: moved last and back on the host
            y = mem.host(mem.softmax(np.ascontiguousarray(np.moveaxis(mem.host(xa), ax, -1))))
            return np.moveaxis(y, -1, ax)
        self._step(name, node, "softmax, fp32", run, ONNX)

    def _op_LayerNormalization(self, node, at, name):
        x, scale, bias = (list(node.input) + [""])[:3]
        self._float32(x, scale, bias)
        axis, eps = at.get("axis", -1), at.get("epsilon", 1e-5)
        stats = any(node.output[1:])

        def run(mem, vals):
            xa = self._dev(vals, x)
            ax = _axis(axis, xa.ndim)
            rows = xa.reshape(-1, math.prod(xa.shape[ax:]))
            gamma, beta = (_broadcast_to(self._get(vals, p), xa.shape[ax:]).reshape(-1)
                           if p else None for p in (scale, bias))
            y = mem.layernorm(rows, gamma, beta, eps, self._out(node.output[0])).reshape(xa.shape)
            if not stats:
                return y
            r = mem.host(rows).astype(np.float64)
            shape = xa.shape[:ax] + (1,) * (xa.ndim - ax)
            return (y,) + tuple(v.astype(np.float32).reshape(shape) for v in (r.mean(1), 1 / np.sqrt(r.var(1) + eps)))
        self._step(name, node, "layernorm, fp32" + ("; Mean and InvStdDev on the host" if stats else ""), run, ONNX,
                   list(node.output))

    def _layernorm(self, node, name, norm):
        """A layer norm written out op by op (_layernorms) as one ROWWISE LAYERNORM, planned at its first
        ReduceMean; its other nodes are placed as fused into it."""
        x, y = norm.x, norm.nodes[-1].output[0]
        gamma, beta = (self._pin(np.ascontiguousarray(a.reshape(-1))) for a in (norm.gamma, norm.beta))

        def run(mem, vals):
            xa = self._dev(vals, x)
            n = xa.shape[-1]
            g, b = (a if a.size == n else _broadcast_to(a, (n,)) for a in (gamma, beta))
            return mem.layernorm(xa.reshape(-1, n), g, b, norm.eps, self._out(y)).reshape(xa.shape)
        self._step(name, node, f"layernorm over the last axis, fp32, epsilon {norm.eps:.9g} (the graph's): "
                               f"{', '.join(n.op_type for n in norm.nodes)} as one ROWWISE LAYERNORM", run, ONNX, [y])

    def _move(self, node, at, name):
        """Transpose and Slice of a value on the device held in ONNX's layout: copies there
        (Memory.move), of whole rows where the last axis stays (a Transpose that keeps it last, a Slice
        of steps 1), else of single elements (a Transpose that moves it: exact, as every copy); a Slice
        of other or unknown steps, and a value on the host, by numpy, no arithmetic."""
        x, fn = node.input[0], _NUMPY[node.op_type]
        steps = node.input[4] if len(node.input) > 4 else ""
        ones = not steps or steps in self._consts and (self._consts[steps] == 1).all()
        if node.op_type == "Slice" and (at.opset < 10 or not ones) or x not in self._on_device or \
                self._layout[x] != ONNX:
            where = _host.OPS[node.op_type].where
            return self._numpy(node, at, name, where, "numpy, no arithmetic" if where == "free" else "numpy")

        def run(mem, vals):
            xv = vals[x]
            index = fn(at, np.arange(math.prod(xv.shape)).reshape(xv.shape),
                       *(self._get(vals, n) if n else None for n in node.input[1:]))
            return mem.move(xv, index)
        perm = at.get("perm")
        rows = node.op_type == "Slice" or perm is not None and perm[-1] == len(perm) - 1
        self._step(name, node, ("row" if rows else "element") + " copies (COPY: a command per stretch of "
                   "rows one stride apart)", run, ONNX)

    _op_Transpose = _op_Slice = _move

    def _op_Gelu(self, node, at, name):
        x = node.input[0]
        self._float32(x)
        if at.get("approximate", "none") != "tanh":
            raise _NoDevice("approximate='none' is GELU's erf form; the device's GELU is the tanh form")
        self._step(name, node, "gelu (tanh form), fp32",
                   lambda mem, vals: mem.gelu(self._dev(vals, x), self._out(node.output[0])), ONNX)

    def _op_Flatten(self, node, at, name):
        x = node.input[0]
        dims = self._dims(x)
        if self._layout[x] != NHWC or at.get("axis", 1) != 1 or dims is None or dims[1] is None:
            return self._numpy(node, at, name, "free", "numpy, no arithmetic")
        self._steps.append((f"{name} (Flatten)", False, [node.output[0]],
                            lambda mem, vals: vals[x].reshape(vals[x].shape[0], -1)))
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

        def run(mem, vals):
            am, zx = _int8(self._get(vals, a), self._get(vals, za))
            per_row = zx.size > 1   # a's zero point and scale per row
            sa_ = self._get(vals, sa)
            zx, sx = (zx.reshape(-1, 1), sa_.reshape(-1, 1)) if per_row else (zx.reshape(()), sa_)
            w = weights(vals)
            return _requant(w.sums(mem.host(_product(mem, am, w.w)), zx),
                            _multiplier(sx, self._get(vals, sb), self._get(vals, sy)), self._get(vals, zy))
        self._step(name, node, "gemm int8, int32 accumulation; requantised on the host", run, ONNX)

    def _op_QLinearConv(self, node, at, name):
        x, sx, zx, w, sw, zw, sy, zy, b = (list(node.input) + [""])[:9]
        nd, groups = self._conv_nd(at, x, w), at.get("group", 1)
        kernel = at.get("kernel_shape")
        weights = self._once(lambda v, z: _IntWeights(_hwio(v, nd, kernel), z, (0, 1, 2), groups), w, zw)

        def run(mem, vals):
            xa, zp = _int8(mem.host(self._window_in(vals, x, nd)), self._get(vals, zx))
            wt = weights(vals)
            win = _Window(at, wt.w.shape[2 - nd:2], nd)
            p = mem.host(mem.conv2d(xa, wt.w, groups=groups, x_zero_point=zp.item(), **win.kwargs(xa.shape[1:3])))
            acc = wt.sums(p, zp) + (self._get(vals, b).astype(np.int64) if b else 0)
            q = _requant(acc, _multiplier(*(self._get(vals, n) for n in (sx, sw, sy))), self._get(vals, zy))
            return self._window_out(q, nd)
        self._step(name, node, "conv2d int8, int32 accumulation; requantised on the host", run,
                   NHWC if nd == 2 else ONNX)

    # ---- running ----------------------------------------------------------------------------------
    def _get(self, vals, name, want=ONNX):
        """The value of name as a numpy array (read back from the device when it is there) in the
        layout want (ONNX, NHWC, or the layout it is held in); a conversion is made once a run,
        however many ops read it, and kept in vals."""
        have = self._layout[name]
        if want == have:
            return self._mem.host(vals[name]) if isinstance(vals[name], Value) else vals[name]
        if (name, want) not in vals:
            a = _onnx_layout(self._get(vals, name, have), have)
            vals[name, want] = np.ascontiguousarray(a.transpose(0, 2, 3, 1) if want == NHWC else a)
        return vals[name, want]

    def _dev(self, vals, name, want=ONNX):
        """The value of name for a device op: on the device when it is there in the layout want, else
        as _get gives it (a numpy array, which the op uploads)."""
        v = vals[name]
        return v if isinstance(v, Value) and self._layout[name] == want else self._get(vals, name, want)

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
        share = self.device_share()
        return "\n".join(lines + ([f"FLOPs on the device: {share:.1%}"] if share is not None else []))

    def device_share(self):
        """The share of the FLOPs of every run so far that the device computed, of those computed on
        the device or the host (free nodes compute nothing), or None before a run. FLOPs per node:
        _onnx_host.flops (2 M N K for a product, one per output element for any other op)."""
        work = {k: f for k, f in self._flops.items() if k[1] != "free"}
        total = sum(work.values())
        return None if not total else sum(f for (_, w), f in work.items() if w == "device") / total

    def _count_flops(self, vals):
        """Adds one run's FLOPs per (op, where), from the shapes of its values in ONNX's order."""
        def shape(n):
            if n not in vals and n in self._norm_part:   # inside a fused layer norm: x's shape, the means 1 wide
                norm, i = self._norm_part[n]
                s = shape(norm.x)
                return s[:-1] + (1,) if i in (0, 3, 4, 5) else s
            if n not in vals and n in self._sigmoid:   # a SiLU's sigmoid(x): x's shape
                n = self._sigmoid[n]
            if n not in vals:   # a product's output whose Relu is fused into it: the Relu's, same shape
                n = next(u.output[0] for u in self._consumers.get(n, ()) if u.output[0] in self._fused)
            a = vals[n]
            return (a.shape[0], a.shape[3], a.shape[1], a.shape[2]) if self._layout.get(n) == NHWC else a.shape
        for node, p in zip(self._nodes, self.placements):
            key = (p.op, p.where)
            self._flops[key] = self._flops.get(key, 0) + _host.flops(node, _attrs(node), shape)

    def _input(self, name, a, sizes):
        """Graph input name's array a, of the dtype and dims the model declares; sizes holds the size
        each named dimension (dim_param) took in this run's earlier inputs."""
        if self._dtype(name) not in (None, a.dtype):
            _fail(f"input {name} is {a.dtype}; the model declares {self._dtype(name)}")
        dims = self._declared[name]
        if dims is not None and (len(dims) != a.ndim or not all(
                d is None or (sizes.setdefault(d, s) == s if isinstance(d, str) else d == s)
                for d, s in zip(dims, a.shape))):
            _fail(f"input {name} has shape {a.shape}; the model declares {dims}" +
                  (f", where {sizes}" if sizes else ""))
        return a

    def run(self, inputs):
        """The graph's outputs (a list of numpy arrays, in the graph's order) for inputs, a dict of
        each graph input's name to its array."""
        missing = [n for n in self.inputs if n not in inputs]
        extra = [n for n in inputs if n not in self.inputs]
        if missing or extra:
            _fail(f"inputs: the model's are {self.inputs}" + (f"; missing {missing}" if missing else "") +
                  (f"; unknown {extra}" if extra else ""))
        vals, sizes = dict(self._consts), {}
        for n in self.inputs:
            vals[n] = self._input(n, np.asarray(inputs[n]), sizes)
        if self.device is None:
            self.device = Device(self.backend)
        self._mem = mem = Memory(self.device, self._pinned, self._keep)
        try:
            for what, host, outs, fn in self._steps:
                with _about(what, host):
                    res = fn(mem, vals)
                vals.update(zip(outs, res if isinstance(res, tuple) else (res,)))
            self._count_flops(vals)
            return [np.require(self._get(vals, o), requirements="C") for o in self.outputs]   # 0-d stays 0-d
        finally:
            mem.free()
            self._mem = None

    def close(self):
        """Gives the weights' device buffers back and closes the device the runner opened (not one
        it was given)."""
        pinned, self._pinned = self._pinned, {}
        try:
            for _, bufs in pinned.values():
                for addr in bufs.values():
                    self.device.raw.free(addr)
        except Error:   # a closed device: its memory went with it
            pass
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
        inputs[n] = path
    try:   # a refused model or input, or a file that cannot be read: one line, exit status 2
        inputs = {n: np.load(path) for n, path in inputs.items()}
        with Device(args.backend, port=args.port) as dev, Runner(args.model, device=dev) as runner:
            print(runner.report())
            outputs = runner.run(inputs)
            total = dev.stats()["total"]
    except (Error, OSError, ValueError) as e:
        print("tessel.onnx: " + " ".join(str(e).split()), file=sys.stderr)
        return 2
    for n, y in zip(runner.outputs, outputs):
        saved = ""
        if args.out_dir:
            os.makedirs(args.out_dir, exist_ok=True)
            saved = os.path.join(args.out_dir, re.sub(r"[^\w.-]", "_", n) + ".npy")
            np.save(saved, y)
        print(f"output {n}: {y.dtype} {y.shape}" + (f" -> {saved}" if saved else ""))
    print(f"device: {total['commands']} commands in {total['submissions']} submission" +
          ("" if total["submissions"] == 1 else "s") +
          (f", {total['cycles']} cycles" if args.backend != "model" else ""))   # the model backend is not timed
    return 0


if __name__ == "__main__":
    sys.exit(main())
