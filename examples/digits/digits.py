#!/usr/bin/env python3
"""Two int8 networks on scikit-learn's digits (8x8 images), every layer a command on a Tessel device.

usage: digits.py --model mlp|cnn [--backend model|sim] [--sim-batch N] [--work DIR] [--tessel PATH]

  mlp  64 -> 64 (ReLU) -> 10                                     gemm, gemm
  cnn  conv 3x3 1->8 pad 1 + ReLU, max pool 2x2,                  conv2d, pool2d, conv2d, gemm
       conv 3x3 8->16 pad 1 + ReLU, dense 256 -> 10

The float model is trained with torch on the CPU (seed SEED = 0, printed) and quantised here: int8 weights and
activations with per-tensor symmetric scales (zero point 0; activations calibrated on the training
set), int32 biases, and each hidden layer's requantisation as the device's integer multiplier and
shift. The last layer gives int32 logits; their argmax (on the host) is the class. The whole test
split runs on the model backend, one `tessel` command per layer, and each layer's output must equal
the numpy integer reference below bit for bit. With --backend sim the first --sim-batch test images
also run on the simulated SoC, for bit-exactness and cycles, and the MLP once more with its layers as
device arrays (tessel.Array, the package of build/python): one graph, one submission, the
activations kept on the device. Fails (exit 1) on any mismatch and when
the device's accuracy is more than 1 point from the float model's. Prints a report and, last, one
JSON line with every figure.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time
from dataclasses import dataclass

import numpy as np
import torch
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

SEED = 0
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MAX_GAP = 1.0        # accuracy points allowed between the float model and the device


# ---- data and the float model ---------------------------------------------------------------------
def load():
    """(train images, test images, train labels, test labels); images N x 8 x 8 x 1 in 0..16."""
    d = load_digits()
    x = d.images.astype(np.float32)[..., None]
    return train_test_split(x, d.target, test_size=0.2, random_state=SEED, stratify=d.target)


def float_model(kind):
    """The torch network; its input is NCHW images / 16."""
    nn = torch.nn
    if kind == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    return nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(256, 10))


def to_torch(x):
    """NHWC images in 0..16 as the float model's NCHW input in 0..1."""
    return torch.from_numpy(x / 16).permute(0, 3, 1, 2)


def train(model, x, y, epochs=30, batch=64):
    """Adam on the cross entropy, minibatches in a seeded order."""
    gen = torch.Generator().manual_seed(SEED)
    xt, yt = to_torch(x), torch.from_numpy(y)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for _ in range(epochs):
        for idx in torch.randperm(len(xt), generator=gen).split(batch):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(xt[idx]), yt[idx]).backward()
            opt.step()
    model.eval()


def accuracy(pred, y):
    return 100.0 * float(np.mean(pred == y))


# ---- quantisation ---------------------------------------------------------------------------------
@dataclass
class Layer:
    """One device command. op: gemm, conv2d or pool2d."""
    op: str
    w: np.ndarray = None    # int8: K x COUT (gemm), KH x KW x C x COUT (conv2d)
    bias: np.ndarray = None  # int32, COUT values
    relu: bool = False
    rq: tuple = None        # (rq_scale, rq_shift): int8 output; None: int32 output
    pad: int = 0            # conv2d
    window: int = 0         # pool2d


def symmetric(w):
    """(int8 w, scale): w ~ scale * int8 w, per tensor, in -127..127."""
    scale = float(np.abs(w).max()) / 127
    return np.clip(np.round(w / scale), -127, 127).astype(np.int8), scale


def multiplier(m):
    """(rq_scale, rq_shift) with rq_scale / 2^rq_shift = m to 31 significant bits, rq_scale < 2^31."""
    mant, exp = math.frexp(m)
    scale, shift = round(mant * 2**31), 31 - exp
    if scale == 2**31:
        scale, shift = scale // 2, shift - 1
    assert 0 <= shift <= 62, f"requantisation multiplier {m} out of the device's range"
    return scale, shift


def gemm_weights(w, in_shape):
    """torch's Linear weights (COUT x C*H*W, NCHW flatten) as K x COUT for the host's NHWC flatten."""
    w = w.reshape(w.shape[0], *in_shape[1:])
    if w.ndim == 4:
        w = w.transpose(0, 2, 3, 1)
    return w.reshape(w.shape[0], -1).T


def activations(model, x):
    """Each module's input and output on the float input x, as numpy arrays."""
    ins, outs = [], []
    with torch.no_grad():
        for mod in model:
            ins.append(x.numpy())
            x = mod(x)
            outs.append(x.numpy())
    return ins, outs


def quantise(model, x_train):
    """The device layers of model, activation scales calibrated on x_train (NHWC, 0..16).
    The input is x_q = round(x * 127 / 16): scale 1/127 on the model's 0..1 input."""
    mods = list(model)
    ins, outs = activations(model, to_torch(x_train))
    last = max(i for i, m in enumerate(mods) if hasattr(m, "weight"))
    layers, s_x = [], 1 / 127
    for i, mod in enumerate(mods):
        if isinstance(mod, torch.nn.MaxPool2d):
            layers.append(Layer("pool2d", window=mod.kernel_size))
        elif hasattr(mod, "weight"):
            w, b = (t.detach().double().numpy() for t in (mod.weight, mod.bias))
            conv = isinstance(mod, torch.nn.Conv2d)
            unflat = ins[i - 1] if i and isinstance(mods[i - 1], torch.nn.Flatten) else ins[i]
            w_q, s_w = symmetric(w.transpose(2, 3, 1, 0) if conv else gemm_weights(w, unflat.shape))
            bias = np.round(b / (s_x * s_w)).astype(np.int32)
            layer = Layer("conv2d" if conv else "gemm", w_q, bias, pad=mod.padding[0] if conv else 0)
            if i != last:
                assert isinstance(mods[i + 1], torch.nn.ReLU), "a hidden layer is followed by a ReLU"
                s_y = float(outs[i + 1].max()) / 127
                layer.relu, layer.rq, s_x = True, multiplier(s_x * s_w / s_y), s_y
            layers.append(layer)
    return layers


def quantise_input(x):
    return np.round(x * 127 / 16).astype(np.int8)


# ---- the integer reference ------------------------------------------------------------------------
def layer_input(layer, x):
    """What the layer's command reads: a gemm reads the NHWC flatten of its input."""
    return x.reshape(len(x), -1) if layer.op == "gemm" else x


def im2col(x, k, pad):
    """The k x k windows of NHWC x (padding reads 0, the zero point): N*H*W x k*k*C, tap-major."""
    n, h, w, c = x.shape
    xp = np.pad(x, ((0, 0), (pad, pad), (pad, pad), (0, 0)))
    oh, ow = h + 2 * pad - k + 1, w + 2 * pad - k + 1
    taps = [xp[:, i:i + oh, j:j + ow, :] for i in range(k) for j in range(k)]
    return np.stack(taps, axis=3).reshape(n * oh * ow, k * k * c), (n, oh, ow)


def requant(acc, scale, shift):
    """The device's REQUANT with zero point 0: sat8(floor((acc * scale + 2^(shift-1)) / 2^shift))."""
    return np.clip((acc * scale + ((1 << shift) >> 1)) >> shift, -128, 127).astype(np.int8)


def reference(layer, x):
    """The layer's exact integer result on int8 x."""
    x = layer_input(layer, x)
    if layer.op == "pool2d":
        n, h, w, c = x.shape
        k = layer.window
        return x.reshape(n, h // k, k, w // k, k, c).max(axis=(2, 4))
    cout = layer.w.shape[-1]
    a, out_shape = im2col(x, layer.w.shape[0], layer.pad) if layer.op == "conv2d" else (x, (len(x),))
    acc = a.astype(np.int64) @ layer.w.reshape(-1, cout).astype(np.int64) + layer.bias
    if layer.relu:
        acc = np.maximum(acc, 0)
    y = requant(acc, *layer.rq) if layer.rq else acc.astype(np.int32)
    assert layer.rq or np.array_equal(y, acc), "int32 logits overflow"
    return y.reshape(*out_shape, cout)


# ---- the device -----------------------------------------------------------------------------------
def cli_args(layer, files):
    """The tessel options of the layer, its operands in files (x, w, bias)."""
    if layer.op == "pool2d":
        return ["--x", files["x"], "--kind", "max", "--window", str(layer.window)]
    gemm = layer.op == "gemm"
    args = ["--a" if gemm else "--x", files["x"], "--b" if gemm else "--w", files["w"], "--bias", files["bias"]]
    args += [] if gemm else ["--pad", str(layer.pad)]
    args += ["--relu"] if layer.relu else []
    if layer.rq:
        args += ["--out-dtype", "int8", "--rq-scale", str(layer.rq[0]), "--rq-shift", str(layer.rq[1]),
                 "--rq-zp", "0"]
    return args


def run_layer(tessel, backend, work, name, layer, x):
    """(output, --stats JSON) of the layer's command on x; exits on a command failure."""
    files = {k: os.path.join(work, f"{name}_{k}.npy") for k in ("x", "w", "bias", "y")}
    for key, value in (("x", layer_input(layer, x)), ("w", layer.w), ("bias", layer.bias)):
        if value is not None:
            np.save(files[key], np.ascontiguousarray(value))   # the CLI reads C order only
    cmd = [tessel, layer.op] + cli_args(layer, files) + ["--backend", backend, "--stats", "--out", files["y"]]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode:
        sys.exit(f"FAIL: {' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
    return np.load(files["y"]), json.loads(p.stdout)


def first_mismatch(y, want):
    """'' when y is want bit for bit, else what differs first: index, expected, got."""
    if y.dtype != want.dtype or y.shape != want.shape:
        return f"{y.dtype} {y.shape}, expected {want.dtype} {want.shape}"
    bad = np.argwhere(y != want)
    if not len(bad):
        return ""
    i = tuple(bad[0])
    return f"{len(bad)} mismatches, first at {i}: expected {want[i]}, got {y[i]}"


def shape_str(a):
    return "x".join(map(str, a.shape))


def run_device(args, backend, layers, x, refs):
    """Every layer on the backend, each output checked against refs; the list of --stats. Exit 1 on a
    mismatch."""
    work = os.path.join(args.work, backend)
    os.makedirs(work, exist_ok=True)
    print(f"{backend} backend, {len(x)} images:")
    stats = []
    for i, (layer, want) in enumerate(zip(layers, refs)):
        y, st = run_layer(args.tessel, backend, work, f"{i}_{layer.op}", layer, x)
        why = first_mismatch(y, want)
        cycles = f"{st['cycles']:>9} cycles" if st["cycles_timed"] else ""
        print(f"  {i}  {layer.op:6}  {shape_str(x):>12} -> {shape_str(y):12} {str(y.dtype):5}  "
              f"{'MISMATCH' if why else 'bit-exact'}  {cycles}")
        if why:
            sys.exit(f"FAIL: layer {i} ({layer.op}) on the {backend} backend differs from the reference: {why}")
        stats.append(st)
        x = y
    return x, stats


def run_graph(backend, layers, x, want):
    """An MLP (every layer a GEMM) as device arrays (tessel.Array, the Python package of build/python):
    the layers' GEMMs in one graph, run with one submission, the activations never leaving the
    device; the device's counters. Exit 1 when the logits are not want bit for bit."""
    sys.path.insert(0, os.path.join(REPO, "build", "python"))
    import tessel
    with tessel.Device(backend) as dev:
        h = dev.array(layer_input(layers[0], x))
        weights = [dev.array(layer.w.reshape(-1, layer.w.shape[-1])) for layer in layers]
        dev.stats_reset()
        for layer, w in zip(layers, weights):
            h = dev.matmul(h, w, bias=layer.bias, relu=layer.relu,
                           requant=(layer.rq[0], layer.rq[1], 0) if layer.rq else None)
        y, st = h.numpy(), dev.stats()["total"]
    why = first_mismatch(y, want)
    print(f"  one graph: {len(layers)} GEMMs in {st['submissions']} submission, {st['cycles']} cycles, "
          f"{'MISMATCH' if why else 'bit-exact'}")
    if why:
        sys.exit(f"FAIL: the graph on the {backend} backend differs from the reference: {why}")
    return dict(st, mxu_n=dev.n)


def sim_figures(stats, batch):
    """Cycles, MACs and MXU utilisation per inference from the layers' --stats."""
    cycles, macs, n = sum(s["cycles"] for s in stats), sum(s["macs"] for s in stats), stats[0]["mxu_n"]
    return {"sim_batch": batch, "mxu_n": n, "cycles_per_inference": cycles / batch,
            "macs_per_inference": macs / batch, "mxu_utilization": macs / (n * n * cycles)}


# ---- main -----------------------------------------------------------------------------------------
def parse():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", choices=("mlp", "cnn"), required=True)
    ap.add_argument("--backend", choices=("model", "sim"), default="model",
                    help="sim: also run --sim-batch images on the simulated SoC for cycles")
    ap.add_argument("--sim-batch", type=int, default=32, help="test images on the sim (default 32)")
    ap.add_argument("--work", help="the .npy files of every command (default build/digits/MODEL)")
    ap.add_argument("--tessel", default=os.path.join(REPO, "build", "bin", "tessel"), help="the tessel CLI")
    args = ap.parse_args()
    if args.sim_batch < 1:
        ap.error("--sim-batch needs at least 1 image")
    args.work = args.work or os.path.join(REPO, "build", "digits", args.model)
    return args


def fit(kind, x_train, y_train, x_test, y_test):
    """(the trained float model, its test accuracy)."""
    start = time.time()
    torch.manual_seed(SEED)   # the initial weights
    model = float_model(kind)
    train(model, x_train, y_train)
    with torch.no_grad():
        acc = accuracy(model(to_torch(x_test)).argmax(1).numpy(), y_test)
    print(f"float model trained in {time.time() - start:.1f} s")
    return model, acc


def report(result):
    print(f"float accuracy   {result['float_accuracy']:6.2f} %")
    print(f"device accuracy  {result['device_accuracy']:6.2f} %  (int8, model backend, every layer bit-exact)")
    if "sim_batch" in result:
        print(f"sim, per inference ({result['sim_batch']} images): {result['cycles_per_inference']:.0f} cycles, "
              f"MXU utilisation {100 * result['mxu_utilization']:.2f} % (N={result['mxu_n']})")
    if "graph_cycles_per_inference" in result:
        print(f"sim, per inference, the layers as one graph: {result['graph_cycles_per_inference']:.0f} cycles, "
              f"MXU utilisation {100 * result['graph_mxu_utilization']:.2f} %")
    print(json.dumps(result))


def main():
    args = parse()
    sys.stdout.reconfigure(line_buffering=True)   # the report in order with the failures on stderr
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    x_train, x_test, y_train, y_test = load()
    print(f"digits {args.model}: seed {SEED}, {len(x_train)} training and {len(x_test)} test images")
    model, float_acc = fit(args.model, x_train, y_train, x_test, y_test)

    layers = quantise(model, x_train)
    refs = [quantise_input(x_test)]
    for layer in layers:
        refs.append(reference(layer, refs[-1]))
    logits, _ = run_device(args, "model", layers, refs[0], refs[1:])
    result = {"model": args.model, "seed": SEED, "test_images": len(x_test), "float_accuracy": float_acc,
              "device_accuracy": accuracy(logits.argmax(1), y_test), "layers": [layer.op for layer in layers],
              "bit_exact": True}
    if args.backend == "sim":
        batch = min(args.sim_batch, len(x_test))
        _, stats = run_device(args, "sim", layers, refs[0][:batch], [r[:batch] for r in refs[1:]])
        result.update(sim_figures(stats, batch))
        if all(layer.op == "gemm" for layer in layers):
            graph = sim_figures([run_graph("sim", layers, refs[0][:batch], refs[-1][:batch])], batch)
            result.update({"graph_" + k: v for k, v in graph.items() if k not in ("sim_batch", "mxu_n")})
    report(result)
    if abs(result["float_accuracy"] - result["device_accuracy"]) > MAX_GAP:
        sys.exit(f"FAIL: the device's accuracy is more than {MAX_GAP} point from the float model's")


if __name__ == "__main__":
    main()
