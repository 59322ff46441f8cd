#!/usr/bin/env python3
"""Generate the RV32IM instruction test (assembly) with expected values computed here in Python.

The output defines `uint32_t isa_run(isa_log_t *log)`: it executes every case, records failing
cases (id, got, expected) in log and returns the number of cases executed; the C driver
(isa_main.c) prints failures and the `N passed, M failed` line. Expected values come from the
plain-integer semantics below (the ISA manual's definitions), never from the core under test.
Usage: gen_isa.py rr|rest OUT.S   (rr: register-register ops incl. M; rest: everything else)
"""
import sys

M32 = 0xFFFFFFFF
EDGE = [0, 1, 2, 0xFFFFFFFF, 0xFFFFFFFE, 0x7FFFFFFF, 0x80000000, 0x80000001,
        31, 32, 33, 0x12345678, 0xDEADBEEF, 0xFFFF0000, 0x0000FFFF, 0x00000005, 0xFFFFFFFB]


def s32(x):
    x &= M32
    return x - (1 << 32) if x & 0x80000000 else x


def trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def ref(op, a, b):
    """Reference result of R-type op on 32-bit unsigned a, b."""
    sa, sb = s32(a), s32(b)
    sh = b & 31
    if op == "add": return (a + b) & M32
    if op == "sub": return (a - b) & M32
    if op == "sll": return (a << sh) & M32
    if op == "slt": return int(sa < sb)
    if op == "sltu": return int(a < b)
    if op == "xor": return a ^ b
    if op == "srl": return a >> sh
    if op == "sra": return (sa >> sh) & M32
    if op == "or": return a | b
    if op == "and": return a & b
    if op == "mul": return (a * b) & M32
    if op == "mulh": return ((sa * sb) >> 32) & M32
    if op == "mulhsu": return ((sa * b) >> 32) & M32
    if op == "mulhu": return ((a * b) >> 32) & M32
    if op == "div":
        if b == 0: return M32
        if sa == -2**31 and sb == -1: return a
        return trunc_div(sa, sb) & M32
    if op == "divu": return M32 if b == 0 else a // b
    if op == "rem":
        if b == 0: return a
        if sa == -2**31 and sb == -1: return 0
        return (sa - trunc_div(sa, sb) * sb) & M32
    if op == "remu": return a if b == 0 else a % b
    raise ValueError(op)


RTYPE = ["add", "sub", "sll", "slt", "sltu", "xor", "srl", "sra", "or", "and",
         "mul", "mulh", "mulhsu", "mulhu", "div", "divu", "rem", "remu"]
ITYPE = {"addi": "add", "slti": "slt", "sltiu": "sltu", "xori": "xor", "ori": "or", "andi": "and"}
SHIFTI = {"slli": "sll", "srli": "srl", "srai": "sra"}
# Smaller operand set for the all-pairs tables (keeps each program well inside 64 KiB of RAM).
PAIRS = [0, 1, 0xFFFFFFFF, 0xFFFFFFFE, 0x7FFFFFFF, 0x80000000, 0x80000001, 31, 32, 33,
         0x12345678, 0xDEADBEEF, 0x0000FFFF]
IMMS = [0, 1, -1, 2047, -2048, 0x555, -0x556, 31]
SHAMTS = [0, 1, 4, 15, 16, 31]
BRANCH = {"beq": lambda a, b: a == b, "bne": lambda a, b: a != b,
          "blt": lambda a, b: s32(a) < s32(b), "bge": lambda a, b: s32(a) >= s32(b),
          "bltu": lambda a, b: a < b, "bgeu": lambda a, b: a >= b}
DATA = [0x80, 0x01, 0x7F, 0xFF, 0x00, 0x80, 0xFF, 0x7F, 0x34, 0x12, 0xCD, 0xAB, 0xEF, 0xBE, 0xAD, 0xDE]


class Gen:
    def __init__(self):
        self.text, self.data, self.ncases, self.tables = [], [], 0, 0

    def emit(self, line):
        self.text.append("  " + line)

    def case_id(self):
        self.ncases += 1
        return self.ncases

    def check(self, got, exp_reg):
        """Compare register got with exp_reg; on mismatch record the case."""
        cid = self.case_id()
        self.emit(f"li a4, {cid}")
        self.emit(f"mv a5, {got}")
        self.emit(f"mv a6, {exp_reg}")
        self.emit("jal t6, isa_check")
        return cid

    def check_imm(self, got, value):
        self.emit(f"li a3, {value & M32:#x}")
        self.check(got, "a3")

    def table_loop(self, rows, body, words):
        """Loop over a data table; each row holds `words` words; body compares and may use a0-a3.
        Each row counts as one case; its id is the row index + the table's first id."""
        self.tables += 1
        t = f"isa_tab{self.tables}"
        first = self.ncases + 1
        self.ncases += len(rows)
        self.data.append(f"{t}:")
        for r in rows:
            self.data.append("  .word " + ", ".join(f"{v & M32:#x}" for v in r))
        self.emit(f"la t0, {t}")
        self.emit(f"li t1, {len(rows)}")
        self.emit(f"li t2, {first}")
        self.text.append(f"{t}_loop:")
        for line in body:
            self.emit(line)
        self.emit("mv a4, t2")
        self.emit("mv a5, a2")
        self.emit(f"lw a6, {4 * (words - 1)}(t0)")
        self.emit("jal t6, isa_check")
        self.emit(f"addi t0, t0, {4 * words}")
        self.emit("addi t2, t2, 1")
        self.emit("addi t1, t1, -1")
        self.emit(f"bnez t1, {t}_loop")

    def build(self, part):
        if part == "rr":
            self.build_rr()
        else:
            self.build_rest()

    def build_rr(self):
        # Register-register ops, all operand pairs.
        for op in RTYPE:
            rows = [(a, b, ref(op, a, b)) for a in PAIRS for b in PAIRS]
            self.text.append(f"# {op}")
            self.table_loop(rows, ["lw a0, 0(t0)", "lw a1, 4(t0)", f"{op} a2, a0, a1"], 3)
        # Same register as both sources and as destination.
        self.emit("li a0, 0x12345678")
        self.emit("mul a0, a0, a0")
        self.check_imm("a0", (0x12345678 * 0x12345678) & M32)
        self.emit("li a0, -7")
        self.emit("sub a1, a0, a0")
        self.check_imm("a1", 0)

    def build_rest(self):
        # Register-immediate ops: one loop per immediate.
        for op, base in ITYPE.items():
            for imm in IMMS:
                rows = [(a, ref(base, a, imm & M32)) for a in EDGE]
                self.text.append(f"# {op} {imm}")
                self.table_loop(rows, ["lw a0, 0(t0)", f"{op} a2, a0, {imm}"], 2)
        for op, base in SHIFTI.items():
            for sh in SHAMTS:
                rows = [(a, ref(base, a, sh)) for a in EDGE]
                self.text.append(f"# {op} {sh}")
                self.table_loop(rows, ["lw a0, 0(t0)", f"{op} a2, a0, {sh}"], 2)
        # Branches: a2 = 1 when taken.
        for op, fn in BRANCH.items():
            rows = [(a, b, int(fn(a, b))) for a in PAIRS for b in PAIRS]
            self.text.append(f"# {op}")
            self.table_loop(rows, ["lw a0, 0(t0)", "lw a1, 4(t0)", "li a2, 1",
                                   f"{op} a0, a1, 1f", "li a2, 0", "1:"], 3)
        self.text.append("# x0 is hard-wired to zero")
        self.emit("li a0, 123")
        self.emit("addi x0, a0, 5")
        self.check("x0", "zero")
        self.emit("add x0, a0, a0")
        self.emit("mv a2, x0")
        self.check_imm("a2", 0)
        self.emit("lui x0, 0x12345")
        self.emit("add a2, x0, x0")
        self.check_imm("a2", 0)
        self.emit("la a1, isa_ldata")
        self.emit("lw x0, 0(a1)")
        self.emit("sltu a2, x0, a0")
        self.check_imm("a2", 1)
        self.emit("jal x0, 1f")
        self.text.append("1:")
        self.emit("mv a2, x0")
        self.check_imm("a2", 0)
        # LUI and AUIPC. AUIPC is checked against the link value of a JAL, a different mechanism.
        self.text.append("# lui / auipc")
        for v in [0, 1, 0x12345, 0x80000, 0xFFFFF]:
            self.emit(f"lui a2, {v:#x}")
            self.check_imm("a2", v << 12)
        for v in [0, 0x12345, 0xFFFFF]:
            self.emit("jal a1, 2f")
            self.text.append("2:")
            self.emit(f"auipc a2, {v:#x}")
            self.emit(f"li a3, {(v << 12) & M32:#x}")
            self.emit("add a3, a3, a1")
            self.check("a2", "a3")
        # Loads: every width and offset over a known byte pattern, base at the start and the end.
        self.text.append("# loads")
        self.data.append("  .balign 4")
        self.data.append("isa_ldata:")
        self.data.append("  .byte " + ", ".join(f"{b:#x}" for b in DATA))
        widths = {"lb": (1, True), "lbu": (1, False), "lh": (2, True), "lhu": (2, False), "lw": (4, False)}
        for op, (n, signed) in widths.items():
            for off in range(0, 16, n):
                v = int.from_bytes(bytes(DATA[off:off + n]), "little")
                if signed and v & (1 << (8 * n - 1)):
                    v -= 1 << (8 * n)
                self.emit("la a1, isa_ldata")
                self.emit(f"{op} a2, {off}(a1)")
                self.check_imm("a2", v)
                self.emit("la a1, isa_ldata + 16")
                self.emit(f"{op} a2, {off - 16}(a1)")
                self.check_imm("a2", v)
        # Stores: each width at each aligned offset into a zeroed word, then read the word back.
        self.text.append("# stores")
        self.data.append("  .balign 4")
        self.data.append("isa_sdata: .word 0, 0, 0, 0")
        val = 0x89ABCDEF
        for op, n in [("sb", 1), ("sh", 2), ("sw", 4)]:
            for off in range(0, 4, n):
                mem = bytearray(4)
                mem[off:off + n] = (val & ((1 << (8 * n)) - 1)).to_bytes(n, "little")
                self.emit("la a1, isa_sdata + 4")
                self.emit("sw zero, 0(a1)")
                self.emit(f"li a0, {val:#x}")
                self.emit(f"{op} a0, {off}(a1)")
                self.emit("lw a2, 0(a1)")
                self.check_imm("a2", int.from_bytes(mem, "little"))
                self.emit("lw a2, -4(a1)")   # neighbours untouched
                self.check_imm("a2", 0)
                self.emit("lw a2, 4(a1)")
                self.check_imm("a2", 0)
        # JAL/JALR: link value, backward and forward targets, LSB of the JALR target cleared,
        # rd == rs1 uses the old rs1.
        self.text.append("# jal / jalr")
        self.emit("li a2, 0")
        self.emit("j 4f")
        self.text.append("3:")
        self.emit("addi a2, a2, 1")
        self.emit("j 5f")
        self.text.append("4:")
        self.emit("jal a0, 3b")       # backward jal, a0 = address of the next instruction
        self.text.append("5:")
        self.check_imm("a2", 1)
        self.emit("jal a1, 6f")        # a1 = address of label 6 (jal falls through there)
        self.text.append("6:")
        self.emit("la a3, 6b")
        self.check("a1", "a3")
        self.emit("la a0, 7f + 1")     # odd target: bit 0 is cleared
        self.emit("li a2, 0")
        self.emit("jalr a1, 0(a0)")
        self.emit("li a2, 99")
        self.text.append("7:")
        self.check_imm("a2", 0)
        self.emit("la a0, 8f - 12")
        self.emit("jalr a0, 12(a0)")   # rd == rs1
        self.text.append("9:")
        self.emit("li a2, 99")
        self.text.append("8:")
        self.emit("la a3, 9b")
        self.check("a0", "a3")
        # FENCE and FENCE.I are no-ops here.
        self.emit("fence")
        self.emit(".word 0x0000100f")  # fence.i
        self.emit("li a2, 7")
        self.check_imm("a2", 7)

    def write(self, path):
        out = ["/* Generated by tests/core/gen_isa.py: do not edit. */",
               "  .section .text.isa, \"ax\"",
               "  .globl isa_run",
               "  .globl isa_ncases",
               "isa_run:",
               "  addi sp, sp, -16",
               "  sw ra, 0(sp)",
               "  sw s0, 4(sp)",
               "  sw s1, 8(sp)",
               "  mv s0, a0          # log pointer",
               "  li s1, 0           # cases executed"]
        out += self.text
        out += ["  mv a0, s1",
                "  lw ra, 0(sp)",
                "  lw s0, 4(sp)",
                "  lw s1, 8(sp)",
                "  addi sp, sp, 16",
                "  ret",
                "",
                "# isa_check: a4 = case id, a5 = got, a6 = expected; returns through t6.",
                "# log layout: word 0 = failures, then up to 32 (id, got, expected) triples.",
                "isa_check:",
                "  addi s1, s1, 1",
                "  beq a5, a6, 1f",
                "  lw t3, 0(s0)",
                "  addi t3, t3, 1",
                "  sw t3, 0(s0)",
                "  li t4, 32",
                "  bgtu t3, t4, 1f",
                "  slli t4, t3, 3     # 12 * failures, without relying on MUL",
                "  slli t3, t3, 2",
                "  add t4, t4, t3",
                "  add t4, t4, s0",
                "  sw a4, -8(t4)",
                "  sw a5, -4(t4)",
                "  sw a6, 0(t4)",
                "1:",
                "  jr t6",
                "",
                "  .section .data.isa, \"aw\"",
                "  .balign 4",
                f"isa_ncases: .word {self.ncases}"]
        out += self.data
        with open(path, "w") as f:
            f.write("\n".join(out) + "\n")


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("rr", "rest"):
        sys.exit("usage: gen_isa.py rr|rest OUT.S")
    g = Gen()
    g.build(sys.argv[1])
    g.write(sys.argv[2])


if __name__ == "__main__":
    main()
