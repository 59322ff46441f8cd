// The tile sequencer of docs/isa.md section 8 written out plainly from the text (loops with
// divisions, no counters), for seq_main.cpp until hw/model's tslm_seq_check/tslm_seq_expand are
// there to compare with. seq_ref_check: the launch checks (ERR code, *eaddr = ERR_ADDR);
// seq_ref_expand: the instructions in push order.
#ifndef SEQ_REF_H
#define SEQ_REF_H

#include <cstdint>
#include <vector>

extern "C" {
#include "tsl_insn.h"
}

struct SeqCfg {
    uint32_t n, vmem, acc, hbm;
    bool bf16;
};

struct SeqLayout {
    uint64_t a[2], b[2], o[2], bias, end, acc[2];
};

static inline uint64_t seq_al(uint64_t x, uint32_t n) { return (x + 4 * n - 1) / (4 * n) * (4 * n); }

static inline SeqLayout seq_layout(const SeqCfg &c, const tsl_seq_t &d) {
    uint64_t es = tsl_dtype_bytes(d.dtype), ces = tsl_dtype_bytes(d.c_dtype);
    uint64_t sa = (uint64_t)d.mc * d.kc * es, sb = (uint64_t)d.kc * d.nbw * c.n * es;
    uint64_t so = (uint64_t)d.nbw * d.mc * c.n * ces, ncb = (d.n + c.n - 1) / c.n;
    SeqLayout l;
    l.a[0] = d.vmem_addr;
    l.a[1] = seq_al(l.a[0] + sa, c.n);
    l.b[0] = seq_al(l.a[1] + sa, c.n);
    l.b[1] = seq_al(l.b[0] + sb, c.n);
    l.o[0] = seq_al(l.b[1] + sb, c.n);
    l.o[1] = seq_al(l.o[0] + so, c.n);
    l.bias = seq_al(l.o[1] + so, c.n);
    l.end = d.bias ? l.bias + ncb * c.n * 4 : l.o[1] + so;
    l.acc[0] = d.acc_addr;
    l.acc[1] = (uint64_t)d.acc_addr + (uint64_t)d.nbw * d.mc * 4 * c.n;
    return l;
}

static inline uint32_t seq_ref_check(const SeqCfg &c, const uint32_t *w, bool credit_nz, uint32_t *eaddr) {
    static const uint32_t used[16] = {0xFFFFFFFFu, 0x007FFFFFu, ~0u, ~0u, ~0u, ~0u, ~0u, ~0u, ~0u, ~0u,
                                      0x3Fu, ~0u, ~0u, 0xFFu, ~0u, ~0u};
    tsl_seq_t d = tsl_seq_decode(w);
    *eaddr = 0;
    bool rsvd = false;
    for (int i = 0; i < 16; i++) rsvd |= (w[i] & ~used[i]) != 0;
    uint64_t es = tsl_dtype_bytes(d.dtype), ces = tsl_dtype_bytes(d.c_dtype);
    bool fl = d.dtype == TSL_DTYPE_BF16;
    bool int_c = d.c_dtype == TSL_DTYPE_INT32 || d.c_dtype == TSL_DTYPE_INT8;
    bool i8c = d.c_dtype == TSL_DTYPE_INT8;
    uint32_t kp = (d.k + c.n - 1) / c.n * c.n;
    if (rsvd || !d.m || !d.n || !d.k || !d.mc || !d.kc || !d.nbw ||
        !(d.dtype == TSL_DTYPE_INT8 || (d.dtype == TSL_DTYPE_BF16 && c.bf16)) || int_c == fl ||
        (d.fscale && int_c) || (!(i8c || d.fscale) && d.scale) || (!i8c && (d.shift || d.zero_point)) ||
        d.shift > 62 || (!d.bias && d.bias_addr) || d.kc % c.n || d.kc * es > 65535 ||
        d.kc / c.n > 4095 || (uint64_t)d.nbw * c.n * es > 65535 || (d.bias && d.n * 4 > 65535) ||
        (d.k % c.n && d.kc < kp) || credit_nz)
        return TSL_ERR_BAD_FIELD;
    if (d.a_addr + (uint64_t)(d.m - 1) * d.lda + d.k * es > c.hbm) return *eaddr = d.a_addr, TSL_ERR_HBM_RANGE;
    if (d.b_addr + (uint64_t)(d.k - 1) * d.ldb + d.n * es > c.hbm) return *eaddr = d.b_addr, TSL_ERR_HBM_RANGE;
    if (d.c_addr + (uint64_t)(d.m - 1) * d.ldc + d.n * ces > c.hbm) return *eaddr = d.c_addr, TSL_ERR_HBM_RANGE;
    if (d.bias && d.bias_addr + (uint64_t)d.n * 4 > c.hbm) return *eaddr = d.bias_addr, TSL_ERR_HBM_RANGE;
    if (d.vmem_addr % (4 * c.n)) return *eaddr = d.vmem_addr, TSL_ERR_MISALIGNED;
    if (d.acc_addr % (4 * c.n)) return *eaddr = d.acc_addr, TSL_ERR_MISALIGNED;
    SeqLayout l = seq_layout(c, d);
    if (l.end > c.vmem) return *eaddr = d.vmem_addr, TSL_ERR_LOCAL_RANGE;
    if (d.acc_addr < TSL_LOCAL_ACC_BASE ||
        d.acc_addr + 2ull * d.nbw * d.mc * 4 * c.n > (uint64_t)TSL_LOCAL_ACC_BASE + c.acc)
        return *eaddr = d.acc_addr, TSL_ERR_LOCAL_RANGE;
    return TSL_ERR_NONE;
}

static inline std::vector<tsl_insn_t> seq_ref_expand(const SeqCfg &c, const uint32_t *w) {
    const uint32_t D = TSL_TOK(TSL_UNIT_DMA), X = TSL_TOK(TSL_UNIT_MXU), V = TSL_TOK(TSL_UNIT_VPU);
    std::vector<tsl_insn_t> out;
    tsl_seq_t d = tsl_seq_decode(w);
    SeqLayout l = seq_layout(c, d);
    uint32_t n = c.n, es = tsl_dtype_bytes(d.dtype), ces = tsl_dtype_bytes(d.c_dtype);
    uint32_t kp = (d.k + n - 1) / n * n, mb = (d.m + d.mc - 1) / d.mc, ncb = (d.n + n - 1) / n;
    uint32_t npan = (ncb + d.nbw - 1) / d.nbw, nch = (kp + d.kc - 1) / d.kc;
    uint32_t S = mb * npan * nch, T = mb * npan;
    bool pad = d.k % n != 0, dma_first = pad;
    if (pad) {   // 1. zero both A and both B slots
        uint64_t vecs = (l.b[1] + (uint64_t)d.kc * d.nbw * n * es - l.a[0]) / n, addr = l.a[0];
        while (vecs) {
            uint32_t r = vecs > 65535 ? 65535 : (uint32_t)vecs;
            vecs -= r;
            out.push_back(tsl_insn_vpu_vec_encode({.op = TSL_VPU_OP_MUL, .dst_dtype = TSL_DTYPE_INT8,
                .src1_dtype = TSL_DTYPE_INT8, .src2_dtype = TSL_DTYPE_INT32, .src2_mode = TSL_SRC2_IMM,
                .dst_addr = (uint32_t)addr, .src1_addr = (uint32_t)addr, .rows = r,
                .signal = vecs ? 0u : D}));
            addr += (uint64_t)r * n;
        }
    }
    if (d.bias) {   // 2. the bias row
        out.push_back(tsl_insn_dma_xfer_encode({.op = TSL_DMA_OP_LOAD, .hbm_addr = d.bias_addr,
            .local_addr = (uint32_t)l.bias, .rows = 1, .row_bytes = d.n * 4, .wait = dma_first ? V : 0u}));
        dma_first = false;
    }
    auto step_of = [&](uint32_t s, uint32_t &i, uint32_t &p, uint32_t &ch) {
        ch = s % nch; p = s / nch % npan; i = s / nch / npan;
    };
    uint32_t aslot_next = 0, bslot_next = 0;
    std::vector<uint32_t> aslot(S), bslot(S);
    auto loads = [&](uint32_t s) {
        uint32_t i, p, ch, pi = 0, pp = 0, pc = 0;
        step_of(s, i, p, ch);
        if (s) step_of(s - 1, pi, pp, pc);
        bool la = s == 0 || pi != i || pc != ch, lb = s == 0 || pp != p || pc != ch;
        uint32_t mr = d.mc < d.m - i * d.mc ? d.mc : d.m - i * d.mc;
        uint32_t kw = d.kc < kp - ch * d.kc ? d.kc : kp - ch * d.kc;
        uint32_t kv = kw < d.k - ch * d.kc ? kw : d.k - ch * d.kc;
        uint32_t cols = d.nbw * n < d.n - p * d.nbw * n ? d.nbw * n : d.n - p * d.nbw * n;
        aslot[s] = s ? aslot[s - 1] : 0;
        bslot[s] = s ? bslot[s - 1] : 0;
        uint32_t wt = (dma_first ? V : 0u) | (s >= 2 ? X : 0u);
        if (la) {
            aslot[s] = aslot_next;
            aslot_next ^= 1;
            out.push_back(tsl_insn_dma_xfer_encode({.op = TSL_DMA_OP_LOAD,
                .hbm_addr = d.a_addr + i * d.mc * d.lda + ch * d.kc * es, .local_addr = (uint32_t)l.a[aslot[s]],
                .rows = mr, .row_bytes = kv * es, .hbm_stride = d.lda, .local_stride = kw * es,
                .wait = wt, .signal = lb ? 0u : X}));
            wt = 0;
        }
        if (lb) {
            bslot[s] = bslot_next;
            bslot_next ^= 1;
            out.push_back(tsl_insn_dma_xfer_encode({.op = TSL_DMA_OP_LOAD,
                .hbm_addr = d.b_addr + ch * d.kc * d.ldb + p * d.nbw * n * es,
                .local_addr = (uint32_t)l.b[bslot[s]], .rows = kv, .row_bytes = cols * es,
                .hbm_stride = d.ldb, .local_stride = d.nbw * n * es, .wait = wt, .signal = X}));
        }
        dma_first = false;
    };
    loads(0);
    uint32_t wbuf = 0;
    for (uint32_t s = 0; s < S; s++) {
        if (s + 1 < S) loads(s + 1);
        uint32_t i, p, ch;
        step_of(s, i, p, ch);
        uint32_t t = i * npan + p;
        uint32_t mr = d.mc < d.m - i * d.mc ? d.mc : d.m - i * d.mc;
        uint32_t nb = d.nbw < ncb - p * d.nbw ? d.nbw : ncb - p * d.nbw;
        uint32_t kw = d.kc < kp - ch * d.kc ? d.kc : kp - ch * d.kc;
        bool last = ch == nch - 1;
        for (uint32_t j = 0; j < nb; j++) {
            uint32_t kb = kw / n;
            out.push_back(tsl_insn_mxu_matmulk_encode({.dtype = d.dtype, .wbuf = wbuf, .accumulate = ch > 0,
                .act_addr = (uint32_t)l.a[aslot[s]], .act_stride = kw * es,
                .acc_addr = (uint32_t)l.acc[t % 2] + j * d.mc * 4 * n, .acc_stride = 4 * n, .rows = mr,
                .kblocks = kb, .w_addr = (uint32_t)l.b[bslot[s]] + j * n * es, .w_stride = d.nbw * n * es,
                .wait = j == 0 ? (D | (ch == 0 && t >= 2 ? V : 0u)) : 0u,
                .signal = j == nb - 1 ? (D | (last ? V : 0u)) : 0u}));
            wbuf ^= kb & 1;
        }
        if (!last) continue;
        for (uint32_t j = 0; j < nb; j++)
            out.push_back(tsl_insn_vpu_epi_encode({.dst_dtype = d.c_dtype,
                .src1_dtype = d.dtype == TSL_DTYPE_BF16 ? TSL_DTYPE_FP32 : TSL_DTYPE_INT32,
                .bias = d.bias, .relu = d.relu, .fscale = d.fscale,
                .dst_addr = (uint32_t)l.o[t % 2] + j * d.mc * n * ces,
                .src1_addr = (uint32_t)l.acc[t % 2] + j * d.mc * 4 * n,
                .src2_addr = d.bias ? (uint32_t)l.bias + (p * d.nbw + j) * n * 4 : 0u, .rows = mr,
                .scale = d.scale, .shift = d.shift, .zero_point = d.zero_point,
                .wait = j == 0 ? (X | (t >= 2 ? D : 0u)) : 0u, .signal = j == nb - 1 ? (D | X) : 0u}));
        for (uint32_t j = 0; j < nb; j++) {
            uint32_t col = (p * d.nbw + j) * n, cols = n < d.n - col ? n : d.n - col;
            out.push_back(tsl_insn_dma_xfer_encode({.op = TSL_DMA_OP_STORE,
                .hbm_addr = d.c_addr + i * d.mc * d.ldc + col * ces,
                .local_addr = (uint32_t)l.o[t % 2] + j * d.mc * n * ces, .rows = mr, .row_bytes = cols * ces,
                .hbm_stride = d.ldc, .local_stride = n * ces,
                .wait = j == 0 ? V : 0u, .signal = j == nb - 1 ? V : 0u}));
        }
    }
    for (uint32_t k = 0; k < (S < 2 ? S : 2); k++)
        out.push_back(tsl_insn_sync_encode({.unit = TSL_UNIT_DMA, .wait = X}));
    for (uint32_t k = 0; k < (T < 2 ? T : 2); k++)
        out.push_back(tsl_insn_sync_encode({.unit = TSL_UNIT_MXU, .wait = V}));
    for (uint32_t k = 0; k < (T < 2 ? T : 2); k++)
        out.push_back(tsl_insn_sync_encode({.unit = TSL_UNIT_VPU, .wait = D}));
    return out;
}

#endif  // SEQ_REF_H
