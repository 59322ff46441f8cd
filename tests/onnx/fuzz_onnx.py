#!/usr/bin/env python3
"""make test-onnx (and make soak, with more cases): tessel.onnx's loader against mutated models.

Usage: PYTHONPATH=build/python fuzz_onnx.py WORKDIR [CASES]   (SEED=n replays; without it the seed is random)
Prints the seed first and "fuzz_onnx: N passed, M failed" last, with the outcomes' counts.

Each case takes one of three small valid models (a CNN: Conv, Relu, MaxPool, Flatten, Gemm; an MLP:
MatMul, Add, Relu, Gemm, Softmax; and an Add and a Reshape of a constant), mutates it once or twice
(attributes: values, types, unknown names, deletions; dims of initializers and declared inputs;
edges: a rewired input, a name written twice, nodes swapped or dropped, an output renamed; domains
and opsets; external data: locations inside the folder and out of it through .., symlinks and
absolute paths, offsets and lengths; the file truncated; an input of another shape or dtype) and
runs it in a worker subprocess with a timeout. The outcome must be the right answer or a
tessel.Error:
  - the right answer: this file's own reference interpreter of the mutated model (onnx 1.12 has no
    onnx.reference), written from ONNX's operator specs, within a bf16 bound for the products and
    window ops; where the reference refuses the model, only a tessel.Error is right; where it does
    not know (an opset or attribute it does not model), any answer or tessel.Error is taken;
  - never a crash (the worker killed by a signal), a hang (no answer within the timeout), another
    exception type, or a byte of the secret file beside the model's folder in any output.
A failure prints the case: the seed, the mutations, the outcome and the first mismatch.
"""
import json
import os
import select
import shutil
import subprocess
import sys
import time

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import helper, numpy_helper

from conv_ref import conv

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tally import Tally, mismatch   # noqa: E402  (tests/ is no package)

TIMEOUT = 20.0   # seconds a case may take in the worker
F32 = onnx.TensorProto.FLOAT


# ---- the worker: runs one case a line, in its own process, so that a crash or a hang is seen ----------
WORKER = r"""
import json, sys, traceback
import numpy as np
import tessel, tessel.onnx
for line in sys.stdin:
    case = json.loads(line)
    try:
        inputs = dict(np.load(case["inputs"], allow_pickle=False))
        with tessel.onnx.Runner(case["model"]) as runner:
            outs = runner.run(inputs)
        np.savez(case["out"], *outs)
        reply = {"outcome": "answer"}
    except tessel.Error as e:
        reply = {"outcome": "error", "status": e.name, "message": e.message}
    except Exception as e:
        reply = {"outcome": "exception", "message": traceback.format_exc()}
    print(json.dumps(reply), flush=True)
"""


class Worker:
    """A python3 running WORKER; restarted after a crash or a hang."""

    def __init__(self):
        self.p = None

    def run(self, case):
        """(outcome, detail): the worker's reply, or ("crash", signal) or ("hang", seconds)."""
        if self.p is None:
            self.p = subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL, text=True)
        self.p.stdin.write(json.dumps(case) + "\n")
        self.p.stdin.flush()
        ready, _, _ = select.select([self.p.stdout], [], [], TIMEOUT)
        line = self.p.stdout.readline() if ready else None
        if line:
            reply = json.loads(line)
            return reply["outcome"], reply
        if line is None:
            self.p.kill()
        code = self.p.wait()
        self.p = None
        return ("hang", TIMEOUT) if line is None else ("crash", code)

    def close(self):
        if self.p is not None:
            self.p.stdin.close()
            self.p.wait()


# ---- the base models -------------------------------------------------------------------------------------
def base_model(kind, rng):
    """(model, inputs): one of the small valid models, with random weights."""
    r = lambda *shape: rng.standard_normal(shape).astype(np.float32)   # noqa: E731
    if kind == "cnn":
        nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1], strides=[1, 1]),
                 helper.make_node("Relu", ["c"], ["r"], name="relu"),
                 helper.make_node("MaxPool", ["r"], ["p"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
                 helper.make_node("Flatten", ["p"], ["f"], name="flatten"),
                 helper.make_node("Gemm", ["f", "wg", "bg"], ["y"], name="gemm", transB=1)]
        inits = dict(w=r(4, 2, 3, 3) / 3, b=r(4), wg=r(5, 36) / 6, bg=r(5))
        inputs = dict(x=r(1, 2, 6, 6))
    elif kind == "mlp":
        nodes = [helper.make_node("MatMul", ["x", "w1"], ["m"], name="matmul"),
                 helper.make_node("Add", ["m", "b1"], ["a"], name="add"),
                 helper.make_node("Relu", ["a"], ["r"], name="relu"),
                 helper.make_node("Gemm", ["r", "w2", "b2"], ["g"], name="gemm", alpha=0.5),
                 helper.make_node("Softmax", ["g"], ["y"], name="softmax", axis=-1)]
        inits = dict(w1=r(5, 4), b1=r(4), w2=r(4, 3), b2=r(3))
        inputs = dict(x=r(3, 5))
    else:
        nodes = [helper.make_node("Add", ["x", "c"], ["s"], name="add"),
                 helper.make_node("Reshape", ["s", "shape"], ["y"], name="reshape")]
        inits = dict(c=r(4), shape=np.array([2, 2], np.int64))
        inputs = dict(x=np.zeros(4, np.float32))   # y holds c's bytes as they are: a leak shows verbatim
    g = helper.make_graph(nodes, kind, [helper.make_tensor_value_info(n, F32, a.shape) for n, a in inputs.items()],
                          [helper.make_tensor_value_info("y", F32, None)],
                          [numpy_helper.from_array(a, n) for n, a in inits.items()])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), inputs


# ---- the reference: ONNX's semantics of the ops above, from the operator specs --------------------------
class Invalid(Exception):
    """The model is not valid ONNX: only a tessel.Error is right."""


class Unknown(Exception):
    """The reference does not model this: any answer or tessel.Error is taken."""


def need(cond, why):
    if not cond:
        raise Invalid(why)


def ints(at, key, n, least, default):
    v = at.get(key, default)
    need(isinstance(v, list) and len(v) == n and all(isinstance(i, int) and i >= least for i in v), f"{key} {v}")
    if any(i > 64 for i in v):
        raise Unknown(f"{key} {v}: too large to compute here")
    return v


def window(at, x_shape, kernel):
    """The window attributes of a 2-D Conv or MaxPool: (strides, dilations, pads)."""
    strides = ints(at, "strides", 2, 1, [1, 1])
    dilations = ints(at, "dilations", 2, 1, [1, 1])
    pads = ints(at, "pads", 4, 0, [0, 0, 0, 0])
    auto = at.get("auto_pad", "NOTSET")
    need(auto in ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"), f"auto_pad {auto}")
    if auto != "NOTSET":
        raise Unknown("auto_pad")
    for i in range(2):
        need(x_shape[2 + i] + pads[i] + pads[2 + i] >= (kernel[i] - 1) * dilations[i] + 1, "window beyond the input")
    return strides, dilations, pads


def bf16_bound(s):
    """The bound of a sum of products of bf16-rounded operands with fp32 accumulation: s is the sum of
    |products| (2^-8 relative per operand, twice, plus the accumulation's)."""
    return (2 * 2.0**-8 + 2.0**-16) * s + 64 * 2.0**-24 * s + 1e-30


def ref_node(op, at, ins, opset):
    """(value, bound) of one node on (value, bound) inputs."""
    vals = [v for v, _ in ins]
    if op == "Conv":
        need(len(vals) in (2, 3), "Conv inputs")
        x, w = vals[:2]
        need(x.ndim == 4 and w.ndim == 4, "Conv ranks")
        group = at.get("group", 1)
        need(isinstance(group, int) and group >= 1 and x.shape[1] == w.shape[1] * group and w.shape[0] % group == 0,
             f"group {group}")
        need(list(at.get("kernel_shape", w.shape[2:])) == list(w.shape[2:]), "kernel_shape")
        s, d, p = window(at, x.shape, w.shape[2:])
        geo = dict(strides=s, dilations=d, pads=p, group=group)
        y, bound = conv(x, w, geo), bf16_bound(conv(np.abs(x), np.abs(w), geo)) + np.max(ins[0][1]) * 2
        if len(vals) == 3:
            need(vals[2].shape == (w.shape[0],), "Conv bias")
            y = y + vals[2].reshape(-1, 1, 1)
        return y, bound
    if op == "Relu":
        need(len(vals) == 1, "Relu inputs")
        return np.maximum(vals[0], 0), ins[0][1]
    if op == "MaxPool":
        need(len(vals) == 1 and vals[0].ndim == 4, "MaxPool input")
        kernel = ints(at, "kernel_shape", 2, 1, None)
        if at.get("ceil_mode", 0) or at.get("storage_order", 0):
            raise Unknown("ceil_mode, storage_order")
        s, d, p = window(at, vals[0].shape, kernel)
        x = F.pad(torch.from_numpy(vals[0].astype(np.float64)), [p[1], p[3], p[0], p[2]], value=-np.inf)
        y = F.max_pool2d(x, kernel, s, dilation=d).numpy()
        return y, 2.0**-8 * np.abs(y) + np.max(ins[0][1])
    if op == "Flatten":
        x = vals[0]
        axis = at.get("axis", 1)
        need(len(vals) == 1 and isinstance(axis, int) and -x.ndim <= axis <= x.ndim, f"Flatten axis {axis}")
        axis += x.ndim if axis < 0 else 0
        shape = (int(np.prod(x.shape[:axis])), int(np.prod(x.shape[axis:])))
        return x.reshape(shape), np.broadcast_to(ins[0][1], x.shape).reshape(shape)
    if op in ("Gemm", "MatMul"):
        if op == "MatMul":
            need(len(vals) == 2 and vals[0].ndim == 2 and vals[1].ndim == 2, "MatMul operands")
            a, b, c, alpha, beta = vals[0], vals[1], None, 1.0, 1.0
        else:
            need(len(vals) in (2, 3) and vals[0].ndim == 2 and vals[1].ndim == 2, "Gemm operands")
            a, b = (v.T if at.get(t, 0) else v for v, t in zip(vals[:2], ("transA", "transB")))
            c, alpha, beta = (vals[2] if len(vals) == 3 else None), at.get("alpha", 1.0), at.get("beta", 1.0)
        need(a.shape[1] == b.shape[0], "product shapes")
        y = alpha * (a @ b)
        bound = bf16_bound(abs(alpha) * (np.abs(a) @ np.abs(b))) + abs(alpha) * np.max(ins[0][1]) * np.abs(b).sum(0)
        if c is not None:
            need(np.broadcast_shapes(c.shape, y.shape) == y.shape, "Gemm C")
            y = y + beta * c
        return y, bound + 2.0**-22 * np.abs(y)
    if op == "Add":
        need(len(vals) == 2, "Add inputs")
        try:
            y = vals[0] + vals[1]
        except ValueError:
            raise Invalid("Add shapes")
        return y, ins[0][1] + ins[1][1] + 2.0**-23 * np.abs(y)
    if op == "Softmax":
        x = vals[0]
        axis = at.get("axis", -1)
        need(len(vals) == 1 and isinstance(axis, int) and -x.ndim <= axis < x.ndim, f"Softmax axis {axis}")
        e = np.exp(x - x.max(axis=axis, keepdims=True))
        y = e / e.sum(axis=axis, keepdims=True)
        return y, 2.0**-18 * np.abs(y) + 1e-6 + np.max(ins[0][1])
    if op == "Reshape":
        need(len(vals) == 2 and vals[1].dtype == np.int64 and vals[1].ndim == 1, "Reshape shape")
        x, shape = vals[0], [int(v) for v in vals[1]]
        if at.get("allowzero", 0):
            raise Unknown("allowzero")
        shape = [x.shape[i] if v == 0 else v for i, v in enumerate(shape)]
        need(shape.count(-1) <= 1 and all(v >= -1 for v in shape), f"Reshape {shape}")
        try:
            return x.reshape(shape), np.broadcast_to(ins[0][1], x.shape).reshape(shape)
        except ValueError:
            raise Invalid(f"Reshape {x.shape} to {shape}")
    raise Invalid(f"op {op}")


SCHEMA_ATTRS = {"Conv": {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"},
                "MaxPool": {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"},
                "Flatten": {"axis"}, "Gemm": {"alpha", "beta", "transA", "transB"}, "Softmax": {"axis"},
                "Reshape": {"allowzero"}, "Relu": set(), "Add": set(), "MatMul": set()}
INT_ATTRS = {"group", "axis", "ceil_mode", "storage_order", "transA", "transB", "allowzero"}


def reference(m, inputs):
    """(the graph's outputs, their bounds) by ONNX's semantics; raises Invalid or Unknown."""
    opset = {o.domain: o.version for o in m.opset_import}
    need("" in opset or "ai.onnx" in opset, "no opset of ONNX's domain")
    if opset.get("", opset.get("ai.onnx")) not in (13, 14, 15, 16, 17):
        raise Unknown("an opset the reference does not model")
    g = m.graph
    env = {}
    for t in g.initializer:
        need(t.name not in env and all(d >= 0 for d in t.dims), f"initializer {t.name}")
        try:
            a = numpy_helper.to_array(t)
            env[t.name] = (a.astype(np.float64) if t.data_type == F32 else a, 0.0)
        except ValueError:
            raise Invalid(f"initializer {t.name} data")
        need(env[t.name][0].shape == tuple(t.dims), "initializer dims")
    for v in g.input:
        if v.name in env:
            continue
        need(v.name in inputs, f"input {v.name}")
        a = inputs[v.name]
        t = v.type.tensor_type
        need(t.elem_type == F32 and a.dtype == np.float32, "input dtype")
        dims = [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]
        need(len(dims) == a.ndim and all(d in (None, s) for d, s in zip(dims, a.shape)), "input shape")
        env[v.name] = (a.astype(np.float64), 0.0)
    need(all(n in {v.name for v in g.input} for n in inputs), "unknown input")
    for node in g.node:
        need(node.domain in ("", "ai.onnx"), f"domain {node.domain}")
        need(node.op_type in SCHEMA_ATTRS, f"op {node.op_type}")
        at = {}
        for a in node.attribute:
            need(a.name in SCHEMA_ATTRS[node.op_type] and a.name not in at, f"attribute {a.name}")
            v = helper.get_attribute_value(a)
            kind = a.type
            A = onnx.AttributeProto
            want = (A.INT if a.name in INT_ATTRS else A.STRING if a.name == "auto_pad"
                    else A.FLOAT if a.name in ("alpha", "beta") else A.INTS)
            need(kind == want, f"attribute {a.name} type")
            at[a.name] = v.decode(errors="replace") if isinstance(v, bytes) else v
        need(all(n == "" or n in env for n in node.input), f"{node.name} reads an unknown name")
        need(len(node.output) == 1 and node.output[0] and node.output[0] not in env, f"{node.name} output")
        env[node.output[0]] = ref_node(node.op_type, at, [env[n] for n in node.input if n], opset)
    need(len(g.output) and all(v.name in env for v in g.output), "graph outputs")
    return [env[v.name] for v in g.output]


# ---- mutations -------------------------------------------------------------------------------------------
INTS_POOL = [[], [0], [1], [2], [0, 0], [1, 1], [2, 2], [3, 3], [1, 2], [0, 1], [-1, -1], [1, 1, 1, 1], [0, 0, 0, 0],
             [2, 2, 2, 2], [1, 0, 1, 0], [-1, 0, 0, 0], [2**31, 1], [2**62, 2**62], [1, 2, 3], [5, 5], [7, 7]]
INT_POOL = [0, 1, 2, 3, -1, -2, 4, 2**31, -2**62, 2**62]
ATTRS = {"Conv": ["strides", "pads", "dilations", "kernel_shape", "group", "auto_pad"],
         "MaxPool": ["strides", "pads", "dilations", "kernel_shape", "ceil_mode", "auto_pad", "storage_order"],
         "Flatten": ["axis"], "Gemm": ["transA", "transB", "alpha", "beta"], "Softmax": ["axis"],
         "Reshape": ["allowzero"], "Relu": [], "Add": [], "MatMul": []}


def pick(rng, seq):
    return seq[int(rng.integers(len(seq)))]


def set_attr(node, attr):
    for i, a in enumerate(node.attribute):
        if a.name == attr.name:
            del node.attribute[i]
            break
    node.attribute.append(attr)


def mutate_attr(m, rng):
    node = pick(rng, m.graph.node)
    names = ATTRS[node.op_type] + [a.name for a in node.attribute] + ["bogus"]
    name = pick(rng, names)
    r = rng.random()
    held = [i for i, a in enumerate(node.attribute) if a.name == name]
    if r < 0.15 and held:
        del node.attribute[held[0]]
        return f"{node.name}: no {name}"
    if name == "auto_pad" or r < 0.25:
        value = pick(rng, ["NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER", "SAME", "", "\xff"]) if name == "auto_pad" \
            else pick(rng, [1.5, "x", [1.0, 2.0], 0.0])
    elif name in ("alpha", "beta"):
        value = pick(rng, [0.0, -1.0, 2.0, 1e30, float("nan"), 1])
    elif name in INT_ATTRS or name == "bogus" and rng.random() < 0.5:
        value = pick(rng, INT_POOL)
    else:
        value = pick(rng, INTS_POOL)
    if value == []:   # make_attribute cannot tell an empty list's type
        attr = onnx.AttributeProto(name=name, type=onnx.AttributeProto.INTS)
    else:
        attr = helper.make_attribute(name, value)
    set_attr(node, attr)
    return f"{node.name}: {name} = {value!r}"


def mutate_dims(m, rng):
    g = m.graph
    if rng.random() < 0.6:
        t = pick(rng, g.initializer)
        dims = list(t.dims)
        new = pick(rng, [[-1] + dims[1:], [2**40], [2**20, 2**20], dims[::-1], dims + [1], dims[:-1] or [0],
                         [int(np.prod(dims))], [d + 1 for d in dims], [0] + dims])
        del t.dims[:]
        t.dims.extend(new)
        return f"initializer {t.name}: dims {dims} -> {new}"
    v = pick(rng, g.input)
    dims = [d.dim_value for d in v.type.tensor_type.shape.dim]
    new = pick(rng, [[-3] + dims[1:], [2**40] + dims[1:], dims[:-1], dims + [1], [1] * len(dims)])
    v.type.tensor_type.shape.Clear()
    for d in new:
        v.type.tensor_type.shape.dim.add().dim_value = d
    return f"input {v.name}: declared {dims} -> {new}"


def mutate_edges(m, rng):
    g = m.graph
    names = [t.name for t in g.initializer] + [v.name for v in g.input] + [o for n in g.node for o in n.output]
    r = rng.random()
    i = int(rng.integers(len(g.node)))
    node = g.node[i]
    if r < 0.4 and len(node.input):
        k = int(rng.integers(len(node.input)))
        to = pick(rng, names + ["nowhere", node.output[0], ""])
        node.input[k] = to
        return f"{node.name}: input {k} -> {to!r}"
    if r < 0.55:
        to = pick(rng, names)
        node.output[0] = to
        return f"{node.name}: output -> {to!r}"
    if r < 0.7 and len(g.node) > 1:
        j = int(rng.integers(len(g.node)))
        a, b = onnx.NodeProto(), onnx.NodeProto()
        a.CopyFrom(g.node[i])
        b.CopyFrom(g.node[j])
        g.node[i].CopyFrom(b)
        g.node[j].CopyFrom(a)
        return f"nodes {i} and {j} swapped"
    if r < 0.85:
        del g.node[i]
        return f"node {i} dropped"
    g.output[0].name = pick(rng, names + ["nothing"])
    return f"graph output -> {g.output[0].name!r}"


def mutate_domain(m, rng):
    if rng.random() < 0.5:
        node = pick(rng, m.graph.node)
        node.domain = pick(rng, ["foo", "com.microsoft", "ai.onnx.ml", "ai.onnx", ""])
        return f"{node.name}: domain {node.domain!r}"
    v = pick(rng, [0, 1, 7, 11, 12, 13, 17, 18, 20, 10000])
    m.opset_import[0].version = v
    return f"opset {v}"


MUTATIONS = [mutate_attr, mutate_dims, mutate_edges, mutate_domain]


# ---- external data and the file -------------------------------------------------------------------------
INSIDE = ["w.bin", "x/../w.bin", "./w.bin", "x/in.bin", "link_in.bin"]
OUTSIDE = ["../secret.bin", "x/../../secret.bin", "x/../../../../../../../../etc/passwd", "link_out.bin", "SECRET",
           "x/link_out.bin"]
BROKEN = ["none.bin", "x", ""]


def setup_folder(folder, secret_path):
    """The model's folder: x/ inside, a symlink in to a file inside, symlinks out to the secret."""
    os.makedirs(os.path.join(folder, "x"))
    os.symlink(os.path.join(folder, "w.bin"), os.path.join(folder, "link_in.bin"))
    os.symlink(secret_path, os.path.join(folder, "link_out.bin"))
    os.symlink(secret_path, os.path.join(folder, "x", "link_out.bin"))


def externalise(m, rng, folder, secret_path):
    """Moves an initializer's data into an external file and picks a location; returns (what, inside):
    inside is True when the model still holds the same values, False when it must be refused."""
    t = pick(rng, [t for t in m.graph.initializer if t.data_type == F32])
    data = t.raw_data   # numpy_helper.from_array's; the dims may be mutated already
    pad = int(rng.integers(0, 3)) * 4
    for name in ("w.bin", os.path.join("x", "in.bin")):
        with open(os.path.join(folder, name), "wb") as f:
            f.write(b"\0" * pad + data)
    kind = rng.random()
    location = pick(rng, INSIDE if kind < 0.4 else OUTSIDE if kind < 0.85 else BROKEN)
    if location == "SECRET":
        location = secret_path
    offset, length, right = pad, len(data), location in INSIDE
    r = rng.random()
    if r < 0.15:
        offset, right = pick(rng, [pad + 4, -4, 2**70, "x"]), False
    elif r < 0.3:
        length, right = pick(rng, [len(data) - 4, len(data) + 4, 0, 2**62, "y"]), False
    t.ClearField("raw_data")
    t.ClearField("float_data")
    t.data_location = onnx.TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", offset), ("length", length)):
        e = t.external_data.add()
        e.key, e.value = key, str(value)
    return f"initializer {t.name} external at {location!r}, offset {offset}, length {length}", right


# ---- one case --------------------------------------------------------------------------------------------
def leaked(secret, blobs):
    """Whether any blob holds 8 bytes of the secret at a 4-byte boundary of both."""
    chunks = {secret[i:i + 8] for i in range(0, len(secret) - 7, 4)}
    return any(b[i:i + 8] in chunks for b in blobs for i in range(0, len(b) - 7, 4))


def run_case(n, rng, worker, work, secret, secret_path, counts):
    """One case; returns '' when its outcome is right, else what was wrong."""
    kind = pick(rng, ["cnn", "mlp", "ext"])
    m, inputs = base_model(kind, rng)
    folder = os.path.join(work, f"case{n}")
    setup_folder(folder, secret_path)
    what = [kind]
    for _ in range(int(rng.integers(1, 3))):
        r = rng.random()
        if r < 0.7:
            what.append(pick(rng, MUTATIONS)(m, rng))
        elif r < 0.85:
            a = np.asarray(inputs["x"])
            inputs["x"] = pick(rng, [a.reshape(-1)[:1], a.astype(np.float64), a.reshape(-1), np.float32(1),
                                     a[..., None]])
            what.append(f"input x {inputs['x'].dtype} {inputs['x'].shape}")
    try:
        expect = reference(m, inputs)
    except (Invalid, ValueError, IndexError) as e:   # numpy's: operands whose shapes do not fit
        expect = f"invalid: {e}"
    except Unknown as e:
        expect = None
        what.append(f"(the reference does not model it: {e})")
    r = rng.random()
    if r < 0.3 and any(t.data_type == F32 for t in m.graph.initializer):
        desc, inside = externalise(m, rng, folder, secret_path)
        what.append(desc)
        if not inside and isinstance(expect, list):
            expect = "invalid: external data outside the folder or broken"
    data = m.SerializeToString()
    if r > 0.9:   # truncated (never with external data, which the reference would read from here)
        cut = int(rng.integers(0, len(data)))
        data = data[:cut]
        what.append(f"truncated to {cut} of {len(m.SerializeToString())} bytes")
        try:
            again = onnx.load_model_from_string(data)
            expect = reference(again, inputs) if isinstance(expect, list) else expect
        except Exception:   # noqa: BLE001 (a truncated file that does not parse, or a model the reference refuses)
            expect = "invalid: truncated"
    path = os.path.join(folder, "model.onnx")
    with open(path, "wb") as f:
        f.write(data)
    np.savez(os.path.join(folder, "inputs.npz"), **inputs)
    out = os.path.join(folder, "out.npz")
    outcome, reply = worker.run(dict(model=path, inputs=os.path.join(folder, "inputs.npz"), out=out))
    counts[outcome] = counts.get(outcome, 0) + 1
    why = ""
    if outcome == "answer":
        with np.load(out) as z:
            got = [z[f"arr_{i}"] for i in range(len(z.files))]
        if leaked(secret, [a.tobytes() for a in got]):
            why = "the secret's bytes came back in an output"
        elif isinstance(expect, str):
            why = f"an answer, where the model is {expect}"
        elif expect is not None:
            if len(got) != len(expect):
                why = f"{len(got)} outputs, expected {len(expect)}"
            for g_, (ref, bound) in zip(got, expect):
                g_, ref = g_.astype(np.float64), np.asarray(ref, np.float64)
                if g_.shape == ref.shape:   # NaN where ONNX gives NaN (a beta of NaN) is right
                    both = np.isnan(g_) & np.isnan(ref)
                    g_, ref = np.where(both, 0, g_), np.where(both, 0, ref)
                why = why or mismatch(g_, ref, np.where(np.isnan(bound), 0, bound))
    elif outcome == "error":
        if reply["status"] != "EINVAL" or leaked(secret, [reply["message"].encode(errors="replace")]):
            why = f"tessel.Error {reply['status']}: {reply['message']}"
    else:
        why = f"{outcome}: {reply if outcome != 'exception' else reply['message']}"
    if not why:
        shutil.rmtree(folder)
    else:
        why = f"case {n} ({'; '.join(what)}): {why} [kept in {folder}]"
    return why


def main():
    work = sys.argv[1]
    cases = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    seed = int(os.environ["SEED"]) if os.environ.get("SEED") else int.from_bytes(os.urandom(4), "little")
    print(f"fuzz_onnx: SEED={seed}, {cases} cases", flush=True)
    rng = np.random.default_rng(seed)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    secret = rng.uniform(1, 2, 1024).astype(np.float32).tobytes()   # finite floats: an Add of 0 keeps their bits
    secret_path = os.path.join(work, "secret.bin")
    with open(secret_path, "wb") as f:
        f.write(secret)
    tally, counts, worker, start = Tally(), {}, Worker(), time.time()
    try:
        for n in range(cases):
            why = run_case(n, rng, worker, work, secret, secret_path, counts)
            tally.check(not why, f"fuzz_onnx SEED={seed}", why)
    finally:
        worker.close()
    return tally.summary("fuzz_onnx", f"; outcomes: {counts.get('answer', 0)} right answers, "
                         f"{counts.get('error', 0)} tessel.Error, {counts.get('exception', 0)} other exceptions, "
                         f"{counts.get('crash', 0)} crashes, {counts.get('hang', 0)} hangs "
                         f"({time.time() - start:.0f} s)")


if __name__ == "__main__":
    sys.exit(main())
