#!/usr/bin/env python3
"""Lab 3: measure the single- and double-buffered GEMMs on the simulated SoC, or check a measurement.

  measure.py run TESSEL SINGLE.elf DB.elf OUT.csv     write the CSV (one row per variant and shape)
  measure.py check TESSEL SINGLE.elf DB.elf CSV NAME [FRESH.csv]
                                                      re-run both and compare with the CSV (within
                                                      TOLERANCE), and check that double buffering is
                                                      faster on every shape; prints "N passed, M failed";
                                                      FRESH.csv receives the re-run
  measure.py report FRESH.csv PLOT.gp OUT.svg ANSWERS.md NAME
                                                      draw FRESH.csv with gnuplot into OUT.svg and check
                                                      that it has one point per run of each variant,
                                                      and that ANSWERS.md has no TODO left
The ELFs are tests/labs/2/lab2_grader.c built with -DLAB2_MEASURE (its "csv:" lines)."""
import csv
import subprocess
import sys

COLUMNS = ["variant", "m", "k", "nc", "cycles", "macs", "hbm_bytes", "dma_busy", "mxu_busy",
           "dma_stall", "mxu_stall"]
TOLERANCE = 0.02  # the simulation is deterministic; this leaves room for small RTL timing changes


def measure(tessel, elf, variant):
    proc = subprocess.run([tessel, "run", elf], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    rows = [[variant] + line[5:].split(",") for line in proc.stdout.splitlines() if line.startswith("csv: ")]
    if proc.returncode != 0 or not rows:
        sys.exit(f"measure.py: {elf} failed (exit {proc.returncode}):\n{proc.stdout[-2000:]}")
    return [dict(zip(COLUMNS, r)) for r in rows]


def write_csv(rows, out):
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, COLUMNS)
        w.writeheader()
        w.writerows(rows)


def run(tessel, single, db, out):
    rows = measure(tessel, single, "single") + measure(tessel, db, "double")
    write_csv(rows, out)
    for r in rows:
        print(f"{r['variant']:>6} {r['m']}x{r['k']}x{r['nc']}: {r['cycles']} cycles")
    print(f"wrote {out}")
    return 0


def check(tessel, single, db, path, name, fresh_out=None):
    passed = failed = 0

    def verdict(ok, msg):
        nonlocal passed, failed
        print(f"{name}: {'ok' if ok else 'FAIL'}: {msg}")
        passed, failed = passed + ok, failed + (not ok)

    try:
        with open(path, newline="") as f:
            recorded = list(csv.DictReader(f))
    except OSError as e:
        recorded = []
        verdict(False, f"cannot read {path} ({e.strerror}): run make lab-3-measure")
    fresh = measure(tessel, single, "single") + measure(tessel, db, "double")
    if fresh_out:
        write_csv(fresh, fresh_out)
    key = lambda r: (r["variant"], r["m"], r["k"], r["nc"])
    rec = {key(r): r for r in recorded}
    for r in fresh:
        old = rec.get(key(r))
        if old is None:
            verdict(False, f"{path} has no row for {' '.join(key(r))}: run make lab-3-measure")
            continue
        a, b = int(old["cycles"]), int(r["cycles"])
        verdict(abs(a - b) <= TOLERANCE * b,
                f"{' '.join(key(r))}: {path} says {a} cycles, a re-run measures {b}")
    cyc = {key(r): int(r["cycles"]) for r in fresh}
    for r in fresh:
        if r["variant"] == "double":
            s = cyc[("single",) + key(r)[1:]]
            verdict(cyc[key(r)] < s, f"{r['m']}x{r['k']}x{r['nc']}: double-buffered {cyc[key(r)]} cycles, "
                    f"single-buffered {s} ({s / cyc[key(r)]:.2f}x)")
    print(f"{name}: {passed} passed, {failed} failed")
    return 1 if failed else 0


# roofline.gp's point types: single-buffered runs are drawn with symbol 6, double-buffered with
# symbol 4, and each also once in the key.
POINT_USE = {"single": "xlink:href='#gpPt6'", "double": "xlink:href='#gpPt4'"}


def report(fresh, plot, svg, answers, name):
    """The report is produced here, not read: the roofline drawn from the re-run, with its points."""
    passed = failed = 0

    def verdict(ok, msg):
        nonlocal passed, failed
        print(f"{name}: {'ok' if ok else 'FAIL'}: {msg}")
        passed, failed = passed + ok, failed + (not ok)

    with open(fresh, newline="") as f:
        rows = list(csv.DictReader(f))
    proc = subprocess.run(["gnuplot", "-e", f"csv='{fresh}'; out='{svg}'", plot],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    text = ""
    if proc.returncode == 0:
        with open(svg) as f:
            text = f.read()
    verdict(proc.returncode == 0 and "<svg" in text,
            f"gnuplot drew {svg} from the re-run {fresh}" +
            (f" (exit {proc.returncode}): {proc.stdout[-400:]}" if proc.returncode else ""))
    for variant, use in POINT_USE.items():
        want = sum(r["variant"] == variant for r in rows)
        got = text.count(use) - 1
        verdict(want > 0 and got == want, f"{svg}: {got} {variant}-buffered points for {want} runs")
    try:
        with open(answers) as f:
            todo = "TODO" in f.read()
        verdict(not todo, f"{answers} has {'a TODO left' if todo else 'no TODO left'}")
    except OSError as e:
        verdict(False, f"cannot read {answers} ({e.strerror})")
    print(f"{name}: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "run":
        sys.exit(run(*sys.argv[2:]))
    if len(sys.argv) in (7, 8) and sys.argv[1] == "check":
        sys.exit(check(*sys.argv[2:]))
    if len(sys.argv) == 7 and sys.argv[1] == "report":
        sys.exit(report(*sys.argv[2:]))
    sys.exit(__doc__)
