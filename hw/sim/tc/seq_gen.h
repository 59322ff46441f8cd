// Random tile-sequencer descriptors for the Verilator harnesses (seq_main.cpp, tc_main.cpp):
// valid() makes one that passes the model's launch checks (docs/isa.md section 8) over many shapes,
// both dtypes when built, every epilogue, random MC/KC/NBW and region placements, GEMMs and (about
// one in three) CONVs of random window geometry; corrupt() breaks one in a way of the launch checks
// (or asks for a credit left on a channel: *credit_nz).
// HBM operands are placed below data_end; m is a model of the build's configuration.
#ifndef SEQ_GEN_H
#define SEQ_GEN_H

#include <algorithm>
#include <cstdint>

#include "../common/tsl_rng.h"

struct SeqGen {
    TslRng r;
    uint32_t N, hbm, data_end;
    bool bf16;
    tslm_t *m;

    uint32_t check(const uint32_t *w, uint32_t *ea) {
        memset(m->credit, 0, sizeof m->credit);
        return tslm_seq_check(m, w, ea);
    }

    // Output size of a window (0: none), as tsl_win.h's.
    static uint32_t win_out(uint32_t in, uint32_t pad, uint32_t k, uint32_t dil, uint32_t stride) {
        uint32_t span = dil * (k - 1) + 1;
        return span > in + pad ? 0 : (in + pad - span) / stride + 1;
    }

    // The code of the i-th of the GEMM epilogue's last steps ([gemm_post]).
    static uint32_t post_at(uint32_t i) { return i + 1; }

    // A CONV's window fields and the M, K, LDA, A_ADDR and MC that follow from them (addresses of
    // the input below data_end / 4); false when the shape does not fit the fields.
    bool conv(tsl_seq_t &d, uint32_t es) {
        d.conv = 1;
        d.in_h = 1 + r.below(r.chance(0.2) ? 30 : 10);
        d.in_w = 1 + r.below(r.chance(0.2) ? 30 : 10);
        d.kh = 1 + r.below(4);
        d.kw = 1 + r.below(4);
        d.stride_h = 1 + r.below(3);
        d.stride_w = 1 + r.below(3);
        d.dil_h = 1 + r.chance(0.25);
        d.dil_w = 1 + r.chance(0.25);
        d.pad_t = r.below(d.kh + 1);
        d.pad_l = r.below(d.kw + 1);
        uint32_t pad_b = r.below(d.kh + 1), pad_r = r.below(d.kw + 1);
        d.out_h = win_out(d.in_h, d.pad_t + pad_b, d.kh, d.dil_h, d.stride_h);
        d.out_w = win_out(d.in_w, d.pad_l + pad_r, d.kw, d.dil_w, d.stride_w);
        if (!d.out_h || !d.out_w) return false;
        if (r.chance(0.1)) d.out_w = 1 + r.below(d.out_w);   // fewer columns than the input gives
        d.cg = 1 + r.below(r.chance(0.3) ? 3 * N : N);
        d.batch = 1 + r.below(3);
        d.a_zp = d.dtype == TSL_DTYPE_INT8 ? r.below(256) : 0;
        // the rows of an image that reach into the padding: as the firmware computes them, or more
        // (more fills; fewer would leave stale taps where the padding belongs)
        uint32_t reach = (d.kh - 1) * d.dil_h;
        d.vpad_top = std::min((d.pad_t + d.stride_h - 1) / d.stride_h, d.out_h);
        d.vpad_end = d.in_h + d.pad_t <= reach ? 0 : std::min((d.in_h + d.pad_t - reach + d.stride_h - 1) / d.stride_h, d.out_h);
        if (r.chance(0.1)) d.vpad_top += r.below(d.out_h - d.vpad_top + 1);
        if (r.chance(0.1)) d.vpad_end = r.below(d.vpad_end + 1);
        d.lda = d.cg * es * (1 + r.below(3)) + (r.chance(0.2) ? r.below(5) : 0);
        d.row_stride = d.in_w * d.lda + (r.chance(0.2) ? r.below(9) : 0);
        d.img_stride = d.in_h * d.row_stride + (r.chance(0.2) ? r.below(9) : 0);
        d.k = d.kh * d.kw * d.cg;
        d.m = d.batch * d.out_h * d.out_w;
        if (d.k > 0xFFFF || d.m > 0xFFFF) return false;
        d.kc = (d.k + N - 1) / N * N;
        uint32_t rows = d.batch * d.out_h;
        d.tile_rows = 1 + r.below(r.chance(0.5) ? rows : std::min(rows, 4u));
        d.mc = d.tile_rows * d.out_w;
        uint64_t sa = (uint64_t)(d.batch - 1) * d.img_stride + (uint64_t)(d.in_h - 1) * d.row_stride +
                      (uint64_t)(d.in_w - 1) * d.lda + d.cg * es;
        uint32_t q = data_end / 4;
        if (sa > q) return false;
        d.a_addr = r.below((uint32_t)(q - sa) + 1);
        return true;
    }

    // Random descriptor that passes the launch checks (retries until the layout fits).
    void valid(uint32_t *w) {
        for (;;) {
            tsl_seq_t d = {};
            d.dtype = bf16 && r.chance(0.5) ? TSL_DTYPE_BF16 : TSL_DTYPE_INT8;
            bool fl = d.dtype == TSL_DTYPE_BF16;
            d.c_dtype = fl ? (r.chance(0.5) ? TSL_DTYPE_FP32 : TSL_DTYPE_BF16)
                           : (r.chance(0.5) ? TSL_DTYPE_INT32 : TSL_DTYPE_INT8);
            uint32_t es = tsl_dtype_bytes(d.dtype), ces = tsl_dtype_bytes(d.c_dtype);
            uint32_t big = r.chance(0.2) ? 6 : 3;
            d.m = 1 + r.below(big * N);
            d.n = 1 + r.below(big * N);
            d.k = r.chance(0.5) ? N * (1 + r.below(big)) : 1 + r.below(big * N);
            d.bias = r.chance(0.5);
            d.relu = r.chance(0.5);
            d.fscale = fl && r.chance(0.5);
            d.post = fl && r.chance(0.75) ? post_at(r.below(TSL_GEMM_POSTS_COUNT)) : 0;   // the CONV check retries
            if (d.relu && !tsl_gemm_post_has(TSL_GEMM_POST_RELU, d.post)) d.post = 0;
            bool plain = r.chance(0.1);   // no EPI: a GEMM to a 32-bit C with nothing to apply
            if (plain) {
                d.c_dtype = fl ? TSL_DTYPE_FP32 : TSL_DTYPE_INT32;
                ces = 4;
                d.bias = d.relu = d.fscale = d.post = 0;
            }
            if (d.c_dtype == TSL_DTYPE_INT8) {
                d.scale = r.u32();
                d.shift = r.below(63);
                d.zero_point = r.u32();
            } else if (d.fscale) {
                d.scale = r.u32();
            }
            bool cv = !plain && r.chance(0.35);
            if (cv && !conv(d, es)) continue;
            uint32_t kp = (d.k + N - 1) / N * N, ncb = (d.n + N - 1) / N;
            if (!cv) {
                d.mc = 1 + r.below(d.m + 2);
                d.kc = d.k % N ? kp + N * r.below(2) : N * (1 + r.below(kp / N + 1));
                d.lda = d.k * es + r.below(3) * 4 * (r.chance(0.5) ? 1 : 0) + (r.chance(0.2) ? r.below(7) : 0);
            }
            d.nbw = 1 + r.below(ncb + 1);
            d.ldb = d.n * es + (r.chance(0.3) ? r.below(9) : 0);
            d.ldc = d.n * ces + (r.chance(0.3) ? r.below(9) : 0);
            uint64_t sa = cv ? 0 : (uint64_t)(d.m - 1) * d.lda + d.k * es, sb = (uint64_t)(d.k - 1) * d.ldb + d.n * es;
            uint64_t sc = (uint64_t)(d.m - 1) * d.ldc + d.n * ces;
            if (sa + sb + sc + 4 * d.n + 64 > data_end) continue;
            uint32_t q = data_end / 4;
            if (!cv) d.a_addr = r.below((uint32_t)(q - (sa < q ? sa : q)) + 1);
            d.b_addr = q + r.below((uint32_t)(q - (sb < q ? sb : q)) + 1);
            d.c_addr = 2 * q + r.below((uint32_t)(q - (sc < q ? sc : q)) + 1);
            if (sa > q || sb > q || sc > q) continue;
            if (d.bias) d.bias_addr = 3 * q + r.below(q - 4 * d.n);
            d.vmem_addr = 0;
            d.acc_addr = TSL_LOCAL_ACC_BASE;
            tsl_seq_encode(&d, w);
            uint32_t ea;
            if (check(w, &ea) != TSL_ERR_NONE) continue;
            // the regions somewhere else: the largest random offset that still fits, halving
            for (uint32_t span = m->cfg.vmem_bytes / 2; span >= 4 * N; span /= 2) {
                d.vmem_addr = 4 * N * r.below(span / (4 * N));
                tsl_seq_encode(&d, w);
                if (check(w, &ea) == TSL_ERR_NONE) break;
                d.vmem_addr = 0;
            }
            for (uint32_t span = m->cfg.acc_bytes / 2; span >= 4 * N; span /= 2) {
                d.acc_addr = TSL_LOCAL_ACC_BASE + 4 * N * r.below(span / (4 * N));
                tsl_seq_encode(&d, w);
                if (check(w, &ea) == TSL_ERR_NONE) break;
                d.acc_addr = TSL_LOCAL_ACC_BASE;
            }
            tsl_seq_encode(&d, w);
            return;
        }
    }

    // The HBM bytes [*lo, *hi) that a descriptor's operands span (A or the CONV input, B, C, and
    // the bias row with BIAS), from the extents of docs/isa.md section 8.
    static void hbm_span(const uint32_t *w, uint64_t *lo, uint64_t *hi) {
        tsl_seq_t d = tsl_seq_decode(w);
        uint64_t es = tsl_dtype_bytes(d.dtype), ces = tsl_dtype_bytes(d.c_dtype);
        uint64_t ea = d.conv ? (uint64_t)(d.batch - 1) * d.img_stride + (uint64_t)(d.in_h - 1) * d.row_stride +
                                   (uint64_t)(d.in_w - 1) * d.lda + d.cg * es
                             : (uint64_t)(d.m - 1) * d.lda + d.k * es;
        uint64_t s[4][2] = {{d.a_addr, d.a_addr + ea},
                            {d.b_addr, d.b_addr + (uint64_t)(d.k - 1) * d.ldb + d.n * es},
                            {d.c_addr, d.c_addr + (uint64_t)(d.m - 1) * d.ldc + d.n * ces},
                            {d.bias_addr, d.bias_addr + 4ull * d.n}};
        *lo = UINT64_MAX;
        *hi = 0;
        for (int i = 0; i < (d.bias ? 4 : 3); i++) {
            *lo = std::min(*lo, s[i][0]);
            *hi = std::max(*hi, s[i][1]);
        }
    }

    // Break a valid descriptor in one of the kKinds ways of the launch checks (kind modulo kKinds);
    // *credit_nz for the token check.
    static const uint32_t kKinds = 35;
    void corrupt(uint32_t *w, bool *credit_nz, uint32_t kind) {
        tsl_seq_t d = tsl_seq_decode(w);
        uint32_t kp = (d.k + N - 1) / N * N;
        uint32_t sel = kind % kKinds;
        switch (sel) {
        case 0: {   // a reserved bit: one that every field at its widest leaves 0
            uint32_t ones[TSL_PARAM_SEQ_WORDS], used[TSL_PARAM_SEQ_WORDS];
            memset(ones, 0xFF, sizeof ones);
            tsl_seq_t all = tsl_seq_decode(ones);
            tsl_seq_encode(&all, used);
            uint32_t i;
            do i = r.below(TSL_PARAM_SEQ_WORDS); while (used[i] == ~0u);
            uint32_t b;
            do b = r.below(32); while (used[i] >> b & 1);
            w[i] |= 1u << b;
            return;
        }
        case 1: d.m = 0; break;
        case 2: d.n = 0; break;
        case 3: d.k = 0; break;
        case 4: d.mc = 0; break;
        case 5: d.kc = 0; break;
        case 6: d.nbw = 0; break;
        case 7: d.dtype = r.chance(0.5) ? TSL_DTYPE_INT32 : TSL_DTYPE_FP32; break;
        case 8: d.c_dtype ^= 1; break;   // the other class
        case 9: d.fscale = 1; break;
        case 10: d.scale = 1 + r.below(1000); d.fscale = 0; break;
        case 11: d.shift = r.chance(0.5) ? 63 : 1 + r.below(62); break;
        case 12: d.zero_point = 1 + r.below(1000); break;
        case 13: d.bias = 0; d.bias_addr = 4 + r.below(100); break;
        case 14: d.kc = d.kc + 1 + r.below(N - 1); break;
        case 15: d.kc = (65536 / tsl_dtype_bytes(d.dtype) / N + r.below(4)) * N; d.kc &= 0xFFFF; break;
        case 16: if (r.chance(0.5)) d.nbw = 255; else { d.nbw = 1 + 65535 / d.mc; if (d.nbw > 255) d.mc = 65535; d.nbw = d.nbw > 255 ? 255 : d.nbw; } break;
        case 17: d.bias = 1; d.n = 16384 + r.below(1000); break;
        case 18: if (d.k % N == 0) d.k -= 1 + r.below(N - 1 < d.k ? N - 1 : d.k - 1); d.kc = kp - N; break;
        case 19: *credit_nz = true; break;
        case 20: d.a_addr = hbm - r.below(64); break;
        case 21: d.ldb = hbm / 2 + r.u32() % hbm; break;
        case 22: d.c_addr += hbm; break;
        default:
            switch (sel - 23) {
            case 0: d.bias = 1; d.bias_addr = hbm - r.below(4 * d.n); break;
            case 1: d.vmem_addr += 4 * (1 + r.below(N - 1)); break;
            case 2: d.acc_addr += 4 * (1 + r.below(N - 1)); break;
            case 3: d.vmem_addr = m->cfg.vmem_bytes - 4 * N * r.below(4); break;
            case 4: d.acc_addr = r.chance(0.5) ? 4 * N * r.below(16) : TSL_LOCAL_ACC_BASE + m->cfg.acc_bytes - 4 * N; break;
            // CONV: a field that breaks K, M or MC; a zero window field; the input past HBM; KC or
            // A_ZP wrong. A GEMM: a CONV field set.
            case 5: if (d.conv) d.k += 1 + r.below(3); else d.in_h = 1 + r.below(100); break;
            case 6: if (d.conv) d.mc += 1; else d.tile_rows = 1 + r.below(100); break;
            case 7:
                if (!d.conv) { d.batch = 1; break; }
                switch (r.below(6)) {
                case 0: d.kh = 0; break;
                case 1: d.stride_w = 0; break;
                case 2: d.dil_h = 0; break;
                case 3: d.cg = 0; break;
                case 4: d.out_w = 0; break;
                default: d.in_h = 0; break;
                }
                break;
            case 8: if (d.conv) d.img_stride = hbm / 2 + r.below(hbm); else d.vpad_end = 1; break;
            case 9:   // a POST with int8, or with RELU or CONV where it does not go; else outside the list
                d.post = post_at(r.below(TSL_GEMM_POSTS_COUNT));
                if (d.dtype != TSL_DTYPE_BF16 || (d.conv && !tsl_gemm_post_has(TSL_GEMM_POST_CONV, d.post))) break;
                if (!tsl_gemm_post_has(TSL_GEMM_POST_RELU, d.post)) { d.relu = 1; break; }
                // fall through
            case 10:   // a VPU op outside the list
                do d.post = 1 + r.below(15); while (tsl_gemm_post_has(TSL_GEMM_POST_OPS, d.post));
                break;
            default:
                if (d.conv && d.dtype == TSL_DTYPE_BF16) d.a_zp = 1 + r.below(255);
                else if (d.conv) d.kc += N;
                else d.row_stride = 1 + r.below(1000);
                break;
            }
        }
        tsl_seq_encode(&d, w);
    }
};

// An HBM window (HBM_BASE, HBM_LIMIT) near an HBM extent [lo, hi) in an HBM of `hbm` bytes: on its
// edges or a few bytes across them (sometimes further), all of HBM, a limit past HBM, an empty
// window, HBM_BASE above HBM_LIMIT, or any range below `data_end`.
inline void seq_pick_window(TslRng &r, uint64_t lo, uint64_t hi, uint32_t hbm, uint32_t data_end, uint32_t *base,
                            uint32_t *limit) {
    auto near = [&](uint64_t x) -> uint32_t {
        int64_t d = r.chance(0.4) ? 0 : r.chance(0.7) ? (int64_t)r.below(5) - 2 : (int64_t)r.below(513) - 256;
        int64_t v = (int64_t)x + d;
        return (uint32_t)(v < 0 ? 0 : v > 0xFFFFFFFFll ? 0xFFFFFFFFll : v);
    };
    uint32_t b = 0, l = hbm;
    switch (r.below(10)) {
    case 0: break;
    case 1: b = near(lo); break;
    case 2: l = near(hi); break;
    case 3: b = near(lo), l = 0xFFFFFFFFu; break;            // HBM_BYTES alone bounds the end
    case 4: b = l = near(r.chance(0.5) ? lo : hi); break;    // empty
    case 5: b = near(hi), l = near(lo); break;               // HBM_BASE above HBM_LIMIT (mostly)
    case 6: b = r.below(data_end), l = b + r.below(hbm - b + 1); break;
    default: b = near(lo), l = near(hi); break;
    }
    *base = b;
    *limit = l;
}

#endif  // SEQ_GEN_H
