#!/usr/bin/env python3
"""Yosys synth_xilinx (xc7) resource estimate of the Arty A7 build (tsl_arty_top), per
configuration; writes a markdown table into docs/fpga.md between the arty-synth markers. Reuses
the runner and cell summary of tests/mxu/synth_report.py. Vivado's own numbers (make -C fpga arty,
utilization.rpt) are the authority; Yosys maps VMEM/ACC/HBM to RAMB36/18 comparably.

usage: synth_estimate.py --out DIR [--configs "16:0 16:1"] [--docs docs/fpga.md] RTL...
       (a config is N:EnableBf16)
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests", "mxu"))
from synth_report import run  # noqa: E402

AVAILABLE = "| xc7a100t available | | 63400 | 126800 | 240 | 135 RAMB36 |"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--configs", default="16:0")
    ap.add_argument("--docs", default="docs/fpga.md")
    ap.add_argument("rtl", nargs="+")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rows = ["| config | Yosys time | LUT | FF | DSP48 | BRAM (RAMB36+RAMB18 cells) |",
            "|---|---|---|---|---|---|"]
    for cfg in a.configs.split():
        n, bf16 = (int(x) for x in cfg.split(":"))
        name = f"N={n} {'int8+bf16' if bf16 else 'int8'}"
        r = run(a.out, a.rtl, n, bool(bf16), "xilinx", "tsl_arty_top")
        if r is None:
            rows.append(f"| {name} | failed | | | | |")
            continue
        s, secs = r
        rows.append(f"| {name} | {secs:.0f} s | {s['LUT']} | {s['FF']} | {s['DSP']} | {s['BRAM']} |")
        print(rows[-1], flush=True)
    rows.append(AVAILABLE)
    table = "\n".join(rows) + "\n"
    print(table)
    if os.path.exists(a.docs):
        d = open(a.docs).read()
        b, e = "<!-- arty-synth-begin -->\n", "<!-- arty-synth-end -->"
        if b in d and e in d:
            open(a.docs, "w").write(d[:d.index(b) + len(b)] + table + d[d.index(e):])
            print(f"updated {a.docs}")


if __name__ == "__main__":
    main()
