#!/usr/bin/env python3
"""A bf16 GEMM with a VPU function as its epilogue's last step, against the same GEMM plain, on the
sim (docs/performance.md, "Convolution, pooling and the row functions").

usage: bench_epilogue.py [--m M] [--k K] [--n N]

Runs C = A x B (M x K by K x N, float32 rounded to bf16, FP32 C) plain and with each function of
tessel.EPILOGUES but "add_c" (EPILOGUES[0], None, is the plain GEMM), one command each, mirrored on
the golden model (check=True: the bits must agree), and prints the cycles of each and its ratio to
the plain GEMM's. Exit code 1 when a command failed or disagreed with the model.
"""
import argparse
import sys

import numpy as np

import tessel


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--m", type=int, default=256)
    ap.add_argument("--k", type=int, default=1024)
    ap.add_argument("--n", type=int, default=256)
    a = ap.parse_args()
    rng = np.random.default_rng(3)
    x = rng.standard_normal((a.m, a.k)).astype(np.float32)
    w = (rng.standard_normal((a.k, a.n)) / np.sqrt(a.k)).astype(np.float32)
    dev = tessel.Device("sim", check=True)
    cycles, failed = {}, 0
    for epi in [e for e in tessel.EPILOGUES if e != "add_c"]:   # None (plain) first
        try:
            dev.matmul(x, w, epilogue=epi)
        except tessel.Error as e:
            print(f"bench_epilogue: {epi or 'plain'}: {e}")
            failed += 1
            continue
        s = dev.stats()["last"]
        cycles[epi] = s["cycles"]
        ratio = f", {s['cycles'] / cycles[None]:.3f} x the plain GEMM" if epi and None in cycles else ""
        print(f"bench_epilogue: {a.m}x{a.k}x{a.n} bf16, {epi or 'plain'}: {s['cycles']} cycles, "
              f"MXU utilisation {100 * s['mxu_utilization']:.1f} %{ratio}")
    print(f"bench_epilogue: {len(cycles)} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
