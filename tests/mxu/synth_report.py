#!/usr/bin/env python3
"""Yosys synthesis of a top (tsl_mxu by default) per N and target; prints a markdown table and
writes it into docs/hardware.md between the <marker>-begin/end comments.

usage: synth_report.py --out DIR --ns "4 8 16" [--int8 "4"] [--top tsl_tc --marker tc-synth
       --set "VmemBytes=16384 AccBytes=4096"] [--docs docs/hardware.md] RTL...
Targets: generic (`synth`: gate cells), ice40 (`synth_ice40 -dsp`), xilinx (`synth_xilinx`, xc7).
"""
import argparse
import os
import re
import subprocess
import sys
import time

TARGETS = {
    "generic": "synth -top {top} -flatten",
    "ice40": "synth_ice40 -top {top} -dsp",
    "xilinx": "synth_xilinx -top {top} -flatten",
}


def cells(log):
    """Cell counts of the last `stat` in a Yosys log."""
    part = log[log.rfind("Number of cells:"):]
    out = {}
    for m in re.finditer(r"^\s+(\S+)\s+(\d+)\s*$", part, re.M):
        out[m.group(1)] = out.get(m.group(1), 0) + int(m.group(2))
    total = re.search(r"Number of cells:\s+(\d+)", part)
    return out, int(total.group(1)) if total else 0


def summarise(target, c, total):
    def count(pred):
        return sum(v for k, v in c.items() if pred(k))
    if target == "generic":
        ff = count(lambda k: re.match(r"\$_(S?DFF|DFFE|SDFFE|SDFFCE|ALDFF|DLATCH)", k) is not None)
        return {"LUT": f"{total - ff} gates", "FF": ff, "DSP": count(lambda k: k.startswith("$mul")), "BRAM": 0}
    if target == "ice40":
        return {"LUT": count(lambda k: k == "SB_LUT4"), "FF": count(lambda k: k.startswith("SB_DFF")),
                "DSP": count(lambda k: k == "SB_MAC16"), "BRAM": count(lambda k: k.startswith("SB_RAM"))}
    lut = count(lambda k: re.match(r"LUT\d$", k) is not None)
    srl = count(lambda k: k.startswith("SRL"))
    return {"LUT": f"{lut} (+{srl} SRL)" if srl else lut, "FF": count(lambda k: re.match(r"FD[CPRSE]*$", k) is not None),
            "DSP": count(lambda k: k.startswith("DSP48")), "BRAM": count(lambda k: k.startswith("RAMB"))}


def run(out, rtl, n, bf16, target, top="tsl_mxu", extra=""):
    tag = f"{top}_n{n}_{'bf16' if bf16 else 'int8'}_{target}"
    ys = os.path.join(out, tag + ".ys")
    log = os.path.join(out, tag + ".log")
    with open(ys, "w") as f:
        f.write("read_verilog -sv " + " ".join(rtl) + "\n")
        sets = "".join(f" -set {kv.replace('=', ' ')}" for kv in extra.split())
        f.write(f"chparam -set N {n} -set EnableBf16 {1 if bf16 else 0}{sets} {top}\n")
        f.write(f"{TARGETS[target].format(top=top)}\nstat\n")
    t0 = time.time()
    p = subprocess.run(["yosys", "-q", "-l", log, ys], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    secs = time.time() - t0
    if p.returncode != 0:
        print(f"{tag}: yosys failed, see {log}", file=sys.stderr)
        return None
    c, total = cells(open(log).read())
    return summarise(target, c, total), secs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--ns", default="4 8 16")
    ap.add_argument("--int8", default="4 8 16")
    ap.add_argument("--docs", default="docs/hardware.md")
    ap.add_argument("--top", default="tsl_mxu")
    ap.add_argument("--marker", default="mxu-synth")
    ap.add_argument("--set", default="", help="extra parameters, NAME=VALUE separated by spaces")
    ap.add_argument("rtl", nargs="+")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rtl = a.rtl if a.top != "tsl_mxu" else [f for f in a.rtl if "prim/" not in f]
    configs = [(int(n), True) for n in a.ns.split()] + [(int(n), False) for n in a.int8.split()]
    configs.sort()
    rows = ["| N | dtypes | target | LUT | FF | DSP | BRAM | Yosys time |", "|---|---|---|---|---|---|---|---|"]
    for n, bf16 in configs:
        for target in TARGETS:
            r = run(a.out, rtl, n, bf16, target, a.top, a.set)
            if r is None:
                rows.append(f"| {n} | {'int8+bf16' if bf16 else 'int8'} | {target} | failed | | | | |")
                continue
            s, secs = r
            rows.append(f"| {n} | {'int8+bf16' if bf16 else 'int8'} | {target} | {s['LUT']} | {s['FF']} | "
                        f"{s['DSP']} | {s['BRAM']} | {secs:.0f} s |")
            print(rows[-1], flush=True)
    table = "\n".join(rows) + "\n"
    with open(os.path.join(a.out, "report.md"), "w") as f:
        f.write(table)
    print(table)
    if a.docs and os.path.exists(a.docs):
        d = open(a.docs).read()
        b, e = f"<!-- {a.marker}-begin -->\n", f"<!-- {a.marker}-end -->"
        if b in d and e in d:
            d = d[:d.index(b) + len(b)] + table + d[d.index(e):]
            open(a.docs, "w").write(d)
            print(f"updated {a.docs}")


if __name__ == "__main__":
    main()
