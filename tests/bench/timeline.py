#!/usr/bin/env python3
"""Check and draw a `tessel gemm --timeline` file (Chrome-trace JSON, docs/performance.md).

usage: timeline.py check T.json      the test (make test-timeline): the JSON parses; every span is a
                                     complete event with integer ts >= 0 and dur >= 1; spans of one
                                     track never overlap; per unit, the span count equals the tensor
                                     core's PERF_*_INSNS counter (SYNCs included), the MATMUL(K)
                                     rows x K-blocks x N^2 equal PERF_MXU_MACS and the DMA LOAD/STORE
                                     bytes equal PERF_HBM_RD/WR_BYTES; the control core and the host
                                     command have spans. Prints "timeline: N passed, M failed".
       timeline.py png T.json OUT.png [FROM TO]   a gnuplot rendering (cycles FROM..TO, default all)
"""
import collections
import json
import os
import subprocess
import sys

UNITS = ("DMA", "MXU", "VPU")


def load(path):
    with open(path) as f:
        js = json.load(f)
    names = {e["tid"]: e["args"]["name"] for e in js["traceEvents"] if e.get("name") == "thread_name"}
    spans = [e for e in js["traceEvents"] if e.get("ph") == "X"]
    return js, names, spans


def check(path):
    ok, bad = 0, 0

    def expect(cond, what):
        nonlocal ok, bad
        if cond:
            ok += 1
        else:
            bad += 1
            print("timeline: FAIL %s" % what)

    try:
        js, names, spans = load(path)
    except (OSError, ValueError, KeyError) as e:
        print("timeline: FAIL %s does not parse as a trace: %s" % (path, e))
        print("timeline: 0 passed, 1 failed")
        return 1
    perf = js["otherData"]["perf"]
    n = js["otherData"]["n"]
    by_track = collections.defaultdict(list)
    for e in spans:
        good = all(isinstance(e.get(k), int) for k in ("ts", "dur", "tid")) and e["ts"] >= 0 and e["dur"] >= 1
        expect(good and e["tid"] in names, "malformed span %s" % e)
        if good:
            by_track[names.get(e["tid"], "?")].append(e)
    for track, evs in sorted(by_track.items()):
        evs.sort(key=lambda e: e["ts"])
        over = [(a, b) for a, b in zip(evs, evs[1:]) if b["ts"] < a["ts"] + a["dur"]]
        expect(not over, "track %s: %d overlapping spans, first %s" % (track, len(over), over[:1]))
    for unit in UNITS:
        got = len(by_track[unit])
        want = perf["PERF_%s_INSNS" % unit]
        expect(got == want, "%s: %d spans, PERF_%s_INSNS = %d" % (unit, got, unit, want))
    expect(any(by_track[u] for u in UNITS), "no tensor-core instruction spans")
    rows = sum(e["args"]["rows"] * e["args"].get("kblocks", 1) for e in by_track["MXU"] if e["name"] != "LOADW"
               and e["name"] != "SYNC")
    expect(rows * n * n == perf["PERF_MXU_MACS"], "MATMUL(K) rows x K-blocks x N^2 = %d, PERF_MXU_MACS = %d" % (
        rows * n * n, perf["PERF_MXU_MACS"]))
    for op, ctr in (("LOAD", "PERF_HBM_RD_BYTES"), ("STORE", "PERF_HBM_WR_BYTES")):
        b = sum(e["args"]["rows"] * e["args"]["row_bytes"] for e in by_track["DMA"] if e["name"] == op)
        expect(b == perf[ctr], "DMA %s bytes %d, %s = %d" % (op, b, ctr, perf[ctr]))
    core = collections.Counter(e["name"] for e in by_track["control core"])
    expect(core["push"] + core["launch"] + core["program"] > 0 and core["fetch+validate"] > 0,
           "control core phases: %s" % dict(core))
    expect(len(by_track["host command (doorbell to IRQ)"]) >= 1, "no host command span")
    expect(len(by_track["tile sequencer"]) >= (1 if core["launch"] else 0),
           "%d descriptors launched, %d tile-sequencer spans" % (core["launch"], len(by_track["tile sequencer"])))
    print("timeline: %d spans on %d tracks; %s" % (len(spans), len(by_track),
                                                   ", ".join("%s %d" % (t, len(e)) for t, e in sorted(by_track.items()))))
    print("timeline: %d passed, %d failed" % (ok, bad))
    return 1 if bad else 0


def png(path, out, lo=None, hi=None):
    """One row per track, one box per span, drawn with gnuplot (tests/bench/timeline.gp)."""
    _, names, spans = load(path)
    lo = min(e["ts"] for e in spans) if lo is None else lo
    hi = max(e["ts"] + e["dur"] for e in spans) if hi is None else hi
    dat = out + ".dat"
    colour = {name: i + 1 for i, name in enumerate(sorted({e["name"] for e in spans}))}
    with open(dat, "w") as f:
        for e in spans:  # centre, track, half width, half height, colour (by name), label if wide
            b, end = max(e["ts"], lo), min(e["ts"] + e["dur"], hi)
            if end > b:
                label = e["name"] if end - b > (hi - lo) / 30 else ""
                f.write('%g %d %g 0.35 %d "%s"\n' % ((b + end) / 2, e["tid"], (end - b) / 2, colour[e["name"]], label))
    tracks = sorted(names)
    tics = ", ".join('"%s" %d' % (names[t], t) for t in tracks)
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run(["gnuplot", "-e", "dat='%s'; out='%s'; tics='%s'; lo=%d; hi=%d; ntracks=%d" % (
        dat, out, tics.replace("'", ""), lo, hi, len(tracks)), os.path.join(here, "timeline.gp")], check=True)


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) == 2 and a[0] == "check":
        sys.exit(check(a[1]))
    if len(a) in (3, 5) and a[0] == "png":
        png(a[1], a[2], *(int(x) for x in a[3:]))
        sys.exit(0)
    sys.exit(__doc__)
