#!/usr/bin/env python3
"""Build and run the control-core test programs (tests/core/README.md).

  coretest.py isa            run the self-checking programs on the Verilated core, record CPI
  coretest.py diff           run the portable programs and random programs on the core and on
                             QEMU; their printed signatures must be identical
  coretest.py soak           diff with many long random programs

Options: --seed S (random tests; default: time-based, always printed), --progs N, --len L,
--jobs J. Environment: BUILD (default build). The core binary is $BUILD/bin/tessel-run.
"""
import argparse
import concurrent.futures as cf
import os
import random
import re
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TDIR = os.path.join(ROOT, "tests", "core")
BUILD = os.path.join(ROOT, os.environ.get("BUILD", "build"))
OUT = os.path.join(BUILD, "core")
RUNNER = os.path.join(BUILD, "bin", "tessel-run")
CC = os.environ.get("RISCV_CC", "riscv64-unknown-elf-gcc")
QEMU = ["qemu-system-riscv32", "-M", "virt", "-bios", "none",
        "-cpu", "rv32,c=false,a=false,f=false,d=false,s=false,u=false,h=false",
        "-semihosting-config", "enable=on,target=native", "-nographic", "-kernel"]
# The random code and data sit at fixed addresses in both builds, so PC-relative values agree.
RAND_SECTIONS = ["-Wl,--section-start=.rand.text=0x80006000",
                 "-Wl,--section-start=.rand.data=0x8000e000"]
SUMMARY = re.compile(r"^\w+: (\d+) passed, (\d+) failed$", re.M)
STATS = re.compile(r"cycles (\d+) instret (\d+) CPI ([0-9.]+)")


class Prog:
    def __init__(self, name, srcs, soc_only=False, ldflags=(), flash=0x10000):
        self.name, self.srcs, self.soc_only = name, srcs, soc_only
        self.ldflags, self.flash = list(ldflags), flash


def sh(cmd, timeout=300):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=timeout)


def build_soc(p, extra_cflags=""):
    """Build with the SDK (sdk/sdk.mk): crt0, HAL console and exit."""
    outdir = os.path.join(OUT, "soc")
    r = sh(["make", "--no-print-directory", "-s", "-f", os.path.join(ROOT, "sdk", "sdk.mk"),
            "TESSEL_SDK=" + os.path.join(ROOT, "sdk"), "PROG=" + p.name,
            "SRCS=" + " ".join(p.srcs), "OUT=" + outdir,
            "CFLAGS_EXTRA=-DTSL_SOC -I" + TDIR + " " + extra_cflags,
            "LDFLAGS_EXTRA=" + " ".join(p.ldflags)])
    if r.returncode != 0:
        raise RuntimeError(f"build of {p.name} for the core failed:\n{r.stdout}{r.stderr}")
    return os.path.join(outdir, p.name + ".elf")


def build_qemu(p):
    """Build for qemu virt with picolibc's semihosting crt0 (stdio and exit via semihosting)."""
    outdir = os.path.join(OUT, "qemu")
    os.makedirs(outdir, exist_ok=True)
    elf = os.path.join(outdir, p.name + ".elf")
    cflags = ["-march=rv32im_zicsr", "-mabi=ilp32", "--specs=picolibc.specs", "-O2", "-g",
              "-std=c11", "-Wall", "-Wextra", "-Werror", "-I" + TDIR]
    objs = []
    for s in p.srcs:
        o = os.path.join(outdir, f"{p.name}.{os.path.basename(s)}.o")
        r = sh([CC] + cflags + ["-c", s, "-o", o])
        if r.returncode != 0:
            raise RuntimeError(f"build of {p.name} for QEMU failed:\n{r.stderr}")
        objs.append(o)
    ld = ["-march=rv32im", "-mabi=ilp32", "--specs=picolibc.specs", "--crt0=semihost",
          "--oslib=semihost", "-DPICOLIBC_INTEGER_PRINTF_SCANF", "-Wl,--gc-sections",
          "-Wl,--no-warn-rwx-segments", "-Wl,--defsym=__flash=0x80000000",
          f"-Wl,--defsym=__flash_size={p.flash:#x}", "-Wl,--defsym=__ram=0x80010000",
          "-Wl,--defsym=__ram_size=0x10000"] + p.ldflags
    r = sh([CC] + ld + objs + ["-o", elf])
    if r.returncode != 0:
        raise RuntimeError(f"link of {p.name} for QEMU failed:\n{r.stderr}")
    for o in objs:
        os.remove(o)
    return elf


def run_soc(elf, max_cycles=50_000_000):
    r = sh([RUNNER, "--stats", "--max-cycles", str(max_cycles), elf], timeout=600)
    m = STATS.search(r.stderr)
    stats = (int(m.group(1)), int(m.group(2)), float(m.group(3))) if m else None
    return r.returncode, r.stdout, r.stderr, stats


def run_qemu(elf):
    try:
        r = sh(QEMU + [elf], timeout=60)
    except subprocess.TimeoutExpired:
        return 124, "", "qemu: timeout after 60 s"
    # Semihosting console output arrives on QEMU's stderr.
    return r.returncode, (r.stdout + r.stderr).replace("\r\n", "\n"), r.stderr


def portable_progs():
    gen = os.path.join(OUT, "gen")
    os.makedirs(gen, exist_ok=True)
    progs = []
    for part in ("rr", "rest"):
        s = os.path.join(gen, f"isa_{part}.S")
        r = sh([sys.executable, os.path.join(TDIR, "gen_isa.py"), part, s])
        if r.returncode != 0:
            raise RuntimeError(r.stderr)
        progs.append(Prog(f"isa_{part}", [s, os.path.join(TDIR, "isa_main.c")]))
    progs.append(Prog("isa_trap", [os.path.join(TDIR, "isa_trap.c"),
                                   os.path.join(TDIR, "trap_rec.S")]))
    return progs


def rand_prog(seed, length):
    gen = os.path.join(OUT, "gen")
    os.makedirs(gen, exist_ok=True)
    s = os.path.join(gen, f"rand_{seed}.S")
    r = sh([sys.executable, os.path.join(TDIR, "rvgen.py"), "--seed", str(seed),
            "--len", str(length), s])
    if r.returncode != 0:
        raise RuntimeError(r.stderr)
    return Prog(f"rand_{seed}", [s, os.path.join(TDIR, "rand_main.c")], ldflags=RAND_SECTIONS,
                flash=0x6000)


def need_runner():
    if not os.access(RUNNER, os.X_OK):
        sys.exit(f"coretest: {RUNNER} missing; build it with `make {os.path.relpath(RUNNER, ROOT)}`")


def cmd_isa(args):
    need_runner()
    progs = portable_progs() + [Prog("soc_test", [os.path.join(TDIR, "soc_test.c")],
                                     soc_only=True)]
    bad = []
    cpi_rows = []

    def one(p):
        elf = build_soc(p)
        return p, run_soc(elf)

    with cf.ThreadPoolExecutor(args.jobs) as ex:
        for p, (rc, out, err, stats) in ex.map(one, progs):
            sys.stdout.write(out)
            if rc != 0 or not SUMMARY.search(out):
                print(f"core_isa: {p.name} exited with {rc}: {err.strip()}")
                print(f"{args.label or 'core_isa'}_crash: 0 passed, 1 failed")
                bad.append(p.name)
            if stats:
                cpi_rows.append((p.name, *stats))
    cpi_file = "cpi.txt" if not args.label else f"cpi-{args.label}.txt"
    with open(os.path.join(OUT, cpi_file), "w") as f:
        f.write("program cycles instret CPI\n")
        for row in cpi_rows:
            f.write("%s %d %d %.3f\n" % row)
    for name, cyc, ins, cpi in cpi_rows:
        print(f"  CPI {name:10s} {cpi:6.3f}  ({cyc} cycles, {ins} instructions)")
    return 1 if bad else 0


def diff_one(p):
    """Returns (ok, message, instret of the random part or None)."""
    soc_elf = build_soc(p)
    q_elf = build_qemu(p)
    rc_s, out_s, err_s, _ = run_soc(soc_elf)
    rc_q, out_q, err_q = run_qemu(q_elf)
    m = re.search(r"^# rand instret (\d+)$", out_s, re.M)
    instret = int(m.group(1)) if m else None
    # '#' lines are informational; `core_only:` counts checks QEMU 7.2 gets wrong (see trap_rec.h).
    strip = lambda t: [l for l in t.splitlines() if not l.startswith(("#", "core_only:"))]
    ls, lq = strip(out_s), strip(out_q)
    if not ls:
        return False, f"{p.name}: no output from the core ({err_s.strip()})", instret
    if ls != lq:
        for i in range(max(len(ls), len(lq))):
            a = ls[i] if i < len(ls) else "<missing>"
            b = lq[i] if i < len(lq) else "<missing>"
            if a != b:
                return False, (f"{p.name}: first mismatch at output line {i + 1}:\n"
                               f"    qemu (expected): {b}\n    core (got):      {a}"), instret
    if rc_s != 0 or rc_q != 0:
        return False, (f"{p.name}: same output but exit codes differ or fail "
                       f"(core {rc_s}, qemu {rc_q}): {err_s.strip()}"), instret
    return True, f"{p.name}: identical ({len(ls)} lines)", instret


def cmd_diff(args, label):
    need_runner()
    seed = args.seed if args.seed is not None else int(time.time()) % 1000000
    print(f"{label}: SEED={seed} ({args.progs} random programs x {args.len} instructions; "
          f"replay with SEED={seed})")
    rng = random.Random(seed)
    progs = [] if args.random_only else portable_progs()
    progs += [rand_prog(rng.getrandbits(31), args.len) for _ in range(args.progs)]
    passed = failed = 0
    rand_instret = 0
    with cf.ThreadPoolExecutor(args.jobs) as ex:
        for ok, msg, instret in ex.map(diff_one, progs):
            if ok:
                passed += 1
                if args.verbose:
                    print("  " + msg)
            else:
                failed += 1
                print("  MISMATCH " + msg)
            rand_instret += instret or 0
    print(f"  random instructions executed on the core and compared: {rand_instret}")
    print(f"{label}: {passed} passed, {failed} failed")
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=["isa", "diff", "soak"])
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--progs", type=int, default=None)
    ap.add_argument("--len", type=int, default=None)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--runner", help="core runner binary (default $BUILD/bin/tessel-run)")
    ap.add_argument("--label", default="", help="prefix for summary lines (core variants)")
    args = ap.parse_args()
    if args.seed is None and os.environ.get("SEED"):
        args.seed = int(os.environ["SEED"])
    global RUNNER
    if args.runner:
        RUNNER = os.path.abspath(args.runner)
    os.makedirs(OUT, exist_ok=True)
    try:
        if args.mode == "isa":
            return cmd_isa(args)
        args.random_only = args.mode == "soak"
        if args.progs is None:
            args.progs = 420 if args.mode == "soak" else 6
        if args.len is None:
            args.len = 3000 if args.mode == "soak" else 2000
        if not 1 <= args.len <= 6000 or args.progs < 0:
            ap.error("--len must be 1..6000 and --progs >= 0")
        label = "qemu_diff" if args.mode == "diff" else "qemu_soak"
        return cmd_diff(args, args.label + "_" + label if args.label else label)
    except RuntimeError as e:
        print(f"coretest: {e}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
