// Verilator harness for the MXU (tsl_mxu_sim): random LOADW (plain and TRANSPOSE)/MATMUL programs, checked word for word
// against the golden model (libtessel_model), with random idle cycles on the command, weight and
// activation streams and random back-pressure on the result stream.
//   mxu_sim_nN [random|throughput] [runs]     env: SEED=s (replay), TRACE=1 (FST, trace build)
// Prints "mxu_nN: P passed, F failed". A failure prints the seed and the first mismatch.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "Vtsl_mxu_sim.h"
#include "verilated.h"
#include "../common/tsl_rng.h"
#if VM_TRACE
#include "verilated_fst_c.h"
#endif

extern "C" {
#include "tsl_insn.h"
#include "tslm.h"
}

#ifndef MXU_N
#error "MXU_N must be defined to the array size the model was Verilated with"
#endif
static const unsigned N = MXU_N;
static const unsigned ACC_ROWS = 256;  // AccRowsLog2 = 8
static const unsigned VMEM_BYTES = 65536;

// ---- wide-signal helpers (QData for 64 bits, VlWide above) --------------------------------------
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
template <std::size_t W> static uint32_t get_word(const VlWide<W> &sig, unsigned j) { return sig[j]; }

// ---- random data --------------------------------------------------------------------------------
// bf16 values: mostly normal numbers of moderate range, plus zeros, subnormals, negatives, extreme
// exponents, infinities and NaNs at a rate set by `wild` (0: none of the specials).
static uint16_t rand_bf16(TslRng &r, double wild) {
    uint16_t s = (uint16_t)(r.below(2) << 15);
    uint16_t f = (uint16_t)r.below(128);
    if (r.chance(0.08)) return s;                                   // +-0
    if (r.chance(wild)) {
        switch (r.below(6)) {
        case 0: return (uint16_t)(s | (f ? f : 1));                  // subnormal (reads as 0)
        case 1: return (uint16_t)(s | 0x7F80);                       // infinity
        case 2: return (uint16_t)(0x7F80 | (f ? f : 0x40) | s);      // NaN
        case 3: return (uint16_t)(s | ((1 + r.below(8)) << 7) | f);  // tiny: products flush
        default: return (uint16_t)(s | ((247 + r.below(7)) << 7) | f); // huge: products overflow
        }
    }
    return (uint16_t)(s | ((118 + r.below(20)) << 7) | f);
}

static uint32_t rand_acc_word(TslRng &r) {
    switch (r.below(8)) {
    case 0: return 0;
    case 1: return 0x80000000u;
    case 2: return 0x7F800000u | (r.below(2) << 31);                  // inf
    case 3: return 0x7F800001u + r.below(1000);                        // NaN
    case 4: return r.below(0x00800000u) | (r.below(2) << 31);         // subnormal
    case 5: return (uint32_t)r.next();
    default: return ((uint32_t)r.below(2) << 31) | ((118u + r.below(24)) << 23) | r.below(1u << 23);
    }
}

// ---- program ------------------------------------------------------------------------------------
struct Op {
    bool matmul;
    unsigned dtype, wbuf, acc, rows, trans;   // trans: LOADW TRANSPOSE
    uint32_t addr, stride;         // VMEM (weights or activations)
    uint32_t acc_row, acc_stride;  // ACC rows
};

// VMEM layout: [0,16K) tame bf16, [16K,32K) wild bf16, [32K,64K) random int8 bytes.
static void fill_vmem(TslRng &r, uint8_t *vm) {
    for (unsigned i = 0; i < 16384; i += 2) {
        uint16_t t = rand_bf16(r, 0.0), w = rand_bf16(r, 0.25);
        memcpy(vm + i, &t, 2);
        memcpy(vm + 16384 + i, &w, 2);
    }
    for (unsigned i = 32768; i < VMEM_BYTES; i++) {
        uint32_t v = r.below(16);
        vm[i] = v == 0 ? 0x80 : v == 1 ? 0x7F : (uint8_t)r.next();
    }
}

static uint32_t pick_vmem(TslRng &r, unsigned dtype, unsigned rows, uint32_t stride, bool wild) {
    uint32_t vb = N * (dtype == TSL_DTYPE_BF16 ? 2 : 1);
    uint32_t base = dtype == TSL_DTYPE_BF16 ? (wild ? 16384 : 0) : 32768;
    uint32_t span = dtype == TSL_DTYPE_BF16 ? 16384 : 32768;
    uint32_t need = (rows - 1) * stride + vb;
    return base + vb * r.below((span - need) / vb + 1);
}

static Op make_loadw(TslRng &r, unsigned dtype, unsigned wbuf, double trans_p = 0.0) {
    Op o{};
    o.matmul = false;
    o.trans = r.chance(trans_p);
    o.dtype = dtype;
    o.wbuf = wbuf;
    uint32_t vb = N * (dtype == TSL_DTYPE_BF16 ? 2 : 1);
    o.stride = vb * (r.chance(0.7) ? 1 : r.below(4));
    o.addr = pick_vmem(r, dtype, N, o.stride, r.chance(0.3));
    return o;
}

static Op make_matmul(TslRng &r, unsigned dtype, unsigned wbuf, unsigned rows) {
    Op o{};
    o.matmul = true;
    o.dtype = dtype;
    o.wbuf = wbuf;
    o.rows = rows;
    o.acc = r.below(2);
    uint32_t vb = N * (dtype == TSL_DTYPE_BF16 ? 2 : 1);
    o.stride = vb * (r.chance(0.8) ? 1 : r.below(3));
    if ((rows - 1) * o.stride + vb > 16384) o.stride = vb;
    o.addr = pick_vmem(r, dtype, rows, o.stride, r.chance(0.3));
    // ACC rows: often a small hot window, so that accumulations hit rows just written.
    unsigned window = r.chance(0.3) ? 4 : ACC_ROWS;
    o.acc_stride = r.chance(0.1) ? 0 : 1;
    if ((rows - 1) * o.acc_stride >= window) o.acc_stride = (rows - 1) < ACC_ROWS ? 1 : 0;
    unsigned span = (rows - 1) * o.acc_stride + 1;
    o.acc_row = span >= window ? 0 : r.below(window - span + 1);
    return o;
}

// ---- one run ------------------------------------------------------------------------------------
struct Result {
    bool ok;
    uint64_t cycles, first_issue, last_issue, issued;
};

struct Sim {
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<Vtsl_mxu_sim> top;
#if VM_TRACE
    std::unique_ptr<VerilatedFstC> tfp;
#endif
    uint64_t cycle = 0;
    explicit Sim(bool trace, const char *trace_path) : ctx(new VerilatedContext) {
        top.reset(new Vtsl_mxu_sim(ctx.get()));
#if VM_TRACE
        if (trace) {
            ctx->traceEverOn(true);
            tfp.reset(new VerilatedFstC);
            top->trace(tfp.get(), 99);
            tfp->open(trace_path);
            fprintf(stderr, "trace: %s\n", trace_path);
        }
#else
        (void)trace_path;
        if (trace) fprintf(stderr, "TRACE=1 needs the trace build: make mxu-trace MXU_N=%u\n", N);
#endif
    }
    ~Sim() {
        top->final();
#if VM_TRACE
        if (tfp) tfp->close();
#endif
    }
    void dump() {
#if VM_TRACE
        if (tfp) tfp->dump(ctx->time());
#endif
    }
    // Inputs for this cycle are set; evaluate the combinational outputs (readies).
    void settle() { top->eval(); }
    // Rising edge, then the low phase.
    void tick() {
        ctx->timeInc(1);
        top->clk_i = 1;
        top->eval();
        dump();
        ctx->timeInc(1);
        top->clk_i = 0;
        top->eval();
        dump();
        cycle++;
    }
};

static bool run_program(TslRng &r, uint64_t seed, const std::vector<Op> &prog, double idle_p, double bp_p,
                        bool trace, Result &res) {
    // Golden model.
    tslm_t m;
    memset(&m, 0, sizeof m);
    tslm_cfg_t cfg = tslm_cfg_default();
    cfg.n = N;
    cfg.vmem_bytes = VMEM_BYTES;
    cfg.acc_bytes = ACC_ROWS * 4 * N < 4096 ? 4096 : ACC_ROWS * 4 * N;
    cfg.hbm_bytes = 4096;
    if (tslm_init(&m, &cfg) != TSLM_OK) {
        fprintf(stderr, "tslm_init failed\n");
        return false;
    }
    uint8_t *vm = tslm_vmem(&m);
    fill_vmem(r, vm);
    std::vector<uint32_t> acc0(ACC_ROWS * N);
    for (auto &w : acc0) w = rand_acc_word(r);
    memcpy(tslm_acc(&m), acc0.data(), acc0.size() * 4);
    for (const Op &o : prog) {
        tsl_insn_t in = o.matmul ? tsl_insn_mxu_matmul_encode(tsl_insn_mxu_matmul_t{
                .dtype = o.dtype, .wbuf = o.wbuf, .accumulate = o.acc, .act_addr = o.addr, .act_stride = o.stride,
                .acc_addr = TSL_LOCAL_ACC_BASE + o.acc_row * 4 * N, .acc_stride = o.acc_stride * 4 * N,
                .rows = o.rows})
                                 : tsl_insn_mxu_loadw_encode(tsl_insn_mxu_loadw_t{
                                         .dtype = o.dtype, .wbuf = o.wbuf, .transpose = o.trans, .addr = o.addr,
                                         .stride = o.stride});
        if (tslm_push(&m, in.w) != TSLM_OK) {
            fprintf(stderr, "model rejected an instruction: ERR_CODE %u\n",
                    tslm_reg_read(&m, TSL_TC_ERR_CODE_OFFSET));
            tslm_free(&m);
            return false;
        }
    }
    tslm_run(&m);

    // RTL.
    char tpath[64];
    snprintf(tpath, sizeof tpath, "mxu_n%u_%016" PRIx64 ".fst", N, seed);
    Sim s(trace, tpath);
    Vtsl_mxu_sim *t = s.top.get();
    t->rst_ni = 0;
    t->clk_i = 0;
    t->eval();
    s.tick();
    s.tick();
    t->rst_ni = 1;
    // Load the initial ACC through the debug port.
    for (unsigned row = 0; row < ACC_ROWS; row++) {
        t->dbg_we_i = 1;
        t->dbg_addr_i = row;
        put_bytes(t->dbg_wdata_i, (const uint8_t *)&acc0[row * N], 4 * N);
        s.tick();
    }
    t->dbg_we_i = 0;

    // Streams in program order: commands, weight rows, activation rows (raw VMEM rows of 2N bytes;
    // int8 uses the low N bytes and the rest is whatever follows in VMEM).
    std::deque<const Op *> cq;
    std::deque<uint32_t> wq, aq;
    for (const Op &o : prog) {
        cq.push_back(&o);
        for (unsigned k = 0; k < (o.matmul ? o.rows : N); k++)
            (o.matmul ? aq : wq).push_back(o.addr + k * o.stride);
    }
    std::vector<uint8_t> row(2 * N);
    auto raw_row = [&](uint32_t a) {
        for (unsigned i = 0; i < 2 * N; i++) row[i] = vm[(a + i) % VMEM_BYTES];
        return row.data();
    };
    bool cv = false, wv = false, av = false;
    unsigned done_seen = 0, matmuls = 0;
    for (const Op &o : prog) matmuls += o.matmul;
    res.first_issue = res.last_issue = 0;
    res.issued = 0;
    uint64_t start = s.cycle, quiet = 0, limit = 200000 + 64 * (uint64_t)(aq.size() + wq.size());
    while (true) {
        // Valid never waits for ready; payload holds until the handshake.
        if (!cv && !cq.empty() && !r.chance(idle_p)) {
            const Op *o = cq.front();
            cv = true;
            t->cmd_op_i = o->matmul ? TSL_MXU_OP_MATMUL : TSL_MXU_OP_LOADW;
            t->cmd_wbuf_i = o->wbuf;
            t->cmd_dtype_i = o->dtype;
            t->cmd_acc_i = o->acc;
            t->cmd_trans_i = o->trans;
            t->cmd_rows_i = o->rows;
            t->cmd_acc_addr_i = o->acc_row;
            t->cmd_acc_stride_i = o->acc_stride;
        }
        if (!wv && !wq.empty() && !r.chance(idle_p)) {
            wv = true;
            put_bytes(t->w_data_i, raw_row(wq.front()), 2 * N);
        }
        if (!av && !aq.empty() && !r.chance(idle_p)) {
            av = true;
            put_bytes(t->a_data_i, raw_row(aq.front()), 2 * N);
        }
        t->cmd_valid_i = cv;
        t->w_valid_i = wv;
        t->a_valid_i = av;
        t->bp_i = r.chance(bp_p);
        s.settle();
        bool cf = cv && t->cmd_ready_o, wf = wv && t->w_ready_o, af = av && t->a_ready_o;
        if (af) {
            if (!res.issued) res.first_issue = s.cycle;
            res.last_issue = s.cycle;
            res.issued++;
        }
        s.tick();
        done_seen += t->done_o;  // done_o is combinational from registers: sample after the edge
        if (cf) { cq.pop_front(); cv = false; }
        if (wf) { wq.pop_front(); wv = false; }
        if (af) { aq.pop_front(); av = false; }
        bool drained = cq.empty() && wq.empty() && aq.empty() && !cv && !wv && !av;
        quiet = drained && t->idle_o ? quiet + 1 : 0;
        if (quiet > 4) break;
        if (s.cycle - start > limit) {
            printf("FAIL seed=0x%016" PRIx64 ": timeout after %" PRIu64 " cycles (cmd %zu, w %zu, a %zu left)\n",
                   seed, s.cycle - start, cq.size(), wq.size(), aq.size());
            tslm_free(&m);
            return false;
        }
    }
    t->cmd_valid_i = t->w_valid_i = t->a_valid_i = 0;
    res.cycles = s.cycle - start;

    // Compare every ACC word.
    const uint8_t *macc = tslm_acc(&m);
    bool ok = true;
    for (unsigned rrow = 0; rrow < ACC_ROWS && ok; rrow++) {
        t->dbg_re_i = 1;
        t->dbg_addr_i = rrow;
        s.tick();
        t->dbg_re_i = 0;
        t->eval();
        for (unsigned j = 0; j < N; j++) {
            uint32_t exp, got = get_word(t->dbg_rdata_o, j);
            memcpy(&exp, macc + (rrow * N + j) * 4, 4);
            if (exp != got) {
                printf("FAIL seed=0x%016" PRIx64 ": first mismatch ACC row %u col %u (byte 0x%x): expected 0x%08x got 0x%08x\n",
                       seed, rrow, j, (rrow * N + j) * 4, exp, got);
                ok = false;
                break;
            }
        }
    }
    if (ok && done_seen != matmuls) {
        printf("FAIL seed=0x%016" PRIx64 ": %u MATMUL completions signalled, expected %u\n", seed, done_seen, matmuls);
        ok = false;
    }
    tslm_free(&m);
    return ok;
}

// A random program: both buffers loaded, then LOADWs (a third of them transposed) and MATMULs in
// random order, each MATMUL using a buffer whose dtype it matches.
static std::vector<Op> random_program(TslRng &r, int dmode) {
    std::vector<Op> p;
    unsigned bdt[2];
    auto pick_dt = [&]() {
        return dmode == 0 ? TSL_DTYPE_INT8 : dmode == 1 ? TSL_DTYPE_BF16 : (r.below(2) ? TSL_DTYPE_BF16 : TSL_DTYPE_INT8);
    };
    for (unsigned b = 0; b < 2; b++) {
        bdt[b] = pick_dt();
        p.push_back(make_loadw(r, bdt[b], b, 0.35));
    }
    unsigned nops = 12 + r.below(20);
    for (unsigned i = 0; i < nops; i++) {
        unsigned b = r.below(2);
        if (r.chance(0.3)) {
            bdt[b] = pick_dt();
            p.push_back(make_loadw(r, bdt[b], b, 0.35));
        } else {
            unsigned rows = r.chance(0.15) ? 1 + r.below(8 * N) : 1 + r.below(2 * N);
            p.push_back(make_matmul(r, bdt[b], b, rows));
        }
    }
    return p;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "random";
    int runs = argc > 2 ? atoi(argv[2]) : 6;
    const char *se = getenv("SEED");
    const char *te = getenv("TRACE");
    bool trace = te && atoi(te);
    uint64_t seed = se ? strtoull(se, nullptr, 0) : ((uint64_t)time(nullptr) * 2654435761u) ^ N;
    unsigned passed = 0, failed = 0;
    if (!strcmp(mode, "random")) {
        // SEED replays a single run; otherwise `runs` runs, seeds derived from the first.
        if (se) runs = 1;
        for (int i = 0; i < runs; i++) {
            uint64_t s = se ? seed : seed + 0x1000 * (uint64_t)i;
            TslRng r{s};
            int dmode = se ? (int)r.below(3) : i % 3;   // 0 int8, 1 bf16, 2 mixed
            double idle_p = r.chance(0.2) ? 0.0 : 0.05 * r.below(10);
            double bp_p = r.chance(0.2) ? 0.0 : 0.05 * r.below(12);
            std::vector<Op> prog = random_program(r, dmode);
            unsigned ntrans = 0;
            for (const Op &o : prog) ntrans += o.trans;
            Result res;
            printf("mxu_n%u: seed=0x%016" PRIx64 " (SEED=0x%016" PRIx64 " replays) %s, %zu insns (%u LOADW TRANSPOSE), idle %.2f, backpressure %.2f\n",
                   N, s, s, dmode == 0 ? "int8" : dmode == 1 ? "bf16" : "mixed", prog.size(), ntrans, idle_p, bp_p);
            fflush(stdout);
            bool ok = run_program(r, s, prog, idle_p, bp_p, trace, res);
            (ok ? passed : failed)++;
        }
    } else if (!strcmp(mode, "throughput")) {
        // T back-to-back MATMULs of M = 8N rows, alternating buffers, each next tile loaded while
        // the current one computes; no idle cycles, no back-pressure.
        const unsigned T = 6, M = 8 * N;
        for (unsigned dt = 0; dt < 2; dt++) {
            unsigned dtype = dt ? TSL_DTYPE_BF16 : TSL_DTYPE_INT8;
            TslRng r{seed + dt};
            std::vector<Op> p;
            p.push_back(make_loadw(r, dtype, 0));
            for (unsigned i = 0; i < T; i++) {
                if (i + 1 < T) p.push_back(make_loadw(r, dtype, (i + 1) & 1));
                Op o = make_matmul(r, dtype, i & 1, M);
                o.stride = N * (dt ? 2 : 1);
                o.addr = dt ? 0 : 32768;
                o.acc_row = 0;
                o.acc_stride = 1;
                p.push_back(o);
            }
            Result res;
            struct timespec t0, t1;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            bool ok = run_program(r, seed, p, 0.0, 0.0, trace, res);
            clock_gettime(CLOCK_MONOTONIC, &t1);
            double secs = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
            uint64_t span = res.last_issue - res.first_issue + 1;
            double steady = (double)res.issued / (double)span;
            double overall = (double)(T * M) / (double)res.cycles;
            printf("mxu_n%u throughput %s: %u matmuls x %u rows, %" PRIu64 " rows issued in %" PRIu64
                   " cycles from first to last row: steady-state utilisation %.2f%% of N^2 MAC/cycle"
                   " (%.2f%% over all %" PRIu64 " cycles incl. first load and drain); %.0f cycles/s incl. setup\n",
                   N, dt ? "bf16" : "int8", T, M, res.issued, span, 100.0 * steady, 100.0 * overall, res.cycles,
                   (double)res.cycles / secs);
            if (!ok || steady < 0.95) {
                printf("FAIL: %s\n", ok ? "utilisation below 95%" : "results differ from the model");
                failed++;
            } else {
                passed++;
            }
        }
    } else if (!strcmp(mode, "speed")) {
        // Raw simulation speed: the array streaming bf16 rows back to back.
        Sim s(false, "");
        Vtsl_mxu_sim *t = s.top.get();
        t->rst_ni = 0;
        s.tick();
        t->rst_ni = 1;
        t->cmd_valid_i = 1;
        t->cmd_op_i = TSL_MXU_OP_MATMUL;
        t->cmd_dtype_i = argc > 2 && !strcmp(argv[2], "int8") ? TSL_DTYPE_INT8 : TSL_DTYPE_BF16;
        t->cmd_rows_i = 65535;
        t->a_valid_i = 1;
        TslRng r{1};
        std::vector<uint8_t> row(2 * N);
        for (auto &b : row) b = (uint8_t)r.next();
        put_bytes(t->a_data_i, row.data(), 2 * N);
        const uint64_t C = 200000;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (uint64_t c = 0; c < C; c++) s.tick();
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double secs = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
        printf("mxu_n%u speed: %.0f cycles/s\n", N, C / secs);
        return 0;
    } else {
        fprintf(stderr, "usage: %s [random [runs] | throughput | speed [int8]]\n", argv[0]);
        return 2;
    }
    printf("mxu_n%u%s: %u passed, %u failed\n", N, strcmp(mode, "random") ? "_throughput" : "", passed, failed);
    return failed ? 1 : 0;
}
