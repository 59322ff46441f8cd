#!/usr/bin/env python3
"""make test-onnx, the digits: examples/digits/digits.py's MLP and CNN, trained by it (imported:
the same data, seed and code), exported with torch.onnx.export and run through tessel.onnx on the
model backend over the whole test split, next to digits.py's C path (the int8 network, each layer
a `tessel` command checked bit for bit against its integer reference).

Usage: PYTHONPATH=build/python digits_onnx.py TESSEL WORKDIR
Fails when a node of the exported graph falls back to numpy, or when the ONNX path's accuracy is
more than digits.MAX_GAP points from the C path's. Prints both accuracies per model and last
"digits_onnx: N passed, M failed".
"""
import os
import sys
import time
from types import SimpleNamespace

import numpy as np
import torch

import tessel.onnx

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path[:0] = [os.path.join(REPO, "examples", "digits"), os.path.join(REPO, "tests")]
import digits  # noqa: E402  (examples/digits is no package)
from tally import Tally  # noqa: E402  (nor is tests/)

TESSEL, WORK = sys.argv[1], sys.argv[2]


def c_path(kind, model, x_train, x_test, y_test):
    """The accuracy of digits.py's int8 network, every layer a `tessel` command on the model backend."""
    layers = digits.quantise(model, x_train)
    refs = [digits.quantise_input(x_test)]
    for layer in layers:
        refs.append(digits.reference(layer, refs[-1]))
    args = SimpleNamespace(tessel=TESSEL, work=os.path.join(WORK, kind))
    logits, _ = digits.run_device(args, "model", layers, refs[0], refs[1:])
    return digits.accuracy(logits.argmax(1), y_test)


def onnx_path(kind, model, x_test, y_test):
    """(accuracy, runner report, fallbacks) of the float model exported to ONNX, on the device."""
    path = os.path.join(WORK, f"{kind}.onnx")
    images = digits.to_torch(x_test)
    torch.onnx.export(model, images[:1], path, input_names=["image"], output_names=["logits"],
                      dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}})
    with tessel.onnx.Runner(path, backend="model") as runner:
        logits, = runner.run({"image": np.ascontiguousarray(images.numpy())})
        return digits.accuracy(logits.argmax(1), y_test), runner.report(), runner.fallbacks


def main():
    os.makedirs(WORK, exist_ok=True)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    x_train, x_test, y_train, y_test = digits.load()
    tally = Tally()
    for kind in ("mlp", "cnn"):
        start = time.time()
        model, float_acc = digits.fit(kind, x_train, y_train, x_test, y_test)
        c_acc = c_path(kind, model, x_train, x_test, y_test)
        onnx_acc, report, fallbacks = onnx_path(kind, model, x_test, y_test)
        print(f"digits {kind} exported by torch.onnx, on tessel.onnx:\n{report}")
        print(f"digits {kind}: {len(x_test)} test images: float {float_acc:.2f} %, C path (int8) {c_acc:.2f} %, "
              f"ONNX (bf16) {onnx_acc:.2f} %  ({time.time() - start:.1f} s)")
        tally.check(not fallbacks and abs(onnx_acc - c_acc) <= digits.MAX_GAP,
                    f"digits {kind}: " + ("nodes fell back to numpy" if fallbacks else
                                          f"the ONNX path's accuracy is more than {digits.MAX_GAP} point from the C "
                                          f"path's"))
    return tally.summary("digits_onnx")


if __name__ == "__main__":
    sys.exit(main())
