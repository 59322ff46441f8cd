#!/usr/bin/env python3
"""Run each named test target (`make test-NAME`) and print one summary line.

A target that prints lines of the form `N passed, M failed` contributes those
counts; one that prints none counts as a single test, passed when it exits 0.
A target that exits non-zero always contributes at least one failure.
Usage: runner.py NAME...   (the Makefile passes $(TESTS))
"""
import os
import re
import subprocess
import sys
import time

SUMMARY = re.compile(r"^(?:\w+:\s*)?(\d+) passed, (\d+) failed", re.M)


def run(name):
    make = os.environ.get("MAKE", "make")
    start = time.time()
    proc = subprocess.run([make, "--no-print-directory", "-s", "test-" + name],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = proc.stdout
    sys.stdout.write(out)
    counts = SUMMARY.findall(out)
    passed = sum(int(p) for p, _ in counts)
    failed = sum(int(f) for _, f in counts)
    if not counts:
        passed, failed = (1, 0) if proc.returncode == 0 else (0, 1)
    elif proc.returncode != 0 and failed == 0:
        failed = 1
    verdict = "ok" if proc.returncode == 0 and failed == 0 else "FAIL"
    print(f"== {name}: {verdict} ({passed} passed, {failed} failed, {time.time() - start:.1f}s)",
          flush=True)
    return passed, failed, verdict


def main(names):
    total_p = total_f = 0
    bad = []
    for name in names:
        print(f"== {name}", flush=True)
        p, f, verdict = run(name)
        total_p += p
        total_f += f
        if verdict != "ok":
            bad.append(name)
    if bad:
        print("failing targets: " + " ".join(bad))
    print(f"{total_p} passed, {total_f} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
