#!/usr/bin/env python3
"""Lab 5 check: the pin constraints and the timing of the student's board top.
Usage: check.py BOARD.txt LAB5.pcf NEXTPNR-REPORT.json
Pins: every port of board.txt is constrained to the board's pin, and the .pcf constrains nothing
else. Timing: fpga/ice40/report.py on the nextpnr report (the clock must reach 12 MHz).
Prints "lab5_pins: N passed, M failed" and "lab5_timing: ..."."""
import os
import subprocess
import sys


def table(path, keyword=None):
    """{port: pin} from 'port pin' lines (or 'set_io [-flags] port pin' lines of a .pcf)."""
    out = {}
    for line in open(path):
        words = [w for w in line.split("#")[0].split() if not w.startswith("-")]
        if keyword:
            if not words or words[0] != keyword:
                continue
            words = words[1:]
        if len(words) == 2:
            out[words[0]] = words[1]
    return out


def main(board_txt, pcf, report):
    board, pins = table(board_txt), table(pcf, "set_io")
    passed = failed = 0
    for port, pin in board.items():
        ok = pins.get(port) == pin
        print(f"lab5_pins: {'ok' if ok else 'FAIL'}: {port} on pin {pins.get(port, '(none)')}, the board "
              f"wants {pin}")
        passed, failed = passed + ok, failed + (not ok)
    for port in sorted(set(pins) - set(board)):
        print(f"lab5_pins: FAIL: {pcf} constrains {port}, which the board does not have")
        failed += 1
    print(f"lab5_pins: {passed} passed, {failed} failed")
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../fpga/ice40/report.py")
    rc = subprocess.run([sys.executable, script, report, "12"]).returncode
    print(f"lab5_timing: {int(rc == 0)} passed, {int(rc != 0)} failed")
    return 1 if failed or rc else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
