#!/usr/bin/env python3
"""make test-onnx, real exports: models exported by torch.onnx (Debian's torch 1.13, its default
opset) run through tessel.onnx on the model backend, against PyTorch's CPU output in float64.

Usage: PYTHONPATH=build/python exports.py WORKDIR   (SEED=n replays; without it the seed is random)
Prints the seed, each model's placement report, its error against its bound and, for the
transformer layers, the device's share of the FLOPs; last "onnx_exports: N passed, M failed".

The models (eval mode, weights from the seed, or trained for the digits):
  - nn.TransformerEncoderLayer, batch_first: d_model 32 (4 heads, ReLU) and 64 (8 heads, GELU, whose
    erf form runs on the host), batch 2 x 12 tokens;
  - a ResNet block: conv-bn-relu-conv-bn plus the skip, ReLU, global average pool and a linear
    layer (torch.onnx folds each eval BatchNorm into its Conv);
  - examples/digits' MLP and CNN, trained by digits.fit, on the whole test split.
Checks per model: the runner plans the whole graph (no refusal); every MatMul, Gemm and Conv node
is on the device; every output element is within the bound below; for the transformer layers,
more than 90 % of the FLOPs are on the device (Runner.device_share(): 2 M N K per product, one per
output element for any other op).

Bound: L u max|y|, u = 2^-8 and L the products (MatMul, Gemm, Conv) on the longest path from the
input to the output. Each such product reads its operands rounded to bf16, within u of them, and
so lands within about 2u of its exact sum (docs/isa.md §7; FP32 accumulation adds (K + 4) 2^-24,
far less). Through the layers that follow, ReLU, pooling, softmax and the residual adds pass an
error on at most at the scale of the values, and layer norms rescale error and signal alike, so
the errors of the L products add at the output's scale: L 2u max|y| at worst, and as they are
independent roundings that mostly cancel, L u max|y| holds with room (the measured errors are
printed: over seeds 1..8, 0.04 to 0.06 of it for the transformer layers, 0.13 to 0.30 for the ResNet
block (0.48 seen once), 0.20 and 0.17 for the digits MLP and CNN). A wrong layout, tap or op is of the order of
max|y|, well outside.
"""
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn as nn

import tessel.onnx

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path[:0] = [os.path.join(REPO, "examples", "digits"), os.path.join(REPO, "tests")]
import digits  # noqa: E402  (examples/digits is no package)
from tally import Tally, mismatch  # noqa: E402  (nor is tests/)

WORK = sys.argv[1]
U = 2.0**-8
PRODUCTS = {"MatMul", "Gemm", "Conv"}
tally = Tally()


class ResBlock(nn.Module):
    """conv-bn-relu-conv-bn plus the skip, ReLU, then global average pool and a linear layer."""

    def __init__(self, c=16, classes=10):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
        self.conv2, self.bn2 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
        self.fc = nn.Linear(c, classes)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = torch.relu(self.bn2(self.conv2(y)) + x)
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(y, 1), 1))


def randomise_bn(model, gen):
    """BatchNorm running statistics and affine parameters away from their identity defaults."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(m.num_features, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(m.num_features, generator=gen) + 0.5)
                m.weight.copy_(torch.rand(m.num_features, generator=gen) + 0.5)
                m.bias.copy_(torch.randn(m.num_features, generator=gen) * 0.1)


def longest_products(path):
    """The number of MatMul, Gemm and Conv nodes on the longest path through the model's graph."""
    g = onnx.load(path).graph
    depth = {}
    for node in g.node:   # torch.onnx writes the nodes in topological order
        d = max([depth.get(i, 0) for i in node.input] + [0]) + (node.op_type in PRODUCTS)
        for o in node.output:
            depth[o] = d
    return max(depth.get(o.name, 0) for o in g.output)


def check(name, model, x, share_at_least=None):
    """Exports model (eval) on x, runs it through tessel.onnx, and checks it (module docstring)."""
    model.eval()
    path = os.path.join(WORK, name + ".onnx")
    torch.onnx.export(model, x, path, input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
    with torch.no_grad():
        ref = model.double()(x.double()).numpy()
    model.float()
    try:
        runner = tessel.onnx.Runner(path, backend="model")
    except tessel.Error as e:
        tally.check(False, f"{name}: planned", e.message)
        return
    with runner:
        y, = runner.run({"x": x.numpy()})
        print(f"{name} exported by torch.onnx, on tessel.onnx:\n{runner.report()}")
        off = [f"{p.node} ({p.op}): {p.where}" for p in runner.placements if p.op in PRODUCTS and p.where != "device"]
        tally.check(not off, f"{name}: every MatMul, Gemm and Conv on the device", "; ".join(off))
        layers = longest_products(path)
        tol = layers * U * np.abs(ref).max()
        err = np.abs(y.astype(np.float64) - ref).max()
        print(f"{name}: max |error| {err:.3g}, bound {tol:.3g} ({layers} products on the longest path, "
              f"max |y| {np.abs(ref).max():.3g}): {err / tol:.2f} of it")
        tally.check(y.shape == ref.shape and not mismatch(y, ref, tol), f"{name}: within L u max|y| of PyTorch",
                    mismatch(y, ref, tol) if y.shape == ref.shape else f"shape {y.shape}, expected {ref.shape}")
        if share_at_least is not None:
            share = runner.device_share()
            print(f"{name}: FLOPs on the device: {share:.1%}")
            tally.check(share >= share_at_least, f"{name}: at least {share_at_least:.0%} of the FLOPs on the device",
                        f"{share:.1%}")


def main():
    os.makedirs(WORK, exist_ok=True)
    seed = int(os.environ.get("SEED", np.random.SeedSequence().entropy % 2**31))
    print(f"onnx_exports: SEED={seed}")
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(seed)

    for d, heads, act in ((32, 4, "relu"), (64, 8, "gelu")):
        layer = nn.TransformerEncoderLayer(d, heads, dim_feedforward=2 * d, activation=act, batch_first=True)
        check(f"transformer_d{d}_{act}", layer, torch.randn(2, 12, d, generator=gen), share_at_least=0.9)

    block = ResBlock()
    randomise_bn(block, gen)
    check("resnet_block", block, torch.randn(2, 16, 8, 8, generator=gen))

    x_train, x_test, y_train, y_test = digits.load()
    images = digits.to_torch(x_test).float().contiguous()
    for kind in ("mlp", "cnn"):
        model, _ = digits.fit(kind, x_train, y_train, x_test, y_test)
        check(f"digits_{kind}", model, images)
    return tally.summary("onnx_exports")


if __name__ == "__main__":
    sys.exit(main())
