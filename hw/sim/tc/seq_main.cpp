// Verilator harness for the tile sequencer (tsl_tc_seq) on its own: random descriptors are written
// word by word and launched; this harness is the dispatcher (random back-pressure, random credits),
// records every instruction handed over and compares the stream word for word with the golden
// model's expansion (hw/model/tslm_seq.c tslm_seq_expand, docs/isa.md section 8), and the
// launch-check error and ERR_ADDR with tslm_seq_check for invalid descriptors (every check of the
// section), a third of them under a random HBM window (hbm_base_i, hbm_limit_i, as the model's
// HBM_BASE and HBM_LIMIT) at the edges of their operands. It also checks the stream handshake (valid held,
// instruction stable), a SEQ_STATUS-like busy that ends, and abort/halt mid-stream.
//   seq_sim [descriptors [big]]   env: SEED=s (replay), TRACE=1 (seq.fst, with a --trace-fst build);
//                                 big: large descriptors near the field limits (a big-memory build)
// Prints "seq_nN: P passed, F failed". A failure prints the seed and the first mismatch.
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <vector>

#include "Vtsl_tc_seq.h"
#include "verilated.h"
#if VM_TRACE
#include "verilated_fst_c.h"
#endif
#include "../common/tsl_rng.h"

extern "C" {
#include "tsl_insn.h"
#include "tslm.h"
}
#include "seq_gen.h"

#ifndef TC_N
#error "TC_N, TC_VMEM, TC_ACC, TC_HBM, TC_BF16 must match the Verilated parameters"
#endif
static const uint32_t N = TC_N;
static const struct {
    uint32_t vmem, acc, hbm;
    bool bf16;
} CFG = {TC_VMEM, TC_ACC, TC_HBM, TC_BF16 != 0};
static tslm_t model;   // its configuration and credits for tslm_seq_check

static void emit_cb(void *ctx, const tsl_insn_t *insn) {
    static_cast<std::vector<tsl_insn_t> *>(ctx)->push_back(*insn);
}

// The model's launch check, with a credit left on one channel when credit_nz.
static uint32_t ref_check(const uint32_t *w, bool credit_nz, uint32_t *eaddr) {
    memset(model.credit, 0, sizeof model.credit);
    if (credit_nz) model.credit[0][1] = 1;
    return tslm_seq_check(&model, w, eaddr);
}

static uint64_t g_seed;
static TslRng rng;
static std::unique_ptr<Vtsl_tc_seq> top;
static uint64_t cyc = 0;
static uint32_t g_desc = 0;
#if VM_TRACE
static VerilatedFstC *tfp = nullptr;
#endif

[[noreturn]] static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL (seed 0x%" PRIx64 ", descriptor %u, cycle %" PRIu64 "): ", g_seed, g_desc, cyc);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\nseq_n%u: 0 passed, 1 failed\n", N);
#if VM_TRACE
    if (tfp) tfp->close();
#endif
    (void)top.release();
    exit(1);
}

static void tick() {
    top->clk_i = 1;
    top->eval();
#if VM_TRACE
    if (tfp) tfp->dump(2 * cyc + 1);
#endif
    top->clk_i = 0;
    top->eval();
#if VM_TRACE
    if (tfp) tfp->dump(2 * cyc + 2);
#endif
    cyc++;
}

static void insn_words(uint32_t *w) {
    for (int i = 0; i < 8; i++) w[i] = top->insn_o[i];
}

static void print_insn(const char *what, const uint32_t *w) {
    printf("  %s:", what);
    for (int i = 0; i < 8; i++) printf(" %08x", w[i]);
    printf("\n");
}

static void gen_valid(uint32_t *w) {
    SeqGen g{rng, N, CFG.hbm, CFG.hbm, CFG.bf16, &model};
    g.valid(w);
    rng = g.r;
}
// A large descriptor near the field limits (the big configuration): long K with padding (many
// MUL pieces), KC and NBW at their limits, MC*NBW up to 65535, wide C. Retries until it passes.
static void gen_big(uint32_t *w) {
    for (;;) {
        tsl_seq_t d = {};
        d.dtype = CFG.bf16 && rng.chance(0.5) ? TSL_DTYPE_BF16 : TSL_DTYPE_INT8;
        bool fl = d.dtype == TSL_DTYPE_BF16;
        uint32_t es = tsl_dtype_bytes(d.dtype);
        d.c_dtype = fl ? (rng.chance(0.5) ? TSL_DTYPE_FP32 : TSL_DTYPE_BF16) : (rng.chance(0.5) ? TSL_DTYPE_INT32 : TSL_DTYPE_INT8);
        uint32_t ces = tsl_dtype_bytes(d.c_dtype);
        d.m = 1 + rng.below(rng.chance(0.3) ? 65535 : 3000);
        d.n = 1 + rng.below(rng.chance(0.3) ? 16383 : 600);
        d.k = 1 + rng.below(rng.chance(0.3) ? 65535 : 5000);
        d.bias = rng.chance(0.5);
        d.relu = rng.chance(0.5);
        if (d.c_dtype == TSL_DTYPE_INT8) d.shift = rng.below(63);
        uint32_t kp = (d.k + N - 1) / N * N, kcmax = 65535 / es / N * N;
        if (kcmax > 4095 * N) kcmax = 4095 * N;
        d.kc = d.k % N ? kp : N * (1 + rng.below(kcmax / N));
        if (d.kc > kcmax) continue;
        d.nbw = 1 + rng.below(rng.chance(0.5) ? 255 : 16);
        if (d.nbw * N * es > 65535) continue;
        d.mc = 1 + rng.below(rng.chance(0.5) ? 65535 / d.nbw : 64);
        d.lda = d.k * es;
        d.ldb = d.n * es;
        d.ldc = d.n * ces;
        uint64_t sa = (uint64_t)d.m * d.lda, sb = (uint64_t)d.k * d.ldb, sc = (uint64_t)d.m * d.ldc;
        uint32_t q = CFG.hbm / 4;
        if (sa > q || sb > q || sc > q) continue;
        d.a_addr = 0;
        d.b_addr = q;
        d.c_addr = 2 * q;
        if (d.bias) d.bias_addr = 3 * q;
        d.acc_addr = TSL_LOCAL_ACC_BASE;
        tsl_seq_encode(&d, w);
        uint32_t ea;
        if (ref_check(w, false, &ea) == TSL_ERR_NONE) return;
    }
}

// Every third descriptor is broken, each time in the next way: 3 * kKinds descriptors try them all.
// Returns whether this is the first round of the ways.
static bool break_desc(uint32_t *w, bool *credit_nz) {
    static uint32_t kind;
    SeqGen g{rng, N, CFG.hbm, CFG.hbm, CFG.bf16, &model};
    g.corrupt(w, credit_nz, kind);
    rng = g.r;
    return kind++ < SeqGen::kKinds;
}

// One descriptor: write, launch, be the dispatcher. Returns the instructions handed over.
static std::vector<tsl_insn_t> run(const uint32_t *w, bool credit_nz, uint32_t *err, uint32_t *eaddr,
                                   uint64_t stop_after) {
    for (unsigned i = 0; i < TSL_PARAM_SEQ_WORDS; i++) {
        while (rng.chance(0.2)) tick();
        top->wr_i = 1;
        top->wr_word_i = i;
        top->wr_data_i = w[i];
        top->wr_mask_i = 0xFFFFFFFFu;
        top->launch_i = i + 1 == TSL_PARAM_SEQ_WORDS;
        tick();
        top->wr_i = 0;
        top->launch_i = 0;
    }
    // credits: random non-zero in one channel when asked, else 0 (the launch check's sample)
    for (int i = 0; i < 5; i++) top->credit_i[i] = 0;
    if (credit_nz) {
        int ch = 1 + (int)rng.below(7);   // channels 3f+t, f != t
        if (ch % 4 == 0) ch = 1;
        uint32_t bit = ch * 16 + rng.below(16);
        top->credit_i[bit / 32] = 1u << (bit % 32);
    }
    std::vector<tsl_insn_t> got;
    *err = TSL_ERR_NONE;
    *eaddr = 0;
    bool seen_chk = false, prev_stall = false;
    uint32_t prev[8];
    double p_ready = 0.2 + 0.8 * (rng.below(4) / 3.0);
    uint64_t guard = 0;
    top->eval();
    if (!top->busy_o) fail("not busy after the launch");
    while (top->busy_o) {
        if (++guard > 50000000ull) fail("the sequencer never finished");
        if (top->chk_done_o) {
            if (seen_chk) fail("two launch-check results");
            seen_chk = true;
            *err = top->chk_err_o;
            *eaddr = top->chk_addr_o;
        }
        uint32_t cur[8];
        insn_words(cur);
        if (prev_stall) {
            if (!top->valid_o) fail("valid dropped without a handshake");
            if (memcmp(prev, cur, sizeof cur)) fail("instruction changed while waiting for ready");
        }
        bool rdy = top->valid_o && rng.chance(p_ready);
        top->ready_i = rdy;
        if (top->valid_o && !seen_chk) fail("an instruction before the launch check ended");
        if (top->valid_o && rdy) {
            tsl_insn_t t;
            memcpy(t.w, cur, sizeof cur);
            got.push_back(t);
            if (got.size() == stop_after) {   // stop it here (halt or abort) and expect idle
                bool ab = rng.chance(0.5);
                tick();
                top->ready_i = 0;
                if (ab) top->abort_i = 1; else top->halt_i = 1;
                tick();
                top->abort_i = 0;
                top->halt_i = 0;
                top->eval();
                if (top->busy_o) fail("still busy after %s", ab ? "abort" : "halt");
                return got;
            }
        }
        prev_stall = top->valid_o && !rdy;
        memcpy(prev, cur, sizeof cur);
        tick();
        top->ready_i = 0;
    }
    if (!seen_chk) fail("no launch-check result");
    return got;
}

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    uint32_t count = argc > 1 ? (uint32_t)strtoul(argv[1], nullptr, 0) : 200;
    bool big = argc > 2 && !strcmp(argv[2], "big");   // large descriptors near the field limits
    const char *s = getenv("SEED");
    g_seed = s ? strtoull(s, nullptr, 0) : ((uint64_t)time(nullptr) * 0x9E3779B97F4A7C15ull ^ (uint64_t)clock());
    rng.s = g_seed;
    printf("seq_n%u: seed 0x%" PRIx64 " (SEED=0x%" PRIx64 " replays)\n", N, g_seed, g_seed);
    tslm_cfg_t mc = tslm_cfg_default();
    mc.n = N;
    mc.vmem_bytes = CFG.vmem;
    mc.acc_bytes = CFG.acc;
    mc.hbm_bytes = CFG.hbm;
    mc.features = 1u << TSL_TC_CFG_FEATURES_INT8_SHIFT | 1u << TSL_TC_CFG_FEATURES_SEQ_SHIFT |
                  1u << TSL_TC_CFG_FEATURES_WINDOW_SHIFT | (CFG.bf16 ? 1u << TSL_TC_CFG_FEATURES_BF16_SHIFT : 0u);
    if (tslm_init(&model, &mc) != TSLM_OK) fail("tslm_init");
    top = std::make_unique<Vtsl_tc_seq>();
#if VM_TRACE
    if (getenv("TRACE")) {
        Verilated::traceEverOn(true);
        tfp = new VerilatedFstC;
        top->trace(tfp, 99);
        tfp->open("seq.fst");
    }
#endif
    top->rst_ni = 0;
    top->clk_i = 0;
    top->eval();
    tick();
    tick();
    top->rst_ni = 1;
    tick();

    uint32_t pass = 0, invalid = 0, insns = 0, stopped = 0, windows = 0, win_refused = 0;
    // pad, bias, NCH>1, NPAN>1, MB>1, T>2, no EPI, CONV, then each POST ([gemm_post])
    uint32_t err_hist[TSL_ERR_LIMIT] = {}, cov[8 + TSL_GEMM_POSTS_COUNT] = {}, max_pieces = 0;
    for (g_desc = 0; g_desc < count; g_desc++) {
        uint32_t w[TSL_PARAM_SEQ_WORDS];
        if (big) gen_big(w); else gen_valid(w);
        bool credit_nz = false, bad = !big && g_desc % 3 == 0, first_round = bad && break_desc(w, &credit_nz);
        // The HBM window: all of HBM, or one near the operands. The first round of breakages runs
        // under all of HBM, so a window's HBM_RANGE does not hide the later checks' errors from it.
        uint32_t wb = 0, wl = CFG.hbm;
        if (!first_round && rng.chance(0.3)) {
            uint64_t lo, hi;
            SeqGen::hbm_span(w, &lo, &hi);
            seq_pick_window(rng, lo, hi, CFG.hbm, CFG.hbm, &wb, &wl);
            windows++;
        }
        tslm_reg_write(&model, TSL_TC_HBM_BASE_OFFSET, wb);
        tslm_reg_write(&model, TSL_TC_HBM_LIMIT_OFFSET, wl);
        top->hbm_base_i = wb;
        top->hbm_limit_i = wl;
        uint32_t ea_ref, err_ref = ref_check(w, credit_nz, &ea_ref);
        win_refused += (wb != 0 || wl != CFG.hbm) && err_ref == TSL_ERR_HBM_RANGE;
        std::vector<tsl_insn_t> ref;
        if (err_ref == TSL_ERR_NONE) tslm_seq_expand(&model.cfg, w, emit_cb, &ref);
        uint32_t pieces = 0;
        for (auto &i : ref) pieces += tsl_insn_hdr_decode(i.w).op == TSL_VPU_OP_MUL && tsl_insn_hdr_decode(i.w).unit == TSL_UNIT_VPU;
        max_pieces = pieces > max_pieces ? pieces : max_pieces;
        uint64_t stop = err_ref == TSL_ERR_NONE && rng.chance(0.05) ? 1 + rng.below((uint32_t)ref.size()) : 0;
        uint32_t err, ea;
        std::vector<tsl_insn_t> got = run(w, credit_nz, &err, &ea, stop);
        if (err != err_ref || ea != ea_ref) {
            for (unsigned i = 0; i < TSL_PARAM_SEQ_WORDS; i++) printf("  SEQ%u = 0x%08x\n", i, w[i]);
            fail("launch check: expected %s addr 0x%08x, got %s addr 0x%08x", tsl_err_name(err_ref), ea_ref,
                 tsl_err_name(err), ea);
        }
        size_t want = stop ? stop : ref.size();
        for (size_t k = 0; k < got.size() && k < want; k++) {
            if (memcmp(got[k].w, ref[k].w, 32)) {
                for (unsigned i = 0; i < TSL_PARAM_SEQ_WORDS; i++) printf("  SEQ%u = 0x%08x\n", i, w[i]);
                print_insn("expected", ref[k].w);
                print_insn("got     ", got[k].w);
                fail("instruction %zu of %zu differs", k, ref.size());
            }
        }
        if (got.size() != want) fail("%zu instructions, expected %zu", got.size(), want);
        tslm_reg_write(&model, TSL_TC_HBM_BASE_OFFSET, 0);   // gen_valid's checks: all of HBM
        tslm_reg_write(&model, TSL_TC_HBM_LIMIT_OFFSET, CFG.hbm);
        pass++;
        invalid += err_ref != TSL_ERR_NONE;
        err_hist[err_ref]++;
        if (err_ref == TSL_ERR_NONE) {
            tsl_seq_t d = tsl_seq_decode(w);
            uint32_t kp = (d.k + N - 1) / N * N, ncb = (d.n + N - 1) / N, mb = (d.m + d.mc - 1) / d.mc;
            uint32_t npan = (ncb + d.nbw - 1) / d.nbw;
            cov[0] += d.k % N != 0;
            cov[1] += d.bias;
            cov[2] += kp > d.kc;
            cov[3] += npan > 1;
            cov[4] += mb > 1;
            cov[5] += mb * npan > 2;
            cov[6] += tsl_dtype_bytes(d.c_dtype) == 4 && !d.bias && !d.relu && !d.fscale && !d.conv && !d.post;
            cov[7] += d.conv;
            for (uint32_t i = 0; i < TSL_GEMM_POSTS_COUNT; i++) cov[8 + i] += d.post == SeqGen::post_at(i);
        }
        stopped += stop != 0;
        insns += (uint32_t)got.size();
    }
#if VM_TRACE
    if (tfp) tfp->close();
#endif
    printf("seq_n%u: launch checks:", N);
    for (uint32_t e = 0; e < TSL_ERR_LIMIT; e++)
        if (err_hist[e]) printf(" %s %u", tsl_err_name(e), err_hist[e]);
    printf("; valid with K padding %u (at most %u MUL pieces), bias %u, K chunks %u, panels %u, row tiles %u, "
           "> 2 tiles %u, no EPI %u, CONV %u", cov[0], max_pieces, cov[1], cov[2], cov[3], cov[4], cov[5], cov[6],
           cov[7]);
    for (uint32_t i = 0; i < TSL_GEMM_POSTS_COUNT; i++) printf(", %s %u", tsl_gemm_post_name(SeqGen::post_at(i)), cov[8 + i]);
    printf("\n");
    if (count >= 3 * SeqGen::kKinds && !big) {
        static const uint32_t want[] = {TSL_ERR_NONE, TSL_ERR_BAD_FIELD, TSL_ERR_HBM_RANGE, TSL_ERR_MISALIGNED,
                                        TSL_ERR_LOCAL_RANGE};
        for (uint32_t e : want)
            if (!err_hist[e]) fail("no descriptor ended in %s", tsl_err_name(e));
        for (uint32_t c : cov)
            if (!c) fail("a shape class was never generated");
    }
    printf("seq_n%u: %u descriptors (%u invalid, %u stopped), %u under an HBM window (%u refused for it), %u "
           "instructions compared\n", N, pass, invalid, stopped, windows, win_refused, insns);
    tslm_free(&model);
    top->final();
    top.reset();   // before exit: the Verilated context is gone by the static destructors
    printf("seq_n%u: %u passed, 0 failed\n", N, pass);
    return 0;
}
