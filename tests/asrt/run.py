#!/usr/bin/env python3
"""Run the assertion harnesses of tests/asrt: each case must end as expected.

A case expects either a clean run (exit 0) or a given assertion: a non-zero exit whose output names
the assertion (Verilator prints "Assertion failed in TOP.<module>.<Name>"). Prints one line per
failure and "asrt: N passed, M failed". Usage: run.py BUILD_DIR (as made by mk/asrt.mk).
"""
import subprocess
import sys

# (binary, arguments, expected assertion or None for a clean run)
CASES = [
    ("fifo", ["ok", "1"], None),
    ("fifo", ["ok", "7"], None),
    ("fifo", ["drop", "1"], "InValidHeld"),
    ("fifo", ["change", "1"], "InDataStable"),
    ("ram_w16", [], None),
    ("ram_w12", [], "ParamRange"),
    ("burst_512", [], "ParamRange"),
    ("arb", ["ok"], None),
    ("arb", ["archange"], "ArHeld"),
    ("arb", ["stray"], "RHasBurst"),
]


def main(build):
    passed = failed = 0
    for name, args, expect in CASES:
        proc = subprocess.run([f"{build}/{name}/{name}"] + args, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=60)
        fired = [l for l in proc.stdout.splitlines() if "Assertion failed" in l]
        if expect is None:
            ok = proc.returncode == 0 and not fired
        else:
            ok = proc.returncode != 0 and any(f".{expect}:" in l for l in fired)
        if ok:
            passed += 1
        else:
            failed += 1
            want = "a clean run" if expect is None else f"assertion {expect}"
            print(f"asrt FAIL: {name} {' '.join(args)}: expected {want}, got exit {proc.returncode}:")
            print("\n".join(proc.stdout.splitlines()[-5:]))
    print(f"asrt: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
