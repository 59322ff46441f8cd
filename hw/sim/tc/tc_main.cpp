// Co-simulation of the Verilated tensor core (tsl_tc, with the C++ HBM model on its AXI port)
// against the golden model, instruction stream by instruction stream.
//   tc_sim random RUNS INSNS   random race-free programs of DMA, MXU, VPU and SYNC
//   tc_sim directed            every VPU op (EPI: every flag and dtype), DMA shapes and maximum
//                              sizes, error paths (every EPI refusal)
//   tc_sim gemm                256^3 int8 and bf16 tiled GEMMs (gemm_db.h); MXU busy >= 90 %
//   tc_sim seq DESCS           random tile-sequencer descriptors (tc core): the dispatched stream
//                              (a tap on the controller's accepted pushes) against tslm_seq_expand,
//                              launch errors, and, once the RTL has EPI, registers, counters and memory;
//                              half of them under an HBM window (HBM_BASE, HBM_LIMIT) at the edges of
//                              their operands
//   tc_sim window RUNS INSNS   random programs under random HBM windows, set before the program and
//                              changed in its middle, at the edges of its DMAs' HBM extents
//   tc_sim fetch RUNS INSNS    random device programs (INSN records of random programs, SEQ records of
//                              random descriptors between barriers) fetched by the program fetch unit
//                              (PROG_ADDR, PROG_BYTES) from outside the HBM window: bad records, bad
//                              instructions, CTRL.RESET in the middle of a fetch; then directed cases
//                              (a program outside HBM, an AXI error on a fetch read, the fetch rate)
// env: SEED=s replays a random run, TRACE=1 writes tc.fst (trace build).
// After each program both sides dump VMEM and ACC into HBM with DMA STOREs; HBM is then compared
// byte for byte, and so are the TC registers that the model defines exactly.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "Vtsl_tc.h"
#include "tsl_axi_pins.h"
#include "tsl_hbm.h"
#include "verilated.h"
#include "../common/tsl_rng.h"
#if VM_TRACE
#include "verilated_fst_c.h"
#endif

extern "C" {
#include "gemm_db.h"
#include "tsl_insn.h"
#include "tslm.h"
#include "ref_seq.h"
}
#include "seq_gen.h"

#if !defined(TC_CORE) || TC_CORE == 0   // TSL_CORE_TC: the controller's dispatch tap (public_flat_rd)
#include "Vtsl_tc___024root.h"
#endif

#if !defined(TC_N) || !defined(TC_BF16) || !defined(TC_VMEM) || !defined(TC_ACC) || !defined(TC_HBM)
#error "TC_N, TC_BF16, TC_VMEM, TC_ACC and TC_HBM must match the Verilated parameters"
#endif
static const uint32_t N = TC_N, VMEM = TC_VMEM, ACC = TC_ACC, HBM = TC_HBM;
static const uint32_t ACC_BASE = TSL_LOCAL_ACC_BASE;
static const uint32_t DATA_END = HBM / 2;  // programs use HBM [0, DATA_END); the dump goes above
#ifndef TC_NAME
#define TC_NAME "tc"   // prefix of the result lines: "lite" for tsl_lite_tc
#endif
#ifndef TC_CORE
#define TC_CORE TSL_CORE_TC   // the core's ops (hw/spec/tessel.toml [[ops]]): TSL_CORE_LITE for tsl_lite_tc
#endif
#ifndef TC_AXI_BYTES
#define TC_AXI_BYTES (2 * TC_N)   // AXI beat bytes: one VMEM line in tsl_tc
#endif
#ifndef TC_TIMEOUT
#define TC_TIMEOUT 2000000   // the lite core (mk/tclite.mk), one burst at a time, needs more
#endif
static const uint64_t TIMEOUT = TC_TIMEOUT;  // cycles without reaching idle

// ---- the simulated tensor core ---------------------------------------------------------------------
struct Tc {
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<Vtsl_tc> top;
    std::unique_ptr<TslHbm> hbm;
    TslAxiPins p{};
    uint64_t cycle = 0;
    bool ready_seen = false;
    uint32_t rdata_seen = 0;
    std::vector<tsl_insn_t> pushed;   // the dispatcher's accepted pushes (tsl_tc_ctrl disp_push)
#if VM_TRACE
    std::unique_ptr<VerilatedFstC> tfp;
#endif

    explicit Tc(const TslHbmCfg &hc) : ctx(new VerilatedContext), top(new Vtsl_tc(ctx.get())), hbm(new TslHbm(hc)) {
#if VM_TRACE
        if (getenv("TRACE")) {
            ctx->traceEverOn(true);
            tfp.reset(new VerilatedFstC);
            top->trace(tfp.get(), 99);
            tfp->open("tc.fst");
            printf("tracing to tc.fst\n");
        }
#endif
        top->clk_i = 0;
        top->rst_ni = 0;
        top->reg_valid_i = 0;
        for (int i = 0; i < 4; i++) step();
        top->rst_ni = 1;
        step();
    }
    ~Tc() {
#if VM_TRACE
        if (tfp) tfp->close();
#endif
        top->final();
    }

    void step() {
        hbm->drive(p);
        tsl_axi_to_top(*top, p);
        top->eval();
#if TC_CORE == TSL_CORE_TC
        if (top->rootp->tsl_tc__DOT__u_ctrl__DOT__disp_push) {
            tsl_insn_t i;
            for (unsigned k = 0; k < TSL_PARAM_INSN_WORDS; k++) i.w[k] = top->rootp->tsl_tc__DOT__u_ctrl__DOT__disp_insn[k];
            pushed.push_back(i);
        }
#endif
        tsl_axi_from_top(*top, p);
        hbm->tick(p);
        ready_seen = top->reg_ready_o;
        rdata_seen = top->reg_rdata_o;
        top->clk_i = 1;
        top->eval();
#if VM_TRACE
        if (tfp) tfp->dump(2 * cycle + 1);
#endif
        top->clk_i = 0;
        top->eval();
#if VM_TRACE
        if (tfp) tfp->dump(2 * cycle + 2);
#endif
        cycle++;
    }

    // One register access on the control core's bus contract; false on a bus timeout.
    bool bus(uint32_t off, uint32_t wdata, bool write, uint32_t *rdata) {
        top->reg_valid_i = 1;
        top->reg_addr_i = off;
        top->reg_wdata_i = wdata;
        top->reg_wstrb_i = write ? 0xF : 0;
        for (uint64_t t = 0; t < TIMEOUT; t++) {
            step();
            if (ready_seen) {
                top->reg_valid_i = 0;
                if (rdata) *rdata = rdata_seen;
                return true;
            }
        }
        top->reg_valid_i = 0;
        return false;
    }
    uint32_t rd(uint32_t off) {
        uint32_t v = 0;
        if (!bus(off, 0, false, &v)) fprintf(stderr, "bus timeout reading TC 0x%03x\n", off);
        return v;
    }
    bool wr(uint32_t off, uint32_t v) {
        if (bus(off, v, true, nullptr)) return true;
        fprintf(stderr, "bus timeout writing TC 0x%03x\n", off);
        return false;
    }
    bool push(const tsl_insn_t &i) {
        for (unsigned k = 0; k < TSL_PARAM_INSN_WORDS; k++)
            if (!wr(TSL_TC_INSN0_OFFSET + 4 * k, i.w[k])) return false;
        return true;
    }
    // Wait for STATUS.IDLE (a dispatch error lets the instructions before it finish), or for an AXI
    // error, which halts the queues: then for the HBM model to drain. False on timeout.
    bool wait_idle() {
        uint64_t start = cycle;
        while (cycle - start < TIMEOUT) {
            uint32_t s = rd(TSL_TC_STATUS_OFFSET);
            bool axi = false;
            if (s & (1u << TSL_TC_STATUS_ERROR_SHIFT)) {
                uint32_t code = rd(TSL_TC_ERR_CODE_OFFSET);
                axi = code == TSL_ERR_AXI_SLVERR || code == TSL_ERR_AXI_DECERR;
            }
            if ((s & (1u << TSL_TC_STATUS_IDLE_SHIFT)) || axi) {
                while (!hbm->idle() && cycle - start < TIMEOUT) step();
                return hbm->idle();
            }
            for (int k = 0; k < 16; k++) step();
        }
        fprintf(stderr, "timeout: the tensor core did not become idle in %" PRIu64 " cycles: STATUS 0x%x QUEUE_LEVEL 0x%06x ERR_CODE %u\n",
                TIMEOUT, rd(TSL_TC_STATUS_OFFSET), rd(TSL_TC_QUEUE_LEVEL_OFFSET), rd(TSL_TC_ERR_CODE_OFFSET));
        return false;
    }
};

// ---- the golden model side --------------------------------------------------------------------------
static tslm_cfg_t model_cfg() {
    tslm_cfg_t c = tslm_cfg_default();
    c.n = N;
    c.vmem_bytes = VMEM;
    c.acc_bytes = ACC;
    c.hbm_bytes = HBM;
    c.features = 1u << TSL_TC_CFG_FEATURES_INT8_SHIFT | 1u << TSL_TC_CFG_FEATURES_SEQ_SHIFT |
                 1u << TSL_TC_CFG_FEATURES_WINDOW_SHIFT | 1u << TSL_TC_CFG_FEATURES_FETCH_SHIFT |
                 1u << TSL_TC_CFG_FEATURES_TRANSPOSE_SHIFT |
                 (TC_BF16 ? 1u << TSL_TC_CFG_FEATURES_BF16_SHIFT : 0u);
    c.core = TC_CORE;
    return c;
}

// Random HBM contents: 16-bit halves that are mostly moderate bf16 numbers (so float arithmetic
// exercises rounding rather than only NaN), with zeros, subnormals, infinities, NaNs and the bf16
// values around EXP's overflow (88.72) and FTZ (-87.34) thresholds and |x| = 128 mixed in.
static void fill_hbm(TslRng &r, uint8_t *h, uint32_t bytes) {
    static const uint16_t EXP_EDGES[] = {0x42B1, 0x42B2, 0xC2AE, 0xC2AF, 0x4300, 0xC300, 0x42FF, 0xC2FF};
    for (uint32_t a = 0; a + 1 < bytes; a += 2) {
        uint16_t s = (uint16_t)(r.below(2) << 15), f = (uint16_t)r.below(128), v;
        uint32_t k = r.below(100);
        if (k < 80) v = (uint16_t)(s | ((120 + r.below(14)) << 7) | f);
        else if (k < 85) v = s;
        else if (k < 88) v = (uint16_t)(s | (f | 1));
        else if (k < 90) v = (uint16_t)(s | 0x7F80);
        else if (k < 92) v = (uint16_t)(0x7FC0 | s | f);
        else if (k < 94) v = EXP_EDGES[r.below(sizeof EXP_EDGES / sizeof EXP_EDGES[0])];
        else v = (uint16_t)r.next();
        h[a] = (uint8_t)v;
        h[a + 1] = (uint8_t)(v >> 8);
    }
}

// The comparable TC registers (exact in the model): every readable one but ID, CFG_* and
// IRQ_ENABLE (hw/spec/tessel.toml, through tsl_tc_reg_at).
static bool compared(const tsl_reg_info_t *r) {
    return r->access != TSL_ACCESS_WO && r->offset != TSL_TC_ID_OFFSET && r->offset != TSL_TC_IRQ_ENABLE_OFFSET &&
           strncmp(r->name, "CFG_", 4) != 0;
}
static const struct { unsigned idx; const char *name; } PERFS[] = {
    {TSL_PERF_DMA_INSNS, "DMA_INSNS"}, {TSL_PERF_MXU_INSNS, "MXU_INSNS"}, {TSL_PERF_VPU_INSNS, "VPU_INSNS"},
    {TSL_PERF_HBM_RD_BYTES, "HBM_RD_BYTES"}, {TSL_PERF_HBM_WR_BYTES, "HBM_WR_BYTES"}, {TSL_PERF_MXU_MACS, "MXU_MACS"},
};

static uint64_t perf(Tc &tc, unsigned idx) {
    uint32_t off = TSL_TC_PERF_BASE + 8 * idx;
    uint32_t lo = tc.rd(off);
    return lo | (uint64_t)tc.rd(off + 4) << 32;
}
static uint64_t perf(tslm_t *m, unsigned idx) {
    uint32_t off = TSL_TC_PERF_BASE + 8 * idx;
    return tslm_reg_read(m, off) | (uint64_t)tslm_reg_read(m, off + 4) << 32;
}

// A program: instructions to push, in order, to both sides.
struct Prog {
    std::vector<tsl_insn_t> insns;
    std::string name;
    std::vector<uint32_t> desc;   // then launch this tile-sequencer descriptor (SEQ0..SEQ23), if any
    // HBM_BASE and HBM_LIMIT written (on both sides) before pushing insns[at] (at = insns.size():
    // before the descriptor); the window goes back to all of HBM for the dump
    struct WinSet { size_t at; uint32_t base, limit; };
    std::vector<WinSet> wins;
    bool no_err = false;          // the program must end without an error (ERR_CODE NONE)
    bool seq_prefix = false;      // the RTL lacks EPI: compare the dispatched stream up to the first
                                  // EPI only (the RTL refuses it), and nothing else
    // an independent check of the RTL's final HBM against its initial contents (false: mismatch)
    std::function<bool(const std::vector<uint8_t> &init, const uint8_t *fin)> ref_check;
    // a device program (docs/isa.md section 6, Program fetch) written into HBM at prog_addr on both
    // sides and run with PROG_ADDR/PROG_BYTES = prog_addr/prog_bytes after insns and desc
    std::vector<uint32_t> image;
    uint32_t prog_addr = 0, prog_bytes = 0;
    int64_t hold_for = -1;        // >= 0: PROG_HOLD.HOLD is set before the PROG_BYTES write and cleared
                                  // this many cycles after it, the window written again meanwhile
    int64_t reset_after = -1;     // >= 0: the RTL's first fetch is stopped by CTRL.RESET this many
                                  // cycles after the PROG_BYTES write, then both sides run it whole
};

static void print_insn(const tsl_insn_t &i) {
    fprintf(stderr, "   ");
    for (unsigned k = 0; k < TSL_PARAM_INSN_WORDS; k++) fprintf(stderr, " %08x", i.w[k]);
    fprintf(stderr, "\n");
}

// DMA STOREs that copy all of VMEM and ACC to the dump area above DATA_END.
static std::vector<tsl_insn_t> dump_insns() {
    std::vector<tsl_insn_t> v;
    const uint32_t row = 4096;
    v.push_back(tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
            .op = TSL_DMA_OP_STORE, .hbm_addr = DATA_END, .rows = VMEM / row, .row_bytes = row, .hbm_stride = row,
            .local_stride = row}));
    v.push_back(tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
            .op = TSL_DMA_OP_STORE, .hbm_addr = DATA_END + VMEM, .local_addr = ACC_BASE, .rows = ACC / row,
            .row_bytes = row, .hbm_stride = row, .local_stride = row}));
    return v;
}

struct Result {
    bool ok;
    uint64_t cycles;            // cycles of the program itself (first push to idle)
    uint64_t perf_cycles, mxu_busy, dma_busy;  // RTL performance counters after the program
};

static unsigned g_reset_busy = 0;   // CTRL.RESETs that found PROG_STATUS.BUSY set

// Runs `prog` on both sides from the same state and compares. `inject` = HBM error injections
// (address, length, on_write, resp) applied to the RTL only; `expect_err` then names the ERR code
// the RTL must report (the model has no AXI errors, so its registers are not compared).
// `may_differ` is the one byte range (in dump coordinates: HBM offsets) that the failing instruction
// of an AXI-error test may have left different from the model, which ran it to the end.
struct Inject { uint32_t addr, len; bool on_write; uint8_t resp; };
struct Window { uint32_t lo, hi; };
static Result run_prog(const Prog &prog, uint64_t seed, const TslHbmCfg &hc, tslm_sched_t sched = TSLM_SCHED_PUSH_ORDER,
                       const std::vector<Inject> &inject = {}, uint32_t expect_err = 0, Window may_differ = {0, 0}) {
    Result res{false, 0, 0, 0, 0};
    TslRng r{seed};
    tslm_t m;
    memset(&m, 0, sizeof m);
    tslm_cfg_t cfg = model_cfg();
    if (tslm_init(&m, &cfg) != TSLM_OK) {
        fprintf(stderr, "tslm_init failed\n");
        return res;
    }
    Tc tc(hc);
    fill_hbm(r, tslm_hbm(&m), HBM);
    if (!prog.image.empty()) memcpy(tslm_hbm(&m) + prog.prog_addr, prog.image.data(), 4 * prog.image.size());
    std::vector<uint8_t> hbm_init;
    if (prog.ref_check) hbm_init.assign(tslm_hbm(&m), tslm_hbm(&m) + HBM);
    memcpy(tc.hbm->data(), tslm_hbm(&m), HBM);

    // Prologue: VMEM and ACC get random contents from HBM through the DMA, on both sides.
    const uint32_t row = 4096;
    std::vector<tsl_insn_t> pro = {
        tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                .op = TSL_DMA_OP_LOAD, .rows = VMEM / row, .row_bytes = row, .hbm_stride = row,
                .local_stride = row}),
        tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                .op = TSL_DMA_OP_LOAD, .hbm_addr = DATA_END - ACC, .local_addr = ACC_BASE, .rows = ACC / row,
                .row_bytes = row, .hbm_stride = row, .local_stride = row}),
    };
    bool ok = true;
    for (auto &i : pro) {
        ok = ok && tslm_push(&m, i.w) == TSLM_OK && tc.push(i);
    }
    tslm_run(&m);
    ok = ok && tc.wait_idle();
    tslm_reg_write(&m, TSL_TC_CTRL_OFFSET, (1u << TSL_TC_CTRL_CLEAR_PERF_SHIFT));
    ok = ok && tc.wr(TSL_TC_CTRL_OFFSET, (1u << TSL_TC_CTRL_CLEAR_PERF_SHIFT));
    tslm_reg_write(&m, TSL_TC_IRQ_ENABLE_OFFSET, 3);
    ok = ok && tc.wr(TSL_TC_IRQ_ENABLE_OFFSET, 3);
    tslm_set_schedule(&m, sched, seed);
    for (auto &in : inject) tc.hbm->inject(in.addr, in.len, in.on_write, in.resp);

    uint64_t c0 = tc.cycle;
    uint32_t pc0 = tslm_reg_read(&m, TSL_TC_PUSH_COUNT_OFFSET);   // the prologue's pushes
    tc.pushed.clear();
    auto set_window = [&](uint32_t base, uint32_t limit) {
        tslm_reg_write(&m, TSL_TC_HBM_BASE_OFFSET, base);
        tslm_reg_write(&m, TSL_TC_HBM_LIMIT_OFFSET, limit);
        return tc.wr(TSL_TC_HBM_BASE_OFFSET, base) && tc.wr(TSL_TC_HBM_LIMIT_OFFSET, limit);
    };
    auto windows_at = [&](size_t k) {
        for (auto &w : prog.wins)
            if (w.at == k) ok = ok && set_window(w.base, w.limit);
    };
    for (size_t k = 0; ok && k < prog.insns.size(); k++) {
        windows_at(k);
        bool was_ok = tslm_reg_read(&m, TSL_TC_ERR_CODE_OFFSET) == TSL_ERR_NONE;
        if (tslm_push(&m, prog.insns[k].w) != TSLM_OK && was_ok && getenv("TC_VERBOSE")) {
            fprintf(stderr, "model rejected instruction %zu with ERR %u:\n", k, tslm_reg_read(&m, TSL_TC_ERR_CODE_OFFSET));
            print_insn(prog.insns[k]);
        }
        ok = tc.push(prog.insns[k]);
        if (getenv("TC_VERBOSE"))
            fprintf(stderr, "push %zu: w0 %08x rtl ERR %u PUSH_COUNT %u STATUS %x, model ERR %u\n", k, prog.insns[k].w[0],
                    tc.rd(TSL_TC_ERR_CODE_OFFSET), tc.rd(TSL_TC_PUSH_COUNT_OFFSET), tc.rd(TSL_TC_STATUS_OFFSET),
                    tslm_reg_read(&m, TSL_TC_ERR_CODE_OFFSET));
    }
    windows_at(prog.insns.size());
    std::vector<tsl_insn_t> want = prog.insns;   // the dispatched stream, pushes then the expansion
    if (ok && !prog.desc.empty()) {
        uint32_t ea;
        bool launch = tslm_reg_read(&m, TSL_TC_ERR_CODE_OFFSET) == TSL_ERR_NONE &&
                      tslm_seq_check(&m, prog.desc.data(), &ea) == TSL_ERR_NONE;
        if (launch)
            tslm_seq_expand(&m.cfg, prog.desc.data(),
                            [](void *ctx, const tsl_insn_t *i) { static_cast<std::vector<tsl_insn_t> *>(ctx)->push_back(*i); },
                            &want);
        for (unsigned k = 0; ok && k < TSL_PARAM_SEQ_WORDS; k++) {
            tslm_reg_write(&m, TSL_TC_SEQ0_OFFSET + 4 * k, prog.desc[k]);
            ok = tc.wr(TSL_TC_SEQ0_OFFSET + 4 * k, prog.desc[k]);
        }
    }
    if (ok && !prog.image.empty()) {
        tslm_reg_write(&m, TSL_TC_PROG_ADDR_OFFSET, prog.prog_addr);
        ok = tc.wr(TSL_TC_PROG_ADDR_OFFSET, prog.prog_addr);
        if (ok && prog.reset_after >= 0) {
            // CTRL.RESET in the middle of the fetch: it stops, nothing is pushed after the reset,
            // and the model (which has not run the program) agrees on every register
            ok = tc.wr(TSL_TC_PROG_BYTES_OFFSET, prog.prog_bytes);
            for (int64_t t = 0; t < prog.reset_after; t++) tc.step();
            if (ok && (tc.rd(TSL_TC_PROG_STATUS_OFFSET) & 1u << TSL_TC_PROG_STATUS_BUSY_SHIFT)) g_reset_busy++;
            uint32_t rst = 1u << TSL_TC_CTRL_RESET_SHIFT | 1u << TSL_TC_CTRL_CLEAR_PERF_SHIFT;
            tslm_reg_write(&m, TSL_TC_CTRL_OFFSET, rst);
            ok = ok && tc.wr(TSL_TC_CTRL_OFFSET, rst);
            for (int t = 0; t < 400; t++) tc.step();
            for (uint32_t off : {TSL_TC_PUSH_COUNT_OFFSET, TSL_TC_PROG_STATUS_OFFSET, TSL_TC_STATUS_OFFSET,
                                 TSL_TC_QUEUE_LEVEL_OFFSET, TSL_TC_ERR_CODE_OFFSET, TSL_TC_PROG_ADDR_OFFSET})
                if (ok && tc.rd(off) != tslm_reg_read(&m, off)) {
                    fprintf(stderr, "FAIL %s (seed 0x%" PRIx64 "): after CTRL.RESET in a fetch (%" PRId64 " cycles in) "
                            "TC 0x%03x rtl 0x%x model 0x%x\n", prog.name.c_str(), seed, prog.reset_after, off,
                            tc.rd(off), tslm_reg_read(&m, off));
                    ok = false;
                }
            if (!tc.hbm->idle()) {
                fprintf(stderr, "FAIL %s (seed 0x%" PRIx64 "): AXI reads outstanding after CTRL.RESET\n", prog.name.c_str(), seed);
                ok = false;
            }
            tc.pushed.clear();
        }
        uint32_t hold = 1u << TSL_TC_PROG_HOLD_HOLD_SHIFT;
        size_t pushed0 = tc.pushed.size();
        if (prog.hold_for >= 0) {
            tslm_reg_write(&m, TSL_TC_PROG_HOLD_OFFSET, hold);
            ok = ok && tc.wr(TSL_TC_PROG_HOLD_OFFSET, hold);
        }
        tslm_reg_write(&m, TSL_TC_PROG_BYTES_OFFSET, prog.prog_bytes);
        ok = ok && tc.wr(TSL_TC_PROG_BYTES_OFFSET, prog.prog_bytes);
        if (ok && prog.hold_for >= 0) {
            // held: the fetch reads ahead, nothing is pushed, the window can be written, and the
            // registers read as the model's (which has not run the program); then the release
            for (int64_t t = 0; t < prog.hold_for; t++) tc.step();
            const auto &w = prog.wins.back();
            for (auto [off, v] : {std::pair<uint32_t, uint32_t>{TSL_TC_HBM_BASE_OFFSET, w.base}, {TSL_TC_HBM_LIMIT_OFFSET, w.limit}}) {
                tslm_reg_write(&m, off, v);
                ok = ok && tc.wr(off, v);
            }
            for (uint32_t off : {TSL_TC_PUSH_COUNT_OFFSET, TSL_TC_PROG_STATUS_OFFSET, TSL_TC_STATUS_OFFSET,
                                 TSL_TC_PROG_HOLD_OFFSET, TSL_TC_ERR_CODE_OFFSET})
                if (ok && tc.rd(off) != tslm_reg_read(&m, off)) {
                    fprintf(stderr, "FAIL %s (seed 0x%" PRIx64 "): %" PRId64 " cycles into a held fetch TC 0x%03x rtl 0x%x "
                            "model 0x%x\n", prog.name.c_str(), seed, prog.hold_for, off, tc.rd(off), tslm_reg_read(&m, off));
                    ok = false;
                }
            if (tc.pushed.size() != pushed0) {
                fprintf(stderr, "FAIL %s (seed 0x%" PRIx64 "): %zu instructions dispatched from a held fetch\n",
                        prog.name.c_str(), seed, tc.pushed.size() - pushed0);
                ok = false;
            }
            tslm_reg_write(&m, TSL_TC_PROG_HOLD_OFFSET, 0);
            ok = ok && tc.wr(TSL_TC_PROG_HOLD_OFFSET, 0);
        }
    }
    tslm_run(&m);
    ok = ok && tc.wait_idle();
    res.cycles = tc.cycle - c0;
    if (ok && !prog.desc.empty()) {
        // The RTL's accepted pushes against the model's (its rejected tail is in neither). Without
        // EPI in the RTL, they are a prefix of the model's that reaches the first EPI at least; the
        // RTL may refuse an EPI (ERR_UNIT VPU at its sequence number) or take it for a VPU_VEC op,
        // and nothing else is comparable then.
        uint32_t model_pushed = tslm_reg_read(&m, TSL_TC_PUSH_COUNT_OFFSET) - pc0;
        size_t n_want = model_pushed < want.size() ? model_pushed : want.size(), n_min = n_want;
        if (prog.seq_prefix)
            for (size_t k = 0; k < n_want; k++)
                if (tsl_insn_hdr_decode(want[k].w).unit == TSL_UNIT_VPU && tsl_insn_hdr_decode(want[k].w).op == TSL_VPU_OP_EPI) {
                    n_min = k;
                    break;
                }
        size_t got = tc.pushed.size(), n = got < n_want ? got : n_want;
        for (size_t k = 0; ok && k < n; k++)
            if (memcmp(tc.pushed[k].w, want[k].w, sizeof want[k].w)) {
                fprintf(stderr, "FAIL %s (seed 0x%" PRIx64 "): dispatched instruction %zu of %zu differs\n  expected:",
                        prog.name.c_str(), seed, k, n_want);
                print_insn(want[k]);
                fprintf(stderr, "  got:");
                print_insn(tc.pushed[k]);
                ok = false;
            }
        if (ok && (got < n_min || got > n_want)) {
            fprintf(stderr, "FAIL %s (seed 0x%" PRIx64 "): %zu instructions dispatched, expected %zu\n", prog.name.c_str(),
                    seed, got, n_want);
            ok = false;
        }
        if (prog.seq_prefix) {
            if (ok && got < n_want) {
                uint32_t unit = tc.rd(TSL_TC_ERR_UNIT_OFFSET), eseq = tc.rd(TSL_TC_ERR_SEQ_OFFSET);
                if (unit != TSL_UNIT_VPU || eseq != pc0 + got || tsl_insn_hdr_decode(want[got].w).op != TSL_VPU_OP_EPI) {
                    fprintf(stderr, "FAIL %s (seed 0x%" PRIx64 "): the RTL stopped at instruction %zu, not at an EPI "
                            "(ERR_UNIT %u ERR_SEQ %u)\n", prog.name.c_str(), seed, got, unit, eseq);
                    ok = false;
                }
            }
            tslm_free(&m);
            res.ok = ok;
            return res;
        }
    }
    if (ok) {
        res.perf_cycles = perf(tc, TSL_PERF_CYCLES);
        res.mxu_busy = perf(tc, TSL_PERF_MXU_BUSY);
        res.dma_busy = perf(tc, TSL_PERF_DMA_BUSY);
    }
    if (!ok) {
        fprintf(stderr, "FAIL %s (seed 0x%" PRIx64 "): bus or idle timeout (HBM latency %u, %u B/cycle, %u outstanding, ready %u %%)\n",
                prog.name.c_str(), seed, hc.latency, hc.bytes_per_cycle, hc.max_outstanding, hc.ready_percent);
        tslm_free(&m);
        return res;
    }

    if (expect_err) {
        uint32_t code = tc.rd(TSL_TC_ERR_CODE_OFFSET), ea = tc.rd(TSL_TC_ERR_ADDR_OFFSET);
        uint32_t st = tc.rd(TSL_TC_STATUS_OFFSET), unit = tc.rd(TSL_TC_ERR_UNIT_OFFSET);
        const Inject &in = inject[0];
        // A read names the failing beat; a write names the start of its burst (at most 256 beats).
        uint32_t lo = in.on_write ? in.addr - (in.addr < 256 * TC_AXI_BYTES ? in.addr : 256 * TC_AXI_BYTES) : in.addr - in.addr % TC_AXI_BYTES;
        if (code != expect_err || unit != TSL_UNIT_DMA || !(st & (1u << TSL_TC_STATUS_ERROR_SHIFT)) || ea < lo ||
            ea >= in.addr + in.len || !tc.top->irq_o) {
            fprintf(stderr, "FAIL %s: ERR_CODE %u (expected %u) ERR_UNIT %u ERR_ADDR 0x%x (injected at 0x%x+%u) STATUS 0x%x\n",
                    prog.name.c_str(), code, expect_err, unit, ea, in.addr, in.len, st);
            ok = false;
        }
    } else {
        for (uint32_t k = 0; k < TSL_TC_REG_COUNT; k++) {
            const tsl_reg_info_t &reg = *tsl_tc_reg_at(k);
            if (!compared(&reg)) continue;
            uint32_t a = tc.rd(reg.offset), b = tslm_reg_read(&m, reg.offset);
            if (a != b) {
                fprintf(stderr, "FAIL %s (seed 0x%" PRIx64 "): %s rtl 0x%x model 0x%x\n", prog.name.c_str(), seed,
                        reg.name, a, b);
                ok = false;
            }
        }
        for (auto &pc : PERFS) {
            uint64_t a = perf(tc, pc.idx), b = perf(&m, pc.idx);
            if (a != b) {
                fprintf(stderr, "FAIL %s (seed 0x%" PRIx64 "): PERF_%s rtl %" PRIu64 " model %" PRIu64 "\n",
                        prog.name.c_str(), seed, pc.name, a, b);
                ok = false;
            }
        }
        if (tc.top->irq_o != tslm_irq(&m)) {
            fprintf(stderr, "FAIL %s: irq_o %d model %d\n", prog.name.c_str(), tc.top->irq_o, tslm_irq(&m));
            ok = false;
        }
        if (prog.no_err && tc.rd(TSL_TC_ERR_CODE_OFFSET) != TSL_ERR_NONE) {
            fprintf(stderr, "FAIL %s (seed 0x%" PRIx64 "): ERR_CODE %u ERR_ADDR 0x%x where no error may be\n",
                    prog.name.c_str(), seed, tc.rd(TSL_TC_ERR_CODE_OFFSET), tc.rd(TSL_TC_ERR_ADDR_OFFSET));
            ok = false;
        }
    }
    if (!tc.hbm->violations().empty()) {
        fprintf(stderr, "FAIL %s (seed 0x%" PRIx64 "): AXI violation: %s\n", prog.name.c_str(), seed,
                tc.hbm->violations()[0].c_str());
        ok = false;
    }

    // Dump VMEM and ACC into HBM on both sides (after a reset if an error halted the queues).
    tc.hbm->clear_injections();
    tslm_reg_write(&m, TSL_TC_CTRL_OFFSET, (1u << TSL_TC_CTRL_RESET_SHIFT));
    bool dok = tc.wr(TSL_TC_CTRL_OFFSET, (1u << TSL_TC_CTRL_RESET_SHIFT));
    if (!prog.wins.empty()) {   // CTRL.RESET keeps the window (as the model does); then all of HBM
        for (uint32_t off : {TSL_TC_HBM_BASE_OFFSET, TSL_TC_HBM_LIMIT_OFFSET})
            if (dok && tc.rd(off) != tslm_reg_read(&m, off)) {
                fprintf(stderr, "FAIL %s (seed 0x%" PRIx64 "): after CTRL.RESET TC 0x%03x rtl 0x%x model 0x%x\n",
                        prog.name.c_str(), seed, off, tc.rd(off), tslm_reg_read(&m, off));
                ok = false;
            }
        dok = dok && set_window(0, HBM);
    }
    tslm_set_schedule(&m, TSLM_SCHED_PUSH_ORDER, 0);
    for (auto &i : dump_insns()) dok = dok && tslm_push(&m, i.w) == TSLM_OK && tc.push(i);
    tslm_run(&m);
    dok = dok && tc.wait_idle();
    if (!dok) {
        fprintf(stderr, "FAIL %s (seed 0x%" PRIx64 "): the dump did not complete\n", prog.name.c_str(), seed);
        ok = false;
    } else {
        const uint8_t *a = tc.hbm->data(), *b = tslm_hbm(&m);
        for (uint32_t x = 0; x < HBM; x++) {
            if (a[x] == b[x] || (x >= may_differ.lo && x < may_differ.hi)) continue;
            const char *where = "HBM";
            uint32_t ad = x;
            if (x >= DATA_END + VMEM) where = "ACC", ad = ACC_BASE + (x - DATA_END - VMEM);
            else if (x >= DATA_END) where = "VMEM", ad = x - DATA_END;
            fprintf(stderr, "FAIL %s (seed 0x%" PRIx64 "): first difference at %s 0x%08x: rtl %02x model %02x\n",
                    prog.name.c_str(), seed, where, ad, a[x], b[x]);
            ok = false;
            break;
        }
        if (ok && prog.ref_check && !prog.ref_check(hbm_init, a)) {
            fprintf(stderr, "FAIL %s (seed 0x%" PRIx64 "): C differs from hw/model/ref.h\n", prog.name.c_str(), seed);
            ok = false;
        }
    }
    if (!ok && prog.insns.size() <= 400) {
        fprintf(stderr, "  program (%zu instructions):\n", prog.insns.size());
        for (auto &i : prog.insns) print_insn(i);
    }
    tslm_free(&m);
    res.ok = ok;
    return res;
}

// ---- random race-free programs -----------------------------------------------------------------
// Every instruction records the local byte ranges it reads and writes. When an instruction of unit U
// touches bytes that an instruction of unit V != U touched since V last synchronised to U (and one
// of the two writes), V gives U a token (the SIGNAL bit of V's latest instruction, or a SYNC) and
// the new instruction waits for it. Every signal is matched by exactly one wait, so the result
// does not depend on the schedule; the model double-checks that with a random schedule.
struct Range { uint64_t lo, hi; bool w; };

struct Gen {
    TslRng r;
    bool bf16;
    Prog prog;
    std::vector<Range> pend[3][3];
    int last[3] = {-1, -1, -1};
    int wbuf_dt[2] = {-1, -1};

    static bool conflict(const std::vector<Range> &a, const std::vector<Range> &b) {
        for (auto &x : a)
            for (auto &y : b)
                if ((x.w || y.w) && x.lo < y.hi && y.lo < x.hi) return true;
        return false;
    }
    void emit(tsl_insn_t i, uint32_t u, const std::vector<Range> &acc) {
        for (uint32_t v = 0; v < 3; v++) {
            if (v == u) continue;
            if (!conflict(pend[v][u], acc) && !r.chance(0.03)) continue;
            int l = last[v];
            if (l >= 0 && !(TSL_GET(prog.insns[l].w, TSL_INSN_HDR_SIGNAL) & TSL_TOK(u)) && r.chance(0.7)) {
                tsl_insn_signal(&prog.insns[l], TSL_TOK(u));
            } else {
                tsl_insn_t s = tsl_insn_sync_encode(tsl_insn_sync_t{.unit = v});
                tsl_insn_signal(&s, TSL_TOK(u));
                if (r.chance(0.2)) tsl_insn_notify(&s);
                last[v] = (int)prog.insns.size();
                prog.insns.push_back(s);
            }
            tsl_insn_wait(&i, TSL_TOK(v));
            pend[v][u].clear();
        }
        if (r.chance(0.1)) tsl_insn_notify(&i);
        for (uint32_t w = 0; w < 3; w++)
            if (w != u) pend[u][w].insert(pend[u][w].end(), acc.begin(), acc.end());
        last[u] = (int)prog.insns.size();
        prog.insns.push_back(i);
    }

    // A stride for `rows` rows of `rb` bytes in a space of `room` bytes, multiple of `align`.
    uint32_t stride(uint32_t rows, uint32_t rb, uint32_t room, uint32_t align) {
        uint32_t s;
        switch (r.below(6)) {
        case 0: s = 0; break;
        case 1: s = r.below(rb + 1); break;                    // overlapping rows
        case 2: s = rb + r.below(3 * N); break;
        default: s = rb; break;
        }
        s -= s % align;
        if (rows > 1 && (uint64_t)(rows - 1) * s + rb > room) s = 0;
        return s;
    }
    static uint64_t extent(uint32_t rows, uint32_t s, uint32_t rb) { return (uint64_t)(rows - 1) * s + rb; }

    void dma() {
        bool store = r.chance(0.4), acc = r.chance(0.3);
        uint32_t align = acc ? 4 : 1, room = acc ? ACC : VMEM;
        uint32_t rb = r.chance(0.2) ? 1 + r.below(600) : 1 + r.below(6 * N);
        rb = acc ? 4 * (1 + rb / 4) : rb;
        uint32_t rows = r.chance(0.2) ? 1 : 1 + r.below(r.chance(0.2) ? 40 : 8);
        uint32_t ls = stride(rows, rb, room, align), hs = stride(rows, rb, DATA_END, 1);
        if (store && ls < rb && rows > 1 && r.chance(0.5)) hs = rb;  // keep some stores dense
        uint32_t la = r.below((uint32_t)(room - extent(rows, ls, rb) + 1));
        la -= la % align;
        uint32_t ha = r.below((uint32_t)(DATA_END - extent(rows, hs, rb) + 1));
        if (acc) la += ACC_BASE;
        std::vector<Range> a;
        for (uint32_t k = 0; k < rows; k++) a.push_back({(uint64_t)la + (uint64_t)k * ls, (uint64_t)la + (uint64_t)k * ls + rb, !store});
        emit(tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                .op = store ? TSL_DMA_OP_STORE : TSL_DMA_OP_LOAD, .hbm_addr = ha, .local_addr = la, .rows = rows,
                .row_bytes = rb, .hbm_stride = hs, .local_stride = ls}), TSL_UNIT_DMA, a);
    }

    uint32_t vec_addr(uint32_t base, uint32_t room, uint32_t vb, uint32_t rows, uint32_t stride_) {
        uint64_t ext = extent(rows, stride_, vb);
        return base + r.below((uint32_t)((room - ext) / vb + 1)) * vb;
    }

    void loadw() {
        uint32_t dt = bf16 && r.chance(0.5) ? TSL_DTYPE_BF16 : TSL_DTYPE_INT8, vb = N * tsl_dtype_bytes(dt);
        uint32_t wb = r.below(2), s = r.chance(0.1) ? 0 : vb * (1 + r.below(3));
        uint32_t a = vec_addr(0, VMEM, vb, N, s);
        std::vector<Range> acc;
        for (uint32_t k = 0; k < N; k++) acc.push_back({(uint64_t)a + (uint64_t)k * s, (uint64_t)a + (uint64_t)k * s + vb, false});
        wbuf_dt[wb] = (int)dt;
        emit(tsl_insn_mxu_loadw_encode(tsl_insn_mxu_loadw_t{
                .dtype = dt, .wbuf = wb, .transpose = transpose(), .addr = a, .stride = s}), TSL_UNIT_MXU, acc);
    }

    void matmul() {
        uint32_t wb = r.below(2);
        if (wbuf_dt[wb] < 0) return loadw();
        uint32_t dt = (uint32_t)wbuf_dt[wb], vb = N * tsl_dtype_bytes(dt);
        uint32_t rows = 1 + r.below(r.chance(0.3) ? 8 * N : 3 * N);
        uint32_t as = r.chance(0.1) ? 0 : vb * (1 + r.below(2)), cs = r.chance(0.05) ? 0 : 4 * N * (1 + r.below(2));
        if (extent(rows, as, vb) > VMEM) as = vb;
        while (extent(rows, cs, 4 * N) > ACC) cs = 0;
        uint32_t a = vec_addr(0, VMEM, vb, rows, as), c = vec_addr(ACC_BASE, ACC, 4 * N, rows, cs);
        std::vector<Range> acc;
        for (uint32_t k = 0; k < rows; k++) {
            acc.push_back({(uint64_t)a + (uint64_t)k * as, (uint64_t)a + (uint64_t)k * as + vb, false});
            acc.push_back({(uint64_t)c + (uint64_t)k * cs, (uint64_t)c + (uint64_t)k * cs + 4 * N, true});
        }
        emit(tsl_insn_mxu_matmul_encode(tsl_insn_mxu_matmul_t{
                .dtype = dt, .wbuf = wb, .accumulate = r.below(2), .act_addr = a, .act_stride = as, .acc_addr = c,
                .acc_stride = cs, .rows = rows}), TSL_UNIT_MXU, acc);
    }

    // TRANSPOSE on a third of the LOADWs and MATMULKs, where the core has it (CFG_FEATURES.TRANSPOSE).
    uint32_t transpose() { return TC_CORE == TSL_CORE_TC && r.chance(0.33) ? 1u : 0u; }

    // MATMULK: kb K-blocks; activation rows of kb vectors, kb*N weight rows (TRANSPOSE: N columns of
    // kb vectors), both buffers when kb > 1.
    void matmulk() {
        uint32_t dt = bf16 && r.chance(0.5) ? TSL_DTYPE_BF16 : TSL_DTYPE_INT8, vb = N * tsl_dtype_bytes(dt);
        uint32_t kb = 1 + r.below(r.chance(0.2) ? 12 : 4), wb = r.below(2), rows = 1 + r.below(r.chance(0.3) ? 4 * N : N);
        uint32_t ab = kb * vb, as = ab * (1 + r.below(2)), ws = vb * (1 + r.below(2)), cs = 4 * N * (1 + r.below(2));
        while (extent(rows, as, ab) > VMEM) as = ab, rows = (rows + 1) / 2;
        while (extent(kb * N, ws, vb) > VMEM) ws = vb, kb = (kb + 1) / 2, ab = kb * vb, as = ab;
        while (extent(rows, cs, 4 * N) > ACC) cs = 0;
        uint32_t tr = transpose();
        if (tr) ws = ab * (1 + r.below(2)) - (r.chance(0.3) ? vb : 0);   // columns of kb vectors, some overlapping
        if (tr && extent(N, ws, ab) > VMEM) ws = ab;
        uint32_t a = vec_addr(0, VMEM - (ab - vb), vb, rows, as);
        uint32_t w = tr ? vec_addr(0, VMEM - (ab - vb), vb, N, ws) : vec_addr(0, VMEM, vb, kb * N, ws);
        uint32_t c = vec_addr(ACC_BASE, ACC, 4 * N, rows, cs);
        std::vector<Range> acc;
        for (uint32_t k = 0; k < rows; k++) {
            acc.push_back({(uint64_t)a + (uint64_t)k * as, (uint64_t)a + (uint64_t)k * as + ab, false});
            acc.push_back({(uint64_t)c + (uint64_t)k * cs, (uint64_t)c + (uint64_t)k * cs + 4 * N, true});
        }
        for (uint32_t k = 0; k < (tr ? N : kb * N); k++)
            acc.push_back({(uint64_t)w + (uint64_t)k * ws, (uint64_t)w + (uint64_t)k * ws + (tr ? ab : vb), false});
        wbuf_dt[wb] = (int)dt;
        if (kb > 1) wbuf_dt[wb ^ 1] = (int)dt;
        emit(tsl_insn_mxu_matmulk_encode(tsl_insn_mxu_matmulk_t{
                .dtype = dt, .wbuf = wb, .accumulate = r.below(2), .transpose = tr, .act_addr = a, .act_stride = as,
                .acc_addr = c, .acc_stride = cs, .rows = rows, .kblocks = kb, .w_addr = w, .w_stride = ws}),
             TSL_UNIT_MXU, acc);
    }

    // A vector operand of `rows` contiguous rows of type dt: 8/16-bit in VMEM, 32-bit mostly in ACC.
    uint32_t operand(uint32_t dt, uint32_t rows) {
        uint32_t vb = N * tsl_dtype_bytes(dt);
        bool acc = tsl_dtype_bytes(dt) == 4 && r.chance(0.75);
        return acc ? vec_addr(ACC_BASE, ACC, vb, rows, vb) : vec_addr(0, VMEM, vb, rows, vb);
    }
    uint32_t pick(bool fl) {
        return fl ? (r.below(2) ? TSL_DTYPE_BF16 : TSL_DTYPE_FP32) : (r.below(2) ? TSL_DTYPE_INT8 : TSL_DTYPE_INT32);
    }

    static bool binary(uint32_t op) { return !tsl_ops_has(TSL_OPS_UNARY, TSL_UNIT_VPU, op); }
    static bool float_ok(uint32_t op) { return tsl_ops_has(TSL_OPS_FLOAT, TSL_UNIT_VPU, op); }
    static bool int_ok(uint32_t op) { return tsl_ops_has(TSL_OPS_INT, TSL_UNIT_VPU, op); }
    // The VPU ops of this core (hw/spec/tessel.toml [[ops]]), by code; without bf16, those of the
    // integer class.
    static const std::vector<uint32_t> &ops() {
        static const std::vector<uint32_t> v = [] {
            static const uint32_t all[] = TSL_VPU_OPS;
            std::vector<uint32_t> o;
            for (uint32_t op : all)
                if (tsl_op_on_core(TC_CORE, TSL_UNIT_VPU, op) && (int_ok(op) || TC_BF16)) o.push_back(op);
            return o;
        }();
        return v;
    }

    // One VPU instruction with the given op, types and source mode; addresses and values random.
    void vpu_with(uint32_t op, bool fl, uint32_t dd, uint32_t d1, uint32_t mode, uint32_t d2, uint32_t rows) {
        uint32_t s2 = 0;
        uint32_t dst = operand(dd, rows), s1 = r.chance(0.2) && dd == d1 ? dst : operand(d1, rows);
        std::vector<Range> acc;
        auto add = [&](uint32_t a, uint32_t dt, uint32_t n, bool w) {
            acc.push_back({a, (uint64_t)a + (uint64_t)n * N * tsl_dtype_bytes(dt), w});
        };
        add(dst, dd, rows, true);
        add(s1, d1, rows, false);
        if (!binary(op)) {
            mode = d2 = 0;
        } else if (mode == TSL_SRC2_IMM) {
            d2 = fl ? TSL_DTYPE_FP32 : TSL_DTYPE_INT32;
            s2 = fl ? (uint32_t)(r.below(2) << 31 | (118 + r.below(18)) << 23 | r.below(1u << 23)) : (uint32_t)r.next();
        } else {
            uint32_t n2 = mode == TSL_SRC2_BCAST ? 1 : rows;
            s2 = operand(d2, n2);
            add(s2, d2, n2, false);
        }
        tsl_insn_t i;
        if (op == TSL_VPU_OP_REQUANT) {
            int32_t scale = r.chance(0.5) ? (int32_t)r.below(1u << 16) - (1 << 15) : (int32_t)r.next();
            int32_t zp = r.chance(0.7) ? (int32_t)r.below(256) - 128 : (int32_t)r.next();
            i = tsl_insn_vpu_vec_encode(tsl_insn_vpu_vec_t{
                    .op = TSL_VPU_OP_REQUANT, .dst_dtype = dd, .src1_dtype = d1, .dst_addr = dst, .src1_addr = s1,
                    .rows = rows, .scale = (uint32_t)scale, .shift = r.below(63), .zero_point = (uint32_t)zp});
        } else {
            i = tsl_insn_vpu_vec_encode(tsl_insn_vpu_vec_t{
                    .op = op, .dst_dtype = dd, .src1_dtype = d1, .src2_dtype = d2, .src2_mode = mode,
                    .dst_addr = dst, .src1_addr = s1, .src2_addr = s2, .rows = rows});
        }
        emit(i, TSL_UNIT_VPU, acc);
    }

    // One legal EPI (format VPU_EPI): src1 of fl's 32-bit type, dst dd; flags bit 0 BIAS, 1 RELU,
    // 2 FSCALE (floats only). SCALE: an fp32 multiplier, or REQUANT's for an INT8 dst.
    void epi_with(bool fl, uint32_t dd, uint32_t flags, uint32_t rows) {
        tsl_insn_vpu_epi_t e{};
        e.src1_dtype = fl ? TSL_DTYPE_FP32 : TSL_DTYPE_INT32;
        e.dst_dtype = dd;
        e.bias = flags & 1;
        e.relu = (flags >> 1) & 1;
        e.fscale = fl && ((flags >> 2) & 1);
        e.rows = rows;
        e.dst_addr = operand(dd, rows);
        e.src1_addr = r.chance(0.2) && dd == e.src1_dtype ? e.dst_addr : operand(e.src1_dtype, rows);
        std::vector<Range> acc;
        auto add = [&](uint32_t a, uint32_t dt, uint32_t n, bool w) {
            acc.push_back({a, (uint64_t)a + (uint64_t)n * N * tsl_dtype_bytes(dt), w});
        };
        add(e.dst_addr, dd, rows, true);
        add(e.src1_addr, e.src1_dtype, rows, false);
        if (e.bias) {
            e.bvecs = r.chance(0.5) ? 1 : 1 + r.below(4);
            e.src2_addr = operand(e.src1_dtype, e.bvecs);
            add(e.src2_addr, e.src1_dtype, e.bvecs, false);
        }
        if (e.fscale)
            e.scale = r.chance(0.2) ? (r.chance(0.5) ? 0x7F800000u : 0x80000000u)
                                    : (uint32_t)(r.below(2) << 31 | (118 + r.below(18)) << 23 | r.below(1u << 23));
        if (dd == TSL_DTYPE_INT8) {
            e.scale = r.chance(0.5) ? (uint32_t)((int32_t)r.below(1u << 16) - (1 << 15)) : (uint32_t)r.next();
            e.shift = r.below(63);
            e.zero_point = r.chance(0.7) ? (uint32_t)((int32_t)r.below(256) - 128) : (uint32_t)r.next();
        }
        emit(tsl_insn_vpu_epi_encode(e), TSL_UNIT_VPU, acc);
    }

    void vpu() {
        uint32_t op = ops()[r.below((uint32_t)ops().size())];
        bool fl = bf16 && float_ok(op) && (!int_ok(op) || r.chance(0.5));
        uint32_t rows = 1 + r.below(r.chance(0.2) ? 4 * N : N);
        if (op == TSL_VPU_OP_EPI) {
            uint32_t dd = fl ? (r.below(2) ? TSL_DTYPE_BF16 : TSL_DTYPE_FP32) : (r.below(2) ? TSL_DTYPE_INT8 : TSL_DTYPE_INT32);
            return epi_with(fl, dd, r.below(8), rows);
        }
        vpu_with(op, fl, pick(fl), pick(fl), r.below(3), pick(fl), rows);
    }

    void sync() {
        uint32_t u = r.below(3);
        tsl_insn_t s = tsl_insn_sync_encode(tsl_insn_sync_t{.unit = u});
        if (r.chance(0.5)) tsl_insn_notify(&s);
        emit(s, u, {});
    }

    void make(unsigned count) {
        while (prog.insns.size() < count) {
            uint32_t k = r.below(100);
            if (k < 30) dma();
            else if (k < 42) loadw();
            else if (k < 62) matmul();
            else if (k < 72) matmulk();
            else if (k < 95) vpu();
            else sync();
        }
        // Unmatched signals at the very end (after every wait), so that the token registers are
        // compared with non-zero counts too.
        for (int k = 0; k < 3; k++) {
            uint32_t u = r.below(3);
            tsl_insn_t s = tsl_insn_sync_encode(tsl_insn_sync_t{.unit = u});
            tsl_insn_signal(&s, TSL_TOK((u + 1 + r.below(2)) % 3));
            prog.insns.push_back(s);
        }
    }
};

static TslHbmCfg hbm_cfg(TslRng &r, bool random) {
    TslHbmCfg c;
    c.bytes = HBM;
    c.data_bytes = TC_AXI_BYTES;
    if (random) {
        c.latency = 1 + r.below(120);
        c.bytes_per_cycle = 1 + r.below(2 * N);
        c.max_outstanding = 1 + r.below(16);
        c.ready_percent = r.chance(0.5) ? 100 : 30 + r.below(71);
        c.seed = r.next();
    }
    return c;
}

static uint64_t seed_from_env(void) {
    const char *s = getenv("SEED");
    if (s) return strtoull(s, nullptr, 0);
    return (uint64_t)time(nullptr) ^ ((uint64_t)clock() << 32);
}

static int run_random(unsigned runs, unsigned insns) {
    uint64_t seed0 = seed_from_env();
    printf(TC_NAME "_n%u random: seed 0x%" PRIx64 " (SEED=0x%" PRIx64 " replays the first run)\n", N, seed0, seed0);
    unsigned pass = 0, fail = 0;
    uint64_t total = 0;
    for (unsigned k = 0; k < runs; k++) {
        uint64_t seed = seed0 + k;
        Gen g{TslRng{seed}, TC_BF16 != 0};
        g.prog.name = "random";
        g.make(insns);
        bool err = g.r.chance(0.1);
        if (err) {  // an invalid instruction in the middle: precise error, later pushes dropped
            tsl_insn_t bad = tsl_insn_hdr_encode(tsl_insn_hdr_t{.unit = 3});
            g.prog.insns.insert(g.prog.insns.begin() + g.r.below((uint32_t)g.prog.insns.size()), bad);
        }
        TslRng hr{seed ^ 0x5A5A};
        TslHbmCfg hc = hbm_cfg(hr, true);
        tslm_sched_t sched = err ? TSLM_SCHED_PUSH_ORDER : TSLM_SCHED_RANDOM;
        Result res = run_prog(g.prog, seed, hc, sched);
        total += g.prog.insns.size();
        if (res.ok) pass++;
        else {
            fail++;
            fprintf(stderr, "  replay: SEED=0x%" PRIx64 " tc_sim random 1 %u\n", seed, insns);
        }
        if ((k + 1) % 50 == 0) printf("  %u/%u programs, %" PRIu64 " instructions\n", k + 1, runs, total);
    }
    printf(TC_NAME "_n%u random: %" PRIu64 " instructions in %u programs compared with the model\n", N, total, runs);
    printf(TC_NAME "_n%u_random: %u passed, %u failed\n", N, pass, fail);
    return fail ? 1 : 0;
}

// ---- HBM windows --------------------------------------------------------------------------------------
// An HBM window near an HBM extent [lo, hi) (seq_gen.h), set before instruction `at`.
static Prog::WinSet pick_window(TslRng &r, size_t at, uint64_t lo, uint64_t hi) {
    Prog::WinSet w{at, 0, HBM};
    seq_pick_window(r, lo, hi, HBM, DATA_END, &w.base, &w.limit);
    return w;
}

// DMA instruction k's HBM extent [lo, hi).
static void dma_span(const tsl_insn_t &i, uint64_t *lo, uint64_t *hi) {
    tsl_insn_dma_xfer_t x = tsl_insn_dma_xfer_decode(i.w);
    *lo = x.hbm_addr;
    *hi = (uint64_t)x.hbm_addr + (uint64_t)(x.rows - 1) * x.hbm_stride + x.row_bytes;
}

// Random programs (as run_random) under random windows: one before the program, in one run of two
// another before a later DMA (the instructions queued before it keep the window they were checked
// against). A DMA in four moves to the end of HBM, its extent ending on it or a few bytes past.
// Every refusal (ERR_HBM_RANGE, ERR_ADDR, ERR_SEQ), register and byte of HBM, VMEM and ACC is
// compared with the model.
static int run_window(unsigned runs, unsigned insns) {
    uint64_t seed0 = seed_from_env();
    printf(TC_NAME "_n%u window: seed 0x%" PRIx64 " (SEED=0x%" PRIx64 " replays the first run)\n", N, seed0, seed0);
    unsigned pass = 0, fail = 0, refused = 0;
    for (unsigned k = 0; k < runs; k++) {
        uint64_t seed = seed0 + k;
        Gen g{TslRng{seed}, TC_BF16 != 0};
        g.prog.name = "window";
        g.make(insns);
        std::vector<size_t> dmas;
        for (size_t j = 0; j < g.prog.insns.size(); j++) {
            tsl_insn_hdr_t h = tsl_insn_hdr_decode(g.prog.insns[j].w);
            if (h.unit == TSL_UNIT_DMA && h.op != TSL_DMA_OP_SYNC) dmas.push_back(j);
        }
        for (size_t j : dmas) {
            if (!g.r.chance(0.25)) continue;
            uint64_t lo, hi;
            dma_span(g.prog.insns[j], &lo, &hi);
            int64_t a = (int64_t)HBM - (int64_t)(hi - lo) + (g.r.chance(0.5) ? 0 : (int64_t)g.r.below(5) - 2);
            g.prog.insns[j].w[1] = (uint32_t)(a < 0 ? 0 : a);   // HBM_ADDR (word 1)
        }
        // the window's edges: those of DMA j's extent, or (one in two) of the span of every DMA from
        // instruction `at` on, so that most programs run far and some to their end
        auto window_for = [&](size_t at, size_t j) {
            uint64_t lo, hi;
            dma_span(g.prog.insns[j], &lo, &hi);
            if (g.r.chance(0.5))
                for (size_t x : dmas) {
                    uint64_t l2, h2;
                    dma_span(g.prog.insns[x], &l2, &h2);
                    if (x >= at) lo = std::min(lo, l2), hi = std::max(hi, h2);
                }
            return pick_window(g.r, at, lo, hi);
        };
        if (dmas.empty()) {
            g.prog.wins.push_back(Prog::WinSet{0, 0, HBM});
        } else {
            size_t j0 = dmas[g.r.below((uint32_t)dmas.size())];
            g.prog.wins.push_back(window_for(g.r.chance(0.5) ? 0 : g.r.below((uint32_t)j0 + 1), j0));
            size_t j1 = dmas[g.r.below((uint32_t)dmas.size())];
            if (g.r.chance(0.5) && j1 > g.prog.wins[0].at)
                g.prog.wins.push_back(window_for(g.prog.wins[0].at + 1 + g.r.below((uint32_t)(j1 - g.prog.wins[0].at)), j1));
        }
        TslRng hr{seed ^ 0x5A5A};
        Result res = run_prog(g.prog, seed, hbm_cfg(hr, true), TSLM_SCHED_PUSH_ORDER);
        // how many runs ended in a refusal: the model alone, replayed (the RTL agreed if res.ok)
        {
            tslm_t m;
            memset(&m, 0, sizeof m);
            tslm_cfg_t cfg = model_cfg();
            if (tslm_init(&m, &cfg) == TSLM_OK) {
                for (size_t j = 0; j < g.prog.insns.size(); j++) {
                    for (auto &w : g.prog.wins)
                        if (w.at == j) {
                            tslm_reg_write(&m, TSL_TC_HBM_BASE_OFFSET, w.base);
                            tslm_reg_write(&m, TSL_TC_HBM_LIMIT_OFFSET, w.limit);
                        }
                    if (tslm_push(&m, g.prog.insns[j].w) != TSLM_OK) break;
                }
                refused += tslm_reg_read(&m, TSL_TC_ERR_CODE_OFFSET) == TSL_ERR_HBM_RANGE;
            }
            tslm_free(&m);
        }
        if (res.ok) pass++;
        else {
            fail++;
            fprintf(stderr, "  replay: SEED=0x%" PRIx64 " tc_sim window 1 %u\n", seed, insns);
            for (auto &w : g.prog.wins)
                fprintf(stderr, "  window [0x%x, 0x%x) before instruction %zu\n", w.base, w.limit, w.at);
            break;
        }
    }
    printf(TC_NAME "_n%u window: %u programs, %u of them stopped by ERR_HBM_RANGE\n", N, pass + fail, refused);
    printf(TC_NAME "_n%u_window: %u passed, %u failed\n", N, pass, fail);
    return fail ? 1 : 0;
}

// ---- the program fetch unit ----------------------------------------------------------------------------
#if TC_CORE == TSL_CORE_TC
static const uint32_t PROG_LO = DATA_END + VMEM + ACC;   // programs live above the dump area
static bool rtl_has_epi();

// The device program of `insns` as INSN records of random sizes (a long one now and then).
static void add_insn_records(TslRng &r, std::vector<uint32_t> &img, const std::vector<tsl_insn_t> &insns) {
    for (size_t k = 0; k < insns.size();) {
        size_t left = insns.size() - k, c = 1 + r.below(r.chance(0.2) ? 200 : 12);
        if (c > left) c = left;
        uint32_t h = 0;
        TSL_SET(&h, TSL_PROG_HDR_KIND, TSL_PROG_REC_INSN);
        TSL_SET(&h, TSL_PROG_HDR_COUNT, (uint32_t)c);
        img.push_back(h);
        for (size_t j = 0; j < c; j++, k++) img.insert(img.end(), insns[k].w, insns[k].w + TSL_PARAM_INSN_WORDS);
    }
}
static void add_seq_record(std::vector<uint32_t> &img, const uint32_t *desc) {
    uint32_t h = 0;
    TSL_SET(&h, TSL_PROG_HDR_KIND, TSL_PROG_REC_SEQ);
    TSL_SET(&h, TSL_PROG_HDR_COUNT, 1);
    img.push_back(h);
    img.insert(img.end(), desc, desc + TSL_PARAM_SEQ_WORDS);
}
// Six SYNCs: each unit signals the other two, then waits for both (what runs before ends first).
static std::vector<tsl_insn_t> barrier() {
    std::vector<tsl_insn_t> v;
    for (uint32_t u = 0; u < 3; u++)
        v.push_back(tsl_insn_sync_encode(tsl_insn_sync_t{.unit = u, .signal = TSL_TOK((u + 1) % 3) | TSL_TOK((u + 2) % 3)}));
    for (uint32_t u = 0; u < 3; u++)
        v.push_back(tsl_insn_sync_encode(tsl_insn_sync_t{.unit = u, .wait = TSL_TOK((u + 1) % 3) | TSL_TOK((u + 2) % 3)}));
    return v;
}

// Record headers in an image (word offsets), for corrupting one.
static std::vector<size_t> headers(const std::vector<uint32_t> &img) {
    std::vector<size_t> h;
    for (size_t k = 0; k < img.size();) {
        h.push_back(k);
        uint32_t kind = TSL_GET(&img[k], TSL_PROG_HDR_KIND), c = TSL_GET(&img[k], TSL_PROG_HDR_COUNT);
        k += 1 + (kind == TSL_PROG_REC_SEQ ? TSL_PARAM_SEQ_WORDS : c * TSL_PARAM_INSN_WORDS);
    }
    return h;
}

static int run_fetch(unsigned runs, unsigned insns) {
    uint64_t seed0 = seed_from_env();
    bool epi = rtl_has_epi();
    printf(TC_NAME "_n%u fetch: seed 0x%" PRIx64 " (SEED=0x%" PRIx64 " replays the first run)%s\n", N, seed0, seed0,
           epi ? "" : "; no EPI in the RTL: no SEQ records");
    tslm_t sm;
    memset(&sm, 0, sizeof sm);
    tslm_cfg_t scfg = model_cfg();
    if (tslm_init(&sm, &scfg) != TSLM_OK) return 1;
    unsigned pass = 0, fail = 0, bad_rec = 0, bad_insn = 0, resets = 0, seqs = 0, holds = 0;
    uint64_t total = 0;
    for (unsigned k = 0; k < runs; k++) {
        uint64_t seed = seed0 + k;
        TslRng r{seed ^ 0xF00D};
        Prog prog;
        prog.name = "fetch";
        std::vector<uint32_t> &img = prog.image;
        bool reset = r.chance(0.15);
        if (reset) {
            // a prefix that a partial run leaves as a whole one does: DMA LOADs (of HBM that nothing
            // writes) and SYNCs, then a barrier; CTRL.RESET comes while it is being fetched
            std::vector<tsl_insn_t> pre;
            for (unsigned j = 0; j < 150; j++) {
                if (r.chance(0.1)) {
                    uint32_t rows = 1 + r.below(16), rb = 4 * N * (1 + r.below(4));
                    pre.push_back(tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                            .op = TSL_DMA_OP_LOAD, .hbm_addr = 4 * r.below(DATA_END / 8), .local_addr = 4 * N * r.below(VMEM / (8 * N)),
                            .rows = rows, .row_bytes = rb, .hbm_stride = rb, .local_stride = rb}));
                } else {
                    tsl_insn_t s = tsl_insn_sync_encode(tsl_insn_sync_t{.unit = r.below(3)});
                    if (r.chance(0.2)) tsl_insn_notify(&s);
                    pre.push_back(s);
                }
            }
            for (auto &i : barrier()) pre.push_back(i);
            add_insn_records(r, img, pre);
            prog.reset_after = r.below(700);
            resets++;
        }
        Gen g{TslRng{seed}, TC_BF16 != 0};
        g.make(insns);
        bool with_seq = epi && r.chance(0.5);
        if (with_seq) {
            // part of the program, a barrier, a descriptor, a barrier, the rest (a new generator:
            // nothing of the first part is pending after the barrier)
            size_t cut = g.prog.insns.size() - 3;   // without the unmatched signals at the end
            std::vector<tsl_insn_t> a(g.prog.insns.begin(), g.prog.insns.begin() + (long)(cut / 2));
            for (auto &i : barrier()) a.push_back(i);
            add_insn_records(r, img, a);
            SeqGen sg{TslRng{seed ^ 0x5E9}, N, HBM, DATA_END, TC_BF16 != 0, &sm};
            uint32_t d[TSL_PARAM_SEQ_WORDS];
            sg.valid(d);
            add_seq_record(img, d);
            Gen g2{TslRng{seed ^ 0x77}, TC_BF16 != 0};
            g2.make(insns / 2);
            std::vector<tsl_insn_t> b = barrier();
            b.insert(b.end(), g2.prog.insns.begin(), g2.prog.insns.end());
            add_insn_records(r, img, b);
            total += a.size() + b.size();
            seqs++;
        } else {
            std::vector<tsl_insn_t> a = g.prog.insns;
            if (r.chance(0.1)) {   // an invalid instruction: the fetch stops at its dispatch error
                a.insert(a.begin() + r.below((uint32_t)a.size()), tsl_insn_hdr_encode(tsl_insn_hdr_t{.unit = 3}));
                bad_insn++;
            }
            add_insn_records(r, img, a);
            total += a.size();
        }
        uint32_t bytes = 4 * (uint32_t)img.size();
        if (!reset && r.chance(0.25)) {   // a bad record (ERR_BAD_RECORD at its address)
            std::vector<size_t> hs = headers(img);
            size_t h = hs[r.below((uint32_t)hs.size())];
            uint32_t &w = img[h];
            switch (r.below(6)) {
            case 0: TSL_SET(&w, TSL_PROG_HDR_KIND, r.chance(0.5) ? 0 : 3 + r.below(253)); break;
            case 1: TSL_SET(&w, TSL_PROG_HDR_COUNT, 0); break;
            case 2: w |= 1u << (8 + r.below(8)); break;   // reserved bits 15:8
            case 3:   // a SEQ record with COUNT 2, or an INSN record turned into a SEQ one of COUNT > 1
                TSL_SET(&w, TSL_PROG_HDR_KIND, TSL_PROG_REC_SEQ);
                if (TSL_GET(&w, TSL_PROG_HDR_COUNT) == 1) TSL_SET(&w, TSL_PROG_HDR_COUNT, 2);
                break;
            case 4: TSL_SET(&w, TSL_PROG_HDR_COUNT, TSL_GET(&w, TSL_PROG_HDR_COUNT) + 1 + r.below(3)); break;
            default: bytes -= 4 * (1 + r.below(8)); break;   // the last record runs past PROG_BYTES
            }
            bad_rec++;
        }
        // anywhere above the dump area, at any word; the HBM window covers the data below only
        uint32_t room = HBM - PROG_LO - 4 * (uint32_t)img.size();
        prog.prog_addr = PROG_LO + 4 * r.below(room / 4 + 1);
        prog.prog_bytes = bytes;
        prog.wins.push_back(Prog::WinSet{0, 0, DATA_END});
        if (!reset && r.chance(0.3)) {
            prog.hold_for = r.below(400);
            holds++;
        }
        TslRng hr{seed ^ 0x5A5A};
        Result res = run_prog(prog, seed, hbm_cfg(hr, true));
        if (res.ok) pass++;
        else {
            fail++;
            fprintf(stderr, "  replay: SEED=0x%" PRIx64 " tc_sim fetch 1 %u (program at 0x%x, %u bytes)\n", seed, insns,
                    prog.prog_addr, prog.prog_bytes);
            break;
        }
    }
    tslm_free(&sm);
    printf(TC_NAME "_n%u fetch: %u programs, %" PRIu64 " instructions, %u SEQ records, %u bad records, %u bad instructions, "
           "%u CTRL.RESET in a fetch (%u with PROG_STATUS.BUSY set), %u held\n", N, pass + fail, total, seqs, bad_rec, bad_insn,
           resets, g_reset_busy, holds);

    // Directed: back-pressure. 120 DMA LOADs of 2 KiB in one INSN record and a VPU SYNC after each
    // (the DMA queue fills within 20 instructions and the fetch stalls behind it for most of the
    // run) under random HBM stalls; compared with the model as above.
    for (unsigned j = 0; j < 2; j++) {
        uint64_t seed = seed0 + runs + j;
        TslRng r{seed};
        Prog prog;
        prog.name = "fetch-full-queue";
        std::vector<tsl_insn_t> v;
        for (unsigned q = 0; q < 120; q++) {
            v.push_back(tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                    .op = TSL_DMA_OP_LOAD, .hbm_addr = 4 * r.below(DATA_END / 8), .local_addr = 4 * N * r.below(VMEM / (8 * N)),
                    .rows = 16, .row_bytes = 128, .hbm_stride = 128, .local_stride = 128}));
            v.push_back(tsl_insn_sync_encode(tsl_insn_sync_t{.unit = TSL_UNIT_VPU}));
        }
        add_insn_records(r, prog.image, v);
        prog.prog_addr = PROG_LO + 4 * r.below(64);
        prog.prog_bytes = 4 * (uint32_t)prog.image.size();
        TslRng hr{seed ^ 0x5A5A};
        Result res = run_prog(prog, seed, hbm_cfg(hr, true));
        if (res.ok) pass++;
        else {
            fail++;
            fprintf(stderr, "  replay: SEED=0x%" PRIx64 " tc_sim fetch %u ...\n", seed0, runs);
        }
    }
    // Directed: a program past the end of HBM (ERR_HBM_RANGE, ERR_UNIT FETCH, nothing read).
    {
        TslHbmCfg plain;
        plain.bytes = HBM;
        plain.data_bytes = TC_AXI_BYTES;
        Tc tc(plain);
        bool ok = tc.wr(TSL_TC_PROG_ADDR_OFFSET, HBM - 64) && tc.wr(TSL_TC_PROG_BYTES_OFFSET, 68) && tc.wait_idle();
        ok = ok && tc.rd(TSL_TC_ERR_CODE_OFFSET) == TSL_ERR_HBM_RANGE && tc.rd(TSL_TC_ERR_UNIT_OFFSET) == TSL_ERR_UNIT_FETCH &&
             tc.rd(TSL_TC_ERR_ADDR_OFFSET) == HBM - 64 && tc.rd(TSL_TC_PUSH_COUNT_OFFSET) == 0;
        if (ok) pass++;
        else {
            fail++;
            fprintf(stderr, "FAIL fetch-range: ERR_CODE %u ERR_UNIT %u ERR_ADDR 0x%x\n", tc.rd(TSL_TC_ERR_CODE_OFFSET),
                    tc.rd(TSL_TC_ERR_UNIT_OFFSET), tc.rd(TSL_TC_ERR_ADDR_OFFSET));
        }
    }
    // Directed: SLVERR on one beat of a program of SYNCs: ERR_UNIT FETCH, ERR_ADDR the beat, and
    // every instruction wholly before the beat pushed, none after.
    {
        TslHbmCfg plain;
        plain.bytes = HBM;
        plain.data_bytes = TC_AXI_BYTES;
        Tc tc(plain);
        std::vector<tsl_insn_t> v;
        for (unsigned j = 0; j < 64; j++) v.push_back(tsl_insn_sync_encode(tsl_insn_sync_t{.unit = j % 3}));
        std::vector<uint32_t> img;
        TslRng r{2};
        add_insn_records(r, img, v);
        uint32_t a = PROG_LO + 4 * 5, beat = (a + 4 * (uint32_t)img.size() / 2) & ~(uint32_t)(TC_AXI_BYTES - 1);
        memcpy(tc.hbm->data() + a, img.data(), 4 * img.size());
        tc.hbm->inject(beat, TC_AXI_BYTES, false, 2);
        bool ok = tc.wr(TSL_TC_PROG_ADDR_OFFSET, a) && tc.wr(TSL_TC_PROG_BYTES_OFFSET, 4 * (uint32_t)img.size()) && tc.wait_idle();
        // the instructions whose last word lies below the beat
        uint32_t before = 0;
        for (size_t k : headers(img)) {
            uint32_t c = TSL_GET(&img[k], TSL_PROG_HDR_COUNT);
            if (a + 4 * (k + 1) > beat) break;
            for (uint32_t j = 0; j < c; j++)
                if (a + 4 * (k + 1 + (size_t)(j + 1) * TSL_PARAM_INSN_WORDS) <= beat) before++;
        }
        ok = ok && tc.rd(TSL_TC_ERR_CODE_OFFSET) == TSL_ERR_AXI_SLVERR && tc.rd(TSL_TC_ERR_UNIT_OFFSET) == TSL_ERR_UNIT_FETCH &&
             tc.rd(TSL_TC_ERR_ADDR_OFFSET) == beat && tc.rd(TSL_TC_PUSH_COUNT_OFFSET) == before && tc.hbm->violations().empty();
        if (ok) pass++;
        else {
            fail++;
            fprintf(stderr, "FAIL fetch-axi: ERR_CODE %u ERR_UNIT %u ERR_ADDR 0x%x (beat 0x%x) PUSH_COUNT %u (expected %u)\n",
                    tc.rd(TSL_TC_ERR_CODE_OFFSET), tc.rd(TSL_TC_ERR_UNIT_OFFSET), tc.rd(TSL_TC_ERR_ADDR_OFFSET), beat,
                    tc.rd(TSL_TC_PUSH_COUNT_OFFSET), before);
        }
    }
    // The rate: one INSN record of 1000 SYNCs (round robin over the units, no tokens), HBM at its
    // default latency and bandwidth, from the PROG_BYTES write to the last push; and the same
    // instructions written to INSN0..INSN7 (the bus's rate, one write per cycle at best).
    {
        TslHbmCfg plain;
        plain.bytes = HBM;
        plain.data_bytes = TC_AXI_BYTES;
        Tc tc(plain);
        const unsigned n = 1000;
        std::vector<tsl_insn_t> v;
        for (unsigned j = 0; j < n; j++) v.push_back(tsl_insn_sync_encode(tsl_insn_sync_t{.unit = j % 3}));
        std::vector<uint32_t> img(1, 0);
        TSL_SET(&img[0], TSL_PROG_HDR_KIND, TSL_PROG_REC_INSN);
        TSL_SET(&img[0], TSL_PROG_HDR_COUNT, n);
        for (auto &i : v) img.insert(img.end(), i.w, i.w + TSL_PARAM_INSN_WORDS);
        memcpy(tc.hbm->data() + PROG_LO, img.data(), 4 * img.size());
        bool ok = tc.wr(TSL_TC_PROG_ADDR_OFFSET, PROG_LO);
        uint64_t c0 = tc.cycle, first = 0;
        ok = ok && tc.wr(TSL_TC_PROG_BYTES_OFFSET, 4 * (uint32_t)img.size());
        tc.pushed.clear();
        while (ok && tc.pushed.size() < n && tc.cycle - c0 < TIMEOUT) {
            tc.step();
            if (!first && !tc.pushed.empty()) first = tc.cycle - c0;
        }
        uint64_t fetch_cycles = tc.cycle - c0;
        ok = ok && tc.wait_idle() && tc.rd(TSL_TC_PUSH_COUNT_OFFSET) == n;
        tc.wr(TSL_TC_CTRL_OFFSET, 1u << TSL_TC_CTRL_RESET_SHIFT);
        uint64_t b0 = tc.cycle;
        for (auto &i : v) ok = ok && tc.push(i);
        uint64_t bus_cycles = tc.cycle - b0;
        printf(TC_NAME "_n%u fetch rate: %u instructions in one INSN record: first push %" PRIu64 " cycles after the "
               "PROG_BYTES write, %.2f cycles per instruction (INSN0..INSN7 writes: %.2f); HBM latency %u, %u B/cycle\n",
               N, n, first, (double)fetch_cycles / n, (double)bus_cycles / n, plain.latency, plain.bytes_per_cycle);
        if (ok) pass++;
        else {
            fail++;
            fprintf(stderr, "FAIL fetch-rate: the program did not run to its end\n");
        }
    }
    printf(TC_NAME "_n%u_fetch: %u passed, %u failed\n", N, pass, fail);
    return fail ? 1 : 0;
}
#endif

// ---- directed programs ---------------------------------------------------------------------------
static int run_directed() {
    uint64_t seed = seed_from_env();
    printf(TC_NAME "_n%u directed: seed 0x%" PRIx64 "\n", N, seed);
    unsigned pass = 0, fail = 0;
    auto check = [&](const Result &res) { res.ok ? pass++ : fail++; };
    TslHbmCfg plain;
    plain.bytes = HBM;
    plain.data_bytes = TC_AXI_BYTES;
    TslHbmCfg slow = plain;  // back-pressure: a slow, busy HBM
    slow.latency = 37;
    slow.bytes_per_cycle = 3;
    slow.max_outstanding = 2;
    slow.ready_percent = 40;

    // Every VPU op with every type combination and source mode (one program, VPU only).
    {
        Gen g{TslRng{seed}, TC_BF16 != 0};
        g.prog.name = "vpu-ops";
        for (int fl = 0; fl <= (TC_BF16 ? 1 : 0); fl++)
            for (uint32_t op : Gen::ops()) {
                if (fl ? !Gen::float_ok(op) : !Gen::int_ok(op)) continue;
                if (op == TSL_VPU_OP_EPI) {   // every dst type and flag combination
                    for (uint32_t dd : {fl ? TSL_DTYPE_BF16 : TSL_DTYPE_INT8, fl ? TSL_DTYPE_FP32 : TSL_DTYPE_INT32})
                        for (uint32_t flags = 0; flags < (fl ? 8u : 4u); flags++)
                            g.epi_with(fl != 0, dd, flags, 1 + g.r.below(2 * N));
                    continue;
                }
                for (uint32_t dd = 0; dd < 4; dd++)
                    for (uint32_t d1 = 0; d1 < 4; d1++) {
                        bool f = fl != 0;
                        if ((dd == TSL_DTYPE_BF16 || dd == TSL_DTYPE_FP32) != f) continue;
                        if ((d1 == TSL_DTYPE_BF16 || d1 == TSL_DTYPE_FP32) != f) continue;
                        for (uint32_t mode = 0; mode < (Gen::binary(op) ? 3u : 1u); mode++)
                            g.vpu_with(op, f, dd, d1, mode, g.pick(f), 1 + g.r.below(2 * N));
                    }
            }
        check(run_prog(g.prog, seed, plain));
        check(run_prog(g.prog, seed + 1, slow));
    }

    // DMA shapes: unaligned, strides other than the width, 1 row, 4 KiB crossings, overlapping rows
    // (also with a slow, busy HBM), then the maximum sizes.
    {
        Prog p;
        p.name = "dma-shapes";
        p.insns = {
            tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                    .op = TSL_DMA_OP_LOAD, .hbm_addr = 5, .local_addr = 3, .rows = 9, .row_bytes = 37,
                    .hbm_stride = 37, .local_stride = 37}),                 // unaligned, dense
            tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                    .op = TSL_DMA_OP_LOAD, .hbm_addr = 1001, .local_addr = 2001, .rows = 7, .row_bytes = 37,
                    .hbm_stride = 137, .local_stride = 44}),          // strides != width
            tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                    .op = TSL_DMA_OP_STORE, .hbm_addr = 3000, .local_addr = 2001, .rows = 7, .row_bytes = 37,
                    .hbm_stride = 91, .local_stride = 44}),
            tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                    .op = TSL_DMA_OP_LOAD, .hbm_addr = 4096 - 10, .local_addr = 777, .rows = 1, .row_bytes = 50}),
                        // one row across 4 KiB
            tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                    .op = TSL_DMA_OP_STORE, .hbm_addr = 8192 - 3, .local_addr = 1, .rows = 1,
                    .row_bytes = 3 * N + 1}),    // one row, across 4 KiB
            tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                    .op = TSL_DMA_OP_LOAD, .hbm_addr = 999, .local_addr = ACC_BASE + 4 * N, .rows = 5,
                    .row_bytes = 4 * N + 4, .hbm_stride = 64, .local_stride = 8 * N}),  // ACC rows
            tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                    .op = TSL_DMA_OP_STORE, .hbm_addr = 50001, .local_addr = ACC_BASE + 4, .rows = 6,
                    .row_bytes = 4 * N - 4, .hbm_stride = 333, .local_stride = 4 * N}),
            tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                    .op = TSL_DMA_OP_LOAD, .hbm_addr = 12345, .local_addr = 5000, .rows = 20, .row_bytes = 16,
                    .hbm_stride = 17, .local_stride = 3}),           // overlapping local rows
            tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                    .op = TSL_DMA_OP_STORE, .hbm_addr = 23456, .local_addr = 5000, .rows = 20, .row_bytes = 16,
                    .hbm_stride = 5, .local_stride = 16}),          // overlapping HBM rows
        };
        check(run_prog(p, seed, plain));
        check(run_prog(p, seed + 2, slow));
        uint32_t big = VMEM > 65535 ? 65535 : VMEM - 3;
        p.name = "dma-max";
        p.insns = {
            tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                    .op = TSL_DMA_OP_LOAD, .hbm_addr = 7, .local_addr = 100, .rows = 65535, .row_bytes = 1,
                    .hbm_stride = 1}),              // ROWS = 65535
            tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                    .op = TSL_DMA_OP_STORE, .hbm_addr = 11, .local_addr = 200, .rows = 65535, .row_bytes = 1,
                    .hbm_stride = 1}),            // ... onto 65535 bytes
            tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                    .op = TSL_DMA_OP_LOAD, .hbm_addr = 70000, .local_addr = 2, .rows = 1, .row_bytes = big}),
                             // the largest row
            tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                    .op = TSL_DMA_OP_STORE, .hbm_addr = 100001, .local_addr = 1, .rows = 1, .row_bytes = big}),
        };
        check(run_prog(p, seed, plain));
    }

    // Dispatch errors, compared register for register with the model: later pushes are dropped.
    {
        tsl_insn_t ok1 = tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                .op = TSL_DMA_OP_LOAD, .hbm_addr = 64, .rows = 1, .row_bytes = 64});
        tsl_insn_t ok2 = tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                .op = TSL_DMA_OP_STORE, .hbm_addr = 1000, .rows = 1, .row_bytes = 64});
        struct { const char *name; tsl_insn_t bad; } cases[] = {
            {"err-bad-opcode", tsl_insn_hdr_encode(tsl_insn_hdr_t{.unit = 3})},
            {"err-bad-mxu-op", tsl_insn_hdr_encode(tsl_insn_hdr_t{.unit = TSL_UNIT_MXU, .op = 9})},
            {"err-hbm-range", tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                    .op = TSL_DMA_OP_LOAD, .hbm_addr = HBM - 10, .rows = 1, .row_bytes = 11})},
            {"err-local-range", tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                    .op = TSL_DMA_OP_LOAD, .local_addr = VMEM - 10, .rows = 1, .row_bytes = 11})},
            // extents far past any memory: a huge address, and a huge stride times rows - 1
            {"err-hbm-addr-huge", tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                    .op = TSL_DMA_OP_LOAD, .hbm_addr = 0x80000000u, .rows = 1, .row_bytes = 16})},
            {"err-hbm-stride-huge", tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                    .op = TSL_DMA_OP_STORE, .hbm_addr = 64, .rows = 5, .row_bytes = 16, .hbm_stride = 0x40000000u})},
            {"err-local-stride-huge", tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                    .op = TSL_DMA_OP_LOAD, .hbm_addr = 64, .rows = 2, .row_bytes = 16, .local_stride = 0x80000000u})},
            {"err-misaligned", tsl_insn_mxu_loadw_encode(tsl_insn_mxu_loadw_t{
                    .dtype = TSL_DTYPE_INT8, .addr = 3, .stride = N})},
            // TRANSPOSE: run on the full core, ERR_BAD_OPCODE on one without CFG_FEATURES.TRANSPOSE
            // (the lite core); a transposed MATMULK's weights are N columns of KBLOCKS vectors. Its
            // activations lie above ok1's LOAD, which runs at the same time (no token between them).
            {"loadw-transpose", tsl_insn_mxu_loadw_encode(tsl_insn_mxu_loadw_t{
                    .dtype = TSL_DTYPE_INT8, .transpose = 1, .addr = 2 * N, .stride = 3 * N})},
            {"matmulk-transpose-end-vmem", tsl_insn_mxu_matmulk_encode(tsl_insn_mxu_matmulk_t{
                    .dtype = TSL_DTYPE_INT8, .transpose = 1, .act_addr = 128, .act_stride = 2 * N, .acc_addr = ACC_BASE,
                    .acc_stride = 4 * N, .rows = 2, .kblocks = 2, .w_addr = VMEM - (N - 1) * 2 * N - 2 * N,
                    .w_stride = 2 * N})},
            {"err-matmulk-transpose-past-vmem", tsl_insn_mxu_matmulk_encode(tsl_insn_mxu_matmulk_t{
                    .dtype = TSL_DTYPE_INT8, .transpose = 1, .act_addr = 0, .act_stride = 2 * N, .acc_addr = ACC_BASE,
                    .acc_stride = 4 * N, .rows = 2, .kblocks = 2, .w_addr = VMEM - (N - 1) * 2 * N - N,
                    .w_stride = 2 * N})},
            {"err-token", [] { tsl_insn_t i = tsl_insn_sync_encode(tsl_insn_sync_t{
                    .unit = TSL_UNIT_VPU}); tsl_insn_wait(&i, TSL_TOK(TSL_UNIT_MXU)); return i; }()},
        };
        for (auto &c : cases) {
            Prog p;
            p.name = c.name;
            p.insns = {ok1, c.bad, ok2};
            check(run_prog(p, seed, plain));
        }
        // EPI: every refusal of its section and its operand checks (dst, src1, bias in that
        // order), plus accepted corner cases; a core without EPI refuses them all as BAD_OPCODE.
        {
            const uint32_t I8 = TSL_DTYPE_INT8, I32 = TSL_DTYPE_INT32, B16 = TSL_DTYPE_BF16, F32 = TSL_DTYPE_FP32;
            const uint32_t A = ACC_BASE;
            tsl_insn_vpu_epi_t ei{}, ef{}, eq{};
            ei.dst_dtype = I32, ei.src1_dtype = I32, ei.bias = 1, ei.bvecs = 1, ei.relu = 1, ei.dst_addr = A;
            ei.src1_addr = A + 8 * N, ei.src2_addr = A + 16 * N, ei.rows = 2;
            ef = ei, ef.dst_dtype = F32, ef.src1_dtype = F32, ef.relu = 0, ef.fscale = 1, ef.scale = 0x3F800000u;
            eq = ei, eq.dst_dtype = I8, eq.dst_addr = 64, eq.scale = 0x12345, eq.shift = 62, eq.zero_point = 0xFFFFFF80u;
            struct { const char *name; tsl_insn_vpu_epi_t e; uint32_t w0_or; } ecases[] = {
                {"epi-ok-int32", ei, 0},
                {"epi-ok-fp32", ef, 0},
                {"epi-ok-int8", eq, 0},
                {"epi-rows0", [&] { auto x = ei; x.rows = 0; return x; }(), 0},
                {"epi-src1-int8", [&] { auto x = ei; x.src1_dtype = I8, x.dst_dtype = I8, x.dst_addr = 64; return x; }(), 0},
                {"epi-src1-bf16", [&] { auto x = ef; x.src1_dtype = B16, x.dst_dtype = B16, x.dst_addr = 64; return x; }(), 0},
                {"epi-int32-to-fp32", [&] { auto x = ei; x.dst_dtype = F32; return x; }(), 0},
                {"epi-fp32-to-int32", [&] { auto x = ef; x.dst_dtype = I32; return x; }(), 0},
                {"epi-fp32-to-int8", [&] { auto x = ef; x.dst_dtype = I8, x.dst_addr = 64; return x; }(), 0},
                {"epi-fscale-int", [&] { auto x = ei; x.fscale = 1; return x; }(), 0},
                {"epi-fscale-int8", [&] { auto x = eq; x.fscale = 1; return x; }(), 0},
                {"epi-scale-int32", [&] { auto x = ei; x.scale = 1; return x; }(), 0},
                {"epi-scale-no-fscale", [&] { auto x = ef; x.fscale = 0; return x; }(), 0},
                {"epi-shift-int32", [&] { auto x = ei; x.shift = 1; return x; }(), 0},
                {"epi-shift-fp32", [&] { auto x = ef; x.shift = 3; return x; }(), 0},
                {"epi-shift-63", [&] { auto x = eq; x.shift = 63; return x; }(), 0},
                {"epi-zp-int32", [&] { auto x = ei; x.zero_point = 1; return x; }(), 0},
                {"epi-zp-bf16", [&] { auto x = ef; x.dst_dtype = B16, x.dst_addr = 64, x.zero_point = 0x80000000u; return x; }(), 0},
                {"epi-src2-no-bias", [&] { auto x = ei; x.bias = 0, x.bvecs = 0; return x; }(), 0},
                {"epi-bvecs-no-bias", [&] { auto x = ei; x.bias = 0, x.src2_addr = 0; return x; }(), 0},
                {"epi-bias-bvecs0", [&] { auto x = ei; x.bvecs = 0; return x; }(), 0},
                {"epi-bvecs-past-vmem", [&] { auto x = ei; x.src2_addr = VMEM - 4 * N, x.bvecs = 2; return x; }(), 0},
                {"epi-reserved-bit23", ei, 1u << 23},
                {"epi-dst-int8-acc", [&] { auto x = eq; x.dst_addr = A; return x; }(), 0},
                {"epi-dst-bf16-acc", [&] { auto x = ef; x.dst_dtype = B16, x.dst_addr = A + 64 * N, x.src1_addr = A + 4; return x; }(), 0},
                {"epi-dst-misaligned", [&] { auto x = ei; x.dst_addr = A + 4, x.src1_addr = VMEM; return x; }(), 0},
                {"epi-src1-misaligned", [&] { auto x = ei; x.src1_addr = A + 4, x.src2_addr = VMEM; return x; }(), 0},
                {"epi-src1-past-vmem", [&] { auto x = ei; x.src1_addr = VMEM - 4 * N; return x; }(), 0},
                {"epi-bias-end-vmem", [&] { auto x = ei; x.src2_addr = VMEM - 4 * N, x.rows = 3; return x; }(), 0},
                {"epi-bias-past-acc", [&] { auto x = ei; x.src2_addr = A + ACC; return x; }(), 0},
                {"epi-bias-misaligned", [&] { auto x = ef; x.src2_addr = 64 + 2 * N; return x; }(), 0},
                {"epi-bias-gap", [&] { auto x = ei; x.src2_addr = 0x00800000u; return x; }(), 0},
            };
            for (auto &c : ecases) {
                Prog p;
                p.name = c.name;
                tsl_insn_t i = tsl_insn_vpu_epi_encode(c.e);
                i.w[0] |= c.w0_or;
                p.insns = {ok1, i, ok2};
                check(run_prog(p, seed, plain));
            }
        }
        // Every op of the spec that this core lacks is ERR_BAD_OPCODE (the opcode check comes first),
        // as in the model running as this core.
        std::string lacks;
        for (uint32_t k = 0; k < TSL_OP_COUNT; k++) {
            const tsl_op_info_t *o = tsl_op_at(k);
            if (tsl_op_on_core(TC_CORE, o->unit, o->op)) continue;
            lacks += std::string(" ") + tsl_unit_name(o->unit) + "." + o->name;
            Prog p;
            p.name = std::string("err-lacks-") + o->name;
            p.insns = {ok1, tsl_insn_hdr_encode(tsl_insn_hdr_t{.unit = o->unit, .op = o->op}), ok2};
            tslm_t m;
            memset(&m, 0, sizeof m);
            tslm_cfg_t cfg = model_cfg();
            bool refused = tslm_init(&m, &cfg) == TSLM_OK && tslm_push(&m, p.insns[1].w) != TSLM_OK &&
                           tslm_reg_read(&m, TSL_TC_ERR_CODE_OFFSET) == TSL_ERR_BAD_OPCODE;
            tslm_free(&m);
            if (!refused) fprintf(stderr, "FAIL %s: the model does not refuse it\n", p.name.c_str());
            Result res = run_prog(p, seed, plain);
            res.ok = res.ok && refused;
            check(res);
        }
        printf(TC_NAME "_n%u directed: ops this core lacks, ERR_BAD_OPCODE:%s\n", N, lacks.empty() ? " none" : lacks.c_str());
    }

    // AXI errors from HBM: the DMA stops, ERR_CODE/ERR_ADDR say why and where, nothing outside the
    // failing instruction's destination changes, and (after CTRL.RESET) the dump works again.
    {
        struct { const char *name; bool store; uint8_t resp; uint32_t want; } cases[] = {
            {"axi-slverr-read", false, 2, TSL_ERR_AXI_SLVERR},
            {"axi-decerr-read", false, 3, TSL_ERR_AXI_DECERR},
            {"axi-slverr-write", true, 2, TSL_ERR_AXI_SLVERR},
            {"axi-decerr-write", true, 3, TSL_ERR_AXI_DECERR},
        };
        for (auto &c : cases) {
            Prog p;
            p.name = c.name;
            uint32_t ha = 4096 + 13, la = 300, rows = 6, rb = 100, hs = 128;
            p.insns = {tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                    .op = TSL_DMA_OP_LOAD, .hbm_addr = 50000, .local_addr = 8000, .rows = 1, .row_bytes = 64}),
                       tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                               .op = c.store ? TSL_DMA_OP_STORE : TSL_DMA_OP_LOAD, .hbm_addr = ha, .local_addr = la,
                               .rows = rows, .row_bytes = rb, .hbm_stride = hs, .local_stride = rb})};
            Window w = c.store ? Window{ha, ha + (rows - 1) * hs + rb} : Window{DATA_END + la, DATA_END + la + rows * rb};
            std::vector<Inject> inj = {{ha + 3 * hs + 40, 1, c.store, c.resp}};
            check(run_prog(p, seed, plain, TSLM_SCHED_PUSH_ORDER, inj, c.want, w));
        }
    }
    printf(TC_NAME "_n%u_directed: %u passed, %u failed\n", N, pass, fail);
    return fail ? 1 : 0;
}

// ---- a double-buffered tiled GEMM (gemm_db.h) -----------------------------------------
static int push_prog(void *ctx, const tsl_insn_t *i) {
    static_cast<Prog *>(ctx)->insns.push_back(*i);
    return 0;
}

// 256x256x256 with the default HBM model; the MXU must be busy >= 90 % of the cycles (performance
// counters), and the result must match the model.
static bool gemm_case(uint32_t dtype, uint64_t seed) {
    gemm_db_t g = {N, dtype, 256, 256, 256, 64, 4, 0, 0, 0, 0, 0};
    uint32_t es = tsl_dtype_bytes(dtype);
    g.b = g.m * g.k * es;
    g.c = g.b + g.k * g.nc * es;
    g.vmem_b = g.m * g.k * es;
    if (N != 16 || gemm_db_vmem_bytes(&g) > VMEM || g.slots * g.mc * 4 * N > ACC || g.c + g.m * g.nc * 4 > DATA_END) {
        fprintf(stderr, "gemm: needs the n16 configuration\n");
        return false;
    }
    Prog p;
    p.name = dtype == TSL_DTYPE_INT8 ? "gemm256-int8" : "gemm256-bf16";
    if (gemm_db_prog(&g, push_prog, &p)) return false;
    TslHbmCfg hc;  // the default HBM model: latency 100, 32 bytes/cycle (env HBM_LATENCY, HBM_BW)
    hc.bytes = HBM;
    hc.data_bytes = TC_AXI_BYTES;
    if (getenv("HBM_LATENCY")) hc.latency = (unsigned)atoi(getenv("HBM_LATENCY"));
    if (getenv("HBM_BW")) hc.bytes_per_cycle = (unsigned)atoi(getenv("HBM_BW"));
    Result res = run_prog(p, seed, hc);
    double util = res.perf_cycles ? 100.0 * (double)res.mxu_busy / (double)res.perf_cycles : 0;
    printf(TC_NAME "_n%u %s: %zu instructions, HBM latency %u, %u B/cycle: %" PRIu64 " cycles, MXU busy %" PRIu64
           " (%.1f %%), DMA busy %.1f %%\n", N, p.name.c_str(), p.insns.size(), hc.latency, hc.bytes_per_cycle,
           res.perf_cycles, res.mxu_busy, util, res.perf_cycles ? 100.0 * res.dma_busy / res.perf_cycles : 0);
    if (res.ok && util < 90.0) fprintf(stderr, "FAIL %s: MXU utilisation %.1f %% < 90 %%\n", p.name.c_str(), util);
    return res.ok && util >= 90.0;
}

static int run_gemm() {
    uint64_t seed = seed_from_env();
    unsigned pass = 0, fail = 0;
    for (uint32_t dt : {TSL_DTYPE_INT8, TSL_DTYPE_BF16}) {
        if (dt == TSL_DTYPE_BF16 && !TC_BF16) continue;
        gemm_case(dt, seed) ? pass++ : fail++;
    }
    printf(TC_NAME "_n%u_gemm: %u passed, %u failed\n", N, pass, fail);
    return fail ? 1 : 0;
}

// ---- the tile sequencer ------------------------------------------------------------------------------
#if TC_CORE == TSL_CORE_TC
// Does the RTL dispatcher take an EPI (format VPU_EPI, with BVECS)? A one-instruction probe.
static bool rtl_has_epi() {
    TslHbmCfg plain;
    plain.bytes = HBM;
    plain.data_bytes = TC_AXI_BYTES;
    Tc tc(plain);
    tsl_insn_t i = tsl_insn_vpu_epi_encode(tsl_insn_vpu_epi_t{
            .dst_dtype = TSL_DTYPE_INT32, .src1_dtype = TSL_DTYPE_INT32, .bias = 1, .dst_addr = ACC_BASE,
            .src1_addr = ACC_BASE, .src2_addr = ACC_BASE, .rows = 1, .bvecs = 1});
    return tc.push(i) && tc.wait_idle() && tc.rd(TSL_TC_ERR_CODE_OFFSET) == TSL_ERR_NONE;
}

static uint64_t g_ref_elems = 0;   // C elements checked against ref.h

// C of a sequencer GEMM from hw/model/ref_seq.h, compared with the RTL's HBM; prints the first
// difference.
static bool seq_ref_c(const uint32_t *w, const std::vector<uint8_t> &h, const uint8_t *fin) {
    tsl_seq_t d = tsl_seq_decode(w);
    uint32_t es = tsl_dtype_bytes(d.dtype), ces = tsl_dtype_bytes(d.c_dtype), kp = (d.k + N - 1) / N * N;
    std::vector<uint8_t> a((size_t)d.m * kp * es, 0), b((size_t)kp * d.n * es, 0);
    for (uint32_t i = 0; i < d.m && !d.conv; i++)
        memcpy(&a[(size_t)i * kp * es], &h[d.a_addr + (size_t)i * d.lda], (size_t)d.k * es);
    // CONV: row i is output pixel (image, oh, ow) and column (kh, kw, c) its tap, or the padding byte
    for (uint32_t i = 0; i < d.m && d.conv; i++) {
        uint32_t b = i / (d.out_h * d.out_w), oh = i / d.out_w % d.out_h, ow = i % d.out_w, col = 0;
        for (uint32_t kh = 0; kh < d.kh; kh++)
            for (uint32_t kw = 0; kw < d.kw; kw++, col += d.cg) {
                int64_t ih = (int64_t)oh * d.stride_h - d.pad_t + kh * d.dil_h;
                int64_t iw = (int64_t)ow * d.stride_w - d.pad_l + kw * d.dil_w;
                uint8_t *dst = &a[((size_t)i * kp + col) * es];
                if (ih < 0 || ih >= d.in_h || iw < 0 || iw >= d.in_w)
                    memset(dst, (int)d.a_zp, (size_t)d.cg * es);
                else
                    memcpy(dst, &h[d.a_addr + b * d.img_stride + ih * d.row_stride + iw * d.lda], (size_t)d.cg * es);
            }
    }
    for (uint32_t k = 0; k < d.k; k++) memcpy(&b[(size_t)k * d.n * es], &h[d.b_addr + (size_t)k * d.ldb], (size_t)d.n * es);
    unsigned csr = ref_fp_ftz_daz();
    bool ok = true;
    for (uint32_t i = 0; ok && i < d.m; i++)
        for (uint32_t j = 0; ok && j < d.n; j++) {
            uint32_t bias = 0, old = 0;
            if (d.bias) memcpy(&bias, &h[d.bias_addr + 4 * j], 4);
            memcpy(&old, &h[d.c_addr + (size_t)i * d.ldc + (size_t)j * ces], ces);   // an old-C POST (ADD)
            uint32_t acc = ref_gemm_elem(a.data(), b.data(), d.dtype == TSL_DTYPE_BF16, kp, d.n, N, i, j);
            uint32_t want = ref_seq_epilogue(&d, acc, bias, old);
            uint32_t got = 0;
            g_ref_elems++;
            memcpy(&got, fin + d.c_addr + (size_t)i * d.ldc + (size_t)j * ces, ces);
            if (got != want) {
                fprintf(stderr, "  C[%u][%u] at HBM 0x%08x: expected 0x%x (ref.h), got 0x%x\n", i, j,
                        d.c_addr + i * d.ldc + j * ces, want, got);
                ok = false;
            }
        }
    ref_fp_restore(csr);
    return ok;
}

static int run_seq(unsigned descs) {
    uint64_t seed0 = seed_from_env();
    bool epi = rtl_has_epi();
    printf(TC_NAME "_n%u seq: seed 0x%" PRIx64 " (SEED=0x%" PRIx64 " replays the first run); EPI in the RTL: %s\n", N,
           seed0, seed0, epi ? "yes, full comparison" : "no, streams up to the first EPI and launch errors only");
    tslm_t m;
    memset(&m, 0, sizeof m);
    tslm_cfg_t cfg = model_cfg();
    if (tslm_init(&m, &cfg) != TSLM_OK) return 1;
    unsigned pass = 0, fail = 0, invalid = 0, windows = 0, win_refused = 0;
    uint64_t total = 0;
    for (unsigned k = 0; k < descs; k++) {
        uint64_t seed = seed0 + k;
        SeqGen g{TslRng{seed}, N, HBM, DATA_END, TC_BF16 != 0, &m};
        Prog prog;
        prog.name = "seq";
        prog.desc.resize(TSL_PARAM_SEQ_WORDS);
        g.valid(prog.desc.data());
        bool credit_nz = false, bad = g.r.chance(0.3);
        if (bad) g.corrupt(prog.desc.data(), &credit_nz, g.r.below(SeqGen::kKinds));
        // half of them under an HBM window at the edges of their operands' span
        if (g.r.chance(0.5)) {
            uint64_t lo, hi;
            SeqGen::hbm_span(prog.desc.data(), &lo, &hi);
            prog.wins.push_back(pick_window(g.r, 0, lo, hi));
            windows++;
        }
        for (auto &w : prog.wins) {   // the model that decides `refused` sees it too
            tslm_reg_write(&m, TSL_TC_HBM_BASE_OFFSET, w.base);
            tslm_reg_write(&m, TSL_TC_HBM_LIMIT_OFFSET, w.limit);
        }
        // a few pushes first: the expansion's sequence numbers follow them; a token left on a
        // channel refuses the launch
        for (uint32_t j = g.r.below(3); j > 0; j--)
            prog.insns.push_back(tsl_insn_sync_encode(tsl_insn_sync_t{.unit = g.r.below(3)}));
        if (credit_nz)
            prog.insns.push_back(tsl_insn_sync_encode(tsl_insn_sync_t{.unit = TSL_UNIT_DMA, .signal = TSL_TOK(TSL_UNIT_MXU)}));
        uint32_t ea;
        uint32_t why = credit_nz ? TSL_ERR_BAD_FIELD : g.check(prog.desc.data(), &ea);
        bool refused = why != TSL_ERR_NONE;
        invalid += refused;
        win_refused += !prog.wins.empty() && why == TSL_ERR_HBM_RANGE;
        tslm_reg_write(&m, TSL_TC_HBM_BASE_OFFSET, 0);
        tslm_reg_write(&m, TSL_TC_HBM_LIMIT_OFFSET, HBM);
        prog.no_err = !refused;   // the expansion stays inside what the launch check saw
        prog.seq_prefix = !epi && !refused;
        if (epi && !refused) {
            std::vector<uint32_t> dw = prog.desc;
            prog.ref_check = [dw](const std::vector<uint8_t> &init, const uint8_t *fin) {
                return seq_ref_c(dw.data(), init, fin);
            };
        }
        TslRng hr{seed ^ 0x5A5A};
        Result res = run_prog(prog, seed, hbm_cfg(hr, true));
        total += prog.insns.size();
        if (res.ok) pass++;
        else {
            fail++;
            fprintf(stderr, "  replay: SEED=0x%" PRIx64 " tc_sim seq 1\n", seed);
            fprintf(stderr, "  descriptor:");
            for (uint32_t w : prog.desc) fprintf(stderr, " %08x", w);
            fprintf(stderr, "\n");
            for (auto &w : prog.wins) fprintf(stderr, "  window [0x%x, 0x%x)\n", w.base, w.limit);
            break;
        }
    }
    tslm_free(&m);
    printf(TC_NAME "_n%u seq: %u descriptors (%u refused at launch), %u under an HBM window (%u refused for it), %" PRIu64
           " C elements checked against ref.h\n", N, pass + fail, invalid, windows, win_refused, g_ref_elems);
    printf(TC_NAME "_n%u_seq: %u passed, %u failed\n", N, pass, fail);
    return fail ? 1 : 0;
}
#endif

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    setvbuf(stdout, nullptr, _IOLBF, 0);  // progress lines appear as they are printed
    std::string mode = argc > 1 ? argv[1] : "random";
    if (mode == "random") {
        unsigned runs = argc > 2 ? (unsigned)atoi(argv[2]) : 20, insns = argc > 3 ? (unsigned)atoi(argv[3]) : 40;
        return run_random(runs, insns);
    }
    if (mode == "directed") return run_directed();
    if (mode == "window") {
        unsigned runs = argc > 2 ? (unsigned)atoi(argv[2]) : 20, insns = argc > 3 ? (unsigned)atoi(argv[3]) : 40;
        return run_window(runs, insns);
    }
    if (mode == "gemm") return run_gemm();
#if TC_CORE == TSL_CORE_TC
    if (mode == "seq") return run_seq(argc > 2 ? (unsigned)atoi(argv[2]) : 40);
    if (mode == "fetch") {
        unsigned runs = argc > 2 ? (unsigned)atoi(argv[2]) : 20, insns = argc > 3 ? (unsigned)atoi(argv[3]) : 40;
        return run_fetch(runs, insns);
    }
#endif
    fprintf(stderr, "usage: %s random [RUNS [INSNS]] | window [RUNS [INSNS]] | directed | gemm | seq [DESCS] | "
            "fetch [RUNS [INSNS]]\n", argv[0]);
    return 2;
}
