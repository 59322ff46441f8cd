#!/usr/bin/env python3
"""Run each named test target (`make test-NAME`) and print one summary line.

A target counts what it checks with lines of the form `N passed, M failed`, and what it only
builds (an Icarus compile that simulates nothing) with `N built, M failed`: builds are tallied
apart from passes, never as tests. A target that prints neither line fails, even when it exits 0
(it would count nothing it checked). A target that exits non-zero always contributes at least one
failure.
Usage: runner.py NAME...   (the Makefile passes $(TESTS))
"""
import os
import re
import subprocess
import sys
import time

SUMMARY = re.compile(r"^(?:\w+:\s*)?(\d+) passed, (\d+) failed", re.M)
BUILT = re.compile(r"^(?:\w+:\s*)?(\d+) built, (\d+) failed", re.M)


def tally(out, returncode):
    """(passed, failed, built, problem) of one target's output and exit status; problem is a
    message when the target fails for want of a summary line, else None."""
    counts = SUMMARY.findall(out)
    builds = BUILT.findall(out)
    passed = sum(int(p) for p, _ in counts)
    built = sum(int(b) for b, _ in builds)
    failed = sum(int(f) for _, f in counts + builds)
    problem = None
    if not counts and not builds:
        problem = ("printed no 'N passed, M failed' (or 'N built, M failed') summary line, "
                   f"exit {returncode}: a target must count what it checks")
        failed = max(failed, 1)
    elif returncode != 0 and failed == 0:
        failed = 1
    return passed, failed, built, problem


def run(name):
    make = os.environ.get("MAKE", "make")
    start = time.time()
    proc = subprocess.run([make, "--no-print-directory", "-s", "test-" + name],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = proc.stdout
    sys.stdout.write(out)
    passed, failed, built, problem = tally(out, proc.returncode)
    if problem:
        print(f"== {name}: FAIL: {problem}")
    verdict = "ok" if proc.returncode == 0 and failed == 0 else "FAIL"
    extra = f", {built} built" if built else ""
    print(f"== {name}: {verdict} ({passed} passed, {failed} failed{extra}, {time.time() - start:.1f}s)",
          flush=True)
    return passed, failed, built, verdict


def main(names):
    total_p = total_f = total_b = 0
    bad = []
    for name in names:
        print(f"== {name}", flush=True)
        p, f, b, verdict = run(name)
        total_p += p
        total_f += f
        total_b += b
        if verdict != "ok":
            bad.append(name)
    print(f"{total_b} built only (Icarus compiles that simulate nothing), not counted as tests")
    if bad:
        print("failing targets: " + " ".join(bad))
    print(f"{total_p} passed, {total_f} failed")   # the last line, as CI reads it
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
