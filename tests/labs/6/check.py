#!/usr/bin/env python3
"""Grade lab 6: run the grader firmware on the simulated SoC and compare every element of each y
with a float64 softmax of the same input, regenerated here from lab6_grader.c's LCG; then check
that answers.md has no TODO left. An element passes when |y - ref| <= 2^-19 |ref| + 2^-126: 16 u of
relative error, u = 2^-23 (docs/labs/6-epilogue.md derives the bound), plus what flushing a result
below 2^-126 to zero may lose; "largest error" is in u too. Lines of the run that are not results
(the probe's, the student's printf's, errors) are shown in their place. Prints one "N passed, M
failed" line (a test per shape, one for answers.md).
Usage: check.py TESSEL GRADER.elf NAME ANSWERS.md"""
import re
import subprocess
import sys

import numpy as np

SHAPE = re.compile(r"^lab6: shape (\d+): rows=(\d+) vecs=(\d+) large=([01]) N=(\d+): (.*), (\d+) cycles, "
                   r"VPU busy (\d+), (\d+) VPU instructions$")
ROW = re.compile(r"^Y (\d+) (\d+):((?: [0-9a-f]{8})*)$")
SENTINEL = 0xA5A5A5A5
REL, ABS = 2.0 ** -19, 2.0 ** -126


def inputs(state, rows, cols, large):
    """The grader's x (rows x cols, float64, exact) and the LCG state after it."""
    x = np.empty((rows, cols))
    for r in range(rows):
        off = 0
        if large:
            state = (state * 1664525 + 1013904223) & 0xFFFFFFFF
            off = (state >> 24) - 128
        for c in range(cols):
            state = (state * 1664525 + 1013904223) & 0xFFFFFFFF
            v = (state - (1 << 32) if state & 0x80000000 else state) >> 21
            x[r, c] = off + v / 64.0
    return x, state


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def check_shape(x, rows):
    """None when every element is within the bound, else the first mismatch; and the largest
    relative error in units of 2^-23 (over the results of at least 2^-126)."""
    ref = softmax(x)
    worst = 0.0
    for r in range(x.shape[0]):
        words = rows.get(r)
        if words is None or len(words) != x.shape[1]:
            return f"row {r} missing from the output", worst
        got = np.array(words, dtype=np.uint32).view(np.float32).astype(np.float64)
        err = np.abs(got - ref[r])
        bad = ~(err <= REL * ref[r] + ABS)  # NaN fails too
        if bad.any():
            c = int(np.argmax(bad))
            msg = (f"y[{r}][{c}] (x = {x[r, c]:.6g}, row max {x[r].max():.6g}): expected {ref[r, c]:.9g}, "
                   f"got {got[c]:.9g} (0x{words[c]:08x})")
            return msg + (" (never written)" if words[c] == SENTINEL else ""), worst
        big = ref[r] >= ABS
        if big.any():
            worst = max(worst, float((err[big] / ref[r][big]).max()) * 2.0 ** 23)
    return None, worst


class Grade:
    """The shapes' verdicts, in the order of the run: a shape is graded when its rows are complete
    (at the next shape line, or at the end)."""

    def __init__(self, name):
        self.name, self.passed, self.failed, self.state, self.pending = name, 0, 0, 1, None

    def shape(self, s, r, v, large, n, status, cycles, busy, insns):
        self.flush()
        s, r, v, n = int(s), int(r), int(v), int(n)
        x, self.state = inputs(self.state, r, v * n, large == "1")
        what = f"{self.name}: shape {s} ({r} rows of {v * n})"
        if status != "ok":
            print(f"{what}: lab6_softmax returned '{status}'")
            self.failed += 1
        else:
            self.pending = (what, x, {}, f"{cycles} cycles, VPU busy {busy}, {insns} VPU instructions")

    def row(self, r, words):
        if self.pending:
            self.pending[2][r] = words

    def flush(self):
        if not self.pending:
            return
        what, x, rows, perf = self.pending
        self.pending = None
        bad, worst = check_shape(x, rows)
        if bad:
            print(f"{what}: first mismatch {bad}")
            self.failed += 1
        else:
            print(f"{what}: all {x.size} elements within the bound (largest error {worst:.1f} u), {perf}")
            self.passed += 1


def main(tessel, elf, name, answers):
    proc = subprocess.run([tessel, "run", elf], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    g = Grade(name)
    shapes = 0
    for line in proc.stdout.splitlines():
        m, row = SHAPE.match(line), ROW.match(line)
        if m:
            g.shape(*m.groups())
            shapes += 1
        elif row:
            g.row(int(row.group(2)), [int(w, 16) for w in row.group(3).split()])
        elif line.strip():
            g.flush()
            print(line)
    g.flush()
    if not shapes:
        print(f"{name}: the grader printed no results (tessel exit code {proc.returncode})")
    passed, failed = g.passed, g.failed + (0 if shapes else 1)
    if proc.returncode != 0 and failed == 0:
        print(f"{name}: tessel exited with {proc.returncode}")
        failed += 1
    try:
        text = open(answers).read()
        ok = text.strip() and "TODO" not in text
    except OSError:
        ok = False
    if ok:
        passed += 1
    else:
        print(f"{name}: {answers} is missing or still has a TODO")
        failed += 1
    print(f"{name}: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
