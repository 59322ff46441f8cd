#!/usr/bin/env python3
"""Run a randomised test binary over many seeds, one process per seed, on every core.

    seeds.py BINARY COUNT [JOBS]

Each run is `SEED=s BINARY` for s = 1 .. COUNT; a run fails when it exits non-zero. A failing
seed is printed with its replay command and the first lines of its FAIL output, as it happens;
progress is printed every tenth of the runs. The last line is "NAME: P passed, F failed", NAME
being the binary's name followed by _seeds.
"""
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor


def run(binary, seed):
    p = subprocess.run([binary], env={**os.environ, "SEED": str(seed)},
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    fails = [line for line in p.stdout.splitlines() if "FAIL" in line][:5]
    return seed, p.returncode, fails


def main():
    binary, count = sys.argv[1], int(sys.argv[2])
    jobs = int(sys.argv[3]) if len(sys.argv) > 3 else os.cpu_count() or 1
    name = os.path.basename(binary) + "_seeds"
    passed = failed = 0
    with ThreadPoolExecutor(jobs) as pool:
        for done, (seed, rc, fails) in enumerate(pool.map(lambda s: run(binary, s), range(1, count + 1)), 1):
            if rc == 0:
                passed += 1
            else:
                failed += 1
                print(f"FAIL: SEED={seed} {binary} (exit {rc})", *fails, sep="\n  ", flush=True)
            if done % max(1, count // 10) == 0 and done < count:
                print(f"{name}: {done}/{count} seeds run, {failed} failed", flush=True)
    print(f"{name}: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
