"""tessel.onnx's device memory (docs/python.md, "ONNX models"): one run's device nodes as commands on
device buffers, added to one graph of the device and run as one program.

A device node's result is a Value: a tensor in device memory (its home: a buffer per dtype, shared
by the Values that reshape it). The next device node reads it there, converted on the device to
the dtype it wants (ELTWISE MOV, once per home and dtype: FP32 to BF16 rounds to nearest even, as
the library rounds a float32 operand on the host). A host node, or a graph output, reads it back
with host(): that submits the graph of the commands so far (one submission; they run in order),
waits, and reads; the commands after it go into a new graph. A numpy operand is uploaded once a
run per dtype (to bf16 rounded on the host, as the library does), a constant (the runner's
weights, pinned) once a session: their buffers are the runner's, freed by its close(). Every
command but COPY is the library's encoder's (RawDevice.*_cmd): the same words as tessel.Device's
calls give, so the same results and the same refusals; a COPY (move: a Transpose's or a Slice's
rows) is _tessel.command's words of the spec's fields, checked when the graph compiles it.
"""
import math

import numpy as np

from . import _Run, _epilogue, _fail, _in_dtype, _tessel, _window

# The numpy dtype of a device dtype's values on the host (bf16 read back as float32).
_KIND = {"int8": np.dtype(np.int8), "int32": np.dtype(np.int32), "bf16": np.dtype(np.float32),
         "fp32": np.dtype(np.float32)}
_BYTES = {"int8": 1, "bf16": 2, "int32": 4, "fp32": 4}


def bf16_bits(a):
    """float32 a rounded to bf16, as the bits (uint16): the library's tessel_f32_to_bf16 (to nearest
    even; a NaN stays a quiet NaN of its sign)."""
    u = np.ascontiguousarray(a, np.float32).view(np.uint32)
    bits = ((u + np.uint32(0x7FFF) + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = ((u & 0x7F800000) == 0x7F800000) & ((u & 0x7FFFFF) != 0)
    bits[nan] = ((u[nan] >> 16) | 0x40).astype(np.uint16)
    return bits


class _Home:
    """A tensor's device buffers (dtype -> address, each dense, row-major) and its values once read."""

    def __init__(self, size, dtype, addr):
        self.size, self.bufs, self.host = size, {dtype: addr}, None


class Value:
    """A tensor of a run in device memory: shape, dtype (the numpy dtype it reads back as) and home."""
    __slots__ = ("home", "shape")

    def __init__(self, home, shape):
        self.home, self.shape = home, tuple(shape)

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def dtype(self):
        return _KIND[next(iter(self.home.bufs))]

    def reshape(self, *shape):
        """The same elements in another shape (numpy's rules, -1 included): the same home."""
        shape = shape[0] if len(shape) == 1 and np.ndim(shape[0]) == 1 else shape
        return Value(self.home, np.broadcast_to(np.uint8(0), self.shape).reshape(shape).shape)


def _strides(src, dst, run):
    """The rows of run elements src[i] -> dst[i] (element offsets), in this order, as the fewest
    stretches of rows one source stride and one destination stride apart: (src, dst, rows, source
    stride, destination stride), a row alone with strides of a row."""
    out, i = [], 0
    while i < len(src):
        j = i + 1
        if j < len(src) and src[j] > src[i] and dst[j] > dst[i]:
            ds, dd = src[j] - src[i], dst[j] - dst[i]
            while j < len(src) and src[j] - src[j - 1] == ds and dst[j] - dst[j - 1] == dd:
                j += 1
        else:
            ds = dd = run
        out.append((int(src[i]), int(dst[i]), j - i, int(ds), int(dd)))
        i = j
    return out


def _rows(x):
    """(rows, n): x's shape as rows along its last axis (0-D: one row of one)."""
    return (math.prod(x.shape[:-1]), x.shape[-1]) if x.ndim else (1, 1)


class Memory(_Run):
    """One run's device memory and graph on device (a tessel.Device). pinned: the runner's session
    buffers, id(array) -> (array, {dtype: address}), for the arrays in keep (ids of constants)."""

    def __init__(self, device, pinned, keep):
        super().__init__(device)
        self.pinned, self.keep, self.uploads = pinned, keep, {}   # uploads: the run's arrays, as pinned

    # ---- buffers and the graph -----------------------------------------------------------------
    def new(self, shape, dtype):
        """A Value of shape and device dtype for a command's result."""
        size = math.prod(shape)
        return Value(_Home(size, dtype, self.alloc(size * _BYTES[dtype])), shape)

    def addr(self, x, dtype):
        """The address of x (a Value or a numpy array) in device dtype: a Value's buffer, converted on
        the device the first time; an array uploaded (a pinned constant's once a session)."""
        if isinstance(x, Value):
            bufs = x.home.bufs
            if dtype not in bufs:
                have, src = next(iter(bufs.items()))   # the buffer the command that made it wrote
                bufs[dtype] = self.alloc(x.home.size * _BYTES[dtype])
                m, n = _rows(x)
                self.add(self.raw.eltwise_cmd("mov", src, bufs[dtype], m, n, have, dtype))
            return bufs[dtype]
        pinned = id(x) in self.keep
        _, bufs = (self.pinned if pinned else self.uploads).setdefault(id(x), (x, {}))
        if dtype not in bufs:
            data = bf16_bits(x) if dtype == "bf16" else np.ascontiguousarray(x, _KIND[dtype])
            bufs[dtype] = self.raw.alloc(max(data.nbytes, 4)) if pinned else self.alloc(data.nbytes)
            self.raw.write(bufs[dtype], data)
        return bufs[dtype]

    def host(self, x):
        """x as a numpy array: a Value read back (the graph so far run first), an array as it is."""
        if not isinstance(x, Value):
            return x
        home = x.home
        if home.host is None:
            self.sync()
            dtype = next((d for d in ("fp32", "int32", "int8") if d in home.bufs), "bf16")
            out = np.empty(home.size, np.uint16 if dtype == "bf16" else _KIND[dtype])
            self.raw.read(home.bufs[dtype], out)
            home.host = (out.astype(np.uint32) << 16).view(np.float32) if dtype == "bf16" else out
        return home.host.reshape(x.shape)

    sync = _Run.run   # the pinned buffers stay at free()

    # ---- the device's ops, tessel.Device's calls on Values and arrays -----------------------------
    def _float(self, x, what):
        if x.dtype != np.float32:
            _fail(f"unsupported dtype: {what} is {x.dtype} (need float32)")

    def conv2d(self, x, w, bias=None, stride=1, padding=0, dilation=1, groups=1, relu=False, x_zero_point=0,
               out_dtype=None):
        """tessel.Device.conv2d as a command: x NHWC, w HWIO; the result a Value."""
        batch, h, wd, c = x.shape
        kh, kw, cg, cout = w.shape
        if not c % groups and cg != c // groups:
            _fail(f"shape mismatch: w is {w.shape}, its third dimension must be c/groups = {c // groups}")
        geo, oh, ow = _window(h, wd, (kh, kw), stride, padding, dilation)
        in_dtype = _in_dtype(x=x, w=w)
        ep = _epilogue(in_dtype, cout, bias, relu, out_dtype, None, None)
        b = ep.pop("bias", None)
        y = self.new((batch, oh, ow, cout), ep["out_dtype"])
        self.add(self.raw.conv2d_cmd(self.addr(x, in_dtype), self.addr(w, in_dtype), y.home.bufs[ep["out_dtype"]],
                                     cout, groups, batch=batch, h=h, w=wd, c=c, x_zero_point=x_zero_point,
                                     bias=0 if b is None else self.addr(b, "fp32" if in_dtype == "bf16" else "int32"),
                                     **geo, **ep))
        return y

    def pool2d(self, x, kind, window, stride, padding, dilation, out_dtype=None):
        """tessel.Device.pool2d as a command."""
        geo, oh, ow = _window(x.shape[1], x.shape[2], window, stride, padding, dilation)
        in_dtype = _in_dtype(x=x)
        out = out_dtype or ("int8" if in_dtype == "int8" else "fp32" if kind == "avg" else "bf16")
        y = self.new((x.shape[0], oh, ow, x.shape[3]), out)
        self.add(self.raw.pool2d_cmd(kind, self.addr(x, in_dtype), y.home.bufs[out], batch=x.shape[0], h=x.shape[1],
                                     w=x.shape[2], c=x.shape[3], in_dtype=in_dtype, out_dtype=out, **geo))
        return y

    def matmul(self, a, b, bias=None, relu=False, scale=None, out_dtype=None):
        """tessel.Device.matmul of 2-D a and b as a command."""
        return self.bmm(a.reshape((1,) + a.shape), b.reshape((1,) + b.shape), bias, relu, scale, out_dtype).reshape(
            a.shape[0], b.shape[1])

    def bmm(self, a, b, bias=None, relu=False, scale=None, out_dtype=None):
        """tessel.Device.bmm as one GEMM command per block: a ... x m x k, b ... x k x n, the leading
        dimensions broadcast (a block read by several GEMMs is held once)."""
        (m, k), (kb, n) = a.shape[-2:], b.shape[-2:]
        if k != kb:
            _fail(f"shape mismatch: a is {a.shape}, b is {b.shape} (a's columns must equal b's rows)")
        lead = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        in_dtype = _in_dtype(a=a, b=b)
        ep = _epilogue(in_dtype, n, bias, relu, out_dtype, scale, None)
        bias = ep.pop("bias", None)
        pb = 0 if bias is None else self.addr(bias, "fp32" if in_dtype == "bf16" else "int32")
        out, es = ep["out_dtype"], _BYTES[in_dtype]
        c = self.new(lead + (m, n), out)
        pa, pbm, pc = self.addr(a, in_dtype), self.addr(b, in_dtype), c.home.bufs[out]
        ia = np.broadcast_to(np.arange(math.prod(a.shape[:-2])).reshape(a.shape[:-2]), lead).reshape(-1)
        ib = np.broadcast_to(np.arange(math.prod(b.shape[:-2])).reshape(b.shape[:-2]), lead).reshape(-1)
        for i, (j, l) in enumerate(zip(ia, ib)):
            self.add(self.raw.gemm_cmd(pa + int(j) * m * k * es, pbm + int(l) * k * n * es,
                                       pc + i * m * n * _BYTES[out], m, n, k, bias=pb, **ep))
        return c

    def _row_cmd(self, encoder, x, out_dtype=None, **kw):
        """A row function's command (rowwise_cmd or eltwise_cmd) on fp32 x (as it is), y of x's shape
        in out_dtype (default fp32)."""
        self._float(x, "x")
        out = out_dtype or "fp32"
        y = self.new(x.shape, out)
        m, n = _rows(x)
        self.add(getattr(self.raw, encoder)(x=self.addr(x, "fp32"), y=y.home.bufs[out], m=m, n=n,
                                            in_dtype="fp32", out_dtype=out, **kw))
        return y

    def softmax(self, x, out_dtype=None):
        return self._row_cmd("rowwise_cmd", x, out_dtype, fn="softmax")

    def layernorm(self, x, gamma, beta, eps, out_dtype=None):
        self._float(x, "x")
        self._float(gamma, "gamma")
        kw = dict(gamma=self.addr(gamma, "fp32"), eps=eps)
        if beta is not None:
            self._float(beta, "beta")
            kw["beta"] = self.addr(beta, "fp32")
        return self._row_cmd("rowwise_cmd", x, out_dtype, fn="layernorm", **kw)

    def move(self, x, index):
        """x (a Value) rearranged without arithmetic, as a Transpose or a Slice does: index holds each
        result element's flat index in x. The result is made by COPY commands in the dtype x is held
        in: rows of the longest run of consecutive elements that the result's trailing axes give, one
        command per stretch of rows whose sources and destinations are each one stride apart (taken in
        the result's order or in x's, whichever needs fewer)."""
        dtype, src = next(iter(x.home.bufs.items()))
        es = _BYTES[dtype]
        y = self.new(index.shape, dtype)
        flat = index.reshape(-1)
        run = 1
        for d in reversed(index.shape if flat.size else ()):
            rows = flat.reshape(-1, run * d)
            if not (rows == rows[:, :1] + np.arange(run * d)).all():
                break
            run *= d
        starts = flat[::run].astype(np.int64)
        dests = np.arange(len(starts), dtype=np.int64) * run
        order = np.argsort(starts, kind="stable")
        copies = min(_strides(starts, dests, run), _strides(starts[order], dests[order], run), key=len)
        for a, c, m, lda, ldc in copies:
            self.add(_tessel.command(opcode=_tessel.CMD_OP["COPY"], m=m, n=run * es, a_addr=src + a * es,
                                     lda=lda * es, c_addr=y.home.bufs[dtype] + c * es, ldc=ldc * es))
        return y

    def gelu(self, x, out_dtype=None):
        return self._row_cmd("rowwise_cmd", x, out_dtype, fn="gelu")

    def silu(self, x, out_dtype=None):
        return self._row_cmd("rowwise_cmd", x, out_dtype, fn="silu")

    def relu(self, x, out_dtype=None):
        return self._row_cmd("eltwise_cmd", x, out_dtype, op="relu")

    def binary(self, op, x, y, out_dtype=None):
        """x op y elementwise (op "add" or "mul"), fp32: y of x's shape, or a float (the scalar of
        ELTWISE's B_IMM)."""
        if isinstance(y, float):
            return self._row_cmd("eltwise_cmd", x, out_dtype, op=op, imm=y)
        self._float(y, "y")
        return self._row_cmd("eltwise_cmd", x, out_dtype, op=op, b=self.addr(y, "fp32"), ldb=_rows(x)[1])
