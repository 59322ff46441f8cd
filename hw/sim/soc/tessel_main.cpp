// tessel: the Tessel SoC simulator CLI (Verilated tsl_soc_sim: control core + tensor core, with
// the C++ HBM model on the tensor core's AXI port).
//   tessel run [--max-cycles N] [--trace out.fst] [--stats] PROG.elf
// Loads PROG.elf into the core's RAM (tsl_prim_ram DPI back door), runs it from reset, streams the
// console to stdout and exits with the program's exit code (low 8 bits); 124 on timeout, 125 on a
// trap loop, 2 on a usage or load error, 3 when the HBM model saw an AXI rule violation.
// The harness serves the side bus sb_*: the HBM window (TSL_MMAP_HBM_BASE) reads and writes the
// HBM model's memory directly (byte strobes, 1-4 cycles), so the core and the DMA see one HBM;
// any other address (HOSTIF, the unpopulated part of the window) answers with an access fault.
// Per cycle: drive inputs -> eval -> copy outputs -> HBM/side-bus tick -> clock edge (hw/sim/tc).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "Vtsl_soc_sim.h"
#include "Vtsl_soc_sim__Dpi.h"
#include "svdpi.h"
#include "tsl_elf.h"
#include "tsl_hbm.h"
#include "verilated.h"
#include "verilated_fst_c.h"

#if !defined(SOC_N) || !defined(SOC_HBM)
#error "SOC_N and SOC_HBM must match the Verilated parameters N and HbmBytes"
#endif

namespace {
const uint32_t kRamBase = 0x80000000u;  // TSL_MMAP_RAM_BASE
const uint32_t kHbmBase = 0x40000000u;  // TSL_MMAP_HBM_BASE
const char *kRamScope = "TOP.tsl_soc_sim.u_sys.u_ram";

// Wide AXI data: Verilator uses uint64_t up to 64 bits and VlWide above.
void put_words(uint32_t &s, const uint32_t *w) { s = w[0]; }
void put_words(uint64_t &s, const uint32_t *w) { s = w[0] | uint64_t(w[1]) << 32; }
template <std::size_t W> void put_words(VlWide<W> &s, const uint32_t *w) {
  for (std::size_t i = 0; i < W; i++) s[i] = w[i];
}
void get_words(uint32_t s, uint32_t *w) { w[0] = s; }
void get_words(uint64_t s, uint32_t *w) { w[0] = uint32_t(s), w[1] = uint32_t(s >> 32); }
template <std::size_t W> void get_words(const VlWide<W> &s, uint32_t *w) {
  for (std::size_t i = 0; i < W; i++) w[i] = s[i];
}

struct RunResult {
  enum Reason { kExit, kTimeout, kTrapLoop } reason = kTimeout;
  uint32_t exit_code = 0, last_trap_cause = 0, last_trap_pc = 0;
  uint64_t cycles = 0, instret = 0, sb_accesses = 0;
};

class Soc {
 public:
  Soc() : ctx_(new VerilatedContext), top_(new Vtsl_soc_sim(ctx_.get())), hbm_(hbm_cfg()) {
    top_->clk_i = 0;
    top_->rst_ni = 0;
    top_->eval();
  }
  ~Soc() {
    if (trace_) trace_->close();
    top_->final();
  }

  bool load_elf(const std::string &path, std::string *err) {
    svSetScope(svGetScopeFromName(kRamScope));
    std::vector<TslElfSegment> segs;
    if (!tsl_elf_read(path, kRamBase, uint64_t(tsl_prim_ram_depth()) * 4, &segs, err)) return false;
    for (const TslElfSegment &s : segs) {
      for (uint32_t a = 0; a < s.bytes.size(); a++) {
        uint32_t byte_addr = s.addr - kRamBase + a, idx = byte_addr >> 2, sh = (byte_addr & 3) * 8;
        uint32_t w = tsl_prim_ram_read(idx);
        tsl_prim_ram_write(idx, (w & ~(0xffu << sh)) | (uint32_t(s.bytes[a]) << sh));
      }
    }
    return true;
  }

  bool open_trace(const std::string &path, std::string *err) {
    ctx_->traceEverOn(true);
    trace_.reset(new VerilatedFstC);
    top_->trace(trace_.get(), 99);
    trace_->open(path.c_str());
    if (!trace_->isOpen()) {
      *err = "cannot open trace file " + path;
      trace_.reset();
      return false;
    }
    return true;
  }

  // Same stop conditions as tessel-run (hw/sim/core/tsl_core_sim.cpp).
  RunResult run(uint64_t max_cycles, FILE *console, uint32_t trap_loop_limit = 1000) {
    RunResult r;
    top_->rst_ni = 0;
    for (int i = 0; i < 4; i++) step();
    top_->rst_ni = 1;
    uint32_t traps_in_row = 0;
    while (max_cycles == 0 || r.cycles < max_cycles) {
      comb();  // outputs of this cycle, sampled before the edge
      if (top_->console_valid_o) {
        fputc(top_->console_data_o, console);
        if (top_->console_data_o == '\n') fflush(console);
      }
      if (top_->retire_o) {
        r.instret++;
        traps_in_row = 0;
      }
      if (top_->trap_o) {
        r.last_trap_cause = top_->trap_cause_o;
        r.last_trap_pc = top_->trap_pc_o;
        if (!top_->retire_o && ++traps_in_row >= trap_loop_limit) {
          r.reason = RunResult::kTrapLoop;
          break;
        }
      }
      bool exiting = top_->exit_valid_o;
      r.exit_code = top_->exit_code_o;
      edge();
      r.cycles++;
      if (exiting) {
        r.reason = RunResult::kExit;
        break;
      }
    }
    r.sb_accesses = sb_accesses_;
    fflush(console);
    return r;
  }

  const TslHbm &hbm() const { return hbm_; }

 private:
  static TslHbmCfg hbm_cfg() {
    TslHbmCfg c;  // default latency and bandwidth
    c.bytes = SOC_HBM;
    c.data_bytes = 2 * SOC_N;
    return c;
  }

  // Drive the inputs from the models' state only, evaluate, copy the outputs back.
  void comb() {
    hbm_.drive(p_);
    top_->m_axi_awready = p_.awready;
    top_->m_axi_wready = p_.wready;
    top_->m_axi_bvalid = p_.bvalid;
    top_->m_axi_bresp = p_.bresp;
    top_->m_axi_arready = p_.arready;
    top_->m_axi_rvalid = p_.rvalid;
    put_words(top_->m_axi_rdata, p_.rdata);
    top_->m_axi_rresp = p_.rresp;
    top_->m_axi_rlast = p_.rlast;
    top_->sb_ready_i = sb_ready_q_;
    top_->sb_rdata_i = sb_rdata_q_;
    top_->sb_err_i = sb_err_q_;
    top_->eval();
    p_.awvalid = top_->m_axi_awvalid;
    p_.awaddr = top_->m_axi_awaddr;
    p_.awlen = top_->m_axi_awlen;
    p_.awsize = top_->m_axi_awsize;
    p_.awburst = top_->m_axi_awburst;
    p_.wvalid = top_->m_axi_wvalid;
    get_words(top_->m_axi_wdata, p_.wdata);
    p_.wstrb = top_->m_axi_wstrb;
    p_.wlast = top_->m_axi_wlast;
    p_.bready = top_->m_axi_bready;
    p_.arvalid = top_->m_axi_arvalid;
    p_.araddr = top_->m_axi_araddr;
    p_.arlen = top_->m_axi_arlen;
    p_.arsize = top_->m_axi_arsize;
    p_.arburst = top_->m_axi_arburst;
    p_.rready = top_->m_axi_rready;
  }

  // This edge's handshakes in the models, then the rising and falling clock edges.
  void edge() {
    hbm_.tick(p_);
    sb_tick();
    top_->clk_i = 1;
    top_->eval();
    if (trace_) trace_->dump(time_ * 10 + 5);
    top_->clk_i = 0;
    top_->eval();
    time_++;
    if (trace_) trace_->dump(time_ * 10);
  }

  void step() {
    comb();
    edge();
  }

  // Side bus slave: a request seen in a cycle where ready was low is answered 1-4 cycles later
  // (ready for one cycle); the access happens in the cycle that decides the answer.
  void sb_tick() {
    bool was_ready = sb_ready_q_;
    sb_ready_q_ = false;
    if (was_ready || !top_->sb_valid_o || !top_->rst_ni) return;
    if (!sb_busy_) {
      sb_busy_ = true;
      rng_ ^= rng_ << 13, rng_ ^= rng_ >> 7, rng_ ^= rng_ << 17;
      sb_wait_ = unsigned(rng_ & 3);
    }
    if (sb_wait_ > 0) {
      sb_wait_--;
      return;
    }
    sb_busy_ = false;
    sb_ready_q_ = true;
    sb_rdata_q_ = 0;
    sb_err_q_ = true;
    sb_accesses_++;
    uint32_t addr = top_->sb_addr_o & ~3u, strb = top_->sb_wstrb_o, wdata = top_->sb_wdata_o;
    uint64_t off = uint64_t(addr) - kHbmBase;
    if (addr < kHbmBase || off + 4 > hbm_.size()) return;  // HOSTIF or unpopulated: access fault
    uint8_t *m = hbm_.data() + off;
    sb_err_q_ = false;
    for (int b = 0; b < 4; b++) {
      if (strb >> b & 1) m[b] = uint8_t(wdata >> (8 * b));
      sb_rdata_q_ |= uint32_t(m[b]) << (8 * b);
    }
  }

  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vtsl_soc_sim> top_;
  std::unique_ptr<VerilatedFstC> trace_;
  TslHbm hbm_;
  TslAxiPins p_{};
  uint64_t time_ = 0, rng_ = 0x9E3779B97F4A7C15ull, sb_accesses_ = 0;
  bool sb_ready_q_ = false, sb_err_q_ = false, sb_busy_ = false;
  uint32_t sb_rdata_q_ = 0;
  unsigned sb_wait_ = 0;
};

const char kUsage[] =
    "usage: tessel run [--max-cycles N] [--trace out.fst] [--stats] PROG.elf\n"
    "  Run an RV32IM ELF on the simulated SoC (control core + tensor core + HBM).\n"
    "  Exit code: the program's (low 8 bits); 124 timeout, 125 trap loop, 2 usage/load error,\n"
    "  3 AXI rule violation seen by the HBM model.\n";

int usage(const char *msg) {
  if (msg) fprintf(stderr, "tessel: %s\n", msg);
  fputs(kUsage, stderr);
  return 2;
}

int cmd_run(int argc, char **argv) {
  uint64_t max_cycles = 200000000ull;
  std::string trace, elf;
  bool stats = false;
  for (int i = 0; i < argc; i++) {
    std::string a = argv[i];
    if (a == "--max-cycles" || a == "--trace") {
      if (i + 1 >= argc) return usage((a + " needs a value").c_str());
      const char *v = argv[++i];
      if (a == "--trace") {
        trace = v;
        continue;
      }
      char *end;
      max_cycles = strtoull(v, &end, 0);
      if (!*v || *end) return usage("--max-cycles needs a number");
    } else if (a == "--stats") {
      stats = true;
    } else if (a.size() > 1 && a[0] == '-') {
      return usage(("unknown option " + a).c_str());
    } else if (!elf.empty()) {
      return usage(("unexpected argument " + a).c_str());
    } else {
      elf = a;
    }
  }
  if (elf.empty()) return usage("no program given");

  Soc soc;
  std::string err;
  if (!soc.load_elf(elf, &err)) return fprintf(stderr, "tessel: %s\n", err.c_str()), 2;
  if (!trace.empty() && !soc.open_trace(trace, &err))
    return fprintf(stderr, "tessel: %s\n", err.c_str()), 2;

  auto t0 = std::chrono::steady_clock::now();
  RunResult r = soc.run(max_cycles, stdout);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (stats) {
    fprintf(stderr,
            "tessel: cycles %llu instret %llu CPI %.3f, %.0f cycles/s simulated (%.2f s)\n"
            "tessel: side-bus accesses %llu, HBM model: DMA read %llu B, DMA wrote %llu B\n",
            (unsigned long long)r.cycles, (unsigned long long)r.instret,
            r.instret ? double(r.cycles) / r.instret : 0.0, secs > 0 ? r.cycles / secs : 0.0, secs,
            (unsigned long long)r.sb_accesses, (unsigned long long)soc.hbm().bytes_read(),
            (unsigned long long)soc.hbm().bytes_written());
  }
  const std::vector<std::string> &viol = soc.hbm().violations();
  if (!viol.empty()) {
    fprintf(stderr, "tessel: the HBM model saw %zu AXI rule violation(s), first: %s\n", viol.size(),
            viol[0].c_str());
    return 3;
  }
  switch (r.reason) {
    case RunResult::kExit:
      return int(r.exit_code & 0xff);
    case RunResult::kTimeout:
      fprintf(stderr, "tessel: timeout after %llu cycles (%llu instructions retired)\n",
              (unsigned long long)r.cycles, (unsigned long long)r.instret);
      return 124;
    default:
      fprintf(stderr,
              "tessel: trap loop after %llu cycles: repeated traps with no instruction retired, "
              "last mcause 0x%08x at pc 0x%08x (is mtvec set?)\n",
              (unsigned long long)r.cycles, r.last_trap_cause, r.last_trap_pc);
      return 125;
  }
}
}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) return usage("no subcommand given");
  std::string sub = argv[1];
  if (sub == "-h" || sub == "--help" || sub == "help") return fputs(kUsage, stdout), 0;
  if (sub != "run") return usage(("unknown subcommand " + sub).c_str());
  return cmd_run(argc - 2, argv + 2);
}
