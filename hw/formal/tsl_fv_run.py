#!/usr/bin/env python3
"""Run one formal proof with Debian's Yosys 0.23 and yosys-smtbmc (no SymbiYosys needed).

1. tsl_fv_prep.py copies the RTL with its `TSL_ASSERTs rewritten (and --assume/--bind applied);
2. yosys reads the copies and the proof's wrapper with -formal, sets the wrapper's parameters,
   and writes SMT2 (the flow of SymbiYosys's prep: async2sync, undriven wires free per cycle);
3. yosys-smtbmc with z3 checks it:
     prove K  the base case (no assertion fails in cycles 0..K-1 from reset) and the induction
              step (K cycles that satisfy every assertion are followed by one that does too):
              the assertions hold in every reachable state;
     bmc K    the base case alone: no assertion fails within K cycles of reset (a bound).
Prints 'NAME: P passed, F failed (...)' with P the assertions and assumption-free properties
(the SMT2 asserts) proved, for tests/runner.py, and keeps the logs and a failing trace (trace.vcd)
in OUTDIR.

Usage: tsl_fv_run.py NAME OUTDIR --top T --mode prove|bmc --depth K [--set P=V]... [--define D]...
                     [--assume M.N]... [--bind M=F]... --rtl F... --wrap F...
"""
import argparse
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def sh(cmd, log):
    with open(log, "w") as f:
        return subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT).returncode


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("name")
    ap.add_argument("outdir")
    ap.add_argument("--top", required=True)
    ap.add_argument("--mode", choices=["prove", "bmc"], required=True)
    ap.add_argument("--depth", type=int, required=True)
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--assume", action="append", default=[])
    ap.add_argument("--bind", action="append", default=[])
    ap.add_argument("--rtl", nargs="+", default=[])
    ap.add_argument("--wrap", nargs="+", default=[])
    ap.add_argument("--define", action="append", default=[])
    ap.add_argument("--solver", default="z3")
    a = ap.parse_args()
    out = a.outdir
    os.makedirs(out, exist_ok=True)
    t0 = time.time()
    src = os.path.join(out, "src")
    prep = [sys.executable, os.path.join(HERE, "tsl_fv_prep.py"), src]
    prep += [f"--assume={x}" for x in a.assume] + [f"--bind={x}" for x in a.bind] + a.rtl
    if sh(prep, os.path.join(out, "prep.log")):
        print(open(os.path.join(out, "prep.log")).read())
        print(f"{a.name}: 0 passed, 1 failed (tsl_fv_prep.py)")
        return 1
    files = [os.path.join(src, os.path.basename(f)) for f in a.rtl] + a.wrap
    chparam = "".join(f"chparam -set {p.split('=')[0]} {p.split('=')[1]} {a.top}; " for p in a.set)
    smt2 = os.path.join(out, "model.smt2")
    defs = "".join(f" -D{d}" for d in a.define)
    script = (f"read_verilog -formal -sv -DFORMAL{defs} {' '.join(files)}; {chparam}"
              f"prep -flatten -top {a.top}; memory_map; opt -fast; async2sync; chformal -assume -early; "
              f"dffunmap; setundef -undriven -anyseq; opt_clean; check -assert; "
              f"write_smt2 -wires {smt2}")
    if sh(["yosys", "-q", "-l", os.path.join(out, "yosys.log"), "-p", script],
          os.path.join(out, "yosys.out")):
        print(open(os.path.join(out, "yosys.out")).read()[-3000:])
        print(f"{a.name}: 0 passed, 1 failed (yosys)")
        return 1
    with open(smt2) as f:
        text = f.read()
    nassert = len(re.findall(r"^; yosys-smt2-assert ", text, re.M))
    nassume = len(re.findall(r"^; yosys-smt2-assume ", text, re.M))
    base = ["yosys-smtbmc", "-s", a.solver, "--unroll", "--presat", "-t", str(a.depth)]
    runs = [("base", base + ["--dump-vcd", os.path.join(out, "trace.vcd"), smt2])]
    if a.mode == "prove":
        runs.append(("induction", base + ["-i", "--dump-vcd", os.path.join(out, "trace_induct.vcd"), smt2]))
    ok = True
    for tag, cmd in runs:
        log = os.path.join(out, f"{tag}.log")
        rc = sh(cmd, log)
        with open(log) as f:
            body = f.read()
        if rc != 0 or "Status: PASSED" not in body:
            ok = False
            print(f"{a.name}: {tag} FAILED ({log}):")
            print("\n".join(l for l in body.splitlines() if "failed" in l.lower() or "Assert" in l
                            or "Status" in l)[-2000:])
            break
    dt = time.time() - t0
    how = f"k-induction, k={a.depth}" if a.mode == "prove" else f"BMC, depth {a.depth}"
    sets = " " + " ".join(a.set) if a.set else ""
    if ok:
        print(f"{a.name}: {nassert} passed, 0 failed ({a.top}{sets}: {how}, {nassume} assumptions, {dt:.1f} s)")
        return 0
    print(f"{a.name}: 0 passed, {nassert} failed ({a.top}{sets}: {how}, {dt:.1f} s)")
    return 1


if __name__ == "__main__":
    sys.exit(main())
