"""The pass/fail tally and the array comparison of the Python test scripts.

A script imports it through its path (tests/ is no package):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    from tally import Tally, mismatch
"""
import numpy as np


class Tally:
    """The counts of a script's checks. A failed check prints "FAIL: WHAT" and its detail, indented,
    at once; summary() prints the last line, "NAME: N passed, M failed", which tests/runner.py reads."""

    def __init__(self):
        self.passed = self.failed = 0

    def check(self, ok, what, detail=""):
        """Counts one check: passed when ok is true, else failed, and says which and why."""
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL: {what}" + (f"\n  {detail}" if detail else ""), flush=True)

    def summary(self, name, note=""):
        """Prints "NAME: N passed, M failed" and the note after it; returns the exit status: 1 after a
        failure, else 0."""
        print(f"{name}: {self.passed} passed, {self.failed} failed{note}")
        return 1 if self.failed else 0


def mismatch(got, ref, tol=None):
    """'' when the array got equals the array ref (exactly when tol is None, else within tol, a bound
    that broadcasts to ref's shape; NaN is never within it), else what differs: the shape, or how many
    elements and the first of them: index, expected, got, and |error| and bound."""
    if got.shape != ref.shape:
        return f"shape {got.shape}, expected {ref.shape}"
    diff = np.abs(got.astype(np.float64) - ref)
    bad = np.argwhere(diff != 0 if tol is None else ~(diff <= tol))
    if not len(bad):
        return ""
    i = tuple(bad[0])
    return (f"{len(bad)} of {got.size} {'differ' if tol is None else 'outside the bound'}, first at {i}: "
            f"expected {ref[i]!r}, got {got[i]!r}" +
            ("" if tol is None else f", |error| {diff[i]:.3g} > bound {np.broadcast_to(tol, ref.shape)[i]:.3g}"))
