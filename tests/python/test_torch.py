#!/usr/bin/env python3
"""make test-torch-device: tessel.torch (host_driver/python/tessel/torch.py) against PyTorch's CPU
ops in float64.

Usage: PYTHONPATH=build/python test_torch.py   (SEED=n replays; without it the seed is random)
Prints the seed first and "torch_device: N passed, M failed" last; a failure prints the case, the
first mismatch (index, expected, got) and the bound. Every case runs in debug mode, so each device
op is also checked by tessel.torch itself; the bounds here are this file's own.

  - forward of Linear, Conv2d (strides, padding, dilation, groups), ReLU, GELU (both forms),
    LayerNorm, Softmax and LogSoftmax modules, and of a small MLP and CNN;
  - backward of one step: the input's and the parameters' gradients of Linear and Conv2d, of GELU,
    LayerNorm and Softmax, and of a cross-entropy through log-softmax;
  - debug mode: a device result perturbed by a fraction of a bf16 ulp of the output's scale raises
    tessel.Error EMISMATCH naming the op, in a forward and in a backward;
  - the cache: a second call with the same shapes, forward and backward, plans nothing; nor does
    another compile() of a module of the same structure; new shapes plan once more; the cache keeps
    the PLAN_LIMIT most recently used plans;
  - the placement report of a training step; a bad mode and a non-module are refused;
    one Linear + GELU forward and backward on the simulated SoC;
  - strict mode: every numeric case above runs in strict mode too, within the same bounds; a
    transformer block, a host in-place change of a device result, and three SGD steps (strict and
    fused) equal debug mode's results bit for bit;
  - fused mode: a transformer block equals debug mode's bit for bit, its attention one ATTENTION
    command, its FFN's GELU and residual adds in their GEMM's epilogue, in fewer commands than
    strict, planned once; an MLP's and a CNN's ReLUs the RELU flag of their GEMM or convolution; a
    residual add taken by its GEMM only where nothing reads the residual after it; the results
    debug mode's; data-dependent control flow runs right; strict and fused forwards on the simulated
    SoC;
  - eager PyTorch's semantics in every mode: weights changed between calls in every way (no version
    bump, a new nn.Parameter, a tied weight through one user) are read at the next call, and a
    hand-written SGD loop trains as on the CPU; two instances of one architecture keep their own
    weights; in-place ops on the input and a buffer happen once, and compile() runs nothing;
    train/eval at every call, Dropout's mask and the generator's state the CPU's, BatchNorm's
    statistics updated once; attention with a scale of 0 (or 0 in FP32) is uniform; an eval
    TransformerEncoderLayer and MultiheadAttention under no_grad run their products on the device;
    a call mostly on the host warns once.

Bounds (U8 = 2^-8, bf16's unit roundoff; u = 2^-24, FP32's), against float64 of the unrounded inputs:
  - GEMMs and convolutions, and their input and weight gradients: the device rounds both operands
    to bf16 (2 U8 + U8^2 of each |product|) and sums K products and a bias in FP32 (2 (K + 1) u,
    tests/torch/test_torch_ref.py): (2 U8 + U8^2) S + 2.02 (K + 1) u (S + |bias|), S the op on
    absolute values. A bias's gradient is a sum on the host: 2 (M + 1) u sum|g| of M terms.
  - softmax, layer norm and GELU (tanh form) read FP32: (64 + n) u of the row's scale (its largest
    |y|; layer norm max|gamma| max|x| / sqrt(var + eps) + max|beta|); log-softmax 2 ((65 + n) u +
    u (|x - max| + 2 log S + |y|)) (tessel/torch.py derives it). ReLU and GELU's erf form run on the
    host: exact against torch's float32.
  - a chain (MLP, CNN): first-order running error analysis, each layer's E from its inputs' errors
    and its own as above, and |y - y64| <= 2 E (the 2 for the second-order terms).
  - the backward's elementwise ops, from the forward's saved values: GELU's derivative in FP32
    within 32 u |g| (1 + |x| k (1 + 3 c x^2) / 2) (every term's magnitude, tanh's cancellation in
    1 - t^2 included); ReLU's exact; softmax's p (g - sum(g p)) with p off by the device's d = (64 + n) u max p:
    2 (d (|g| + sum|g| p) + p d sum|g| + (n + 3) u p (|g| + sum|g| p)); layer norm's, with its mean
    and 1/std from FP32 (relative (n + 8) u): 4 (n + 8) u rstd (|a| + mean|a| + X mean(|a| X)) for
    the input (a = gamma g, X = |xhat| + rstd max|x|), 4 (n + 8) u sum|g| X + 2 (M + 1) u sum|g xhat|
    for gamma, a column sum for beta; the cross-entropy's (p - onehot) / N, p the device's softmax
    of the log-probabilities: 2 (p (e + sum p e) + (64 + n) u max p) / N + 2 u (|g| + p / N), e the
    log-softmax's bound.
"""
import collections
import math
import os
import sys
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import tessel
import tessel.torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_tessel as tt   # noqa: E402  (ok, check and expect_error count into tt.tally)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))
from transformer_modes import Block   # noqa: E402  (a transformer block as a user writes it)

U8, U = 2.0**-8, 2.0**-24
GELU_K, GELU_C = math.sqrt(2 / math.pi), 0.044715


def f64(t):
    return t.detach().double()


def mxu_bound(k, s, bias=0.0):
    return (2 * U8 + U8**2) * s + 2.02 * (k + 1) * U * (s + bias)


def row_bound(n, scale):
    return (64 + n) * U * scale


def check(what, got, ref, bound=None):
    """got (a float32 tensor) against ref (float64) within bound; exact when bound is None."""
    tt.check(what, got.detach().numpy(), f64(ref).numpy(), np.float32,
             None if bound is None else np.broadcast_to(f64(torch.as_tensor(bound)).numpy(), ref.shape))


def log_softmax_bound(x, dim=-1):
    """(log_softmax(x) in float64, its bound)."""
    d = x - x.amax(dim, keepdim=True)
    lse = d.exp().sum(dim, keepdim=True).log()
    return d - lse, 2 * ((65 + x.shape[dim]) * U + U * (d.abs() + 2 * lse + (d - lse).abs()))


def rand(rng, *shape, s=1.0):
    return torch.from_numpy(rng.standard_normal(shape).astype(np.float32) * np.float32(s))


MODE = ["debug"]   # the mode compiled() uses: main() runs the numeric cases in "debug", then in "strict"


def compiled(module):
    return tessel.torch.compile(module, mode=MODE[0], backend="model")


# ---- forward -----------------------------------------------------------------------------------------
def linear_case(rng, lead, k, n):
    m = nn.Linear(k, n)
    x = rand(rng, *lead, k)
    y = compiled(m)(x)
    w, b, x64 = f64(m.weight), f64(m.bias), f64(x)
    check(f"Linear {k}->{n} of {tuple(x.shape)}", y, x64 @ w.T + b, mxu_bound(k, x64.abs() @ w.abs().T, b.abs()))


def conv_geometries():
    """(cin, cout, kernel, stride, padding, dilation, groups, input h and w)."""
    return [(3, 8, 3, 1, 1, 1, 1, (8, 8)), (4, 6, 3, 2, 2, 2, 2, (9, 7)), (5, 4, 1, 1, 1, 1, 1, (5, 5)),
            (2, 4, (3, 2), (2, 1), (1, 0), 1, 2, (7, 6)), (6, 6, 3, 3, 0, 1, 6, (10, 11)),
            (3, 20, 2, 2, 0, 1, 1, (6, 6))]


def conv_module(geo):
    cin, cout, k, s, p, d, g, _ = geo
    return nn.Conv2d(cin, cout, k, stride=s, padding=p, dilation=d, groups=g)


def conv_ref(m, x, w, b):
    return F.conv2d(x, w, b, m.stride, m.padding, m.dilation, m.groups)


def conv_case(rng, geo):
    m = conv_module(geo)
    x = rand(rng, 2, geo[0], *geo[7])
    y = compiled(m)(x)
    w, b, x64 = f64(m.weight), f64(m.bias), f64(x)
    check(f"Conv2d {geo[:7]} of {tuple(x.shape)}", y, conv_ref(m, x64, w, b),
          mxu_bound(w[0].numel(), conv_ref(m, x64.abs(), w.abs(), b.abs())))


def rows_cases(rng):
    x = rand(rng, 3, 5, 24, s=3)
    check("ReLU", compiled(nn.ReLU())(x), F.relu(x))
    check("GELU, erf form (host)", compiled(nn.GELU())(x), F.gelu(x))
    ref = F.gelu(f64(x), approximate="tanh")   # float64's 1 + tanh cancels near -1: 2^-52 |x| more
    check("GELU, tanh form", compiled(nn.GELU(approximate="tanh"))(x), ref,
          row_bound(24, ref.abs().amax(-1, True)) + 2.0**-52 * f64(x).abs())
    for dim in (-1, 1):
        ref = F.softmax(f64(x), dim)
        check(f"Softmax(dim={dim})", compiled(nn.Softmax(dim))(x), ref,
              row_bound(x.shape[dim], ref.abs().amax(dim, True)))
    check("LogSoftmax(dim=-1)", compiled(nn.LogSoftmax(-1))(x), *log_softmax_bound(f64(x)))
    for shape in ((24,), (5, 24)):
        m = nn.LayerNorm(shape)
        with torch.no_grad():
            m.weight.copy_(1 + 0.5 * rand(rng, *shape))
            m.bias.copy_(0.5 * rand(rng, *shape))
        x64, n = f64(x), math.prod(shape)
        ref = F.layer_norm(x64, shape, f64(m.weight), f64(m.bias), m.eps)
        rows = x64.reshape(-1, n)
        scale = m.weight.abs().max().item() * rows.abs().amax(1) / (rows.var(1, unbiased=False) + m.eps).sqrt() + \
            m.bias.abs().max().item()
        check(f"LayerNorm{shape}", compiled(m)(x), ref, row_bound(n, scale.reshape(x.shape[:3 - len(shape)] +
                                                                               (1,) * len(shape))))


# A chain's first-order running error bound: each layer maps (exact value t, E_t) to its output's.
def chain(model, x):
    t, e = f64(x), torch.zeros(x.shape, dtype=torch.float64)
    for layer in model:
        if isinstance(layer, nn.Linear):
            w, b = f64(layer.weight).T, f64(layer.bias)
            ta, wa = t.abs(), w.abs()
            c = t @ w + b
            e = (e + U8 * ta) @ wa + ta @ (U8 * wa) + 2.02 * (w.shape[0] + 1) * U * (ta @ wa + b.abs())
        elif isinstance(layer, nn.Conv2d):
            w, b = f64(layer.weight), f64(layer.bias)
            ta, wa = t.abs(), w.abs()
            c = conv_ref(layer, t, w, b)
            e = conv_ref(layer, e + U8 * ta, wa, None) + conv_ref(layer, ta, U8 * wa, None) + \
                2.02 * (w[0].numel() + 1) * U * conv_ref(layer, ta, wa, b.abs())
        elif isinstance(layer, nn.ReLU):
            c = t.clamp(min=0)
        elif isinstance(layer, nn.GELU):
            th = torch.tanh(GELU_K * (t + GELU_C * t**3))
            c = 0.5 * t * (1 + th)
            slope = 0.5 * (1 + th) + 0.5 * t * (1 - th * th) * GELU_K * (1 + 3 * GELU_C * t * t)
            e = slope.abs() * e + row_bound(t.shape[-1], c.abs().amax(-1, True))
        elif isinstance(layer, nn.Flatten):
            c, e = t.flatten(1), e.flatten(1)
        t = c
    return t, e


def chain_case(rng, what, model, x):
    y = compiled(model)(x)
    ref, e = chain(model, x)
    check(f"{what} forward", y, ref, 2 * e)


# ---- backward -------------------------------------------------------------------------------------
def grads(step, module, x, r):
    """The gradients of sum(step(x) * r) for x and every parameter of module, by name ("x" for x)."""
    x = x.detach().requires_grad_()
    module.zero_grad()
    (step(x) * r).sum().backward()
    return {"x": x.grad, **{n: p.grad for n, p in module.named_parameters()}}


def linear_backward_case(rng):
    m = nn.Linear(37, 23)
    x, r = rand(rng, 12, 37), rand(rng, 12, 23)
    g = grads(compiled(m), m, x, r)
    x64, r64, w = f64(x), f64(r), f64(m.weight)
    check("Linear backward: input", g["x"], r64 @ w, mxu_bound(23, r64.abs() @ w.abs()))
    check("Linear backward: weight", g["weight"], r64.T @ x64, mxu_bound(12, r64.abs().T @ x64.abs()))
    check("Linear backward: bias", g["bias"], r64.sum(0), 2 * 13 * U * r64.abs().sum(0))


def conv_backward_case(rng, geo):
    m = conv_module(geo)
    x = rand(rng, 2, geo[0], *geo[7])
    with torch.no_grad():
        r = torch.randn_like(m(x))
    g = grads(compiled(m), m, x, r)
    x64, r64, w = f64(x), f64(r), f64(m.weight)
    args = ([0], m.stride, m.padding, m.dilation, False, [0, 0], m.groups, [True, True, False])
    ref = torch.ops.aten.convolution_backward(r64, x64, w, *args)
    mag = torch.ops.aten.convolution_backward(r64.abs(), x64.abs(), w.abs(), *args)
    what = f"Conv2d {geo[:7]} backward"
    check(f"{what}: input", g["x"], ref[0], mxu_bound(w.shape[0] // m.groups * w[0, 0].numel(), mag[0]))
    check(f"{what}: weight", g["weight"], ref[1], mxu_bound(r[:, 0].numel(), mag[1]))
    check(f"{what}: bias", g["bias"], r64.sum((0, 2, 3)), 2 * (r[:, 0].numel() + 1) * U * r64.abs().sum((0, 2, 3)))


def rows_backward_cases(rng):
    n = 24
    x, r = rand(rng, 6, n, s=2), rand(rng, 6, n)
    x64, r64 = f64(x), f64(r)

    m = nn.ReLU()
    check("ReLU backward", grads(compiled(m), m, x, r)["x"], torch.where(x64 > 0, r64, 0.0))

    m = nn.GELU(approximate="tanh")
    th = torch.tanh(GELU_K * (x64 + GELU_C * x64**3))
    slope = 0.5 * (1 + th) + 0.5 * x64 * (1 - th * th) * GELU_K * (1 + 3 * GELU_C * x64 * x64)
    size = 1 + 0.5 * x64.abs() * GELU_K * (1 + 3 * GELU_C * x64 * x64)
    check("GELU (tanh) backward", grads(compiled(m), m, x, r)["x"], slope * r64, 32 * U * r64.abs() * size)

    m = nn.Softmax(-1)
    p = F.softmax(x64, -1)
    d = row_bound(n, p.amax(-1, True))
    spread = r64.abs() + (r64.abs() * p).sum(-1, True)
    check("Softmax backward", grads(compiled(m), m, x, r)["x"], p * (r64 - (r64 * p).sum(-1, True)),
          2 * (d * spread + p * d * r64.abs().sum(-1, True) + (n + 3) * U * p * spread))

    m = nn.LayerNorm(n)
    with torch.no_grad():
        m.weight.copy_(1 + 0.5 * rand(rng, n))
        m.bias.copy_(0.5 * rand(rng, n))
    g = grads(compiled(m), m, x, r)
    gamma = f64(m.weight)
    rstd = 1 / (x64.var(-1, unbiased=False, keepdim=True) + m.eps).sqrt()
    xh = (x64 - x64.mean(-1, keepdim=True)) * rstd
    a = gamma * r64
    big = xh.abs() + rstd * x64.abs().amax(-1, True)
    ref_x = rstd * (a - a.mean(-1, True) - xh * (a * xh).mean(-1, True))
    check("LayerNorm backward: input", g["x"], ref_x, 4 * (n + 8) * U * rstd * (a.abs() + a.abs().mean(-1, True) +
                                                                            big * (a.abs() * big).mean(-1, True)))
    check("LayerNorm backward: weight", g["weight"], (r64 * xh).sum(0),
          4 * (n + 8) * U * (r64.abs() * big).sum(0) + 2 * 7 * U * (r64 * xh).abs().sum(0))
    check("LayerNorm backward: bias", g["bias"], r64.sum(0), 2 * 7 * U * r64.abs().sum(0))


class CrossEntropy(nn.Module):
    def forward(self, z, y):
        return F.cross_entropy(z, y)


def cross_entropy_case(rng):
    z, y = rand(rng, 16, 10, s=3).requires_grad_(), torch.from_numpy(rng.integers(0, 10, 16))
    loss = compiled(CrossEntropy())(z, y)
    loss.backward()
    lp, e = log_softmax_bound(f64(z))
    p, n = lp.exp(), len(z)
    onehot = F.one_hot(y, 10)
    check("cross-entropy forward", loss, -(lp * onehot).sum() / n, 2 * ((e * onehot).sum() / n + 17 * U * loss.abs()))
    dz = (p - onehot) / n
    check("cross-entropy backward", z.grad, dz,
          2 * (p * (e + (p * e).sum(1, True)) + row_bound(10, p.amax(1, True))) / n + 2 * U * (dz.abs() + p / n))


# ---- debug mode, the cache, the report, the modes, the sim ------------------------------------------
def perturbed(fn, scale):
    """fn with one output value moved by 2^-10 of the output's largest |value|: below a bf16 ulp."""
    def call(*args, **kwargs):
        y = fn(*args, **kwargs)
        y.reshape(-1)[len(y.reshape(-1)) // 2] += scale * 2.0**-10 * np.abs(y).max()
        return y
    return call


def debug_cases(rng):
    m = nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 4))
    run = compiled(m)
    run.device.matmul = perturbed(run.device.matmul, 1)
    tt.expect_error("debug: a perturbed GEMM raises, naming aten.addmm", lambda: run(rand(rng, 4, 16)), "EMISMATCH",
                    "aten.addmm: the device's result differs from PyTorch's CPU result")
    c = nn.Conv2d(3, 4, 3, padding=1)
    run = compiled(c)
    run.device.bmm = perturbed(run.device.bmm, -1)   # the weights' gradient only
    x = rand(rng, 2, 3, 6, 6)
    tt.ok(run(x).shape == (2, 4, 6, 6), "debug: the convolution's forward does not use bmm")
    tt.expect_error("debug: a perturbed weight gradient raises in the backward, naming it",
                    lambda: run(x).sum().backward(), "EMISMATCH", "aten.convolution_backward (grad_weight):")


def cache_cases(rng):
    def make():
        torch.manual_seed(1)
        return nn.Sequential(nn.Linear(12, 9), nn.GELU(approximate="tanh"), nn.Linear(9, 3))
    m = make()
    run = compiled(m)
    x = rand(rng, 5, 12)

    def step():
        run(x).sum().backward()
        return run.stats()
    first = step()
    second = step()
    tt.ok(first["plans"] == 1 and first["ops_planned"] > 0 and first["cached"] == 0,
          "cache: the first call plans its graph and ops", str(first))
    tt.ok(second == dict(first, cached=1), "cache: a second call with the same shapes plans nothing", str(second))
    other = compiled(make())
    other(x).sum().backward()
    tt.ok(other.stats() == {"plans": 0, "ops_planned": 0, "cached": 1},
          "cache: another compile() of the same structure and shapes plans nothing", str(other.stats()))
    run(rand(rng, 7, 12)).sum().backward()
    third = run.stats()
    tt.ok(third["plans"] == 2 and third["ops_planned"] > second["ops_planned"],
          "cache: new input shapes plan once more", str(third))
    wider = compiled(nn.Sequential(nn.Linear(12, 10), nn.GELU(approximate="tanh"), nn.Linear(10, 3)))
    wider(x)
    tt.ok(wider.stats()["plans"] == 1, "cache: a module of other weight shapes has a plan of its own",
          str(wider.stats()))

    # The cache keeps the PLAN_LIMIT most recently used plans: ever new shapes do not grow it
    limit, tessel.torch.PLAN_LIMIT = tessel.torch.PLAN_LIMIT, 3
    try:
        lru = compiled(make())
        with torch.no_grad():
            for rows in (1, 2, 3, 1, 4, 1, 2):
                lru(rand(rng, rows, 12))
        tt.ok(len(tessel.torch._PLANS) == 3 and lru.stats()["plans"] == 5 and lru.stats()["cached"] == 2,
              "cache: 3 plans kept; rows 1 stays (recently used), rows 2 was dropped and is planned again",
              f"{len(tessel.torch._PLANS)} cached, {lru.stats()}")
    finally:
        tessel.torch.PLAN_LIMIT = limit


def placement_case(rng):
    class Mlp(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Flatten(), nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 4))

        def forward(self, x, y):
            return F.cross_entropy(self.net(x), y)
    run = compiled(Mlp())
    run(rand(rng, 6, 4, 4), torch.from_numpy(rng.integers(0, 4, 6))).backward()
    want = {"aten.addmm": "device", "aten.mm": "device", "aten._log_softmax": "device+host",
            "aten._log_softmax_backward_data": "device", "aten.relu": "device", "aten.threshold_backward": "device",
            "aten.nll_loss_forward": "host", "aten.nll_loss_backward": "host", "aten.sum.dim_IntList": "host",
            "aten.t": "layout"}
    got = run.placement()
    tt.ok(all(got.get(op) == where for op, where in want.items()), "placement of an MLP's training step",
          f"got {got}")
    report = run.report()
    tt.ok(report.splitlines()[0].split()[1] == "device" and "GEMM" in report, "the report lists the device first",
          report)


def mode_cases():
    m = nn.Linear(3, 2)
    tt.expect_error("a bad mode is refused", lambda: tessel.torch.compile(m, mode="eager"), "EINVAL", "mode must be")
    tt.expect_error("a non-module is refused", lambda: tessel.torch.compile(lambda x: x), "EINVAL",
                    "torch.nn.Module")


def strict_cases(rng):
    """Strict mode queues each op's commands on tensors left in device memory: its results are the
    debug mode's bit for bit (the same commands; debug checked each op against PyTorch), with host
    ops, views, in-place changes and parameter updates in between."""
    torch.manual_seed(int(rng.integers(1 << 31)))
    block, x = Block(32, 2, 64).eval(), rand(rng, 16, 32)
    with torch.no_grad():
        runs = {mode: tessel.torch.compile(block, mode=mode) for mode in ("debug", "strict")}
        got = {mode: run(x) for mode, run in runs.items()}
    check("strict: a transformer block equals debug mode's", got["strict"], got["debug"])
    stats = runs["strict"].device.stats()["total"]
    place = runs["strict"].placement()
    tt.ok(stats["commands"] > 10 and place["aten.mul.Tensor"] == "device" and place["aten.clone"] == "host",
          "strict: the block ran as device commands, its scale too (ELTWISE MUL by the scalar), a clone on the host",
          f"{stats}; {place}")

    class InPlace(nn.Module):   # the host changes a device result in place: the next GEMM reads the new values
        def __init__(self):
            super().__init__()
            self.a, self.b = nn.Linear(12, 8), nn.Linear(8, 4)

        def forward(self, x):
            y = self.a(x)
            y.mul_(-2.0)
            return self.b(y), y
    m, x = InPlace(), rand(rng, 5, 12)
    with torch.no_grad():
        want = tessel.torch.compile(m, mode="debug")(x)
        have = tessel.torch.compile(m, mode="strict")(x)
    for i in range(2):
        check(f"strict: a host in-place change of a device result (output {i})", have[i], want[i])

    # Training: three SGD steps change the parameters between calls; strict re-reads them each step
    # (fused mode runs a call that needs gradients as strict mode does).
    def train(mode):
        torch.manual_seed(7)
        net = nn.Sequential(nn.Linear(20, 16), nn.ReLU(), nn.Linear(16, 4))
        run, opt = tessel.torch.compile(net, mode=mode), torch.optim.SGD(net.parameters(), lr=0.5)
        xs, ys = rand(np.random.default_rng(3), 8, 20), torch.arange(8) % 4
        for _ in range(3):
            opt.zero_grad()
            F.cross_entropy(run(xs), ys).backward()
            opt.step()
        return [p.detach().clone() for p in net.parameters()]
    want = train("debug")
    for mode in ("strict", "fused"):
        for i, (a, b) in enumerate(zip(train(mode), want)):
            check(f"{mode}: parameter {i} after three training steps is debug mode's", a, b)


def fused_cases(rng):
    """Fused mode plans a make_fx graph once: a transformer block's attention chain becomes one
    ATTENTION command, its GELU and residual adds its GEMMs' epilogues, results only MXU operands
    read are stored in BF16, and its result is debug mode's bit for bit (the same roundings) in fewer
    commands; the second call plans nothing. A
    module with data-dependent control flow runs as strict mode runs it (a captured graph would keep
    one branch), its branches both right."""
    torch.manual_seed(int(rng.integers(1 << 31)))
    block, x = Block(32, 2, 64).eval(), rand(rng, 16, 32)
    with torch.no_grad():
        want = tessel.torch.compile(block, mode="debug")(x)
        strict = tessel.torch.compile(block, mode="strict")
        strict(x)
        run = tessel.torch.compile(block, mode="fused")
        run.device.stats_reset()
        got = run(x)
        commands = run.device.stats()["total"]["commands"]
        again = run(x)
    check("fused: a transformer block equals debug mode's", got, want)
    check("fused: its second call too", again, want)
    place = run.placement()
    tt.ok(place.get("aten.bmm-mul-_softmax-bmm") == "device" and "aten.bmm" not in place and
          "aten._softmax" not in place, "fused: the attention ran as one ATTENTION command", run.report())
    tt.ok(place.get("aten.addmm+gelu") == "device" and "aten.gelu" not in place and
          place.get("aten.addmm+add") == "device" and "aten.add.Tensor" not in place,
          "fused: the FFN's GELU and both residual adds ran in their GEMM's epilogue", run.report())
    n_strict = strict.device.stats()["total"]["commands"]
    tt.ok(commands < n_strict, f"fused: {commands} commands, fewer than strict's {n_strict}")
    tt.ok(run.stats() == {"plans": 1, "ops_planned": run.stats()["ops_planned"], "cached": 1} and
          run.stats()["ops_planned"] > 0, "fused: the second call plans nothing", str(run.stats()))

    # An attention whose keys do not fit on chip: ATTENTION refuses it, the chain runs as its ops
    class Attend(nn.Module):
        def forward(self, q, k, v):
            return F.softmax(q @ k.transpose(1, 2) * 0.125, -1) @ v
    q, k, v = rand(rng, 1, 4, 64), rand(rng, 1, 4096, 64), rand(rng, 1, 4096, 8)
    with torch.no_grad():
        run = tessel.torch.compile(Attend(), mode="fused")
        got = run(q, k, v)
        want = tessel.torch.compile(Attend(), mode="debug")(q, k, v)
    check("fused: an attention too big for ATTENTION runs as its ops", got, want)

    # GEMM and convolution + ReLU chains: the RELU flag of one command
    for what, m, x in (("an MLP", nn.Sequential(nn.Linear(20, 16), nn.ReLU(), nn.Linear(16, 6), nn.ReLU()),
                        rand(rng, 5, 20)),
                       ("a CNN", nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Flatten(),
                                               nn.Linear(64, 5)), rand(rng, 2, 3, 4, 4))):
        with torch.no_grad():
            want = tessel.torch.compile(m, mode="debug")(x)
            run = tessel.torch.compile(m, mode="fused")
            got = run(x)
        check(f"fused: {what} with ReLUs equals debug mode's", got, want)
        place = run.placement()
        tt.ok("aten.relu" not in place and any(op.endswith("+relu") for op in place),
              f"fused: {what}'s ReLUs ran as the RELU flag of their GEMM or convolution", run.report())

    # A SwiGLU MLP, down(silu(gate(x)) * up(x)): the SiLU is its GEMM's epilogue (SILU), the product an
    # ELTWISE MUL; every op on the device
    class SwiGlu(nn.Module):
        def __init__(self):
            super().__init__()
            self.gate, self.up, self.down = nn.Linear(24, 40), nn.Linear(24, 40), nn.Linear(40, 24)

        def forward(self, x):
            return self.down(F.silu(self.gate(x)) * self.up(x))
    m, x = SwiGlu(), rand(rng, 6, 24)
    with torch.no_grad():
        want = tessel.torch.compile(m, mode="debug")(x)
        run = tessel.torch.compile(m, mode="fused")
        got = run(x)
    check("fused: a SwiGLU MLP equals debug mode's", got, want)
    place = run.placement()
    tt.ok(place.get("aten.addmm+silu") == "device" and place.get("aten.mul.Tensor") == "device" and
          "aten.silu" not in place and run.device_share() == 1.0,
          "fused: a SwiGLU MLP's SiLU ran in its GEMM's epilogue, its product as an ELTWISE MUL", run.report())

    # Residual adds in the GEMM (VPU_OP ADD, in r's buffer) only where nothing reads r after the add:
    # h is read after the first add (which stays an add), the second is its last reader (the GEMM
    # adds it in place); a bias row (a broadcast) stays an add, and so does one whose r is a view of
    # a result read after it (u)
    class Residual(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b, self.c = nn.Linear(8, 8), nn.Linear(8, 8), nn.Linear(8, 8)
            self.row = nn.Parameter(torch.randn(8))

        def forward(self, x):
            h = self.a(x)
            y = h + self.b(x)
            z = self.c(y) + h
            u = self.b(z)
            return z, y * 2, self.a(z) + self.row, u.view(-1, 8) + self.c(x), u * 2
    m, x = Residual(), rand(rng, 5, 8)
    with torch.no_grad():
        want = tessel.torch.compile(m, mode="debug")(x)
        run = tessel.torch.compile(m, mode="fused")
        got = run(x)
    for i, what in enumerate(("the last reader of its residual", "a residual read after it", "a bias row",
                              "a residual that is a view", "a residual whose view it reads")):
        check(f"fused: an add with {what} equals debug mode's", got[i], want[i])
    calls = collections.Counter()
    for line in run.report().splitlines()[:-1]:   # the last line is the device's share of the FLOPs
        op, _, n = line.split(None, 3)[:3]
        calls[op] += int(n)
    tt.ok(calls["aten.addmm+add"] == 1 and calls["aten.add.Tensor"] == 3,
          "fused: one of the four adds ran in its GEMM", run.report())

    # The GEMM's keyword arguments reach its command (beta scales the bias)
    class ScaledBias(nn.Module):
        def forward(self, b, x, w):
            return torch.relu(torch.addmm(b, x, w, beta=2.0))
    b, x, w = rand(rng, 6), rand(rng, 5, 7), rand(rng, 7, 6)
    with torch.no_grad():
        got = tessel.torch.compile(ScaledBias(), mode="fused")(b, x, w)
        want = tessel.torch.compile(ScaledBias(), mode="debug")(b, x, w)
    check("fused: addmm(beta=2) + ReLU equals debug mode's", got, want)

    class Branchy(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = nn.Linear(6, 5), nn.Linear(6, 5)

        def forward(self, x):
            return F.relu(self.a(x) if x.sum() > 0 else self.b(x))
    m = Branchy()
    with torch.no_grad():
        run = tessel.torch.compile(m, mode="fused")
        for sign in (1, -1):
            x = rand(rng, 3, 6).abs() * sign
            check(f"fused: data-dependent control flow, the {'first' if sign > 0 else 'second'} branch", run(x),
                  tessel.torch.compile(m, mode="debug")(x))


# ---- eager PyTorch's semantics (issue: front ends you can trust) ------------------------------------------
def linear_bound(x, w, b=None):
    """One Linear: bf16 operands, K products and the bias summed in FP32."""
    return mxu_bound(w.shape[1], f64(x).abs() @ f64(w).abs().T, 0.0 if b is None else f64(b).abs())


class Buffered(nn.Module):
    """A Linear whose forward updates a buffer and (optionally) its input in place."""
    def __init__(self, n=8, mutate_input=False):
        super().__init__()
        self.lin, self.mutate_input = nn.Linear(n, n), mutate_input
        self.register_buffer("calls", torch.zeros(1))

    def forward(self, x):
        self.calls.add_(1)
        if self.mutate_input:
            x.add_(1)
        return self.lin(x)


def eager_cases(rng):
    """Each mode keeps eager PyTorch's semantics: parameters changed between calls in every way
    (no version bump included) are read at the next call, two instances of one architecture keep
    their own weights, a replaced parameter is used, in-place ops on inputs and buffers happen once,
    compile() runs nothing, train/eval is honoured at every call (Dropout's mask and the generator's
    state are the CPU's, BatchNorm's statistics update once), attention with a scale of 0 is
    uniform, and PyTorch's fused inference paths (TransformerEncoderLayer, MultiheadAttention) run
    on the device."""
    x = rand(rng, 5, 8)
    for mode in tessel.torch.MODES:
        torch.manual_seed(int(rng.integers(1 << 31)))
        m = nn.Linear(8, 8)
        run = tessel.torch.compile(m, mode=mode)
        tied = nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 8))
        tied[1].weight = tied[0].weight
        run_tied = tessel.torch.compile(tied, mode=mode)
        with torch.no_grad():
            run(x)
            run_tied(x)

            def sgd():
                m.weight.data -= 0.5 * torch.ones_like(m.weight)

            def data_index():
                m.weight.data[2:5] = 3.0

            def numpy_write():
                m.weight.detach().numpy()[0, :] = -1.5

            def new_parameter():
                m.weight = nn.Parameter(torch.randn(8, 8))
            for what, change in (("p.data -= ...", sgd), ("weight.data.mul_(-2)", lambda: m.weight.data.mul_(-2)),
                                 (".data[...] = ...", data_index), ("a write through .detach().numpy()", numpy_write),
                                 ("a new nn.Parameter", new_parameter)):
                change()
                check(f"{mode}: a weight changed by {what} is read at the next call", run(x), m(x),
                      linear_bound(x, m.weight, m.bias))
            tied[0].weight.data.mul_(-1)   # through one of its two users
            check(f"{mode}: a tied weight changed through one user", run_tied(x), tied(x),
                  2 * mxu_bound(8, f64(x).abs() @ f64(tied[0].weight).abs().T @ f64(tied[1].weight).abs().T + 1, 1.0))

        # two instances of one architecture
        a, b = nn.Linear(8, 8), nn.Linear(8, 8)
        with torch.no_grad():
            tessel.torch.compile(a, mode=mode)(x)
            check(f"{mode}: a second instance of one architecture uses its own weights",
                  tessel.torch.compile(b, mode=mode)(x), b(x), linear_bound(x, b.weight, b.bias))

        # in-place ops on the input and a buffer happen once; compile() runs nothing
        for grad in (False, True):
            m2 = Buffered(mutate_input=True)
            run2 = tessel.torch.compile(m2, mode=mode)
            tt.ok(m2.calls.item() == 0, f"{mode}: compile() runs nothing (a buffer the forward updates is untouched)")
            xin = x.clone()
            with torch.set_grad_enabled(grad):
                y = run2(xin)
            tt.ok(m2.calls.item() == 1 and torch.equal(xin, x + 1),
                  f"{mode} (grad {grad}): one call updates the buffer once and moves the input by 1 once",
                  f"calls {m2.calls.item()}, input moved by {(xin - x).abs().max().item()}")
            check(f"{mode} (grad {grad}): the output of a forward that adds 1 to its input", y, m2.lin(x + 1),
                  linear_bound(x + 1, m2.lin.weight, m2.lin.bias))

        # train/eval at every call: Dropout's mask and the generator's state are the CPU's
        drop = nn.Sequential(nn.Linear(8, 64), nn.Dropout(0.5))
        run3 = tessel.torch.compile(drop, mode=mode)
        with torch.no_grad():
            for training in (True, False, True):
                drop.train(training)
                torch.manual_seed(11)
                got = run3(x)
                state = torch.get_rng_state()
                torch.manual_seed(11)
                want = drop(x)
                tt.ok(torch.equal(got == 0, want == 0) and torch.equal(state, torch.get_rng_state()),
                      f"{mode}: Dropout in {'train' if training else 'eval'} mode: the CPU's mask and generator state",
                      f"{int((got == 0).sum())} zeros, the CPU {int((want == 0).sum())}")
            drop.eval()
            tt.ok(torch.equal(run3(x), run3(x)), f"{mode}: two eval calls after a train call agree")

        # BatchNorm in train mode under no_grad: the running statistics update once per call
        bn = nn.Sequential(nn.Linear(8, 6), nn.BatchNorm1d(6)).train()
        ref = nn.Sequential(nn.Linear(8, 6), nn.BatchNorm1d(6)).train()
        ref.load_state_dict(bn.state_dict())
        with torch.no_grad():
            run4 = tessel.torch.compile(bn, mode=mode)
            run4(x)
            ref(x)
        tt.ok(bn[1].num_batches_tracked.item() == 1, f"{mode}: BatchNorm1d counts one batch per call",
              str(bn[1].num_batches_tracked.item()))
        lin = f64(x) @ f64(ref[0].weight).T + f64(ref[0].bias)
        var_bound = 0.1 * 4 * linear_bound(x, ref[0].weight, ref[0].bias).amax(0) * lin.abs().amax(0) + 1e-6
        check(f"{mode}: BatchNorm1d's running variance after one call", bn[1].running_var, ref[1].running_var,
              var_bound)

        # attention with a scale of 0 (or one that is 0 in FP32) is uniform: the mean of V
        class Attend(nn.Module):
            def __init__(self, scale):
                super().__init__()
                self.scale = scale

            def forward(self, q, k, v):
                return F.softmax(q @ k.transpose(1, 2) * self.scale, -1) @ v
        q, k, v = rand(rng, 2, 4, 8), rand(rng, 2, 6, 8), rand(rng, 2, 6, 8)
        for scale in (0.0, 1e-50, -1e-50):
            with torch.no_grad():
                got = tessel.torch.compile(Attend(scale), mode=mode)(q, k, v)
            check(f"{mode}: attention with a scale of {scale} is uniform", got, f64(v).mean(1, True).expand(2, 4, 8),
                  mxu_bound(6, f64(v).abs().mean(1, True).expand(2, 4, 8)) + 8 * U * f64(v).abs().amax())

        # PyTorch's fused inference paths run on the device
        layer = nn.TransformerEncoderLayer(16, 2, 32, batch_first=True).eval()
        mha = nn.MultiheadAttention(16, 2, batch_first=True).eval()
        xs = rand(rng, 2, 5, 16)
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("error", tessel.torch.HostFallbackWarning)
            run5 = tessel.torch.compile(layer, mode=mode)
            got, want = run5(xs), layer(xs)
            run6 = tessel.torch.compile(mha, mode=mode)
            (o, w), (o_ref, w_ref) = run6(xs, xs, xs), mha(xs, xs, xs)
        tt.ok(run5.placement().get("aten.addmm") == "device" and run5.device_share() > 0.9,
              f"{mode}: an eval TransformerEncoderLayer under no_grad runs its products on the device",
              run5.report())
        tt.ok(run6.placement().get("aten.addmm") == "device", f"{mode}: an eval MultiheadAttention too",
              run6.report())
        # a loose bound: two bf16-rounded layers normalised (the layer's own bound is derived in
        # examples/transformer); a path on the host alone would be off by 0, on wrong weights by O(1)
        tt.ok((got - want).abs().max() < 0.05 and (o - o_ref).abs().max() < 0.05 and (w - w_ref).abs().max() < 0.01,
              f"{mode}: the fused inference paths' results near the CPU's",
              f"{(got - want).abs().max():.3g} {(o - o_ref).abs().max():.3g} {(w - w_ref).abs().max():.3g}")

    # a call that runs most of its FLOPs on the host warns once, naming the ops
    class Host(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x):
            return self.lin(x).sin()
    run7 = tessel.torch.compile(Host(), mode="strict")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run7(rand(rng, 1, 4))   # 32 FLOPs on the device, 4 on the host: no warning
        run7(rand(rng, 300, 1).expand(300, 4))   # 2 400 on the device, 1 200 on the host, but the
        run7.module.lin = nn.Identity()          # next calls have no product: they warn, once
        run7(rand(rng, 2, 4))
        run7(rand(rng, 2, 4))
    host = [w for w in caught if issubclass(w.category, tessel.torch.HostFallbackWarning)]
    tt.ok(len(host) == 1 and "aten.sin" in str(host[0].message), "a call mostly on the host warns once, naming the op",
          str([str(w.message) for w in caught]))


def sgd_case(rng):
    """A hand-written SGD loop (p.data -= lr p.grad: no version bump) trains in every mode as on the CPU."""
    xs, ys = rand(rng, 16, 10), torch.arange(16) % 3
    losses = {}
    for mode in ("cpu",) + tessel.torch.MODES:
        torch.manual_seed(5)
        net = nn.Sequential(nn.Linear(10, 12), nn.ReLU(), nn.Linear(12, 3))
        run = net if mode == "cpu" else tessel.torch.compile(net, mode=mode)
        losses[mode] = []
        for _ in range(3):
            net.zero_grad()
            loss = F.cross_entropy(run(xs), ys)
            loss.backward()
            losses[mode].append(loss.item())
            for p in net.parameters():
                p.data -= 0.5 * p.grad
    for mode in tessel.torch.MODES:
        tt.ok(all(abs(a - b) < 0.02 * abs(b) for a, b in zip(losses[mode], losses["cpu"])) and
              losses[mode][2] < losses[mode][0] - 0.05,
              f"{mode}: a hand-written SGD loop's losses are the CPU's", f"{losses[mode]} vs {losses['cpu']}")


def sim_case(rng):
    """The sim's commands are the golden model's bit for bit (check=True compares each), and the host
    parts are the same: the forward and the gradients equal the model backend's."""
    m = nn.Sequential(nn.Linear(20, 12), nn.GELU(approximate="tanh"))
    x, r = rand(rng, 6, 20), rand(rng, 6, 12)
    got = {}
    for backend in ("model", "sim"):
        run = tessel.torch.compile(m, mode="debug", backend=backend)
        got[backend] = run(x), grads(run, m, x, r)
    for mode in ("strict", "fused"):
        with torch.no_grad():
            y = tessel.torch.compile(m, mode=mode, backend="sim")(x)
        check(f"sim: the {mode} forward is the model backend's debug forward", y, got["model"][0])
    ref, e = chain(m, x)
    check("sim: Linear + GELU forward", got["sim"][0], ref, 2 * e)
    tt.ok(run.device.backend == "sim" and run.placement()["aten.mm"] == "device", "sim: the GEMMs ran on the sim",
          run.report())
    for name in ("x", "0.weight", "0.bias"):
        check(f"sim: the gradient of {name} is the model backend's", got["sim"][1][name], got["model"][1][name])


def main():
    seed = int(os.environ["SEED"]) if os.environ.get("SEED") else int.from_bytes(os.urandom(4), "little")
    print(f"torch_device: SEED={seed}", flush=True)
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    for MODE[0] in ("debug", "strict"):   # the numeric cases in each mode
        for lead, k, n in (((5,), 37, 23), ((2, 4), 16, 40), ((1,), 70, 3)):
            tt.guarded(linear_case, rng, lead, k, n)
        for geo in conv_geometries():
            tt.guarded(conv_case, rng, geo)
            tt.guarded(conv_backward_case, rng, geo)
        for fn in (rows_cases, linear_backward_case, rows_backward_cases, cross_entropy_case):
            tt.guarded(fn, rng)
        tt.guarded(chain_case, rng, "MLP", nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 32),
                                                         nn.GELU(approximate="tanh"), nn.Linear(32, 5)),
                   rand(rng, 8, 20))
        tt.guarded(chain_case, rng, "CNN", nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),
                                                         nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=2),
                                                         nn.GELU(approximate="tanh"), nn.Flatten(),
                                                         nn.Linear(128, 10)), rand(rng, 2, 3, 8, 8))
    MODE[0] = "debug"
    for fn in (debug_cases, cache_cases, placement_case, strict_cases, fused_cases, eager_cases, sgd_case, sim_case):
        tt.guarded(fn, rng)
    tt.guarded(mode_cases)
    return tt.tally.summary("torch_device")


if __name__ == "__main__":
    sys.exit(main())
