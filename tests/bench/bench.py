#!/usr/bin/env python3
"""GEMM benchmark sweep on the Verilated SoC through the host library (`make bench`, docs/performance.md).

Each case runs `tessel gemm --backend sim --stats` (one SoC build per MXU size N), parses its JSON
line, and is compared with the roofline bound
    roofline_cycles = max(ceil(MACs / N^2), ceil(HBM bytes / bandwidth))
where MACs are what the firmware issues (K and N padded to multiples of the MXU N), the HBM bytes
are compulsory (A, B, C and the bias once), and the bandwidth is the HBM model's token bucket
capped by one AXI beat (2N bytes) per cycle. The driver recomputes MACs, bytes and the bound from
the shape and fails when the library's numbers disagree.

usage: bench.py --out DIR --cases full|quick|tiny|none [--tessel N=PATH]... [-j J]
                [--demo PATH] [--firmware FW.elf] [--merge CSV]... [--plots]
  --tessel N=PATH  a `tessel` binary whose sim backend is an N x N SoC (repeatable)
  --demo PATH      tessel-demo (writes the float32 inputs of the bf16 cases)
  --firmware FW    the command-processor firmware every SoC runs (default: the library's)
  --merge CSV      add the rows of an earlier run (e.g. the N=4 half of a sweep run separately)
Writes DIR/bench.csv and DIR/bench.md (the table of docs/performance.md), prints the table and, with
--plots, writes DIR/utilisation.png and DIR/roofline.png.
Exit code: 0 all cases ran and agreed with the recomputed bound, 1 otherwise.
"""
import argparse
import concurrent.futures
import csv
import json
import os
import random
import struct
import subprocess
import sys

HBM_BYTES_PER_CYCLE = 32  # TSL_PARAM_HBM_BYTES_PER_CYCLE (hw/include/tsl_hw.h)
EPILOGUES = {  # name -> extra `tessel gemm` arguments (int8 requantisation: scale 1/2^10)
    "none": [],
    "bias_relu": ["--relu"],
    "requant": ["--out-dtype", "int8", "--rq-scale", "1", "--rq-shift", "10"],
    "bias_relu_requant": ["--relu", "--out-dtype", "int8", "--rq-scale", "1", "--rq-shift", "10"],
}
# Two GEMMs measured together: an inference-sized int8 layer pair (a 784-128-16 MLP on 512 rows).
LAYER_PAIR = "mlp_784_128_16"
COLUMNS = ["m", "n", "k", "dtype", "epilogue", "mxu_n", "cycles", "macs", "hbm_bytes", "bytes_per_cycle",
           "compute_cycles", "memory_cycles", "roofline_cycles", "bound", "intensity", "mac_per_cycle",
           "utilisation", "achieved_over_roofline", "wall_seconds", "group"]


def case(m, n, k, dtype, epilogue, mxu_n, group=""):
    return {"m": m, "n": n, "k": k, "dtype": dtype, "epilogue": epilogue, "mxu_n": mxu_n, "group": group}


def cases(which, sizes):
    """The sweep: `sizes` are the MXU sizes N that have a SoC build."""
    out = []
    if which == "none":
        return out
    if which == "tiny":
        return [case(32, 32, 32, "int8", "none", sizes[0]), case(16, 16, 32, "int8", "requant", sizes[0]),
                case(8, 16, 16, "bf16", "bias_relu", sizes[0])]
    for nn in sizes:
        small = nn < 16  # the N=4 SoC is 16x slower per MAC: square shapes up to 256 only
        squares = [64, 128, 256] if small else [64, 128, 256, 512]
        if which == "quick":
            squares = [64, 256] if not small else [64]
        for dt in ("int8", "bf16"):
            out += [case(s, s, s, dt, "none", nn) for s in squares]
            if which == "quick":
                continue
            for s in squares[-3:] if not small else squares[-2:]:
                out.append(case(s, s, s, dt, "bias_relu", nn))
                if dt == "int8":
                    out.append(case(s, s, s, dt, "requant", nn))
        if which == "quick":
            out.append(case(1, 1024, 1024, "int8", "none", nn))
            continue
        # memory bound: a GEMV, and a wide outer product whose int32 C dominates the traffic
        gemv = 1024 if small else 4096
        out += [case(1, gemv, gemv, "int8", "none", nn), case(1, gemv, gemv, "bf16", "none", nn)]
        if not small:
            out.append(case(2048, 2048, 16, "int8", "none", nn))
            out += [case(512, 128, 784, "int8", "bias_relu_requant", nn, LAYER_PAIR),
                    case(512, 16, 128, "int8", "none", nn, LAYER_PAIR)]
    return out


def expected(c):
    """MACs, compulsory HBM bytes and the roofline of a case, from its shape alone."""
    nn, m, n, k = c["mxu_n"], c["m"], c["n"], c["k"]
    pad = lambda x: (x + nn - 1) // nn * nn
    macs = m * pad(k) * pad(n)
    es = 1 if c["dtype"] == "int8" else 2
    ces = 1 if c["epilogue"].endswith("requant") else 4
    bias = 4 * n if c["epilogue"].startswith("bias") else 0
    hbm = m * k * es + k * n * es + m * n * ces + bias
    bw = min(HBM_BYTES_PER_CYCLE, 2 * nn)
    compute = -(-macs // (nn * nn))
    memory = -(-hbm // bw)
    return {"macs": macs, "hbm_bytes": hbm, "bytes_per_cycle": bw, "compute_cycles": compute,
            "memory_cycles": memory, "roofline_cycles": max(compute, memory),
            "bound": "compute" if compute >= memory else "memory", "intensity": macs / hbm}


# ---- inputs ------------------------------------------------------------------------------------
def npy_write(path, descr, shape, data):
    """A version 1.0 .npy file: little-endian `descr`, C order."""
    hdr = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else ""))
    hdr += " " * (63 - (len(hdr) + 10) % 64) + "\n"
    with open(path + ".tmp", "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode() + data)
    os.replace(path + ".tmp", path)


def inputs(c, root, demo):
    """Inputs of a case (shared by all N and epilogues): DIR with a.npy, b.npy, bias.npy."""
    m, n, k, dt = c["m"], c["n"], c["k"], c["dtype"]
    d = os.path.join(root, "inputs", "%s_%dx%dx%d" % (dt, m, n, k))
    if os.path.exists(os.path.join(d, "bias.npy")):
        return d
    os.makedirs(d, exist_ok=True)
    if dt == "bf16":
        subprocess.run([demo, "gen", d, str(m), str(n), str(k), "1"], check=True)
        return d
    rng = random.Random(m * 1000003 + n * 1009 + k)
    npy_write(os.path.join(d, "a.npy"), "|i1", (m, k), rng.randbytes(m * k))
    npy_write(os.path.join(d, "b.npy"), "|i1", (k, n), rng.randbytes(k * n))
    npy_write(os.path.join(d, "bias.npy"), "<i4", (n,),
              struct.pack("<%di" % n, *(rng.randrange(-4096, 4096) for _ in range(n))))
    return d


# ---- running -----------------------------------------------------------------------------------
def run(c, tessel, root, demo, fw):
    d = inputs(c, root, demo)
    cmd = [tessel, "gemm", "--backend", "sim", "--stats", "--a", os.path.join(d, "a.npy"),
           "--b", os.path.join(d, "b.npy")] + EPILOGUES[c["epilogue"]] + (["--firmware", fw] if fw else [])
    if c["epilogue"].startswith("bias"):
        cmd += ["--bias", os.path.join(d, "bias.npy")]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        return None, "exit %d: %s" % (p.returncode, p.stderr.strip())
    try:
        return json.loads(p.stdout.strip().splitlines()[-1]), None
    except (ValueError, IndexError) as e:
        return None, "no JSON --stats line (%s): %r" % (e, p.stdout[:200])


def evaluate(c, js):
    """The CSV row of a case from its --stats line; (row, list of disagreements)."""
    e = expected(c)
    bad = ["%s: library %s, expected %s" % (key, js.get(key), e[key])
           for key in ("macs", "hbm_bytes") if js.get(key) != e[key]]
    if js.get("mxu_n") != c["mxu_n"]:
        bad.append("mxu_n: library %s, expected %s" % (js.get("mxu_n"), c["mxu_n"]))
    cycles = js["cycles"]
    row = dict(c, cycles=cycles, wall_seconds=js.get("wall_seconds", 0.0), **e)
    row["mac_per_cycle"] = e["macs"] / cycles
    row["utilisation"] = e["macs"] / (c["mxu_n"] ** 2 * cycles)
    row["achieved_over_roofline"] = e["roofline_cycles"] / cycles
    return row, bad


def shape(r):
    return "%dx%dx%d" % (r["m"], r["n"], r["k"])


def table(rows):
    hdr = "%-14s %-5s %-17s %3s %10s %7s %10s %7s %s" % (
        "MxNxK", "dtype", "epilogue", "N", "cycles", "util", "roofline", "ach/rf", "bound")
    lines = [hdr, "-" * len(hdr)]
    for r in rows:
        lines.append("%-14s %-5s %-17s %3d %10d %6.1f%% %10d %6.1f%% %s" % (
            shape(r), r["dtype"], r["epilogue"], r["mxu_n"], r["cycles"], 100 * r["utilisation"],
            r["roofline_cycles"], 100 * r["achieved_over_roofline"], r["bound"]))
    return "\n".join(lines)


def groups(rows):
    """(group, N, MACs, cycles, utilisation) of the cases measured together."""
    out = []
    for g, nn in sorted({(r.get("group", ""), r["mxu_n"]) for r in rows if r.get("group")}):
        rs = [r for r in rows if r.get("group") == g and r["mxu_n"] == nn]
        macs, cycles = sum(r["macs"] for r in rs), sum(r["cycles"] for r in rs)
        out.append((g, nn, macs, cycles, macs / (nn * nn * cycles)))
    return out


def write_markdown(path, rows):
    """The table of docs/performance.md."""
    with open(path, "w") as f:
        f.write("| M×N×K | dtype | epilogue | N | cycles | utilisation | roofline (cycles) | bound | "
                "achieved/roofline |\n|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            f.write("| %s | %s | %s | %d | %d | %.1f %% | %d | %s | %.1f %% |\n" % (
                shape(r).replace("x", "×"), r["dtype"], r["epilogue"].replace("_", "+"), r["mxu_n"], r["cycles"],
                100 * r["utilisation"], r["roofline_cycles"], r["bound"], 100 * r["achieved_over_roofline"]))
        for g, nn, macs, cycles, util in groups(rows):
            f.write("\n%s (N = %d), both GEMMs: %d MACs in %d cycles, %.1f %% utilisation.\n" % (
                g, nn, macs, cycles, 100 * util))


def read_row(r):
    """A row of a bench.csv with its numbers converted back."""
    return {k: (r[k] if k in ("dtype", "epilogue", "bound", "group") else float(r[k]) if "." in r[k] or "e" in r[k]
                else int(r[k])) for k in COLUMNS}


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: ("%.6g" % v if isinstance(v, float) else v) for k, v in r.items()})


def plots(out, rows):
    """utilisation.png (square GEMMs without epilogue: utilisation vs size) and roofline.png (every
    case), with gnuplot."""
    here = os.path.dirname(os.path.abspath(__file__))
    square = [r for r in rows if r["epilogue"] == "none" and r["m"] == r["n"] == r["k"]]
    series = sorted({(r["dtype"], r["mxu_n"]) for r in square})
    for dt, nn in series:
        with open(os.path.join(out, "util_%s_n%d.dat" % (dt, nn)), "w") as f:
            for r in sorted((r for r in square if (r["dtype"], r["mxu_n"]) == (dt, nn)), key=lambda r: r["m"]):
                f.write("%d %.6f\n" % (r["m"], 100 * r["utilisation"]))
    with open(os.path.join(out, "roofline.dat"), "w") as f:
        for r in rows:
            f.write("%.6g %.6g %d %s_%s\n" % (r["intensity"], r["mac_per_cycle"], r["mxu_n"], r["dtype"], shape(r)))
    sizes = sorted({r["mxu_n"] for r in rows})
    util_series = " ".join("%s_n%d" % s for s in series)
    for script, extra in (("utilisation.gp", "series='%s'" % util_series),
                          ("roofline.gp", "sizes='%s'; bw='%s'" % (
                              " ".join(map(str, sizes)), " ".join(str(min(HBM_BYTES_PER_CYCLE, 2 * n)) for n in sizes)))):
        p = subprocess.run(["gnuplot", "-e", "dir='%s'; %s" % (out, extra), os.path.join(here, script)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            print("bench: gnuplot %s failed:\n%s" % (script, p.stdout), file=sys.stderr)
            return False
    return True


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", choices=("full", "quick", "tiny", "none"), default="full")
    ap.add_argument("--tessel", action="append", default=[], metavar="N=PATH")
    ap.add_argument("--merge", action="append", default=[], metavar="CSV")
    ap.add_argument("--demo", default="tessel-demo")
    ap.add_argument("--firmware")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--plots", action="store_true")
    a = ap.parse_args(argv)
    bins = {}
    for t in a.tessel:
        n, _, path = t.partition("=")
        bins[int(n)] = os.path.abspath(path)
    os.makedirs(a.out, exist_ok=True)
    todo = cases(a.cases, sorted(bins, reverse=True)) if bins else []
    # inputs first (serially: they are shared), then the simulations, at most j at a time
    for c in todo:
        inputs(c, a.out, a.demo)
    rows, passed, failed = [], 0, 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(a.j, 2))) as ex:
        futs = [ex.submit(run, c, bins[c["mxu_n"]], a.out, a.demo, a.firmware and os.path.abspath(a.firmware)) for c in todo]
        for c, fu in zip(todo, futs):
            js, err = fu.result()
            what = "%s %s %s N=%d" % (shape(c), c["dtype"], c["epilogue"], c["mxu_n"])
            if err:
                print("bench: FAIL %s: %s" % (what, err), flush=True)
                failed += 1
                continue
            row, bad = evaluate(c, js)
            for b in bad:
                print("bench: FAIL %s: %s" % (what, b), flush=True)
            failed += bool(bad)
            passed += not bad
            rows.append(row)
            print("bench: %-40s %10d cycles %6.1f%% of N^2 MAC/cycle %6.1f%% of roofline  (%.1f s)" % (
                what, row["cycles"], 100 * row["utilisation"], 100 * row["achieved_over_roofline"],
                row["wall_seconds"]), flush=True)
    rows += [read_row(r) for path in a.merge for r in csv.DictReader(open(path))]
    write_csv(os.path.join(a.out, "bench.csv"), rows)
    write_markdown(os.path.join(a.out, "bench.md"), rows)
    print(table(rows))
    for g, nn, macs, cycles, util in groups(rows):
        print("bench: %s N=%d: %d cycles for both GEMMs, %.1f%% of N^2 MAC/cycle" % (g, nn, cycles, 100 * util))
    print("bench: wrote %s" % os.path.join(a.out, "bench.csv"))
    if a.plots and rows:
        if plots(a.out, rows):
            print("bench: wrote %s and %s" % (os.path.join(a.out, "utilisation.png"), os.path.join(a.out, "roofline.png")))
        else:
            failed += 1
    print("bench: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
