#!/usr/bin/env python3
"""make test-cli: `tessel gemm` and `tessel info` on the model backend.

Usage: test_cli.py TESSEL CLI_REF WORKDIR
  - error paths: each bad input exits 2 with exactly one stderr line starting "tessel: ";
  - GEMMs (int8 -> int32, int8 -> requantised int8, float32 -> fp32, float32 -> bf16, with and
    without bias/ReLU, shapes that are not multiples of N) checked bit for bit by CLI_REF against
    the plain C reference;
  - --stats prints one JSON line with the documented fields; `info` and `info --json`;
  - nothing lost (issue 23): an output that names an input or another output is refused before
    anything runs and leaves the files as they were; an input error leaves an existing output alone;
    no temporary file is left; options the backend would ignore (--firmware, --trace on the model)
    and --scale 0 are refused; /dev/zero and an endless pipe are read only as far as the header
    says; a C larger than HBM fails with a reason.
Prints "cli: N passed, M failed".
"""
import json
import os
import resource
import struct
import subprocess
import sys

TESSEL, CLI_REF, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
passed = failed = 0


def check(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {what}" + (f"\n  {detail}" if detail else ""))


def limit_memory():
    """A reader that does not stop at what the header says fails here, not in the OOM killer."""
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def run(args, env=None, stdin=None, limit=False):
    e = dict(os.environ)
    e.pop("TESSEL_CHECK", None)
    e.pop("TESSEL_FIRMWARE", None)
    if env:
        e.update(env)
    p = subprocess.run([TESSEL] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env=e, timeout=300, stdin=stdin, preexec_fn=limit_memory if limit else None)
    return p.returncode, p.stdout, p.stderr


def one_error(rc, out, err, want_rc=2):
    lines = err.splitlines()
    return rc == want_rc and len(lines) == 1 and lines[0].startswith("tessel: ") and out == ""


def read(path):
    with open(path, "rb") as f:
        return f.read()


def npy(path, descr, shape, payload, fortran=False, version=1):
    d = "{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }" % (
        descr, "True" if fortran else "False", "".join("%d," % s for s in shape) if len(shape) == 1
        else ", ".join(str(s) for s in shape))
    pre = 10 if version == 1 else 12
    total = (pre + len(d) + 1 + 63) // 64 * 64
    hdr = d + " " * (total - pre - len(d) - 1) + "\n"
    head = b"\x93NUMPY" + bytes([version, 0]) + (struct.pack("<H", len(hdr)) if version == 1
                                                    else struct.pack("<I", len(hdr)))
    with open(path, "wb") as f:
        f.write(head + hdr.encode() + payload)
    return path


def p(name):
    return os.path.join(WORK, name)


def main():
    os.makedirs(WORK, exist_ok=True)
    # ---- inputs for the error cases ----------------------------------------------------------
    a8 = npy(p("a8.npy"), "|i1", (4, 3), bytes(12))
    b8 = npy(p("b8.npy"), "<i1", (3, 5), bytes(15))
    b8x = npy(p("b8x.npy"), "|i1", (4, 5), bytes(20))
    af = npy(p("af.npy"), "<f4", (4, 3), struct.pack("<12f", *range(12)))
    a64 = npy(p("a64.npy"), "<f8", (4, 3), bytes(96))
    ai4 = npy(p("ai4.npy"), "<i4", (4, 3), bytes(48))
    a1d = npy(p("a1d.npy"), "|i1", (12,), bytes(12))
    afort = npy(p("afort.npy"), "|i1", (4, 3), bytes(12), fortran=True)
    atrunc = npy(p("atrunc.npy"), "|i1", (4, 3), bytes(7))
    bias4 = npy(p("bias4.npy"), "<i4", (4,), bytes(16))
    biasf = npy(p("biasf.npy"), "<f4", (5,), bytes(20))
    with open(p("magic.npy"), "wb") as f:
        f.write(b"\x93NUMPX\x01\x00" + bytes(100))
    with open(p("hlen.npy"), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00\xff\xff{'descr'")
    errors = [
        ("no arguments", ["gemm"]),
        ("unknown option", ["gemm", "--a", a8, "--b", b8, "--bogus"]),
        ("stray argument", ["gemm", "--a", a8, "--b", b8, "extra"]),
        ("option without value", ["gemm", "--a", a8, "--b"]),
        ("missing --b", ["gemm", "--a", a8]),
        ("missing file", ["gemm", "--a", p("no-such.npy"), "--b", b8]),
        ("bad magic", ["gemm", "--a", p("magic.npy"), "--b", b8]),
        ("header length past the end", ["gemm", "--a", p("hlen.npy"), "--b", b8]),
        ("truncated data", ["gemm", "--a", atrunc, "--b", b8]),
        ("fortran order", ["gemm", "--a", afort, "--b", b8]),
        ("float64", ["gemm", "--a", a64, "--b", b8]),
        ("int32 A", ["gemm", "--a", ai4, "--b", b8]),
        ("mixed dtypes", ["gemm", "--a", af, "--b", b8]),
        ("1-D A", ["gemm", "--a", a1d, "--b", b8]),
        ("shape mismatch", ["gemm", "--a", a8, "--b", b8x]),
        ("bias length", ["gemm", "--a", a8, "--b", b8, "--bias", bias4]),
        ("bias dtype", ["gemm", "--a", a8, "--b", b8, "--bias", biasf]),
        ("bad backend", ["gemm", "--a", a8, "--b", b8, "--backend", "fpga"]),
        ("bad out dtype", ["gemm", "--a", a8, "--b", b8, "--out-dtype", "int4"]),
        ("bf16 out for int8", ["gemm", "--a", a8, "--b", b8, "--out-dtype", "bf16"]),
        ("int8 out for float", ["gemm", "--a", af, "--b", npy(p("bf.npy"), "<f4", (3, 2), bytes(24)),
                                "--out-dtype", "int8"]),
        ("rq without int8 out", ["gemm", "--a", a8, "--b", b8, "--rq-scale", "3"]),
        ("rq shift range", ["gemm", "--a", a8, "--b", b8, "--out-dtype", "int8", "--rq-shift", "63"]),
        ("rq scale not a number", ["gemm", "--a", a8, "--b", b8, "--out-dtype", "int8", "--rq-scale", "x"]),
        ("relu with a value", ["gemm", "--a", a8, "--b", b8, "--relu=1"]),
        ("info unknown option", ["info", "--bogus"]),
        ("info bad backend", ["info", "--backend", "fpga"]),
        ("output unwritable", ["gemm", "--a", a8, "--b", b8, "--out", p("no-such-dir/c.npy")]),
    ]
    for what, args in errors:
        rc, out, err = run(args)
        lines = err.splitlines()
        want_rc = 1 if what == "output unwritable" else 2
        check(rc == want_rc and len(lines) == 1 and lines[0].startswith("tessel: ") and out == "",
              f"{what}: tessel {' '.join(args)}",
              f"exit {rc} (want {want_rc}), stderr {err!r}, stdout {out!r}")

    # ---- configuration ---------------------------------------------------------------------------
    rc, out, err = run(["info", "--json"])
    info = {}
    try:
        info = json.loads(out)
    except ValueError:
        pass
    check(rc == 0 and info.get("backend") == "model" and info.get("n", 0) >= 1 and
          info.get("hbm_bytes", 0) > 0 and info.get("vmem_bytes", 0) > 0, "info --json", f"{rc} {out!r} {err!r}")
    mxu_n = info.get("n", 16)
    rc, out, err = run(["info"])
    check(rc == 0 and "MXU" in out and "HBM" in out and err == "", "info", f"{rc} {out!r} {err!r}")
    rc, out, err = run(["gemm", "--help"])
    check(rc == 0 and "usage: tessel gemm" in out, "gemm --help", f"{rc} {out!r}")

    # ---- GEMMs checked against the C reference ---------------------------------------------------
    cases = [
        ("int8 bias relu", "int8", (33, 40, 21), ["--bias", "--relu"], []),
        ("int8 plain", "int8", (16, 16, 16), [], []),
        ("int8 requant", "int8", (20, 17, 50), ["--bias", "--relu", "--narrow", "--rq", "3", "9", "-5"],
         ["--out-dtype", "int8", "--rq-scale", "3", "--rq-shift", "9", "--rq-zp", "-5"]),
        ("int8 saturate", "int8", (9, 31, 40), ["--narrow", "--rq", "1", "0", "0"], ["--out-dtype=int8"]),
        ("f32 plain", "f32", (17, 50, 35), [], []),
        ("f32 bias relu", "f32", (32, 48, 64), ["--bias", "--relu"], []),
        ("f32 bias relu bf16 out", "f32", (19, 23, 37), ["--bias", "--relu", "--narrow"], ["--out-dtype", "bf16"]),
    ]
    for i, (what, ty, (m, n, k), ref_opts, cli_opts) in enumerate(cases):
        d = p(f"case{i}")
        os.makedirs(d, exist_ok=True)
        g = subprocess.run([CLI_REF, "gen", d, ty, str(m), str(n), str(k), str(0x1234 + i)])
        args = ["gemm", "--a", os.path.join(d, "a.npy"), "--b", os.path.join(d, "b.npy"),
                "--out", os.path.join(d, "c.npy"), "--backend", "model"] + cli_opts
        if "--bias" in ref_opts:
            args += ["--bias", os.path.join(d, "bias.npy")]
        if "--relu" in ref_opts:
            args += ["--relu"]
        rc, out, err = run(args)
        ok = g.returncode == 0 and rc == 0
        if ok:
            c = subprocess.run([CLI_REF, "check", d, ty, str(mxu_n)] + ref_opts, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            ok = c.returncode == 0
            err += c.stdout
        check(ok, f"gemm {what} {m}x{n}x{k}", f"exit {rc}: {err.strip()}")

    # ---- --stats, --check ------------------------------------------------------------------------
    d = p("case0")
    base = ["gemm", "--a", os.path.join(d, "a.npy"), "--b", os.path.join(d, "b.npy")]
    rc, out, err = run(base + ["--stats", "--relu"])
    st = {}
    try:
        lines = out.splitlines()
        st = json.loads(out) if len(lines) == 1 else {}
    except ValueError:
        pass
    keys = ("backend", "cycles", "macs", "mxu_utilization", "hbm_bytes", "roofline_cycles")
    ok = rc == 0 and all(k in st for k in keys)
    if ok:
        nn = mxu_n * mxu_n
        ok = (st["backend"] == "model" and 0.0 <= st["mxu_utilization"] <= 1.0 and st["macs"] > 0 and
              st["macs"] % nn == 0 and st["hbm_bytes"] > 0 and
              st["roofline_cycles"] >= -(-st["macs"] // nn) and
              (not st.get("cycles_timed") or st["cycles"] == 0 or
               abs(st["mxu_utilization"] - st["macs"] / (nn * st["cycles"])) < 1e-5))
    check(ok, "--stats prints one JSON line with the documented fields", f"exit {rc}: {out!r} {err!r}")
    rc, out, err = run(base + ["--check", "--out", os.path.join(d, "c.npy"), "--bias", os.path.join(d, "bias.npy"),
                               "--relu"])
    c = subprocess.run([CLI_REF, "check", d, "int8", str(mxu_n), "--bias", "--relu"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    check(rc == 0 and c.returncode == 0, "--check (model mirrored on model)", f"{rc} {err!r} {c.stdout!r}")
    rc, out, err = run(base + ["--stats"], env={"TESSEL_CHECK": "1"})
    check(rc == 0 and '"checked": true' in out, "TESSEL_CHECK=1", f"{rc} {out!r} {err!r}")

    # ---- nothing lost (issue 23) -----------------------------------------------------------------
    d = p("lost")
    os.makedirs(d, exist_ok=True)
    a = npy(os.path.join(d, "a.npy"), "|i1", (4, 3), bytes(range(12)))
    b = npy(os.path.join(d, "b.npy"), "|i1", (3, 5), bytes(range(15)))
    a_bytes, b_bytes = read(a), read(b)
    keep = os.path.join(d, "keep.json")
    os.link(b, os.path.join(d, "b-link.npy"))
    same = [
        ("--timeline on --a", ["--backend", "sim", "--timeline", a]),
        ("--timeline on --a, another spelling", ["--backend", "sim", "--timeline", os.path.join(d, ".", "a.npy")]),
        ("--out on --b", ["--out", b]),
        ("--out on a hard link of --b", ["--out", os.path.join(d, "b-link.npy")]),
        ("--trace on --a", ["--backend", "sim", "--trace", a]),
        ("--out and --timeline the same new file", ["--backend", "sim", "--out", os.path.join(d, "x.npy"),
                                                    "--timeline", os.path.join(d, "x.npy")]),
        ("--out and --trace the same new file", ["--backend", "sim", "--out", os.path.join(d, "y"),
                                                 "--trace", os.path.join(d, ".", "y")]),
    ]
    for what, extra in same:
        rc, out, err = run(["gemm", "--a", a, "--b", b] + extra)
        check(one_error(rc, out, err) and read(a) == a_bytes and read(b) == b_bytes and
              not os.path.exists(os.path.join(d, "x.npy")) and not os.path.exists(os.path.join(d, "y")),
              f"{what}: refused before anything runs, inputs intact", f"exit {rc}, stderr {err!r}")
    # the inputs again, so that each case below stands on its own when a case above destroyed them
    a = npy(os.path.join(d, "a.npy"), "|i1", (4, 3), bytes(range(12)))
    b = npy(os.path.join(d, "b.npy"), "|i1", (3, 5), bytes(range(15)))
    for what, args in [("missing --a", ["--a", os.path.join(d, "none.npy"), "--b", b]),
                       ("shape mismatch", ["--a", b, "--b", b])]:
        with open(keep, "w") as f:
            f.write("keep")
        c_keep = os.path.join(d, "c-keep.npy")
        with open(c_keep, "w") as f:
            f.write("keep")
        rc, out, err = run(["gemm", "--backend", "sim", "--timeline", keep, "--out", c_keep] + args)
        check(one_error(rc, out, err) and read(keep) == b"keep" and read(c_keep) == b"keep",
              f"{what}: the existing --timeline and --out files are left as they were", f"exit {rc}, {err!r}")
    old_umask = os.umask(0o022)
    c_new = os.path.join(d, "c-new.npy")
    rc, out, err = run(["gemm", "--a", a, "--b", b, "--out", c_new])
    os.umask(old_umask)
    check(rc == 0 and os.path.exists(c_new) and (os.stat(c_new).st_mode & 0o777) == 0o644 and
          not [x for x in os.listdir(d) if x.startswith(".tessel-")],
          "--out: written through a temporary file, mode from the umask, nothing left over",
          f"exit {rc}, {err!r}, {sorted(os.listdir(d))}")

    for what, args in [("gemm --firmware on the model", ["gemm", "--a", a, "--b", b, "--firmware", a]),
                       ("gemm --trace on the model", ["gemm", "--a", a, "--b", b, "--trace", os.path.join(d, "t.fst")]),
                       ("info --firmware on the model", ["info", "--firmware", a])]:
        rc, out, err = run(args)
        check(one_error(rc, out, err) and not os.path.exists(os.path.join(d, "t.fst")),
              f"{what}: refused, not ignored", f"exit {rc}, {err!r}")

    af = npy(os.path.join(d, "af.npy"), "<f4", (2, 3), struct.pack("<6f", 1, 2, 3, 4, 5, 6))
    bf = npy(os.path.join(d, "bf.npy"), "<f4", (3, 2), struct.pack("<6f", 1, 0, 0, 1, 1, 1))
    for sv in ("0", "-0", "0.0", "nan", "inf"):
        rc, out, err = run(["gemm", "--a", af, "--b", bf, "--scale", sv, "--out", os.path.join(d, "cs.npy")])
        check(one_error(rc, out, err) and "--scale" in err and not os.path.exists(os.path.join(d, "cs.npy")),
              f"--scale {sv}: refused (a scale of 0 would give the unscaled A x B)", f"exit {rc}, {err!r}")
    rc, out, err = run(["gemm", "--a", af, "--b", bf, "--scale", "0.5", "--out", os.path.join(d, "cs.npy")])
    got = struct.unpack("<4f", read(os.path.join(d, "cs.npy"))[-16:]) if rc == 0 else None
    check(got == (2.0, 2.5, 5.0, 5.5), "--scale 0.5 scales C (A x B = [[4 5] [10 11]])", f"exit {rc}, {err!r}, {got}")

    rc, out, err = run(["gemm", "--a", "/dev/zero", "--b", b], limit=True)
    check(one_error(rc, out, err) and "bad magic" in err, "--a /dev/zero: refused at the magic, not read to the end",
          f"exit {rc}, {err!r}")
    head = read(a)[:-12]   # 4x3 int8, then an endless stream of zeros
    feeder = subprocess.Popen([sys.executable, "-c",
                               "import sys\nsys.stdout.buffer.write(%r)\nz = bytes(1 << 16)\n"
                               "try:\n    while True: sys.stdout.buffer.write(z)\nexcept Exception: pass" % head],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    rc, out, err = run(["gemm", "--a", "/dev/stdin", "--b", b, "--out", os.path.join(d, "cz.npy")],
                       stdin=feeder.stdout, limit=True)
    feeder.stdout.close()
    feeder.kill()
    feeder.wait()
    check(rc == 0 and len(read(os.path.join(d, "cz.npy"))) == 128 + 80,
          "--a from an endless pipe: only the 12 bytes the header needs are read", f"exit {rc}, {err!r}")

    tall = npy(os.path.join(d, "tall.npy"), "|i1", (4096, 1), bytes(4096))
    wide = npy(os.path.join(d, "wide.npy"), "|i1", (1, 4096), bytes(4096))
    rc, out, err = run(["gemm", "--a", tall, "--b", wide, "--out", os.path.join(d, "ct.npy")])
    check(one_error(rc, out, err, 1) and "()" not in err and not os.path.exists(os.path.join(d, "ct.npy")),
          "C larger than HBM: fails with a reason", f"exit {rc}, {err!r}")

    print(f"cli: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
