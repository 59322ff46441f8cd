#!/usr/bin/env python3
"""Training the digits MLP on a Tessel device from a plain PyTorch loop (docs/python.md, "PyTorch").

Usage: PYTHONPATH=build/python python3 examples/python/train_digits.py [debug|strict|fused]

The MLP of examples/digits (64 -> 64, ReLU, -> 10) and its cross-entropy loss train twice from the
same initial weights on the same minibatches (seed 0): with the module itself on the CPU, and with
run = tessel.torch.compile(model, mode=MODE, backend="model"), the loop otherwise the same (MODE:
the argument, default "debug"). The device runs the forward's and the backward's GEMMs, ReLUs and
softmaxes, in bf16 with FP32 accumulation; debug mode checks each against PyTorch's CPU result. Prints the gradients of one step against
the CPU's, both test accuracies and the placement of each op; exits 1 when a gradient is outside its
bound or the accuracies are more than 1 point apart.

The gradient bound, element by element: |g_device - g_cpu| <= B = 2 E + |g_float64 - g_cpu|, E the
first-order worst-case error of the device's computation (bound() below: every GEMM operand rounded
to bf16, unit roundoff 2^-8, and summed in FP32, 2^-24; errors carried through each step, products
of two errors left out, hence the factor 2) and g_float64 the exact gradient, in float64.
"""
import copy
import os
import sys
import time

import torch
import torch.nn.functional as F

import tessel.torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "digits"))
import digits   # noqa: E402  (examples/digits: the data, the MLP and the accuracy)

EPOCHS, BATCH, LR = 10, 64, 1e-2
MAX_GAP = 1.0                    # accuracy points allowed between the two loops
U8, U32 = 2.0**-8, 2.0**-24      # unit roundoffs: bf16 (8 significant bits) and FP32 (24)


class Classifier(torch.nn.Module):
    """digits' MLP with its loss: forward(x) gives the logits, forward(x, y) the mean cross-entropy."""

    def __init__(self):
        super().__init__()
        self.net = digits.float_model("mlp")

    def forward(self, x, y=None):
        logits = self.net(x)
        return logits if y is None else F.cross_entropy(logits, y)


def train(step, model, x, y):
    """Adam on minibatches in a seeded order; step is model or the compiled run."""
    gen = torch.Generator().manual_seed(digits.SEED)
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    for _ in range(EPOCHS):
        for idx in torch.randperm(len(x), generator=gen).split(BATCH):
            opt.zero_grad()
            step(x[idx], y[idx]).backward()
            opt.step()


def gradients(step, model, x, y):
    """{parameter: its gradient} of step(x, y), the loss."""
    model.zero_grad()
    step(x, y).backward()
    return {name: p.grad.clone() for name, p in model.named_parameters()}


# ---- the gradient bound: first-order running error analysis in float64 ---------------------------
# Each step gives (its exact value t, E_t), E_t bounding |t_device - t| element by element.
def gemm(a, ea, b, eb, bias=0.0):
    """A B + bias: A and B (errors ea, eb) rounded to bf16, K exact products summed in FP32, the bias
    added (one rounding)."""
    aa, ab = a.abs(), b.abs()
    c = a @ b + bias
    return c, aa @ (eb + U8 * ab) + (ea + U8 * aa) @ ab + a.shape[-1] * U32 * (aa @ ab) + U32 * c.abs()


def column_sum(t, et):
    """A bias's gradient: the sum of the rows, on the host in FP32."""
    return t.sum(0), et.sum(0) + len(t) * U32 * t.abs().sum(0)


def bound(model, x, y):
    """{parameter: (its exact gradient, E)} for one step of the MLP on (x, y): the device's forward
    (two GEMMs, ReLU, log-softmax through its softmax) and backward (the softmax's gradient
    p - onehot over N, three GEMMs, the ReLU's mask and two column sums)."""
    w = {name: p.detach().double() for name, p in model.named_parameters()}
    x, z = x.double().reshape(len(x), -1), 0.0
    h, eh = gemm(x, z, w["net.1.weight"].T, z, w["net.1.bias"])
    r, er = h.clamp(min=0), eh                                   # ReLU is 1-Lipschitz
    logits, el = gemm(r, er, w["net.3.weight"].T, z, w["net.3.bias"])
    d = logits - logits.amax(1, keepdim=True)
    lse = d.exp().sum(1, keepdim=True).log()
    p, n, batch = (d - lse).exp(), logits.shape[1], len(logits)
    el = el + 2 * ((65 + n) * U32 + U32 * (d.abs() + 2 * lse + (d - lse).abs()))   # the log-softmax's own
    ep = p * (el + (p * el).sum(1, keepdim=True)) + (64 + n) * U32 * p.amax(1, keepdim=True)
    dz = (p - F.one_hot(y, n)) / batch
    edz = ep / batch + U32 * (p / batch + dz.abs())
    dr, edr = gemm(dz, edz, w["net.3.weight"], z)
    unsure = h.abs() <= eh                                       # the device's ReLU mask may differ here
    dh, edh = dr * (h > 0), edr * (h >= -eh) + dr.abs() * unsure
    return {"net.1.weight": gemm(dh.T, edh.T, x, z), "net.1.bias": column_sum(dh, edh),
            "net.3.weight": gemm(dz.T, edz.T, r, er), "net.3.bias": column_sum(dz, edz)}


def gradient_check(cpu, dev, run, x, y):
    """One step's gradients on the device against the CPU's, within B; True when all are."""
    g_cpu, g_dev = gradients(cpu, cpu, x, y), gradients(run, dev, x, y)
    bounds = bound(cpu, x, y)
    good = True
    print(f"one step's gradients ({len(x)} images), device against CPU, |err| <= B = 2 E + |g_float64 - g_cpu|:")
    for name in g_cpu:
        exact, e = bounds[name]
        err = (g_dev[name].double() - g_cpu[name]).abs()
        b = 2 * e + (exact - g_cpu[name]).abs()
        ratio = float(torch.where(err == 0, 0.0, err / b).max())   # B is 0 where a pixel is always 0
        good &= ratio <= 1
        print(f"  {name:13} max |g| {float(g_cpu[name].abs().max()):.2e}  max |err| {float(err.max()):.2e}  "
              f"max |err|/B {ratio:.2f}  {'ok' if ratio <= 1 else 'FAIL'}")
    return good


def main():
    start = time.time()
    torch.set_num_threads(1)
    x_train, x_test, y_train, y_test = digits.load()
    x, y, xt = digits.to_torch(x_train), torch.from_numpy(y_train), digits.to_torch(x_test)
    mode = sys.argv[1] if len(sys.argv) > 1 else "debug"
    print(f"digits MLP 64 -> 64 (ReLU) -> 10 with its cross-entropy: {len(x)} training and {len(xt)} test images, "
          f"seed {digits.SEED}; Adam lr {LR}, {EPOCHS} epochs of minibatches of {BATCH}; {mode} mode")
    torch.manual_seed(digits.SEED)
    cpu = Classifier()
    dev = copy.deepcopy(cpu)
    run = tessel.torch.compile(dev, mode=mode, backend="model")

    good = gradient_check(cpu, dev, run, x[:BATCH], y[:BATCH])
    acc = {}
    for name, model, step in (("CPU", cpu, cpu), ("device", dev, run)):
        t = time.time()
        train(step, model, x, y)
        with torch.no_grad():
            acc[name] = digits.accuracy(step(xt).argmax(1).numpy(), y_test)
        print(f"{name:6} loop: test accuracy {acc[name]:6.2f} % (trained in {time.time() - t:.1f} s)")
    gap = abs(acc["CPU"] - acc["device"])
    print(f"the accuracies are {gap:.2f} points apart (at most {MAX_GAP} allowed)")
    print(f"plans: {run.stats()}")
    print("where each op ran (op, where, calls, what):")
    print(run.report())
    print(f"{time.time() - start:.1f} s in all")
    if not good or gap > MAX_GAP:
        sys.exit("FAIL: " + ("a gradient is outside its bound" if not good else "the accuracies differ too much"))


if __name__ == "__main__":
    main()
