"""The host's ONNX ops: numpy, node by node, for what the device has no path for (docs/python.md,
"ONNX models"). tessel.onnx places a node here as ONNX Runtime places one on its CPU provider
beside an accelerator's, and says so in its report:
  host      by design: tensor bookkeeping (shapes, indexing, copies, casts, comparisons and logic)
            that no accelerator call would speed up;
  free      no arithmetic (reshapes, transposes, views);
  fallback  arithmetic the device could do in principle but has no path for.

Each op is one function fn(at, *inputs) -> an array or a tuple of arrays, written from the ONNX
operator specification (https://onnx.ai/onnx/operators/), on ONNX-layout numpy arrays; an absent
optional input is None. at is the node's attributes (Attrs: a dict, with the model's opset and
the node's output count). Float results are computed in float64 where a float32 evaluation would
lose accuracy (sums, transcendental functions) and rounded once to the input's dtype.

OPS is the registry: op type -> Op(fn, where). REFUSED names the ops (and refusal() the dtypes)
the host does not run, each with its reason; tessel.onnx refuses those at planning.
"""
import math
from collections import namedtuple

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from . import Error, _tessel

__all__ = ["Attrs", "Op", "OPS", "REFUSED", "refusal", "why_not", "elem_types", "flops"]

Op = namedtuple("Op", "fn where")
OPS = {}
F64 = np.float64


class Attrs(dict):
    """A node's attributes, with the model's opset and the number of outputs the node names."""

    def __init__(self, attrs, opset, n_out=1):
        super().__init__(attrs)
        self.opset, self.n_out = opset, n_out


def _register(*names, where="fallback"):
    def add(fn):
        def run(at, *inputs):   # numpy scalars as 0-d arrays
            y = fn(at, *inputs)
            return tuple(np.asarray(v) for v in y) if isinstance(y, tuple) else np.asarray(y)
        for n in names:
            OPS[n] = Op(run, where)
        return fn
    return add


def _host(*names):
    return _register(*names, where="host")


def _free(*names):
    return _register(*names, where="free")


def _fail(message):
    raise Error(_tessel.EINVAL, message)


def _float(fn):
    """fn on float64 values, rounded once to the input's dtype (ints are computed as they are)."""
    def run(x, *args):
        if x.dtype.kind == "f":
            return np.asarray(fn(x.astype(F64), *args)).astype(x.dtype)
        return np.asarray(fn(x, *args)).astype(x.dtype)
    return run


def _ints(v):
    """An attribute or input of integers (a list, a 1-D or 0-d array) as a tuple of Python ints."""
    return tuple(int(i) for i in np.asarray(v).reshape(-1))


def _axis(at, x, name="axis", default=0):
    a = int(at.get(name, default))
    return a + x.ndim if a < 0 else a


# ---- elementwise math ----------------------------------------------------------------------------------
_erf = np.frompyfunc(math.erf, 1, 1)

_UNARY = {
    "Abs": np.abs, "Neg": np.negative, "Floor": np.floor, "Ceil": np.ceil, "Round": np.rint, "Sign": np.sign,
    "Reciprocal": np.reciprocal, "Sqrt": np.sqrt, "Exp": np.exp, "Log": np.log, "Tanh": np.tanh,
    "Sin": np.sin, "Cos": np.cos, "Tan": np.tan, "Asin": np.arcsin, "Acos": np.arccos, "Atan": np.arctan,
    "Sinh": np.sinh, "Cosh": np.cosh, "Asinh": np.arcsinh, "Acosh": np.arccosh, "Atanh": np.arctanh,
    "Erf": lambda x: _erf(x).astype(F64),
    "Sigmoid": lambda x: 0.5 * (1 + np.tanh(0.5 * x)),
    "Softplus": lambda x: np.logaddexp(0, x),
    "Softsign": lambda x: x / (1 + np.abs(x)),
    "Relu": lambda x: np.maximum(x, 0),
    "HardSwish": lambda x: x * np.clip(x / 6 + 0.5, 0, 1),
    "Mish": lambda x: x * np.tanh(np.logaddexp(0, x)),
}


def _unary(op):
    fn = _float(_UNARY[op])
    return lambda at, x: fn(x)


for _op in _UNARY:
    _register(_op)(_unary(_op))


@_register("LeakyRelu")
def _leaky_relu(at, x):
    return _float(lambda v: np.where(v < 0, at.get("alpha", 0.01) * v, v))(x)


@_register("Elu")
def _elu(at, x):
    return _float(lambda v: np.where(v < 0, at.get("alpha", 1.0) * np.expm1(v), v))(x)


@_register("Celu")
def _celu(at, x):
    a = at.get("alpha", 1.0)
    return _float(lambda v: np.maximum(v, 0) + np.minimum(0, a * np.expm1(v / a)))(x)


@_register("Selu")
def _selu(at, x):
    a, g = at.get("alpha", 1.67326319217681884765625), at.get("gamma", 1.05070102214813232421875)
    return _float(lambda v: g * np.where(v <= 0, a * np.expm1(v), v))(x)


@_register("HardSigmoid")
def _hard_sigmoid(at, x):
    return _float(lambda v: np.clip(at.get("alpha", 0.2) * v + at.get("beta", 0.5), 0, 1))(x)


@_register("ThresholdedRelu")
def _thresholded_relu(at, x):
    return _float(lambda v: np.where(v > at.get("alpha", 1.0), v, 0))(x)


@_register("Shrink")
def _shrink(at, x):
    lambd, bias = at.get("lambd", 0.5), at.get("bias", 0.0)
    return _float(lambda v: np.where(v < -lambd, v + bias, np.where(v > lambd, v - bias, 0)))(x)


@_register("PRelu")
def _prelu(at, x, slope):
    return _float(lambda v: np.where(v < 0, slope * v, v))(x)


@_register("Gelu")
def _gelu(at, x):
    if at.get("approximate", "none") == "tanh":
        return _float(lambda v: 0.5 * v * (1 + np.tanh(np.sqrt(2 / np.pi) * (v + 0.044715 * v**3))))(x)
    return _float(lambda v: 0.5 * v * (1 + _erf(v / np.sqrt(2)).astype(F64)))(x)


@_register("Clip")
def _clip(at, x, lo=None, hi=None):
    if at.opset < 11:
        lo, hi = at.get("min", -np.inf), at.get("max", np.inf)
    y = x
    if lo is not None:
        y = np.maximum(y, np.asarray(lo, x.dtype))
    if hi is not None:
        y = np.minimum(y, np.asarray(hi, x.dtype))
    return np.array(y, x.dtype)


@_register("IsNaN")
def _is_nan(at, x):
    return np.isnan(x)


@_register("IsInf")
def _is_inf(at, x):
    pos, neg = at.get("detect_positive", 1), at.get("detect_negative", 1)
    return (np.isposinf(x) & bool(pos)) | (np.isneginf(x) & bool(neg))


# ---- binary and variadic arithmetic ----------------------------------------------------------------------
def _arith(fn):
    """A binary op in the dtype of its first input: floats through float64, ints exactly."""
    def run(at, a, b):
        if a.dtype.kind == "f":
            return np.asarray(fn(a.astype(F64), b.astype(F64))).astype(a.dtype)
        return np.asarray(fn(a, b)).astype(a.dtype)
    return run


def _int_div(a, b):
    """ONNX's integer division: the quotient truncated toward zero."""
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


_register("Add")(_arith(np.add))
_register("Sub")(_arith(np.subtract))
_register("Mul")(_arith(np.multiply))


@_register("Div")
def _div(at, a, b):
    if a.dtype.kind == "f":
        return (a.astype(F64) / b).astype(a.dtype)
    return _int_div(a.astype(np.int64), b.astype(np.int64)).astype(a.dtype)


@_register("Pow")
def _pow(at, a, b):
    return np.power(a.astype(F64), b.astype(F64)).astype(a.dtype)


@_register("Mod")
def _mod(at, a, b):
    if at.get("fmod", 0) or a.dtype.kind == "f":
        return np.fmod(a, b).astype(a.dtype)
    return np.mod(a, b).astype(a.dtype)   # the sign of the divisor, as Python's


@_host("BitShift")
def _bit_shift(at, a, b):
    return (np.left_shift if at["direction"] == "LEFT" else np.right_shift)(a, b).astype(a.dtype)


def _variadic(fn, mean=False):
    def run(at, *xs):
        dt = xs[0].dtype
        acc = xs[0].astype(F64) if dt.kind == "f" else xs[0]
        for x in xs[1:]:
            acc = fn(acc, x)
        return (acc / len(xs) if mean else acc).astype(dt)
    return run


_register("Sum")(_variadic(np.add))
_register("Mean")(_variadic(np.add, mean=True))
_register("Max")(_variadic(np.maximum))
_register("Min")(_variadic(np.minimum))

# comparisons and logic: bool results, the host's by design
for _op, _fn in {"Equal": np.equal, "Less": np.less, "LessOrEqual": np.less_equal, "Greater": np.greater,
                 "GreaterOrEqual": np.greater_equal, "And": np.logical_and, "Or": np.logical_or,
                 "Xor": np.logical_xor, "BitwiseAnd": np.bitwise_and, "BitwiseOr": np.bitwise_or,
                 "BitwiseXor": np.bitwise_xor}.items():
    _host(_op)((lambda f: lambda at, a, b: np.asarray(f(a, b)))(_fn))


@_host("Not")
def _not(at, x):
    return np.logical_not(x)


@_host("BitwiseNot")
def _bitwise_not(at, x):
    return np.invert(x)


@_host("Where")
def _where(at, c, a, b):
    return np.where(c, a, b)


# ---- reductions ----------------------------------------------------------------------------------------
def _reduce_axes(at, x, axes):
    """The axes a reduction runs over (None: it is the identity, noop_with_empty_axes)."""
    if axes is None:
        axes = at.get("axes")
    axes = () if axes is None else _ints(axes)
    if not axes:
        return None if at.get("noop_with_empty_axes", 0) else tuple(range(x.ndim))
    return tuple(a % max(x.ndim, 1) for a in axes)


def _reduction(fn, exact_ints=True):
    """fn(values, axes, keepdims) over the reduced axes; floats through float64."""
    def run(at, x, axes=None):
        ax = _reduce_axes(at, x, axes)
        if ax is None:
            return x
        v = x.astype(F64) if x.dtype.kind == "f" or not exact_ints else x.astype(np.int64) \
            if x.dtype.kind in "iub" else x
        return np.asarray(fn(v, ax, bool(at.get("keepdims", 1)))).astype(x.dtype)
    return run


def _sum(v, ax, k):
    return np.sum(v, axis=ax, keepdims=k)


def _lse(v, ax, k):
    m = np.max(v, axis=ax, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    s = np.log(np.sum(np.exp(v - m), axis=ax, keepdims=True)) + m
    return s if k else np.squeeze(s, axis=ax)


_REDUCTIONS = {
    "ReduceSum": _sum,
    "ReduceMean": lambda v, ax, k: np.mean(v, axis=ax, keepdims=k),
    "ReduceMax": lambda v, ax, k: np.max(v, axis=ax, keepdims=k),
    "ReduceMin": lambda v, ax, k: np.min(v, axis=ax, keepdims=k),
    "ReduceProd": lambda v, ax, k: np.prod(v, axis=ax, keepdims=k),
    "ReduceL1": lambda v, ax, k: np.sum(np.abs(v), axis=ax, keepdims=k),
    "ReduceL2": lambda v, ax, k: np.sqrt(np.sum(v.astype(F64) ** 2, axis=ax, keepdims=k)),
    "ReduceSumSquare": lambda v, ax, k: np.sum(v * v, axis=ax, keepdims=k),
    "ReduceLogSum": lambda v, ax, k: np.log(np.sum(v, axis=ax, keepdims=k)),
    "ReduceLogSumExp": _lse,
}
for _op, _fn in _REDUCTIONS.items():
    _register(_op)(_reduction(_fn))


def _arg(fn):
    def run(at, x):
        axis, last = _axis(at, x), at.get("select_last_index", 0)
        v = np.flip(x, axis) if last else x
        i = fn(v, axis=axis)
        if last:
            i = x.shape[axis] - 1 - i
        i = i.astype(np.int64)
        return np.expand_dims(i, axis) if at.get("keepdims", 1) else i
    return run


_host("ArgMax")(_arg(np.argmax))
_host("ArgMin")(_arg(np.argmin))


@_host("CumSum")
def _cumsum(at, x, axis):
    ax = int(np.asarray(axis).reshape(())) % x.ndim
    v = np.flip(x, ax) if at.get("reverse", 0) else x
    acc = F64 if x.dtype.kind == "f" else x.dtype
    s = np.cumsum(v, axis=ax, dtype=acc)
    if at.get("exclusive", 0):
        s = np.concatenate([np.zeros_like(np.take(s, [0], axis=ax)), np.delete(s, -1, axis=ax)], axis=ax)
    return (np.flip(s, ax) if at.get("reverse", 0) else s).astype(x.dtype)


@_host("TopK")
def _topk(at, x, k=None):
    k = int(at["k"]) if k is None else int(np.asarray(k).reshape(-1)[0])
    axis = _axis(at, x, default=-1)
    key = x.astype(F64) if x.dtype.kind in "uf" else x.astype(np.int64)
    order = np.argsort(-key if at.get("largest", 1) else key, axis=axis, kind="stable")
    idx = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(x, idx, axis=axis), idx.astype(np.int64)


# ---- shapes, copies and indexing (the host's by design) ----------------------------------------------------
@_host("Shape")
def _shape(at, x):
    n = x.ndim
    start, end = at.get("start", 0), at.get("end", n)
    start, end = (min(max(v + n if v < 0 else v, 0), n) for v in (start, end))
    return np.array(x.shape[start:end], np.int64)


@_host("Size")
def _size(at, x):
    return np.array(x.size, np.int64)


@_free("Identity")
def _identity(at, x):
    return x


@_free("Reshape")
def _reshape(at, x, shape=None):
    shape = _ints(at["shape"] if shape is None else shape)
    if not at.get("allowzero", 0):
        shape = tuple(x.shape[i] if d == 0 else d for i, d in enumerate(shape))
    return x.reshape(shape)


@_free("Flatten")
def _flatten(at, x):
    axis = _axis(at, x, default=1)
    return x.reshape(math.prod(x.shape[:axis]), math.prod(x.shape[axis:]))


@_free("Transpose")
def _transpose(at, x):
    return x.transpose(at.get("perm"))


@_free("Squeeze")
def _squeeze(at, x, axes=None):
    axes = at.get("axes") if axes is None else axes
    return np.squeeze(x, axis=None if axes is None else _ints(axes))


@_free("Unsqueeze")
def _unsqueeze(at, x, axes=None):
    return np.expand_dims(x, _ints(at["axes"] if axes is None else axes))


@_host("Cast")
def _cast(at, x):
    from onnx import mapping
    return x.astype(mapping.TENSOR_TYPE_TO_NP_TYPE[at["to"]])


@_host("CastLike")
def _cast_like(at, x, like):
    return x.astype(like.dtype)


@_host("Concat")
def _concat(at, *xs):
    return np.concatenate(xs, axis=at["axis"])


@_host("Split")
def _split(at, x, split=None):
    axis = _axis(at, x)
    if split is None:
        split = at.get("split")
    if split is None:
        n = at.get("num_outputs", at.n_out)
        size = -(-x.shape[axis] // n)
        split = [min(size, x.shape[axis] - i * size) for i in range(n)]
    return tuple(np.split(x, np.cumsum(_ints(split))[:-1], axis=axis))


def _slice_one(start, end, step, dim):
    """ONNX's clamping of one axis' start and end, as a Python slice."""
    start, end = (v + dim if v < 0 else v for v in (start, end))
    if step > 0:
        start, end = min(max(start, 0), dim), min(max(end, 0), dim)
        return slice(start, end, step)
    start, end = min(max(start, 0), dim - 1), min(max(end, -1), dim - 1)
    return slice(start, None if end < 0 else end, step)


@_host("Slice")
def _slice(at, x, starts=None, ends=None, axes=None, steps=None):
    if at.opset < 10:
        starts, ends, axes = at["starts"], at["ends"], at.get("axes")
    starts, ends = _ints(starts), _ints(ends)
    axes = range(len(starts)) if axes is None else [a % x.ndim for a in _ints(axes)]
    steps = (1,) * len(starts) if steps is None else _ints(steps)
    index = [slice(None)] * x.ndim
    for a, s, e, st in zip(axes, starts, ends, steps):
        index[a] = _slice_one(s, e, st, x.shape[a])
    return x[tuple(index)]


@_host("Expand")
def _expand(at, x, shape):
    return np.array(np.broadcast_to(x, np.broadcast_shapes(x.shape, _ints(shape))))


@_host("Tile")
def _tile(at, x, repeats):
    return np.tile(x, _ints(repeats))


@_host("Gather")
def _gather(at, x, indices):
    return np.take(x, indices.astype(np.int64), axis=_axis(at, x))


def _wrap(indices, dim):
    i = indices.astype(np.int64)
    return np.where(i < 0, i + dim, i)


@_host("GatherElements")
def _gather_elements(at, x, indices):
    axis = _axis(at, x)
    return np.take_along_axis(x, _wrap(indices, x.shape[axis]), axis=axis)


@_host("GatherND")
def _gather_nd(at, x, indices):
    b = at.get("batch_dims", 0)
    k = indices.shape[-1]
    data = x.reshape((-1,) + x.shape[b:])
    ind = indices.reshape((-1,) + indices.shape[b:])
    out = []
    for d, i in zip(data, ind):
        i = _wrap(i, np.array(d.shape[:k]))
        out.append(d[tuple(np.moveaxis(i, -1, 0))])
    return np.stack(out).reshape(indices.shape[:-1] + x.shape[b + k:])


_SCATTER = {"none": None, "add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}


@_host("ScatterElements", "Scatter")
def _scatter_elements(at, x, indices, updates):
    axis = _axis(at, x)
    index = list(np.indices(indices.shape, sparse=True))
    index[axis] = _wrap(indices, x.shape[axis])
    out, fn = x.copy(), _SCATTER[at.get("reduction", "none")]
    if fn is None:
        out[tuple(index)] = updates
    else:
        fn.at(out, tuple(index), updates)
    return out


@_host("ScatterND")
def _scatter_nd(at, x, indices, updates):
    k = indices.shape[-1]
    out, fn = x.copy(), _SCATTER[at.get("reduction", "none")]
    upd = updates.reshape((-1,) + x.shape[k:])
    for i, u in zip(_wrap(indices, np.array(x.shape[:k])).reshape(-1, k), upd):
        i = tuple(i)
        out[i] = u if fn is None else fn(out[i], u)
    return out


@_host("Pad")
def _pad(at, x, pads=None, value=None, axes=None):
    if at.opset < 11:
        pads, value = at["pads"], at.get("value", 0.0)
    pads = _ints(pads)
    axes = range(x.ndim) if axes is None else [a % x.ndim for a in _ints(axes)]
    n = len(axes)
    width = [[0, 0] for _ in range(x.ndim)]
    for j, a in enumerate(axes):
        width[a] = [pads[j], pads[j + n]]
    grow = [[max(b, 0), max(e, 0)] for b, e in width]
    mode = at.get("mode", "constant")
    if mode == "constant":
        v = 0 if value is None else np.asarray(value).reshape(-1)[0]
        y = np.pad(x, grow, mode="constant", constant_values=v)
    else:
        y = np.pad(x, grow, mode={"reflect": "reflect", "edge": "edge", "wrap": "wrap"}[mode])
    crop = tuple(slice(-min(b, 0), y.shape[i] + min(e, 0)) for i, (b, e) in enumerate(width))
    return y[crop]


@_host("DepthToSpace")
def _depth_to_space(at, x):
    b = at["blocksize"]
    n, c, h, w = x.shape
    if at.get("mode", "DCR") == "DCR":
        y = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        y = x.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return y.reshape(n, c // (b * b), h * b, w * b)


@_host("SpaceToDepth")
def _space_to_depth(at, x):
    b = at["blocksize"]
    n, c, h, w = x.shape
    y = x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    return y.reshape(n, c * b * b, h // b, w // b)


@_host("Range")
def _range(at, start, limit, delta):
    s, lim, d = (np.asarray(v).reshape(()) for v in (start, limit, delta))
    n = max(int(np.ceil((lim.astype(F64) - s) / d)), 0)
    return (s + np.arange(n) * d).astype(s.dtype) if s.dtype.kind == "f" else \
        (s.astype(np.int64) + np.arange(n, dtype=np.int64) * d).astype(s.dtype)


@_host("ConstantOfShape")
def _constant_of_shape(at, shape):
    from onnx import numpy_helper
    v = numpy_helper.to_array(at["value"]).reshape(-1) if "value" in at else np.zeros(1, np.float32)
    return np.full(_ints(shape), v[0], v.dtype)


@_host("EyeLike")
def _eye_like(at, x):
    from onnx import mapping
    dt = mapping.TENSOR_TYPE_TO_NP_TYPE[at["dtype"]] if "dtype" in at else x.dtype
    return np.eye(x.shape[0], x.shape[1], at.get("k", 0), dtype=dt)


@_host("Trilu")
def _trilu(at, x, k=None):
    k = 0 if k is None else int(np.asarray(k).reshape(()))
    return np.triu(x, k) if at.get("upper", 1) else np.tril(x, k)


@_host("OneHot")
def _one_hot(at, indices, depth, values):
    d = int(np.asarray(depth).reshape(-1)[0])
    i = indices.astype(np.int64)
    i = np.where(i < 0, i + d, i)
    axis = at.get("axis", -1)
    axis = axis + indices.ndim + 1 if axis < 0 else axis
    hot = np.expand_dims(i, axis) == np.arange(d).reshape([-1 if a == axis else 1 for a in range(indices.ndim + 1)])
    return np.where(hot, values[1], values[0]).astype(values.dtype)


@_host("Compress")
def _compress(at, x, condition):
    if "axis" not in at:
        return np.compress(condition, x.reshape(-1))
    return np.compress(condition, x, axis=_axis(at, x))


@_host("NonZero")
def _non_zero(at, x):
    return np.array(np.nonzero(x), np.int64).reshape(x.ndim, -1)


@_host("ReverseSequence")
def _reverse_sequence(at, x, lens):
    b, t = at.get("batch_axis", 1), at.get("time_axis", 0)
    y = x.copy()
    for i, n in enumerate(_ints(lens)):
        src = [slice(None)] * x.ndim
        src[b], src[t] = i, slice(n - 1, None, -1) if n > 0 else slice(0, 0)
        dst = list(src)
        dst[t] = slice(0, n)
        y[tuple(dst)] = x[tuple(src)]
    return y


@_host("Unique")
def _unique(at, x):
    axis = at.get("axis")
    y, first, inverse, counts = np.unique(x if axis is not None else x.reshape(-1), return_index=True,
                                          return_inverse=True, return_counts=True, axis=axis)
    if not at.get("sorted", 1):   # in the order of first occurrence
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        y, first, counts, inverse = np.take(y, order, axis=axis or 0), first[order], counts[order], rank[inverse]
    return y, first.astype(np.int64), inverse.reshape(-1).astype(np.int64), counts.astype(np.int64)


@_host("Dropout")
def _dropout(at, x, ratio=None, training=None):
    if at.opset < 12:
        ratio = None if at.get("is_test", 1) or at.opset >= 7 else at.get("ratio", 0.5)
    train = training is not None and bool(np.asarray(training).reshape(-1)[0])
    if train and ratio is not None and float(np.asarray(ratio).reshape(-1)[0]) != 0:
        _fail("Dropout in training mode with a nonzero ratio draws random numbers: not supported")
    if ratio is None and train:
        _fail("Dropout in training mode (default ratio 0.5) draws random numbers: not supported")
    return x.copy(), np.ones(x.shape, bool)


# ---- normalisation and softmax ---------------------------------------------------------------------------
def _rows(at, x, fn):
    """fn along the axis (opset 13 on), or over the 2-D coercion of x at axis (before)."""
    if at.opset >= 13:
        axis = _axis(at, x, default=-1)
        return np.moveaxis(fn(np.moveaxis(x, axis, -1)), -1, axis)
    axis = _axis(at, x, default=1)
    return fn(x.reshape(math.prod(x.shape[:axis]), -1)).reshape(x.shape)


def _log_softmax_rows(v):
    m = np.max(v, axis=-1, keepdims=True)
    return v - m - np.log(np.sum(np.exp(v - m), axis=-1, keepdims=True))


@_register("Softmax")
def _softmax(at, x):
    return _rows(at, x, _float(lambda v: np.exp(_log_softmax_rows(v))))


@_register("LogSoftmax")
def _log_softmax(at, x):
    return _rows(at, x, _float(_log_softmax_rows))


@_host("Hardmax")
def _hardmax(at, x):
    def one_hot(v):
        return (np.arange(v.shape[-1]) == np.argmax(v, axis=-1)[..., None]).astype(v.dtype)
    return _rows(at, x, one_hot)


def _channel_shape(x):
    return (1, -1) + (1,) * (x.ndim - 2)


@_register("BatchNormalization")
def _batch_norm(at, x, scale, bias, mean, var):
    eps, v = at.get("epsilon", 1e-5), x.astype(F64)
    cs = _channel_shape(x)
    if not at.get("training_mode", 0):
        y = (v - mean.reshape(cs)) / np.sqrt(var.reshape(cs).astype(F64) + eps) * scale.reshape(cs) + bias.reshape(cs)
        return y.astype(x.dtype)
    axes = (0,) + tuple(range(2, x.ndim))
    bm, bv = v.mean(axis=axes), v.var(axis=axes)
    y = (v - bm.reshape(cs)) / np.sqrt(bv.reshape(cs) + eps) * scale.reshape(cs) + bias.reshape(cs)
    mom = at.get("momentum", 0.9)
    return (y.astype(x.dtype), (mean * mom + bm * (1 - mom)).astype(mean.dtype),
            (var * mom + bv * (1 - mom)).astype(var.dtype))


@_register("InstanceNormalization")
def _instance_norm(at, x, scale, bias):
    v, axes, cs = x.astype(F64), tuple(range(2, x.ndim)), _channel_shape(x)
    m, var = v.mean(axis=axes, keepdims=True), v.var(axis=axes, keepdims=True)
    y = (v - m) / np.sqrt(var + at.get("epsilon", 1e-5)) * scale.reshape(cs) + bias.reshape(cs)
    return y.astype(x.dtype)


@_register("LayerNormalization")
def _layer_norm(at, x, scale, bias=None):
    axis = _axis(at, x, default=-1)
    v = x.astype(F64)
    axes = tuple(range(axis, x.ndim))
    m = v.mean(axis=axes, keepdims=True)
    inv = 1 / np.sqrt(v.var(axis=axes, keepdims=True) + at.get("epsilon", 1e-5))
    y = (v - m) * inv * scale + (0 if bias is None else bias)
    stash = np.float32 if at.get("stash_type", 1) == 1 else x.dtype
    return y.astype(x.dtype), m.astype(stash), inv.astype(stash)


@_register("MeanVarianceNormalization")
def _mvn(at, x):
    axes = _ints(at.get("axes", (0, 2, 3)))
    v = x.astype(F64)
    m = v.mean(axis=axes, keepdims=True)
    return ((v - m) / (np.sqrt(((v - m) ** 2).mean(axis=axes, keepdims=True)) + 1e-9)).astype(x.dtype)


@_register("LRN")
def _lrn(at, x):
    size, v = at["size"], x.astype(F64)
    sq = np.pad(v * v, [(0, 0), ((size - 1) // 2, size - 1 - (size - 1) // 2)] + [(0, 0)] * (x.ndim - 2))
    s = sum(sq[:, i:i + x.shape[1]] for i in range(size))
    d = (at.get("bias", 1.0) + at.get("alpha", 1e-4) / size * s) ** at.get("beta", 0.75)
    return (v / d).astype(x.dtype)


# ---- losses ----------------------------------------------------------------------------------------------
def _nll(at, logp, target, weight):
    """ONNX's NegativeLogLikelihoodLoss of log probabilities logp (N, C, d...), in float64."""
    ignore = at.get("ignore_index")
    t = target.astype(np.int64)
    keep = np.ones(t.shape, bool) if ignore is None else t != ignore
    safe = np.where(keep, t, 0)
    picked = np.take_along_axis(logp, safe[:, None], axis=1)[:, 0]
    w = (np.ones(t.shape) if weight is None else weight.astype(F64)[safe]) * keep
    loss = -picked * w
    reduction = at.get("reduction", "mean")
    if reduction == "none":
        return loss
    if reduction == "sum":
        return np.array(loss.sum())
    return np.array(loss.sum() / w.sum())


@_register("NegativeLogLikelihoodLoss")
def _nll_loss(at, x, target, weight=None):
    return _nll(at, x.astype(F64), target, weight).astype(x.dtype)


@_register("SoftmaxCrossEntropyLoss")
def _softmax_cross_entropy(at, x, labels, weight=None):
    logp = np.moveaxis(_log_softmax_rows(np.moveaxis(x.astype(F64), 1, -1)), -1, 1)
    loss = _nll(at, logp, labels, weight).astype(x.dtype)
    return (loss, logp.astype(x.dtype)) if at.n_out > 1 else loss


# ---- products and windows --------------------------------------------------------------------------------
@_register("MatMul")
def _matmul(at, a, b):
    if a.dtype.kind == "f":
        return np.matmul(a.astype(F64), b.astype(F64)).astype(a.dtype)
    return np.matmul(a.astype(np.int64), b.astype(np.int64)).astype(a.dtype)


@_register("Gemm")
def _gemm(at, a, b, c=None):
    a = a.T if at.get("transA", 0) else a
    b = b.T if at.get("transB", 0) else b
    y = at.get("alpha", 1.0) * np.matmul(a.astype(F64), b.astype(F64))
    if c is not None:
        y = y + at.get("beta", 1.0) * c.astype(F64)
    return y.astype(a.dtype)


@_register("Einsum")
def _einsum(at, *xs):
    dt = np.result_type(*xs)
    work = [x.astype(F64) if dt.kind == "f" else x for x in xs]
    return np.asarray(np.einsum(at["equation"].replace(" ", ""), *work)).astype(dt)


@_register("MatMulInteger")
def _matmul_integer(at, a, b, za=None, zb=None):
    av = a.astype(np.int64) - (0 if za is None else za.astype(np.int64).reshape(-1, 1) if za.size > 1 else za)
    bv = b.astype(np.int64) - (0 if zb is None else zb.astype(np.int64))
    return np.matmul(av, bv).astype(np.int32)


@_register("Det")
def _det(at, x):
    return np.linalg.det(x.astype(F64)).astype(x.dtype)


def _window_pads(at, spatial, kernel, strides, dilations, ceil=False):
    """(pads before, pads after, extra pads after for ceil_mode) of a window op, per spatial axis."""
    nd = len(spatial)
    auto = at.get("auto_pad", "NOTSET")
    pads = list(at.get("pads") or [0] * 2 * nd)
    before, after, extra = [], [], []
    for i, size in enumerate(spatial):
        span = (kernel[i] - 1) * dilations[i] + 1
        b, e = pads[i], pads[i + nd]
        if auto in ("SAME_UPPER", "SAME_LOWER"):
            total = max((-(-size // strides[i]) - 1) * strides[i] + span - size, 0)
            b = total // 2 if auto == "SAME_UPPER" else total - total // 2
            e = total - b
        elif auto == "VALID":
            b = e = 0
        room = size + b + e - span
        x = 0
        if ceil and room % strides[i]:
            out = -(-room // strides[i]) + 1
            if (out - 1) * strides[i] >= size + b:   # a window may not start in the padding after
                out -= 1
            x = max((out - 1) * strides[i] + span - (size + b + e), 0)
        before.append(b), after.append(e), extra.append(x)
    return before, after, extra


def _windows(x, kernel, strides, dilations, before, after, fill):
    """x (N, C, spatial...) padded with fill: a view (N, C, out..., kernel...) of its windows."""
    nd = len(kernel)
    xp = np.pad(x, [(0, 0), (0, 0)] + list(zip(before, after)), constant_values=fill)
    spans = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
    w = sliding_window_view(xp, spans, axis=tuple(range(2, 2 + nd)))
    return w[(slice(None),) * 2 + tuple(slice(None, None, s) for s in strides) +
             tuple(slice(None, None, d) for d in dilations)]


def _geometry(at, x, kernel):
    nd = len(kernel)
    return (list(at.get("strides") or [1] * nd), list(at.get("dilations") or [1] * nd))


def _conv(at, x, w, zero=0):
    """The N-D convolution's sums of x by w (groups) in float64 or int64, before any bias."""
    kernel = w.shape[2:]
    strides, dil = _geometry(at, x, kernel)
    before, after, _ = _window_pads(at, x.shape[2:], kernel, strides, dil)
    win = _windows(x, kernel, strides, dil, before, after, zero)
    g, nd = at.get("group", 1), len(kernel)
    cg, mg = x.shape[1] // g, w.shape[0] // g
    outs = []
    for i in range(g):
        part = win[:, i * cg:(i + 1) * cg]
        outs.append(np.tensordot(part, w[i * mg:(i + 1) * mg], axes=([1] + list(range(2 + nd, 2 + 2 * nd)),
                                                                      list(range(1, 2 + nd - 1 + 1)))))
    return np.moveaxis(np.concatenate(outs, axis=-1), -1, 1)


@_register("Conv")
def _conv_op(at, x, w, b=None):
    y = _conv(at, x.astype(F64), w.astype(F64))
    if b is not None:
        y = y + b.reshape(_channel_shape(y))
    return y.astype(x.dtype)


@_register("ConvInteger")
def _conv_integer(at, x, w, zx=None, zw=None):
    xv = x.astype(np.int64) - (0 if zx is None else int(np.asarray(zx).reshape(-1)[0]))
    wv = w.astype(np.int64) - (0 if zw is None else np.asarray(zw, np.int64).reshape((-1,) + (1,) * (w.ndim - 1)))
    return _conv(at, xv, wv).astype(np.int32)


@_register("ConvTranspose")
def _conv_transpose(at, x, w, b=None):
    n, c = x.shape[:2]
    spatial, kernel, g = x.shape[2:], w.shape[2:], at.get("group", 1)
    nd = len(kernel)
    strides, dil = _geometry(at, x, kernel)
    outpad = list(at.get("output_padding") or [0] * nd)
    full = [s * (i - 1) + (k - 1) * d + 1 + p for s, i, k, d, p in zip(strides, spatial, kernel, dil, outpad)]
    pads = list(at.get("pads") or [0] * 2 * nd)
    shape, auto = at.get("output_shape"), at.get("auto_pad", "NOTSET")
    if shape is None and auto in ("SAME_UPPER", "SAME_LOWER"):
        shape = [i * s for i, s in zip(spatial, strides)]
    if shape is not None:
        shape = list(shape)[-nd:]
        for i in range(nd):
            total = full[i] - shape[i]
            half = total // 2
            pads[i], pads[i + nd] = (half, total - half) if auto == "SAME_UPPER" else (total - half, half)
            if total < 0:   # an output_shape beyond the full output: zeros after it, as output_padding
                pads[i], pads[i + nd] = 0, total
    mg = w.shape[1]
    y = np.zeros((n, mg * g) + tuple(full))
    xv, wv = x.astype(F64), w.astype(F64)
    cg = c // g
    for tap in np.ndindex(*kernel):
        dst = tuple(slice(t * d, t * d + s * (i - 1) + 1, s) for t, d, s, i in zip(tap, dil, strides, spatial))
        for i in range(g):
            xs, ws = xv[:, i * cg:(i + 1) * cg], wv[(slice(i * cg, (i + 1) * cg), slice(None)) + tap]
            y[(slice(None), slice(i * mg, (i + 1) * mg)) + dst] += np.moveaxis(np.tensordot(xs, ws, axes=([1], [0])),
                                                                                -1, 1)
    y = np.pad(y, [(0, 0), (0, 0)] + [(0, max(-pads[i + nd], 0)) for i in range(nd)])
    y = y[(slice(None), slice(None)) + tuple(slice(pads[i], full[i] - min(pads[i + nd], 0) - max(pads[i + nd], 0))
                                             for i in range(nd))]
    if b is not None:
        y = y + b.reshape(_channel_shape(y))
    return y.astype(x.dtype)


def _pool_setup(at, x):
    kernel = list(at["kernel_shape"])
    strides, dil = _geometry(at, x, kernel)
    before, after, extra = _window_pads(at, x.shape[2:], kernel, strides, dil, at.get("ceil_mode", 0))
    return kernel, strides, dil, before, after, extra


@_register("MaxPool")
def _max_pool(at, x):
    kernel, strides, dil, before, after, extra = _pool_setup(at, x)
    low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    ends = [a + e for a, e in zip(after, extra)]
    win = _windows(x, kernel, strides, dil, before, ends, low)
    nd = len(kernel)
    flat = win.reshape(win.shape[:2 + nd] + (-1,))
    y = flat.max(axis=-1)
    if at.n_out < 2:
        return y
    j = np.unravel_index(flat.argmax(axis=-1), kernel)   # the winning tap, per axis
    spatial = x.shape[2:]
    coords = [np.arange(o).reshape([-1 if a == i else 1 for a in range(nd)]) * strides[i] - before[i] + j[i] * dil[i]
              for i, o in enumerate(y.shape[2:])]
    order = range(nd) if not at.get("storage_order", 0) else reversed(range(nd))
    index = np.zeros(y.shape, np.int64)
    for i in order:
        index = index * spatial[i] + coords[i]
    nc = np.arange(x.shape[0] * x.shape[1]).reshape(x.shape[:2] + (1,) * nd)
    return y, index + nc * math.prod(spatial)


@_register("AveragePool")
def _average_pool(at, x):
    kernel, strides, dil, before, after, extra = _pool_setup(at, x)
    ends = [a + e for a, e in zip(after, extra)]
    nd = len(kernel)
    axes = tuple(range(-nd, 0))
    s = _windows(x.astype(F64), kernel, strides, dil, before, ends, 0).sum(axis=axes)
    inside = np.pad(np.ones(x.shape[2:]), list(zip(before, after)),
                    constant_values=1 if at.get("count_include_pad", 0) else 0)[None, None]
    n = _windows(inside, kernel, strides, dil, [0] * nd, extra, 0).sum(axis=axes)
    return (s / n).astype(x.dtype)


@_register("LpPool")
def _lp_pool(at, x):
    kernel, strides, dil, before, after, extra = _pool_setup(at, x)
    p = at.get("p", 2)
    win = _windows(np.abs(x.astype(F64)) ** p, kernel, strides, dil, before, after, 0)
    return (win.sum(axis=tuple(range(-len(kernel), 0))) ** (1 / p)).astype(x.dtype)


@_register("GlobalAveragePool")
def _global_average_pool(at, x):
    return x.astype(F64).mean(axis=tuple(range(2, x.ndim)), keepdims=True).astype(x.dtype)


@_register("GlobalMaxPool")
def _global_max_pool(at, x):
    return x.max(axis=tuple(range(2, x.ndim)), keepdims=True)


@_host("MaxUnpool")
def _max_unpool(at, x, indices, output_shape=None):
    kernel = list(at["kernel_shape"])
    nd = len(kernel)
    strides = list(at.get("strides") or [1] * nd)
    pads = list(at.get("pads") or [0] * 2 * nd)
    shape = x.shape[:2] + tuple((i - 1) * s + k - pads[j] - pads[j + nd]
                                for j, (i, s, k) in enumerate(zip(x.shape[2:], strides, kernel)))
    y = np.zeros(math.prod(shape), x.dtype)
    y[indices.reshape(-1)] = x.reshape(-1)
    y = y.reshape(shape)
    if output_shape is not None:   # the indices are the default shape's; zeros after it
        y = np.pad(y, [(0, max(o - d, 0)) for o, d in zip(_ints(output_shape), shape)])
    return y


# ---- resampling ------------------------------------------------------------------------------------------
def _source(at, mode, o, size, out, scale, roi):
    """The source coordinate of output positions o along one axis (coordinate_transformation_mode).
    align_corners and tf_crop_and_resize divide by the output's length size * scale, unrounded."""
    length = size * scale
    if mode == "half_pixel":
        return (o + 0.5) / scale - 0.5
    if mode == "pytorch_half_pixel":
        return (o + 0.5) / scale - 0.5 if out > 1 else np.zeros_like(o)
    if mode == "align_corners":
        return o * (size - 1) / (length - 1) if out > 1 else np.zeros_like(o)
    if mode == "asymmetric":
        return o / scale
    if mode in ("tf_half_pixel_for_nearest", "tf_half_pixel_for_nn"):   # opset 11's name, then 13's
        return (o + 0.5) / scale
    if mode == "tf_crop_and_resize":
        start, end = roi
        if out > 1:
            return start * (size - 1) + o * (end - start) * (size - 1) / (length - 1)
        return 0.5 * (start + end) * (size - 1) + np.zeros_like(o)
    _fail(f"Resize: coordinate_transformation_mode {mode!r} is not ONNX's")


def _cubic(t, a):
    """The four cubic convolution weights of the taps floor(x) - 1 .. floor(x) + 2 at fraction t."""
    def near(d):   # |d| <= 1
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d):    # 1 < |d| < 2
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
    return np.stack([far(t + 1), near(t), near(1 - t), far(2 - t)], axis=-1)


def _taps(at, mode, x, size):
    """(source indices, weights) along one axis: (out, taps) each."""
    if mode == "nearest":
        nearest = at.get("nearest_mode", "round_prefer_floor")
        i = {"round_prefer_floor": lambda v: np.ceil(v - 0.5), "round_prefer_ceil": lambda v: np.floor(v + 0.5),
             "floor": np.floor, "ceil": np.ceil}[nearest](x)
        return np.clip(i, 0, size - 1).astype(np.int64)[:, None], np.ones((len(x), 1))
    base = np.floor(x)
    t = x - base
    if mode == "linear":
        idx, w = base[:, None] + np.arange(2), np.stack([1 - t, t], axis=-1)
    else:
        idx, w = base[:, None] + np.arange(-1, 3), _cubic(t, at.get("cubic_coeff_a", -0.75))
        if at.get("exclude_outside", 0):
            w = w * ((idx >= 0) & (idx <= size - 1))
            w = w / w.sum(axis=1, keepdims=True)
    return np.clip(idx, 0, size - 1).astype(np.int64), w


def _resize(at, x, scales, sizes, roi, coords):
    mode = at.get("mode", "nearest")
    if mode not in ("nearest", "linear", "cubic"):
        _fail(f"Resize: mode {mode!r} is not ONNX's")
    y, outside = x.astype(F64), np.zeros((), bool)
    for axis in range(x.ndim):
        size = x.shape[axis]
        if sizes is not None:
            out = int(sizes[axis])
            scale = out / size
        else:
            scale = float(scales[axis])
            out = int(math.floor(size * scale))
        r = (roi[axis], roi[axis + x.ndim]) if roi is not None and len(roi) else (0.0, 1.0)
        src = _source(at, coords, np.arange(out, dtype=F64), size, out, scale, r)
        if coords == "tf_crop_and_resize":
            bad = ((src < 0) | (src > size - 1)).reshape([-1 if a == axis else 1 for a in range(x.ndim)])
            outside = outside | bad
        idx, w = _taps(at, mode, src, size)
        moved = np.moveaxis(y, axis, -1)
        y = np.moveaxis((moved[..., idx] * w).sum(axis=-1), -1, axis)
    if coords == "tf_crop_and_resize":
        y = np.where(outside, at.get("extrapolation_value", 0.0), y)
    return y.astype(x.dtype) if x.dtype.kind == "f" else np.rint(y).astype(x.dtype)


@_register("Resize")
def _resize_op(at, x, roi=None, scales=None, sizes=None):
    if at.opset < 11:   # Resize-10: X, scales; asymmetric coordinates, nearest by floor
        at = Attrs({**at, "nearest_mode": "floor"}, at.opset, at.n_out)
        return _resize(at, x, np.asarray(roi, F64).reshape(-1), None, None, "asymmetric")
    sc = None if scales is None or not scales.size else np.asarray(scales, F64).reshape(-1)
    sz = None if sizes is None or not sizes.size else _ints(sizes)
    rois = None if roi is None else np.asarray(roi, F64).reshape(-1)
    return _resize(at, x, sc, sz, rois, at.get("coordinate_transformation_mode", "half_pixel"))


@_register("Upsample")
def _upsample(at, x, scales=None):
    s = np.asarray(at["scales"] if scales is None else scales, F64).reshape(-1)
    at = Attrs({**at, "nearest_mode": "floor"}, at.opset, at.n_out)
    return _resize(at, x, s, None, None, "asymmetric")


# ---- quantisation -----------------------------------------------------------------------------------------
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


@_host("QuantizeLinear")
def _quantize(at, x, scale, zero_point=None):
    zp = np.zeros((), np.uint8) if zero_point is None else zero_point
    axis = _axis(at, x, default=1) if x.ndim else 0
    q = np.rint(x.astype(np.float32) / _per_axis(scale, x.ndim, axis)) + _per_axis(zp, x.ndim, axis)
    return _saturate(q, zp.dtype)


@_host("DequantizeLinear")
def _dequantize(at, x, scale, zero_point=None):
    axis = _axis(at, x, default=1) if x.ndim else 0
    zp = 0 if zero_point is None else _per_axis(zero_point, x.ndim, axis).astype(np.int64)
    return ((x.astype(np.int64) - zp).astype(np.float32) * _per_axis(scale, x.ndim, axis)).astype(np.float32)


@_host("DynamicQuantizeLinear")
def _dynamic_quantize(at, x):
    lo, hi = min(float(x.min()), 0.0), max(float(x.max()), 0.0)
    scale = np.float32((hi - lo) / 255)
    zp = np.uint8(np.clip(np.rint(-lo / scale), 0, 255)) if scale else np.uint8(0)
    q = _saturate(np.rint(x / scale) + zp if scale else np.full(x.shape, zp), np.uint8)
    return q, np.array(scale, np.float32), np.array(zp, np.uint8)


def _requant(acc, multiplier, zero_point):
    zp = np.asarray(zero_point)
    return _saturate(np.rint(acc * np.asarray(multiplier, F64)) + zp, zp.dtype)


@_register("QLinearMatMul")
def _qlinear_matmul(at, a, sa, za, b, sb, zb, sy, zy):
    acc = np.matmul(a.astype(np.int64) - za.astype(np.int64), b.astype(np.int64) - zb.astype(np.int64))
    m = np.asarray(sa, np.float32) * np.asarray(sb, np.float32) / np.asarray(sy, np.float32)
    return _requant(acc, m, zy)


@_register("QLinearConv")
def _qlinear_conv(at, x, sx, zx, w, sw, zw, sy, zy, b=None):
    acc = _conv_integer(at, x, w, zx, zw).astype(np.int64) + (0 if b is None else b.reshape(1, -1, *[1] * (x.ndim - 2)))
    m = np.asarray(sx, np.float32) * _per_axis(np.asarray(sw, np.float32), x.ndim, 1) / np.asarray(sy, np.float32)
    return _requant(acc, m, zy)


# ---- signal ---------------------------------------------------------------------------------------------
_TAU = 2 * np.pi   # the spec (its function bodies: 2 pi in float32); 1.12's node tests take 6.283


def _window(at, size, fn):
    from onnx import mapping
    n = int(np.asarray(size).reshape(()))
    period = n if at.get("periodic", 1) else n - 1
    dt = mapping.TENSOR_TYPE_TO_NP_TYPE[at.get("output_datatype", 1)]
    return fn(_TAU * np.arange(n) / period).astype(dt)


_host("HannWindow")(lambda at, size: _window(at, size, lambda t: 0.5 - 0.5 * np.cos(t)))
_host("HammingWindow")(lambda at, size: _window(at, size, lambda t: 25 / 46 - 21 / 46 * np.cos(t)))
_host("BlackmanWindow")(lambda at, size: _window(at, size, lambda t: 0.42 - 0.5 * np.cos(t) + 0.08 * np.cos(2 * t)))


# ---- what the host does not run ---------------------------------------------------------------------------
_CONTROL = "control flow (a subgraph attribute) is not supported"
_SEQUENCE = "sequence and optional types are not supported"
_RANDOM = "it draws random numbers: ONNX fixes no generator, so no result can be checked"
_TRAINING = "training ops (domain ai.onnx.preview.training) are not supported"
REFUSED = {
    "If": _CONTROL, "Loop": _CONTROL, "Scan": _CONTROL,
    "SequenceAt": _SEQUENCE, "SequenceConstruct": _SEQUENCE, "SequenceEmpty": _SEQUENCE,
    "SequenceErase": _SEQUENCE, "SequenceInsert": _SEQUENCE, "SequenceLength": _SEQUENCE,
    "SequenceMap": _SEQUENCE, "SplitToSequence": _SEQUENCE, "ConcatFromSequence": _SEQUENCE,
    "Optional": _SEQUENCE, "OptionalGetElement": _SEQUENCE, "OptionalHasElement": _SEQUENCE,
    "Bernoulli": _RANDOM, "RandomNormal": _RANDOM, "RandomNormalLike": _RANDOM, "RandomUniform": _RANDOM,
    "RandomUniformLike": _RANDOM, "Multinomial": _RANDOM,
    "Adagrad": _TRAINING, "Adam": _TRAINING, "Momentum": _TRAINING, "Gradient": _TRAINING,
    "StringNormalizer": "dtype string is not supported", "TfIdfVectorizer": "text n-gram ops are not supported",
}
_DTYPE_NAMES = {8: "string", 16: "bfloat16"}


def elem_types(graph):
    """Each value's ONNX element type (TensorProto's enum; 0 for a sequence, map or optional)."""
    out = {}
    for v in list(graph.input) + list(graph.value_info) + list(graph.output):
        kind = v.type.WhichOneof("value")
        out[v.name] = v.type.tensor_type.elem_type if kind == "tensor_type" else 0
    for t in graph.initializer:
        out[t.name] = t.data_type
    return out


def refusal(node, at, types):
    """Why the host cannot run node (its attributes at, types: elem_types of the graph), or ''."""
    if node.op_type in REFUSED:
        return REFUSED[node.op_type]
    if any(a.type in (5, 9, 10, 11, 13, 14) for a in node.attribute):   # GRAPH(S), SPARSE_TENSOR(S), TYPE_PROTO(S)
        return _CONTROL
    for n in list(node.input) + list(node.output):
        t = types.get(n) if n else None
        if t == 0:
            return _SEQUENCE
        if t in _DTYPE_NAMES:
            return f"dtype {_DTYPE_NAMES[t]} is not supported ({n})"
    if node.op_type in ("Cast", "EyeLike", "ConstantOfShape") and at.get("to", at.get("dtype")) in _DTYPE_NAMES:
        return f"dtype {_DTYPE_NAMES[at.get('to', at.get('dtype'))]} is not supported"
    return ""


def why_not(op):
    """The reason an op with no device path is refused."""
    return REFUSED.get(op, f"no host implementation of op {op}")


# ---- counting ---------------------------------------------------------------------------------------------
def flops(node, at, shape):
    """A node's FLOPs, shape(name) giving each value's ONNX-order shape: 2 M N K for a product (MatMul,
    Gemm, the integer and quantised products, Conv and ConvTranspose: 2 per multiply-add), else one
    per output element (views and constants too: they cost what they write, and are free on both)."""
    op, ins, outs = node.op_type, [n for n in node.input], [n for n in node.output if n]
    size = sum(math.prod(shape(o)) for o in outs)
    if op in ("MatMul", "MatMulInteger", "QLinearMatMul"):
        return 2 * size * shape(ins[0])[-1]
    if op == "Gemm":
        a = shape(ins[0])
        return 2 * size * (a[0] if at.get("transA", 0) else a[-1])
    if op in ("Conv", "ConvInteger", "QLinearConv"):
        w = shape(ins[3 if op == "QLinearConv" else 1])
        return 2 * size * math.prod(w[1:])
    if op == "ConvTranspose":
        x, w = shape(ins[0]), shape(ins[1])
        return 2 * math.prod(x) * math.prod(w[1:])
    return size
