"""tessel: the Tessel TPU from Python (docs/python.md).

A thin layer over libtessel (host_driver/include/tessel.h): the C extension tessel._tessel makes
the library's calls, this module converts numpy arrays and allocates the outputs.

    import tessel
    with tessel.Device("model") as dev:        # or "sim", or "uart" with port=...
        c = dev.matmul(a, b, bias=None, relu=False, out_dtype=None)

Device arrays keep data on the device and run asynchronously: dev.array(x) uploads, matmul on
Arrays returns an Array at once (its command added to one graph of the device), and .numpy() runs
the graph, one submission, and reads the result:

        h = dev.matmul(dev.array(x), dev.array(w1), out_dtype="int8")
        y = dev.matmul(h, dev.array(w2)).numpy()

Dtypes follow the library and the `tessel` CLI. int8 arrays run in int8 and give int32 (or int8,
requantised); float32 arrays are rounded to bf16 on the way in, accumulate in fp32 and give
float32 (out_dtype "bf16": bf16-rounded values stored as float32). Other dtypes are refused, not
converted. Output dtype names: "int8", "int32", "fp32", "bf16".

Errors: every failure raises tessel.Error, whose .status is the library's tessel_status_t (an
int), .name its name ("EINVAL") and .message the library's tessel_last_error(). This module
refuses only what it cannot convert (an array's dtype or dimensions, shapes that do not make the
call's sizes, a bias or an add of the wrong length, a value that is not an integer, a name that is
no dtype), with status EINVAL before anything reaches the library. Every rule of the arguments is
the library's, with its message: ranges (a shift, a zero point, a size, a window), the dtypes that
go together, the options an input dtype takes, groups that divide the channels, a window that fits
its input, a causal mask's lq <= lk; a scale or an eps (tessel_f32_arg), and the open options a
backend would ignore.
"""
import math
import operator
import os
import stat

import numpy as np

from . import _tessel
from ._tessel import EPILOGUES, Error

__all__ = ["Array", "Device", "EPILOGUES", "Error", "Kernel", "Pod"]

# The numpy dtype that holds each device dtype's values on the host (tessel.h: int8_t, int32_t, float).
_HOST = {name: np.dtype(fmt) for name, fmt in _tessel.HOST_FORMATS.items()}
# The default output dtype of a GEMM or a convolution by input dtype (the library says which others go).
_GEMM_OUT = {"int8": "int32", "bf16": "fp32"}


def _fail(message):
    raise Error(_tessel.EINVAL, message)


def _read_file(path, offset=0, size=-1, root=None):
    """size bytes (to the end when -1) of the regular file path from offset, or fewer where it ends;
    a FIFO, a device or a folder is refused without blocking. root: a folder the file must be in,
    checked on the file opened (its /proc/self/fd path), so that a path swapped after a caller's check
    cannot lead out of it."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with open(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            _fail(f"{path} is not a regular file")
        if root is not None:
            real = os.path.realpath(f"/proc/self/fd/{fd}")
            if os.path.commonpath([root, real]) != root:
                _fail(f"{path} is outside {root}")
        room = max(st.st_size - offset, 0)
        if room == 0:
            return b""
        f.seek(offset)
        return f.read(room if size < 0 else min(size, room))


def _array(x, what):
    """x as a C-contiguous ndarray of its own shape, 0-d included (a copy only when it is not one
    already)."""
    try:
        return np.asarray(x, order="C")
    except (TypeError, ValueError) as e:
        _fail(f"{what} is not an array: {e}")


def _dims(a, what, ndim=None, min_ndim=1):
    """a has ndim dimensions (or at least min_ndim); a size of 0 is the library's to refuse."""
    if (ndim is not None and a.ndim != ndim) or a.ndim < min_ndim:
        _fail(f"{what} must have {ndim if ndim is not None else f'at least {min_ndim}'} dimensions; "
              f"it has shape {a.shape}")


def _in_dtype(**arrays):
    """The device input dtype of the arrays: "int8" when all are int8, "bf16" when all are float32."""
    kinds = {a.dtype for a in arrays.values()}
    if kinds == {np.dtype(np.int8)}:
        return "int8"
    if kinds == {np.dtype(np.float32)}:
        return "bf16"
    _fail("unsupported dtypes: " + ", ".join(f"{n} is {a.dtype}" for n, a in arrays.items()) +
          (" (need int8 or float32)" if len(arrays) == 1 else " (need all int8 or all float32)"))


def _float32(x, what):
    a = _array(x, what)
    if a.dtype != np.float32:
        _fail(f"unsupported dtype: {what} is {a.dtype} (need float32)")
    return a


def _int(v, what, lo=None):
    """v as an int (its range is the library's and the C field's). lo: 0 for a value the call takes
    unsigned (a padding, a window, a stride, dilation or groups; 0 is the library's to refuse)."""
    try:
        v = operator.index(v)
    except TypeError:
        _fail(f"{what} must be an integer, not {v!r}")
    if lo is not None and v < lo:
        _fail(f"{what} must be at least {lo}, not {v}")
    return v


def _ints(v, what, lo, n):
    """v, an int or a sequence of n ints (each at least lo, unless None), as a tuple of n."""
    vals = (v,) * n if np.ndim(v) == 0 else tuple(v)
    if len(vals) != n:
        _fail(f"{what} must be an integer or {n} integers, not {v!r}")
    return tuple(_int(x, what, lo) for x in vals)


def _out_dtype(out_dtype, default):
    """out_dtype, a dtype's name (default when None); which go with the inputs is the library's rule."""
    if out_dtype is None:
        return default
    if out_dtype not in _HOST:
        _fail(f"out_dtype must be one of {list(_HOST)}, not {out_dtype!r}")
    return out_dtype


def _last_step(epilogue, add):
    """The library's epilogue name of matmul's epilogue and add: "add_c" is add's, which gives the
    old C (the library refuses the names it does not have)."""
    if add is not None and epilogue is not None:
        _fail(f"epilogue {epilogue!r} and add are both a last step: give one")
    if epilogue == "add_c":
        _fail("add_c adds the old C: give it as add")
    return "add_c" if add is not None else epilogue


def _epilogue(in_dtype, n, bias, relu, out_dtype, scale, requant):
    """The keyword arguments of a GEMM's or convolution's epilogue (docs/isa.md §7: scale, bias, ReLU,
    then the conversion to out_dtype) for n output columns or channels."""
    if requant is not None and out_dtype is None and in_dtype == "int8":
        out_dtype = "int8"
    out = _out_dtype(out_dtype, _GEMM_OUT.get(in_dtype, "fp32"))
    kw = dict(in_dtype=in_dtype, out_dtype=out, relu=bool(relu))
    if out == "int8" or requant is not None:   # the library refuses requant of another out_dtype
        rq = (1, 0, 0) if requant is None else requant   # plain saturation, as the CLI
        if not isinstance(rq, (tuple, list)) or len(rq) != 3:
            _fail(f"requant must be (scale, shift, zero_point), not {requant!r}")
        kw.update(rq_scale=_int(rq[0], "requant's scale"), rq_shift=_int(rq[1], "requant's shift"),
                  rq_zero_point=_int(rq[2], "requant's zero_point"))
    if scale is not None:
        kw["scale"] = scale   # the library's rules (tessel_f32_arg; int8 inputs take none)
    if bias is not None:
        b = _array(bias, "bias")
        if in_dtype == "int8" and b.dtype == np.int8:
            b = b.astype(np.int32)   # n values, widened
        want = np.int32 if in_dtype == "int8" else np.float32
        if b.dtype != want:
            _fail(f"bias is {b.dtype}; {'int8' if in_dtype == 'int8' else 'float32'} inputs need a "
                  f"{np.dtype(want)} bias")
        if b.shape != (n,):
            _fail(f"bias must be 1-D with {n} values, not of shape {b.shape}")
        kw["bias"] = b
    return kw


def _window(h, w, k, stride, padding, dilation):
    """The window keywords of conv2d and pool2d, and the output rows and columns."""
    sh, sw = _ints(stride, "stride", 0, 2)
    dh, dw = _ints(dilation, "dilation", 0, 2)
    if np.ndim(padding) == 0 or len(padding) == 4:   # paddings are unsigned (uint32_t)
        pad = _ints(padding, "padding", 0, 4)
    else:
        ph, pw = _ints(padding, "padding", 0, 2)
        pad = (ph, ph, pw, pw)
    # 0 when the window does not fit (or a value is past 32 bits): the library says why
    out = lambda *a: _tessel.window_out(*a) if all(0 <= v < 2**32 for v in a) else 0   # noqa: E731
    oh, ow = out(h, pad[0], pad[1], k[0], sh, dh), out(w, pad[2], pad[3], k[1], sw, dw)
    return dict(kh=k[0], kw=k[1], stride_h=sh, stride_w=sw, pad_t=pad[0], pad_b=pad[1], pad_l=pad[2], pad_r=pad[3],
                dil_h=dh, dil_w=dw), oh, ow


def _rows_of(x, elementwise=False):
    """The x of a row function: float32, at least 1-D (elementwise: 0-D too, one row of one
    value); its rows are along the last axis."""
    x = _float32(x, "x")
    _dims(x, "x", min_ndim=0 if elementwise else 1)
    return x


def _as_rows(a):
    """a as a 2-D view of its rows; 0-D is one row of one."""
    return a.reshape(math.prod(a.shape[:-1]), a.shape[-1]) if a.ndim else a.reshape(1, 1)


def _like(v, x, what):
    """float32 v of x's shape, as x's rows."""
    a = _float32(v, what)
    if a.shape != x.shape:
        _fail(f"shape mismatch: {what} is {a.shape}, x is {x.shape} ({what} must have x's shape)")
    return _as_rows(a)


def _row_param(v, x, what):
    """float32 gamma or beta: 1-D, of x's row length."""
    a = _float32(v, what)
    if a.shape != x.shape[-1:]:
        _fail(f"{what} must be 1-D with {x.shape[-1]} values (x's last dimension), not of shape {a.shape}")
    return a


def _norm_args(x, gamma, eps, residual):
    """The norms' gamma, eps and residual (None, or float32 of x's shape)."""
    kw = dict(gamma=_row_param(gamma, x, "gamma"), eps=eps)
    if residual is not None:
        kw["residual"] = _like(residual, x, "residual")
    return kw


class Array:
    """An m x n matrix in device memory (Device.array, or a call on Arrays): dense, of a device dtype
    ("int8", "int32", "bf16", "fp32"). A call given Arrays queues its command on one graph of the
    device and returns at once; numpy() runs what is queued (Device.sync: one submission) and reads
    the values back (int8 and int32 as such, bf16 and fp32 as float32). free() gives the memory
    back, once the commands queued before have run; collected Arrays are freed the same way."""

    def __init__(self, device, shape, dtype):
        self.device, self.shape, self.dtype = device, tuple(shape), dtype
        self.nbytes = self.shape[0] * self.shape[1] * (2 if dtype == "bf16" else np.dtype(_HOST[dtype]).itemsize)
        self.addr = device.raw.alloc(self.nbytes)

    def numpy(self):
        if self.addr is None:
            _fail("this Array was freed")
        self.device.sync()
        if self.dtype != "bf16":
            out = np.empty(self.shape, _HOST[self.dtype])
            self.device.raw.read(self.addr, out)
            return out
        bits = np.empty(self.shape, np.uint16)
        self.device.raw.read(self.addr, bits)
        return _from_bf16_bits(bits)

    def free(self):
        """Give the memory back: at once when nothing is queued, else after the queued commands."""
        if self.addr is not None:
            self.device._freed.append(self.addr)
            self.addr = None
            if self.device._graph is None:
                self.device.sync()

    def __del__(self):
        try:
            self.free()
        except Exception:   # a closed device: its memory went with it
            pass

    def __repr__(self):
        return f"tessel.Array({self.shape[0]}x{self.shape[1]} {self.dtype} at 0x{self.addr or 0:x})"


class _Run:
    """A front end's run on a device (tessel.torch's strict and fused modes, tessel.onnx): the
    commands added to one graph as they come, run as one submission by run(), and the device
    buffers its results take, given back together by free()."""

    def __init__(self, device):
        self.raw, self.graph, self.scratch = device.raw, None, []

    def alloc(self, nbytes):
        addr = self.raw.alloc(max(nbytes, 4))
        self.scratch.append(addr)
        return addr

    def add(self, words):
        """Add a command (the words of one of the library's encoders) to the graph."""
        if self.graph is None:
            self.graph = self.raw.graph()
        self.graph.add(words)

    def run(self):
        """Run the commands added so far: one graph, one submission."""
        graph, self.graph = self.graph, None
        if graph is not None:
            self.raw.wait(graph.submit())

    def free(self):
        """Give the buffers back; a graph not run is dropped."""
        self.graph = None
        scratch, self.scratch = self.scratch, []
        for addr in scratch:
            self.raw.free(addr)


class _Closes:
    """A context manager whose exit closes the library's object under it (raw)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self.raw.close()


class Device(_Closes):
    """A Tessel device: Device("model"), Device("sim") or Device("uart", port="/dev/ttyUSB1").

    firmware: the sim's firmware ELF, or the one a board in BOOT.HOLD is loaded with (default:
    $TESSEL_FIRMWARE, else the one make built); check: mirror every command on a model device and
    raise EMISMATCH on a difference (as TESSEL_CHECK=1); timeline: sim only, a Chrome-trace JSON
    written by close(). An option the backend would ignore (firmware or timeline on the model, a
    port on the sim) raises EINVAL: tessel_open refuses it. A context manager; close() is safe to call again, and every call on a
    closed device raises tessel.Error. One device may be used from several threads: its calls run
    one at a time.

    raw is the tessel._tessel device under it: the library's calls one to one (alloc, free, read,
    write, submit, wait, gemm, conv2d, ...), for code that manages device memory itself.
    """

    def __init__(self, backend="model", *, port=None, firmware=None, check=False, timeline=None):
        self._start(_tessel.open(backend, port=port, firmware=firmware, check=check, timeline=timeline))

    def _start(self, raw):
        self.raw = raw
        info = self.raw.info()
        self.backend, self.n = info["backend"], info["n"]
        self._graph, self._freed = None, []   # the Arrays' commands not yet run; their freed memory

    # ---- device arrays ------------------------------------------------------------------------
    def array(self, x, dtype=None):
        """x (a 2-D int8, int32 or float32 array) in device memory, as an Array of the same dtype
        ("int8", "int32", "fp32"), or for float32 x with dtype="bf16" rounded to bf16 on the device
        (an ELTWISE MOV, to nearest even, as the library rounds a float32 GEMM's inputs)."""
        x = _array(x, "x")
        _dims(x, "x", 2)
        have = {np.dtype(np.int8): "int8", np.dtype(np.int32): "int32", np.dtype(np.float32): "fp32"}.get(x.dtype)
        if have is None or dtype not in (None, have) and (have, dtype) != ("fp32", "bf16"):
            _fail(f"x is {x.dtype}: a device array holds int8, int32 or float32 values (float32 as bf16 too), "
                  f"not {x.dtype} as {dtype}")
        a = Array(self, x.shape, have)
        self.raw.write(a.addr, x)
        if dtype != "bf16":
            return a
        b = Array(self, x.shape, "bf16")
        m, n = x.shape
        self._queue(self.raw.eltwise_cmd("mov", a.addr, b.addr, m, n, "fp32", "bf16"))
        a.free()
        return b

    def sync(self):
        """Run the Arrays' queued commands (one graph, one submission) and wait for them."""
        graph, self._graph = self._graph, None
        try:
            if graph is not None:
                self.raw.wait(graph.submit())
        finally:
            freed, self._freed = self._freed, []
            for addr in freed:
                self.raw.free(addr)

    def _queue(self, words):
        if self._graph is None:
            self._graph = self.raw.graph()
        self._graph.add(words)

    def info(self):
        """The configuration: backend, n (the MXU is n x n), vmem_bytes, acc_bytes, hbm_bytes,
        hbm_bytes_per_cycle, features and its int8 and bf16 bits."""
        return self.raw.info()

    def stats(self):
        """{"last": ..., "total": ...}: the counters of the latest call that ran commands, and since
        the device was opened or stats_reset(). Each holds commands, submissions (a graph is one),
        cycles (the completions' CYCLES), macs (the MXU's, K and N padded to multiples of n),
        hbm_bytes (compulsory traffic), program_cache_hits and program_cache_misses (commands whose
        program came from the library's program cache, or that were compiled) and
        mxu_utilization = macs / (cycles n^2). The model backend
        is not timed: its cycles count the firmware's hardware accesses, not clock cycles, so its
        mxu_utilization is None (as it is when cycles is 0)."""
        s = self.raw.stats()
        for part in s.values():
            timed = self.backend != "model" and part["cycles"]
            part["mxu_utilization"] = part["macs"] / (part["cycles"] * self.n**2) if timed else None
        return s

    def stats_reset(self):
        self.raw.stats_reset()

    # ---- matrix products ------------------------------------------------------------------------
    def matmul(self, a, b, bias=None, relu=False, out_dtype=None, scale=None, requant=None, epilogue=None,
               add=None):
        """C = epilogue(a @ b) for 2-D a (m x k) and b (k x n), both int8 or both float32.

        Epilogue (docs/isa.md §7), in order: scale (float inputs: the fp32 product times scale),
        bias (n values: int32 or int8 for int8 inputs, float32 for float), ReLU, then for float
        inputs one last step: epilogue, a name of EPILOGUES ("gelu": GELU's tanh form, ...; see
        tessel.h's tessel_epilogue_t for which go with relu), or add (an m x n array, added in
        fp32: a residual; the step "add_c"), then the conversion to out_dtype: int8 inputs give "int32"
        (default) or "int8", requantised with requant=(scale, shift, zero_point):
        sat8(round_shift(x * scale, shift) + zero_point) (default (1, 0, 0): saturation; giving
        requant implies "int8"); float32 inputs give "fp32" (default) or "bf16" (add is rounded to
        bf16 first then). One GEMM command, whatever the epilogue.

        With Arrays a and b (both; int8, or bf16 as a bf16 GEMM result gives them), the GEMM is
        queued and an Array of out_dtype returned at once; bias may be an Array or an array, add is
        not taken."""
        if isinstance(a, Array) or isinstance(b, Array):
            return self._matmul_arrays(a, b, bias, relu, out_dtype, scale, requant, epilogue, add)
        a, b = _array(a, "a"), _array(b, "b")
        _dims(a, "a", 2)
        _dims(b, "b", 2)
        (m, k), (kb, n) = a.shape, b.shape
        if k != kb:
            _fail(f"shape mismatch: a is {a.shape}, b is {b.shape} (a's columns must equal b's rows)")
        kw = _epilogue(_in_dtype(a=a, b=b), n, bias, relu, out_dtype, scale, requant)
        c = np.empty((m, n), _HOST[kw["out_dtype"]])
        if add is not None and kw["in_dtype"] == "bf16":   # the old C; int8 inputs: the library refuses add_c
            r = _float32(add, "add")
            if r.shape != (m, n):
                _fail(f"add must be {m} x {n} (the product's shape), not of shape {r.shape}")
            c[...] = r
        elif add is not None:
            _float32(add, "add")
        self.raw.gemm(a=a, b=b, c=c, m=m, n=n, k=k, epilogue=_last_step(epilogue, add), **kw)
        return c

    def _matmul_arrays(self, a, b, bias, relu, out_dtype, scale, requant, epilogue, add):
        for x, name in ((a, "a"), (b, "b")):
            if not isinstance(x, Array) or x.device is not self:
                _fail(f"{name} must be an Array of this device when the other is")
        if a.dtype != b.dtype:
            _fail(f"a is {a.dtype} and b {b.dtype}: a GEMM takes one input dtype")
        if add is not None:
            _fail("add is not taken with Arrays")
        (m, k), (kb, n) = a.shape, b.shape
        if k != kb:
            _fail(f"shape mismatch: a is {a.shape}, b is {b.shape} (a's columns must equal b's rows)")
        bias_addr = 0
        if isinstance(bias, Array):
            want = "int32" if a.dtype == "int8" else "fp32"
            if bias.device is not self or bias.dtype != want or bias.shape != (1, n):
                _fail(f"bias must be a 1 x {n} Array of {want} of this device")
            bias_addr, bias = bias.addr, None
        elif bias is not None:
            bias = np.asarray(bias)
            bias = bias.astype(np.int32) if a.dtype == "int8" and bias.dtype == np.int8 else bias
        kw = _epilogue(a.dtype, n, bias, relu, out_dtype, scale, requant)
        tmp = self.array(kw.pop("bias").reshape(1, n)) if "bias" in kw else None   # an array: uploaded
        c = Array(self, (m, n), kw["out_dtype"])
        try:
            self._queue(self.raw.gemm_cmd(a=a.addr, b=b.addr, c=c.addr, m=m, n=n, k=k,
                                          bias=tmp.addr if tmp else bias_addr,
                                          epilogue=_last_step(epilogue, None), **kw))
        except Error:
            c.free()
            raise
        finally:
            if tmp:
                tmp.free()   # queued after the command that reads it: freed once the graph has run
        return c

    def bmm(self, a, b, bias=None, relu=False, out_dtype=None, scale=None, requant=None):
        """matmul of each block: a is ... x m x k, b ... x k x n with the same leading dimensions
        (at least one); the result is ... x m x n. One GEMM command per block."""
        a, b = _array(a, "a"), _array(b, "b")
        _dims(a, "a", min_ndim=3)
        _dims(b, "b", min_ndim=3)
        if a.shape[:-2] != b.shape[:-2] or a.shape[-1] != b.shape[-2]:
            _fail(f"shape mismatch: a is {a.shape}, b is {b.shape} (need ... x m x k and ... x k x n, the "
                  f"leading dimensions the same)")
        lead, (m, k), n = a.shape[:-2], a.shape[-2:], b.shape[-1]
        kw = _epilogue(_in_dtype(a=a, b=b), n, bias, relu, out_dtype, scale, requant)
        c = np.empty(lead + (m, n), _HOST[kw["out_dtype"]])
        self.raw.bmm(a=a, b=b, c=c, m=m, n=n, k=k, batch=math.prod(lead), **kw)
        return c

    # ---- windows ----------------------------------------------------------------------------------
    def conv2d(self, x, w, bias=None, stride=1, padding=0, dilation=1, groups=1, relu=False, out_dtype=None,
               x_zero_point=0, scale=None, requant=None):
        """Y = epilogue(conv2d(x, w)) with the library's layouts: x is NHWC (batch x h x w x c), w is
        HWIO (kh x kw x c/groups x cout), Y is batch x oh x ow x cout. (From PyTorch's NCHW and OIHW:
        x.permute(0, 2, 3, 1), w.permute(2, 3, 1, 0).)

        stride and dilation: an int or (h, w); padding: an int, (h, w) or (top, bottom, left, right).
        x_zero_point: int8 only, the value padding reads (the input's zero point). Dtypes, bias (cout
        values), scale, requant and the epilogue as matmul."""
        x, w = _array(x, "x"), _array(w, "w")
        _dims(x, "x", 4)
        _dims(w, "w", 4)
        batch, h, wd, c = x.shape
        kh, kw_, cg, cout = w.shape
        groups = _int(groups, "groups", 0)
        if groups and not c % groups and cg != c // groups:   # groups that do not divide c: the library says so
            _fail(f"shape mismatch: w is {w.shape}, its third dimension must be c/groups = {c // groups}")
        geo, oh, ow = _window(h, wd, (kh, kw_), stride, padding, dilation)
        in_dtype = _in_dtype(x=x, w=w)
        zp = _int(x_zero_point, "x_zero_point")
        kw = _epilogue(in_dtype, cout, bias, relu, out_dtype, scale, requant)
        if not groups or c % groups:   # no w of c/groups channels to hand over: the library's encoder says why it refuses
            self.raw.conv2d_cmd(0, 0, 0, cout, groups, batch=batch, h=h, w=wd, c=c, x_zero_point=zp, **geo,
                                **{n: v for n, v in kw.items() if n != "bias"})
        y = np.empty((batch, oh, ow, cout), _HOST[kw["out_dtype"]])
        self.raw.conv2d(x=x, weights=w, y=y, batch=batch, h=h, w=wd, c=c, cout=cout, groups=groups, x_zero_point=zp,
                        **geo, **kw)
        return y

    def pool2d(self, x, kind, window, stride=None, padding=0, dilation=1, out_dtype=None, x_zero_point=0):
        """The max or average (kind "max" or "avg") of each window of NHWC x, per channel:
        batch x oh x ow x c. window, stride (default: the window), dilation: an int or (h, w);
        padding as conv2d. int8 x gives int8 (avg: the sum / (kh kw) rounded to nearest, ties away
        from zero, padding reading x_zero_point). float32 x is rounded to bf16: max gives "bf16"
        values, avg "fp32" (default) or "bf16", padding reading 0. Padding never wins a max."""
        x = _array(x, "x")
        _dims(x, "x", 4)
        k = _ints(window, "window", 0, 2)   # unsigned (uint32_t); 0 is the library's to refuse
        s = k if stride is None else stride   # the window
        geo, oh, ow = _window(x.shape[1], x.shape[2], k, s, padding, dilation)
        in_dtype = _in_dtype(x=x)
        out = _out_dtype(out_dtype, "int8" if in_dtype == "int8" else "fp32" if kind == "avg" else "bf16")
        zp = _int(x_zero_point, "x_zero_point")
        y = np.empty((x.shape[0], oh, ow, x.shape[3]), _HOST[out])
        self.raw.pool2d(kind=kind, x=x, y=y, batch=x.shape[0], h=x.shape[1], w=x.shape[2], c=x.shape[3],
                        in_dtype=in_dtype, out_dtype=out, x_zero_point=zp, **geo)
        return y

    # ---- the row functions --------------------------------------------------------------------------
    def _rows(self, fn, x, in_dtype, out_dtype, **operands):
        """y = fn(each row of x, _rows_of's), y of x's shape. in_dtype "bf16" (x rounded to bf16 on
        the way in) or "fp32" (x as it is); the device computes in fp32."""
        out = _out_dtype(out_dtype, "fp32")
        y = np.empty(x.shape, np.float32)   # x's shape, 0-D included (numpy's elementwise habit)
        rows, y_rows = _as_rows(x), _as_rows(y)
        getattr(self.raw, fn)(x=rows, y=y_rows, m=rows.shape[0], n=rows.shape[1], in_dtype=in_dtype, out_dtype=out,
                              **operands)
        return y

    def softmax(self, x, scale=None, mask=None, in_dtype="bf16", out_dtype=None):
        """softmax(x * scale + mask) of each row (the last axis); mask float32 of x's shape, added
        (-inf masks a value out)."""
        x = _rows_of(x)
        kw = {} if mask is None else dict(mask=_like(mask, x, "mask"))
        if scale is not None:
            kw["scale"] = scale   # the library's rule (tessel_f32_arg)
        return self._rows("softmax", x, in_dtype, out_dtype, **kw)

    def layernorm(self, x, gamma, beta=None, eps=1e-5, in_dtype="bf16", out_dtype=None, residual=None):
        """(x - mean) / sqrt(var + eps) * gamma + beta over each row; gamma and beta (default 0) have
        the row's length. residual (x's shape, rounded to out_dtype) is added to x first, in fp32,
        in the same command: layernorm(x + residual)."""
        x = _rows_of(x)
        kw = _norm_args(x, gamma, eps, residual)
        if beta is not None:
            kw["beta"] = _row_param(beta, x, "beta")
        return self._rows("layernorm", x, in_dtype, out_dtype, **kw)

    def rmsnorm(self, x, gamma, eps=1e-6, in_dtype="bf16", out_dtype=None, residual=None):
        """x / sqrt(mean(x^2) + eps) * gamma over each row; residual as layernorm's."""
        x = _rows_of(x)
        return self._rows("rmsnorm", x, in_dtype, out_dtype, **_norm_args(x, gamma, eps, residual))

    def gelu(self, x, in_dtype="bf16", out_dtype=None):
        """GELU, the tanh form (PyTorch's approximate="tanh"), elementwise: y has x's shape (0-D too)."""
        return self._rows("gelu", _rows_of(x, elementwise=True), in_dtype, out_dtype)

    def silu(self, x, in_dtype="bf16", out_dtype=None):
        """SiLU, x * sigmoid(x), elementwise: y has x's shape (0-D too)."""
        return self._rows("silu", _rows_of(x, elementwise=True), in_dtype, out_dtype)

    def eltwise(self, op, x, y=None, in_dtype="bf16", out_dtype=None):
        """op(x, y) elementwise for float32 x and y of one shape, op "add", "mul", "max" or "min";
        or op(x) for "relu", "exp", "recip", "rsqrt" (y None). The device computes in fp32 from x
        (and y) rounded to bf16, or as they are with in_dtype "fp32". The result has x's shape (0-D
        too)."""
        x = _rows_of(x, elementwise=True)
        kw = {} if y is None else dict(b=_like(y, x, "y"))
        return self._rows("eltwise", x, in_dtype, out_dtype, op=op, **kw)

    def add(self, x, y, in_dtype="bf16", out_dtype=None):
        """x + y elementwise: eltwise("add", ...), e.g. a residual connection."""
        return self.eltwise("add", x, y, in_dtype, out_dtype)

    def relu(self, x, in_dtype="bf16", out_dtype=None):
        """max(x, 0) elementwise: eltwise("relu", ...); exact with in_dtype "fp32" and out_dtype
        "fp32"."""
        return self.eltwise("relu", x, None, in_dtype, out_dtype)

    # ---- attention --------------------------------------------------------------------------------
    def attention(self, q, k, v, causal=False, scale=None, out_dtype=None):
        """softmax(q k^T * scale + mask) v per head, in bf16 with fp32 accumulation: float32 q is
        ... x lq x d, k ... x lk x d, v ... x lk x dv, the leading dimensions (heads, batch) the same;
        the result is ... x lq x dv. scale default 1/sqrt(d). causal masks key j > query i + lk - lq
        (it needs lq <= lk). out_dtype "fp32" (default) or "bf16"."""
        q, k, v = _float32(q, "q"), _float32(k, "k"), _float32(v, "v")
        for a, what in ((q, "q"), (k, "k"), (v, "v")):
            _dims(a, what, min_ndim=2)
        if not (q.ndim == k.ndim == v.ndim and q.shape[:-2] == k.shape[:-2] == v.shape[:-2] and
                k.shape[-1] == q.shape[-1] and v.shape[-2] == k.shape[-2]):
            _fail(f"shape mismatch: q is {q.shape}, k {k.shape}, v {v.shape} (need ... x lq x d, ... x lk x d and "
                  f"... x lk x dv, the leading dimensions the same)")
        lead, (lq, d), (lk, dv) = q.shape[:-2], q.shape[-2:], v.shape[-2:]
        out = _out_dtype(out_dtype, "fp32")
        o = np.empty(lead + (lq, dv), np.float32)
        kw = {} if scale is None else dict(scale=scale)   # the library's rule (tessel_f32_arg)
        self.raw.attention(q=q, k=k, v=v, o=o, batch=math.prod(lead), lq=lq, lk=lk, d=d, dv=dv, out_dtype=out,
                           causal=bool(causal), **kw)
        return o

    # ---- custom kernels -------------------------------------------------------------------------
    def kernel(self, image):
        """A custom kernel (docs/python.md, "Custom kernels"): C for the control core built with
        sdk/kernel.mk (`make kernels` builds build/kernels/NAME.bin), given as the path of its image
        or the image's bytes. Its image is uploaded to the device once; calling the Kernel runs it
        (on the sim backend, or a board with a control core). A bad image (empty, larger than the
        kernel region, not whole words) raises tessel.Error EINVAL."""
        return Kernel(self, image)


class Kernel:
    """A kernel loaded on a Device by Device.kernel. k(*args, budget=None) runs it with up to 8
    integer arguments (each an int32 or a uint32; device addresses from dev.raw.alloc, sizes, scalars)
    and returns what the kernel returned (>= 0). Errors raise tessel.Error: a negative return is
    EDEVICE, its value in the message, and so is a trap (its mcause in the message); a kernel that runs longer than `budget` device cycles (default
    10 000 000) is stopped by the watchdog, the device is reset (commands still queued are dropped) and
    ETIMEOUT is raised; on the model backend, which has no control core, every call is EDEVICE
    ("cannot run kernels"). free() gives the image's memory back (also a context manager); a freed
    kernel raises EINVAL when called."""

    def __init__(self, dev, image):
        if isinstance(image, (bytes, bytearray, memoryview)):
            data = bytes(image)
        else:
            try:
                data = _read_file(image)
            except (OSError, TypeError) as e:
                _fail(f"kernel: cannot read the image {image!r}: {e}")
        self._raw = dev.raw
        self.addr, self.bytes = self._raw.kernel_load(data)

    def __call__(self, *args, budget=None):
        if self.addr is None:
            _fail("kernel: this kernel was freed")
        return self._raw.kernel_run(self.addr, self.bytes, args, 0 if budget is None else budget)

    def free(self):
        """Give the memory back: at once when nothing is queued, else after the queued commands."""
        if self.addr is not None:
            addr, self.addr = self.addr, None
            self._raw.free(addr)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.free()


def _from_bf16_bits(bits):
    """bf16 values (their 16-bit patterns) as float32: the high half of the float32's bits."""
    return (bits.astype(np.uint32) << 16).view(np.float32)


def _bf16_bits(x):
    """float32 x rounded to bf16 (to nearest even; a NaN stays a quiet NaN): the upper halves."""
    u = x.view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(x), np.uint16(0x7FC0), r)


class Pod(_Closes):
    """Chips joined by ICI (docs/pod.md): Pod(backend="model", chips=4, topology="ring"), or
    topology="torus" with dims=(dx, dy); backend "model" (the golden model) or "sim" (Verilated SoCs
    joined by links). devices holds each chip's Device (closed with the pod).

    The collectives take one numpy array per chip (int32 or float32, all of one shape; float32 as
    dtype="bf16" is rounded to bf16 on the way in and comes back as float32) and return one per chip,
    computed by the chips over ICI in docs/pod.md's fixed reduction order:
        all_reduce(arrays, op="sum")       each the reduction (op "sum", "max" or "min")
        reduce_scatter(arrays, op="sum")   chip i gets rows [i*k, (i+1)*k) of the reduction (k = rows / chips)
        all_gather(arrays)                 each the arrays stacked along their first axis
        broadcast(array, root=0)           each a copy of the root's array
    stats() gives the pod's counters; set_wait(cycles) the bound after which a chip that waits in vain
    for another gives up (the sim; docs/pod.md, "Faults"); a failure raises tessel.Error with the
    library's message."""

    def __init__(self, backend="model", chips=4, topology="ring", dims=None):
        dx, dy = (0, 0) if dims is None else _ints(dims, "dims", 1, 2)
        self.raw = _tessel.open_pod(backend, _int(chips, "chips", 1), topology, dx, dy)
        self.devices = []
        for raw in self.raw.devices():
            d = Device.__new__(Device)
            d._start(raw)
            self.devices.append(d)

    def stats(self):
        return self.raw.stats()

    def set_wait(self, cycles):
        self.raw.set_wait(_int(cycles, "cycles", 0))

    def _run(self, kind, arrays, op="sum", root=0, dtype=None):
        if len(arrays) != len(self.devices):
            _fail(f"{kind}: {len(arrays)} arrays for {len(self.devices)} chips")
        xs = [_array(a, "arrays") for a in arrays]
        x0 = xs[0]
        if any(x.shape != x0.shape or x.dtype != x0.dtype for x in xs):
            _fail(f"{kind}: the arrays differ in shape or dtype")
        have = {np.dtype(np.int32): "int32", np.dtype(np.float32): "fp32"}.get(x0.dtype)
        if have is None or dtype not in (None, have) and (have, dtype) != ("fp32", "bf16"):
            _fail(f"{kind}: arrays of {x0.dtype}: collectives take int32 or float32 (float32 as bf16 too)")
        dt = dtype or have
        n, count = len(xs), x0.size
        shape = x0.shape
        if kind == "reduce_scatter":
            if not x0.ndim or shape[0] % n:
                _fail(f"reduce_scatter: the first axis ({shape[0] if x0.ndim else 'none'}) is not a multiple of "
                      f"{n} chips")
            count, shape = count // n, (shape[0] // n,) + shape[1:]
        elif kind == "all_gather":
            if not x0.ndim:
                _fail("all_gather: the arrays need a first axis")
            shape = (shape[0] * n,) + shape[1:]
        es = 2 if dt == "bf16" else 4
        size_in, size_out = x0.size * es, int(np.prod(shape)) * es
        if not count:
            _fail(f"{kind}: empty arrays")
        a_in = self.raw.alloc(size_in)
        try:
            a_out = self.raw.alloc(size_out)
            try:
                for d, x in zip(self.devices, xs):
                    d.raw.write(a_in, _bf16_bits(x) if dt == "bf16" else x)
                self.raw.collective(kind, dt, count, a_in, a_out, op=op, root=root)
                out = []
                for d in self.devices:
                    y = np.empty(shape, np.uint16 if dt == "bf16" else x0.dtype)
                    d.raw.read(a_out, y)
                    out.append(_from_bf16_bits(y) if dt == "bf16" else y)
                return out
            finally:
                self.raw.free(a_out)
        finally:
            self.raw.free(a_in)

    def all_reduce(self, arrays, op="sum", dtype=None):
        return self._run("all_reduce", arrays, op=op, dtype=dtype)

    def reduce_scatter(self, arrays, op="sum", dtype=None):
        return self._run("reduce_scatter", arrays, op=op, dtype=dtype)

    def all_gather(self, arrays, dtype=None):
        return self._run("all_gather", arrays, dtype=dtype)

    def broadcast(self, array, root=0, dtype=None):
        root = _int(root, "root", 0)
        if root >= len(self.devices):
            _fail(f"broadcast: root {root} is not a chip of the {len(self.devices)}")
        x = _array(array, "array")
        return self._run("broadcast", [x] * len(self.devices), root=root, dtype=dtype)
