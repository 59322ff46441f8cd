#!/usr/bin/env python3
"""Test of the sweep driver (make test-bench): bench.py's roofline arithmetic on hand-computed
shapes (padding to the MXU size, every epilogue, compute- and memory-bound), then its CSV from a
`bench.py --cases tiny` run on the simulated SoC: the three rows are there, MACs, bytes and the
bound are the hand-computed ones, and cycles, utilisation and achieved/roofline are consistent.
usage: test_bench.py CSV     prints "test_bench: N passed, M failed"
"""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402

# (m, n, k, dtype, epilogue, N) -> MACs, HBM bytes, bytes/cycle, roofline cycles, bound; by hand:
HAND = [
    # 32^3 int8 at N=16: 32768 MACs / 256 = 128 cycles; 1024 + 1024 + 4096 bytes / 32 = 192
    ((32, 32, 32, "int8", "none", 16), 32768, 6144, 32, 192, "memory"),
    # int8 out: C is 16x16 bytes; 512 + 512 + 256 = 1280 bytes -> 40 cycles; 8192 MACs -> 32
    ((16, 16, 32, "int8", "requant", 16), 8192, 1280, 32, 40, "memory"),
    # bf16: 2-byte A and B, fp32 C, 64-byte bias: 256 + 512 + 512 + 64 = 1344 -> 42 cycles
    ((8, 16, 16, "bf16", "bias_relu", 16), 2048, 1344, 32, 42, "memory"),
    # K and N padded to 32: 5 * 32 * 32 = 5120 MACs -> 20 cycles; 85 + 340 + 400 = 825 B -> 26
    ((5, 20, 17, "int8", "none", 16), 5120, 825, 32, 26, "memory"),
    # 512^3 bf16 at N=16: 2^27 MACs / 256 = 524288 cycles; 512 + 512 + 1024 KiB / 32 = 65536
    ((512, 512, 512, "bf16", "none", 16), 1 << 27, 2 << 20, 32, 524288, "compute"),
    # N=4: one 8-byte beat per cycle; 64^3 int8: 262144 MACs / 16 = 16384; 24576 B / 8 = 3072
    ((64, 64, 64, "int8", "none", 4), 262144, 24576, 8, 16384, "compute"),
]


def main(path):
    ok = bad = 0

    def expect(cond, what):
        nonlocal ok, bad
        ok += bool(cond)
        bad += not cond
        if not cond:
            print("test_bench: FAIL " + what)

    for (m, n, k, dt, ep, nn), macs, hbm, bw, roof, bound in HAND:
        e = bench.expected(bench.case(m, n, k, dt, ep, nn))
        got = (e["macs"], e["hbm_bytes"], e["bytes_per_cycle"], e["roofline_cycles"], e["bound"])
        expect(got == (macs, hbm, bw, roof, bound), "expected(%dx%dx%d %s %s N=%d) = %s, by hand %s" % (
            m, n, k, dt, ep, nn, got, (macs, hbm, bw, roof, bound)))
    try:
        with open(path) as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        rows = []
        expect(False, "cannot read %s: %s" % (path, e))
    expect(len(rows) == 3 and set(rows[0]) == set(bench.COLUMNS) if rows else False,
           "%s: %d rows, columns %s" % (path, len(rows), list(rows[0]) if rows else None))
    for r in rows:
        key = (int(r["m"]), int(r["n"]), int(r["k"]), r["dtype"], r["epilogue"], int(r["mxu_n"]))
        hand = [h for h in HAND if h[0] == key]
        expect(len(hand) == 1, "unexpected row %s" % (key,))
        if not hand:
            continue
        _, macs, hbm, bw, roof, bound = hand[0]
        cyc = int(r["cycles"])
        expect((int(r["macs"]), int(r["hbm_bytes"]), int(r["roofline_cycles"]), r["bound"]) == (macs, hbm, roof, bound),
               "row %s: macs/bytes/roofline/bound %s" % (key, [r["macs"], r["hbm_bytes"], r["roofline_cycles"], r["bound"]]))
        expect(cyc >= roof, "row %s: %d cycles below the roofline bound %d" % (key, cyc, roof))
        close = lambda a, b: abs(a - b) <= 1e-5 * max(abs(b), 1e-12)
        expect(close(float(r["utilisation"]), macs / (key[5] ** 2 * cyc)) and
               close(float(r["achieved_over_roofline"]), roof / cyc) and close(float(r["mac_per_cycle"]), macs / cyc),
               "row %s: utilisation %s, achieved/roofline %s with %d cycles" % (
                   key, r["utilisation"], r["achieved_over_roofline"], cyc))
    print("test_bench: %d passed, %d failed" % (ok, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]) if len(sys.argv) == 2 else __doc__)
