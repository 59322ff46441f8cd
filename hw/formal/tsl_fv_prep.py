#!/usr/bin/env python3
"""Copy RTL files for a formal build, with each `TSL_ASSERT rewritten into what Yosys 0.23 reads.

Yosys 0.23's own Verilog front end takes immediate assertions and $past/$stable/$fell, but not
the concurrent `assert property (@(posedge clk_i) disable iff (!rst_ni) A |-> B)` that
hw/rtl/tsl_assert.svh expands to under Verilator (no `|->`, `|=>`, clocking event or disable iff).
The RTL's own assertion text is what gets proved, so this script rewrites each macro call
mechanically (no hand copy to drift):
  `TSL_ASSERT(Name, A |-> B, msg)   -> always @(posedge clk_i) if (ok && rst_ni) Name: assert (!(A) || (B));
  `TSL_ASSERT(Name, A |=> B, msg)   -> always @(posedge clk_i)
                                         if (ok && rst_ni && $past(rst_ni) && $past(A)) Name: assert (B);
  `TSL_ASSERT(Name, P, msg)         -> always @(posedge clk_i) if (ok && rst_ni) Name: assert (P);
  `TSL_ASSERT_INIT(Name, C, msg)    -> always @* Name: assert (C);
where ok is low in the first cycle only (no $past there). An assertion on a module's inputs (its
environment's contract) becomes `assume` when the module is the proof's top: --assume Module.Name.
--bind Module=FILE pastes FILE's text before the module's `endmodule` (the proof's internal
invariants and ghost state, which need the module's own signals: Yosys 0.23 takes no hierarchical
references).

Usage: tsl_fv_prep.py OUTDIR [--assume Module.Name]... [--bind Module=FILE]... RTL.sv...
Prints one line per rewritten assertion: 'Module.Name assert|assume'.
"""
import argparse
import os
import re
import sys

CALL = re.compile(r"`TSL_ASSERT(_INIT)?\s*\(")
MODULE = re.compile(r"^\s*module\s+(\w+)", re.M)


def split_args(text, start):
    """Arguments of the macro call whose '(' is at text[start-1]; returns (args, end index)."""
    args, depth, cur, i, quote = [], 0, [], start, False
    while i < len(text):
        c = text[i]
        if quote:
            cur.append(c)
            if c == "\\":
                cur.append(text[i + 1])
                i += 1
            elif c == '"':
                quote = False
        elif c == '"':
            quote = True
            cur.append(c)
        elif c in "([{":
            depth += 1
            cur.append(c)
        elif c in ")]}":
            if depth == 0:
                args.append("".join(cur).strip())
                return args, i + 1
            depth -= 1
            cur.append(c)
        elif c == "," and depth == 0:
            args.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    raise ValueError("unterminated `TSL_ASSERT call")


def split_impl(prop):
    """(antecedent, operator, consequent) at the top-level |-> or |=>, or (None, None, prop)."""
    depth = 0
    for i, c in enumerate(prop):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0 and prop.startswith(("|->", "|=>"), i):
            return prop[:i].strip(), prop[i:i + 3], prop[i + 3:].strip()
    return None, None, prop.strip()


def rewrite(text, module, assumes, report):
    out, pos, first = [], 0, True
    for m in CALL.finditer(text):
        if m.start() < pos:
            continue
        args, end = split_args(text, m.end())
        name, body = args[0], args[1]
        out.append(text[pos:m.start()])
        kind = "assume" if f"{module}.{name}" in assumes else "assert"
        if m.group(1):  # _INIT: a parameter check, constant
            out.append(f"always @* {name}: {kind} ({body});")
        else:
            if first:
                out.append("logic tsl_fv_first = 1'b1;  // low after the first cycle ($past valid)\n"
                           "  always @(posedge clk_i) tsl_fv_first <= 1'b0;\n  ")
                first = False
            ante, op, cons = split_impl(body)
            if op == "|->":
                out.append(f"always @(posedge clk_i) if (!tsl_fv_first && rst_ni) "
                           f"{name}: {kind} (!({ante}) || ({cons}));")
            elif op == "|=>":
                out.append(f"always @(posedge clk_i) if (!tsl_fv_first && rst_ni && $past(rst_ni) "
                           f"&& $past({ante})) {name}: {kind} ({cons});")
            else:
                out.append(f"always @(posedge clk_i) if (!tsl_fv_first && rst_ni) {name}: {kind} ({cons});")
        report.append(f"{module}.{name} {kind}")
        pos = end
    out.append(text[pos:])
    return "".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--assume", action="append", default=[])
    ap.add_argument("--bind", action="append", default=[])
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    binds = dict(b.split("=", 1) for b in a.bind)
    os.makedirs(a.outdir, exist_ok=True)
    report = []
    for path in a.files:
        with open(path) as f:
            text = f.read()
        mods = MODULE.findall(text)
        module = mods[0] if mods else os.path.basename(path)
        text = rewrite(text, module, set(a.assume), report)
        if module in binds:
            with open(binds[module]) as f:
                bound = f.read()
            cut = text.rindex("endmodule")
            text = (text[:cut] +
                    f"  // ---- formal bind: {binds[module]}\n{bound}\n" + text[cut:])
        with open(os.path.join(a.outdir, os.path.basename(path)), "w") as f:
            f.write(text)
    for r in report:
        print(r)
    missing = set(binds) - {MODULE.findall(open(p).read())[0] for p in a.files if MODULE.search(open(p).read())}
    if missing:
        sys.exit(f"tsl_fv_prep: --bind for a module not among the files: {' '.join(sorted(missing))}")


if __name__ == "__main__":
    main()
