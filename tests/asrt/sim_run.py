#!/usr/bin/env python3
"""Run test-asrt-sim's two programs, each in a process of its own, so that one that dies (an abort,
as Verilator's own error hooks would end it) is a failure and not the end of the run.

sim_test (C) and sim_test.py (the tessel package, under this Python) each print
"NAME: N passed, M failed"; a program counts one more check for ending with exit 0 and its summary,
not by a signal. Prints the programs' failure lines and "asrt_sim: N passed, M failed".
Usage: sim_run.py SIM_TEST (with $TESSEL_FIRMWARE and PYTHONPATH set as mk/asrt.mk does).
"""
import os
import re
import subprocess
import sys

SUMMARY = re.compile(r"^(\w+): (\d+) passed, (\d+) failed$", re.M)


def main(sim_test):
    here = os.path.dirname(os.path.abspath(__file__))
    passed = failed = 0
    for cmd in ([sim_test], [sys.executable, os.path.join(here, "sim_test.py")]):
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)
        found = SUMMARY.findall(proc.stdout)
        for line in proc.stdout.splitlines():
            if not SUMMARY.match(line):
                print(line)
        for _, p, f in found:
            passed += int(p)
            failed += int(f)
        name = os.path.basename(cmd[-1])
        if proc.returncode == 0 and found:
            passed += 1
        elif proc.returncode < 0:
            failed += 1
            print(f"asrt_sim FAIL: {name} was killed by signal {-proc.returncode} (the process did not survive)")
        else:
            failed += 1
            print(f"asrt_sim FAIL: {name} exited {proc.returncode}{'' if found else ' without a summary'}")
    print(f"asrt_sim: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
