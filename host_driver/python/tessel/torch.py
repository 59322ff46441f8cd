"""tessel.torch: a torch.nn model's matrix products, convolutions, activations, norms and softmax
on a Tessel device, forward and backward (docs/python.md, "PyTorch").

    import tessel.torch
    run = tessel.torch.compile(model, mode="debug", backend="model")
    loss = run(x, y)            # torch tensors in and out, as model(x, y)
    loss.backward()             # the backward's products run on the device too

How (PyTorch 1.13): a TorchDispatchMode (torch.utils._python_dispatch) sees every aten op below
autograd, those autograd runs in a backward included; each op runs on the device when a device
command fits it and on the host otherwise. A torch.autograd.Function around the module enters the
mode for the forward and again for the backward, which autograd runs later, outside run(). torch.fx
names the module's graph for the compilation cache.

Modes: "debug" runs one op at a time and compares each device result with PyTorch's CPU result of
the same op (within the bounds below; a mismatch raises tessel.Error EMISMATCH naming the op). On
the sim, every command is also checked against the golden model (Device(check=True)). "strict" and
"fused" are not implemented yet: compile() refuses them.

The cache: a plan is the list of aten ops a forward (and its backward) ran, in order, each with its
lowering (device or host, and how). Plans are keyed by the module's graph (the torch.fx code, the
module's repr and its parameters' shapes) and the inputs' shapes and dtypes, shared by every
compile() of the process. A call replays its plan, checking each op against the planned one (a
different op, from data-dependent control flow say, is planned again from there).

Numbers: the MXU's operands (GEMM, convolution) are rounded to bf16 and accumulated in FP32; the
row functions (softmax, layer norm, GELU) read FP32 and compute in FP32; results are float32.

The debug bounds (u = 2^-24, FP32's unit roundoff), from tests/torch/test_torch_ref.py's docstring.
The reference is the aten op in float64 on the inputs as the device reads them (bf16-rounded MXU
operands), so what is left is the device's FP32 arithmetic, and the host's where it finishes an op:
  - GEMM, batched GEMM, convolution and its input and weight gradients: K exact products summed in
    FP32 plus a bias: 2 (K + 1) u (sum|a b| + |bias|), the op on absolute values giving the sum.
  - softmax, layer norm, GELU (tanh form) of rows of n: (64 + n) u of the row's scale, its largest
    |y| (layer norm: max|gamma| max|x| / sqrt(var + eps) + max|beta|).
  - log-softmax, the device's softmax p then, on the host, (x - max) + log(max p): max p = 1/S for
    the row sum S, off by (64 + n) u relatively, its log by (65 + n) u; the host's subtraction,
    log and addition one rounding each: 2 ((65 + n) u + u (|x - max| + 2 log S + |y|)).
  - log-softmax's backward, g - p s with s = sum(g) and p the device's softmax of the output: p is
    exp(out) up to the row's sum of exp(out), 1 + dS, and the device's (64 + n) u max p; s is off
    by n u sum|g|, the product and the subtraction one rounding each:
    2 (|s| (p dS / (1 - dS) + (64 + n) u max p) + p n u sum|g| + u (p |s| + |y|)).
A wrong tap, transposition or row moves a result by a whole term, far above these.
"""
import collections
import math
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten, tree_unflatten

from . import Device, Error, _tessel

__all__ = ["compile", "MODES"]

MODES = ("debug", "strict", "fused")
U = 2.0**-24           # FP32's unit roundoff
aten = torch.ops.aten

# Plans by (graph, training, grad, input signature), shared by every compile() of the process.
_PLANS = {}


def _fail(status, message):
    raise Error(status, message)


def compile(module, mode="debug", backend="model", *, device=None):
    """A callable that runs module on a Tessel device: run(*args) returns what module(*args) does,
    as torch tensors, and autograd differentiates through it (the backward's ops on the device too).

    mode: "debug" (one op at a time, each device result checked against PyTorch's CPU result);
    "strict" and "fused" raise tessel.Error EINVAL (not implemented yet). backend: "model" or
    "sim" (opened here with check=True, every command compared with the golden model), or
    device=: an open tessel.Device to use instead. Only what runs inside run() reaches the device:
    to put a loss and its backward there, compile a module that returns the loss."""
    if not isinstance(module, torch.nn.Module):
        _fail(_tessel.EINVAL, f"module must be a torch.nn.Module, not {type(module).__name__}")
    if mode not in MODES:
        _fail(_tessel.EINVAL, f"mode must be one of {', '.join(map(repr, MODES))}, not {mode!r}")
    if mode != "debug":
        _fail(_tessel.EINVAL, f"mode {mode!r} is not implemented yet: only 'debug' runs today ('strict' and "
                              f"'fused' will replay the same plans)")
    return Compiled(module, mode, device if device is not None else Device(backend, check=backend != "model"))


class Compiled:
    """What compile() returns: call it as the module. .device is the tessel.Device it runs on;
    stats() and placement() and report() say what it planned and where each op ran."""

    def __init__(self, module, mode, device):
        self.module, self.mode, self.device = module, mode, device
        self._graph = _graph_key(module)
        self._counts = collections.Counter()       # plans, ops_planned, cached
        self._placed = collections.Counter()       # (op, where, why) -> calls

    def __call__(self, *args):
        plan = self._plan(args)
        params = [p for p in self.module.parameters() if p.requires_grad]
        needs_grad = torch.is_grad_enabled() and (params or any(_requires_grad(a) for a in args))
        if not needs_grad:
            with _Mode(self, plan.forward):
                return self.module(*args)
        spec = []
        outs = _Step.apply(self, plan, spec, len(args), *args, *params)
        return tree_unflatten(list(outs), spec[0])

    def _plan(self, args):
        key = (self._graph, self.module.training, torch.is_grad_enabled(), _signature(args))
        plan = _PLANS.get(key)
        if plan is None:
            plan = _PLANS[key] = _Plan()
            self._counts["plans"] += 1
        else:
            self._counts["cached"] += 1
        return plan

    def stats(self):
        """{"plans": graphs and input shapes planned, "ops_planned": aten ops planned (a call that
        replays a cached plan adds to neither), "cached": calls that found their plan cached}."""
        return {k: self._counts[k] for k in ("plans", "ops_planned", "cached")}

    def placement(self):
        """{aten op: where it ran}: "device", "device+host" (the device computes its products or
        rows, the host finishes it), "host" or "layout" (a view: the host changes strides only);
        an op that ran in two ways (GELU's two forms, say) lists both, "device|host"."""
        where = collections.defaultdict(set)
        for op, w, _ in self._placed:
            where[op].add(w)
        return {op: "|".join(sorted(w)) for op, w in sorted(where.items())}

    def report(self):
        """The placement of every op that ran, with its calls and what ran where, as text."""
        rows = sorted(self._placed.items(), key=lambda r: (r[0][1] == "layout", r[0][1], r[0][0]))
        width = max([len(op) for (op, _, _), _ in rows] + [2])
        return "\n".join(f"{op:<{width}}  {where:<11} {calls:>6}  {why}" for (op, where, why), calls in rows)

    def _execute(self, func, low, args, kwargs):
        self._placed[(_op_name(func), low.where, low.why)] += 1
        if low.run is None:
            return func(*args, **kwargs)
        out = low.run(self.device, *args, **kwargs)
        if self.mode == "debug":
            for part, got, ref, bound in low.check(out, *args, **kwargs):
                _compare(f"{_op_name(func)}{part}", got, ref, bound)
        return out


def _requires_grad(a):
    return isinstance(a, torch.Tensor) and a.requires_grad


# ---- plans and their keys --------------------------------------------------------------------------
class _Plan:
    """The aten ops of one graph's forward and backward, in order: (signature, lowering) each."""

    def __init__(self):
        self.forward, self.backward = [], []


def _graph_key(module):
    """What names module's computation: its torch.fx code (its control flow, constants and calls),
    its repr (each submodule's configuration) and its parameters' and buffers' shapes and dtypes. A
    module torch.fx cannot trace (data-dependent control flow) is named by its class; its plans stay
    right all the same, since every replayed op is checked against the planned one."""
    try:
        code = torch.fx.symbolic_trace(module).code
    except Exception:   # torch.fx raises several kinds of errors on untraceable code
        code = f"{type(module).__module__}.{type(module).__qualname__} (not traceable by torch.fx)"
    tensors = tuple((n, tuple(t.shape), t.dtype) for n, t in (*module.named_parameters(), *module.named_buffers()))
    return code, repr(module), tensors


def _signature(v):
    """A hashable description of arguments: tensors by shape, dtype and requires_grad, the rest as they are."""
    if isinstance(v, torch.Tensor):
        return ("tensor", tuple(v.shape), v.dtype, v.requires_grad)
    if isinstance(v, (list, tuple)):
        return tuple(_signature(x) for x in v)
    if isinstance(v, dict):
        return tuple((k, _signature(x)) for k, x in sorted(v.items()))
    return v


def _op_name(func):
    """aten.addmm for aten.addmm.default; aten.sum.dim_IntList keeps its overload."""
    name = str(func)
    return name[:-len(".default")] if name.endswith(".default") else name


class _Mode(TorchDispatchMode):
    """Runs each aten op of one forward or backward by its step of the plan, planning the op when
    it is not the one planned at that position."""

    def __init__(self, run, steps):
        super().__init__()
        self.run, self.steps, self.i = run, steps, 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        sig = (func, _signature(args), _signature(kwargs))
        if self.i < len(self.steps) and self.steps[self.i][0] == sig:
            low = self.steps[self.i][1]
        else:
            low = _lower(func, args, kwargs)
            del self.steps[self.i:]
            self.steps.append((sig, low))
            self.run._counts["ops_planned"] += 1
        self.i += 1
        return self.run._execute(func, low, args, kwargs)


class _Step(torch.autograd.Function):
    """One call of a compiled module as one autograd node: the forward runs the module under the
    mode, recording its own graph from leaves of the inputs and the parameters; the backward runs
    that graph's backward under the mode, so that the ops autograd emits reach the device too."""

    @staticmethod
    def forward(ctx, run, plan, spec, n_args, *tensors):
        args = [a.detach().requires_grad_() if _requires_grad(a) else a for a in tensors[:n_args]]
        with torch.enable_grad(), _Mode(run, plan.forward):
            out = run.module(*args)
        outs, tree = tree_flatten(out)
        if not all(isinstance(o, torch.Tensor) for o in outs):
            _fail(_tessel.EINVAL, "the module must return tensors (or lists, tuples or dicts of them)")
        spec.append(tree)
        ctx.run, ctx.plan, ctx.outs = run, plan, outs
        ctx.leaves = args + list(tensors[n_args:])
        ctx.mark_non_differentiable(*[o for o in outs if not o.requires_grad])
        return tuple(o.detach() for o in outs)

    @staticmethod
    def backward(ctx, *grads):
        pairs = [(o, g) for o, g in zip(ctx.outs, grads) if o.requires_grad]
        wanted = [t for t in ctx.leaves if _requires_grad(t)]
        with _Mode(ctx.run, ctx.plan.backward):
            got = iter(torch.autograd.grad([o for o, _ in pairs], wanted, [g for _, g in pairs], allow_unused=True))
        return (None,) * 4 + tuple(next(got) if _requires_grad(t) else None for t in ctx.leaves)


# ---- the debug check ----------------------------------------------------------------------------------
def _compare(op, got, ref, bound):
    """Raise EMISMATCH naming op when got (the device's float32) is not within bound of ref (float64)."""
    got = got.detach().to(torch.float64)
    diff = (got - ref).abs()
    bound = torch.broadcast_to(torch.as_tensor(bound, dtype=torch.float64), ref.shape)
    bad = ~((diff <= bound) | (got == ref) | (got.isnan() & ref.isnan()))
    if bad.any():
        i = tuple(bad.nonzero()[0].tolist())
        _fail(_tessel.EMISMATCH, f"{op}: the device's result differs from PyTorch's CPU result: {int(bad.sum())} of "
                                 f"{ref.numel()} outside the bound, first at {i}: expected {ref[i].item()!r}, got "
                                 f"{got[i].item()!r}, |error| {diff[i].item():.3g} > bound {bound[i].item():.3g}")


def _gemm_bound(k, abs_sum):
    """K exact bf16 products summed in FP32 with a bias: 2 (K + 1) u (sum|a b| + |bias|)."""
    return 2 * (k + 1) * U * abs_sum


def _row_bound(n, scale):
    """A row function of rows of n: (64 + n) u of the row's scale."""
    return (64 + n) * U * scale


def _bf16(t):
    """The float64 values the MXU multiplies: t rounded to bf16 (to nearest, ties to even)."""
    return None if t is None else t.detach().to(torch.bfloat16).to(torch.float64)


def _f64(t):
    return None if t is None else t.detach().to(torch.float64)


# ---- lowerings ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Lowering:
    """How one aten op runs. where: "device", "device+host", "host" or "layout"; why: what runs where,
    for the report; run(device, *args, **kwargs): the op's outputs (None: the op itself on the host);
    check(outputs, *args, **kwargs): [(part, got, reference, bound)] for the device's results."""
    where: str
    why: str
    run: object = None
    check: object = None


def _lower(func, args, kwargs):
    returns = func._schema.returns
    if returns and all(r.alias_info is not None and not r.alias_info.is_write for r in returns):
        return _Lowering("layout", "a view: only the strides change")
    planner = _PLANNERS.get(func)
    if planner is None:
        return _Lowering("host", _HOST_WHY.get(func, "no device lowering"))
    return planner(*args, **kwargs)


def _unfit(*tensors):
    """Why the device cannot take these tensors ("" when it can): float32, on the CPU, not empty, not 0-d."""
    for t in tensors:
        if t is None:
            continue
        if t.dtype != torch.float32 or t.device.type != "cpu":
            return f"{t.dtype} on {t.device} (the device takes float32 CPU tensors)"
        if t.dim() == 0 or t.numel() == 0:
            return f"a tensor of shape {tuple(t.shape)}"
    return ""


def _or_host(why, lowering):
    return _Lowering("host", why) if why else lowering


def _np(t):
    return t.detach().numpy()


def _nhwc(t):
    return _np(t).transpose(0, 2, 3, 1)


def _nchw(a):
    return torch.from_numpy(a).permute(0, 3, 1, 2).contiguous()


# GEMMs: y = a b (+ bias), the operands laid out (transposed, made contiguous) on the host.
def _plan_mm(a, b):
    return _or_host(_unfit(a, b), _Lowering("device", "GEMM", _mm_run, _mm_check))


def _mm_run(dev, a, b):
    return torch.from_numpy(dev.matmul(_np(a), _np(b)))


def _mm_check(out, a, b):
    a, b = _bf16(a), _bf16(b)
    return [("", out, a @ b, _gemm_bound(a.shape[1], a.abs() @ b.abs()))]


def _plan_addmm(bias, a, b, beta=1, alpha=1):
    why = _unfit(bias, a, b) or ("beta or alpha other than 1" if beta != 1 or alpha != 1 else "") or \
        ("a bias that is not one row" if bias.numel() != b.shape[1] or bias.shape[-1] != b.shape[1] else "")
    return _or_host(why, _Lowering("device", "GEMM with the bias", _addmm_run, _addmm_check))


def _addmm_run(dev, bias, a, b, beta=1, alpha=1):
    return torch.from_numpy(dev.matmul(_np(a), _np(b), bias=_np(bias).reshape(-1)))


def _addmm_check(out, bias, a, b, beta=1, alpha=1):
    a, b, bias = _bf16(a), _bf16(b), _f64(bias)
    return [("", out, torch.addmm(bias, a, b), _gemm_bound(a.shape[1], torch.addmm(bias.abs(), a.abs(), b.abs())))]


def _plan_bmm(a, b):
    return _or_host(_unfit(a, b), _Lowering("device", "a GEMM a block", _bmm_run, _bmm_check))


def _bmm_run(dev, a, b):
    return torch.from_numpy(dev.bmm(_np(a), _np(b)))


def _bmm_check(out, a, b):
    a, b = _bf16(a), _bf16(b)
    return [("", out, a @ b, _gemm_bound(a.shape[2], a.abs() @ b.abs()))]


# Convolutions: NCHW and OIHW in torch, NHWC and HWIO on the device; the host converts.
def _conv_unfit(x, w, transposed):
    return _unfit(x, w) or ("a transposed convolution" if transposed else "") or \
        ("a convolution that is not 2-D" if x.dim() != 4 else "")


def _plan_conv(x, w, bias, stride, padding, dilation, transposed, output_padding, groups):
    low = _Lowering("device", "CONV2D", _conv_run, _conv_check)
    return _or_host(_conv_unfit(x, w, transposed) or _unfit(bias), low)


def _conv_run(dev, x, w, bias, stride, padding, dilation, transposed, output_padding, groups):
    return _nchw(dev.conv2d(_nhwc(x), _np(w).transpose(2, 3, 1, 0), bias=None if bias is None else _np(bias),
                            stride=tuple(stride), padding=tuple(padding), dilation=tuple(dilation), groups=groups))


def _conv_check(out, x, w, bias, stride, padding, dilation, transposed, output_padding, groups):
    def conv(a, b, c):
        return aten.convolution(a, b, c, stride, padding, dilation, False, output_padding, groups)
    x, w, bias = _bf16(x), _bf16(w), _f64(bias)
    return [("", out, conv(x, w, bias), _gemm_bound(w[0].numel(), conv(x.abs(), w.abs(), _abs(bias))))]


def _abs(t):
    return None if t is None else t.abs()


def _plan_conv_backward(g, x, w, bias_sizes, stride, padding, dilation, transposed, output_padding, groups, mask):
    why = "grad_input: CONV2D of the gradient, dilated by the stride, by the flipped weights; grad_weight: " \
          "a GEMM a group of the gradient by the input's windows (unfolded on the host)"
    low = _Lowering("device+host" if mask[2] else "device", why + ("; grad_bias: a sum on the host" if mask[2] else ""),
                    _conv_backward_run, _conv_backward_check)
    return _or_host(_conv_unfit(x, w, transposed) or _unfit(g), low)


def _conv_backward_run(dev, g, x, w, bias_sizes, stride, padding, dilation, transposed, output_padding, groups, mask):
    dx = _conv_input_grad(dev, g, w, x.shape[2:], stride, padding, dilation, groups) if mask[0] else None
    dw = _conv_weight_grad(dev, g, x, w.shape, stride, padding, dilation, groups) if mask[1] else None
    return dx, dw, g.sum((0, 2, 3)) if mask[2] else None


def _conv_input_grad(dev, g, w, size, stride, padding, dilation, groups):
    """The input's gradient of a convolution: the gradient with stride - 1 zeros between its pixels,
    padded by d (k - 1) - p before and what makes the input's size after (cropped where that is
    negative), correlated with the weights flipped, their in and out channels swapped in each group."""
    n, cout, oh, ow = g.shape
    cin_g, kh, kw = w.shape[1:]
    sh, sw = stride
    spread = torch.zeros(n, (oh - 1) * sh + 1, (ow - 1) * sw + 1, cout)
    spread[:, ::sh, ::sw, :] = g.detach().permute(0, 2, 3, 1)
    pads = []
    for axis, (k, d, p, length) in enumerate(zip((kh, kw), dilation, padding, size)):
        lo, hi = d * (k - 1) - p, length - spread.shape[axis + 1] + p
        spread = spread.narrow(axis + 1, max(-lo, 0), spread.shape[axis + 1] - max(-lo, 0) - max(-hi, 0))
        pads += [max(lo, 0), max(hi, 0)]
    flipped = w.detach().flip(2, 3).reshape(groups, cout // groups, cin_g, kh, kw).permute(3, 4, 1, 0, 2)
    return _nchw(dev.conv2d(spread.numpy(), flipped.reshape(kh, kw, cout // groups, cin_g * groups).numpy(),
                            padding=tuple(pads), dilation=tuple(dilation), groups=groups))


def _conv_weight_grad(dev, g, x, w_shape, stride, padding, dilation, groups):
    """The weights' gradient: for each group, the gradient (cout/groups x pixels) times the input's
    windows (pixels x cin/groups kh kw), one batched GEMM."""
    cout, cin_g, kh, kw = w_shape
    n, _, oh, ow = g.shape
    cols = F.unfold(x.detach(), (kh, kw), dilation=dilation, padding=padding, stride=stride)
    a = g.detach().reshape(n, groups, cout // groups, oh * ow).permute(1, 2, 0, 3).reshape(groups, cout // groups, -1)
    b = cols.reshape(n, groups, cin_g * kh * kw, oh * ow).permute(1, 0, 3, 2).reshape(groups, -1, cin_g * kh * kw)
    return torch.from_numpy(dev.bmm(a.numpy(), b.numpy())).reshape(w_shape)


def _conv_backward_check(outs, g, x, w, bias_sizes, stride, padding, dilation, transposed, output_padding, groups,
                         mask):
    def backward(a, b, c):
        return aten.convolution_backward(a, b, c, bias_sizes, stride, padding, dilation, False, output_padding,
                                         groups, mask[:2] + [False])
    g, x, w = _bf16(g), _bf16(x), _bf16(w)
    ref, mag = backward(g, x, w), backward(g.abs(), x.abs(), w.abs())
    k = (w.shape[0] // groups * w[0, 0].numel(), g[:, 0].numel())   # products per grad_input and grad_weight value
    return [(f" ({part})", outs[i], ref[i], _gemm_bound(k[i], mag[i]))
            for i, part in enumerate(("grad_input", "grad_weight")) if mask[i]]


# Row functions: the rows along dim (moved last on the host, and back), read as FP32.
def _on_rows(x, dim, fn):
    """fn(the rows of x along dim, a 2-D float32 array) back in x's shape."""
    xt = x.detach().movedim(dim, -1)
    y = fn(np.ascontiguousarray(xt.numpy()).reshape(-1, xt.shape[-1]))
    return torch.as_tensor(y).reshape(xt.shape).movedim(-1, dim).contiguous()


def _plan_softmax(x, dim, half_to_float):
    why = _unfit(x) or ("half_to_float" if half_to_float else "")
    return _or_host(why, _Lowering("device", "ROWWISE SOFTMAX", _softmax_run, _softmax_check))


def _softmax_run(dev, x, dim, half_to_float):
    return _on_rows(x, dim, lambda r: dev.softmax(r, in_dtype="fp32"))


def _softmax_check(out, x, dim, half_to_float):
    ref = aten._softmax(_f64(x), dim, False)
    return [("", out, ref, _row_bound(x.shape[dim], ref.abs().amax(dim, keepdim=True)))]


def _plan_log_softmax(x, dim, half_to_float):
    why = _unfit(x) or ("half_to_float" if half_to_float else "")
    return _or_host(why, _Lowering("device+host", "ROWWISE SOFTMAX p; on the host, x - max + log(max p) (the device "
                                                  "has no logarithm)", _log_softmax_run, _log_softmax_check))


def _log_softmax_run(dev, x, dim, half_to_float):
    def rows(r):
        p = torch.from_numpy(dev.softmax(r, in_dtype="fp32"))
        r = torch.from_numpy(r)
        return (r - r.amax(1, keepdim=True)) + p.amax(1, keepdim=True).log()
    return _on_rows(x, dim, rows)


def _log_softmax_check(out, x, dim, half_to_float):
    x = _f64(x)
    ref = aten._log_softmax(x, dim, False)
    d = x - x.amax(dim, keepdim=True)
    n = x.shape[dim]
    return [("", out, ref, 2 * ((65 + n) * U + U * (d.abs() + 2 * (d - ref) + ref.abs())))]


def _plan_log_softmax_backward(g, out, dim, input_dtype):
    why = _unfit(g, out) or ("an input that was not float32" if input_dtype != torch.float32 else "")
    return _or_host(why, _Lowering("device+host", "ROWWISE SOFTMAX p of the output; on the host, g - p sum(g)",
                                   _log_softmax_backward_run, _log_softmax_backward_check))


def _log_softmax_backward_run(dev, g, out, dim, input_dtype):
    p = _on_rows(out, dim, lambda r: dev.softmax(r, in_dtype="fp32"))
    return g - p * g.sum(dim, keepdim=True)


def _log_softmax_backward_check(dx, g, out, dim, input_dtype):
    g, out = _f64(g), _f64(out)
    ref = aten._log_softmax_backward_data(g, out, dim, torch.float64)
    n, p, s = g.shape[dim], out.exp(), g.sum(dim, keepdim=True)
    ds = (1 - p.sum(dim, keepdim=True)).abs().clamp(max=0.5)
    e_p = p * ds / (1 - ds) + (64 + n) * U * p.amax(dim, keepdim=True)
    bound = 2 * (s.abs() * e_p + p * n * U * g.abs().sum(dim, keepdim=True) + U * (p * s.abs() + ref.abs()))
    return [("", dx, ref, bound)]


def _plan_gelu(x, approximate="none"):
    why = _unfit(x) or ("the erf form (approximate='none'); the device's GELU is the tanh form"
                        if approximate != "tanh" else "")
    return _or_host(why, _Lowering("device", "ROWWISE GELU (the tanh form)", _gelu_run, _gelu_check))


def _gelu_run(dev, x, approximate="none"):
    return _on_rows(x, -1, lambda r: dev.gelu(r, in_dtype="fp32"))


def _gelu_check(out, x, approximate="none"):
    ref = aten.gelu(_f64(x), approximate="tanh")
    return [("", out, ref, _row_bound(x.shape[-1], ref.abs().amax(-1, keepdim=True)))]


def _plan_relu(x):
    return _or_host(_unfit(x), _Lowering("device", "ELTWISE RELU in FP32", _relu_run, _relu_check))


def _relu_run(dev, x):
    return _on_rows(x, -1, lambda r: dev.relu(r, in_dtype="fp32", out_dtype="fp32"))


def _relu_check(out, x):
    return [("", out, aten.relu(_f64(x)), 0.0)]   # exact


def _plan_layer_norm(x, shape, w, b, eps):
    return _or_host(_unfit(x, w, b), _Lowering("device+host", "ROWWISE LAYERNORM; on the host, the mean and 1/std "
                                                             "the backward keeps", _layer_norm_run, _layer_norm_check))


def _layer_norm_run(dev, x, shape, w, b, eps):
    n = math.prod(shape)
    rows = x.detach().reshape(-1, n)
    gamma = np.ones(n, np.float32) if w is None else _np(w).reshape(n)
    y = dev.layernorm(rows.numpy(), gamma, None if b is None else _np(b).reshape(n), eps=eps, in_dtype="fp32")
    var, mean = torch.var_mean(rows, 1, unbiased=False)
    stats = x.shape[:x.dim() - len(shape)] + (1,) * len(shape)
    return torch.from_numpy(y).reshape(x.shape), mean.reshape(stats), torch.rsqrt(var + eps).reshape(stats)


def _layer_norm_check(outs, x, shape, w, b, eps):
    ref, _, rstd = aten.native_layer_norm(_f64(x), shape, _f64(w), _f64(b), eps)
    x_max = _f64(x).abs().amax(tuple(range(-len(shape), 0)), keepdim=True)   # each row's, in rstd's shape
    gamma = 1.0 if w is None else w.abs().max().item()
    beta = 0.0 if b is None else b.abs().max().item()
    return [(" (y)", outs[0], ref, _row_bound(math.prod(shape), gamma * x_max * rstd + beta))]


_PLANNERS = {
    aten.mm.default: _plan_mm,
    aten.addmm.default: _plan_addmm,
    aten.bmm.default: _plan_bmm,
    aten.convolution.default: _plan_conv,
    aten.convolution_backward.default: _plan_conv_backward,
    aten._softmax.default: _plan_softmax,
    aten._log_softmax.default: _plan_log_softmax,
    aten._log_softmax_backward_data.default: _plan_log_softmax_backward,
    aten.gelu.default: _plan_gelu,
    aten.relu.default: _plan_relu,
    aten.native_layer_norm.default: _plan_layer_norm,
}

# Why the ops without a lowering that training meets run on the host.
_NO_ELTWISE = "not lowered to tessel_eltwise's products and sums yet"
_HOST_WHY = {
    aten.relu_.default: "in place: the device writes a new tensor",
    aten.threshold_backward.default: "a comparison with the threshold (the VPU has no compare)",
    aten.gelu_backward.default: "GELU's derivative: no device function",
    aten.native_layer_norm_backward.default: f"products, row and column sums: {_NO_ELTWISE}",
    aten._softmax_backward_data.default: f"p (g - sum(g p)): {_NO_ELTWISE}",
    aten.nll_loss_forward.default: "a gather and a mean",
    aten.nll_loss_backward.default: "a scatter",
    aten.sum.dim_IntList: "a sum (a bias's gradient)",
    aten.is_same_size.default: "a shape comparison (autograd's)",
}
