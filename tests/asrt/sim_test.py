"""The tessel package on a sim SoC whose assertion fails (make test-asrt-sim; tests/asrt/README.md).

Run with PYTHONPATH at the package built on the SoC with tsl_asrt_trip bound in (mk/asrt.mk) and
$TESSEL_FIRMWARE set. An int8 matmul whose a starts with the bytes "TRIP-ME!" makes a TSL_ASSERT fail:
it must raise tessel.Error with status EDEVICE and the assertion's message, later calls on that
device raise EDEVICE too, the interpreter goes on, and a new Device works. Prints
"asrt_sim_py: N passed, M failed".
"""
import sys

import numpy as np

import tessel

passed = failed = 0


def check(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"asrt_sim_py FAIL: {what} {detail}")


def operands(trip):
    a = (np.arange(64).reshape(8, 8) * 7 % 23 - 11).astype(np.int8)
    b = (np.arange(64).reshape(8, 8) * 5 % 19 - 9).astype(np.int8)
    if trip:
        a[0] = np.frombuffer(b"TRIP-ME!", np.int8)
    return a, b


def right(dev):
    a, b = operands(False)
    return np.array_equal(dev.matmul(a, b), a.astype(np.int32) @ b.astype(np.int32))


def tripped(dev, what):
    try:
        dev.matmul(*operands(True))
    except tessel.Error as e:
        check(e.name == "EDEVICE", what + ": EDEVICE", e.name)
        check("NoTripWord" in e.message and "trip word TRIP-ME!" in e.message, what + ": the assertion's message",
              e.message)
        return
    check(False, what + ": no error raised")


dev = tessel.Device(backend="sim")
check(right(dev), "a matmul before the failure is right")
tripped(dev, "the matmul that trips the assertion")
try:
    right(dev)
    check(False, "a matmul on the failed device: no error raised")
except tessel.Error as e:
    check(e.name == "EDEVICE" and "tessel_reset" in e.message, "a matmul on the failed device: EDEVICE",
          f"{e.name}: {e.message}")
dev.close()
with tessel.Device(backend="sim") as dev2:
    check(right(dev2), "a matmul on a new device is right")
print(f"asrt_sim_py: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
