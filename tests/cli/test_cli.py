#!/usr/bin/env python3
"""make test-cli: every `tessel` subcommand but `run` on the model backend.

Usage: test_cli.py TESSEL CLI_REF WORKDIR   (SEED=n: the inputs of conv2d, pool2d, the row functions
and attention; needs numpy)
  - error paths: each bad input exits 2 with exactly one stderr line starting "tessel: " (all but
    gemm's: and writes nothing, leaving the inputs as they were); a rule of the arguments is
    libtessel's alone: its message is the line, as it is ("tessel: gemm: tessel_gemm: rq_shift 63
    is outside 0..62");
  - GEMMs (int8 -> int32, int8 -> requantised int8, float32 -> fp32, float32 -> bf16, with and
    without bias/ReLU, shapes that are not multiples of N) checked bit for bit by CLI_REF against
    the plain C reference;
  - --stats prints one JSON line with the documented fields; `info` and `info --json`;
  - conv2d and pool2d (stride 2, asymmetric padding, dilation 2, groups and depthwise, bias + ReLU,
    requantised int8, N=2; one conv2d on the simulated SoC) against the numpy references below: int8
    bit for bit, float within the bf16 input rounding (max pooling exactly the bf16-rounded max);
  - softmax (--scale, masks with -inf), layernorm, rmsnorm, gelu and silu (1-D to 4-D X, rows not a
    multiple of the MXU size, --in-dtype, bf16 out) and attention (2-D to 4-D, causal with Lq < Lk
    and Lq = Lk, --scale, bf16 out), one of each on the simulated SoC, against float64 numpy
    references on the bf16-rounded inputs within the bounds of rows_ref and attention_ref;
  - nothing lost (issue 23): an output that names an input or another output is refused before
    anything runs and leaves the files as they were; an input error leaves an existing output alone;
    no temporary file is left; options the backend would ignore (--firmware, --trace on the model)
    and --scale 0 are refused; a C larger than HBM fails with a reason;
  - issue 32: inputs that are not regular files (a FIFO with no writer, /dev/zero, an endless pipe)
    are refused at once, within a timeout; integers are decimal (--rq-scale 010 is ten, 0x10
    refused); $TESSEL_TIMEOUT_MS and $TESSEL_CHECK are validated (exit 2 with the variable named);
    --scale and --eps that round to 0 or overflow in float32 are refused with libtessel's message;
    SIGINT or SIGTERM during a run on the sim leaves no temporary file.
Prints "cli: N passed, M failed".
"""
import json
import os
import re
import resource
import signal
import struct
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tally import Tally, mismatch   # noqa: E402  (tests/ is no package)

TESSEL, CLI_REF, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
tally = Tally()
check = tally.check


def limit_memory():
    """A reader that does not stop at what the header says fails here, not in the OOM killer."""
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def run(args, env=None, stdin=None, limit=False):
    e = dict(os.environ)
    e.pop("TESSEL_CHECK", None)
    e.pop("TESSEL_FIRMWARE", None)
    if env:
        e.update(env)
    p = subprocess.run([TESSEL] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env=e, timeout=300, stdin=stdin, preexec_fn=limit_memory if limit else None)
    return p.returncode, p.stdout, p.stderr


def one_error(rc, out, err, want_rc=2):
    lines = err.splitlines()
    return rc == want_rc and len(lines) == 1 and lines[0].startswith("tessel: ") and out == ""


def read(path):
    with open(path, "rb") as f:
        return f.read()


def npy(path, descr, shape, payload, fortran=False, version=1):
    d = "{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }" % (
        descr, "True" if fortran else "False", "".join("%d," % s for s in shape) if len(shape) == 1
        else ", ".join(str(s) for s in shape))
    pre = 10 if version == 1 else 12
    total = (pre + len(d) + 1 + 63) // 64 * 64
    hdr = d + " " * (total - pre - len(d) - 1) + "\n"
    head = b"\x93NUMPY" + bytes([version, 0]) + (struct.pack("<H", len(hdr)) if version == 1
                                                    else struct.pack("<I", len(hdr)))
    with open(path, "wb") as f:
        f.write(head + hdr.encode() + payload)
    return path


def p(name):
    return os.path.join(WORK, name)



# ---- conv2d and pool2d -----------------------------------------------------------------------------
def bf16(a):
    """float32 rounded to the nearest bf16 (ties to even), as float32."""
    u = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16 << 16).astype(np.uint32).view(np.float32)


def taps(x, k, s, pad, dil, fill):
    """The window taps of NHWC x: an array KH x KW x N x OH x OW x C, padding read as fill."""
    n, h, w, c = x.shape
    (kh, kw), (sh, sw), (pt, pb, pl, pr), (dh, dw) = k, s, pad, dil
    oh, ow = (h + pt + pb - dh * (kh - 1) - 1) // sh + 1, (w + pl + pr - dw * (kw - 1) - 1) // sw + 1
    xp = np.full((n, h + pt + pb, w + pl + pr, c), fill, x.dtype)
    xp[:, pt:pt + h, pl:pl + w, :] = x
    return np.stack([np.stack([xp[:, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw, :]
                               for j in range(kw)]) for i in range(kh)])


def conv_sum(t, w, groups):
    """sum over (kh, kw, ci) of taps x weights, group by group: N x OH x OW x COUT."""
    cg, og = w.shape[2], w.shape[3] // groups
    return np.concatenate([np.einsum("abnhwc,abco->nhwo", t[..., g * cg:(g + 1) * cg], w[..., g * og:(g + 1) * og])
                           for g in range(groups)], axis=-1)


def requant(v, scale, shift, zp):
    """sat8(sat32(floor((v * scale + 2^(shift-1)) / 2^shift) + zp))."""
    v = (v * scale + ((1 << shift) >> 1)) >> shift
    return np.clip(np.clip(v + zp, -2**31, 2**31 - 1), -128, 127)


def rand_x(rng, ty, shape, hi=128):
    """int8 in -128..hi-1, or standard normal float32."""
    return rng.integers(-128, hi, shape).astype(np.int8) if ty == "int8" else rng.standard_normal(shape, np.float32)


def geometry(o, k, stride):
    """(window, stride, pad, dilation) of the options o; the defaults are the CLI's."""
    return k, o.get("stride", stride), o.get("pad", (0, 0, 0, 0)), o.get("dil", (1, 1))


# The float references take the bf16-rounded inputs in float64, so what remains is the device's fp32
# accumulation (at most K * 2^-24 of the sum of |terms|, well below the 1e-4 allowed here for these
# K) and, for a bf16 output, its rounding (half an ulp: 2^-8 of |y|).
def conv_ref(x, w, o):
    """(exact int64 result or float64 result, tolerance: None when exact) of conv2d with the options o."""
    zp, groups = o.get("x_zp", 0), o.get("groups", 1)
    geo = geometry(o, (w.shape[0], w.shape[1]), (1, 1))
    if x.dtype == np.int8:
        v = conv_sum(taps(x.astype(np.int64), *geo, zp), w.astype(np.int64), groups)
        v = v + o["bias"].astype(np.int64) if "bias" in o else v
        v = np.maximum(v, 0) if o.get("relu") else v
        return (requant(v, *o["rq"]) if "rq" in o else v), None
    t = taps(bf16(x).astype(np.float64), *geo, 0.0)
    wd = bf16(w).astype(np.float64)
    v = conv_sum(t, wd, groups) * o.get("scale", 1.0)
    tol = 1e-4 * conv_sum(np.abs(t), np.abs(wd), groups) * o.get("scale", 1.0) + 1e-6
    v = v + o["bias"] if "bias" in o else v
    v = np.maximum(v, 0) if o.get("relu") else v
    return v, tol + (np.abs(v) * 2.0**-8 if o.get("bf16_out") else 0)


def pool_ref(x, o):
    """(result, tolerance: None when exact) of pool2d with the options o."""
    geo = geometry(o, o["window"], o["window"])
    k = o["window"][0] * o["window"][1]
    if o["kind"] == "max":
        fill = -128 if x.dtype == np.int8 else -np.inf
        return taps(x if x.dtype == np.int8 else bf16(x), *geo, fill).max(axis=(0, 1)), None
    if x.dtype == np.int8:
        s = taps(x.astype(np.int64), *geo, o.get("x_zp", 0)).sum(axis=(0, 1))
        return np.sign(s) * ((2 * np.abs(s) + k) // (2 * k)), None   # round(s / k), ties away from zero
    t = taps(bf16(x).astype(np.float64), *geo, 0.0)
    v = t.sum(axis=(0, 1)) / k
    return v, 1e-4 * np.abs(t).sum(axis=(0, 1)) / k + 1e-6 + (np.abs(v) * 2.0**-8 if o.get("bf16_out") else 0)


def window_args(o):
    """The CLI options of o's geometry and epilogue."""
    a = []
    for key, opt in (("stride", "--stride"), ("pad", "--pad"), ("dil", "--dilation"), ("window", "--window")):
        if key in o:
            a += [opt, ",".join(map(str, o[key]))]
    for key, opt in (("x_zp", "--x-zp"), ("groups", "--groups"), ("scale", "--scale"), ("kind", "--kind")):
        if key in o:
            a += [opt, str(o[key])]
    if o.get("relu"):
        a += ["--relu"]
    if "rq" in o:
        a += ["--out-dtype", "int8", "--rq-scale", str(o["rq"][0]), "--rq-shift", str(o["rq"][1]),
              "--rq-zp", str(o["rq"][2])]
    if o.get("bf16_out"):
        a += ["--out-dtype", "bf16"]
    return a


def window_cases(rng):
    """conv2d and pool2d on the model (one on the simulated SoC), against the references above."""
    int8, f32 = "int8", "f32"
    convs = [
        ("int8 N=2 stride 2, asymmetric pad, bias, relu", int8, (2, 9, 8, 6), (3, 3, 6, 10),
         dict(stride=(2, 2), pad=(1, 0, 2, 1), bias="i4", relu=True)),
        ("int8 dilation 2,1, groups 2, x-zp, int8 bias, requant", int8, (1, 10, 9, 8), (3, 2, 4, 6),
         dict(dil=(2, 1), pad=(2, 2, 2, 2), groups=2, x_zp=-3, bias="i1", rq=(7, 8, -5))),
        ("int8 depthwise C=COUT=groups=5, pad 1, x-zp", int8, (1, 7, 7, 5), (3, 3, 1, 5),
         dict(pad=(1, 1, 1, 1), groups=5, x_zp=4)),
        ("int8 K and COUT past the MXU (20 -> 33)", int8, (1, 6, 6, 20), (3, 3, 20, 33), dict(relu=True)),
        ("int8 saturating requant, shift 0", int8, (2, 5, 5, 3), (2, 2, 3, 4), dict(rq=(1, 0, 0))),
        ("f32 N=2 stride 2,1, pad 1,1,0,2, groups 2, bias, relu, scale", f32, (2, 8, 7, 6), (3, 3, 3, 4),
         dict(stride=(2, 1), pad=(1, 1, 0, 2), groups=2, bias="f4", relu=True, scale=0.5)),
        ("f32 dilation 2, stride 2, bf16 out", f32, (1, 9, 9, 3), (2, 2, 3, 16),
         dict(stride=(2, 2), dil=(2, 2), bf16_out=True)),
        ("f32 depthwise, pad 2", f32, (1, 6, 5, 4), (3, 3, 1, 4), dict(pad=(2, 2, 2, 2), groups=4)),
        ("int8 on the simulated SoC, pad 1, bias", int8, (1, 6, 6, 4), (3, 3, 4, 8),
         dict(pad=(1, 1, 1, 1), bias="i4", backend="sim")),
    ]
    for i, (what, ty, xs, ws, o) in enumerate(convs):
        d = p(f"conv{i}")
        os.makedirs(d, exist_ok=True)
        x, w = rand_x(rng, ty, xs), rand_x(rng, ty, ws)
        np.save(os.path.join(d, "x.npy"), x)
        np.save(os.path.join(d, "w.npy"), w)
        args = ["conv2d", "--x", os.path.join(d, "x.npy"), "--w", os.path.join(d, "w.npy"),
                "--out", os.path.join(d, "y.npy"), "--backend", o.get("backend", "model"), "--stats"]
        if "bias" in o:
            o = dict(o, bias=rng.integers(-3000, 3000, ws[3]).astype(np.int32) if o["bias"] == "i4" else
                     rng.integers(-128, 128, ws[3]).astype(np.int8) if o["bias"] == "i1" else
                     rng.standard_normal(ws[3], np.float32))
            np.save(os.path.join(d, "bias.npy"), o["bias"])
            args += ["--bias", os.path.join(d, "bias.npy")]
        rc, out, err = run(args + window_args(o))
        why = f"exit {rc}: {err.strip()}"
        if rc == 0:
            ref, tol = conv_ref(x, w, o)
            y = np.load(os.path.join(d, "y.npy"))
            st = json.loads(out)
            want = np.int8 if "rq" in o else np.int32 if ty == int8 else np.float32
            why = mismatch(y, ref, tol) or (f"dtype {y.dtype}" if y.dtype != want else "") or \
                ("" if st["y"] == list(ref.shape) and st["x"] == list(xs) and st["w"] == list(ws) and
                 st["backend"] == o.get("backend", "model") and st["macs"] > 0 else f"--stats {out!r}")
        check(rc == 0 and not why, f"conv2d {what}: {xs} * {ws}", why)

    pools = [
        ("int8 max N=2, window 3 (stride: the window), pad 1,1,0,1, negative X", int8, (2, 9, 8, 5),
         dict(kind="max", window=(3, 3), pad=(1, 1, 0, 1), x_hi=0)),
        ("int8 max window 2,3, stride 1,2, dilation 2", int8, (1, 9, 10, 3),
         dict(kind="max", window=(2, 3), stride=(1, 2), dil=(2, 2))),
        ("int8 avg window 2 (ties), stride 1, pad 1,0,1,0, x-zp 5, N=2", int8, (2, 6, 7, 4),
         dict(kind="avg", window=(2, 2), stride=(1, 1), pad=(1, 0, 1, 0), x_zp=5)),
        ("int8 avg window 3, stride 2, pad 1, x-zp -7, dilation 2,1", int8, (1, 11, 9, 6),
         dict(kind="avg", window=(3, 3), stride=(2, 2), pad=(1, 1, 1, 1), x_zp=-7, dil=(2, 1))),
        ("f32 max window 3, stride 2, pad 1 (bf16 values, exact)", f32, (2, 8, 9, 5),
         dict(kind="max", window=(3, 3), stride=(2, 2), pad=(1, 1, 1, 1))),
        ("f32 avg window 3,2, pad 1,1,0,1 (fp32)", f32, (1, 7, 6, 4),
         dict(kind="avg", window=(3, 2), pad=(1, 1, 0, 1))),
        ("f32 avg window 2, stride 2, bf16 out", f32, (2, 6, 6, 3),
         dict(kind="avg", window=(2, 2), stride=(2, 2), bf16_out=True)),
    ]
    for i, (what, ty, xs, o) in enumerate(pools):
        d = p(f"pool{i}")
        os.makedirs(d, exist_ok=True)
        x = rand_x(rng, ty, xs, o.pop("x_hi", 128))
        np.save(os.path.join(d, "x.npy"), x)
        args = ["pool2d", "--x", os.path.join(d, "x.npy"), "--out", os.path.join(d, "y.npy"), "--stats"]
        rc, out, err = run(args + window_args(o))
        why = f"exit {rc}: {err.strip()}"
        if rc == 0:
            ref, tol = pool_ref(x, o)
            y = np.load(os.path.join(d, "y.npy"))
            st = json.loads(out)
            want = np.int8 if ty == int8 else np.float32
            why = mismatch(y, ref, tol) or (f"dtype {y.dtype}" if y.dtype != want else "") or \
                ("" if st["y"] == list(ref.shape) and st["kind"] == o["kind"] else f"--stats {out!r}")
        check(rc == 0 and not why, f"pool2d {what}: {xs}", why)


def ones_npy(d, name, shape, dtype):
    """d/name.npy, an array of ones; returns its path."""
    path = os.path.join(d, name + ".npy")
    np.save(path, np.ones(shape, dtype))
    return path


def window_errors():
    """Every bad conv2d/pool2d input: exit 2, one "tessel: " line, no output written."""
    d = p("winerr")
    os.makedirs(d, exist_ok=True)

    def a(name, shape, dtype=np.int8):
        return ones_npy(d, name, shape, dtype)
    x, w, xf, wf = a("x", (1, 5, 5, 4)), a("w", (3, 3, 4, 8)), a("xf", (1, 5, 5, 4), np.float32), \
        a("wf", (3, 3, 4, 8), np.float32)
    y = os.path.join(d, "y.npy")
    conv = ["conv2d", "--x", x, "--w", w, "--out", y]
    pool = ["pool2d", "--x", x, "--kind", "max", "--window", "2", "--out", y]
    poolf = ["pool2d", "--x", xf, "--window", "2", "--out", y]
    errors = [
        ("conv2d without --w", ["conv2d", "--x", x, "--out", y]),
        ("conv2d 3-D X", ["conv2d", "--x", a("x3", (5, 5, 4)), "--w", w, "--out", y]),
        ("conv2d 3-D W", ["conv2d", "--x", x, "--w", a("w3", (3, 4, 8)), "--out", y]),
        ("conv2d W's third dim != C/groups", ["conv2d", "--x", x, "--w", a("w5", (3, 3, 5, 8)), "--out", y]),
        ("conv2d W's third dim != C/groups (groups 2)", conv + ["--groups", "2"]),
        ("conv2d groups not dividing C", ["conv2d", "--x", x, "--w", a("wg", (3, 3, 1, 9)), "--groups", "3"]),
        ("conv2d groups not dividing COUT", ["conv2d", "--x", x, "--w", a("wg2", (3, 3, 2, 5)), "--groups", "2"]),
        ("conv2d window larger than the padded input", ["conv2d", "--x", x, "--w", a("w8", (8, 3, 4, 8)),
                                                        "--pad", "1", "--out", y]),
        ("conv2d dilated window too large", conv + ["--dilation", "3"]),
        ("conv2d KH > 255", ["conv2d", "--x", a("xh", (1, 300, 1, 1)), "--w", a("wh", (256, 1, 1, 1)), "--out", y]),
        ("conv2d COUT > 65535", ["conv2d", "--x", a("x1", (1, 1, 1, 1)), "--w", a("wc", (1, 1, 1, 65536)),
                                 "--out", y]),
        ("conv2d H > 65535", ["conv2d", "--x", a("xbig", (1, 65536, 1, 1)), "--w", a("w1", (1, 1, 1, 1)),
                              "--out", y]),
        ("conv2d empty X", ["conv2d", "--x", a("x0", (1, 0, 5, 4)), "--w", w, "--out", y]),
        ("conv2d stride 0", conv + ["--stride", "0"]),
        ("conv2d stride 256", conv + ["--stride", "1,256"]),
        ("conv2d stride with 3 values", conv + ["--stride", "1,1,1"]),
        ("conv2d pad 256", conv + ["--pad", "256"]),
        ("conv2d pad with 2 values", conv + ["--pad", "1,2"]),
        ("conv2d pad not a number", conv + ["--pad", "1,x,1,1"]),
        ("conv2d pad negative", conv + ["--pad", "-1"]),
        ("conv2d dilation 0", conv + ["--dilation", "0"]),
        ("conv2d groups 0", conv + ["--groups", "0"]),
        ("conv2d groups 65536", conv + ["--groups", "65536"]),
        ("conv2d x-zp 128", conv + ["--x-zp", "128"]),
        ("conv2d x-zp for float", ["conv2d", "--x", xf, "--w", wf, "--x-zp", "1", "--out", y]),
        ("conv2d int8 X, float W", ["conv2d", "--x", x, "--w", wf, "--out", y]),
        ("conv2d int32 X", ["conv2d", "--x", a("xi", (1, 5, 5, 4), np.int32), "--w", w, "--out", y]),
        ("conv2d bias length != COUT", conv + ["--bias", a("b4", (4,), np.int32)]),
        ("conv2d float bias for int8", conv + ["--bias", a("bf", (8,), np.float32)]),
        ("conv2d int8 out for float", ["conv2d", "--x", xf, "--w", wf, "--out-dtype", "int8", "--out", y]),
        ("conv2d rq without int8 out", conv + ["--rq-scale", "3"]),
        ("conv2d scale with int8", conv + ["--scale", "2"]),
        ("conv2d --window", conv + ["--window", "3"]),
        ("conv2d --out on --x", ["conv2d", "--x", x, "--w", w, "--out", x]),
        ("conv2d --timeline on the model", conv + ["--timeline", os.path.join(d, "t.json")]),
        ("pool2d without --kind", ["pool2d", "--x", x, "--window", "2", "--out", y]),
        ("pool2d without --window", ["pool2d", "--x", x, "--kind", "avg", "--out", y]),
        ("pool2d --kind min", ["pool2d", "--x", x, "--kind", "min", "--window", "2", "--out", y]),
        ("pool2d window 0", ["pool2d", "--x", x, "--kind", "max", "--window", "0", "--out", y]),
        ("pool2d window 256", ["pool2d", "--x", x, "--kind", "max", "--window", "256", "--out", y]),
        ("pool2d window with 3 values", ["pool2d", "--x", x, "--kind", "max", "--window", "2,2,2", "--out", y]),
        ("pool2d window larger than the padded input", ["pool2d", "--x", x, "--kind", "max", "--window", "6,2",
                                                        "--out", y]),
        ("pool2d stride 0", pool + ["--stride", "0"]),
        ("pool2d pad 256", pool + ["--pad", "0,0,0,256"]),
        ("pool2d x-zp with max", pool + ["--x-zp", "1"]),
        ("pool2d x-zp with float avg", poolf + ["--kind", "avg", "--x-zp", "1"]),
        ("pool2d fp32 out for float max", poolf + ["--kind", "max", "--out-dtype", "fp32"]),
        ("pool2d int32 out for int8", pool + ["--out-dtype", "int32"]),
        ("pool2d bf16 out for int8", pool + ["--out-dtype", "bf16"]),
        ("pool2d --relu", pool + ["--relu"]),
        ("pool2d --bias", pool + ["--bias", a("b8", (4,), np.int32)]),
        ("pool2d --rq-scale", pool + ["--rq-scale", "2"]),
        ("pool2d --w", pool + ["--w", w]),
        ("pool2d 2-D X", ["pool2d", "--x", a("x2", (5, 4)), "--kind", "max", "--window", "2", "--out", y]),
        ("pool2d N > 65535", ["pool2d", "--x", a("xn", (65536, 1, 1, 1)), "--kind", "max", "--window", "1",
                              "--out", y]),
        ("pool2d float64 X", ["pool2d", "--x", a("x64", (1, 5, 5, 4), np.float64), "--kind", "max",
                              "--window", "2", "--out", y]),
        ("pool2d --out on --x", ["pool2d", "--x", x, "--kind", "max", "--window", "2", "--out", x]),
    ]
    x_bytes = read(x)
    for what, args in errors:
        rc, out, err = run(args)
        check(one_error(rc, out, err) and not os.path.exists(y) and read(x) == x_bytes and
              not os.path.exists(os.path.join(d, "t.json")),
              f"{what}: tessel {' '.join(args)}", f"exit {rc}, stderr {err!r}, stdout {out!r}")
    rc, out, err = run(["pool2d", "--x", a("xw", (1, 2, 2, 65535)), "--kind", "avg", "--window", "2", "--out", y])
    check(one_error(rc, out, err, 1) and not os.path.exists(y),
          "pool2d whose tiles do not fit the device (BAD_SHAPE): exit 1, one line, no output", f"exit {rc}, {err!r}")


# ---- the row functions and attention ---------------------------------------------------------------
ROW_FNS = ("softmax", "layernorm", "rmsnorm", "gelu", "silu")


def rows_ref(fn, x, o):
    """(float64 reference, tolerance) of the row function fn on x as the device reads it (float64),
    along the last axis. The tolerance is the firmware test's bound (tests/fw/test_fw.c, row_case):
    2^-18 (1 + n/64) of the row's scale (its largest |y|; for the norms |gamma| max|x| / sqrt(v + eps)
    + |beta|, the error of x - mean carried through), plus half a bf16 ulp (2^-8 |y|) for a bf16 Y."""
    n, eps = x.shape[-1], o.get("eps", 1e-5)
    g, b = o.get("gamma"), o.get("beta", np.zeros(n))
    if fn == "softmax":
        t = x * o.get("scale", 1.0) + o.get("mask", 0.0)
        e = np.exp(t - t.max(-1, keepdims=True))
        y = e / e.sum(-1, keepdims=True)
    elif fn in ("layernorm", "rmsnorm"):
        d = x - x.mean(-1, keepdims=True) if fn == "layernorm" else x
        r = 1 / np.sqrt((d * d).mean(-1, keepdims=True) + eps)
        y = d * r * g + b
        big = np.abs(g).max() * np.abs(x).max(-1, keepdims=True) * r + np.abs(b).max()
    else:
        k = 2 * np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3) if fn == "gelu" else x
        y = x / (1 + np.exp(-k))
    if fn not in ("layernorm", "rmsnorm"):
        big = np.abs(y).max(-1, keepdims=True)
    return y, 2.0**-18 * (1 + n / 64) * big + (np.abs(y) * 2.0**-8 if o.get("bf16_out") else 0)


def attention_ref(q, k, v, o):
    """(float64 reference, tolerance) of softmax(Q K^T * scale + causal mask) V on the bf16-rounded
    inputs. The device rounds the probabilities P to bf16 (2^-8 of each) and its FP32 scores, softmax
    and accumulation add far less; the tolerance is twice the rounding of P, 2^-7 sum_j p_j |v_j|, plus
    2^-16 sum_j |v_j| for the rest, plus half a bf16 ulp of O for a bf16 O. A key too many or too few
    (the causal offset), a head mixed up or a wrong scale is far outside it."""
    q, k, v = (bf16(a).astype(np.float64) for a in (q, k, v))
    lq, lk, d = q.shape[-2], k.shape[-2], q.shape[-1]
    s = q @ np.swapaxes(k, -1, -2) * o.get("scale", float(np.float32(1) / np.sqrt(np.float32(d))))
    if o.get("causal"):
        s = np.where(np.arange(lk) > np.arange(lq)[:, None] + lk - lq, -np.inf, s)
    e = np.exp(s - s.max(-1, keepdims=True))
    pr = e / e.sum(-1, keepdims=True)
    y = pr @ v
    return y, 2.0**-7 * (pr @ np.abs(v)) + 2.0**-16 * np.abs(v).sum(-2, keepdims=True) + \
        (np.abs(y) * 2.0**-8 if o.get("bf16_out") else 0)


def f32_cases(rng):
    """The row functions and attention (two on the simulated SoC) against the references above."""
    def mask(shape):   # additive, a quarter -inf, never a whole row (column 0 is 0)
        m = np.where(rng.random(shape) < 0.25, -np.inf, rng.standard_normal(shape)).astype(np.float32)
        m[..., 0] = 0
        return m
    rows = [
        ("softmax N=37 (not a multiple of 16), --scale 0.5, a mask with -inf", "softmax", (5, 37),
         dict(scale=0.5, mask=True)),
        ("softmax 3-D, bf16 out", "softmax", (2, 3, 20), dict(bf16_out=True)),
        ("softmax --in-dtype fp32, N=16", "softmax", (4, 16), dict(in_fp32=True)),
        ("softmax on the simulated SoC, mask", "softmax", (3, 20), dict(mask=True, backend="sim")),
        ("layernorm 3-D, beta, eps 1e-3", "layernorm", (2, 4, 45), dict(beta=True, eps=1e-3)),
        ("layernorm without beta, bf16 out", "layernorm", (3, 64), dict(bf16_out=True)),
        ("rmsnorm N=33, eps 1e-4", "rmsnorm", (6, 33), dict(eps=1e-4)),
        ("layernorm with --residual on the simulated SoC, beta", "layernorm", (5, 40),
         dict(beta=True, residual=True, backend="sim")),
        ("rmsnorm with --residual, bf16 out (the residual held as bf16)", "rmsnorm", (3, 17),
         dict(residual=True, bf16_out=True)),
        ("gelu 1-D (one row)", "gelu", (50,), dict(x_scale=3)),
        ("gelu 3-D, bf16 out", "gelu", (2, 5, 18), dict(x_scale=3, bf16_out=True)),
        ("silu 4-D, --in-dtype fp32, bf16 out", "silu", (2, 2, 3, 17), dict(x_scale=4, in_fp32=True, bf16_out=True)),
    ]
    for i, (what, fn, xs, o) in enumerate(rows):
        d = p(f"rows{i}")
        os.makedirs(d, exist_ok=True)
        x = (rng.standard_normal(xs) * o.get("x_scale", 1)).astype(np.float32)
        args = [fn, "--x", os.path.join(d, "x.npy"), "--out", os.path.join(d, "y.npy"), "--stats",
                "--backend", o.get("backend", "model")]
        np.save(os.path.join(d, "x.npy"), x)
        if o.get("mask"):
            o["mask"] = mask(xs)
        if fn in ("layernorm", "rmsnorm"):
            o["gamma"] = rng.standard_normal(xs[-1]).astype(np.float32)
        if o.get("beta"):
            o["beta"] = rng.standard_normal(xs[-1]).astype(np.float32)
        if o.get("residual"):
            o["residual"] = (rng.standard_normal(xs) * 4).astype(np.float32)
        for key in ("mask", "gamma", "beta", "residual"):
            if key in o:
                np.save(os.path.join(d, key + ".npy"), o[key])
                args += ["--" + key, os.path.join(d, key + ".npy")]
        for key in ("scale", "eps"):
            if key in o:
                args += ["--" + key, str(o[key])]
        args += (["--in-dtype", "fp32"] if o.get("in_fp32") else []) + (["--out-dtype", "bf16"] if o.get("bf16_out")
                                                                        else [])
        rc, out, err = run(args)
        why = f"exit {rc}: {err.strip()}"
        if rc == 0:
            xd = (x if o.get("in_fp32") else bf16(x)).astype(np.float64)
            if o.get("residual") is not None:   # as Y's dtype holds it, added with one fp32 rounding
                r = o["residual"]
                xd = (xd + (bf16(r) if o.get("bf16_out") else r)).astype(np.float32).astype(np.float64)
            ref, tol = rows_ref(fn, xd, o)
            y = np.load(os.path.join(d, "y.npy"))
            st = json.loads(out)
            why = mismatch(y, ref, tol) or (f"dtype {y.dtype}" if y.dtype != np.float32 else "") or \
                ("" if st["x"] == list(xs) and st["n"] == xs[-1] and st["rows"] == x.size // xs[-1] and
                 st["in_dtype"] == ("fp32" if o.get("in_fp32") else "bf16") else f"--stats {out!r}")
        check(rc == 0 and not why, f"{fn} {what}: {xs}", why)

    atts = [
        ("causal, Lq < Lk, 2 heads", (2, 5, 8), (2, 7, 8), (2, 7, 12), dict(causal=True)),
        ("4-D (2 x 2 heads), --scale 0.3, bf16 out", (2, 2, 6, 16), (2, 2, 6, 16), (2, 2, 6, 5),
         dict(scale=0.3, bf16_out=True)),
        ("Lq > Lk, D=20, Lk=19 (not multiples of 16)", (1, 23, 20), (1, 19, 20), (1, 19, 9), dict()),
        ("2-D (one head), causal, Lq = Lk", (9, 8), (9, 8), (9, 3), dict(causal=True)),
        ("on the simulated SoC, causal", (1, 4, 8), (1, 6, 8), (1, 6, 4), dict(causal=True, backend="sim")),
    ]
    for i, (what, qs, ks, vs, o) in enumerate(atts):
        d = p(f"att{i}")
        os.makedirs(d, exist_ok=True)
        q, k, v = (rng.standard_normal(sh).astype(np.float32) for sh in (qs, ks, vs))
        args = ["attention", "--out", os.path.join(d, "o.npy"), "--stats", "--backend", o.get("backend", "model")]
        for name, a in (("q", q), ("k", k), ("v", v)):
            np.save(os.path.join(d, name + ".npy"), a)
            args += ["--" + name, os.path.join(d, name + ".npy")]
        args += (["--causal"] if o.get("causal") else []) + (["--scale", str(o["scale"])] if "scale" in o else []) + \
            (["--out-dtype", "bf16"] if o.get("bf16_out") else [])
        rc, out, err = run(args)
        why = f"exit {rc}: {err.strip()}"
        if rc == 0:
            ref, tol = attention_ref(q, k, v, o)
            y = np.load(os.path.join(d, "o.npy"))
            st = json.loads(out)
            why = mismatch(y, ref, tol) or \
                ("" if st["o"] == list(ref.shape) and st["batch"] == int(np.prod(qs[:-2])) and
                 st["causal"] == bool(o.get("causal")) and st["macs"] > 0 else f"--stats {out!r}")
        check(rc == 0 and not why, f"attention {what}: Q {qs}, K {ks}, V {vs}", why)


def f32_errors():
    """Every bad row-function/attention input: exit 2, one "tessel: " line, no output written."""
    d = p("f32err")
    os.makedirs(d, exist_ok=True)

    def a(name, shape, dtype=np.float32):
        return ones_npy(d, name, shape, dtype)
    x, g, y = a("x", (3, 5)), a("g", (5,)), os.path.join(d, "y.npy")
    q, k, v = a("q", (2, 4, 8)), a("k", (2, 6, 8)), a("v", (2, 6, 3))
    att = ["attention", "--q", q, "--k", k, "--v", v, "--out", y]
    errors = [(f"{fn} {what}", [fn, "--x", x, "--out", y] + (["--gamma", g] if "norm" in fn else []) + extra)
              for fn in ROW_FNS for what, extra in [
                  ("--in-dtype int8", ["--in-dtype", "int8"]),
                  ("--out-dtype int32", ["--out-dtype", "int32"]),
                  ("--relu", ["--relu"]),
                  ("--bias", ["--bias", g]),
                  ("--timeline on the model", ["--timeline", os.path.join(d, "t.json")]),
                  ("--out on --x", ["--out", x])]]
    errors += [(f"{fn} without --x", [fn, "--out", y]) for fn in ROW_FNS]
    errors += [(f"{fn} {what}", [fn, "--x", a(name, shape, dtype), "--out", y]) for fn in ("softmax", "silu")
               for what, name, shape, dtype in [("int8 X", "x8", (3, 5), np.int8), ("0-D X", "x0d", (), np.float32),
                                                ("empty X", "xe", (3, 0), np.float32)]]
    errors += [
        ("softmax --mask of another shape", ["softmax", "--x", x, "--mask", a("m35t", (5, 3)), "--out", y]),
        ("softmax --mask with fewer dimensions", ["softmax", "--x", a("x3d", (2, 3, 5)), "--mask", x, "--out", y]),
        ("softmax int32 --mask", ["softmax", "--x", x, "--mask", a("mi", (3, 5), np.int32), "--out", y]),
        ("softmax --scale 0", ["softmax", "--x", x, "--scale", "0", "--out", y]),
        ("softmax --scale nan", ["softmax", "--x", x, "--scale", "nan", "--out", y]),
        ("softmax --scale x", ["softmax", "--x", x, "--scale", "x", "--out", y]),
        ("softmax --gamma", ["softmax", "--x", x, "--gamma", g, "--out", y]),
        ("softmax --eps", ["softmax", "--x", x, "--eps", "1e-5", "--out", y]),
        ("softmax --mask on the output", ["softmax", "--x", x, "--mask", y, "--out", y]),
        ("layernorm without --gamma", ["layernorm", "--x", x, "--out", y]),
        ("layernorm gamma of 4", ["layernorm", "--x", x, "--gamma", a("g4", (4,)), "--out", y]),
        ("layernorm 2-D gamma", ["layernorm", "--x", x, "--gamma", a("g15", (1, 5)), "--out", y]),
        ("layernorm int8 gamma", ["layernorm", "--x", x, "--gamma", a("g8", (5,), np.int8), "--out", y]),
        ("layernorm beta of 6", ["layernorm", "--x", x, "--gamma", g, "--beta", a("b6", (6,)), "--out", y]),
        ("layernorm --eps -1", ["layernorm", "--x", x, "--gamma", g, "--eps", "-1", "--out", y]),
        ("layernorm --eps inf", ["layernorm", "--x", x, "--gamma", g, "--eps", "inf", "--out", y]),
        ("layernorm --eps x", ["layernorm", "--x", x, "--gamma", g, "--eps", "x", "--out", y]),
        ("layernorm --scale", ["layernorm", "--x", x, "--gamma", g, "--scale", "2", "--out", y]),
        ("layernorm --mask", ["layernorm", "--x", x, "--gamma", g, "--mask", x, "--out", y]),
        ("rmsnorm without --gamma", ["rmsnorm", "--x", x, "--out", y]),
        ("rmsnorm --beta", ["rmsnorm", "--x", x, "--gamma", g, "--beta", g, "--out", y]),
        ("gelu --eps", ["gelu", "--x", x, "--eps", "1", "--out", y]),
        ("silu --scale", ["silu", "--x", x, "--scale", "2", "--out", y]),
        ("attention without --v", ["attention", "--q", q, "--k", k, "--out", y]),
        ("attention 1-D Q", ["attention", "--q", a("q1", (8,)), "--k", k, "--v", v, "--out", y]),
        ("attention int8 K", ["attention", "--q", q, "--k", a("k8", (2, 6, 8), np.int8), "--v", v, "--out", y]),
        ("attention empty V", ["attention", "--q", q, "--k", k, "--v", a("v0", (2, 6, 0)), "--out", y]),
        ("attention D mismatch", ["attention", "--q", q, "--k", a("k7", (2, 6, 7)), "--v", v, "--out", y]),
        ("attention Lk mismatch", ["attention", "--q", q, "--k", k, "--v", a("v5", (2, 5, 3)), "--out", y]),
        ("attention heads mismatch", ["attention", "--q", q, "--k", a("k3h", (3, 6, 8)), "--v", v, "--out", y]),
        ("attention ndim mismatch", ["attention", "--q", q, "--k", a("k4d", (1, 2, 6, 8)), "--v", v, "--out", y]),
        ("attention --causal with Lq > Lk", ["attention", "--q", a("q9", (2, 9, 8)), "--k", k, "--v", v, "--causal",
                                             "--out", y]),
        ("attention --causal=1", att + ["--causal=1"]),
        ("attention --scale 0", att + ["--scale", "0"]),
        ("attention --scale inf", att + ["--scale", "inf"]),
        ("attention --in-dtype", att + ["--in-dtype", "fp32"]),
        ("attention --out-dtype int8", att + ["--out-dtype", "int8"]),
        ("attention --mask", att + ["--mask", x]),
        ("attention --relu", att + ["--relu"]),
        ("attention --out on --v", ["attention", "--q", q, "--k", k, "--v", v, "--out", v]),
        ("attention --trace on the model", att + ["--trace", os.path.join(d, "t.fst")]),
    ]
    ins = {path: read(path) for path in (x, g, q, k, v)}
    for what, args in errors:
        rc, out, err = run(args)
        check(one_error(rc, out, err) and not os.path.exists(y) and all(read(f) == b for f, b in ins.items()) and
              not [f for f in os.listdir(d) if f.startswith((".tessel-", "t."))],
              f"{what}: tessel {' '.join(args)}", f"exit {rc}, stderr {err!r}, stdout {out!r}")
    rc, out, err = run(["silu", "--x", a("xw", (1, 1 << 20)), "--out", y])
    check(one_error(rc, out, err, 1) and not os.path.exists(y),
          "silu of a row longer than VMEM (BAD_SHAPE): exit 1, one line, no output", f"exit {rc}, {err!r}")


# ---- the library's reasons ---------------------------------------------------------------------------
# Arguments that libtessel refuses (the CLI checks no rule of its own): exit 2 and one line,
# "tessel: SUB: " and tessel_last_error's text as it is.
LIBRARY_REFUSALS = [
    ("gemm rq shift 63", "gemm", {"a": ((4, 3), np.int8), "b": ((3, 5), np.int8)},
     ["--out-dtype", "int8", "--rq-shift", "63"], "tessel_gemm: rq_shift 63 is outside 0..62"),
    ("gemm bf16 out of int8", "gemm", {"a": ((4, 3), np.int8), "b": ((3, 5), np.int8)}, ["--out-dtype", "bf16"],
     "tessel_gemm: out_dtype bf16 does not go with int8 inputs (int32 or int8)"),
    ("conv2d groups 3", "conv2d", {"x": ((1, 5, 5, 4), np.int8), "w": ((3, 3, 1, 9), np.int8)}, ["--groups", "3"],
     "tessel_conv2d: groups 3 must divide c (4) and cout (9)"),
    ("conv2d groups 0", "conv2d", {"x": ((1, 5, 5, 4), np.int8), "w": ((3, 3, 4, 8), np.int8)}, ["--groups", "0"],
     "tessel_conv2d: groups 0 is outside 1..65535"),
    ("conv2d stride 0", "conv2d", {"x": ((1, 5, 5, 4), np.int8), "w": ((3, 3, 4, 8), np.int8)}, ["--stride", "1,0"],
     "tessel_conv2d: stride_w 0 is outside 1..255"),
    ("pool2d dilation 0", "pool2d", {"x": ((1, 5, 5, 4), np.int8)},
     ["--kind", "max", "--window", "2", "--dilation", "0"], "tessel_pool2d: dil_h 0 is outside 1..255"),
    ("attention causal Lq > Lk", "attention",
     {"q": ((2, 9, 8), np.float32), "k": ((2, 6, 8), np.float32), "v": ((2, 6, 3), np.float32)}, ["--causal"],
     "tessel_attention: causal needs lq <= lk (lq 9, lk 6: more queries than keys)"),
]


def library_refusals():
    """LIBRARY_REFUSALS: the CLI's one stderr line is the library's message."""
    d = p("librefusal")
    os.makedirs(d, exist_ok=True)
    for what, sub, ins, extra, message in LIBRARY_REFUSALS:
        args = [sub]
        for name, (shape, dtype) in ins.items():
            args += [f"--{name}", ones_npy(d, f"{what.replace(' ', '_')}_{name}", shape, dtype)]
        rc, out, err = run(args + extra)
        check(rc == 2 and out == "" and err == f"tessel: {sub}: {message}\n",
              f"{what}: the library's reason, as it is", f"exit {rc}, stderr {err!r} (want {message!r})")


def main():
    os.makedirs(WORK, exist_ok=True)
    # ---- inputs for the error cases ----------------------------------------------------------
    a8 = npy(p("a8.npy"), "|i1", (4, 3), bytes(12))
    b8 = npy(p("b8.npy"), "<i1", (3, 5), bytes(15))
    b8x = npy(p("b8x.npy"), "|i1", (4, 5), bytes(20))
    af = npy(p("af.npy"), "<f4", (4, 3), struct.pack("<12f", *range(12)))
    a64 = npy(p("a64.npy"), "<f8", (4, 3), bytes(96))
    ai4 = npy(p("ai4.npy"), "<i4", (4, 3), bytes(48))
    a1d = npy(p("a1d.npy"), "|i1", (12,), bytes(12))
    afort = npy(p("afort.npy"), "|i1", (4, 3), bytes(12), fortran=True)
    atrunc = npy(p("atrunc.npy"), "|i1", (4, 3), bytes(7))
    bias4 = npy(p("bias4.npy"), "<i4", (4,), bytes(16))
    biasf = npy(p("biasf.npy"), "<f4", (5,), bytes(20))
    with open(p("magic.npy"), "wb") as f:
        f.write(b"\x93NUMPX\x01\x00" + bytes(100))
    with open(p("hlen.npy"), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00\xff\xff{'descr'")
    errors = [
        ("no arguments", ["gemm"]),
        ("unknown option", ["gemm", "--a", a8, "--b", b8, "--bogus"]),
        ("stray argument", ["gemm", "--a", a8, "--b", b8, "extra"]),
        ("option without value", ["gemm", "--a", a8, "--b"]),
        ("missing --b", ["gemm", "--a", a8]),
        ("missing file", ["gemm", "--a", p("no-such.npy"), "--b", b8]),
        ("bad magic", ["gemm", "--a", p("magic.npy"), "--b", b8]),
        ("header length past the end", ["gemm", "--a", p("hlen.npy"), "--b", b8]),
        ("truncated data", ["gemm", "--a", atrunc, "--b", b8]),
        ("fortran order", ["gemm", "--a", afort, "--b", b8]),
        ("float64", ["gemm", "--a", a64, "--b", b8]),
        ("int32 A", ["gemm", "--a", ai4, "--b", b8]),
        ("mixed dtypes", ["gemm", "--a", af, "--b", b8]),
        ("1-D A", ["gemm", "--a", a1d, "--b", b8]),
        ("shape mismatch", ["gemm", "--a", a8, "--b", b8x]),
        ("bias length", ["gemm", "--a", a8, "--b", b8, "--bias", bias4]),
        ("bias dtype", ["gemm", "--a", a8, "--b", b8, "--bias", biasf]),
        ("bad backend", ["gemm", "--a", a8, "--b", b8, "--backend", "fpga"]),
        ("bad out dtype", ["gemm", "--a", a8, "--b", b8, "--out-dtype", "int4"]),
        ("bf16 out for int8", ["gemm", "--a", a8, "--b", b8, "--out-dtype", "bf16"]),
        ("int8 out for float", ["gemm", "--a", af, "--b", npy(p("bf.npy"), "<f4", (3, 2), bytes(24)),
                                "--out-dtype", "int8"]),
        ("rq without int8 out", ["gemm", "--a", a8, "--b", b8, "--rq-scale", "3"]),
        ("rq shift range", ["gemm", "--a", a8, "--b", b8, "--out-dtype", "int8", "--rq-shift", "63"]),
        ("rq scale not a number", ["gemm", "--a", a8, "--b", b8, "--out-dtype", "int8", "--rq-scale", "x"]),
        ("relu with a value", ["gemm", "--a", a8, "--b", b8, "--relu=1"]),
        ("info unknown option", ["info", "--bogus"]),
        ("info bad backend", ["info", "--backend", "fpga"]),
        ("collective without a kind", ["collective", "--chips", "4", "--bytes", "64"]),
        ("collective unknown kind", ["collective", "all-to-one", "--chips", "4", "--bytes", "64"]),
        ("collective int8", ["collective", "all-reduce", "--chips", "4", "--bytes", "64", "--dtype", "int8"]),
        ("collective bytes past the parts", ["collective", "all-gather", "--chips", "4", "--bytes", "20"]),
        ("collective one chip", ["collective", "all-reduce", "--chips", "1", "--bytes", "64"]),
        ("collective torus without dims", ["collective", "all-reduce", "--chips", "4", "--bytes", "64",
                                           "--topology", "torus"]),
        ("collective torus of other dims", ["collective", "all-reduce", "--chips", "4", "--bytes", "64",
                                            "--topology", "torus", "--dims", "2x3"]),
        ("collective root past the chips", ["collective", "broadcast", "--chips", "4", "--bytes", "64",
                                            "--root", "4"]),
        ("output unwritable", ["gemm", "--a", a8, "--b", b8, "--out", p("no-such-dir/c.npy")]),
    ]
    for what, args in errors:
        rc, out, err = run(args)
        lines = err.splitlines()
        want_rc = 1 if what == "output unwritable" else 2
        check(rc == want_rc and len(lines) == 1 and lines[0].startswith("tessel: ") and out == "",
              f"{what}: tessel {' '.join(args)}",
              f"exit {rc} (want {want_rc}), stderr {err!r}, stdout {out!r}")

    # ---- configuration ---------------------------------------------------------------------------
    rc, out, err = run(["info", "--json"])
    info = {}
    try:
        info = json.loads(out)
    except ValueError:
        pass
    check(rc == 0 and info.get("backend") == "model" and info.get("n", 0) >= 1 and
          info.get("hbm_bytes", 0) > 0 and info.get("vmem_bytes", 0) > 0, "info --json", f"{rc} {out!r} {err!r}")
    mxu_n = info.get("n", 16)
    rc, out, err = run(["info"])
    check(rc == 0 and "MXU" in out and "HBM" in out and err == "", "info", f"{rc} {out!r} {err!r}")
    # ---- a pod's collective: its JSON, against the cost model of docs/pod.md written here -------------
    hw = read(os.path.join(ROOT, "hw/include/tsl_hw.h")).decode()
    lat = int(re.search(r"#define TSL_PARAM_ICI_LINK_LATENCY (\d+)u", hw).group(1))
    for kind, chips, v in (("all-reduce", 4, 1 << 20), ("reduce-scatter", 3, 3 * 4096), ("broadcast", 2, 4096)):
        rc, out, err = run(["collective", kind, "--chips", str(chips), "--bytes", str(v), "--stats"])
        try:
            s = json.loads(out)
        except ValueError:
            s = {}
        w = 2 * s.get("link_bytes_per_cycle", 0)
        t = (v / w if kind == "broadcast" else (chips - 1) / chips * v / w) + (chips - 1) * lat if w else -1
        want = int(2 * t if kind == "all-reduce" else t)
        sent = {"all-reduce": 2 * (chips - 1) * v, "reduce-scatter": (chips - 1) * v,
                "broadcast": (chips - 1) * v}[kind]
        check(rc == 0 and s.get("cycles", 0) is None and s.get("busbw", 0) is None and s.get("model_cycles") == want
              and s.get("ici_bytes") == sent, f"collective {kind} --stats on {chips} chips",
              f"{rc} {out!r} {err!r}: want model_cycles {want}, ici_bytes {sent}")
    rc, out, err = run(["gemm", "--help"])
    check(rc == 0 and "usage: tessel gemm" in out, "gemm --help", f"{rc} {out!r}")

    # ---- GEMMs checked against the C reference ---------------------------------------------------
    cases = [
        ("int8 bias relu", "int8", (33, 40, 21), ["--bias", "--relu"], []),
        ("int8 plain", "int8", (16, 16, 16), [], []),
        ("int8 requant", "int8", (20, 17, 50), ["--bias", "--relu", "--narrow", "--rq", "3", "9", "-5"],
         ["--out-dtype", "int8", "--rq-scale", "3", "--rq-shift", "9", "--rq-zp", "-5"]),
        ("int8 saturate", "int8", (9, 31, 40), ["--narrow", "--rq", "1", "0", "0"], ["--out-dtype=int8"]),
        ("f32 plain", "f32", (17, 50, 35), [], []),
        ("f32 bias relu", "f32", (32, 48, 64), ["--bias", "--relu"], []),
        ("f32 bias relu bf16 out", "f32", (19, 23, 37), ["--bias", "--relu", "--narrow"], ["--out-dtype", "bf16"]),
    ]
    for i, (what, ty, (m, n, k), ref_opts, cli_opts) in enumerate(cases):
        d = p(f"case{i}")
        os.makedirs(d, exist_ok=True)
        g = subprocess.run([CLI_REF, "gen", d, ty, str(m), str(n), str(k), str(0x1234 + i)])
        args = ["gemm", "--a", os.path.join(d, "a.npy"), "--b", os.path.join(d, "b.npy"),
                "--out", os.path.join(d, "c.npy"), "--backend", "model"] + cli_opts
        if "--bias" in ref_opts:
            args += ["--bias", os.path.join(d, "bias.npy")]
        if "--relu" in ref_opts:
            args += ["--relu"]
        rc, out, err = run(args)
        ok = g.returncode == 0 and rc == 0
        if ok:
            c = subprocess.run([CLI_REF, "check", d, ty, str(mxu_n)] + ref_opts, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            ok = c.returncode == 0
            err += c.stdout
        check(ok, f"gemm {what} {m}x{n}x{k}", f"exit {rc}: {err.strip()}")

    # ---- --stats, --check ------------------------------------------------------------------------
    d = p("case0")
    base = ["gemm", "--a", os.path.join(d, "a.npy"), "--b", os.path.join(d, "b.npy")]
    rc, out, err = run(base + ["--stats", "--relu"])
    st = {}
    try:
        lines = out.splitlines()
        st = json.loads(out) if len(lines) == 1 else {}
    except ValueError:
        pass
    keys = ("backend", "cycles", "macs", "mxu_utilization", "hbm_bytes", "roofline_cycles")
    ok = rc == 0 and all(k in st for k in keys)
    if ok:
        nn = mxu_n * mxu_n
        ok = (st["backend"] == "model" and 0.0 <= st["mxu_utilization"] <= 1.0 and st["macs"] > 0 and
              st["macs"] % nn == 0 and st["hbm_bytes"] > 0 and
              st["roofline_cycles"] >= -(-st["macs"] // nn) and
              (not st.get("cycles_timed") or st["cycles"] == 0 or
               abs(st["mxu_utilization"] - st["macs"] / (nn * st["cycles"])) < 1e-5))
    check(ok, "--stats prints one JSON line with the documented fields", f"exit {rc}: {out!r} {err!r}")
    rc, out, err = run(base + ["--check", "--out", os.path.join(d, "c.npy"), "--bias", os.path.join(d, "bias.npy"),
                               "--relu"])
    c = subprocess.run([CLI_REF, "check", d, "int8", str(mxu_n), "--bias", "--relu"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    check(rc == 0 and c.returncode == 0, "--check (model mirrored on model)", f"{rc} {err!r} {c.stdout!r}")
    rc, out, err = run(base + ["--stats"], env={"TESSEL_CHECK": "1"})
    check(rc == 0 and '"checked": true' in out, "TESSEL_CHECK=1", f"{rc} {out!r} {err!r}")

    # ---- conv2d and pool2d ------------------------------------------------------------------------
    seed = int(os.environ.get("SEED", "1"))
    print(f"cli: conv2d/pool2d/rows/attention SEED={seed}")
    window_errors()
    window_cases(np.random.default_rng(seed))
    f32_errors()
    library_refusals()
    f32_cases(np.random.default_rng(seed))

    # ---- nothing lost (issue 23) -----------------------------------------------------------------
    d = p("lost")
    os.makedirs(d, exist_ok=True)
    a = npy(os.path.join(d, "a.npy"), "|i1", (4, 3), bytes(range(12)))
    b = npy(os.path.join(d, "b.npy"), "|i1", (3, 5), bytes(range(15)))
    a_bytes, b_bytes = read(a), read(b)
    keep = os.path.join(d, "keep.json")
    os.link(b, os.path.join(d, "b-link.npy"))
    same = [
        ("--timeline on --a", ["--backend", "sim", "--timeline", a]),
        ("--timeline on --a, another spelling", ["--backend", "sim", "--timeline", os.path.join(d, ".", "a.npy")]),
        ("--out on --b", ["--out", b]),
        ("--out on a hard link of --b", ["--out", os.path.join(d, "b-link.npy")]),
        ("--trace on --a", ["--backend", "sim", "--trace", a]),
        ("--out and --timeline the same new file", ["--backend", "sim", "--out", os.path.join(d, "x.npy"),
                                                    "--timeline", os.path.join(d, "x.npy")]),
        ("--out and --trace the same new file", ["--backend", "sim", "--out", os.path.join(d, "y"),
                                                 "--trace", os.path.join(d, ".", "y")]),
    ]
    for what, extra in same:
        rc, out, err = run(["gemm", "--a", a, "--b", b] + extra)
        check(one_error(rc, out, err) and read(a) == a_bytes and read(b) == b_bytes and
              not os.path.exists(os.path.join(d, "x.npy")) and not os.path.exists(os.path.join(d, "y")),
              f"{what}: refused before anything runs, inputs intact", f"exit {rc}, stderr {err!r}")
    # the inputs again, so that each case below stands on its own when a case above destroyed them
    a = npy(os.path.join(d, "a.npy"), "|i1", (4, 3), bytes(range(12)))
    b = npy(os.path.join(d, "b.npy"), "|i1", (3, 5), bytes(range(15)))
    for what, args in [("missing --a", ["--a", os.path.join(d, "none.npy"), "--b", b]),
                       ("shape mismatch", ["--a", b, "--b", b])]:
        with open(keep, "w") as f:
            f.write("keep")
        c_keep = os.path.join(d, "c-keep.npy")
        with open(c_keep, "w") as f:
            f.write("keep")
        rc, out, err = run(["gemm", "--backend", "sim", "--timeline", keep, "--out", c_keep] + args)
        check(one_error(rc, out, err) and read(keep) == b"keep" and read(c_keep) == b"keep",
              f"{what}: the existing --timeline and --out files are left as they were", f"exit {rc}, {err!r}")
    old_umask = os.umask(0o022)
    c_new = os.path.join(d, "c-new.npy")
    rc, out, err = run(["gemm", "--a", a, "--b", b, "--out", c_new])
    os.umask(old_umask)
    check(rc == 0 and os.path.exists(c_new) and (os.stat(c_new).st_mode & 0o777) == 0o644 and
          not [x for x in os.listdir(d) if x.startswith(".tessel-")],
          "--out: written through a temporary file, mode from the umask, nothing left over",
          f"exit {rc}, {err!r}, {sorted(os.listdir(d))}")

    for what, args in [("gemm --firmware on the model", ["gemm", "--a", a, "--b", b, "--firmware", a]),
                       ("gemm --trace on the model", ["gemm", "--a", a, "--b", b, "--trace", os.path.join(d, "t.fst")]),
                       ("info --firmware on the model", ["info", "--firmware", a])]:
        rc, out, err = run(args)
        check(one_error(rc, out, err) and not os.path.exists(os.path.join(d, "t.fst")),
              f"{what}: refused, not ignored", f"exit {rc}, {err!r}")

    af = npy(os.path.join(d, "af.npy"), "<f4", (2, 3), struct.pack("<6f", 1, 2, 3, 4, 5, 6))
    bf = npy(os.path.join(d, "bf.npy"), "<f4", (3, 2), struct.pack("<6f", 1, 0, 0, 1, 1, 1))
    for sv in ("0", "-0", "0.0", "nan", "inf"):
        rc, out, err = run(["gemm", "--a", af, "--b", bf, "--scale", sv, "--out", os.path.join(d, "cs.npy")])
        check(one_error(rc, out, err) and "--scale" in err and not os.path.exists(os.path.join(d, "cs.npy")),
              f"--scale {sv}: refused (a scale of 0 would give the unscaled A x B)", f"exit {rc}, {err!r}")
    rc, out, err = run(["gemm", "--a", af, "--b", bf, "--scale", "0.5", "--out", os.path.join(d, "cs.npy")])
    got = struct.unpack("<4f", read(os.path.join(d, "cs.npy"))[-16:]) if rc == 0 else None
    check(got == (2.0, 2.5, 5.0, 5.5), "--scale 0.5 scales C (A x B = [[4 5] [10 11]])", f"exit {rc}, {err!r}, {got}")

    rc, out, err = run(["gemm", "--a", "/dev/zero", "--b", b], limit=True)
    check(one_error(rc, out, err) and "not a regular file" in err, "--a /dev/zero: refused, not read",
          f"exit {rc}, {err!r}")
    head = read(a)[:-12]   # 4x3 int8, then an endless stream of zeros
    feeder = subprocess.Popen([sys.executable, "-c",
                               "import sys\nsys.stdout.buffer.write(%r)\nz = bytes(1 << 16)\n"
                               "try:\n    while True: sys.stdout.buffer.write(z)\nexcept Exception: pass" % head],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    rc, out, err = run(["gemm", "--a", "/dev/stdin", "--b", b, "--out", os.path.join(d, "cz.npy")],
                       stdin=feeder.stdout, limit=True)
    feeder.stdout.close()
    feeder.kill()
    feeder.wait()
    check(one_error(rc, out, err) and "not a regular file" in err and not os.path.exists(os.path.join(d, "cz.npy")),
          "--a from an endless pipe: refused, not read", f"exit {rc}, {err!r}")

    tall = npy(os.path.join(d, "tall.npy"), "|i1", (4096, 1), bytes(4096))
    wide = npy(os.path.join(d, "wide.npy"), "|i1", (1, 4096), bytes(4096))
    rc, out, err = run(["gemm", "--a", tall, "--b", wide, "--out", os.path.join(d, "ct.npy")])
    check(one_error(rc, out, err, 1) and "()" not in err and not os.path.exists(os.path.join(d, "ct.npy")),
          "C larger than HBM: fails with a reason", f"exit {rc}, {err!r}")

    issue32_cases(d, a, b)
    return tally.summary("cli")


def timed(args, env=None, timeout=30):
    """run(args), or (None, "", "timed out") when tessel is still running after `timeout` seconds."""
    e = dict(os.environ)
    e.pop("TESSEL_CHECK", None)
    e.pop("TESSEL_FIRMWARE", None)
    e.update(env or {})
    try:
        q = subprocess.run([TESSEL] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", "timed out"
    return q.returncode, q.stdout, q.stderr


def issue32_cases(d, a, b):
    """Issue 32: inputs, numbers, the environment and signals (each failed before its fix)."""
    # inputs that are not regular files: refused without blocking (a FIFO with no writer hung)
    fifo = os.path.join(d, "fifo.npy")
    if os.path.exists(fifo):
        os.unlink(fifo)
    os.mkfifo(fifo)
    w = ones_npy(d, "w32", (3, 3, 4, 8), np.int8)
    for what, args in (("gemm --a FIFO", ["gemm", "--a", fifo, "--b", b]),
                       ("gemm --b FIFO", ["gemm", "--a", a, "--b", fifo]),
                       ("conv2d --x FIFO", ["conv2d", "--x", fifo, "--w", w]),
                       ("softmax --x FIFO", ["softmax", "--x", fifo]),
                       ("gemm --a a directory", ["gemm", "--a", d, "--b", b])):
        rc, out, err = timed(args)
        check(rc is not None and one_error(rc, out, err) and ("not a regular file" in err or "directory" in err),
              f"{what}: refused at once, without reading", f"exit {rc}, {err!r}")
    os.unlink(fifo)

    # integers are decimal, with their ranges
    a8 = npy(os.path.join(d, "a32.npy"), "|i1", (1, 1), b"\x01")
    b8 = npy(os.path.join(d, "b32.npy"), "|i1", (1, 1), b"\x01")
    c8 = os.path.join(d, "c32.npy")
    rc, out, err = run(["gemm", "--a", a8, "--b", b8, "--out-dtype", "int8", "--rq-scale", "010", "--out", c8])
    got = read(c8)[-1] if rc == 0 else None
    check(got == 10, "--rq-scale 010 is ten (decimal, not octal 8): 1 x 1 requantised by 10", f"exit {rc}, {err!r}, {got}")
    for bad in ("0x10", " 5", "+5", "5 ", "1e3", "99999999999"):
        rc, out, err = run(["gemm", "--a", a8, "--b", b8, "--out-dtype", "int8", "--rq-scale", bad])
        check(one_error(rc, out, err) and "--rq-scale" in err, f"--rq-scale {bad!r}: refused", f"exit {rc}, {err!r}")
    rc, out, err = run(["conv2d", "--x", ones_npy(d, "x32", (1, 5, 5, 4), np.int8), "--w", w, "--stride", "0x1"])
    check(one_error(rc, out, err) and "--stride" in err, "--stride 0x1: refused (decimal only)", f"exit {rc}, {err!r}")

    # the environment: reported, not ignored
    for var, val in (("TESSEL_TIMEOUT_MS", "abc"), ("TESSEL_TIMEOUT_MS", "-5"), ("TESSEL_TIMEOUT_MS", "0"),
                     ("TESSEL_TIMEOUT_MS", "4294967295"), ("TESSEL_TIMEOUT_MS", "0x10"), ("TESSEL_CHECK", "yes")):
        rc, out, err = run(["gemm", "--a", a8, "--b", b8], env={var: val})
        check(one_error(rc, out, err) and var in err and val in err, f"{var}={val}: refused with its name",
              f"exit {rc}, {err!r}")
    rc, out, err = run(["gemm", "--a", a8, "--b", b8, "--out", c8], env={"TESSEL_TIMEOUT_MS": "60000"})
    check(rc == 0, "TESSEL_TIMEOUT_MS=60000: taken", f"exit {rc}, {err!r}")

    # --scale and --eps: libtessel's rule and message (tessel_f32_arg)
    af = npy(os.path.join(d, "af32.npy"), "<f4", (2, 3), struct.pack("<6f", 1, 2, 3, 4, 5, 6))
    bf = npy(os.path.join(d, "bf32.npy"), "<f4", (3, 2), struct.pack("<6f", 1, 0, 0, 1, 1, 1))
    g = npy(os.path.join(d, "g32.npy"), "<f4", (3,), struct.pack("<3f", 1, 1, 1))
    y = os.path.join(d, "y32.npy")
    for what, args, want in (
            ("gemm --scale 1e-50", ["gemm", "--a", af, "--b", bf, "--scale", "1e-50"], "rounds to 0 in float32"),
            ("gemm --scale -1e-50", ["gemm", "--a", af, "--b", bf, "--scale", "-1e-50"], "rounds to 0 in float32"),
            ("gemm --scale 1e-400", ["gemm", "--a", af, "--b", bf, "--scale", "1e-400"], "rounds to 0 in float32"),
            ("gemm --scale 1e39", ["gemm", "--a", af, "--b", bf, "--scale", "1e39"], "overflows float32"),
            ("conv2d --scale 1e-50", ["conv2d", "--x", ones_npy(d, "xf32", (1, 5, 5, 4), np.float32), "--w",
                                      ones_npy(d, "wf32", (3, 3, 4, 8), np.float32), "--scale", "1e-50"],
             "rounds to 0 in float32"),
            ("softmax --scale 1e-50", ["softmax", "--x", af, "--scale", "1e-50"], "rounds to 0 in float32"),
            ("attention --scale -1e39", ["attention", "--q", af, "--k", af, "--v", af, "--scale", "-1e39"],
             "overflows float32"),
            ("layernorm --eps 1e39", ["layernorm", "--x", af, "--gamma", g, "--eps", "1e39"], "overflows float32"),
            ("rmsnorm --eps 1e-50", ["rmsnorm", "--x", af, "--gamma", g, "--eps", "1e-50"], "rounds to 0 in float32"),
            ("layernorm --eps -1", ["layernorm", "--x", af, "--gamma", g, "--eps", "-1"], "eps must be >= 0"),
            ("gemm --scale 0x1p-3", ["gemm", "--a", af, "--b", bf, "--scale", "0x1p-3"], "decimal number")):
        rc, out, err = run(args + ["--out", y])
        opt = "--eps" if "--eps" in args else "--scale"
        check(one_error(rc, out, err) and want in err and opt in err and not os.path.exists(y),
              f"{what}: refused, {want!r}", f"exit {rc}, {err!r}")
    rc, out, err = run(["layernorm", "--x", af, "--gamma", g, "--eps", "0", "--out", y])
    check(rc == 0, "layernorm --eps 0: taken", f"exit {rc}, {err!r}")

    # a signal during a run leaves no temporary file (a 512^3 GEMM on the sim takes seconds)
    big_a = ones_npy(d, "siga", (512, 512), np.int8)
    big_b = ones_npy(d, "sigb", (512, 512), np.int8)
    sd = os.path.join(d, "sig")
    os.makedirs(sd, exist_ok=True)
    for sig in (signal.SIGINT, signal.SIGTERM):
        for f in os.listdir(sd):
            os.unlink(os.path.join(sd, f))
        e = dict(os.environ)
        e.pop("TESSEL_CHECK", None)
        e.pop("TESSEL_FIRMWARE", None)
        # with the signal's default action: a test started in the background by a non-interactive
        # shell inherits SIGINT ignored, which the CLI rightly keeps
        proc = subprocess.Popen([TESSEL, "gemm", "--backend", "sim", "--a", big_a, "--b", big_b, "--out",
                                 os.path.join(sd, "c.npy"), "--timeline", os.path.join(sd, "t.json")],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=e,
                                preexec_fn=lambda s=sig: signal.signal(s, signal.SIG_DFL))
        t0, seen = time.monotonic(), []
        while proc.poll() is None and not seen and time.monotonic() - t0 < 60:
            seen = [f for f in os.listdir(sd) if f.startswith(".tessel-")]
            time.sleep(0.01)
        running = proc.poll() is None
        if running:   # at once: the run may end within a moment of a loaded machine's sleep
            proc.send_signal(sig)
        try:
            proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
        left = sorted(os.listdir(sd))
        check(seen and running and proc.returncode == -sig and not left,
              f"{sig.name} during gemm --backend sim: the process dies of it and leaves no file",
              f"temporary file seen {seen}, running when signalled {running}, exit {proc.returncode}, "
              f"left {left}")


if __name__ == "__main__":
    sys.exit(main())
