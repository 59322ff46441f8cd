#!/usr/bin/env python3
"""Grade lab 2 (or lab 3's correctness): run the grader firmware on the simulated SoC and compare
every element of each C with an exact integer matmul of the same operands, regenerated here from
lab2_grader.c's LCG. Prints one "N passed, M failed" line (one test per shape).
Usage: check.py TESSEL GRADER.elf NAME"""
import re
import subprocess
import sys

SHAPE = re.compile(r"^lab2: shape (\d+): M=(\d+) K=(\d+) NC=(\d+), .*: (\S+), (\d+) cycles", re.M)
ROW = re.compile(r"^C (\d+) (\d+):((?: [0-9a-f]{8})*)$", re.M)


def lcg_bytes(state, count):
    """count bytes (whole 32-bit words, little-endian) of the LCG stream; returns (bytes, state)."""
    out = bytearray()
    for _ in range((count + 3) // 4):
        state = (state * 1664525 + 1013904223) & 0xFFFFFFFF
        out += state.to_bytes(4, "little")
    return out, state


def s8(b):
    return b - 256 if b > 127 else b


def main(tessel, elf, name):
    proc = subprocess.run([tessel, "run", elf], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = proc.stdout
    rows = {}
    for s, i, words in ROW.findall(out):
        rows[(int(s), int(i))] = [int(w, 16) for w in words.split()]
    passed = failed = 0
    state = 1
    shapes = SHAPE.findall(out)
    if not shapes:
        print(out[-2000:])
        print(f"{name}: the grader printed no results (tessel exit code {proc.returncode})")
    for s, m, k, nc, status, cycles in shapes:
        s, m, k, nc = int(s), int(m), int(k), int(nc)
        a, state = lcg_bytes(state, m * k)
        b, state = lcg_bytes(state, k * nc)
        if status != "ok":
            print(f"{name}: shape {s} ({m}x{k}x{nc}): lab2_gemm returned '{status}'")
            failed += 1
            continue
        bad = None
        for i in range(m):
            got = rows.get((s, i))
            if got is None or len(got) != nc:
                bad = f"row {i} missing from the output"
                break
            for j in range(nc):
                want = sum(s8(a[i * k + kk]) * s8(b[kk * nc + j]) for kk in range(k)) & 0xFFFFFFFF
                if got[j] != want:
                    bad = f"C[{i}][{j}]: expected 0x{want:08x}, got 0x{got[j]:08x}"
                    if got[j] == 0xA5A5A5A5:
                        bad += " (never written)"
                    break
            if bad:
                break
        if bad:
            print(f"{name}: shape {s} ({m}x{k}x{nc}): first mismatch {bad}")
            failed += 1
        else:
            print(f"{name}: shape {s} ({m}x{k}x{nc}): all {m * nc} elements match, {cycles} cycles")
            passed += 1
    if proc.returncode != 0 and failed == 0:
        print(f"{name}: tessel exited with {proc.returncode}")
        failed = 1
    print(f"{name}: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
