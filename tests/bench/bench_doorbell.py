#!/usr/bin/env python3
"""The doorbell's latency on the sim (docs/performance.md, "The command path"): cycles from the
host's CMD_HEAD write to the first DMA instruction of the command's program.

usage: bench_doorbell.py [--count N] [--size S] [--timeline T.json]

Opens the sim with a timeline (tessel.Device("sim", timeline=...)), runs N bf16 GEMMs of S x S x S
one after another, each a command of its own, and reads the timeline: each "command" span (the
host track, doorbell to interrupt) against the first DMA span that starts in it. The first command
after opening the device is reported apart: the control core checks the rings' layout then (the
host has just written it); later commands find it checked. Each C is checked against host IEEE
float on bf16-rounded inputs (FP32 accumulation: within K ulps of sum |a||b|). Prints one line per measure and exits 1 when a command has no DMA
span or a result is wrong.
"""
import argparse
import json
import os
import statistics
import sys
import tempfile

import numpy as np

import tessel


def bf16(x):
    """float32 values rounded to bf16 (nearest, ties to even), as float32."""
    u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return u.astype(np.uint32).view(np.float32)


def latencies(path):
    with open(path) as f:
        spans = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
    dma = sorted(e["ts"] for e in spans if e["name"] in ("LOAD", "STORE"))
    out = []
    for c in sorted((e for e in spans if e["name"] == "command"), key=lambda e: e["ts"]):
        first = next((t for t in dma if c["ts"] <= t < c["ts"] + c["dur"]), None)
        out.append(None if first is None else first - c["ts"])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=16)
    ap.add_argument("--size", type=int, default=64)
    ap.add_argument("--timeline")
    args = ap.parse_args()
    if args.count < 2 or args.size < 1:
        sys.exit("bench_doorbell: --count must be at least 2 and --size at least 1")
    rng = np.random.default_rng(1)
    s = args.size
    a = rng.standard_normal((s, s)).astype(np.float32)
    b = rng.standard_normal((s, s)).astype(np.float32)
    ref = bf16(a).astype(np.float64) @ bf16(b).astype(np.float64)
    bound = s * 2.0 ** -24 * (np.abs(bf16(a)).astype(np.float64) @ np.abs(bf16(b)).astype(np.float64)) + 1e-30
    path = args.timeline or os.path.join(tempfile.mkdtemp(prefix="tessel-doorbell-"), "timeline.json")
    wrong = 0
    dev = tessel.Device("sim", timeline=path)
    try:
        for _ in range(args.count):
            c = dev.matmul(a, b)
            wrong += int(np.any(np.abs(c - ref) > bound))
    finally:
        dev.close()
    lat = latencies(path)
    if len(lat) != args.count or None in lat or wrong:
        print("bench_doorbell: FAIL: %d commands in the timeline (expected %d), %d without a DMA, %d wrong results"
              % (len(lat), args.count, lat.count(None), wrong))
        return 1
    rest = lat[1:]
    print("bench_doorbell: %d bf16 GEMMs of %d^3 on the sim, cycles from the doorbell to the first DMA" % (args.count, s))
    print("bench_doorbell: first command after open: %d" % lat[0])
    print("bench_doorbell: later commands: min %d, median %d, max %d" %
          (min(rest), statistics.median(rest), max(rest)))
    print("bench_doorbell: timeline %s" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
