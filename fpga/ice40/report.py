#!/usr/bin/env python3
"""Summarise a nextpnr-ice40 --report JSON: utilisation and Fmax per clock. Exits 1 when a clock
misses its target (argv[2], MHz). Usage: report.py nextpnr-report.json TARGET_MHZ"""
import json
import sys


def main():
    rep = json.load(open(sys.argv[1]))
    target = float(sys.argv[2])
    util = rep.get("utilization", {})
    for cell in ("ICESTORM_LC", "ICESTORM_RAM", "ICESTORM_SPRAM", "ICESTORM_DSP", "SB_IO"):
        if cell in util:
            u = util[cell]
            print(f"{cell:15s} {u['used']:5d} / {u['available']:5d}")
    ok = True
    for clk, f in rep.get("fmax", {}).items():
        met = f["achieved"] >= target
        ok = ok and met
        print(f"Fmax {clk}: {f['achieved']:.2f} MHz (target {target:.2f} MHz: {'PASS' if met else 'FAIL'})")
    if not rep.get("fmax"):
        print("no clock found in the report")
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
