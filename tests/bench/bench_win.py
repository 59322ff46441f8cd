#!/usr/bin/env python3
"""Convolution, pooling and the row functions on the Verilated SoC (`make bench-conv`,
`make bench-rows`, docs/performance.md).

Each case runs `tessel conv2d|pool2d|<row function> --backend sim --stats` on random data (NHWC for
the windows, rows of float32 for the row functions) and reports the cycles from doorbell to
completion, the MXU utilisation (the MACs the compiled program issues over N^2 per cycle) and the
memory roofline: the compulsory HBM bytes (input, weights, bias, the rows' gamma and beta, and the
output once), recomputed here from the shape and checked against the library's count, over 32 bytes
a cycle. The row functions also run with --check: each command mirrored on the golden model, the
results equal bit for bit.

usage: bench_win.py --tessel PATH --out DIR [--cases full|tiny|rows|rows-tiny]
Writes DIR/bench_win.md (the table) and prints it. Exit code 0 when every case ran and agreed.
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

HBM_BYTES_PER_CYCLE = 32  # TSL_PARAM_HBM_BYTES_PER_CYCLE (hw/include/tsl_hw.h)


def conv(name, n, h, c, cout, k, groups=1, stride=1, pad=1, dtype="int8", extra=()):
    return dict(name=name, op="conv2d", n=n, h=h, c=c, cout=cout, k=k, groups=groups, stride=stride, pad=pad,
                dtype=dtype, extra=list(extra))


def pool(name, n, h, c, k, kind, dtype="int8"):
    return dict(name=name, op="pool2d", n=n, h=h, c=c, cout=c, k=k, groups=1, stride=k, pad=0, dtype=dtype,
                kind=kind, extra=[])


def rows(fn, m, n, params=(), residual=False):
    """A row function over m rows of n float32 values (read as bf16, written as fp32); params: the
    FP32 rows of n values it also reads ("gamma", "beta"); residual: an m x n float32 residual added
    first (a norm's --residual, read as fp32)."""
    return dict(name=f"{fn}{' + residual' if residual else ''} {m}x{n}", op=fn, m=m, n=n, params=list(params),
                residual=residual, dtype="bf16")


ROW_FNS = [("gelu", ()), ("silu", ()), ("softmax", ()), ("layernorm", ("gamma", "beta")), ("rmsnorm", ("gamma",)),
           ("layernorm", ("gamma", "beta"), True)]

CASES = {
    "full": [
        conv("3x3 56x56x64->64 (the target)", 1, 56, 64, 64, 3, extra=["--out-dtype", "int8", "--rq-shift", "8"]),
        conv("3x3 56x56x64->64, int32 out", 1, 56, 64, 64, 3),
        conv("3x3 depthwise 56x56x64", 1, 56, 64, 64, 3, groups=64, extra=["--out-dtype", "int8", "--rq-shift", "8"]),
        conv("3x3 28x28x128->128 bf16", 1, 28, 128, 128, 3, dtype="bf16"),
        conv("1x1 28x28x128->256", 1, 28, 128, 256, 1, pad=0),
        conv("3x3 stride 2 56x56x64->128", 1, 56, 64, 128, 3, stride=2),
        pool("max 2x2 56x56x64", 1, 56, 64, 2, "max"),
        pool("avg 2x2 56x56x64", 1, 56, 64, 2, "avg"),
    ],
    "tiny": [
        conv("3x3 8x8x16->16", 1, 8, 16, 16, 3),
        pool("max 2x2 8x8x16", 1, 8, 16, 2, "max"),
    ],
    "rows": [rows(fn[0], 256, 1024, *fn[1:]) for fn in ROW_FNS],
    "rows-tiny": [rows(fn[0], 8, 64, *fn[1:]) for fn in ROW_FNS],
}


def out_size(i, k, stride, pad):
    return (i + 2 * pad - k) // stride + 1


def run_rows(tessel, work, c, rng):
    """A row function's case (rows()): X and its FP32 parameter rows saved; the command line (the run
    checked on the model) and the compulsory HBM bytes."""
    xp = os.path.join(work, "x.npy")
    np.save(xp, rng.standard_normal((c["m"], c["n"]), dtype=np.float32))
    args = [tessel, c["op"], "--backend", "sim", "--stats", "--check", "--x", xp]
    for name in c["params"]:
        pp = os.path.join(work, f"{name}.npy")
        np.save(pp, rng.standard_normal(c["n"], dtype=np.float32))
        args += [f"--{name}", pp]
    if c["residual"]:
        rp = os.path.join(work, "residual.npy")
        np.save(rp, rng.standard_normal((c["m"], c["n"]), dtype=np.float32))
        args += ["--residual", rp]
    return args, c["m"] * c["n"] * (2 + 4 + 4 * c["residual"]) + 4 * c["n"] * len(c["params"])


def run(tessel, work, c, rng):
    if c["op"] not in ("conv2d", "pool2d"):
        return measure(c, *run_rows(tessel, work, c, rng))
    es = 1 if c["dtype"] == "int8" else 2
    x_shape = (c["n"], c["h"], c["h"], c["c"])
    if c["dtype"] == "int8":
        x = rng.integers(-128, 128, x_shape, dtype=np.int8)
    else:
        x = rng.standard_normal(x_shape, dtype=np.float32)
    xp = os.path.join(work, "x.npy")
    np.save(xp, x)
    args = [tessel, c["op"], "--backend", "sim", "--stats", "--x", xp, "--stride", str(c["stride"]),
            "--pad", str(c["pad"])] + c["extra"]
    oh = out_size(c["h"], c["k"], c["stride"], c["pad"])
    if c["op"] == "conv2d":
        w_shape = (c["k"], c["k"], c["c"] // c["groups"], c["cout"])
        w = rng.integers(-128, 128, w_shape, dtype=np.int8) if es == 1 else rng.standard_normal(w_shape, dtype=np.float32)
        wp = os.path.join(work, "w.npy")
        np.save(wp, w)
        args += ["--w", wp, "--groups", str(c["groups"])]
        w_bytes = w.size * es
        out_es = 1 if "--out-dtype" in c["extra"] else 4
    else:
        args += ["--kind", c["kind"], "--window", str(c["k"])]
        w_bytes = 0
        out_es = es if c["kind"] == "max" or es == 1 else 4
    return measure(c, args, x.size * es + w_bytes + c["n"] * oh * oh * c["cout"] * out_es)


def measure(c, args, nbytes):
    """Run one case's command line; its row of the table, or the reason it failed."""
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=3600)
    if p.returncode:
        return None, f"{c['name']}: exit {p.returncode}: {p.stderr.strip()}"
    s = json.loads(p.stdout)
    if "--check" in args and s.get("checked") is not True:
        return None, f"{c['name']}: not checked against the model"
    if s["hbm_bytes"] != nbytes:
        return None, f"{c['name']}: the library counts {s['hbm_bytes']} HBM bytes, the shape gives {nbytes}"
    mem = -(-nbytes // HBM_BYTES_PER_CYCLE)
    nn = s["mxu_n"] ** 2
    return {"case": c["name"], "dtype": c["dtype"], "cycles": s["cycles"], "macs": s["macs"],
            "mxu": s["macs"] / (nn * s["cycles"]), "memory_cycles": mem, "of_memory": mem / s["cycles"]}, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tessel", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", default="full", choices=sorted(CASES))
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = np.random.default_rng(7)
    rows, errors = [], []
    for c in CASES[a.cases]:
        r, e = run(a.tessel, a.out, c, rng)
        if e:
            errors.append(e)
            print("FAIL:", e)
        else:
            rows.append(r)
    lines = ["| case | dtype | cycles | MACs issued | MXU utilisation | memory-bound cycles | of the memory roofline |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['case']} | {r['dtype']} | {r['cycles']:,} | {r['macs']:,} | {100 * r['mxu']:.1f} % | "
                     f"{r['memory_cycles']:,} | {100 * r['of_memory']:.1f} % |")
    table = "\n".join(lines)
    with open(os.path.join(a.out, "bench_win.md"), "w") as f:
        f.write(table + "\n")
    print(table)
    print(f"bench_win: {len(rows)} passed, {len(errors)} failed")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
