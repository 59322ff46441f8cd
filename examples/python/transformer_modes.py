#!/usr/bin/env python3
"""A transformer encoder block in tessel.torch's three modes (docs/python.md, "PyTorch").

Usage: PYTHONPATH=build/python python3 examples/python/transformer_modes.py [model|sim]
       (make bench-torch-modes: on the simulated SoC)

The block is the one of examples/transformer, written as a user writes it in PyTorch: sequence 64,
d_model 128, 4 heads of 32, FFN 512, post-LN, GELU in its tanh form; the heads are views of one
projection, the scale a multiply. Its weights and input come from torch.manual_seed(0). Each mode
runs it once without gradients, from a fresh device; the script prints, per mode, the commands, the
device cycles (the completions' CYCLES; the model backend is not timed, so there they count its
hardware accesses) and the largest difference from the block run by PyTorch in float32, then the
ratio of strict's cycles to fused's. It exits 1 when strict's or fused's result is not debug mode's
bit for bit (debug mode checks each op against PyTorch's CPU result).
"""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

import tessel.torch


class Block(nn.Module):
    """A post-LN transformer encoder block of one sequence (x: tokens x d)."""

    def __init__(self, d=128, heads=4, ffn=512):
        super().__init__()
        self.heads = heads
        self.qkv, self.out = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.ff1, self.ff2 = nn.Linear(d, ffn), nn.Linear(ffn, d)
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)

    def forward(self, x):
        n, d = x.shape
        q, k, v = (t.view(n, self.heads, -1).transpose(0, 1) for t in self.qkv(x).split(d, -1))
        p = F.softmax(q @ k.transpose(1, 2) * (d // self.heads)**-0.5, -1)
        x = self.norm1(x + self.out((p @ v).transpose(0, 1).reshape(n, d)))
        return self.norm2(x + self.ff2(F.gelu(self.ff1(x), approximate="tanh")))


def main():
    backend = sys.argv[1] if len(sys.argv) > 1 else "model"
    torch.manual_seed(0)
    block, x = Block().eval(), torch.randn(64, 128)
    got, cycles = {}, {}
    with torch.no_grad():
        ref = block(x)
        for mode in tessel.torch.MODES:
            run = tessel.torch.compile(block, mode=mode, backend=backend)
            got[mode] = run(x)
            s = run.device.stats()["total"]
            cycles[mode] = s["cycles"]
            print(f"{mode:6}  {s['commands']:3} commands  {s['submissions']:3} submissions  {s['cycles']:8} cycles  "
                  f"max |y - y_torch| {(got[mode] - ref).abs().max().item():.3g}")
    print(f"strict / fused: {cycles['strict'] / cycles['fused']:.2f}x the cycles ({backend} backend)")
    same = all(torch.equal(got[m], got["debug"]) for m in ("strict", "fused"))
    print("strict and fused equal debug mode bit for bit" if same else "FAIL: a mode differs from debug mode")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
