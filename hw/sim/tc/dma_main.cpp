// Verilator harness for the DMA unit (tsl_dma_sim): every instruction runs on the RTL (through the
// unit execution interface, TslHbm on the AXI port) and on the golden model (tslm_push/tslm_run),
// from the same memory contents; HBM, VMEM and ACC are then compared byte for byte.
//   dma_sim [all|random|directed|errors|throughput] [programs]   env: SEED=s (replay), TRACE=1
// Random programs vary HBM back-pressure, latency and bandwidth and deny memory grants at random.
// Every wait has a cycle timeout; TslHbm's AXI protocol checks must stay silent.
// Prints one line per test group and "dma_nN: P passed, F failed"; exits non-zero on a failure.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "Vtsl_dma_sim.h"
#include "Vtsl_dma_sim__Dpi.h"
#include "svdpi.h"
#include "tsl_axi_pins.h"
#include "tsl_hbm.h"
#include "verilated.h"
#include "../common/tsl_rng.h"
#if VM_TRACE
#include "verilated_fst_c.h"
#endif

extern "C" {
#include "tsl_insn.h"
#include "tslm.h"
}

#ifndef DMA_N
#error "DMA_N must be defined to the N the model was Verilated with"
#endif
static const unsigned N = DMA_N, W = 2 * DMA_N;  // W: beat bytes = VMEM line bytes
static const uint32_t VMEM_BYTES = 65536, ACC_BYTES = 16384, HBM_BYTES = 1u << 20;
static const unsigned MAX_BURST = 16;             // tsl_dma_sim defaults
static const uint32_t ACC_BASE = TSL_LOCAL_ACC_BASE;

// ---- one transfer ---------------------------------------------------------------------------------
struct Xfer {
    bool load;
    uint32_t ha, hs, la, ls, rows, rb;
    tsl_insn_t insn() const {
        return tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                .op = load ? TSL_DMA_OP_LOAD : TSL_DMA_OP_STORE, .hbm_addr = ha, .local_addr = la, .rows = rows,
                .row_bytes = rb, .hbm_stride = hs, .local_stride = ls});
    }
    std::string str() const {
        char b[200];
        snprintf(b, sizeof b, "%s hbm=0x%x hs=%u local=0x%x ls=%u rows=%u row_bytes=%u", load ? "LOAD" : "STORE",
                 ha, hs, la, ls, rows, rb);
        return b;
    }
    uint64_t beats() const { return (uint64_t)rows * ((rb + 2 * W - 2) / W + 2); }
};

struct HbmSetup {
    unsigned ready_percent = 100, latency = 100, bytes_per_cycle = W;
    double deny = 0.0;
    std::string str() const {
        char b[120];
        snprintf(b, sizeof b, "ready %u%%, latency %u, %u B/cycle, grant denial %.2f", ready_percent, latency,
                 bytes_per_cycle, deny);
        return b;
    }
};

struct ExecResult {
    bool ok = true, err = false;
    unsigned code = 0;
    uint32_t addr = 0;
    uint64_t cycles = 0;
    std::string why;
};

// ---- the simulation -------------------------------------------------------------------------------
struct Sim {
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<Vtsl_dma_sim> top;
#if VM_TRACE
    std::unique_ptr<VerilatedFstC> tfp;
#endif
    std::unique_ptr<TslHbm> hbm;
    TslAxiPins p;
    TslRng rng{1};
    HbmSetup setup;
    uint64_t cycle = 0;
    // observations of the last cycle
    bool accepted = false, done = false, err = false, mem_wr = false, w_data = false, busy = false;

    explicit Sim(bool trace) : ctx(new VerilatedContext) {
        top.reset(new Vtsl_dma_sim(ctx.get()));
#if VM_TRACE
        if (trace) {
            ctx->traceEverOn(true);
            tfp.reset(new VerilatedFstC);
            top->trace(tfp.get(), 99);
            tfp->open("dma.fst");
            fprintf(stderr, "trace: dma.fst\n");
        }
#else
        if (trace) fprintf(stderr, "TRACE=1 needs the trace build: make dma-trace DMA_N=%u\n", N);
#endif
        svSetScope(svGetScopeFromName("TOP.tsl_dma_sim"));
        TslHbmCfg c;
        c.bytes = HBM_BYTES;
        c.data_bytes = W;
        hbm.reset(new TslHbm(c));
        top->clk_i = 0;
        top->rst_ni = 0;
        top->ex_valid_i = 0;
        for (int i = 0; i < 4; i++) step();
        top->rst_ni = 1;
        step();
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
    // A new HBM model (same contents) with the given timing and back-pressure.
    void configure(const HbmSetup &s, uint64_t seed) {
        TslHbmCfg c;
        c.bytes = HBM_BYTES;
        c.data_bytes = W;
        c.latency = s.latency;
        c.bytes_per_cycle = s.bytes_per_cycle;
        c.ready_percent = s.ready_percent;
        c.seed = seed;
        std::unique_ptr<TslHbm> h(new TslHbm(c));
        memcpy(h->data(), hbm->data(), HBM_BYTES);
        hbm = std::move(h);
        setup = s;
        rng.s = seed ^ 0x5555;
    }
    void step() {
        hbm->drive(p);
        tsl_axi_to_top(*top, p);
        top->vmem_deny_i = setup.deny > 0 && rng.chance(setup.deny);
        top->acc_deny_i = setup.deny > 0 && rng.chance(setup.deny);
        top->clk_i = 0;
        top->eval();
        dump();
        tsl_axi_from_top(*top, p);
        accepted = top->ex_valid_i && top->ex_ready_o;
        done = top->done_o;
        busy = top->busy_o;
        err = top->err_o;
        mem_wr = top->mem_wr_o;
        w_data = p.wvalid && p.wready && p.wstrb != 0;
        hbm->tick(p);
        ctx->timeInc(1);
        top->clk_i = 1;
        top->eval();
        dump();
        ctx->timeInc(1);
        cycle++;
    }
    uint64_t timeout_for(const Xfer &x) const {
        double slow = (double)W / setup.bytes_per_cycle;
        if (slow < 1) slow = 1;
        slow *= 100.0 / setup.ready_percent / (1.0 - setup.deny);
        return 20000 + 4 * (uint64_t)setup.latency + (uint64_t)(x.beats() * 6 * slow);
    }
    // Run one instruction through the ex interface until done_o, checking the unit's contract.
    ExecResult exec(const Xfer &x) {
        ExecResult r;
        tsl_insn_t in = x.insn();
        for (int i = 0; i < 8; i++) top->ex_insn_i[i] = in.w[i];
        top->ex_valid_i = 1;
        uint64_t limit = timeout_for(x), t0 = cycle;
        bool started = false;
        int w_after_err = 0;
        while (!started) {
            step();
            started = accepted;
            if (done) return fail(r, "done_o while no instruction ran");
            if (cycle - t0 > 1000) return fail(r, "ex_ready_o never rose");
        }
        top->ex_valid_i = 0;
        uint64_t t1 = cycle - 1;
        for (;;) {
            step();
            if (!busy && !done) return fail(r, "busy_o low before done_o");
            if (err) {
                if (r.err) return fail(r, "err_o pulsed twice");
                r.err = true;
                r.code = top->err_code_o;
                r.addr = top->err_addr_o;
            }
            if (r.err && mem_wr) return fail(r, "local write after err_o");
            if (r.err && w_data && ++w_after_err > 1) return fail(r, "W beats with data after err_o");
            if (done) break;
            if (cycle - t1 > limit) return fail(r, "timeout waiting for done_o");
        }
        r.cycles = cycle - t1;
        return settled(r);
    }
    // After the last done_o: no AXI transaction outstanding, no further done_o, busy_o low, and no
    // AXI protocol violation all along.
    ExecResult &settled(ExecResult &r) {
        if (!hbm->idle()) return fail(r, "AXI transactions outstanding at the last done_o");
        step();
        if (done) return fail(r, "done_o pulsed once too often");
        if (busy) return fail(r, "busy_o high after the last done_o");
        if (!hbm->violations().empty()) {
            for (const std::string &v : hbm->violations()) printf("  AXI violation: %s\n", v.c_str());
            return fail(r, "AXI protocol violations");
        }
        return r;
    }
    // Run instructions back to back, each offered from the cycle its predecessor was accepted (a
    // LOAD behind a LOAD may start while the first one's data still arrive): every one done once,
    // never before it was accepted, no error, nothing outstanding at the end.
    ExecResult stream(const std::vector<Xfer> &xs) {
        ExecResult r;
        size_t next = 0, dones = 0;
        uint64_t t0 = cycle, limit = 0;
        for (const Xfer &x : xs) limit += timeout_for(x);
        auto offer = [&] {
            top->ex_valid_i = next < xs.size();
            if (next < xs.size()) {
                tsl_insn_t in = xs[next].insn();
                for (int i = 0; i < 8; i++) top->ex_insn_i[i] = in.w[i];
            }
        };
        offer();
        while (dones < xs.size()) {
            step();
            if (done && ++dones > next) return fail(r, "done_o for an instruction not accepted");
            if (!busy && !done && dones < next) return fail(r, "busy_o low with an instruction in flight");
            if (accepted) {
                next++;
                offer();
            }
            if (err) return fail(r, "unexpected err_o");
            if (cycle - t0 > limit) return fail(r, "timeout waiting for done_o");
        }
        r.cycles = cycle - t0;
        return settled(r);
    }
    static ExecResult &fail(ExecResult &r, const char *why) {
        r.ok = false;
        r.why = why;
        return r;
    }
    void write_local(int space, const uint8_t *src, uint32_t n) {
        for (uint32_t i = 0; i < n; i++) tsl_dma_sim_wr(space, (int)i, src[i]);
    }
    void read_local(int space, uint8_t *dst, uint32_t n) {
        for (uint32_t i = 0; i < n; i++) dst[i] = (uint8_t)tsl_dma_sim_rd(space, (int)i);
    }
};

// ---- the golden model and the comparison --------------------------------------------------------
struct Bench {
    Sim &sim;
    tslm_t m;
    uint64_t seed;
    std::vector<uint8_t> vm, ac;  // RTL memories read back
    explicit Bench(Sim &s) : sim(s) {
        tslm_cfg_t c = tslm_cfg_default();
        c.n = N;
        c.vmem_bytes = VMEM_BYTES;
        c.acc_bytes = ACC_BYTES;
        c.hbm_bytes = HBM_BYTES;
        if (tslm_init(&m, &c) != TSLM_OK) {
            fprintf(stderr, "tslm_init failed\n");
            exit(2);
        }
        vm.resize(VMEM_BYTES);
        ac.resize(ACC_BYTES);
    }
    ~Bench() { tslm_free(&m); }
    // Random contents everywhere, identical in the model and the RTL.
    void randomise(TslRng &r) {
        for (uint32_t i = 0; i < HBM_BYTES; i += 8) {
            uint64_t v = r.next();
            memcpy(tslm_hbm(&m) + i, &v, 8);
        }
        for (uint32_t i = 0; i < VMEM_BYTES; i += 8) {
            uint64_t v = r.next();
            memcpy(tslm_vmem(&m) + i, &v, 8);
        }
        for (uint32_t i = 0; i < ACC_BYTES; i += 8) {
            uint64_t v = r.next();
            memcpy(tslm_acc(&m) + i, &v, 8);
        }
        sync_rtl_from_model();
    }
    void sync_rtl_from_model() {
        memcpy(sim.hbm->data(), tslm_hbm(&m), HBM_BYTES);
        sim.write_local(0, tslm_vmem(&m), VMEM_BYTES);
        sim.write_local(1, tslm_acc(&m), ACC_BYTES);
    }
    void sync_model_from_rtl() {
        read_rtl();
        memcpy(tslm_hbm(&m), sim.hbm->data(), HBM_BYTES);
        memcpy(tslm_vmem(&m), vm.data(), VMEM_BYTES);
        memcpy(tslm_acc(&m), ac.data(), ACC_BYTES);
    }
    void read_rtl() {
        sim.read_local(0, vm.data(), VMEM_BYTES);
        sim.read_local(1, ac.data(), ACC_BYTES);
    }
    bool model_exec(const Xfer &x) {
        tsl_insn_t in = x.insn();
        if (tslm_push(&m, in.w) != TSLM_OK) {
            printf("  harness bug: the model rejected %s (ERR_CODE %u)\n", x.str().c_str(),
                   tslm_reg_read(&m, TSL_TC_ERR_CODE_OFFSET));
            return false;
        }
        tslm_run(&m);
        return true;
    }
    static bool cmp(const char *what, uint32_t base, const uint8_t *exp, const uint8_t *got, uint32_t n) {
        if (!memcmp(exp, got, n)) return true;
        for (uint32_t i = 0; i < n; i++)
            if (exp[i] != got[i]) {
                printf("  MISMATCH %s at 0x%08x: expected 0x%02x, got 0x%02x\n", what, base + i, exp[i], got[i]);
                break;
            }
        return false;
    }
    bool compare() {
        read_rtl();
        bool ok = cmp("HBM", 0, tslm_hbm(&m), sim.hbm->data(), HBM_BYTES);
        ok = cmp("VMEM", 0, tslm_vmem(&m), vm.data(), VMEM_BYTES) && ok;
        ok = cmp("ACC", ACC_BASE, tslm_acc(&m), ac.data(), ACC_BYTES) && ok;
        return ok;
    }
    // One checked instruction: RTL and model from the same state, then byte-for-byte equal.
    bool run(const Xfer &x, ExecResult *out = nullptr) {
        ExecResult r = sim.exec(x);
        if (out) *out = r;
        bool ok = r.ok && !r.err && model_exec(x) && compare();
        if (!ok) {
            printf("  FAILED %s (%s)%s%s\n", x.str().c_str(), sim.setup.str().c_str(), r.ok ? "" : ": ",
                   r.why.c_str());
            if (r.err) printf("  unexpected AXI error code %u at 0x%08x\n", r.code, r.addr);
        }
        return ok;
    }
};

// ---- random instructions --------------------------------------------------------------------------
static uint32_t pick_stride(TslRng &r, uint32_t rb, uint32_t align) {
    uint32_t s;
    switch (r.below(7)) {
    case 0: s = 0; break;                          // repeat one row
    case 1: s = rb; break;                         // contiguous
    case 2: s = r.below(rb + 1); break;            // overlapping rows
    case 3: s = rb + r.below(64); break;
    case 4: s = rb + r.below(4096); break;
    case 5: s = W * (1 + r.below(8)); break;       // line multiples
    default: s = r.below(3 * rb + 200); break;
    }
    return s / align * align;
}

static Xfer random_xfer(TslRng &r) {
    Xfer x{};
    x.load = r.below(2);
    bool acc = r.chance(0.25);
    uint32_t lsize = acc ? ACC_BYTES : VMEM_BYTES;
    switch (r.below(5)) {
    case 0: x.rb = 1 + r.below(16); break;
    case 1: x.rb = 1 + r.below(3 * W); break;
    case 2: x.rb = 1 + r.below(600); break;
    case 3: x.rb = 1 + r.below(5000); break;
    default: x.rb = W * (1 + r.below(16)); break;
    }
    if (acc) x.rb = x.rb < 4 ? 4 : x.rb & ~3u;
    x.rows = r.chance(0.2) ? 1 : 1 + r.below(r.chance(0.8) ? 24 : 300);
    x.hs = pick_stride(r, x.rb, 1);
    x.ls = pick_stride(r, x.rb, acc ? 4 : 1);
    if (x.ls && (uint64_t)(x.rows - 1) * x.ls + x.rb > lsize) x.rows = (lsize - x.rb) / x.ls + 1;
    if (x.hs && (uint64_t)(x.rows - 1) * x.hs + x.rb > HBM_BYTES) x.rows = (HBM_BYTES - x.rb) / x.hs + 1;
    uint32_t lext = (x.rows - 1) * x.ls + x.rb, hext = (x.rows - 1) * x.hs + x.rb;
    x.la = r.below(lsize - lext + 1);
    if (r.chance(0.3)) x.la = x.la / W * W;
    if (acc) x.la = (x.la & ~3u) + ACC_BASE;
    x.ha = r.below(HBM_BYTES - hext + 1);
    if (r.chance(0.2)) x.ha = x.ha / W * W;
    if (r.chance(0.2) && hext < 4096 * 4) x.ha = (x.ha | 0xFFF) - r.below(2 * W) & (HBM_BYTES - 1);
    if (x.ha + hext > HBM_BYTES) x.ha = HBM_BYTES - hext;
    return x;
}

static HbmSetup random_setup(TslRng &r) {
    HbmSetup s;
    static const unsigned lat[] = {1, 2, 3, 7, 20, 100, 200};
    s.latency = lat[r.below(7)];
    s.ready_percent = r.chance(0.25) ? 100 : 20 + r.below(80);
    static const unsigned bw[] = {1, 2, 4, 8};
    unsigned k = r.below(5);
    s.bytes_per_cycle = k == 4 ? 2 * W : W / bw[k] < 4 ? 4 : W / bw[k];
    s.deny = r.chance(0.3) ? 0.0 : 0.05 * (1 + r.below(10));
    return s;
}

// ---- test groups ----------------------------------------------------------------------------------
struct Tally {
    unsigned passed = 0, failed = 0;
    void add(bool ok) { (ok ? passed : failed)++; }
};

// A random group's start: an HBM setup and memory contents from the seed, and the line that names
// the seed and the replay command (`<sim> GROUP`).
static HbmSetup random_start(Sim &sim, Bench &b, TslRng &r, uint64_t seed, const char *group, const char *size) {
    HbmSetup s = random_setup(r);
    sim.configure(s, seed);
    b.randomise(r);
    printf("dma_n%u %s: seed=0x%016" PRIx64 " (SEED=0x%016" PRIx64 " <sim> %s replays), %s, %s\n", N, group, seed,
           seed, group, size, s.str().c_str());
    fflush(stdout);
    return s;
}

static bool random_program(Sim &sim, Bench &b, uint64_t seed, unsigned insns) {
    TslRng r{seed};
    random_start(sim, b, r, seed, "random", (std::to_string(insns) + " insns").c_str());
    for (unsigned i = 0; i < insns; i++) {
        Xfer x = random_xfer(r);
        if (!b.run(x)) {
            printf("  insn %u of the program; seed 0x%016" PRIx64 "\n", i, seed);
            return false;
        }
    }
    return true;
}

// Runs of instructions back to back (Sim::stream), LOADs mostly, into VMEM and ACC: the same bytes
// as the model running them one after the other.
static bool chains(Sim &sim, Bench &b, uint64_t seed, unsigned runs) {
    TslRng r{seed};
    HbmSetup s = random_start(sim, b, r, seed, "chains", (std::to_string(runs) + " runs").c_str());
    for (unsigned i = 0; i < runs; i++) {
        std::vector<Xfer> xs(2 + r.below(7));
        for (Xfer &x : xs) {
            do
                x = random_xfer(r);
            while (!x.load && r.chance(0.8));
            if (x.load && r.chance(0.5)) x.rows = std::min(x.rows, 1 + r.below(3));   // short: the next starts early
        }
        ExecResult e = sim.stream(xs);
        bool ok = e.ok;
        for (const Xfer &x : xs) ok = ok && b.model_exec(x);
        ok = ok && b.compare();
        if (!ok) {
            printf("  FAILED run %u of %zu instructions (%s)%s%s; seed 0x%016" PRIx64 "\n", i, xs.size(),
                   s.str().c_str(), e.ok ? "" : ": ", e.why.c_str(), seed);
            for (const Xfer &x : xs) printf("    %s\n", x.str().c_str());
            return false;
        }
    }
    // Four one-line LOADs at latency 100: their reads overlap, so the run takes one latency, not four.
    HbmSetup d;
    sim.configure(d, seed);
    std::vector<Xfer> xs;
    for (uint32_t k = 0; k < 4; k++) xs.push_back(Xfer{true, 8192 * k, 0, 4 * W * k, 0, 1, W});
    ExecResult e = sim.stream(xs);
    for (const Xfer &x : xs) e.ok = e.ok && b.model_exec(x);
    bool ok = e.ok && b.compare() && e.cycles < 2 * d.latency;
    printf("dma_n%u chains: 4 one-line LOADs at latency %u in %" PRIu64 " cycles (%s 2 latencies)%s\n", N, d.latency,
           e.cycles, e.cycles < 2 * d.latency ? "under" : "NOT under", ok ? "" : ": FAILED");
    return ok;
}

static bool directed(Sim &sim, Bench &b, uint64_t seed) {
    TslRng r{seed};
    HbmSetup s;
    s.latency = 5;
    s.ready_percent = 70;
    s.deny = 0.2;
    sim.configure(s, seed);
    b.randomise(r);
    printf("dma_n%u directed: seed=0x%016" PRIx64 "\n", N, seed);
    fflush(stdout);
    bool ok = true;
    unsigned offs[] = {0, 1, W / 2, W - 1};
    uint32_t rbs[] = {1, W - 1, W, W + 1, 3 * W + 5, 64 * W + 3};
    // Every combination of HBM and local offset, row sizes around the beat width, both directions.
    for (unsigned ho : offs)
        for (unsigned lo : offs)
            for (uint32_t rb : rbs)
                for (int ld = 0; ld < 2 && ok; ld++)
                    ok = b.run(Xfer{ld == 1, 8192 + 64 * W + ho, rb + 3, 1024 + lo, rb + 7, 3, rb});
    // ACC: half-line offsets, strides not multiples of the line.
    for (uint32_t lo = 0; lo < 4 * N && ok; lo += 4)
        for (int ld = 0; ld < 2 && ok; ld++)
            ok = b.run(Xfer{ld == 1, 3 * W + lo / 4 + 1, 4 * N + 12, ACC_BASE + 256 + lo, 4 * N + 12, 5, 4 * N + 8});
    // Stride != width, 1-row tiles, strides 0 on both sides.
    for (int ld = 0; ld < 2 && ok; ld++) {
        ok = ok && b.run(Xfer{ld == 1, 100, 100, 2000, 53, 5, 37});
        ok = ok && b.run(Xfer{ld == 1, 7, 0, 3, 0, 1, 1});
        ok = ok && b.run(Xfer{ld == 1, 4096 - 3, 0, 11, 5, 1, 2 * W + 9});
        ok = ok && b.run(Xfer{ld == 1, 555, 0, 777, 0, 9, 301});
        ok = ok && b.run(Xfer{ld == 1, 555, 3, 777, 0, 9, 301});
        ok = ok && b.run(Xfer{ld == 1, 555, 0, 777, 5, 9, 301});
    }
    // A row across 4 KiB boundaries, and rows that start right before one.
    for (int ld = 0; ld < 2 && ok; ld++) {
        ok = ok && b.run(Xfer{ld == 1, 3 * 4096 - 5, 0, 77, 0, 1, 300});
        ok = ok && b.run(Xfer{ld == 1, 4096 - 16 * W - 1, 4096, 3, 1000, 6, 20 * W});
        ok = ok && b.run(Xfer{ld == 1, 8 * 4096 - 1, 4096 + 1, ACC_BASE + 4, 1028, 8, 1024});
    }
    // Maximum sizes: ROWS = 65535 with small rows; ROW_BYTES = 65535.
    for (int ld = 0; ld < 2 && ok; ld++) {
        ok = ok && b.run(Xfer{ld == 1, 13, 3, 1, 1, 65535, 1});
        ok = ok && b.run(Xfer{ld == 1, 64, 4, ACC_BASE + 8, 0, 65535, 4});
        ok = ok && b.run(Xfer{ld == 1, 4093, 0, 1, 0, 1, 65535});
        ok = ok && b.run(Xfer{ld == 1, 200000 + 3, 65535, 0, 0, 3, 65535});
    }
    if (!ok) printf("  directed failed; seed 0x%016" PRIx64 "\n", seed);
    return ok;
}

// The first beat (LOAD) or burst (STORE) in transfer order that touches [ia, ia+il): its address.
static bool first_failing(const Xfer &x, uint32_t ia, uint32_t il, uint32_t &addr, uint32_t &row, uint32_t &byte) {
    for (uint32_t r = 0; r < x.rows; r++) {
        uint32_t start = x.ha + r * x.hs, first = start / W * W, last = (start + x.rb - 1) / W * W;
        uint32_t b = first;
        while (b <= last) {
            uint32_t beats = (last - b) / W + 1, to_page = (4096 - b % 4096) / W;
            uint32_t len = x.load ? 1 : std::min(std::min(beats, MAX_BURST), to_page);
            if (b < ia + il && ia < b + len * W) {
                for (uint32_t k = 0; k < len; k++)
                    if (b + k * W < ia + il && ia < b + (k + 1) * W) {
                        addr = x.load ? b + k * W : b;
                        row = r;
                        byte = b + k * W > start ? b + k * W - start : 0;
                        return true;
                    }
            }
            b += len * W;
        }
    }
    return false;
}

// An AXI error on one instruction: the right code and address, done still comes, no byte that
// follows the failing beat in transfer order is written, nothing wrong anywhere; then the next
// instruction runs normally.
static bool error_case(Sim &sim, Bench &b, TslRng &r, bool load, uint8_t resp) {
    Xfer x{};
    x.load = load;
    bool acc = r.chance(0.3);
    x.rb = acc ? 4 * (1 + r.below(100)) : 1 + r.below(400);
    x.rows = 1 + r.below(20);
    x.hs = x.rb + r.below(300);                  // rows do not overlap on either side
    x.ls = acc ? x.rb + 4 * r.below(8) : x.rb + r.below(50);
    uint32_t lsize = acc ? ACC_BYTES : VMEM_BYTES;
    if ((x.rows - 1) * x.ls + x.rb > lsize) x.rows = 1;
    x.la = r.below(lsize - ((x.rows - 1) * x.ls + x.rb) + 1);
    if (acc) x.la = (x.la & ~3u) + ACC_BASE;
    x.ha = r.below(HBM_BYTES / 2);
    // Inject somewhere inside the transfer's HBM extent.
    uint32_t hext = (x.rows - 1) * x.hs + x.rb;
    uint32_t ia = x.ha + r.below(hext), il = 1 + r.below(2 * W);
    uint32_t eaddr = 0, erow = 0, ebyte = 0;
    if (!first_failing(x, ia, il, eaddr, erow, ebyte)) {
        ia = x.ha;  // landed in a gap between rows: hit row 0 instead
        first_failing(x, ia, il, eaddr, erow, ebyte);
    }
    unsigned ecode = resp == 2 ? TSL_ERR_AXI_SLVERR : TSL_ERR_AXI_DECERR;

    std::vector<uint8_t> pre_h(sim.hbm->data(), sim.hbm->data() + HBM_BYTES);
    b.read_rtl();
    std::vector<uint8_t> pre_l = acc ? b.ac : b.vm;
    if (!b.model_exec(x)) return false;  // the model: the result without the error
    std::vector<uint8_t> full_h(tslm_hbm(&b.m), tslm_hbm(&b.m) + HBM_BYTES);
    std::vector<uint8_t> full_l(acc ? tslm_acc(&b.m) : tslm_vmem(&b.m),
                                (acc ? tslm_acc(&b.m) : tslm_vmem(&b.m)) + lsize);
    sim.hbm->inject(ia, il, !load, resp);
    ExecResult e = sim.exec(x);
    sim.hbm->clear_injections();
    std::string what = x.str() + " with " + (resp == 2 ? "SLVERR" : "DECERR") + " on " +
                       (load ? "reads" : "writes");
    char inj[64];
    snprintf(inj, sizeof inj, " at [0x%x, +%u)", ia, il);
    what += inj;
    auto bad = [&](const char *why) {
        printf("  FAILED %s: %s\n", what.c_str(), why);
        return false;
    };
    if (!e.ok) return bad(e.why.c_str());
    if (!e.err) return bad("no err_o");
    if (e.code != ecode || e.addr != eaddr) {
        printf("  err_code %u err_addr 0x%08x, expected %u 0x%08x\n", e.code, e.addr, ecode, eaddr);
        return bad("wrong error report");
    }
    b.read_rtl();
    const std::vector<uint8_t> &got_l = acc ? b.ac : b.vm;
    const uint8_t *got_h = sim.hbm->data();
    uint32_t lbase = acc ? x.la - ACC_BASE : x.la;
    if (load) {
        if (memcmp(got_h, pre_h.data(), HBM_BYTES)) return bad("LOAD changed HBM");
        for (uint32_t a = 0; a < lsize; a++) {
            bool in = a >= lbase && (a - lbase) % x.ls < x.rb && (a - lbase) / x.ls < x.rows;
            uint32_t row = in ? (a - lbase) / x.ls : 0, i = in ? (a - lbase) % x.ls : 0;
            bool after = in && (row > erow || (row == erow && i >= ebyte));
            bool ok = got_l[a] == pre_l[a] || (!after && got_l[a] == full_l[a]);
            if (!ok) {
                printf("  local 0x%x (row %u byte %u; failing row %u byte %u): got 0x%02x, before 0x%02x, model 0x%02x\n",
                       a, row, i, erow, ebyte, got_l[a], pre_l[a], full_l[a]);
                return bad("a local byte was written wrongly or after the failing beat");
            }
        }
    } else {
        if (memcmp(got_l.data(), pre_l.data(), lsize)) return bad("STORE changed local memory");
        for (uint32_t a = 0; a < HBM_BYTES; a++) {
            uint32_t base = a / W * W;
            bool hit = base < ia + il && ia < base + W;
            bool ok = got_h[a] == pre_h[a] || (!hit && got_h[a] == full_h[a]);
            if (!ok) {
                printf("  HBM 0x%x: got 0x%02x, before 0x%02x, model 0x%02x\n", a, got_h[a], pre_h[a], full_h[a]);
                return bad("an HBM byte was written wrongly or in an erring beat");
            }
        }
    }
    // Resynchronise the model with what the RTL did, then the next instruction must work.
    b.sync_model_from_rtl();
    Xfer next = random_xfer(r);
    if (!b.run(next)) return bad("the instruction after the error failed");
    return true;
}

static bool errors(Sim &sim, Bench &b, uint64_t seed, unsigned cases) {
    TslRng r{seed};
    HbmSetup s = random_setup(r);
    sim.configure(s, seed);
    b.randomise(r);
    printf("dma_n%u errors: seed=0x%016" PRIx64 ", %u cases, %s\n", N, seed, cases, s.str().c_str());
    fflush(stdout);
    for (unsigned i = 0; i < cases; i++) {
        bool load = i & 1;
        uint8_t resp = (i & 2) ? 3 : 2;
        if (!error_case(sim, b, r, load, resp)) {
            printf("  error case %u; seed 0x%016" PRIx64 "\n", i, seed);
            return false;
        }
    }
    return true;
}

// Long aligned LOAD and STORE, latency 100, bandwidth = beat width: >= 0.9 beats per cycle.
static bool throughput(Sim &sim, Bench &b, uint64_t seed) {
    TslRng r{seed};
    HbmSetup s;
    s.latency = 100;
    s.bytes_per_cycle = W;
    s.ready_percent = 100;
    sim.configure(s, seed);
    b.randomise(r);
    bool ok = true;
    for (int ld = 1; ld >= 0; ld--) {
        Xfer x{ld == 1, 4096, 1024, 0, 1024, 64, 1024};
        ExecResult e;
        ok = b.run(x, &e) && ok;
        uint64_t beats = (uint64_t)x.rows * x.rb / W;
        double bpc = (double)beats / (double)e.cycles;
        printf("dma_n%u throughput %s: %" PRIu64 " beats of %u bytes in %" PRIu64 " cycles = %.3f beats/cycle"
               " (latency 100, %u B/cycle)\n", N, ld ? "LOAD" : "STORE", beats, W, e.cycles, bpc, W);
        if (bpc < 0.9) {
            printf("  FAILED: below 0.9 beats/cycle\n");
            ok = false;
        }
    }
    // Unaligned rows (HBM and local offsets differ): printed for information, not asserted.
    for (int ld = 1; ld >= 0; ld--) {
        Xfer x{ld == 1, 4096 + 3, 1024, 5, 1024, 64, 1019};
        ExecResult e;
        ok = b.run(x, &e) && ok;
        uint64_t beats = (uint64_t)x.rows * ((x.ha % W + x.rb + W - 1) / W);
        printf("dma_n%u throughput %s unaligned: %" PRIu64 " HBM beats in %" PRIu64 " cycles = %.3f beats/cycle\n", N,
               ld ? "LOAD" : "STORE", beats, e.cycles, (double)beats / (double)e.cycles);
    }
    return ok;
}

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    const char *mode = argc > 1 ? argv[1] : "all";
    unsigned progs = argc > 2 ? (unsigned)atoi(argv[2]) : 12;
    const char *se = getenv("SEED");
    const char *te = getenv("TRACE");
    uint64_t seed = se ? strtoull(se, nullptr, 0) : ((uint64_t)time(nullptr) * 2654435761u) ^ (N << 8);
    bool all = !strcmp(mode, "all");
    if (!all && strcmp(mode, "random") && strcmp(mode, "directed") && strcmp(mode, "errors") &&
        strcmp(mode, "throughput") && strcmp(mode, "chains")) {
        fprintf(stderr, "usage: %s [all|random|directed|errors|throughput|chains] [programs]\n", argv[0]);
        return 2;
    }
    printf("dma_n%u: SEED=0x%016" PRIx64 " replays this run (mode %s)\n", N, seed, mode);
    Sim sim(te && atoi(te));
    Bench b(sim);
    Tally t;
    if (all || !strcmp(mode, "directed")) t.add(directed(sim, b, seed));
    if (all || !strcmp(mode, "errors")) t.add(errors(sim, b, seed + 1, 24));
    if (all || !strcmp(mode, "random")) {
        unsigned n = se && !all ? 1 : progs;
        for (unsigned i = 0; i < n; i++)
            t.add(random_program(sim, b, se && !all ? seed : seed + 0x1000 * (i + 2), 30));
    }
    if (all || !strcmp(mode, "throughput")) t.add(throughput(sim, b, seed));
    if (all || !strcmp(mode, "chains")) t.add(chains(sim, b, seed + 2, 8 * progs));
    printf("dma_n%u: %u passed, %u failed\n", N, t.passed, t.failed);
    return t.failed ? 1 : 0;
}
