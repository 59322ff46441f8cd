#!/usr/bin/env python3
"""Draw a VCD waveform as an SVG (a 'screenshot' without gtkwave, which needs a display).

Usage: wave_svg.py TRACE.vcd OUT.svg [FIRST_CYCLE LAST_CYCLE]
Draws the lab 1 array's signals (SIGNALS below) as buses labelled with signed decimal values, one
column per clock cycle (values sampled just before each rising edge: the harness dumps at 10*c for
the low phase and 10*c+5 for the high one).
"""
import sys
from xml.sax.saxutils import escape

# (label, VCD name under TOP.tsl_lab1_array, lane, lane bits); lane None: the whole signal, bits.
SIGNALS = [("wr_row_i", "wr_row_i", None, 4)] + \
    [(f"x_i[{k}] (row {k} in)", "x_i", k, 8) for k in range(4)] + \
    [(f"x into cell ({k},0)", f"x_h[{k}][0]", None, 8) for k in range(4)] + \
    [(f"psum out of column {j}", f"p_v[4][{j}]", None, 32) for j in range(4)] + \
    [(f"y_o[{j}] (deskewed)", "y_o", j, 32) for j in range(4)]
SCOPE = "TOP.tsl_lab1_array"


def parse_vcd(path, wanted):
    """Return {name: [(time, int value), ...]} for the wanted names in SCOPE."""
    ids, scope, changes = {}, [], {}
    with open(path) as f:
        tokens = iter(f.read().split())
    for tok in tokens:
        if tok == "$scope":
            next(tokens)
            scope.append(next(tokens))
        elif tok == "$upscope":
            scope.pop()
        elif tok == "$var":
            _, _, ident, name = next(tokens), next(tokens), next(tokens), next(tokens)
            if ".".join(scope) == SCOPE and name in wanted:
                ids.setdefault(ident, []).append(name)
                changes[name] = []
        elif tok == "$enddefinitions":
            break
    time = 0
    pending = None
    for tok in tokens:
        if pending is not None:
            for name in ids.get(tok, []):
                changes[name].append((time, pending))
            pending = None
        elif tok[0] == "#":
            time = int(tok[1:])
        elif tok[0] == "b":
            pending = int(tok[1:].replace("x", "0").replace("z", "0"), 2)
        elif tok[0] in "01" and len(tok) > 1:
            for name in ids.get(tok[1:], []):
                changes[name].append((time, int(tok[0])))
    return changes


def value_at(chg, t):
    v = 0
    for time, val in chg:
        if time > t:
            break
        v = val
    return v


def signed(v, bits):
    return v - (1 << bits) if v >> (bits - 1) & 1 else v


def main(argv):
    vcd, out = argv[1], argv[2]
    changes = parse_vcd(vcd, {s[1] for s in SIGNALS})
    first, last = (int(argv[3]), int(argv[4])) if len(argv) > 4 else (0, 24)
    cycles = range(first, last + 1)
    name_w, cw, rh, top = 170, 46, 24, 30
    width = name_w + cw * len(cycles) + 10
    height = top + rh * (len(SIGNALS) + 1) + 10
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="monospace" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="#101418"/>']
    for i, c in enumerate(cycles):
        x = name_w + i * cw
        svg.append(f'<line x1="{x}" y1="{top - 12}" x2="{x}" y2="{height - 6}" stroke="#2a3038"/>')
        svg.append(f'<text x="{x + 3}" y="{top - 16}" fill="#8a96a3">{c}</text>')
    svg.append(f'<text x="6" y="{top - 16}" fill="#8a96a3">cycle</text>')
    y = top
    # the clock: one period per column
    svg.append(f'<text x="6" y="{y + 15}" fill="#d0d6dc">clk_i</text>')
    pts = []
    for i in range(len(cycles)):
        x = name_w + i * cw
        pts += [(x, y + 18), (x + cw / 2, y + 18), (x + cw / 2, y + 4), (x + cw, y + 4), (x + cw, y + 18)]
    svg.append('<polyline fill="none" stroke="#6fdc6f" points="' +
               " ".join(f"{a:.1f},{b}" for a, b in pts) + '"/>')
    for label, name, lane, bits in SIGNALS:
        y += rh
        svg.append(f'<text x="6" y="{y + 15}" fill="#d0d6dc">{escape(label)}</text>')
        prev = None
        for i, c in enumerate(cycles):
            v = value_at(changes[name], 10 * c)  # low phase of cycle c: the value the edge samples
            if lane is not None:
                v = v >> (lane * bits) & ((1 << bits) - 1)
            v = signed(v, bits) if name != "wr_row_i" else v
            x = name_w + i * cw
            colour = "#3d8bfd" if v else "#4a5560"
            if v != prev:
                svg.append(f'<path d="M{x},{y + 11} L{x + 3},{y + 4} L{x + cw - 3},{y + 4} '
                           f'L{x + cw},{y + 11} L{x + cw - 3},{y + 18} L{x + 3},{y + 18} Z" '
                           f'fill="none" stroke="{colour}"/>')
                svg.append(f'<text x="{x + cw / 2}" y="{y + 15}" fill="#e8ecef" text-anchor="middle">'
                           f'{v if name != "wr_row_i" else format(v, "04b")}</text>')
            else:
                svg.append(f'<path d="M{x - 3},{y + 4} L{x + cw - 3},{y + 4} M{x - 3},{y + 18} '
                           f'L{x + cw - 3},{y + 18}" stroke="{colour}"/>')
            prev = v
    svg.append("</svg>")
    with open(out, "w") as f:
        f.write("\n".join(svg) + "\n")
    print(f"wrote {out} (cycles {first}..{last} of {vcd})")


if __name__ == "__main__":
    main(sys.argv)
