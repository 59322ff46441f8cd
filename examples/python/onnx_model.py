#!/usr/bin/env python3
"""An ONNX model on a Tessel device (docs/python.md, "ONNX models"): a small CNN exported by
torch.onnx, run by tessel.onnx, checked against PyTorch.

Usage: PYTHONPATH=build/python python3 examples/python/onnx_model.py [model|sim]
Leaves the model and its input in build/onnx-example/ (cnn.onnx, x.npy) for `python3 -m tessel.onnx`.
"""
import os
import sys

import numpy as np
import torch

import tessel.onnx

backend = sys.argv[1] if len(sys.argv) > 1 else "model"
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "onnx-example")
os.makedirs(out, exist_ok=True)
torch.manual_seed(0)

nn = torch.nn
net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                    nn.Conv2d(8, 16, 3, padding=1, groups=2), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                    nn.Linear(16, 10), nn.Softmax(dim=1)).eval()
x = torch.randn(4, 3, 16, 16)
path = os.path.join(out, "cnn.onnx")
torch.onnx.export(net, x, path, input_names=["image"], output_names=["probs"])
np.save(os.path.join(out, "x.npy"), x.numpy())

# The graph is planned once: each node's placement, the weights in the device's layouts.
with tessel.onnx.Runner(path, backend=backend) as runner:
    print(runner.report())
    probs, = runner.run({"image": x.numpy()})   # NCHW in; NHWC on the device; the graph's layout out
    total = runner.device.stats()["total"]   # the device nodes' commands: one graph, one submission
    print(f"{total['commands']} device commands in {total['submissions']} submission(s), {total['macs']} MACs" +
          (f", {total['cycles']} cycles" if backend != "model" else ""))   # the model backend is not timed

with torch.no_grad():
    want = net(x).numpy()
err = np.abs(probs - want).max()
print(f"probs {probs.shape}: largest difference from PyTorch {err:.1e}, the same classes: "
      f"{bool((probs.argmax(1) == want.argmax(1)).all())}")
assert err < 2**-6   # bf16 inputs keep 8 significant bits
