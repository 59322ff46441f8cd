#!/usr/bin/env python3
"""The layers of a small CNN and of a transformer block on a Tessel device from Python, each
checked against numpy in float64 (docs/python.md).

Usage: PYTHONPATH=build/python python3 examples/python/layers.py [model|sim]
"""
import sys

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

import tessel

backend = sys.argv[1] if len(sys.argv) > 1 else "model"
rng = np.random.default_rng(1)


def compare(what, got, want):
    """bf16 keeps 8 significant bits: each layer agrees with float64 to about 2^-8 of its scale."""
    err = np.abs(got - want).max() / np.abs(want).max()
    print(f"{what:<34} {str(got.shape):<18} relative error {err:.1e}")
    assert err < 2**-6, what


def softmax(v):
    e = np.exp(v - v.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


with tessel.Device(backend) as dev:
    # A CNN: 3x3 convolution + bias + ReLU, 2x2 max pooling, a dense layer, softmax. Images are
    # NHWC (batch, height, width, channels) and weights HWIO, as the device stores them.
    x = rng.standard_normal((2, 12, 12, 3), dtype=np.float32)
    w = (rng.standard_normal((3, 3, 3, 8)) / 3).astype(np.float32)
    b = rng.standard_normal(8).astype(np.float32)
    h = dev.conv2d(x, w, bias=b, padding=1, relu=True)
    windows = sliding_window_view(np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0))), (3, 3), axis=(1, 2))
    compare("conv2d 3x3, padding 1, bias, ReLU", h, np.maximum(np.einsum("nhwcij,ijco->nhwo", windows, w) + b, 0))

    p = dev.pool2d(h, "max", 2)
    compare("max pool 2x2", p, h.reshape(2, 6, 2, 6, 2, 8).max(axis=(2, 4)))

    wd = (rng.standard_normal((6 * 6 * 8, 10)) / 16).astype(np.float32)
    logits = dev.matmul(p.reshape(2, -1), wd)
    compare("dense 288 -> 10", logits, p.reshape(2, -1).astype(np.float64) @ wd)
    compare("softmax", dev.softmax(logits), softmax(logits.astype(np.float64)))

    # A transformer block's pieces over (batch, heads, tokens, features).
    t = rng.standard_normal((2, 4, 10, 16), dtype=np.float32)
    g, beta = np.ones(16, np.float32), np.zeros(16, np.float32)
    n = dev.layernorm(t, g, beta)
    compare("layernorm", n, (t - t.mean(-1, keepdims=True)) / np.sqrt(t.var(-1, keepdims=True) + 1e-5))

    o = dev.attention(n, n, n, causal=True)
    s = n.astype(np.float64) @ np.swapaxes(n, -1, -2) / 4 + np.triu(np.full((10, 10), -np.inf), 1)
    compare("causal attention, 2x4 heads", o, softmax(s) @ n)

    r = dev.add(t, o)
    compare("residual add", r, t.astype(np.float64) + o)
    v = r.astype(np.float64)
    compare("gelu", dev.gelu(r), 0.5 * v * (1 + np.tanh(np.sqrt(2 / np.pi) * (v + 0.044715 * v**3))))

    total = dev.stats()["total"]
    print(f"{total['commands']} commands, {total['macs']} MACs, {total['hbm_bytes']} bytes of HBM traffic")
