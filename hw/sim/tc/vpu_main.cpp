// Verilator harness for the VPU (tsl_vpu_sim): VPU_VEC and VPU_EPI instructions run on the RTL and
// on the golden model (libtessel_model), VMEM and ACC compared byte for byte.
//   vpu_sim [runs] [insns_per_run]      env: SEED=s (replay), TRACE=1 (FST to TRACE_FILE, default
//                                       vpu.fst; trace build only)
// Run 0 is directed: every op x every legal dtype combination x every SRC2 mode, both classes (EPI:
// every dtype pair x every combination of BIAS, RELU and FSCALE).
// The other runs are random: ops, dtypes, modes, ROWS, operands in VMEM and ACC, in place and
// overlapping, REQUANT with random SCALE/SHIFT/ZERO_POINT, on memories full of edge values, with
// random idle cycles before each instruction and random refused grants on both memory ports.
// Every instruction is pushed to the model first; only those it accepts (TSLM_OK) reach the RTL.
// After each instruction the lines of its destination are compared; after each run, both memories.
// Prints "vpu_nN: P passed, F failed"; a failure prints the seed, the instruction and the first
// differing address.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "Vtsl_vpu_sim.h"
#include "verilated.h"
#include "../common/tsl_rng.h"
#if VM_TRACE
#include "verilated_fst_c.h"
#endif

extern "C" {
#include "tsl_insn.h"
#include "tslm.h"
}

#ifndef VPU_N
#error "VPU_N must be defined to the lane count the model was Verilated with"
#endif
static const unsigned N = VPU_N;
#ifndef VPU_BF16
#define VPU_BF16 1   // 0: the RTL was built with EnableBf16 = 0 (integer class only)
#endif
static const uint32_t VMEM_BYTES = 65536;   // must match tsl_vpu_sim's VmemBytes
static const uint32_t ACC_BYTES = 16384;    // must match tsl_vpu_sim's AccBytes
static const uint32_t HBM_BYTES = 65536;
static const uint32_t ACC_BASE = TSL_LOCAL_ACC_BASE;
static const unsigned VLINE = 2 * N, ALINE = 4 * N;   // line bytes

// ---- wide-signal helpers (QData up to 64 bits, VlWide above) --------------------------------------
static void put_bytes(uint64_t &sig, const uint8_t *b, unsigned n) {
    sig = 0;
    for (unsigned i = 0; i < n && i < 8; i++) sig |= (uint64_t)b[i] << (8 * i);
}
template <std::size_t W> static void put_bytes(VlWide<W> &sig, const uint8_t *b, unsigned n) {
    for (std::size_t w = 0; w < W; w++) {
        uint32_t v = 0;
        for (unsigned i = 0; i < 4; i++)
            if (4 * w + i < n) v |= (uint32_t)b[4 * w + i] << (8 * i);
        sig[w] = v;
    }
}
static void get_bytes(uint64_t sig, uint8_t *b, unsigned n) {
    for (unsigned i = 0; i < n && i < 8; i++) b[i] = (uint8_t)(sig >> (8 * i));
}
template <std::size_t W> static void get_bytes(const VlWide<W> &sig, uint8_t *b, unsigned n) {
    for (unsigned i = 0; i < n; i++) b[i] = (uint8_t)(sig[i / 4] >> (8 * (i % 4)));
}

// ---- memory contents full of edge values ----------------------------------------------------------
static uint16_t edge_bf16(TslRng &r) {
    static const uint16_t E[] = {0x0000, 0x8000, 0x0001, 0x807F, 0x0080, 0x8080, 0x3F80, 0xBF80,
                                 0x7F7F, 0xFF7F, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7F81, 0xFFFF,
                                 0x3F81, 0x4000, 0x7F00, 0x0100};
    uint16_t s = (uint16_t)(r.below(2) << 15);
    switch (r.below(4)) {
    case 0: return E[r.below(sizeof E / sizeof E[0])];
    case 1: return (uint16_t)(s | ((118 + r.below(20)) << 7) | r.below(128));   // moderate
    default: return (uint16_t)r.next();
    }
}

static uint32_t edge_word(TslRng &r) {
    uint32_t s = r.below(2) << 31;
    switch (r.below(16)) {
    case 0: return s;                                                     // +-0
    case 1: return s | (1 + r.below(0x7FFFFF));                          // subnormal
    case 2: return s | 0x7F800000u;                                      // +-inf
    case 3: {                                                             // NaNs
        static const uint32_t nan[] = {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFFFFFFFFu, 0x7FA00000u};
        return r.chance(0.5) ? nan[r.below(5)] : (s | 0x7F800000u | (1 + r.below(0x7FFFFF)));
    }
    case 4: {                                                             // integer edges
        static const uint32_t ints[] = {0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu, 1, 127, 128, 0xFFFFFF80u,
                                        0xFFFFFF7Fu, 255, 0x40000000u, 0xC0000000u};
        return ints[r.below(11)];
    }
    case 5: return (uint32_t)((int32_t)r.below(601) - 300);              // small ints
    case 6:                                                               // bf16 rounding ties / near
        return s | ((100 + r.below(50)) << 23) | (r.below(128) << 16) |
               (r.chance(0.5) ? 0x8000u : r.chance(0.5) ? 0x7FFFu : 0x8001u);
    case 7: return s | ((1 + r.below(3)) << 23) | r.below(1u << 23);     // near FTZ
    case 8: return s | ((250 + r.below(5)) << 23) | r.below(1u << 23);   // near overflow
    case 9: return s | 0x7F7FFFFFu;                                       // max finite
    case 10: return ((uint32_t)edge_bf16(r) << 16) | edge_bf16(r);      // two bf16 values
    case 11: {                                                            // four int8 values
        static const uint8_t b[] = {0x00, 0x7F, 0x80, 0xFF, 0x01, 0x81};
        uint32_t v = 0;
        for (int i = 0; i < 4; i++) v |= (uint32_t)(r.chance(0.5) ? b[r.below(6)] : (uint8_t)r.next()) << (8 * i);
        return v;
    }
    case 12: return (uint32_t)r.next();
    case 13: {                                                            // EXP's thresholds
        // e^x overflows above 0x42B17217 (88.72), is below 2^-126 under 0xC2AEAC50 (-87.34);
        // |x| = 128 (0x43000000) is where the range reduction gives way to the clamp.
        static const uint32_t t[] = {0x42B17217u, 0xC2AEAC50u, 0x43000000u, 0xC3000000u};
        return t[r.below(4)] + r.below(65) - 32;
    }
    default: return s | ((110 + r.below(34)) << 23) | r.below(1u << 23); // moderate fp32
    }
}

static void fill(TslRng &r, uint8_t *p, uint32_t bytes) {
    for (uint32_t i = 0; i < bytes; i += 4) {
        uint32_t v = edge_word(r);
        memcpy(p + i, &v, 4);
    }
}

// ---- instructions ---------------------------------------------------------------------------------
static const char *op_name(uint32_t op) {
    const tsl_op_info_t *o = tsl_op_info(TSL_UNIT_VPU, op);
    return o ? o->name : "?";
}
static const char *dt_name(uint32_t d) {
    static const char *names[] = {"INT8", "BF16", "INT32", "FP32"};
    return names[d & 3];
}
// `count` values of `dtype` at local `addr` of the model: moderate magnitudes (2^-7 .. 2^5), 1 in
// 32 of them -inf, as a softmax's inputs usually are.
static void moderate(TslRng &r, tslm_t *m, uint32_t addr, uint32_t dtype, uint32_t count) {
    uint8_t *p = addr >= ACC_BASE ? tslm_acc(m) + (addr - ACC_BASE) : tslm_vmem(m) + addr;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t v = r.below(32) == 0 ? 0xFF800000u : r.below(2) << 31 | (120 + r.below(13)) << 23 | r.below(1u << 23);
        if (tsl_dtype_bytes(dtype) == 2) {
            uint16_t h = (uint16_t)(v >> 16);
            memcpy(p + 2 * i, &h, 2);
        } else {
            memcpy(p + 4 * i, &v, 4);
        }
    }
}

static bool is_unary(uint32_t op) {
    return tsl_ops_has(TSL_OPS_UNARY, TSL_UNIT_VPU, op);
}
static bool float_ok(uint32_t op) {   // the op accepts the float class
    return tsl_ops_has(TSL_OPS_FLOAT, TSL_UNIT_VPU, op);
}
static bool int_ok(uint32_t op) {     // the op accepts the integer class
    return tsl_ops_has(TSL_OPS_INT, TSL_UNIT_VPU, op);
}
// The VPU ops of the full tensor core (hw/spec/tessel.toml [[ops]]), by code; without float
// support (VPU_BF16 = 0), those of the integer class.
static const std::vector<uint32_t> &vpu_ops() {
    static const std::vector<uint32_t> ops = [] {
        static const uint32_t all[] = TSL_VPU_OPS;
        std::vector<uint32_t> v;
        for (uint32_t op : all)
            if (tsl_op_on_core(TSL_CORE_TC, TSL_UNIT_VPU, op) && (int_ok(op) || VPU_BF16)) v.push_back(op);
        return v;
    }();
    return ops;
}

static void print_insn(const uint32_t *w) {
    if (tsl_insn_hdr_decode(w).op == TSL_VPU_OP_EPI) {
        tsl_insn_vpu_epi_t e = tsl_insn_vpu_epi_decode(w);
        printf("  insn EPI%s%s dst=%s@0x%08x src1=%s@0x%08x%s%s%s bias@0x%08x rows=%u bvecs=%u pad=%u scale=0x%08x "
               "shift=%u zp=%d\n", e.row ? " ROW " : "", e.row ? tsl_vpu_row_name(e.row) : "",
               dt_name(e.dst_dtype), e.dst_addr, dt_name(e.src1_dtype), e.src1_addr, e.fscale ? " FSCALE" : "",
               e.bias ? " BIAS" : "", e.relu ? " RELU" : "", e.src2_addr, e.rows, e.bvecs, e.pad, e.scale, e.shift,
               (int32_t)e.zero_point);
        printf("  words:");
        for (int i = 0; i < 8; i++) printf(" %08x", w[i]);
        printf("\n");
        return;
    }
    tsl_insn_vpu_vec_t x = tsl_insn_vpu_vec_decode(w);
    uint32_t op = x.op, mode = x.src2_mode;
    printf("  insn %s%s%s dst=%s@0x%08x src1=%s@0x%08x", op_name(op), op == TSL_VPU_OP_ACT ? " " : "",
           op == TSL_VPU_OP_ACT ? tsl_vpu_act_name(x.act) : "", dt_name(x.dst_dtype), x.dst_addr,
           dt_name(x.src1_dtype), x.src1_addr);
    if (!is_unary(op))
        printf(" src2=%s %s 0x%08x", mode == 0 ? "VEC" : mode == 1 ? "BCAST" : "IMM", dt_name(x.src2_dtype),
               x.src2_addr);
    printf(" rows=%u", x.rows);
    if (op == TSL_VPU_OP_REQUANT)
        printf(" scale=%d shift=%u zp=%d", (int32_t)x.scale, x.shift, (int32_t)x.zero_point);
    printf("\n  words:");
    for (int i = 0; i < 8; i++) printf(" %08x", w[i]);
    printf("\n");
}

// A random aligned placement of `rows` vectors of `dtype` (ACC only for 32-bit types).
static uint32_t place(TslRng &r, uint32_t dtype, uint32_t rows, bool allow_acc) {
    uint32_t vb = N * tsl_dtype_bytes(dtype);
    bool acc = allow_acc && tsl_dtype_bytes(dtype) == 4 && r.chance(0.5);
    uint32_t size = acc ? ACC_BYTES : VMEM_BYTES;
    uint32_t slots = size / vb - rows + 1;   // callers keep rows * vb <= size
    return (acc ? ACC_BASE : 0) + vb * r.below(slots);
}

// REQUANT's SCALE and ZERO_POINT: edge values, random words, small values.
static int32_t rq_scale(TslRng &r) {
    static const int32_t scales[] = {0, 1, -1, INT32_MAX, INT32_MIN, 1 << 30, 12345};
    int32_t scale = r.chance(0.3) ? scales[r.below(7)] : (int32_t)r.next();
    if (r.chance(0.3)) scale >>= r.below(31);
    return scale;
}
static int32_t rq_zp(TslRng &r) {
    static const int32_t zps[] = {0, 1, -1, INT32_MAX, INT32_MIN, -128, 127};
    return r.chance(0.4) ? zps[r.below(7)] : (int32_t)r.next() >> r.below(32);
}

static const uint32_t FSCALES[] = {0x3F800000u, 0xBF800000u, 0x3E000000u, 0x00000000u, 0x80000000u,
                                   0x7F800000u, 0x7FC00000u, 0x00000001u, 0x7F000000u, 0x2F800000u};

// The norms' epsilons and 1/length (ZERO_POINT): typical ones, then edges.
static const uint32_t EPSILONS[] = {0x3727C5ACu, 0x3089705Fu, 0x00000000u, 0x3F800000u, 0x7F800000u, 0x7FC00000u};

// One random (not necessarily legal) EPI with a ROW function (row, or 0 for any): ROWS rows of
// BVECS vectors, mostly apart (an overlap is refused), BF16 or FP32 in and out; a norm's gamma (and
// beta, with BIAS) in FP32; d1_force, dd_force as random_insn's.
static tsl_insn_t random_epi_row(TslRng &r, uint32_t row, int d1_force, int dd_force, bool fscale, bool bias) {
    tsl_insn_vpu_epi_t e{};
    e.row = row ? row : 1 + r.below(3);
    e.src1_dtype = d1_force >= 0 ? (uint32_t)d1_force : r.chance(0.5) ? TSL_DTYPE_BF16 : TSL_DTYPE_FP32;
    e.dst_dtype = dd_force >= 0 ? (uint32_t)dd_force : r.chance(0.5) ? TSL_DTYPE_BF16 : TSL_DTYPE_FP32;
    e.bvecs = r.chance(0.5) ? 1 + r.below(3) : r.chance(0.7) ? 4 + r.below(12) : 16 + r.below(48);
    e.rows = r.chance(0.5) ? 1 + r.below(4) : 5 + r.below(20);
    while (e.rows * e.bvecs * 4 * N > ACC_BYTES / 2) {
        if (e.rows > 1) e.rows /= 2;
        else e.bvecs /= 2;
    }
    e.pad = r.chance(0.5) ? r.below(N) : 0;
    e.blocked = r.chance(0.3);
    uint32_t vecs = e.rows * e.bvecs;
    e.src1_addr = place(r, e.src1_dtype, vecs, true);
    e.dst_addr = place(r, e.dst_dtype, vecs, true);
    e.fscale = fscale;
    if (e.row == TSL_VPU_ROW_SOFTMAX) {
        if (fscale) e.scale = r.chance(0.7) ? FSCALES[r.below(10)] : edge_word(r);
        if (r.chance(0.3))   // causal: row i keeps its elements below ZERO_POINT + i
            e.zero_point = r.chance(0.9) ? 1 + r.below(e.bvecs * N + 2) : edge_word(r);
    } else {
        e.bias = e.row == TSL_VPU_ROW_LAYERNORM && bias;
        e.scale = r.chance(0.8) ? EPSILONS[r.below(2)] : r.chance(0.7) ? EPSILONS[r.below(6)] : edge_word(r);
        uint32_t len = e.bvecs * N - e.pad;
        float rn = len ? 1.0f / (float)len : 0.0f;
        if (r.chance(0.8)) memcpy(&e.zero_point, &rn, 4);
        else e.zero_point = edge_word(r);
        e.src2_addr = place(r, TSL_DTYPE_FP32, e.bvecs << e.bias, true);
    }
    if (r.chance(0.05)) e.relu = 1;                       // sometimes illegal: the model drops those
    if (r.chance(0.03)) e.pad = N + r.below(4);
    return tsl_insn_vpu_epi_encode(e);
}

// One random (not necessarily legal) EPI (format VPU_EPI). flags_force: bit 0 BIAS, 1 RELU, 2 FSCALE,
// from bit 3 a ROW function (then BIAS and FSCALE alone of the others, and d1_force the source's dtype).
static tsl_insn_t random_epi(TslRng &r, int cls_force, int d1_force, int dd_force, int flags_force) {
    if (flags_force >= 8 || (flags_force < 0 && cls_force != 0 && VPU_BF16 && r.chance(0.2)))
        return random_epi_row(r, flags_force >= 8 ? (uint32_t)flags_force >> 3 : 0, flags_force >= 8 ? d1_force : -1,
                              dd_force, flags_force >= 0 ? (flags_force & 4) != 0 : r.chance(0.1),
                              flags_force >= 0 ? (flags_force & 1) != 0 : r.chance(0.5));
    uint32_t cls = cls_force >= 0 ? (uint32_t)cls_force : !VPU_BF16 ? 0 : r.below(2);
    uint32_t small = cls ? TSL_DTYPE_BF16 : TSL_DTYPE_INT8, wide = cls ? TSL_DTYPE_FP32 : TSL_DTYPE_INT32;
    uint32_t dd = dd_force >= 0 ? (uint32_t)dd_force : r.chance(0.5) ? small : wide;
    uint32_t flags = flags_force >= 0 ? (uint32_t)flags_force : r.below(8);
    if (!cls && flags_force < 0 && r.chance(0.9)) flags &= 3;   // FSCALE on integers: mostly legal
    uint32_t rows = r.chance(0.6) ? 1 + r.below(4) : r.chance(0.75) ? 5 + r.below(28) : 33 + r.below(224);
    if (rows * 4 * N > ACC_BYTES) rows = ACC_BYTES / (4 * N);
    tsl_insn_vpu_epi_t e{};
    e.src1_dtype = wide;
    e.dst_dtype = dd;
    e.bias = flags & 1;
    e.relu = (flags >> 1) & 1;
    e.fscale = (flags >> 2) & 1;
    e.rows = rows;
    e.src1_addr = place(r, wide, rows, true);
    e.dst_addr = place(r, dd, rows, true);
    e.bvecs = e.bias ? (r.chance(0.5) ? 1 : 1 + r.below(4)) : 0;
    e.src2_addr = e.bias ? place(r, wide, e.bvecs, true) : 0;
    // Overlaps: in place, shifted by a row, the bias row inside src1 or inside what dst overwrites.
    uint32_t vbd = N * tsl_dtype_bytes(dd);
    switch (r.below(8)) {
    case 0: case 1: e.dst_addr = e.src1_addr; break;
    case 2: e.dst_addr = e.src1_addr + vbd; break;
    case 3: if (e.src1_addr >= vbd) e.dst_addr = e.src1_addr - vbd; break;
    case 4: if (e.bias) e.src2_addr = e.src1_addr + 4 * N * r.below(rows); break;
    case 5: if (e.bias) e.src2_addr = e.dst_addr + vbd * r.below(rows); break;
    default: break;
    }
    if (e.fscale) e.scale = r.chance(0.5) ? FSCALES[r.below(10)] : edge_word(r);
    if (dd == TSL_DTYPE_INT8) {
        e.scale = (uint32_t)rq_scale(r);
        e.shift = r.below(63);
        e.zero_point = (uint32_t)rq_zp(r);
    }
    if (r.chance(0.03)) e.scale = (uint32_t)r.next();   // sometimes illegal: the model drops those
    if (r.chance(0.03)) e.shift = r.below(64);
    return tsl_insn_vpu_epi_encode(e);
}

// One random (not necessarily legal) VPU instruction; the model filters out the illegal ones.
// For EPI, mode_force gives its flags (random_epi).
static tsl_insn_t random_insn(TslRng &r, int op_force, int cls_force, int d1_force, int dd_force, int d2_force,
                              int mode_force) {
    const std::vector<uint32_t> &ops = vpu_ops();
    uint32_t op = op_force >= 0 ? (uint32_t)op_force : ops[r.below((uint32_t)ops.size())];
    if (op == TSL_VPU_OP_EPI) return random_epi(r, cls_force, d1_force, dd_force, mode_force);
    uint32_t cls = cls_force >= 0 ? (uint32_t)cls_force : !int_ok(op) ? 1 : (!float_ok(op) || !VPU_BF16) ? 0 : r.below(2);
    uint32_t small = cls ? TSL_DTYPE_BF16 : TSL_DTYPE_INT8, wide = cls ? TSL_DTYPE_FP32 : TSL_DTYPE_INT32;
    uint32_t d1 = d1_force >= 0 ? (uint32_t)d1_force : r.chance(0.5) ? small : wide;
    uint32_t dd = dd_force >= 0 ? (uint32_t)dd_force : r.chance(0.5) ? small : wide;
    bool unary = is_unary(op);
    uint32_t mode = unary ? 0 : mode_force >= 0 ? (uint32_t)mode_force : r.below(3);
    uint32_t d2 = unary ? 0 : mode == TSL_SRC2_IMM ? wide : d2_force >= 0 ? (uint32_t)d2_force : r.chance(0.5) ? small : wide;

    // ROWS: mostly short, sometimes long; every operand must fit its memory.
    uint32_t rows = r.chance(0.6) ? 1 + r.below(4) : r.chance(0.75) ? 5 + r.below(28) : 33 + r.below(224);
    uint32_t maxb = 4 * N;   // the largest vector, so a 32-bit operand fits ACC
    if (rows * maxb > ACC_BYTES) rows = ACC_BYTES / maxb;
    uint32_t s1 = place(r, d1, rows, true);
    uint32_t dst = place(r, dd, rows, true);
    uint32_t s2 = 0;
    if (!unary && mode == TSL_SRC2_IMM) {
        // Immediate: edge values (their class is the instruction's).
        s2 = edge_word(r);
    } else if (!unary) {
        s2 = place(r, d2, mode == TSL_SRC2_BCAST ? 1 : rows, true);
    }
    // Overlaps: in place, shifted by 1 to 6 rows (across a function's rows in flight), src2 = src1,
    // and a broadcast row that dst overwrites.
    uint32_t vbd = N * tsl_dtype_bytes(dd), sh = vbd * (1 + r.below(6));
    switch (r.below(8)) {
    case 0: case 1: dst = s1; break;
    case 2: dst = s1 + sh; break;
    case 3: if (s1 >= sh) dst = s1 - sh; break;
    case 4: if (!unary && mode != TSL_SRC2_IMM) s2 = s1; break;
    case 5: if (!unary && mode == TSL_SRC2_BCAST) s2 = dst + vbd * r.below(rows); break;
    case 6: if (!unary && mode == TSL_SRC2_VEC) dst = s2; break;
    default: break;
    }
    tsl_insn_t i = tsl_insn_vpu_vec_encode(tsl_insn_vpu_vec_t{
            .op = op, .dst_dtype = dd, .src1_dtype = d1, .src2_dtype = d2, .src2_mode = mode,
            .act = op == TSL_VPU_OP_ACT ? r.below(TSL_VPU_ACT_LIMIT) : 0, .dst_addr = dst, .src1_addr = s1,
            .src2_addr = s2, .rows = rows});
    if (op == TSL_VPU_OP_REQUANT) {
        int32_t scale = rq_scale(r), zp = rq_zp(r);
        i = tsl_insn_vpu_vec_encode(tsl_insn_vpu_vec_t{
                .op = TSL_VPU_OP_REQUANT, .dst_dtype = dd, .src1_dtype = d1, .dst_addr = dst, .src1_addr = s1,
                .rows = rows, .scale = (uint32_t)scale, .shift = r.below(63), .zero_point = (uint32_t)zp});
    }
    return i;
}

// ---- simulator ----------------------------------------------------------------------------------
struct Sim {
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<Vtsl_vpu_sim> top;
#if VM_TRACE
    std::unique_ptr<VerilatedFstC> tfp;
#endif
    uint64_t cycle = 0;
    explicit Sim(bool trace) : ctx(new VerilatedContext) {
        top.reset(new Vtsl_vpu_sim(ctx.get()));
#if VM_TRACE
        if (trace) {
            ctx->traceEverOn(true);
            tfp.reset(new VerilatedFstC);
            top->trace(tfp.get(), 99);
            const char *path = getenv("TRACE_FILE") ? getenv("TRACE_FILE") : "vpu.fst";
            tfp->open(path);
            fprintf(stderr, "trace: %s\n", path);
        }
#else
        if (trace) fprintf(stderr, "TRACE=1 needs the trace build: make vpu-trace VPU_N=%u\n", N);
#endif
    }
    ~Sim() {
        top->final();
#if VM_TRACE
        if (tfp) tfp->close();
#endif
    }
    void tick() {
        ctx->timeInc(1);
        top->clk_i = 1;
        top->eval();
#if VM_TRACE
        if (tfp) tfp->dump(ctx->time());
#endif
        ctx->timeInc(1);
        top->clk_i = 0;
        top->eval();
#if VM_TRACE
        if (tfp) tfp->dump(ctx->time());
#endif
        cycle++;
    }
    void reset() {
        top->clk_i = 0;
        top->rst_ni = 0;
        top->ex_valid_i = 0;
        top->gnt_deny_i = 0;
        top->dbg_vmem_we_i = top->dbg_vmem_re_i = 0;
        top->dbg_acc_we_i = top->dbg_acc_re_i = 0;
        top->eval();
        tick();
        tick();
        top->rst_ni = 1;
        tick();
    }
    void load(const uint8_t *vm, const uint8_t *acc) {
        for (uint32_t l = 0; l < VMEM_BYTES / VLINE; l++) {
            top->dbg_vmem_we_i = 1;
            top->dbg_vmem_addr_i = l;
            put_bytes(top->dbg_vmem_wdata_i, vm + l * VLINE, VLINE);
            if (l < ACC_BYTES / ALINE) {
                top->dbg_acc_we_i = 1;
                top->dbg_acc_addr_i = l;
                put_bytes(top->dbg_acc_wdata_i, acc + l * ALINE, ALINE);
            } else {
                top->dbg_acc_we_i = 0;
            }
            tick();
        }
        top->dbg_vmem_we_i = top->dbg_acc_we_i = 0;
    }
    // Read lines [first, first+count) of VMEM (acc = false) or ACC into `out`.
    void read_lines(bool acc, uint32_t first, uint32_t count, uint8_t *out) {
        for (uint32_t i = 0; i < count; i++) {
            if (acc) {
                top->dbg_acc_re_i = 1;
                top->dbg_acc_addr_i = first + i;
            } else {
                top->dbg_vmem_re_i = 1;
                top->dbg_vmem_addr_i = first + i;
            }
            tick();
            if (acc)
                get_bytes(top->dbg_acc_rdata_o, out + i * ALINE, ALINE);
            else
                get_bytes(top->dbg_vmem_rdata_o, out + i * VLINE, VLINE);
        }
        top->dbg_acc_re_i = top->dbg_vmem_re_i = 0;
    }
};

// ---- checks -------------------------------------------------------------------------------------
struct Stats {
    uint64_t insns = 0, rows = 0, cycles = 0;            // all instructions
    // No refused grants: unary, binary, reduce, EPI, EPI with FSCALE, EXP, RECIP, RSQRT, ACT GELU, ACT SILU,
    // EPI ROW SOFTMAX, LAYERNORM, RMSNORM (their vectors).
    uint64_t clean_rows[13] = {}, clean_cycles[13] = {};
};

static uint64_t g_seed;

// An EPI with a ROW function.
static bool is_row(const tsl_insn_t &i) {
    return tsl_insn_hdr_decode(i.w).op == TSL_VPU_OP_EPI && tsl_insn_vpu_epi_decode(i.w).row;
}

// The vectors an instruction writes: ROWS, or for a ROW function ROWS rows of BVECS.
static uint32_t vectors(const tsl_insn_t &i) {
    tsl_insn_vpu_epi_t e = tsl_insn_vpu_epi_decode(i.w);
    return is_row(i) ? e.rows * e.bvecs : e.rows;
}

// Compare RTL and model bytes of one memory range; report the first difference.
static bool compare(const char *what, uint32_t base_addr, const uint8_t *exp, const uint8_t *got, uint32_t n,
                    const std::vector<tsl_insn_t> *hist) {
    for (uint32_t i = 0; i < n; i++) {
        if (exp[i] == got[i]) continue;
        uint32_t a = base_addr + i;
        printf("FAIL seed=0x%016" PRIx64 ": %s differs at local address 0x%08x: expected 0x%02x got 0x%02x\n",
               g_seed, what, a, exp[i], got[i]);
        uint32_t w0 = i & ~3u;
        uint32_t e32, g32;
        memcpy(&e32, exp + w0, 4);
        memcpy(&g32, got + w0, 4);
        printf("  word at 0x%08x: expected 0x%08x got 0x%08x (lane %u of its line)\n", base_addr + w0, e32, g32,
               (i % (a >= ACC_BASE ? ALINE : VLINE)) / 4);
        if (hist) {
            // Which instruction of the run last wrote this byte?
            for (size_t k = hist->size(); k-- > 0;) {
                tsl_insn_vpu_vec_t x = tsl_insn_vpu_vec_decode((*hist)[k].w);
                uint32_t d = x.dst_addr, bytes = vectors((*hist)[k]) * N * tsl_dtype_bytes(x.dst_dtype);
                if (a >= d && a < d + bytes) {
                    printf("  last written by instruction %zu of the run:\n", k);
                    print_insn((*hist)[k].w);
                    return false;
                }
            }
            printf("  no instruction of this run writes this byte (a stray write)\n");
        }
        return false;
    }
    return true;
}

// Run one instruction on the RTL; false on a protocol error or timeout.
static bool run_rtl(Sim &s, TslRng &r, const tsl_insn_t &insn, double deny, Stats &st) {
    tsl_insn_vpu_vec_t x = tsl_insn_vpu_vec_decode(insn.w);
    uint32_t rows = vectors(insn), op = x.op;
    bool fscale = op == TSL_VPU_OP_EPI && tsl_insn_vpu_epi_decode(insn.w).fscale;
    for (uint32_t i = r.below(3); i > 0; i--) s.tick();   // idle cycles
    put_bytes(s.top->ex_insn_i, (const uint8_t *)insn.w, 32);
    s.top->ex_valid_i = 1;
    uint64_t timeout = 1000 + (uint64_t)rows * 400;
    uint64_t start = s.cycle, denied = 0;
    bool accepted = false;
    while (!accepted) {
        s.top->gnt_deny_i = 0;
        s.top->eval();
        accepted = s.top->ex_ready_o;
        s.tick();
        if (s.cycle - start > 100) {
            printf("FAIL seed=0x%016" PRIx64 ": ex_ready_o stayed low for 100 cycles\n", g_seed);
            return false;
        }
    }
    s.top->ex_valid_i = 0;
    uint64_t t0 = s.cycle;
    while (true) {
        uint32_t d = 0;
        if (deny > 0) d = (r.chance(deny) ? 1u : 0u) | (r.chance(deny) ? 2u : 0u);
        s.top->gnt_deny_i = d;
        s.top->eval();
        if (s.top->ex_ready_o) {
            printf("FAIL seed=0x%016" PRIx64 ": ex_ready_o high while an instruction runs\n", g_seed);
            return false;
        }
        if (d) denied++;
        s.tick();
        if (s.top->done_o) break;
        if (s.cycle - t0 > timeout) {
            printf("FAIL seed=0x%016" PRIx64 ": no done_o after %" PRIu64 " cycles\n", g_seed, timeout);
            return false;
        }
    }
    s.top->gnt_deny_i = 0;
    uint64_t cyc = s.cycle - t0;
    s.tick();
    if (s.top->done_o || s.top->busy_o) {
        printf("FAIL seed=0x%016" PRIx64 ": done_o longer than one cycle or busy_o after done_o\n", g_seed);
        return false;
    }
    st.insns++;
    st.rows += rows;
    st.cycles += cyc;
    if (deny == 0) {
        unsigned k = is_row(insn) ? 9 + tsl_insn_vpu_epi_decode(insn.w).row : op == TSL_VPU_OP_EPI ? (fscale ? 4 : 3)
                   : (op == TSL_VPU_OP_RSUM || op == TSL_VPU_OP_RMAX) ? 2
                   : op == TSL_VPU_OP_EXP ? 5 : op == TSL_VPU_OP_RECIP ? 6 : op == TSL_VPU_OP_RSQRT ? 7
                   : op == TSL_VPU_OP_ACT ? 8 + x.act
                   : is_unary(op) ? 0 : 1;
        st.clean_rows[k] += rows;
        st.clean_cycles[k] += cyc;
    }
    return true;
}

// Push to the model; on rejection clear the model's error and report false.
static bool model_accepts(tslm_t *m, const tsl_insn_t &i) {
    if (tslm_push(m, i.w) == TSLM_OK) {
        tslm_run(m);
        return true;
    }
    tslm_reg_write(m, TSL_TC_CTRL_OFFSET, 1u << TSL_TC_CTRL_RESET_SHIFT);
    return false;
}

// Run a list of instructions (already accepted by the model, in order) and compare.
static bool run_and_check(Sim &s, tslm_t *m, TslRng &r, const tsl_insn_t &insn, double deny, Stats &st,
                          unsigned run, size_t idx) {
    if (!run_rtl(s, r, insn, deny, st)) {
        printf("  run %u instruction %zu\n", run, idx);
        print_insn(insn.w);
        return false;
    }
    // Lines covering the destination.
    tsl_insn_vpu_vec_t x = tsl_insn_vpu_vec_decode(insn.w);
    uint32_t d = x.dst_addr, bytes = vectors(insn) * N * tsl_dtype_bytes(x.dst_dtype);
    bool acc = d >= ACC_BASE;
    uint32_t off = acc ? d - ACC_BASE : d, lb = acc ? ALINE : VLINE;
    uint32_t first = off / lb, last = (off + bytes - 1) / lb;
    std::vector<uint8_t> got((last - first + 1) * lb);
    s.read_lines(acc, first, last - first + 1, got.data());
    const uint8_t *exp = (acc ? tslm_acc(m) : tslm_vmem(m)) + first * lb;
    char what[64];
    snprintf(what, sizeof what, "%s (after the instruction)", acc ? "ACC" : "VMEM");
    if (!compare(what, (acc ? ACC_BASE : 0) + first * lb, exp, got.data(), (uint32_t)got.size(), nullptr)) {
        printf("  run %u instruction %zu\n", run, idx);
        print_insn(insn.w);
        return false;
    }
    return true;
}

static bool full_compare(Sim &s, tslm_t *m, const std::vector<tsl_insn_t> &hist, unsigned run) {
    std::vector<uint8_t> vm(VMEM_BYTES), acc(ACC_BYTES);
    s.read_lines(false, 0, VMEM_BYTES / VLINE, vm.data());
    s.read_lines(true, 0, ACC_BYTES / ALINE, acc.data());
    bool ok = compare("VMEM (end of run)", 0, tslm_vmem(m), vm.data(), VMEM_BYTES, &hist) &&
              compare("ACC (end of run)", ACC_BASE, tslm_acc(m), acc.data(), ACC_BYTES, &hist);
    if (!ok) printf("  run %u\n", run);
    return ok;
}

int main(int argc, char **argv) {
    unsigned runs = argc > 1 ? (unsigned)strtoul(argv[1], nullptr, 0) : 6;
    unsigned per_run = argc > 2 ? (unsigned)strtoul(argv[2], nullptr, 0) : 60;
    const char *se = getenv("SEED");
    g_seed = se ? strtoull(se, nullptr, 0) : (uint64_t)time(nullptr) * 2654435761u;
    const char *tr = getenv("TRACE");
    char name[32];
    snprintf(name, sizeof name, "vpu_n%u%s", N, VPU_BF16 ? "" : "_int");
    printf("%s: seed=0x%016" PRIx64 " (SEED= replays), %u runs of %u instructions after a directed run%s\n",
           name, g_seed, runs, per_run, VPU_BF16 ? "" : " (integer class only: EnableBf16 = 0)");
    printf("%s: ops (hw/spec/tessel.toml):", name);
    for (uint32_t op : vpu_ops()) printf(" %s", op_name(op));
    printf("\n");
    TslRng r{g_seed};

    tslm_cfg_t cfg = tslm_cfg_default();
    cfg.n = N;
    cfg.vmem_bytes = VMEM_BYTES;
    cfg.acc_bytes = ACC_BYTES;
    cfg.hbm_bytes = HBM_BYTES;
    if (!VPU_BF16) cfg.features = 1u << TSL_TC_CFG_FEATURES_INT8_SHIFT;
    tslm_t model;
    if (tslm_init(&model, &cfg) != TSLM_OK) {
        printf("%s: tslm_init failed\n%s: 0 passed, 1 failed\n", name, name);
        return 1;
    }
    Sim sim(tr && *tr == '1');
    sim.reset();
    Stats st;
    unsigned passed = 0, failed = 0, rejected = 0;

    for (unsigned run = 0; run <= runs && !failed; run++) {
        fill(r, tslm_vmem(&model), VMEM_BYTES);
        fill(r, tslm_acc(&model), ACC_BYTES);
        sim.load(tslm_vmem(&model), tslm_acc(&model));
        double deny = run == 0 ? 0.0 : (run % 3 == 0 ? 0.0 : run % 3 == 1 ? 0.25 : 0.6);
        std::vector<tsl_insn_t> hist;
        bool ok = true;
        auto one = [&](const tsl_insn_t &i) {
            hist.push_back(i);
            ok = run_and_check(sim, &model, r, i, deny, st, run, hist.size() - 1);
        };
        // Try up to 200 random placements for one shape; the model decides legality.
        auto gen = [&](int op, int cls, int d1, int dd, int d2, int mode) -> bool {
            for (int t = 0; t < 200; t++) {
                tsl_insn_t i = random_insn(r, op, cls, d1, dd, d2, mode);
                if (run == 0) TSL_SET(i.w, TSL_INSN_VPU_VEC_ROWS, 1 + r.below(3));
                if (is_row(i) && r.chance(0.6)) {   // rows of moderate values, some -inf, in both
                    tsl_insn_vpu_epi_t e = tsl_insn_vpu_epi_decode(i.w);
                    moderate(r, &model, e.src1_addr, e.src1_dtype, e.rows * e.bvecs * N);
                    if (e.row != TSL_VPU_ROW_SOFTMAX)   // the norms' gamma and beta
                        moderate(r, &model, e.src2_addr, TSL_DTYPE_FP32, (e.bvecs << e.bias) * N);
                    sim.load(tslm_vmem(&model), tslm_acc(&model));
                }
                if (model_accepts(&model, i)) {
                    one(i);
                    return true;
                }
                rejected++;
            }
            printf("FAIL seed=0x%016" PRIx64 ": no legal placement found for op %s\n", g_seed, op_name((uint32_t)op));
            ok = false;
            return false;
        };
        if (run == 0) {
            // Directed: every op, class, dtype combination and SRC2 mode at least once.
            for (uint32_t uop : vpu_ops()) {
                int op = (int)uop;
                for (int cls = 0; cls < (VPU_BF16 ? 2 : 1) && ok; cls++) {
                    if (cls ? !float_ok(uop) : !int_ok(uop)) continue;
                    int small = cls ? TSL_DTYPE_BF16 : TSL_DTYPE_INT8, wide = cls ? TSL_DTYPE_FP32 : TSL_DTYPE_INT32;
                    if (uop == TSL_VPU_OP_EPI) {   // every dst type and flag combination; ROW's dtypes
                        for (int dd : {small, wide})
                            for (int flags = 0; flags < (cls ? 8 : 4); flags++)
                                if (ok) gen(op, cls, wide, dd, -1, flags);
                        for (int d1 : {small, wide})
                            for (int dd : {small, wide})
                                for (int flags : {8, 12, 16, 17, 24})
                                    if (ok && cls) gen(op, cls, d1, dd, -1, flags);
                        continue;
                    }
                    for (int d1 : {small, wide})
                        for (int dd : {small, wide}) {
                            if (is_unary((uint32_t)op)) {
                                if (ok) gen(op, cls, d1, dd, -1, -1);
                                continue;
                            }
                            for (int mode = 0; mode < 3; mode++)
                                for (int d2 : {small, wide}) {
                                    if (mode == TSL_SRC2_IMM && d2 == small) continue;
                                    if (ok) gen(op, cls, d1, dd, d2, mode);
                                }
                        }
                }
            }
        } else {
            for (unsigned k = 0; k < per_run && ok; k++) gen(-1, -1, -1, -1, -1, -1);
        }
        if (ok) ok = full_compare(sim, &model, hist, run);
        if (ok) passed++; else failed++;
    }
    // EPI throughput in the GEMM epilogue's placement: 64 rows from ACC, the bias row in VMEM, dst
    // in VMEM (INT8 / BF16) or ACC (INT32 / FP32), no refused grants; checked like the others.
    std::vector<std::pair<std::string, double>> epi_cpr;
    for (unsigned k = 0; k < (VPU_BF16 ? 4u : 2u) && !failed; k++) {
        bool fl = k >= 2, narrow = k % 2 == 0;
        tsl_insn_vpu_epi_t e{};
        e.src1_dtype = fl ? TSL_DTYPE_FP32 : TSL_DTYPE_INT32;
        e.dst_dtype = narrow ? (fl ? TSL_DTYPE_BF16 : TSL_DTYPE_INT8) : e.src1_dtype;
        e.bias = e.relu = 1;
        e.bvecs = 1;
        e.fscale = fl;
        e.scale = fl ? 0x3E000000u : narrow ? 0x4000u : 0;
        e.shift = narrow && !fl ? 16 : 0;
        e.rows = 64;
        e.src1_addr = ACC_BASE;
        e.src2_addr = 0x8000;
        e.dst_addr = narrow ? 0 : ACC_BASE + 64 * 4 * N;
        tsl_insn_t i = tsl_insn_vpu_epi_encode(e);
        Stats one;
        if (!model_accepts(&model, i)) {
            printf("FAIL seed=0x%016" PRIx64 ": the model refused the timing EPI\n", g_seed);
            failed++;
        } else if (run_and_check(sim, &model, r, i, 0.0, one, runs + 1, 0)) {
            char lbl[64];
            snprintf(lbl, sizeof lbl, "%s->%s%s", dt_name(e.src1_dtype), dt_name(e.dst_dtype), fl ? " FSCALE" : "");
            epi_cpr.emplace_back(lbl, (double)one.cycles / e.rows);
            passed++;
        } else {
            failed++;
        }
    }
    tslm_free(&model);
    auto cpr = [&](unsigned k) { return st.clean_rows[k] ? (double)st.clean_cycles[k] / st.clean_rows[k] : 0.0; };
    printf("%s: %" PRIu64 " instructions, %" PRIu64 " rows, %" PRIu64 " cycles (%u illegal candidates "
           "dropped by the model); cycles/row without refused grants: unary %.2f, binary %.2f, RSUM/RMAX %.2f, "
           "EPI %.2f, EPI FSCALE %.2f, EXP %.2f, RECIP %.2f, RSQRT %.2f, GELU %.2f, SILU %.2f, ROW SOFTMAX %.2f, "
           "LAYERNORM %.2f, RMSNORM %.2f\n",
           name, st.insns, st.rows, st.cycles, rejected, cpr(0), cpr(1), cpr(2), cpr(3), cpr(4), cpr(5), cpr(6),
           cpr(7), cpr(8), cpr(9), cpr(10), cpr(11), cpr(12));
    printf("%s: EPI of 64 rows from ACC, bias+relu, cycles/row:", name);
    for (auto &p : epi_cpr) printf(" %s %.2f;", p.first.c_str(), p.second);
    printf("\n");
    printf("%s: %u passed, %u failed\n", name, passed, failed);
    return failed ? 1 : 0;
}
