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
the sim, every command is also checked against the golden model (Device(check=True)). "strict"
adds each op's commands to one graph on tensors left in device memory (_Memory) and runs it, one
submission, only when the host reads one; its results are debug mode's bit for bit. "fused" captures the forward's aten graph
with make_fx and runs it as strict does, with attention chains made one ATTENTION command and the
results only MXU operands read stored in BF16 (_FusedPlan); a call that needs gradients, or a
module make_fx cannot capture, runs as strict.

The cache: a plan is the list of aten ops a forward (and its backward) ran, in order, each with
its lowering: structure, never data. Plans are keyed by the module's structure, read at each call
(_graph_key: submodules' classes, train/eval flags, hooks and plain attributes; tensors' names,
shapes and dtypes) and the inputs' shapes and dtypes, shared by every compile() of the process. A
call replays its plan, checking each op against the planned one (a different op, from
data-dependent control flow say, is planned again from there). Fused mode traces on fake tensors
with the module's tensors as graph inputs, bound at each call. One owner per tensor: a host-owned
tensor (parameter, buffer, input) is uploaded at each call that reads it, never kept from one call
to the next. PyTorch's fused inference paths (the transformer encoder layer's, multi-head
attention's) run as their ops (_DECOMPOSITIONS). Each call counts the FLOPs that ran where, and
warns once (HostFallbackWarning) when less than half ran on the device.

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
  - log-softmax's backward, g - p s with s = sum(g) (ROWWISE SUM) and p the device's softmax of
    the output: p is exp(out) up to the row's sum of exp(out), 1 + dS, and the device's
    (64 + n) u max p; s is off by n u sum|g|, the product and the subtraction one rounding each:
    2 (|s| (p dS / (1 - dS) + (64 + n) u max p) + p n u sum|g| + u (p |s| + |y|)).
  - the other backward ops built of ELTWISE and ROWWISE SUM commands (ReLU's, GELU's, softmax's,
    layer norm's): first-order bounds of their steps' roundings, in their check functions.
A wrong tap, transposition or row moves a result by a whole term, far above these.
"""
import collections
import math
import operator
import warnings
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten, tree_unflatten

from . import Device, Error, _Run, _tessel

__all__ = ["compile", "MODES", "HostFallbackWarning"]

MODES = ("debug", "strict", "fused")
U = 2.0**-24           # FP32's unit roundoff
aten = torch.ops.aten

# Plans by (graph, training, grad, input signature), shared by every compile() of the process: the
# PLAN_LIMIT most recently used (a process that sees ever new shapes keeps a bounded memory).
PLAN_LIMIT = 256
_PLANS = collections.OrderedDict()


def _cached(key):
    """(True, the plan of key) when it is cached, now the most recently used; else (False, None)."""
    if key not in _PLANS:
        return False, None
    _PLANS.move_to_end(key)
    return True, _PLANS[key]


def _cache(key, plan):
    """plan, cached under key; the least recently used plans beyond PLAN_LIMIT are dropped."""
    _PLANS[key] = plan
    while len(_PLANS) > max(PLAN_LIMIT, 1):
        _PLANS.popitem(last=False)
    return plan


def _fail(status, message):
    raise Error(status, message)


def compile(module, mode="debug", backend="model", *, device=None):
    """A callable that runs module on a Tessel device: run(*args) returns what module(*args) does,
    as torch tensors, and autograd differentiates through it (the backward's ops on the device too).

    mode: "debug" (one op at a time, each device result checked against PyTorch's CPU result);
    "strict" (each op's device commands added to one graph on tensors left in device memory, run
    when the host reads one); "fused" (the forward's aten graph planned once, attention chains as
    one command, results stored as their consumers read them). backend: "model" or
    "sim" (opened here with check=True, every command compared with the golden model), or
    device=: an open tessel.Device to use instead. Only what runs inside run() reaches the device:
    to put a loss and its backward there, compile a module that returns the loss."""
    if not isinstance(module, torch.nn.Module):
        _fail(_tessel.EINVAL, f"module must be a torch.nn.Module, not {type(module).__name__}")
    if mode not in MODES:
        _fail(_tessel.EINVAL, f"mode must be one of {', '.join(map(repr, MODES))}, not {mode!r}")
    return Compiled(module, mode, device if device is not None else Device(backend, check=backend != "model"))


class Compiled:
    """What compile() returns: call it as the module. .device is the tessel.Device it runs on;
    stats(), placement() and report() say what it planned and where each op ran, device_share()
    the share of the FLOPs the device computed."""

    def __init__(self, module, mode, device):
        self.module, self.mode, self.device = module, mode, device
        self.memory = _Memory(device) if mode != "debug" else None
        self._counts = collections.Counter()       # plans, ops_planned, cached
        self._placed = collections.Counter()       # (op, where, why) -> calls
        self._flops = collections.Counter()        # (op, where) -> FLOPs, over every call
        self._warned = False

    def __call__(self, *args, **kwargs):
        params = [p for p in self.module.parameters() if p.requires_grad]
        needs_grad = torch.is_grad_enabled() and (params or any(_requires_grad(a) for a in args))
        if torch.is_grad_enabled() and any(_requires_grad(a) for a in tree_flatten(kwargs)[0]):
            _fail(_tessel.EINVAL, "a keyword argument that requires grad: pass it as a positional argument")
        kwargs = dict(sorted(kwargs.items()))   # one order of their leaves for fused mode's graph inputs
        graph = _graph_key(self.module)   # per call: train/eval, replaced parameters, changed attributes
        if self.memory:
            self.memory.reset()   # the last call's device tensors: read back if still pending, then freed
        before = self._flops.copy()
        try:
            if self.mode == "fused" and not needs_grad:
                plan = self._fused_plan(graph, args, kwargs)
                if plan is not None:
                    return self._read(plan.run(self, args, kwargs))
            plan = self._plan(graph, args, kwargs)
            if not needs_grad:
                with _Mode(self, plan.forward):
                    out = self.module(*args, **kwargs)
                return self._read(out)
            spec = []
            outs = _Step.apply(self, plan, spec, kwargs, len(args), *args, *params)
            return tree_unflatten(list(outs), spec[0])
        finally:
            self._warn_host(self._flops - before)

    def _warn_host(self, flops):
        """Warn once when a call ran less than half of its FLOPs on the device, naming the host's ops."""
        total = sum(flops.values())
        host = collections.Counter()
        for (op, where), f in flops.items():
            if where == "host":
                host[op] += f
        if self._warned or not total or sum(host.values()) * 2 <= total:
            return
        self._warned = True
        ops = ", ".join(f"{op} ({f / total:.0%})" for op, f in host.most_common(5))
        warnings.warn(f"tessel.torch: this call ran {sum(host.values()) / total:.0%} of its FLOPs on the host: {ops}",
                      HostFallbackWarning, stacklevel=3)

    def _fused_plan(self, graph, args, kwargs):
        """The fused plan of this graph and these arguments' signature, or None when make_fx cannot
        capture the module (data-dependent control flow: then it runs as strict mode runs it)."""
        key = ("fused", graph, _signature((args, kwargs)))
        hit, plan = _cached(key)
        if hit:
            self._counts["cached"] += 1
            return plan
        try:
            plan = _FusedPlan(self.module, args, kwargs)
        except Exception:   # make_fx on fake tensors: data-dependent control flow, an op with no fake kernel
            plan = None
        else:
            self._counts["plans"] += 1
            self._counts["ops_planned"] += len(plan.gm.graph.nodes)
        return _cache(key, plan)

    def _read(self, tree):
        """tree, its tensors' device results read back (strict: the host reads them now), outside
        the dispatch mode (reading runs torch ops of its own)."""
        if self.memory:
            self.memory.sync(tree)
        return tree

    def _plan(self, graph, args, kwargs):
        key = (graph, torch.is_grad_enabled(), _signature((args, kwargs)))
        hit, plan = _cached(key)
        if hit:
            self._counts["cached"] += 1
            return plan
        self._counts["plans"] += 1
        return _cache(key, _Plan())

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

    def device_share(self):
        """The share of the FLOPs of every call so far that ran on the device (an op the device and
        the host share, "device+host", counts as the device's), or None before any FLOP ran."""
        total = sum(self._flops.values())
        return None if not total else sum(f for (_, w), f in self._flops.items() if w != "host") / total

    def report(self):
        """The placement of every op that ran, with its calls, FLOPs and what ran where, as text;
        last the device's share of the FLOPs."""
        rows = sorted(self._placed.items(), key=lambda r: (r[0][1] == "layout", r[0][1], r[0][0]))
        width = max([len(op) for (op, _, _), _ in rows] + [2])
        lines = [f"{op:<{width}}  {where:<11} {calls:>6} {self._flops[op, where]:>12}  {why}"
                 for (op, where, why), calls in rows]
        share = self.device_share()
        return "\n".join(lines + ([f"FLOPs on the device: {share:.1%}"] if share is not None else []))

    def _note(self, op, where, why, flops):
        self._placed[(op, where, why)] += 1
        self._flops[(op, where)] += flops

    def _execute(self, func, low, args, kwargs):
        out = self._run(func, low, args, kwargs)
        self._note(_op_name(func), low.where, low.why, 0 if low.where == "layout" else _flops(func, args, out))
        return out

    def _run(self, func, low, args, kwargs):
        if self.memory:
            if low.queue is not None:
                out = low.queue(self.memory, *args, **kwargs)
                if out is not None:
                    return out
            if low.where != "layout":   # a view reads nothing; every other op reads its inputs on the host
                self.memory.sync((args, kwargs))
        if low.run is None:
            return func(*args, **kwargs)
        out = low.run(self.device, *args, **kwargs)
        if self.mode == "debug":
            for part, got, ref, bound in low.check(out, *args, **kwargs):
                _compare(f"{_op_name(func)}{part}", got, ref, bound)
        return out


class HostFallbackWarning(UserWarning):
    """A compiled call ran less than half of its FLOPs on the device (once per compile())."""


def _flops(func, args, out):
    """The FLOPs of one aten op: 2 M N K for products (convolutions: 2 per tap of each output, their
    backward twice that), none for ops that make or copy tensors, one per output element for the
    rest."""
    if func in (aten.mm.default, aten.addmm.default, aten.bmm.default):
        a, b = (args[1], args[2]) if func is aten.addmm.default else args[:2]
        return 2 * a.shape[-1] * math.prod(a.shape[:-1]) * b.shape[-1]
    if func is aten.convolution.default:
        return 2 * out.numel() * args[1][0].numel()
    if func is aten.convolution_backward.default:
        return 4 * args[0].numel() * args[2][0].numel()
    if _op_name(func).split(".")[1].startswith(_NO_FLOPS):
        return 0
    return sum(t.numel() for t in tree_flatten(out)[0] if isinstance(t, torch.Tensor))


# Ops that make or copy tensors, computing nothing.
_NO_FLOPS = ("empty", "zeros", "ones", "full", "new_", "clone", "copy", "_to_copy", "lift", "arange", "scalar_tensor")


def _requires_grad(a):
    return isinstance(a, torch.Tensor) and a.requires_grad


# ---- plans and their keys --------------------------------------------------------------------------
class _Plan:
    """The aten ops of one graph's forward and backward, in order: (signature, lowering) each."""

    def __init__(self):
        self.forward, self.backward = [], []


_PLAIN = (bool, int, float, str, type(None))


def _state(module):
    """[(name, tensor)] of every tensor module's forward reads from its attributes: the parameters,
    buffers and plain tensor attributes of each submodule, a tied tensor under each of its names."""
    out = []
    for prefix, m in module.named_modules(remove_duplicate=False):
        pre = prefix + "." if prefix else ""
        named = [*m._parameters.items(), *m._buffers.items(),
                 *((k, v) for k, v in m.__dict__.items() if k[0] != "_" and isinstance(v, torch.Tensor))]
        out += [(pre + k, v) for k, v in named if v is not None]
    return out


def _graph_key(module):
    """What names module's computation, read at each call (it is structure, never data): each
    submodule's class, train/eval flag, hooks, a forward set on the instance and its plain
    attributes (numbers, strings, their tuples: a Dropout's p, a norm's eps, a flag that a custom
    forward branches on), and each tensor attribute's name, shape, dtype, requires_grad and which
    names share one tensor. Two instances of one architecture share plans; their tensors are bound
    at each call."""
    def plain(v):
        return isinstance(v, _PLAIN) or (isinstance(v, tuple) and all(plain(x) for x in v))
    mods = tuple((name, type(m), m.training, tuple(m._forward_pre_hooks.values()), tuple(m._forward_hooks.values()),
                  m.__dict__.get("forward"),
                  tuple(sorted((k, v) for k, v in m.__dict__.items() if k[0] != "_" and k != "training" and plain(v))))
                 for name, m in module.named_modules(remove_duplicate=False))
    state = _state(module)
    first = {}
    tensors = tuple((n, tuple(t.shape), t.dtype, t.requires_grad, first.setdefault(id(t), n)) for n, t in state)
    return mods, tensors


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
        if func in _DECOMPOSITIONS and not any(isinstance(a, torch.Tensor) and a.is_nested for a in args):
            self.run._note(_op_name(func), "decomposed", "PyTorch's fused inference path, as its ops", 0)
            with self:   # its ops through this mode, each on the device where it can run
                return _DECOMPOSITIONS[func](*args, **kwargs)
        if torch._C._dispatch_has_kernel_for_dispatch_key(func.name(), "CompositeImplicitAutograd"):
            with self:   # a composite op (linear, reshape, softmax), reached from inside this mode: its parts
                return func.decompose(*args, **kwargs)
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
    def forward(ctx, run, plan, spec, kwargs, n_args, *tensors):
        args = [a.detach().requires_grad_() if _requires_grad(a) else a for a in tensors[:n_args]]
        with torch.enable_grad(), _Mode(run, plan.forward):
            out = run.module(*args, **kwargs)
        outs, tree = tree_flatten(run._read(out))
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
            got = torch.autograd.grad([o for o, _ in pairs], wanted, [g for _, g in pairs], allow_unused=True)
        got = iter(ctx.run._read(got))
        return (None,) * 5 + tuple(next(got) if _requires_grad(t) else None for t in ctx.leaves)


# ---- PyTorch's fused inference paths, as their ops ------------------------------------------------------
# nn.TransformerEncoderLayer and nn.MultiheadAttention call one aten op each in eval mode without
# gradients; these run them as the ops of their training path, so that their products reach the
# device (and fused mode's attention chain sees them).
def _mha(query, key, value, embed_dim, heads, w_qkv, b_qkv, w_o, b_o, mask=None, need_weights=True,
         average_attn_weights=True, mask_type=None):
    """aten._native_multi_head_attention (batch first): softmax(Q K^T / sqrt(d) + mask) V of each
    head, projected. mask: boolean (True: left out) or additive; mask_type 1, the keys' padding
    (batch x keys), else broadcast against batch x heads x queries x keys."""
    b, lq, e = query.shape
    lk, d = key.shape[1], embed_dim // heads
    if query is key and key is value:
        q, k, v = F.linear(query, w_qkv, b_qkv).chunk(3, -1)
    else:
        (wq, wk, wv), (bq, bk, bv) = w_qkv.chunk(3), b_qkv.chunk(3)
        q, k, v = F.linear(query, wq, bq), F.linear(key, wk, bk), F.linear(value, wv, bv)

    def split(t, n):
        return t.reshape(b, n, heads, d).transpose(1, 2).reshape(b * heads, n, d)
    q, k, v = split(q, lq), split(k, lk), split(v, lk)
    s = torch.bmm(q, k.transpose(1, 2)) * (1 / math.sqrt(d))
    if mask is not None:
        m = mask.reshape(b, 1, 1, lk) if mask_type == 1 else mask
        s4 = s.reshape(b, heads, lq, lk)
        s = (s4.masked_fill(m, float("-inf")) if m.dtype == torch.bool else s4 + m).reshape(b * heads, lq, lk)
    p = torch.softmax(s, -1)
    o = F.linear(torch.bmm(p, v).reshape(b, heads, lq, d).transpose(1, 2).reshape(b, lq, e), w_o, b_o)
    if not need_weights:
        return o, None
    p = p.reshape(b, heads, lq, lk)
    return o, p.mean(1) if average_attn_weights else p


def _encoder_layer(src, embed_dim, heads, w_qkv, b_qkv, w_o, b_o, use_gelu, norm_first, eps, g1, beta1, g2, beta2,
                   w1, b1, w2, b2, mask=None, mask_type=None):
    """aten._transformer_encoder_layer_fwd: self-attention and the feed-forward block, each with its
    residual add and layer norm (before the block when norm_first, else after the add)."""
    def attention(x):
        return _mha(x, x, x, embed_dim, heads, w_qkv, b_qkv, w_o, b_o, mask, False, True, mask_type)[0]

    def ffn(x):
        h = F.linear(x, w1, b1)
        return F.linear(F.gelu(h) if use_gelu else F.relu(h), w2, b2)

    def norm(x, g, beta):
        return F.layer_norm(x, (embed_dim,), g, beta, eps)
    if norm_first:
        x = src + attention(norm(src, g1, beta1))
        return x + ffn(norm(x, g2, beta2))
    x = norm(src + attention(src), g1, beta1)
    return norm(x + ffn(x), g2, beta2)


_DECOMPOSITIONS = {
    aten._native_multi_head_attention.default: _mha,
    aten._transformer_encoder_layer_fwd.default: _encoder_layer,
}


# ---- strict mode: device tensors ----------------------------------------------------------------------
_ES = {"fp32": 4, "bf16": 2}


class _Home:
    """The device copy of a CPU tensor that a queued command makes: the tensor's storage stays
    unfilled until the host reads it (pending); bufs holds its device buffers by dtype ("fp32",
    "bf16"), the first one the command's, another made on the device when a command first reads it
    so; version is the tensor's when its copy was made (an in-place op on the host makes the copy
    stale). A tensor the host computes from pending ones later has no buffer but fill(), run when
    it is read."""

    def __init__(self, tensor, dtype=None, addr=None, fill=None):
        self.tensor, self.fill, self.pending = tensor, fill, True
        self.bufs = {} if dtype is None else {dtype: addr}
        self.version = tensor._version


class _Memory(_Run):
    """Strict and fused modes' device memory: the tensors that commands make (homes), by CPU
    storage; the commands, compiled into one graph as they come (a command the device cannot run is
    refused at once) and run as one program when the host reads a pending tensor. reset()
    (each call of the compiled module) reads back what is still pending and frees the rest. A
    host-owned tensor (a parameter, a buffer, an input) is uploaded at each call that reads it:
    nothing of it is kept from one call to the next. want: fused mode's dtype for the next
    command's result (None: "fp32")."""

    def __init__(self, device):
        super().__init__(device)
        self.device, self.homes, self.want = device, {}, None

    def reset(self):
        self.sync(list(h.tensor for h in self.homes.values()))
        self.free()
        self.homes = {}

    def sync(self, tree):
        """Fill every pending tensor of tree (nested lists, tuples, dicts): run the graph of the
        commands so far (one submission; they run in order), then read the results back."""
        pending = [h for t in tree_flatten(tree)[0] if isinstance(t, torch.Tensor)
                   for h in [self.homes.get(t.storage().data_ptr())] if h is not None and h.pending]
        if not pending:
            return
        self.run()
        for home in pending:
            home.pending = False
            if home.fill:
                home.fill()
            elif "fp32" in home.bufs:
                self.raw.read(home.bufs["fp32"], home.tensor.detach().numpy())
            else:   # bf16 only: the bits are the high half of the float32's
                bits = np.empty(home.tensor.shape, np.uint16)
                self.raw.read(home.bufs["bf16"], bits)
                home.tensor.detach().copy_(torch.from_numpy((bits.astype(np.uint32) << 16).view(np.float32)))

    def later(self, t, fill):
        """t, to be filled by fill() when the host reads it."""
        self.homes[t.storage().data_ptr()] = _Home(t, fill=fill)
        return t

    def output(self, shape):
        """A new CPU tensor, its device buffer and the buffer's dtype (want's) for a command's result."""
        dtype, self.want = self.want or "fp32", None
        t = torch.empty(shape)
        addr = self.alloc(_ES[dtype] * t.numel())
        self.homes[t.storage().data_ptr()] = _Home(t, dtype, addr)
        return t, addr, dtype

    def buffer(self, home, dtype):
        """home's device buffer in dtype: the first time, converted on the device (ELTWISE MOV; FP32 to
        BF16 rounds to nearest even, as the host's conversion)."""
        if dtype not in home.bufs:
            (have, src), = home.bufs.items()
            n = home.tensor.shape[-1] if home.tensor.dim() else 1
            home.bufs[dtype] = self.alloc(_ES[dtype] * home.tensor.numel())
            self.add(self.raw.eltwise_cmd("mov", src, home.bufs[dtype], home.tensor.numel() // n, n, have, dtype))
        return home.bufs[dtype]

    def place(self, t, dtype, fits):
        """(address of t's first element in dtype on the device, t's strides there in elements): t's
        home when t is a view of it whose strides fits() takes, else t uploaded, dense. t itself,
        not a view made here: a view made below autograd has a version counter of its own."""
        home = self.homes.get(t.storage().data_ptr())
        if home is not None and home.bufs and home.version == home.tensor._version and fits(t.stride()):
            return self.buffer(home, dtype) + t.storage_offset() * _ES[dtype], t.stride()
        return self.upload(t, dtype), torch.empty(t.shape, device="meta").stride()

    def matrix(self, t, dtype):
        """(address, elements between rows) of t's rows (its last axis) in dtype: rows of unit column
        stride, evenly spaced (1-D: one row; more than 2-D: contiguous)."""
        n = t.shape[-1]
        fits = (lambda st: st[-1] == 1 or n == 1) if t.dim() <= 2 else (lambda st: t.is_contiguous())
        addr, st = self.place(t, dtype, fits)
        return addr, st[0] if t.dim() == 2 else n

    def upload(self, t, dtype):
        """t (any layout, its pending data read first) as a dense row-major array in dtype, in a
        buffer of its own."""
        self.sync(t)
        data = t.detach().contiguous()
        data = (data.to(torch.bfloat16).view(torch.int16) if dtype == "bf16" else data).numpy()
        addr = self.alloc(data.nbytes)
        self.raw.write(addr, data)
        return addr


def _rows2(t):
    """(rows, n) when t's last axis holds dense rows evenly spaced (a C-contiguous tensor), else None."""
    return (t.numel() // t.shape[-1], t.shape[-1]) if t.dim() and t.is_contiguous() and t.numel() else None


def _q_gemm(mem, a, b, pc, dtype, bias=None, act=None):
    """Queue C = act(a b (+ bias)) into the dense matrix of dtype at pc: one GEMM command, bf16
    operands; act None, "relu" (the RELU flag), or the epilogue's last step by its name in
    tessel.EPILOGUES (its VPU_OP): "gelu" (the tanh form), ..., "add_c" (the matrix at pc is added,
    C = a b (+ bias) + C)."""
    m, k = a.shape
    n = b.shape[1]
    (pa, lda), (pb, ldb) = mem.matrix(a, "bf16"), mem.matrix(b, "bf16")
    mem.add(mem.raw.gemm_cmd(pa, pb, pc, m, n, k, "bf16", dtype, lda=lda, ldb=ldb,
                             bias=0 if bias is None else mem.matrix(bias, "fp32")[0], relu=act == "relu",
                             epilogue=None if act == "relu" else act))


def _q_rows(mem, x, encoder, n=None, **kw):
    """Queue the command of encoder ("rowwise_cmd", kw with its fn, or "eltwise_cmd", kw with its op)
    on FP32 rows of n (default: x's last axis), dense: y = f(x); None when x is not contiguous."""
    if _rows2(x) is None:
        return None
    n = n or x.shape[-1]
    px = mem.matrix(x, "fp32")[0]
    out, pc, dtype = mem.output(x.shape)
    mem.add(getattr(mem.raw, encoder)(x=px, y=pc, m=x.numel() // n, n=n, in_dtype="fp32", out_dtype=dtype, **kw))
    return out


# ---- fused mode: an aten graph, fused ------------------------------------------------------------------
# Ops that only re-view their input (make_fx's graphs put them between a producer and its consumers).
_VIEWS = {aten.t.default, aten.view.default, aten.transpose.int, aten.expand.default, aten._reshape_alias.default,
          aten._unsafe_view.default, aten.split.Tensor, aten.detach.default, operator.getitem}
_GEMMS = {aten.mm.default: (0, 1), aten.addmm.default: (1, 2), aten.bmm.default: (0, 1)}   # their MXU operands
_MM = {aten.mm.default, aten.addmm.default}   # the GEMMs whose command takes an epilogue's last step
_RELU_EPILOGUE = _MM | {aten.convolution.default}
# The activations that a GEMM's epilogue ends in (tessel.EPILOGUES): aten op -> (its name there, whether
# the op's kwargs are the step's function).
_LAST_STEPS = {aten.gelu.default: ("gelu", lambda kw: kw.get("approximate") == "tanh"),
               aten.silu.default: ("silu", lambda kw: True)}


def _epilogue_act(node, user):
    """"relu" or a name of tessel.EPILOGUES when user, node's one reader, is an activation that
    node's command applies itself: a ReLU after a GEMM or convolution (the RELU flag), a _LAST_STEPS
    op after a GEMM (its VPU_OP: GELU's tanh form, SiLU, ...); else None."""
    if user.target is aten.relu.default and node.target in _RELU_EPILOGUE:
        return "relu"
    name, takes = _LAST_STEPS.get(user.target, (None, None))
    return name if name and node.target in _MM and takes(user.kwargs) else None


def _capture(module, args, kwargs):
    """(module's forward as an aten graph, its outputs' tree spec), traced by make_fx on fake
    tensors, so that nothing runs: no in-place op, no random draw, no buffer update. Its inputs are
    module's tensors (_state) and then args' leaves, so that a plan holds structure only and the
    tensors are bound at each call (kwargs' leaves after args'). Raises when the forward cannot be
    captured so (data-dependent control flow, a tensor attribute assigned anew)."""
    from torch.fx.experimental.proxy_tensor import make_fx
    from torch.nn.utils.stateless import functional_call
    names = [n for n, _ in _state(module)]
    leaves, spec = tree_flatten((args, kwargs))
    out_spec = []

    def forward(state, leaves):
        values = dict(zip(names, state))
        a, kw = tree_unflatten(leaves, spec)
        out = functional_call(module, values, tuple(a), kw)
        if any(values[n] is not t for n, t in zip(names, state)):
            raise RuntimeError("the forward assigns a tensor attribute anew")
        flat, tree = tree_flatten(out)
        out_spec.append(tree)
        return flat
    gm = make_fx(forward, decomposition_table=_DECOMPOSITIONS, tracing_mode="fake")(
        [t for _, t in _state(module)], leaves)
    return gm, out_spec[0]


def _written(node):
    """Whether an op writes node's value in place (directly or through views of it)."""
    for u in node.users:
        schema = getattr(u.target, "_schema", None)
        if schema is not None and any(a.alias_info is not None and a.alias_info.is_write and
                                      i < len(u.args) and u.args[i] is node for i, a in enumerate(schema.arguments)):
            return True
        if u.target in _VIEWS and _written(u):
            return True
    return False


class _FusedPlan:
    """A module's forward as an aten graph (torch.fx's make_fx), planned once: the attention chains
    bmm(Q, K^T) [_unsafe_view] * scale -> _softmax -> bmm(P, V) that become one ATTENTION command,
    the ReLUs and GELUs that become their GEMM's or convolution's epilogue, the residual adds that
    become their GEMM's (VPU_OP ADD, in place), the clones that become no-ops (a contiguous input used
    once), and the device results that only MXU operands read, stored in BF16 by the command that
    makes them (no FP32 copy, no conversion). Every other op runs as strict mode runs it."""

    def __init__(self, module, args, kwargs):
        self.gm, self.out_spec = _capture(module, args, kwargs)
        nodes = list(self.gm.graph.nodes)
        self.attention = {}    # the final bmm of a chain -> (first bmm, the scale)
        self.skip = set()      # the chains' other nodes
        for b1 in nodes:
            chain = self._attention_chain(b1)
            if chain:
                self.attention[chain[-1]] = (b1, next(n.args[1] for n in chain if n.target is aten.mul.Tensor))
                self.skip.update(chain[:-1])
        # GEMMs and convolutions whose one reader is an activation they apply (the activation's node
        # is skipped)
        self.act = {n: u for n in nodes if len(n.users) == 1 for u in n.users if _epilogue_act(n, u)}
        self.skip.update(self.act.values())
        # clones that need no copy: of a value the graph made (not an input, whose caller sees it), read by
        # nothing else, neither written in place
        self.alias = {n for n in nodes if n.target is aten.clone.default and len(n.args[0].users) == 1 and
                      n.args[0].op == "call_function" and not _written(n)}
        self.bf16 = {n for n in nodes if self._mxu_only(n)}
        # residual adds: add(r, g) or add(g, r) in FP32, g a GEMM that only the add reads and r a
        # value, not a view of another (a getitem of an op's tuple of results is none), that nothing
        # reads after it, nor g (its operand): g adds r in place, in r's buffer (the GEMM is skipped)
        order = {n: i for i, n in enumerate(nodes)}
        self.residual = {}     # the add -> (its GEMM, r)
        for n in nodes:
            if n.target is not aten.add.Tensor or n.kwargs or n in self.bf16 or len(n.args) != 2 or \
                    not all(isinstance(a, torch.fx.Node) for a in n.args):
                continue
            for g, r in (n.args, n.args[::-1]):
                if g.target in _MM and len(g.users) == 1 and g not in self.skip and r is not g and \
                        r not in g.all_input_nodes and \
                        (r.target not in _VIEWS or
                         (r.target is operator.getitem and r.args[0].target is not aten.split.Tensor)) and \
                        all(u is n or (order[u] < order[n] and u.target not in _VIEWS) for u in r.users):
                    self.residual[n] = (g, r)
                    self.skip.add(g)
                    break
        self.lowering = {}     # node -> its _Lowering, planned at the first call

    @staticmethod
    def _attention_chain(b1):
        """[b1, ..., the final bmm] when b1 starts bmm -> [_unsafe_view] -> mul by a number (normal in
        FP32) -> _softmax of the last axis -> [expand, _reshape_alias] -> bmm as its first operand, each used once."""
        if b1.target is not aten.bmm.default:
            return None
        chain, n = [b1], b1
        for want in (aten._unsafe_view.default, aten.mul.Tensor, aten._softmax.default, aten.expand.default,
                     aten._reshape_alias.default, aten.bmm.default):
            if len(n.users) != 1:
                return None
            u = next(iter(n.users))
            if u.target is not want:
                if want in (aten._unsafe_view.default, aten.expand.default, aten._reshape_alias.default):
                    continue   # optional
                return None
            if want is aten.mul.Tensor and not _normal_f32(u.args[1]):
                return None   # ATTENTION's scale is a normal FP32 number (0 there means 1/sqrt(d))
            if want is aten._softmax.default and u.args[1] not in (-1, 2):
                return None
            if want is aten.bmm.default and u.args[0] is not n:
                return None
            chain.append(u)
            n = u
        return chain

    def _mxu_only(self, node):
        """Whether every value read from node's result is an MXU operand (through views and aliases)."""
        if not node.users:
            return False
        for u in node.users:
            if u in self.skip and u.target is aten.bmm.default:
                continue   # the chain's first bmm: Q or K^T of an ATTENTION
            if u.target in _VIEWS or u in self.alias:
                if not self._mxu_only(u):
                    return False
            elif u in self.attention:
                if u.args[1] is not node:
                    return False
            elif u.target not in _GEMMS or any(a is node for i, a in enumerate(u.args) if i not in _GEMMS[u.target]):
                return False
        return True

    def run(self, compiled, args, kwargs):
        """The forward's outputs: the module's tensors and the arguments bound to the graph's inputs now."""
        leaves = [t for _, t in _state(compiled.module)] + tree_flatten((args, kwargs))[0]
        mem, env, it = compiled.memory, {}, iter(leaves)

        def value(a):
            return env[a] if isinstance(a, torch.fx.Node) else a
        for node in self.gm.graph.nodes:
            if node.op == "placeholder":
                env[node] = next(it)
            elif node.op == "get_attr":
                env[node] = getattr(self.gm, node.target)
            elif node.op == "output":
                return tree_unflatten(list(torch.fx.node.map_aggregate(node.args[0], value)), self.out_spec)
            elif node in self.skip:
                continue
            elif node in self.act:
                act = self.act[node]
                mem.want = "bf16" if act in self.bf16 else None
                env[node] = env[act] = self._with_act(compiled, node, act,
                                                      torch.fx.node.map_aggregate(node.args, value),
                                                      torch.fx.node.map_aggregate(node.kwargs, value))
            elif node in self.residual:
                env[node] = self._with_residual(compiled, node, *self.residual[node], value)
            elif node in self.attention:
                b1, scale = self.attention[node]
                mem.want = "bf16" if node in self.bf16 else None
                q, kt, v = env[b1.args[0]], env[b1.args[1]], env[node.args[1]]
                h, lq, lk = q.shape[0], q.shape[1], kt.shape[2]
                compiled._note("aten.bmm-mul-_softmax-bmm", "device", "one ATTENTION command",
                               2 * h * lq * lk * (q.shape[2] + v.shape[2]) + 4 * h * lq * lk)
                env[node] = _q_attention(mem, q, kt, v, scale)
            else:
                a = torch.fx.node.map_aggregate(node.args, value)
                kw = torch.fx.node.map_aggregate(node.kwargs, value)
                if node.target is operator.getitem:
                    env[node] = a[0][a[1]]
                elif node in self.alias and a[0].is_contiguous():
                    env[node] = a[0]
                else:
                    low = self.lowering.get(node)
                    if low is None:
                        low = self.lowering[node] = _lower(node.target, a, kw)
                    mem.want = "bf16" if node in self.bf16 else None
                    env[node] = compiled._execute(node.target, low, a, kw)
            mem.want = None   # a command that did not take it (one that ran on the host) leaves none behind

    def _with_residual(self, compiled, add, g, r, value):
        """add = g + r as one GEMM that adds r's FP32 in place (VPU_OP ADD): in r's device buffer when
        a command made r and nothing reads it after (its home goes to the result), else in a dense
        copy of r; g then the add as two ops when the device cannot take g or the shapes differ."""
        mem, gargs, gkw = compiled.memory, torch.fx.node.map_aggregate(g.args, value), \
            torch.fx.node.map_aggregate(g.kwargs, value)
        low = self.lowering.get(g)
        if low is None:
            low = self.lowering[g] = _lower(g.target, gargs, gkw)
        t, (a, b) = value(r), (gargs[i] for i in _GEMMS[g.target])
        shape = (a.shape[0], b.shape[1])
        if low.where != "device" or tuple(t.shape) != shape:
            y = compiled._execute(g.target, low, gargs, gkw)
            args = torch.fx.node.map_aggregate(add.args, lambda a: y if a is g else value(a))
            return compiled._execute(add.target, _lower(add.target, args, {}), args, {})
        ptr = t.storage().data_ptr()
        home = mem.homes.get(ptr)
        if home is not None and "fp32" in home.bufs and home.version == t._version and t.is_contiguous() and \
                t.storage_offset() == 0 and t.storage().size() == t.numel():
            addr = mem.homes.pop(ptr).bufs["fp32"]
        else:
            addr = mem.upload(t, "fp32")
        out = torch.empty(shape)
        mem.homes[out.storage().data_ptr()] = _Home(out, "fp32", addr)
        bias = gargs[0] if g.target is aten.addmm.default else None
        _q_gemm(mem, a, b, addr, "fp32", bias, "add_c")
        compiled._note(f"{_op_name(g.target)}+add", "device", "GEMM adding the old C (VPU_OP ADD)",
                       _flops(g.target, gargs, out) + out.numel())
        return out

    def _with_act(self, compiled, node, act, args, kwargs):
        """node (a GEMM or convolution) with the activation node act that reads it, in its epilogue
        (_epilogue_act); run as two ops when the device cannot take node."""
        low = self.lowering.get(node)
        if low is None:
            low = self.lowering[node] = _lower(node.target, args, kwargs)
        kind = _epilogue_act(node, act)
        name = f"{_op_name(node.target)}+{kind}"
        if low.where == "device" and node.target is aten.convolution.default:
            compiled.memory.sync(args)
            out = _conv_run(compiled.device, *args, **kwargs, relu=True)
            compiled._note(name, "device", "CONV2D with the ReLU flag", _flops(node.target, args, out) + out.numel())
            return out
        if low.where == "device":
            queue = _addmm_queue if node.target is aten.addmm.default else _mm_queue
            out = queue(compiled.memory, *args, **kwargs, act=kind)
            how = "GEMM with the ReLU flag" if kind == "relu" else f"GEMM with {kind.upper()} (VPU_OP)"
            compiled._note(name, "device", how, _flops(node.target, args, out) + out.numel())
            return out
        y = compiled._execute(node.target, low, args, kwargs)
        return compiled._execute(act.target, _lower(act.target, (y,), act.kwargs), (y,), act.kwargs)


def _normal_f32(v):
    """Whether v is a Python number that is a normal FP32 number when rounded to one (not 0, not
    subnormal, not infinite or NaN)."""
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        return False
    with np.errstate(over="ignore"):
        f = abs(np.float32(v))
    return bool(np.isfinite(f) and f >= np.finfo(np.float32).tiny)


def _heads(w, rows):
    """fits() of a place() of heads of rows x w: unit column stride, and the heads side by side (w
    apart) or stacked (rows rows apart)."""
    return lambda st: st[2] == 1 and (st[0] == w or st[0] == rows * st[1])


def _q_attention(mem, q, kt, v, scale):
    """One ATTENTION command for softmax(q kt scale) v of h heads: q h x lq x d, kt h x d x lk, v
    h x lk x dv. Q and V are read where they are when both are column blocks of one row-major matrix
    each (HEAD_COLUMNS) or both stacked heads of rows, else uploaded stacked. Where the MXU has the
    transposed weight load (CFG_FEATURES.TRANSPOSE), K itself (kt's transpose) is read where it is
    when it lies as Q does (K_ROWS), else uploaded that way; without it K^T is read where it is when
    its rows are dense (the host transposes it otherwise).
    The command is waited for at once: when its tiles do not fit on chip (BAD_SHAPE) the chain runs
    as its ops instead, as strict mode runs them."""
    h, lq, d = q.shape
    lk, dv = v.shape[1:]
    (pq, q_st), (pv, v_st) = mem.place(q, "bf16", _heads(d, lq)), mem.place(v, "bf16", _heads(dv, lk))
    by_cols = q_st[0] == d and v_st[0] == dv
    if not by_cols and (q_st[0] != lq * q_st[1] or v_st[0] != lk * v_st[1]):   # one of each: both uploaded
        (pq, q_st), (pv, v_st) = (mem.upload(q, "bf16"), (lq * d, d, 1)), (mem.upload(v, "bf16"), (lk * dv, dv, 1))
    k_rows = (mem.device.info()["features"] >> _tessel.FEATURE["TRANSPOSE"]) & 1
    if k_rows and by_cols:   # K as lk x h x d: the heads side by side (as Q and V), rows ldb apart
        pk, k_st = mem.place(kt.permute(2, 0, 1), "bf16", lambda st: st[2] == 1 and st[1] == d)
        ldk = k_st[0]
    elif k_rows:             # K as h x lk x d: the heads stacked
        pk, k_st = mem.place(kt.transpose(1, 2), "bf16", lambda st: st[2] == 1 and st[0] == lk * st[1])
        ldk = k_st[1]
    else:
        pk, k_st = mem.place(kt, "bf16", lambda st: st[2] == 1 and st[0] == d * st[1])
        ldk = k_st[1]
    want = mem.want
    out, pc, dtype = mem.output((lq, h, dv) if by_cols else (h, lq, dv))
    try:   # refused at once when its tiles do not fit (BAD_SHAPE): then the three commands
        mem.add(mem.raw.attention_cmd(pq, pk, pv, pc, h, lq, lk, d, dv, dtype, ldq=q_st[1], ldk=ldk, ldv=v_st[1],
                                      ldo=h * dv if by_cols else dv, scale=scale, head_columns=by_cols,
                                      k_rows=bool(k_rows)))
    except Error as e:
        if e.status != _tessel.EDEVICE or "BAD_SHAPE" not in str(e):
            raise
        del mem.homes[out.storage().data_ptr()]
        p = _q_rows(mem, _q_ew(mem, "mul", _bmm_queue(mem, q, kt), float(np.float32(scale))), "rowwise_cmd",
                    fn="softmax")
        mem.want = want
        return _bmm_queue(mem, p, v)
    return out.transpose(0, 1) if by_cols else out


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
    check(outputs, *args, **kwargs): [(part, got, reference, bound)] for the device's results;
    queue(memory, *args, **kwargs): strict mode's, the op's outputs as device tensors with their
    commands queued (None: the operands do not fit; then the op runs as run() does, synchronised)."""
    where: str
    why: str
    run: object = None
    check: object = None
    queue: object = None


def _lower(func, args, kwargs):
    returns = func._schema.returns
    if func is aten._unsafe_view.default or \
            (returns and all(r.alias_info is not None and not r.alias_info.is_write for r in returns)):
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
    return _or_host(_unfit(a, b), _Lowering("device", "GEMM", _mm_run, _mm_check, _mm_queue))


def _mm_queue(mem, a, b, act=None):
    out, pc, dtype = mem.output((a.shape[0], b.shape[1]))
    _q_gemm(mem, a, b, pc, dtype, act=act)
    return out


def _mm_run(dev, a, b):
    return torch.from_numpy(dev.matmul(_np(a), _np(b)))


def _mm_check(out, a, b):
    a, b = _bf16(a), _bf16(b)
    return [("", out, a @ b, _gemm_bound(a.shape[1], a.abs() @ b.abs()))]


def _plan_addmm(bias, a, b, beta=1, alpha=1):
    why = _unfit(bias, a, b) or ("beta or alpha other than 1" if beta != 1 or alpha != 1 else "") or \
        ("a bias that is not one row" if bias.numel() != b.shape[1] or bias.shape[-1] != b.shape[1] else "")
    return _or_host(why, _Lowering("device", "GEMM with the bias", _addmm_run, _addmm_check, _addmm_queue))


def _addmm_queue(mem, bias, a, b, beta=1, alpha=1, act=None):
    out, pc, dtype = mem.output((a.shape[0], b.shape[1]))
    _q_gemm(mem, a, b, pc, dtype, bias, act)
    return out


def _addmm_run(dev, bias, a, b, beta=1, alpha=1):
    return torch.from_numpy(dev.matmul(_np(a), _np(b), bias=_np(bias).reshape(-1)))


def _addmm_check(out, bias, a, b, beta=1, alpha=1):
    a, b, bias = _bf16(a), _bf16(b), _f64(bias)
    return [("", out, torch.addmm(bias, a, b), _gemm_bound(a.shape[1], torch.addmm(bias.abs(), a.abs(), b.abs())))]


def _plan_bmm(a, b):
    return _or_host(_unfit(a, b), _Lowering("device", "a GEMM a block", _bmm_run, _bmm_check, _bmm_queue))


def _bmm_queue(mem, a, b):
    out, pc, dtype = mem.output((a.shape[0], a.shape[1], b.shape[2]))
    for i in range(a.shape[0]):
        _q_gemm(mem, a[i], b[i], pc + _ES[dtype] * i * a.shape[1] * b.shape[2], dtype)
    return out


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


def _conv_run(dev, x, w, bias, stride, padding, dilation, transposed, output_padding, groups, relu=False):
    return _nchw(dev.conv2d(_nhwc(x), _np(w).transpose(2, 3, 1, 0), bias=None if bias is None else _np(bias),
                            stride=tuple(stride), padding=tuple(padding), dilation=tuple(dilation), groups=groups,
                            relu=relu))


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
    return _or_host(why, _Lowering("device", "ROWWISE SOFTMAX", _softmax_run, _softmax_check, _softmax_queue))


def _softmax_queue(mem, x, dim, half_to_float):
    return _q_rows(mem, x, "rowwise_cmd", fn="softmax") if dim % x.dim() == x.dim() - 1 else None


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


def _last(t, dim):
    return dim % t.dim() == t.dim() - 1


def _queued(queue):
    """A lowering's run() from its queue(): the commands queued on a memory of their own (operands
    made contiguous first), then read back."""
    def run(dev, *args, **kwargs):
        mem = _Memory(dev)
        out = queue(mem, *[a.contiguous() if isinstance(a, torch.Tensor) else a for a in args], **kwargs)
        mem.reset()   # reads every result back, then frees the commands' buffers
        return out
    return run


def _q_ew(mem, op, a, b=None):
    """Queue ELTWISE op(a, b) of FP32 tensors: b a tensor of a's shape, a Python float (B_IMM) or None."""
    if b is None:
        return _q_rows(mem, a, "eltwise_cmd", op=op)
    if isinstance(b, float):
        return _q_rows(mem, a, "eltwise_cmd", op=op, imm=b)
    return _q_rows(mem, a, "eltwise_cmd", op=op, b=mem.matrix(b, "fp32")[0], ldb=b.shape[-1])


def _q_sum(mem, x):
    """Queue ROWWISE SUM: each row's sum, in every column of the row."""
    return _q_rows(mem, x, "rowwise_cmd", fn="sum")


def _plan_log_softmax_backward(g, out, dim, input_dtype):
    why = _unfit(g, out) or ("an input that was not float32" if input_dtype != torch.float32 else "") or \
        ("an axis other than the last" if not _last(g, dim) else "")
    return _or_host(why, _Lowering("device", "ROWWISE SOFTMAX p of the output and SUM of g; ELTWISE g - p sum(g)",
                                   _queued(_log_softmax_backward_queue), _log_softmax_backward_check,
                                   _log_softmax_backward_queue))


def _log_softmax_backward_queue(mem, g, out, dim, input_dtype):
    if _rows2(g) is None or _rows2(out) is None:
        return None
    p = _q_rows(mem, out, "rowwise_cmd", fn="softmax")
    return _q_ew(mem, "add", g, _q_ew(mem, "mul", _q_ew(mem, "mul", p, _q_sum(mem, g)), -1.0))


def _plan_softmax_backward(g, p, dim, input_dtype):
    why = _unfit(g, p) or ("an input that was not float32" if input_dtype != torch.float32 else "") or \
        ("an axis other than the last" if not _last(g, dim) else "")
    return _or_host(why, _Lowering("device", "ELTWISE and ROWWISE SUM: p (g - sum(g p))",
                                   _queued(_softmax_backward_queue), _softmax_backward_check, _softmax_backward_queue))


def _softmax_backward_queue(mem, g, p, dim, input_dtype):
    if _rows2(g) is None or _rows2(p) is None:
        return None
    r = _q_ew(mem, "mul", _q_sum(mem, _q_ew(mem, "mul", g, p)), -1.0)
    return _q_ew(mem, "mul", _q_ew(mem, "add", g, r), p)


def _softmax_backward_check(dx, g, p, dim, input_dtype):
    """FP32 roundings only (p is exact input): g p (u each), their row sum in the VPU's order (n u of
    sum|g p|), g - r (u), the product with p (u)."""
    g, p = _f64(g), _f64(p)
    ref = aten._softmax_backward_data(g, p, dim, torch.float64)
    n, gp = g.shape[dim], (g * p).abs().sum(dim, keepdim=True)
    r = (g * p).sum(dim, keepdim=True)
    return [("", dx, ref, 2 * (p * ((n + 1) * U * gp + U * (g - r).abs()) + U * ref.abs()))]


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
    return _or_host(why, _Lowering("device", "ROWWISE GELU (the tanh form)", _gelu_run, _gelu_check, _gelu_queue))


def _gelu_queue(mem, x, approximate="none"):
    return _q_rows(mem, x, "rowwise_cmd", fn="gelu")


def _gelu_run(dev, x, approximate="none"):
    return _on_rows(x, -1, lambda r: dev.gelu(r, in_dtype="fp32"))


def _gelu_check(out, x, approximate="none"):
    """The row bound, and float64's own error, 2^-52 |x|: its 1 + tanh cancels where tanh is near -1."""
    x = _f64(x)
    ref = aten.gelu(x, approximate="tanh")
    return [("", out, ref, _row_bound(x.shape[-1], ref.abs().amax(-1, keepdim=True)) + 2.0**-52 * x.abs())]


def _plan_silu(x):
    return _or_host(_unfit(x), _Lowering("device", "ROWWISE SILU", _silu_run, _silu_check, _silu_queue))


def _silu_queue(mem, x):
    return _q_rows(mem, x, "rowwise_cmd", fn="silu")


def _silu_run(dev, x):
    return _on_rows(x, -1, lambda r: dev.silu(r, in_dtype="fp32"))


def _silu_check(out, x):
    """The row bound, and |x| 2^-125: where sigmoid(x) < 2^-126 (x < -87.34) the device flushes it."""
    x = _f64(x)
    ref = aten.silu(x)
    return [("", out, ref, _row_bound(x.shape[-1], ref.abs().amax(-1, keepdim=True)) + 2.0**-125 * x.abs())]


# GELU's derivative (tanh form), on the device in ELTWISE commands: with s = -2k (x + c x^3) and
# p = 1 / (1 + exp(s)) (so that 1 + tanh(k (x + c x^3)) = 2 p, as ROWWISE GELU computes it) and
# w = 2k x (1 + 3c x^2), gelu'(x) = p (1 + (1 - p) w).
_GELU_K, _GELU_C = math.sqrt(2 / math.pi), 0.044715


def _plan_gelu_backward(g, x, approximate="none"):
    why = _unfit(g, x) or ("the erf form (approximate='none')" if approximate != "tanh" else "") or \
        (f"operands of shapes {tuple(g.shape)} and {tuple(x.shape)}" if g.shape != x.shape else "")
    return _or_host(why, _Lowering("device", "ELTWISE: g p (1 + (1 - p) w), p and w of x (18 commands)",
                                   _queued(_gelu_backward_queue), _gelu_backward_check, _gelu_backward_queue))


def _gelu_backward_queue(mem, g, x, approximate="none"):
    if _rows2(g) is None or _rows2(x) is None:
        return None
    x2 = _q_ew(mem, "mul", x, x)
    s = _q_ew(mem, "add", _q_ew(mem, "mul", _q_ew(mem, "mul", x2, x), _GELU_C), x)
    p = _q_ew(mem, "recip", _q_ew(mem, "add", _q_ew(mem, "exp", _q_ew(mem, "mul", s, -2 * _GELU_K)), 1.0))
    w = _q_ew(mem, "add", _q_ew(mem, "mul", x2, 3 * _GELU_C), 1.0)
    w = _q_ew(mem, "mul", _q_ew(mem, "mul", w, x), 2 * _GELU_K)
    q = _q_ew(mem, "add", _q_ew(mem, "mul", _q_ew(mem, "add", _q_ew(mem, "mul", p, -1.0), 1.0), w), 1.0)
    return _q_ew(mem, "mul", g, _q_ew(mem, "mul", q, p))


def _gelu_backward_check(dx, g, x, approximate="none"):
    """The first-order bound of the steps' roundings (u each, EXP 2u and RECIP 2.5u relative,
    the constants u each): s is off by 7u|s| (no cancellation: x and c x^3 have one sign), so
    p by P = p (7|s| + 5.5) u; w by 7u|w|; q = 1 + (1 - p) w by Q = |w| (P + u|1 - p|) + 8u|1 - p||w|
    + u|q|; the result by |g| (p Q + |q| P + u|d|) + u|g d|; twice that for the second-order terms,
    and the whole result where p is below FP32's normals (exp(s) overflows: the device gives 0).
    The reference is this form in float64: aten.gelu_backward's tanh form loses digits to 1 + tanh
    where tanh is near -1 (a result of 1e-12 relatively off by 1e-4 in float64)."""
    g, x = _f64(g), _f64(x)
    s = -2 * _GELU_K * (x + _GELU_C * x**3)
    p, w = torch.sigmoid(-s), 2 * _GELU_K * x * (1 + 3 * _GELU_C * x * x)
    big_p = p * (7 * s.abs() + 5.5) * U
    q = 1 + (1 - p) * w
    ref = g * p * q
    big_q = w.abs() * (big_p + U * (1 - p)) + 8 * U * (1 - p) * w.abs() + U * q.abs()
    bound = 2 * (g.abs() * (p * big_q + q.abs() * big_p + U * (p * q).abs()) + U * ref.abs())
    return [("", dx, ref, torch.where(p < 2.0**-126, ref.abs(), bound))]


def _plan_relu(x):
    return _or_host(_unfit(x), _Lowering("device", "ELTWISE RELU in FP32", _relu_run, _relu_check, _relu_queue))


def _relu_queue(mem, x):
    return _q_ew(mem, "relu", x)


def _relu_run(dev, x):
    return _on_rows(x, -1, lambda r: dev.relu(r, in_dtype="fp32", out_dtype="fp32"))


def _relu_check(out, x):
    return [("", out, aten.relu(_f64(x)), 0.0)]   # exact


# ReLU's backward, g where y > 0 (y the ReLU's output, >= 0): m = min(y 2^126, 1) is 1 for every
# normal y > 0 and 0 for y = 0, and g m is g or 0: exact (FP32 without subnormals: the VPU reads a
# subnormal as 0).
def _plan_threshold_backward(g, y, threshold):
    why = _unfit(g, y) or ("a threshold other than 0" if threshold != 0 else "") or \
        (f"operands of shapes {tuple(g.shape)} and {tuple(y.shape)}" if g.shape != y.shape else "")
    return _or_host(why, _Lowering("device", "ELTWISE: g min(y 2^126, 1)", _queued(_threshold_backward_queue),
                                   _threshold_backward_check, _threshold_backward_queue))


def _threshold_backward_check(out, g, y, threshold):
    ref = aten.threshold_backward(_f64(g), _f64(y), threshold)
    return [("", out, ref, torch.where(ref.abs() < 2.0**-126, ref.abs(), 0.0))]   # exact but for subnormals


def _threshold_backward_queue(mem, g, y, threshold):
    if _rows2(g) is None or _rows2(y) is None:
        return None
    return _q_ew(mem, "mul", g, _q_ew(mem, "min", _q_ew(mem, "mul", y, 2.0**126), 1.0))


def _plan_add(x, y, alpha=1):
    why = _unfit(x, y) or ("alpha other than 1" if alpha != 1 else "") or \
        (f"operands of shapes {tuple(x.shape)} and {tuple(y.shape)}" if x.shape != y.shape else "")
    return _or_host(why, _Lowering("device", "ELTWISE ADD in FP32", _add_run, _add_check, _add_queue))


def _add_run(dev, x, y, alpha=1):
    return torch.from_numpy(dev.add(_np(x), _np(y), in_dtype="fp32", out_dtype="fp32"))


def _add_check(out, x, y, alpha=1):
    ref = _f64(x) + _f64(y)
    return [("", out, ref, U * ref.abs())]   # one FP32 rounding


def _add_queue(mem, x, y, alpha=1):   # alpha is 1: _plan_add leaves any other to the host
    if _rows2(y) is None:
        return None
    return _q_ew(mem, "add", x, y)


def _plan_mul(x, y):
    scalar = not isinstance(y, torch.Tensor)
    why = _unfit(x) or ("a scalar that is no normal FP32 number" if scalar and not _normal_f32(y) else "") or \
        ("" if scalar else _unfit(y) or (f"operands of shapes {tuple(x.shape)} and {tuple(y.shape)}"
                                         if x.shape != y.shape else ""))
    return _or_host(why, _Lowering("device", "ELTWISE MUL in FP32" + (" by the scalar (B_IMM)" if scalar else ""),
                                   _mul_run, _mul_check, _mul_queue))


def _mul_run(dev, x, y):
    y = np.full(x.shape, y, np.float32) if not isinstance(y, torch.Tensor) else _np(y)
    return torch.from_numpy(dev.eltwise("mul", _np(x), y, in_dtype="fp32", out_dtype="fp32"))


def _mul_check(out, x, y):
    """One FP32 rounding (and a scalar's own), and 2^-126 where FTZ flushes a product below it."""
    ref = _f64(x) * (_f64(y) if isinstance(y, torch.Tensor) else float(y))
    return [("", out, ref, 2 * U * ref.abs() + 2.0**-126)]


def _mul_queue(mem, x, y):
    if isinstance(y, torch.Tensor) and _rows2(y) is None:
        return None
    return _q_ew(mem, "mul", x, y if isinstance(y, torch.Tensor) else float(np.float32(y)))


def _plan_layer_norm(x, shape, w, b, eps):
    return _or_host(_unfit(x, w, b), _Lowering("device+host", "ROWWISE LAYERNORM; on the host, the mean and 1/std "
                                                             "the backward keeps", _layer_norm_run, _layer_norm_check,
                                                _layer_norm_queue))


def _layer_norm_queue(mem, x, shape, w, b, eps):
    n = math.prod(shape)
    if w is None or _rows2(x) is None:
        return None
    y = _q_rows(mem, x, "rowwise_cmd", n, fn="layernorm", gamma=mem.matrix(w, "fp32")[0], eps=eps,
                beta=0 if b is None else mem.matrix(b, "fp32")[0])
    stats = x.shape[:x.dim() - len(shape)] + (1,) * len(shape)
    mean, rstd = torch.empty(stats), torch.empty(stats)

    def fill():   # the statistics the backward keeps, on the host from x
        mem.sync(x)
        var, mu = torch.var_mean(x.reshape(-1, n), 1, unbiased=False)
        mean.copy_(mu.reshape(stats))
        rstd.copy_(torch.rsqrt(var + eps).reshape(stats))
    return y, mem.later(mean, fill), mem.later(rstd, fill)


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


def _plan_layer_norm_backward(g, x, shape, mean, rstd, w, b, mask):
    why = _unfit(g, x, w) or ("the input's gradient not wanted" if not mask[0] else "") or \
        ("an affine norm without gamma" if w is None and (mask[1] or mask[2]) else "")
    return _or_host(why, _Lowering("device+host", "ELTWISE and ROWWISE SUM: rstd (a - mean(a) - xhat mean(a xhat)), "
                                                  "a = gamma g; on the host, the column sums of gamma's and beta's",
                                   _queued(_layer_norm_backward_queue), _layer_norm_backward_check,
                                   _layer_norm_backward_queue))


def _layer_norm_backward_queue(mem, g, x, shape, mean, rstd, w, b, mask):
    """The input's gradient on the device: x - mean and rstd come as rows (the forward's statistics,
    from the host, spread along each row), the row means by SUM times 1/n."""
    n = math.prod(shape)
    if _rows2(g) is None or _rows2(x) is None:
        return None
    mem.sync((mean, rstd) + ((g, x) if mask[1] or mask[2] else ()))
    rows = (x.numel() // n, n)
    g2, x2 = g.view(rows), x.view(rows)
    neg_mean, rs = (-mean).reshape(-1, 1).expand(rows).contiguous(), rstd.reshape(-1, 1).expand(rows).contiguous()
    xh = _q_ew(mem, "mul", _q_ew(mem, "add", x2, neg_mean), rs)
    a = g2 if w is None else _q_rows(mem, g2, "eltwise_cmd", op="mul", b=mem.matrix(w, "fp32")[0], b_row=True)
    minus_inv_n = -float(np.float32(1.0 / n))
    ma = _q_ew(mem, "mul", _q_sum(mem, a), minus_inv_n)
    t = _q_ew(mem, "mul", xh, _q_ew(mem, "mul", _q_sum(mem, _q_ew(mem, "mul", a, xh)), minus_inv_n))
    dx = _q_ew(mem, "mul", _q_ew(mem, "add", _q_ew(mem, "add", a, ma), t), rs).view(x.shape)
    gh = g2 * ((x2 + neg_mean) * rs)   # the parameters' gradients: column sums, on the host
    return dx, gh.sum(0).view(shape) if mask[1] else None, g2.sum(0).view(shape) if mask[2] else None


def _layer_norm_backward_check(outs, g, x, shape, mean, rstd, w, b, mask):
    """The input's gradient: first order, x - mean (u), its product with rstd (u) give xhat within
    2u|xhat|; a = gamma g (u); a row mean (the sum in the VPU's order and 1/n rounded: (n + 2) u of
    mean|.|); a xhat (4u); t = xhat mean(a xhat), a - mean(a) - t and the product with rstd (u each).
    Twice that. The parameters' gradients are the host's FP32 column sums of M rows of g xhat (xhat
    within 2u, the product u: (M + 4) u of sum|g xhat|) and of g ((M + 1) u of sum|g|), twice."""
    n, g, x, w = math.prod(shape), _f64(g), _f64(x), _f64(w)
    ref = aten.native_layer_norm_backward(g, x, shape, _f64(mean), _f64(rstd), w, _f64(b), mask)
    rows = (x.numel() // n, n)
    g2, x2, rs = g.reshape(rows), x.reshape(rows), _f64(rstd).reshape(-1, 1)
    xh = (x2 - _f64(mean).reshape(-1, 1)) * rs
    a = g2 if w is None else g2 * w.reshape(-1)
    e_xh = 2 * U * xh.abs()
    e_ma = (n + 2) * U * a.abs().mean(1, keepdim=True)
    m_ax = (a * xh).mean(1, keepdim=True)
    e_max = (n + 6) * U * (a * xh).abs().mean(1, keepdim=True)
    t = xh * m_ax
    e_t = m_ax.abs() * e_xh + xh.abs() * e_max + U * t.abs()
    u1 = a - a.mean(1, keepdim=True)
    e_u2 = U * a.abs() + e_ma + U * u1.abs() + e_t + U * (u1 - t).abs()
    checks = [(" (input)", outs[0], ref[0], 2 * (rs * e_u2 + U * ref[0].abs().reshape(rows)).reshape(x.shape))]
    for i, (part, terms, k) in enumerate(((" (weight)", g2 * xh, 4), (" (bias)", g2, 1)), 1):
        if mask[i]:
            checks.append((part, outs[i], ref[i], 2 * (rows[0] + k) * U * terms.abs().sum(0).reshape(ref[i].shape)))
    return checks


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
    aten.silu.default: _plan_silu,
    aten.relu.default: _plan_relu,
    aten.add.Tensor: _plan_add,
    aten.mul.Tensor: _plan_mul,
    aten.threshold_backward.default: _plan_threshold_backward,
    aten.gelu_backward.default: _plan_gelu_backward,
    aten._softmax_backward_data.default: _plan_softmax_backward,
    aten.native_layer_norm_backward.default: _plan_layer_norm_backward,
    aten.native_layer_norm.default: _plan_layer_norm,
}

# Why the ops without a lowering that training meets run on the host.
_HOST_WHY = {
    aten.relu_.default: "in place: the device writes a new tensor",
    aten.nll_loss_forward.default: "a gather and a mean",
    aten.nll_loss_backward.default: "a scatter",
    aten.sum.dim_IntList: "a sum (a bias's gradient)",
    aten.is_same_size.default: "a shape comparison (autograd's)",
}
