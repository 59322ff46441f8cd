"""ONNX's convolution for tests/onnx's references, written from ONNX's operator spec (Conv,
QLinearConv), not from tessel.onnx: torch's conv1d or conv2d in float64 after ONNX's padding."""
import numpy as np
import torch
import torch.nn.functional as F


def conv(x, w, at):
    """ONNX's Conv, without bias, of x (N x C x L or N x C x H x W) by w (O x C/group x kernel) with
    the attributes at (strides, dilations, pads, auto_pad, group; a string as str or bytes), in
    float64: exact for integer values below 2^53."""
    nd = w.ndim - 2
    s, d = at.get("strides") or [1] * nd, at.get("dilations") or [1] * nd
    pads = list(at.get("pads") or [0] * 2 * nd)
    auto = at.get("auto_pad", "NOTSET")
    auto = auto.decode() if isinstance(auto, bytes) else auto
    if auto.startswith("SAME"):   # the output ceil(size / stride), the odd padding after (UPPER) or before
        for i in range(nd):
            size, k = x.shape[2 + i], w.shape[2 + i]
            total = max((-(-size // s[i]) - 1) * s[i] + (k - 1) * d[i] + 1 - size, 0)
            small, big = total // 2, total - total // 2
            pads[i], pads[nd + i] = (small, big) if auto == "SAME_UPPER" else (big, small)
    torch_pads = [p for i in reversed(range(nd)) for p in (pads[i], pads[nd + i])]   # the last axis first
    xt = F.pad(torch.from_numpy(np.asarray(x, np.float64)), torch_pads)
    fn = F.conv2d if nd == 2 else F.conv1d
    return fn(xt, torch.from_numpy(np.asarray(w, np.float64)), stride=s, dilation=d, groups=at.get("group", 1)).numpy()
