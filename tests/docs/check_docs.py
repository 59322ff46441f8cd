#!/usr/bin/env python3
"""Docs stay true: run or check every command that README.md and docs/**.md show, check includes
and relative links. The conventions (docs/README.md, "Conventions"):
  ```sh blocks    every line is a command, run from the repository root with bash, in order, one
                  block after another (at most 120 s of CPU each, so that the limit does not
                  depend on the machine's load; 900 s of wall clock); "#" lines are comments, a trailing
                  "\\" continues a command. Output and examples go in ``` or ```console blocks.
  "# dry-run"     a command whose trailing comment says dry-run or slow is not run: it must be a
                  make command, and `make -n` of it must succeed;
  "test-NAME"     a trailing comment that names a test target: NAME must be in `make test`'s TESTS;
  <!-- include: PATH -->  right before a fenced block: the block is PATH's text, verbatim.
  [text](path)    a relative link must point at an existing file.
Usage: check_docs.py "TESTS" FILE.md...    Prints "docs: N passed, M failed"."""
import os
import re
import resource
import subprocess
import sys

FENCE = re.compile(r"^```(\S*)\s*$")
INCLUDE = re.compile(r"^<!-- include: (\S+) -->\s*$")
LINK = re.compile(r"\]\(([^)\s]+)\)")
TEST_NAME = re.compile(r"\btest-([\w-]+)")


def cpu_children():
    """CPU seconds (user and system) of the finished commands and everything they waited for."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def blocks(lines):
    """Yield (lang, first line number, body lines, include path or None) for each fenced block."""
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m:
            inc = INCLUDE.match(lines[i - 1]) if i > 0 else None
            start, body = i + 1, []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            yield m.group(1), start + 1, body, inc.group(1) if inc else None
        i += 1


def commands(body):
    """(command, trailing comment) pairs of a sh block."""
    cmd = ""
    for line in body:
        s = line.strip()
        if not cmd and (not s or s.startswith("#")):
            continue
        if s.endswith("\\"):
            cmd += s[:-1] + " "
            continue
        cmd += s
        text, _, comment = cmd.partition(" #")
        yield text.strip(), comment.strip()
        cmd = ""


class Result:
    def __init__(self):
        self.passed = self.failed = 0

    def __call__(self, ok, where, msg):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL {where}: {msg}")


def main(tests, files):
    tests = set(tests.split())
    res = Result()
    for path in files:
        lines = open(path).read().split("\n")
        for lang, line_no, body, inc in blocks(lines):
            where = f"{path}:{line_no}"
            if inc:
                try:
                    want = open(inc).read().rstrip("\n").split("\n")
                    res(body == want, where, f"the block differs from {inc}: copy the file into the doc")
                except OSError:
                    res(False, where, f"included file {inc} does not exist")
            if lang != "sh":
                continue
            for cmd, comment in commands(body):
                for name in TEST_NAME.findall(comment):
                    res(name in tests, where, f"`{cmd}`: test-{name} is not in make test's TESTS")
                if "dry-run" in comment or "slow" in comment:
                    if not cmd.startswith("make "):
                        res(False, where, f"`{cmd}`: only make commands can be marked dry-run/slow")
                        continue
                    p = subprocess.run(["bash", "-c", "make -n " + cmd[5:]], stdout=subprocess.DEVNULL,
                                       stderr=subprocess.PIPE, text=True)
                    res(p.returncode == 0, where, f"`make -n {cmd[5:]}` failed: {p.stderr.strip()[-400:]}")
                    continue
                print(f"docs: {where}: $ {cmd}", flush=True)
                cpu0 = cpu_children()
                try:
                    p = subprocess.run(["bash", "-c", cmd], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       text=True, timeout=900)
                    res(p.returncode == 0, where, f"`{cmd}` exited {p.returncode}:\n{p.stdout[-1500:]}")
                    cpu = cpu_children() - cpu0
                    res(cpu <= 120, where, f"`{cmd}` took {cpu:.0f} s of CPU, more than 120: mark it '# slow' or "
                                           "make it faster")
                except subprocess.TimeoutExpired:
                    res(False, where, f"`{cmd}` ran for more than 900 s: mark it '# slow' or make it faster")
        in_fence = False
        for n, line in enumerate(lines, 1):
            if line.startswith("```"):
                in_fence = not in_fence
            if in_fence:
                continue
            for target in LINK.findall(line):
                if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                    continue
                file = os.path.normpath(os.path.join(os.path.dirname(path), target.split("#")[0]))
                res(os.path.exists(file), f"{path}:{n}", f"link to {target}: {file} does not exist")
    print(f"docs: {res.passed} passed, {res.failed} failed")
    return 1 if res.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
