#!/usr/bin/env python3
"""make test-uart / test-uart-board: the host `uart` transport against a board on a pty.

Usage: test_uart.py model UART_DEV TESSEL_CLI CLI_REF WORKDIR        (tests/uart/uart_dev_model)
  - `tessel info` and `tessel gemm --backend uart --port PTY` (int8 and bf16 shapes, bias, ReLU,
    requantisation, --check) checked bit for bit by CLI_REF against the plain C reference;
  - a small board (N=4, int8 only, 16 MiB HBM): the HBM size is probed, $TESSEL_UART_CFG gives the
    rest, a bf16 GEMM is refused;
  - usage errors, a port that does not exist and one where no board answers;
  - faults injected by the board (bytes dropped or corrupted, either direction): a GEMM still
    gives the exact result, and a link too bad to use fails with exit 1 and a TESSEL_EIO message
    naming the cause, in bounded time.
       test_uart.py board BOARD_SIM CP_ELF TESSEL_CLI CLI_REF WORKDIR  (hw/sim/board/board_main.cpp)
  - the Verilated tsl_fpga_top, through its UART pins, starts in BOOT.HOLD: an open without a
    firmware fails and says so, `tessel info --firmware CP_ELF` loads it through the BAR0 RAM window;
  - then the same GEMM checks, a small subset (N=4 int8), against the firmware it runs.
       test_uart.py ice40 BOARD_SIM TESSEL_CLI CLI_REF WORKDIR  (board_main.cpp, BOARD_ICE40=1)
  - the Verilated tsl_ice40_top (the iCEBreaker's RTL, no control core): `info` from the tensor
    core's CFG_* registers, then the GEMM subset with the command processor run by the host over
    the line; a GEMM too large for the 64 KiB of HBM and a bf16 GEMM are refused; a board that
    hangs up in the middle of a GEMM (while the host runs its instructions) fails it cleanly.
       test_uart.py ice40-gl ...  the same (the four small GEMMs) on its synthesised netlist.
       test_uart.py bench-ice40 BOARD_SIM TESSEL_CLI CLI_REF WORKDIR  (make bench-ice40)
  - int8 GEMMs up to 64x128x96 on the Verilated tsl_ice40_top, each on a fresh board and checked
    against the C reference: a table of cycles, MXU utilisation and bytes sent (WORKDIR/bench-ice40.md).
SEED=... replays the fault phases and masks. Prints "uart: N passed, M failed" (uart_board: ...).
"""
import json
import os
import random
import re
import signal
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tally import Tally   # noqa: E402  (tests/ is no package)

MODE = sys.argv[1]
DEV = sys.argv[2:3]
FIRMWARE = sys.argv[3] if MODE == "board" else None
TESSEL, CLI_REF, WORK = sys.argv[4:7] if MODE == "board" else sys.argv[3:6]
tally = Tally()
check = tally.check


class Board:
    """The board (uart_dev_model, or board_sim) on a fresh pty; stop() returns its last stderr line
    (uart_dev_model: the fault summary)."""

    def __init__(self, *opts):
        self.p = subprocess.Popen(DEV + ["--idle-exit", "120"] + [str(o) for o in opts], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        self.port = self.p.stdout.readline().strip()

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        try:
            _, err = self.p.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            _, err = self.p.communicate()
        return err.strip().splitlines()[-1] if err.strip() else ""


def run(args, env=None, timeout=120):
    e = dict(os.environ)
    e.pop("TESSEL_CHECK", None)
    e.pop("TESSEL_FIRMWARE", None)
    if env:
        e.update(env)
    t0 = time.monotonic()
    p = subprocess.run([TESSEL] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr, time.monotonic() - t0


def gemm(board, tag, ty, shape, ref_opts=(), cli_opts=(), mxu_n=16, seed=1, env=None, stats=None):
    """Generate inputs, run `tessel gemm` on the board and check C; returns (ok, detail, seconds).
    With a dict as `stats`, runs with --stats and fills it with the JSON."""
    d = os.path.join(WORK, tag)
    os.makedirs(d, exist_ok=True)
    m, n, k = shape
    g = subprocess.run([CLI_REF, "gen", d, ty, str(m), str(n), str(k), str(seed)])
    out = os.path.join(d, "c.npy")
    if os.path.exists(out):
        os.remove(out)
    args = ["gemm", "--backend", "uart", "--port", board.port, "--a", os.path.join(d, "a.npy"),
            "--b", os.path.join(d, "b.npy"), "--out", out] + list(cli_opts)
    if "--bias" in ref_opts:
        args += ["--bias", os.path.join(d, "bias.npy")]
    if "--relu" in ref_opts:
        args += ["--relu"]
    if stats is not None:
        args += ["--stats"]
    rc, so, err, secs = run(args, env=env)
    if g.returncode or rc:
        return False, f"exit {rc}: {err.strip()}", secs
    if stats is not None:
        stats.update(json.loads(so))
    c = subprocess.run([CLI_REF, "check", d, ty, str(mxu_n)] + list(ref_opts), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    return c.returncode == 0, c.stdout.strip(), secs


def info_of(board, extra=(), env=None):
    """`tessel info --json` on the board: (exit code, the parsed JSON or {}, stdout, stderr, seconds)."""
    rc, out, err, secs = run(["info", "--backend", "uart", "--port", board.port, "--json"] + list(extra), env=env)
    try:
        info = json.loads(out)
    except ValueError:
        info = {}
    return rc, info, out, err, secs


# The GEMM subset of the N=4 int8 boards: (what, shape, cli_ref options, tessel options).
SMALL_CASES = [
    ("int8 bias relu", (16, 16, 16), ["--bias", "--relu"], []),
    ("int8 ragged", (13, 9, 21), [], []),
    ("int8 requant", (8, 12, 20), ["--bias", "--narrow", "--rq", "3", "7", "-2"],
     ["--out-dtype", "int8", "--rq-scale", "3", "--rq-shift", "7", "--rq-zp", "-2"]),
    ("int8 --check", (12, 8, 10), ["--relu"], ["--check"]),
]


def small_gemms(board, tag, cases, seed, env=None):
    for i, (what, shape, ref_opts, cli_opts) in enumerate(cases):
        ok, detail, secs = gemm(board, f"{tag}{i}", "int8", shape, ref_opts, cli_opts, 4, seed + i, env=env)
        check(ok, f"{tag} gemm {what} {'x'.join(map(str, shape))} ({secs:.1f} s)", detail)


def board_main():
    """A GEMM subset on the Verilated tsl_fpga_top (N=4, int8 only)."""
    env = {}   # the configuration comes from the board's HOSTIF CFG_* registers
    b = Board()
    rc, out, err, secs = run(["info", "--backend", "uart", "--port", b.port, "--json"], env=env)
    check(rc == 1 and "waits for its firmware" in err and "--firmware" in err,
          "a board in BOOT.HOLD and no firmware given: the open fails and says why", f"{rc} {err!r}")
    rc, out, err, secs = run(["info", "--backend", "uart", "--port", b.port, "--firmware", TESSEL], env=env)
    check(rc == 2 and "not a little-endian RV32 ELF" in err,
          "a firmware that is not an RV32 ELF (the host's tessel binary) is refused", f"{rc} {err!r}")
    rc, info, out, err, secs = info_of(b, ["--firmware", FIRMWARE], env)
    # int8, the tile sequencer, the HBM window, the program fetch unit and the transposed weight
    # load (CFG_FEATURES 0x3D): the board's SoC has the full tensor core
    check(rc == 0 and info.get("n") == 4 and info.get("vmem_bytes") == 16384 and info.get("acc_bytes") == 4096
          and info.get("features") == 0x3D and info.get("seq") is True and info.get("hbm_bytes") == 256 << 10,
          f"firmware loaded over the UART, then info from HOSTIF CFG_* ({secs:.1f} s)", f"{rc} {out!r} {err!r}")
    small_gemms(b, "board", SMALL_CASES, 0x4321, env)
    last = b.stop()
    check("trapped" not in last, "the control core never trapped", last)
    return tally.summary("uart_board")


def windows_on_board(b):
    """An int8 convolution (padding, bias, ReLU, requantisation) and a max pool on the lite core,
    each equal byte for byte to the same command on the golden model."""
    d = os.path.join(WORK, "ice40_win")
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(0x3c0)
    np.save(os.path.join(d, "x.npy"), rng.integers(-128, 128, (1, 6, 6, 4), dtype=np.int8))
    np.save(os.path.join(d, "w.npy"), rng.integers(-128, 128, (3, 3, 4, 8), dtype=np.int8))
    np.save(os.path.join(d, "bias.npy"), rng.integers(-2000, 2000, (8,), dtype=np.int32))
    cases = [("conv2d", ["--w", os.path.join(d, "w.npy"), "--bias", os.path.join(d, "bias.npy"), "--pad", "1",
                         "--relu", "--x-zp", "3", "--out-dtype", "int8", "--rq-scale", "3", "--rq-shift", "9"]),
             ("pool2d", ["--kind", "max", "--window", "2"])]
    for sub, opts in cases:
        outs, errs = [], ""
        for backend in (["--backend", "uart", "--port", b.port], ["--backend", "model"]):
            out = os.path.join(d, f"{sub}_{backend[1]}.npy")
            rc, _, err, secs = run([sub, "--x", os.path.join(d, "x.npy"), "--out", out] + opts + backend)
            outs.append(np.load(out) if rc == 0 else None)
            errs += err
        same = outs[0] is not None and outs[1] is not None and np.array_equal(outs[0], outs[1])
        check(same, f"int8 {sub} on the lite core equals the model", errs)


def ice40_main(gl):
    """The GEMM subset on the Verilated tsl_ice40_top (N=4, int8 only, 64 KiB HBM, host-driven);
    gl: on its synthesised netlist, slower: a long response timeout, the four small GEMMs only."""
    env = {"TESSEL_UART_TIMEOUT_MS": "10000"} if gl else None
    b = Board()
    rc, info, out, err, secs = info_of(b, env=env)
    check(rc == 0 and info.get("n") == 4 and info.get("vmem_bytes") == 64 << 10 and info.get("acc_bytes") == 4096
          and info.get("features") == 1 and info.get("hbm_bytes") == 64 << 10 and info.get("hbm_bytes_per_cycle") == 1,
          f"info from the tensor core's CFG_* registers ({secs:.1f} s)", f"{rc} {out!r} {err!r}")
    big = [] if gl else [("int8 most of HBM", (96, 96, 64), ["--bias"], [])]
    small_gemms(b, "ice40_", SMALL_CASES + big, 0x5a5a, env)
    d = os.path.join(WORK, "ice40_big")
    os.makedirs(d, exist_ok=True)
    subprocess.run([CLI_REF, "gen", d, "int8", "128", "128", "128", "1"], check=True)
    rc, _, err, _ = run(["gemm", "--backend", "uart", "--port", b.port, "--a", os.path.join(d, "a.npy"),
                         "--b", os.path.join(d, "b.npy")])
    check(rc == 1 and "out of memory" in err and "exceed HBM" in err, "a GEMM larger than HBM is refused",
          f"{rc} {err!r}")
    d = os.path.join(WORK, "ice40_bf16")
    os.makedirs(d, exist_ok=True)
    subprocess.run([CLI_REF, "gen", d, "f32", "8", "8", "8", "1"], check=True)
    rc, _, err, _ = run(["gemm", "--backend", "uart", "--port", b.port, "--a", os.path.join(d, "a.npy"),
                         "--b", os.path.join(d, "b.npy")])
    check(rc == 2 and "has no bf16 support" in err,   # the library's EINVAL: a usage error
          "a bf16 GEMM is refused on the int8-only board", f"{rc} {err!r}")
    if not gl:
        windows_on_board(b)
    b.stop()
    if gl:
        return tally.summary("uart_ice40_gl")

    # A board unplugged in the middle of a GEMM: count the bytes a whole run sends, then hang up
    # 400 bytes before the end: past the operand writes, among the instruction pushes and polls
    # (the result read and the completion after them take less than 200). A long response timeout:
    # a retried frame would count twice.
    patient = {"TESSEL_UART_TIMEOUT_MS": "5000"}
    b = Board()
    ok, detail, _ = gemm(b, "ice40_cut", "int8", (32, 32, 32), [], [], 4, 77, env=patient)
    m = re.search(r"(\d+) bytes from the host", b.stop())
    total = int(m.group(1)) if m else 0
    check(ok and total > 0, f"a 32x32x32 GEMM sends {total} bytes", detail)
    b = Board("--hangup-after", total - 400)
    ok, detail, secs = gemm(b, "ice40_cut", "int8", (32, 32, 32), [], [], 4, 77, env=patient)
    b.stop()
    check(not ok and "exit 1" in detail and "the device stopped" in detail and "attempts" in detail and secs < 30,
          f"a board that hangs up mid-GEMM fails it cleanly ({secs:.1f} s)", detail)
    return tally.summary("uart_ice40")


def bench_ice40():
    """make bench-ice40: int8 GEMMs on the Verilated tsl_ice40_top (12 clocks a bit, as on the board),
    each result checked against the C reference; prints a table of the board's cycles."""
    rows = ["| GEMM (int8) | cycles from fetch to completion | at 12 MHz | MXU utilisation | bytes sent | sim wall |",
            "|---|---|---|---|---|---|"]
    for i, (shape, ref_opts) in enumerate([((16, 16, 16), []), ((13, 9, 21), ["--bias", "--relu"]),
                                          ((32, 32, 32), []), ((64, 64, 64), []), ((96, 96, 64), []),
                                          ((64, 128, 96), [])]):
        st = {}
        b = Board()
        ok, detail, secs = gemm(b, f"bench{i}", "int8", shape, ref_opts, [], 4, 0xbe0 + i, stats=st)
        m = re.search(r"(\d+) bytes from the host", b.stop())
        check(ok, f"bench gemm {'x'.join(map(str, shape))}", detail)
        if ok:
            what = "×".join(map(str, shape)) + (", bias, ReLU" if ref_opts else "")
            rows.append(f"| {what} | {st['cycles']} | {st['cycles'] / 12e3:.1f} ms | {100 * st['mxu_utilization']:.1f} % "
                        f"| {m.group(1) if m else '?'} | {secs:.1f} s |")
    with open(os.path.join(WORK, "bench-ice40.md"), "w") as f:
        f.write("\n".join(rows) + "\n")
    print("\n".join(rows))
    return tally.summary("bench_ice40", f" ({os.path.join(WORK, 'bench-ice40.md')})")


def main():
    if MODE == "bench-ice40":
        return bench_ice40()
    if MODE == "board":
        return board_main()
    if MODE in ("ice40", "ice40-gl"):
        return ice40_main(MODE == "ice40-gl")
    os.makedirs(WORK, exist_ok=True)
    seed = int(os.environ["SEED"], 0) if os.environ.get("SEED") else random.getrandbits(32)
    print(f"uart: seed 0x{seed:08x} (SEED=0x{seed:08x} replays)")

    # ---- a default board (the golden model's configuration) ------------------------------------
    b = Board("--seed", seed)
    rc, info, out, err, _ = info_of(b)
    check(rc == 0 and info.get("backend") == "uart" and info.get("hbm_bytes") == 64 << 20 and info.get("bf16"),
          "info --json over uart (HBM size probed through BAR1)", f"{rc} {out!r} {err!r}")
    mxu_n = info.get("n", 16)
    cases = [
        ("int8 bias relu", "int8", (33, 40, 21), ["--bias", "--relu"], []),
        ("int8 64x64x64", "int8", (64, 64, 64), [], []),
        ("int8 requant", "int8", (20, 17, 50), ["--bias", "--relu", "--narrow", "--rq", "3", "9", "-5"],
         ["--out-dtype", "int8", "--rq-scale", "3", "--rq-shift", "9", "--rq-zp", "-5"]),
        ("f32 plain", "f32", (17, 50, 35), [], []),
        ("f32 bias relu bf16 out", "f32", (19, 23, 37), ["--bias", "--relu", "--narrow"], ["--out-dtype", "bf16"]),
        ("int8 --check", "int8", (24, 9, 70), ["--bias"], ["--check"]),
    ]
    for i, (what, ty, shape, ref_opts, cli_opts) in enumerate(cases):
        ok, detail, _ = gemm(b, f"case{i}", ty, shape, ref_opts, cli_opts, mxu_n, 0x1234 + i)
        check(ok, f"gemm {what} {'x'.join(map(str, shape))}", detail)
    b.stop()

    # ---- usage errors, a missing port ------------------------------------------------------------
    d0 = os.path.join(WORK, "case0")
    ab = ["--a", os.path.join(d0, "a.npy"), "--b", os.path.join(d0, "b.npy")]
    for what, args, want in [
        ("uart without --port", ["gemm", "--backend", "uart"] + ab, 2),
        ("--port without uart", ["gemm", "--port", "/dev/null"] + ab, 2),
        ("info uart without --port", ["info", "--backend", "uart"], 2),
        ("a port that does not exist", ["gemm", "--backend", "uart", "--port", os.path.join(WORK, "no-tty")] + ab, 1),
    ]:
        rc, out, err, _ = run(args)
        lines = err.splitlines()
        check(rc == want and len(lines) == 1 and lines[0].startswith("tessel: ") and out == "", what,
              f"exit {rc} (want {want}), stderr {err!r}")

    # ---- a small board: N=4, int8 only, 16 MiB of HBM --------------------------------------------
    small = {"TESSEL_UART_CFG": "n=4,vmem=65536,acc=16384,features=1,bpc=8"}
    b = Board("--seed", seed, "--n", 4, "--features", 1, "--hbm", 16 << 20)
    rc, info, out, err, _ = info_of(b, env=small)
    check(rc == 0 and info.get("n") == 4 and info.get("hbm_bytes") == 16 << 20 and info.get("features") == 1 and
          info.get("hbm_bytes_per_cycle") == 8, "info of a small board ($TESSEL_UART_CFG, probed HBM)",
          f"{rc} {out!r} {err!r}")
    ok, detail, _ = gemm(b, "small", "int8", (21, 13, 30), ["--bias", "--relu"], [], 4, seed, env=small)
    check(ok, "gemm int8 21x13x30 on N=4", detail)
    d = os.path.join(WORK, "case3")
    rc, _, err, _ = run(["gemm", "--backend", "uart", "--port", b.port, "--a", os.path.join(d, "a.npy"),
                         "--b", os.path.join(d, "b.npy")], env=small)
    check(rc == 2 and "has no bf16 support" in err,   # the library's EINVAL: a usage error
          "bf16 GEMM refused on an int8-only board", f"{rc} {err!r}")
    rc, _, err, _ = run(["info", "--backend", "uart", "--port", b.port], env={"TESSEL_UART_CFG": "n=4,bogus=1"})
    # exit 2: tessel_open's EINVAL (a bad option or environment variable) is a usage error (issue 32)
    check(rc == 2 and err.startswith("tessel: "), "a bad $TESSEL_UART_CFG is refused", f"{rc} {err!r}")
    b.stop()

    # ---- faults: recovered by retries (a short response timeout keeps the lost frames cheap) ------
    fast = {"TESSEL_UART_TIMEOUT_MS": "100"}
    for i, fault in enumerate(["--drop-rx", "--drop-tx", "--corrupt-rx", "--corrupt-tx"]):
        b = Board("--seed", seed + i, fault, 1500)
        ok, detail, secs = gemm(b, f"fault{i}", "int8", (40, 48, 56), ["--bias"], [], mxu_n, seed + i, env=fast)
        summary = b.stop()
        hits = [int(x) for x in re.findall(r"(\d+) (?:bytes dropped|corrupted)", summary)]
        check(ok and sum(hits) > 0, f"gemm recovers from {fault} 1500 ({summary}, {secs:.1f} s)", detail)

    # ---- a port where no board answers: the open gives up in bounded time ------------------------
    master, slave = os.openpty()
    rc, _, err, secs = run(["info", "--backend", "uart", "--port", os.ttyname(slave)], env=fast, timeout=60)
    os.close(master)
    os.close(slave)
    check(rc == 1 and "cannot open the uart backend" in err and secs < 10, f"a silent port ({secs:.1f} s)",
          f"exit {rc}: {err.strip()}")

    # ---- faults: a link too bad to use fails cleanly ---------------------------------------------
    for i, fault in enumerate(["--drop-rx", "--corrupt-tx"]):
        b = Board("--seed", seed + 8 + i, fault, 40)
        rc, _, err, secs = run(["gemm", "--backend", "uart", "--port", b.port] + ab, env=fast, timeout=60)
        b.stop()
        if rc == 1 and "cannot open" in err:   # the HBM probe already failed: ENODEV, also clean
            ok = True
        else:
            ok = rc == 1 and "transport failure" in err and "attempts" in err and ("timeout" in err or "CRC" in err)
        check(ok and secs < 30, f"{fault} 40 fails cleanly ({secs:.1f} s)", f"exit {rc}: {err.strip()}")

    return tally.summary("uart")


if __name__ == "__main__":
    sys.exit(main())
