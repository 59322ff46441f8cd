#!/usr/bin/env python3
"""A transformer encoder block in bf16 on a Tessel device, against PyTorch in float32 within a derived bound.

usage: block.py [--work DIR] [--block PATH]

The block (docs/networks.md, "A transformer block") is post-LN, as torch.nn.TransformerEncoderLayer with
norm_first=False, GELU in its tanh form: sequence L = 64, d_model D = 128, H = 4 heads, FFN F = 512, layer
norm eps 1e-5. torch.manual_seed(SEED), SEED = 0 (printed), draws the weights (nn.Linear's init; the layer
norms' gains 1 + 0.1 N(0,1) and offsets 0.1 N(0,1), so that they matter) and then the input x ~ N(0,1), L x D.
They are saved as .npy in --work, and examples/transformer/block.c (--block) runs the block on the model
backend and on the simulated SoC, every op a libtessel command. Checks:
  - the torch float32 reference (F.linear, F.softmax, F.layer_norm, F.gelu) equals
    torch.nn.TransformerEncoderLayer on the same weights (to 1e-5);
  - each backend: |y_device - y_torch| <= B element by element, B = Z sigma + |y - y_torch|: sigma the
    standard deviation of the device's error from the first-order propagation of independent rounding
    errors in bound() below, Z = 6, and y the block computed in float64 (docs/networks.md derives it);
    also reported: the worst-case first-order bound E (2 E bounds it always, and is very loose);
  - the sim's y equals the model's bit for bit.
Prints a report, one JSON line with every figure, and last "transformer: N passed, M failed"; exit 1 when
a check fails.
"""
import argparse
import json
import math
import os
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

SEED = 0
L, D, H, FF, EPS = 64, 128, 4, 512, 1e-5
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
U, U32 = 2.0**-8, 2.0**-24      # unit roundoffs, round to nearest: bf16 (8 significant bits), FP32 (24)
R, R32 = U**2 / 3, U32**2 / 3   # variance of a relative rounding error, uniform on [-u, u]
SAFETY = 2                      # 2 E, for the second-order terms the worst-case bound E leaves out
Z = 6                           # standard deviations: P(one of 8192 Gaussian errors beyond) = 2e-5
GELU_K = math.sqrt(2 / math.pi)


# ---- the weights and the torch references ----------------------------------------------------------
def make_inputs():
    """The block's weights and input as the device reads them: float32, every weight K x N (in x out)."""
    torch.manual_seed(SEED)
    qkv, out, ff1, ff2 = (torch.nn.Linear(i, o) for i, o in ((D, 3 * D), (D, D), (D, FF), (FF, D)))
    g1, b1, g2, b2 = 1 + 0.1 * torch.randn(D), 0.1 * torch.randn(D), 1 + 0.1 * torch.randn(D), 0.1 * torch.randn(D)
    x = torch.randn(L, D)
    p = {"x": x, "wqkv": qkv.weight.T, "bqkv": qkv.bias, "wo": out.weight.T, "bo": out.bias,
         "ln1_g": g1, "ln1_b": b1, "w1": ff1.weight.T, "b1": ff1.bias, "w2": ff2.weight.T, "b2": ff2.bias,
         "ln2_g": g2, "ln2_b": b2}
    return {k: np.ascontiguousarray(v.detach().numpy(), dtype=np.float32) for k, v in p.items()}


def torch_block(p):
    """The block in float32 torch ops."""
    t = {k: torch.from_numpy(v) for k, v in p.items()}
    x = t["x"]
    q, k, v = (u.reshape(L, H, D // H).transpose(0, 1) for u in F.linear(x, t["wqkv"].T, t["bqkv"]).split(D, 1))
    o = F.softmax(q @ k.transpose(1, 2) / math.sqrt(D // H), dim=-1) @ v
    x1 = F.layer_norm(x + F.linear(o.transpose(0, 1).reshape(L, D), t["wo"].T, t["bo"]), (D,), t["ln1_g"],
                      t["ln1_b"], EPS)
    ff = F.linear(F.gelu(F.linear(x1, t["w1"].T, t["b1"]), approximate="tanh"), t["w2"].T, t["b2"])
    return F.layer_norm(x1 + ff, (D,), t["ln2_g"], t["ln2_b"], EPS).numpy()


def torch_layer(p):
    """The same weights in torch.nn.TransformerEncoderLayer (post-LN, no dropout)."""
    layer = torch.nn.TransformerEncoderLayer(D, H, FF, dropout=0.0, layer_norm_eps=EPS, batch_first=True,
                                             activation=lambda u: F.gelu(u, approximate="tanh"))
    names = {"self_attn.in_proj_weight": "wqkv", "self_attn.in_proj_bias": "bqkv",
             "self_attn.out_proj.weight": "wo", "self_attn.out_proj.bias": "bo", "linear1.weight": "w1",
             "linear1.bias": "b1", "linear2.weight": "w2", "linear2.bias": "b2", "norm1.weight": "ln1_g",
             "norm1.bias": "ln1_b", "norm2.weight": "ln2_g", "norm2.bias": "ln2_b"}
    layer.load_state_dict({k: torch.from_numpy(p[v].T.copy()) for k, v in names.items()})
    layer.eval()
    with torch.no_grad():
        return layer(torch.from_numpy(p["x"])[None])[0].numpy()


# ---- the error bound: first-order running error analysis in float64 -----------------------------------
# Each step returns (its exact value t, E_t), E_t bounding |t_device - t| element by element to first order:
# products of two errors are dropped, and |t| stands for the device's |t|. docs/networks.md derives each.
def gemm(a, ea, va, b, eb, vb, bias=0.0, scale=1.0):
    """scale * A B + bias: A and B (errors ea, eb) rounded to bf16, the products exact in FP32 and summed in
    FP32 (gamma_K = K U32), then the epilogue (the scale and its rounding to FP32, or the bias: two
    roundings at most)."""
    aa, ab = np.abs(a), np.abs(b)
    c = scale * (a @ b) + bias
    e = scale * (aa @ (eb + U * ab) + (ea + U * aa) @ ab + a.shape[-1] * U32 * (aa @ ab))
    v = scale**2 * (a**2 @ (vb + R * b**2) + (va + R * a**2) @ b**2 + a.shape[-1] * R32 * (aa @ ab)**2)
    return c, e + 2 * U32 * np.abs(c), v + 2 * R32 * c**2


def softmax(s, es, vs):
    """Rows of softmax(s) as ROWWISE SOFTMAX computes them in FP32 (the BF16 store is the next GEMM's
    rounding of its A): the propagated p_i (e_i + sum_j p_j e_j), then relative roundings of p_i:
    |s_i - max| (the subtraction), 2 (EXP, 0.98 ulp), 2 + (n - 1) (the sum of n EXPs), 2.5 (RECIP,
    1.25 ulp), 1 (the product), in units of U32."""
    z = s - s.max(-1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(-1, keepdims=True)
    rnd = (s.shape[-1] + 7 + np.abs(z)) * U32 * p
    v = p**2 * ((1 - 2 * p) * vs + (p**2 * vs).sum(-1, keepdims=True))
    return p, p * (es + (p * es).sum(-1, keepdims=True)) + rnd, v + rnd**2 / 3


def layernorm(x, ex, vx, g, b):
    """Rows of (x - mu) / sigma * g + b, sigma = sqrt(var + eps): the propagated |g|/sigma (e_i + mean(e)
    + |xh_i| mean(|xh| e)), then the roundings: mu to (n + 1) U32 mean|x|; d = x - mu, 1/sigma ((n + 2)/2
    for the variance, 2 for RSQRT's 1.02 ulp), d * (1/sigma), * g: (n/2 + 6) U32 |d|; + b: U32 |y|."""
    n = x.shape[-1]
    d = x - x.mean(-1, keepdims=True)
    sigma = np.sqrt((d * d).mean(-1, keepdims=True) + EPS)
    xh = d / sigma
    y = xh * g + b
    prop = ex + ex.mean(-1, keepdims=True) + np.abs(xh) * (np.abs(xh) * ex).mean(-1, keepdims=True)
    rnd = (n + 1) * U32 * np.abs(x).mean(-1, keepdims=True) + (n / 2 + 6) * U32 * np.abs(d)
    sv, sxv, sxxv = (t.sum(-1, keepdims=True) for t in (vx, xh * vx, xh * xh * vx))
    v = (g / sigma)**2 * (vx + (sv + 2 * xh * sxv + xh * xh * sxxv) / n**2 + rnd**2 / 3)
    return y, np.abs(g) / sigma * (prop + rnd) + U32 * np.abs(y), v + R32 * y**2


def gelu(x, ex, vx):
    """GELU (tanh form), y = x / (1 + exp(-2w)), w = k (x + 0.044715 x^3): the propagated |gelu'(x)| e, then
    relative roundings of y: 7 |2w| (2w to 7 U32, through EXP), 2 (EXP), 1 (+ 1), 2.5 (RECIP), 1 (x *),
    rounded up to 7 (|2w| + 1) U32."""
    w = GELU_K * (x + 0.044715 * x**3)
    t = np.tanh(w)
    y = 0.5 * x * (1 + t)
    dy = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * GELU_K * (1 + 3 * 0.044715 * x * x)
    rnd = 7 * (2 * np.abs(w) + 1) * U32 * np.abs(y)
    return y, np.abs(dy) * ex + rnd, dy**2 * vx + rnd**2 / 3


def add(x, ex, vx, y, ey, vy):
    """x + y in FP32 (an ELTWISE ADD of FP32 operands)."""
    s = x + y
    return s, ex + ey + U32 * np.abs(s), vx + vy + R32 * s**2


def heads(t):
    """L x D -> H x L x D/H: head h is columns h*D/H.. (block.c's move_heads, torch's split)."""
    return t.reshape(L, H, D // H).transpose(1, 0, 2)


def bound(p):
    """(y, E, V, steps): the block in float64 as the device computes it, op by op; E, the first-order
    worst-case bound of |y_device - y|; V, the variance of y_device - y when every rounding error is
    independent and uniform (first order); and (name, max |t|, max E_t, max sqrt(V_t)) of every
    intermediate t, to show where they grow."""
    p = {k: v.astype(np.float64) for k, v in p.items()}
    steps = []

    def note(name, tev):
        steps.append((name, float(np.abs(tev[0]).max()), float(tev[1].max()), float(np.sqrt(tev[2].max()))))
        return tev

    x, z = p["x"], 0.0
    qkv, e, v = note("qkv", gemm(x, z, z, p["wqkv"], z, z, p["bqkv"]))
    (q, eq, vq), (k, ek, vk), (vv, ev, vvv) = [[heads(t[:, i * D:(i + 1) * D]) for t in (qkv, e, v)] for i in range(3)]
    kt = [t.transpose(0, 2, 1) for t in (k, ek, vk)]
    s, es, vs = note("scores", gemm(q, eq, vq, *kt, scale=1 / math.sqrt(D // H)))
    o, eo, vo = note("attention", gemm(*note("softmax", softmax(s, es, vs)), vv, ev, vvv))
    o, eo, vo = (t.transpose(1, 0, 2).reshape(L, D) for t in (o, eo, vo))
    a, ea, va = note("out", gemm(o, eo, vo, p["wo"], z, z, p["bo"]))
    x1, e1, v1 = note("norm1", layernorm(*note("add1", add(x, z, z, a, ea, va)), p["ln1_g"], p["ln1_b"]))
    h, eh, vh = note("ffn1", gemm(x1, e1, v1, p["w1"], z, z, p["b1"]))
    f, ef, vf = note("ffn2", gemm(*note("gelu", gelu(h, eh, vh)), p["w2"], z, z, p["b2"]))
    y, e, v = note("norm2", layernorm(*note("add2", add(x1, e1, v1, f, ef, vf)), p["ln2_g"], p["ln2_b"]))
    return y, e, v, steps


# ---- the device -------------------------------------------------------------------------------------
def run_device(args, backend):
    """(y, the statistics JSON, '') of block.c on the backend, or (None, None, why) when it failed."""
    out = os.path.join(args.work, f"y_{backend}.npy")
    cmd = [args.block, "--backend", backend, "--heads", str(H), args.work, out]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode:
        return None, None, f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}"
    return np.load(out), json.loads(p.stdout), ""


class Checks:
    """Counts and prints each check."""

    def __init__(self):
        self.passed = self.failed = 0

    def __call__(self, good, what):
        print(f"{'ok' if good else 'FAIL'}: {what}")
        self.passed += bool(good)
        self.failed += not good


def print_cycles(s):
    """The sim's statistics: per inference, and per step."""
    print(f"sim, per inference (one {L}-token sequence): {s['commands']} commands, {s['cycles']} cycles, "
          f"{s['macs']} MACs, MXU utilisation {100 * s['mxu_utilization']:.2f} % (N={s['mxu_n']})")
    for st in s["steps"]:
        print(f"  {st['step']:10} {st['commands']:3} commands {st['cycles']:>8} cycles "
              f"{100 * st['cycles'] / s['cycles']:5.1f} %")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", default=os.path.join(REPO, "build", "transformer"), help="the .npy files")
    ap.add_argument("--block", default=os.path.join(REPO, "build", "examples", "transformer", "block"),
                    help="the block.c program")
    args = ap.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    torch.set_num_threads(1)
    os.makedirs(args.work, exist_ok=True)
    print(f"transformer block: seed {SEED}; sequence {L}, d_model {D}, {H} heads, FFN {FF}, GELU (tanh), "
          f"post-LN, eps {EPS}")
    p = make_inputs()
    for name, value in p.items():
        np.save(os.path.join(args.work, f"{name}.npy"), value)
    y_torch = torch_block(p).astype(np.float64)
    y64, e, var, steps = bound(p)
    b = Z * np.sqrt(var) + np.abs(y64 - y_torch)
    check = Checks()
    layer_diff = float(np.abs(torch_layer(p) - y_torch).max())
    check(layer_diff <= 1e-5,
          f"the torch reference equals torch.nn.TransformerEncoderLayer (max diff {layer_diff:.1e})")
    result = {"seed": SEED, "seq": L, "d_model": D, "heads": H, "ffn": FF, "y_max": float(np.abs(y_torch).max()),
              "bound_min": float(b.min()), "bound_max": float(b.max()),
              "worst_case_bound_min": float(SAFETY * e.min()), "worst_case_bound_max": float(SAFETY * e.max()),
              "torch_fp32_vs_fp64": float(np.abs(y_torch - y64).max())}
    print("each intermediate t:  max |t|   worst case max E_t   max sigma_t")
    for name, t, et, st in steps:
        print(f"  {name:10} {t:9.3g} {et:18.2g} {st:13.2g}")
    print(f"bound B = {Z} sigma + |y_float64 - y_torch|: {b.min():.3e} .. {b.max():.3e} (max |y_torch| "
          f"{result['y_max']:.3f}); worst case 2 E: {SAFETY * e.min():.3e} .. {SAFETY * e.max():.3e}; the float32 "
          f"reference's own error: max |y_torch - y_float64| {result['torch_fp32_vs_fp64']:.1e}")
    ys = {}
    for backend in ("model", "sim"):
        y, stats, why = run_device(args, backend)
        if why:
            check(False, f"{backend}: {why}")
            continue
        err = np.abs(y - y_torch)
        ratio, worst = float((err / b).max()), np.unravel_index(np.argmax(err / b), err.shape)
        sigmas = float((np.abs(y - y64) / np.sqrt(var)).max())
        check(ratio <= 1, f"{backend}: |y_device - y_torch| <= B: max |err| {err.max():.3e}, max |err|/B "
                          f"{ratio:.2f} (at {worst}: err {err[worst]:.3e}, B {b[worst]:.3e}); |y_device - "
                          f"y_float64| at most {sigmas:.2f} sigma")
        result[backend] = dict(stats, max_err=float(err.max()), max_err_over_bound=ratio, max_sigmas=sigmas,
                               max_err_over_worst_case=float((err / (SAFETY * e)).max()))
        ys[backend] = y
    if len(ys) == 2:
        check(np.array_equal(ys["sim"].view(np.uint32), ys["model"].view(np.uint32)),
              "sim: y bit for bit the model backend's")
    if "sim" in result:
        print_cycles(result["sim"])
    print(json.dumps(result))
    print(f"transformer: {check.passed} passed, {check.failed} failed")
    return 1 if check.failed else 0


if __name__ == "__main__":
    sys.exit(main())
