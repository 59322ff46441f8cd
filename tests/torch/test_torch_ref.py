#!/usr/bin/env python3
"""make test-torch-ref: the device's ops, run by the `tessel` CLI on the model backend, against
PyTorch's CPU ops in float64, over a seeded random sweep of shapes and options.

Usage: test_torch_ref.py TESSEL WORKDIR   (SEED=n replays a sweep; without it the seed is random)
Prints the seed first and "torch_ref: N passed, M failed" last; a failure prints the command line
that reproduces it (its .npy files stay in WORKDIR), the first mismatch (index, expected, got) and
the bound.

Layouts: the device is NHWC / HWIO, torch NCHW / OIHW; the references transpose in and out. An
asymmetric padding is torch's F.pad before an op with padding 0.

Exact:
  - int8 conv2d (int32 out; strides 1-3, asymmetric padding, dilation 1-2, groups and depthwise,
    bias, ReLU): torch's conv2d in float64 on the int8 values, padded with the input zero point.
    Every product and partial sum is an integer below 2^53, so float64 is exact.
  - max pooling of int8 and of float32 (rounded to bf16 by the device): the max of the same values,
    the padding -inf (it never wins).
  - int8 average pooling (dilation 1: torch's avg_pool2d has none; the padding is the zero point and
    counts, count_include_pad=True): the device rounds sum / k to nearest, ties away from zero. The
    integer sum is recovered from torch's float64 mean as round(mean * k), then rounded exactly.

Within a bound (u = 2^-24, FP32's unit roundoff; a bf16 output adds half a bf16 ulp, 2^-8 |y|).
The references take the inputs as the device reads them (bf16-rounded, or fp32 with --in-dtype
fp32) in float64, so what is left is the device's FP32 arithmetic:
  - bf16 conv2d: each output is a sum of n = KH*KW*C/G exact products (bf16 x bf16 fits FP32's 24
    bits) accumulated in FP32 in some order, at most (n - 1) u sum|x w| off; --scale and the bias add
    one rounding each, u (scale sum|x w| + |b|). Bound: 2 (n + 1) u (scale sum|x w| + |b|), the 2 a
    safety factor. A wrong tap moves y by one |x w|, about sum|x w| / n, and a missing bias by |b|:
    both orders of magnitude above it for these n.
  - float average pooling: the FP32 sum of k = KH*KW values times FP32(1/k): (k - 1) u sum|x| from the
    sum, 2u of the mean from the reciprocal and the product; bound 2 (k + 1) u mean|x|.
  - softmax, layer norm, GELU (tanh form), SiLU (docs/isa.md §7 ROWWISE, every step in FP32): the
    bound of the firmware test (tests/fw/test_fw.c, row_case), (64 + n) u of the row's scale: n u for
    a row sum of n terms, 64 u for the fixed chain of about a dozen FP32 operations (EXP, RECIP and
    RSQRT a few ulp each) and the error of the arguments they amplify. The row's scale is its largest
    |y|; for layer norm max|gamma| max|x| / sqrt(var + eps) + max|beta|, since the mean's error
    reaches every x - mean. GELU adds the reference's own float64 error, 2^-52 |x|: torch's
    0.5 x (1 + tanh) cancels where tanh is near -1 (it gives -0.0 for x about -8, whose GELU is -7e-17).
  - attention, softmax(Q K^T scale + causal mask) V written out in torch: the device's scores S are
    FP32 sums of D exact products, scaled: off by at most E = D u scale sum|q k| + 3u |s| (the
    accumulation; the default scale 1/sqrtf(D) and the product, one rounding each). A softmax moves
    each p_j by a factor within exp(+-2E), its FP32 evaluation by (64 + Lk) u absolutely (as above, row
    scale 1); P is rounded to bf16 (2^-8 of each p_j) and O = P V accumulates in FP32 (Lk u of
    sum p_j |v_j|). Bound: sum_j p_j |v_j| (2^-8 + 4E + 2 Lk u) + 2 (64 + Lk) u sum_j |v_j|, the
    small terms doubled for the second-order products they leave out.
"""
import os
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tally import Tally, mismatch   # noqa: E402  (tests/ is no package)

TESSEL, WORK = sys.argv[1], sys.argv[2]
U = 2.0**-24
tally = Tally()
case_no = 0


def bf16(a):
    """float32 rounded to the nearest bf16 (ties to even), as float32."""
    u = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16 << 16).astype(np.uint32).view(np.float32)


def t64(a):
    return torch.from_numpy(np.asarray(a, np.float64))


def nchw(x):
    """NHWC numpy -> NCHW float64 tensor."""
    return t64(x).permute(0, 3, 1, 2)


def nhwc(t):
    return t.permute(0, 2, 3, 1).numpy()


def tessel(sub, arrays, opts):
    """Run `tessel sub` on the arrays (saved as NAME.npy in a fresh folder) with the options;
    (output or None, the command line, stderr)."""
    global case_no
    case_no += 1
    d = os.path.join(WORK, f"{case_no:03d}-{sub}")
    os.makedirs(d)
    args = [TESSEL, sub, "--backend", "model", "--out", os.path.join(d, "y.npy")]
    for name, a in arrays.items():
        np.save(os.path.join(d, name + ".npy"), a)
        args += ["--" + name, os.path.join(d, name + ".npy")]
    args += [str(o) for o in opts]
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    return (np.load(os.path.join(d, "y.npy")) if p.returncode == 0 else None), " ".join(args), p.stderr.strip()


def check(what, run, ref, tol=None):
    """run = tessel()'s result; exact when tol is None. A failure shows the command line."""
    y, cmd, err = run
    why = f"exit status non-zero: {err}" if y is None else mismatch(y, ref, tol)
    tally.check(not why, what, f"{cmd}\n  {why}")


def rand_f32(rng, shape, s=1.0):
    return (rng.standard_normal(shape) * s).astype(np.float32)


def rand_i8(rng, shape):
    return rng.integers(-128, 128, shape).astype(np.int8)


def window(rng, max_k, dil):
    """A random window geometry: (k, stride, dilation, pad (t, b, l, r), input H and W) that fits."""
    k = [int(v) for v in rng.integers(1, max_k + 1, 2)]
    d = [int(v) for v in rng.integers(1, 3, 2)] if dil else [1, 1]
    s = [int(v) for v in rng.integers(1, 4, 2)]
    pad = [int(v) for v in rng.integers(0, 4, 4)]
    hw = [max(1, d[i] * (k[i] - 1) + 1 - pad[2 * i] - pad[2 * i + 1]) + int(rng.integers(0, 9)) for i in range(2)]
    return k, s, d, pad, hw


def geometry_opts(s, d, pad):
    return ["--stride", f"{s[0]},{s[1]}", "--pad", ",".join(map(str, pad)), "--dilation", f"{d[0]},{d[1]}"]


def padded(x, pad, value):
    """NCHW x padded by (top, bottom, left, right) with value."""
    return F.pad(x, (pad[2], pad[3], pad[0], pad[1]), value=value)


# ---- conv2d ------------------------------------------------------------------------------------------
def conv_case(rng, int8):
    k, s, d, pad, (h, w) = window(rng, 4, True)
    depthwise = rng.random() < 0.25
    groups = int(rng.integers(1, 20 if depthwise else 4))
    cg = 1 if depthwise else int(rng.integers(1, 25))   # C/G and COUT past the MXU's 16 too
    c, cout = cg * groups, groups * int(rng.integers(1, 3 if depthwise else 21))
    n = int(rng.integers(1, 3))
    relu, has_bias = bool(rng.random() < 0.5), bool(rng.random() < 0.7)
    opts = geometry_opts(s, d, pad) + ["--groups", groups] + (["--relu"] if relu else [])
    what = f"conv2d {'int8' if int8 else 'bf16'} X {n}x{h}x{w}x{c}, W {k[0]}x{k[1]}x{cg}x{cout}, groups {groups}"
    if int8:
        x, wt, zp = rand_i8(rng, (n, h, w, c)), rand_i8(rng, (k[0], k[1], cg, cout)), int(rng.integers(-128, 128))
        b = rng.integers(-1 << 15, 1 << 15, cout).astype(np.int32)
        opts += ["--x-zp", zp]
        xd, wd, fill, scale = x, wt, zp, 1.0
    else:
        x, wt, b = rand_f32(rng, (n, h, w, c)), rand_f32(rng, (k[0], k[1], cg, cout)), rand_f32(rng, cout)
        scale = float(np.float32(rng.choice([1.0, 0.75, 2.5])))
        bf16_out = bool(rng.random() < 0.3)
        opts += (["--scale", scale] if scale != 1.0 else []) + (["--out-dtype", "bf16"] if bf16_out else [])
        xd, wd, fill = bf16(x), bf16(wt), 0.0
    bias = b if has_bias else np.zeros(cout)
    arrays = dict(x=x, w=wt, **({"bias": b} if has_bias else {}))
    run = tessel("conv2d", arrays, opts)

    def conv(xs, ws):
        return F.conv2d(padded(nchw(xs), pad, fill), t64(ws).permute(3, 2, 0, 1), stride=s, dilation=d, groups=groups)
    v = conv(xd, wd) * scale + t64(bias)[:, None, None]
    ref = nhwc(torch.relu(v) if relu else v)
    if int8:
        return check(what, run, ref)
    nt = k[0] * k[1] * cg
    tol = 2 * (nt + 1) * U * (nhwc(conv(np.abs(xd), np.abs(wd))) * scale + np.abs(bias))
    check(what, run, ref, tol + (np.abs(ref) * 2.0**-8 if bf16_out else 0))


# ---- pooling -------------------------------------------------------------------------------------------
def pool_case(rng, kind, int8):
    k, s, d, pad, (h, w) = window(rng, 3, kind == "max")
    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 20))
    x = rand_i8(rng, (n, h, w, c)) if int8 else rand_f32(rng, (n, h, w, c))
    xd = x if int8 else bf16(x)
    opts = ["--kind", kind, "--window", f"{k[0]},{k[1]}"] + geometry_opts(s, d, pad)
    what = f"{kind} pool {'int8' if int8 else 'bf16'} X {n}x{h}x{w}x{c}, window {k}, stride {s}, dilation {d}, " \
        f"pad {pad}"
    if kind == "max":
        ref = nhwc(F.max_pool2d(padded(nchw(xd), pad, -np.inf), k, s, dilation=d))
        if np.isinf(ref).any():   # a window all padding: not a max of any value
            return pool_case(rng, kind, int8)
        return check(what, tessel("pool2d", dict(x=x), opts), ref)
    kk = k[0] * k[1]
    zp = int(rng.integers(-128, 128)) if int8 else 0
    bf16_out = not int8 and bool(rng.random() < 0.3)
    run = tessel("pool2d", dict(x=x), opts + (["--x-zp", zp] if int8 else []) +
                 (["--out-dtype", "bf16"] if bf16_out else []))
    mean = nhwc(F.avg_pool2d(padded(nchw(xd), pad, zp), k, s, count_include_pad=True))
    if int8:
        sm = np.round(mean * kk)
        return check(what, run, np.sign(sm) * ((2 * np.abs(sm) + kk) // (2 * kk)))
    tol = 2 * (kk + 1) * U * nhwc(F.avg_pool2d(padded(nchw(np.abs(xd)), pad, 0), k, s))
    check(what, run, mean, tol + (np.abs(mean) * 2.0**-8 if bf16_out else 0))


# ---- the row functions -----------------------------------------------------------------------------------
def row_case(rng, fn):
    shape = tuple(int(v) for v in rng.integers(1, 5, int(rng.integers(0, 3)))) + (int(rng.integers(1, 100)),)
    n = shape[-1]
    x = rand_f32(rng, shape, float(rng.choice([1.0, 3.0])))
    in_fp32, bf16_out = bool(rng.random() < 0.3), bool(rng.random() < 0.3)
    xt = t64(x if in_fp32 else bf16(x))
    arrays, opts = dict(x=x), (["--in-dtype", "fp32"] if in_fp32 else []) + (["--out-dtype", "bf16"] if bf16_out
                                                                             else [])
    if fn == "softmax":
        scale = float(np.float32(rng.choice([1.0, 0.125, 2.0])))
        t = xt * scale
        opts += ["--scale", scale] if scale != 1.0 else []
        if rng.random() < 0.5:
            m = np.where(rng.random(shape) < 0.3, -np.inf, rng.standard_normal(shape)).astype(np.float32)
            m[..., 0] = 0   # never a whole row masked
            arrays["mask"] = m
            t = t + t64(m)
        ref = F.softmax(t, dim=-1)
        big = ref.abs().amax(-1, keepdim=True)
    elif fn == "layernorm":
        g, b = rand_f32(rng, n), rand_f32(rng, n) if rng.random() < 0.7 else None
        eps = float(np.float32(rng.choice([1e-5, 1e-3])))
        arrays.update(gamma=g, **({"beta": b} if b is not None else {}))
        opts += ["--eps", eps]
        ref = F.layer_norm(xt, (n,), t64(g), None if b is None else t64(b), eps)
        sd = torch.sqrt(xt.var(-1, unbiased=False, keepdim=True) + eps)
        big = np.abs(g).max() * xt.abs().amax(-1, keepdim=True) / sd + (0 if b is None else np.abs(b).max())
    else:
        ref = F.gelu(xt, approximate="tanh") if fn == "gelu" else F.silu(xt)
        big = ref.abs().amax(-1, keepdim=True)
    # + float64's own error for GELU (the docstring)
    tol = (64 + n) * U * big.numpy() + (ref.abs().numpy() * 2.0**-8 if bf16_out else 0) + 2.0**-52 * np.abs(xt.numpy())
    check(f"{fn} X {'x'.join(map(str, shape))}", tessel(fn, arrays, opts), ref.numpy(), tol)


# ---- attention -----------------------------------------------------------------------------------------------
def attention_case(rng):
    heads = tuple(int(v) for v in rng.integers(1, 4, int(rng.integers(0, 3))))
    lk, d, dv = int(rng.integers(1, 25)), int(rng.integers(1, 41)), int(rng.integers(1, 21))
    causal = bool(rng.random() < 0.5)
    lq = int(rng.integers(1, lk + 1)) if causal else int(rng.integers(1, 21))
    q, k, v = rand_f32(rng, heads + (lq, d)), rand_f32(rng, heads + (lk, d)), rand_f32(rng, heads + (lk, dv))
    scale = float(np.float32(rng.choice([0.0, 0.25, 0.1])))
    bf16_out = bool(rng.random() < 0.3)
    opts = (["--causal"] if causal else []) + (["--scale", scale] if scale else []) + \
        (["--out-dtype", "bf16"] if bf16_out else [])
    run = tessel("attention", dict(q=q, k=k, v=v), opts)
    qt, kt, vt = (t64(bf16(a)) for a in (q, k, v))
    sc = scale or 1 / np.sqrt(d)
    s = qt @ kt.transpose(-1, -2) * sc
    e = d * U * sc * (qt.abs() @ kt.abs().transpose(-1, -2)) + 3 * U * s.abs()
    if causal:
        s = s.masked_fill(torch.arange(lk) > torch.arange(lq)[:, None] + lk - lq, -np.inf)
    p = torch.softmax(s, -1)
    ref = p @ vt
    big_e = e.masked_fill(p == 0, 0).amax(-1, keepdim=True)   # the masked keys do not count
    tol = (p @ vt.abs()) * (2.0**-8 + 4 * big_e + 2 * lk * U) + 2 * (64 + lk) * U * vt.abs().sum(-2, keepdim=True)
    tol = tol.numpy() + (ref.abs().numpy() * 2.0**-8 if bf16_out else 0)
    check(f"attention Q {q.shape}, K {k.shape}, V {v.shape}, causal {causal}, scale {scale or 'default'}",
          run, ref.numpy(), tol)


def main():
    seed = int(os.environ["SEED"]) if os.environ.get("SEED") else int.from_bytes(os.urandom(4), "little")
    print(f"torch_ref: SEED={seed}", flush=True)
    rng = np.random.default_rng(seed)
    torch.set_num_threads(1)
    os.makedirs(WORK, exist_ok=True)
    sweep = [(120, lambda: conv_case(rng, True)), (80, lambda: conv_case(rng, False)),
             (40, lambda: pool_case(rng, "max", True)), (40, lambda: pool_case(rng, "max", False)),
             (40, lambda: pool_case(rng, "avg", True)), (40, lambda: pool_case(rng, "avg", False))] + \
        [(40, lambda fn=fn: row_case(rng, fn)) for fn in ("softmax", "layernorm", "gelu", "silu")] + \
        [(60, lambda: attention_case(rng))]
    for count, case in sweep:
        for _ in range(count):
            case()
    return tally.summary("torch_ref")


if __name__ == "__main__":
    sys.exit(main())
