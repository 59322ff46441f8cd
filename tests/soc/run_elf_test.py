#!/usr/bin/env python3
"""`tessel run` and the sim transport on firmware files that are not what they should be, and the
cycle limits of `tessel run` (issue 23). One loader (common/elf_image.c) serves them all:
each bad file gets its own message and exit code 2 (`tessel run`) or TESSEL_EINVAL (sim), never an
abort. --max-cycles takes N >= 1 or `unlimited`; on a terminal a long run shows cycles/s.
Usage: run_elf_test.py TESSEL HELLO.elf WORKDIR
"""
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tally import Tally   # noqa: E402  (tests/ is no package)

TESSEL, HELLO, WORK = sys.argv[1:4]
RAM_BASE = 0x80000000
tally = Tally()
check = tally.check


def elf(path, entry=RAM_BASE, ptype=1, code=struct.pack("<I", 0x0000006F)):  # j . (a loop)
    """A minimal RV32 executable: one program header (PT_LOAD unless ptype says otherwise)."""
    eh = b"\x7fELF" + bytes([1, 1, 1]) + bytes(9)
    eh += struct.pack("<HHIIIIIHHHHHH", 2, 243, 1, entry, 52, 0, 0, 52, 32, 1, 40, 0, 0)
    ph = struct.pack("<IIIIIIII", ptype, 84, RAM_BASE, RAM_BASE, len(code), len(code), 5, 4)
    with open(path, "wb") as f:
        f.write(eh + ph + code)
    return path


def run(args, env=None, timeout=120):
    try:
        p = subprocess.run([TESSEL] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"(no answer after {timeout} s)"
    return p.returncode, p.stderr


os.makedirs(WORK, exist_ok=True)
empty = os.path.join(WORK, "empty.elf")
open(empty, "wb").close()
huge = os.path.join(WORK, "huge.elf")
with open(huge, "wb") as f:
    f.truncate(17 << 20)  # sparse: over the loader's 16 MiB limit
fifo = os.path.join(WORK, "fifo.elf")
if os.path.exists(fifo):
    os.unlink(fifo)
os.mkfifo(fifo)
noload = elf(os.path.join(WORK, "noload.elf"), ptype=4)              # PT_NOTE only
farentry = elf(os.path.join(WORK, "farentry.elf"), entry=0x1000)    # entry outside RAM
loop = elf(os.path.join(WORK, "loop.elf"))

# Each bad file: `tessel run` exits 2 with its own reason.
cases = [(WORK, "is a directory"), ("/dev/zero", "not a regular file"), (fifo, "not a regular file"),
         (empty, "is empty"), (huge, "too large"), (noload, "no loadable segment"),
         (farentry, "entry point")]
for path, why in cases:
    rc, err = run(["run", "--max-cycles", "100000", path], timeout=30)
    check(rc == 2 and err.startswith("tessel: ") and why in err,
          f"tessel run {path}: exit 2 and '{why}'", f"exit {rc}: {err.strip()}")

# The sim transport: the same reasons with TESSEL_EINVAL ("invalid argument"), by option and by
# environment, never an abort.
env = dict(os.environ, TESSEL_FIRMWARE=WORK)
for args, e, path, why in [(["info", "--backend", "sim", "--firmware", WORK], None, WORK, "is a directory"),
                           (["info", "--backend", "sim"], env, WORK, "is a directory"),
                           (["info", "--backend", "sim", "--firmware", noload], None, noload, "no loadable"),
                           (["info", "--backend", "sim", "--firmware", "/dev/zero"], None, "/dev/zero",
                            "not a regular file")]:
    rc, err = run(args, env=e, timeout=30)
    check(rc in (1, 2) and "invalid argument" in err and why in err,
          f"tessel {' '.join(args)}{' (TESSEL_FIRMWARE)' if e else ''}: TESSEL_EINVAL, '{why}'",
          f"exit {rc}: {err.strip()}")

# --max-cycles: N >= 1 or `unlimited`; anything else is a usage error.
for v in ["-1", "0", " 5", "+5", "99999999999999999999999", "5x"]:
    rc, err = run(["run", "--max-cycles", v, HELLO], timeout=30)
    check(rc == 2 and "--max-cycles" in err, f"tessel run --max-cycles '{v}' exits 2", f"exit {rc}: {err.strip()}")
rc, err = run(["run", "--max-cycles", "unlimited", HELLO])
check(rc == 0, "tessel run --max-cycles unlimited hello.elf exits 0", f"exit {rc}: {err.strip()}")
rc, err = run(["run", "--max-cycles", "200000", loop], timeout=60)
check(rc == 124 and "timeout after 200000 cycles" in err and "\r" not in err,
      "a loop stops at --max-cycles (124), no progress line off a terminal", f"exit {rc}: {err!r}")

# On a terminal: a line of cycles and cycles/s appears after about 2 s and is refreshed.
pid, fd = pty.fork()
if pid == 0:
    os.execv(TESSEL, [TESSEL, "run", "--max-cycles", "unlimited", loop])
buf, t0 = b"", time.time()
while time.time() - t0 < 30 and buf.count(b"cycles/s") < 2:
    r, _, _ = select.select([fd], [], [], 1.0)
    if r:
        try:
            buf += os.read(fd, 4096)
        except OSError:
            break
os.kill(pid, signal.SIGKILL)
os.waitpid(pid, 0)
os.close(fd)
check(buf.count(b"cycles/s") >= 2 and b"\rtessel: " in buf,
      "on a TTY, `tessel run` refreshes a 'N cycles, R cycles/s' line", repr(buf[-200:]))

sys.exit(tally.summary("sdk_elf"))
