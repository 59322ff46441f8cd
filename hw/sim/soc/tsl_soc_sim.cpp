// TslSocSim (tsl_soc_sim.h) over the Verilated tsl_soc. Per cycle: drive the inputs from the
// models' state (HBM slave outputs, host request) -> eval -> sample outputs (console, exit,
// traps, host answer) -> HBM tick -> rising and falling clock edge.
#include "tsl_soc_sim.h"

#include <vector>

#include "Vtsl_soc.h"
#include "Vtsl_soc__Dpi.h"
#include "svdpi.h"
#include "tsl_elf.h"
#include "tsl_axi_pins.h"
#include "tsl_hbm.h"
#include "verilated.h"
#include "verilated_fst_c.h"

#if !defined(SOC_N) || !defined(SOC_HBM)
#error "SOC_N and SOC_HBM must match the Verilated parameters N and HbmBytes"
#endif

namespace {
const uint32_t kRamBase = 0x80000000u;  // TSL_MMAP_RAM_BASE
const char *kRamScope = "TOP.tsl_soc.u_sys.u_ram";

TslHbmCfg hbm_cfg() {
  TslHbmCfg c;  // default latency and bandwidth
  c.bytes = SOC_HBM;
  c.data_bytes = 2 * SOC_N;
  return c;
}
}  // namespace

struct TslSocSim::Impl {
  Impl() : ctx(new VerilatedContext), top(new Vtsl_soc(ctx.get())), hbm(hbm_cfg()) {}
  std::unique_ptr<VerilatedContext> ctx;
  std::unique_ptr<Vtsl_soc> top;
  std::unique_ptr<VerilatedFstC> trace;
  TslHbm hbm;
  TslAxiPins p{};
  uint64_t time = 0;
  // host request being driven, and its answer
  bool h_valid = false, h_done = false, h_err = false;
  uint32_t h_rdata = 0;
  bool host_irq = false;
};

TslSocSim::TslSocSim() : impl_(new Impl) {
  impl_->top->clk_i = 0;
  impl_->top->rst_ni = 0;
  impl_->top->h_valid_i = 0;
  impl_->top->eval();
}

TslSocSim::~TslSocSim() {
  if (impl_->trace) impl_->trace->close();
  impl_->top->final();
}

TslHbm &TslSocSim::hbm() { return impl_->hbm; }
uint64_t TslSocSim::hbm_bytes() const { return impl_->hbm.size(); }
bool TslSocSim::host_irq() const { return impl_->host_irq; }

bool TslSocSim::load_elf(const std::string &path, std::string *err) {
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

bool TslSocSim::open_trace(const std::string &path, std::string *err) {
  impl_->ctx->traceEverOn(true);
  impl_->trace.reset(new VerilatedFstC);
  impl_->top->trace(impl_->trace.get(), 99);
  impl_->trace->open(path.c_str());
  if (!impl_->trace->isOpen()) {
    *err = "cannot open trace file " + path;
    impl_->trace.reset();
    return false;
  }
  return true;
}

void TslSocSim::reset() {
  impl_->top->rst_ni = 0;
  for (int i = 0; i < 4; i++) cycle();
  impl_->top->rst_ni = 1;
  exited_ = false;
  traps_in_row_ = 0;
}

void TslSocSim::step(uint64_t n) {
  for (uint64_t i = 0; i < n; i++) cycle();
}

void TslSocSim::cycle() {
  Impl &m = *impl_;
  Vtsl_soc &t = *m.top;
  // Inputs from the models' state only, then evaluate.
  m.hbm.drive(m.p);
  tsl_axi_to_top(t, m.p);
  t.h_valid_i = m.h_valid;
  t.eval();
  // Outputs of this cycle, sampled before the edge.
  tsl_axi_from_top(t, m.p);
  bool running = t.rst_ni;
  if (running && t.console_valid_o && console_) {
    fputc(t.console_data_o, console_);
    if (t.console_data_o == '\n') fflush(console_);
  }
  if (running && t.retire_o) {
    instret_++;
    traps_in_row_ = 0;
  }
  if (running && t.trap_o) {
    trap_cause_ = t.trap_cause_o;
    trap_pc_ = t.trap_pc_o;
    if (!t.retire_o) traps_in_row_++;
  }
  if (running && t.exit_valid_o) {
    exited_ = true;
    exit_code_ = t.exit_code_o;
  }
  bool h_ack = m.h_valid && t.h_ready_o;
  if (h_ack) {
    m.h_done = true;
    m.h_rdata = t.h_rdata_o;
    m.h_err = t.h_err_o;
  }
  // This edge's handshakes in the HBM model, then the clock edges.
  m.hbm.tick(m.p);
  t.clk_i = 1;
  t.eval();
  if (m.trace) m.trace->dump(m.time * 10 + 5);
  t.clk_i = 0;
  t.eval();
  m.time++;
  if (m.trace) m.trace->dump(m.time * 10);
  if (h_ack) m.h_valid = false;
  m.host_irq = t.host_irq_o;
  cycles_++;
}

TslSocStop TslSocSim::run_until(const std::function<bool()> &stop, uint64_t max_cycles,
                                uint32_t trap_loop_limit) {
  uint64_t start = cycles_;
  while (max_cycles == 0 || cycles_ - start < max_cycles) {
    if (stop && stop()) return TSL_SOC_STOPPED;
    cycle();
    if (exited_) return TSL_SOC_EXIT;
    if (traps_in_row_ >= trap_loop_limit) return TSL_SOC_TRAP_LOOP;
  }
  return TSL_SOC_TIMEOUT;
}

static TslSocStatus check_args(unsigned bar, uint32_t addr) {
  return (bar > 1 || (addr & 3)) ? TSL_SOC_EINVAL : TSL_SOC_OK;
}

TslSocStatus TslSocSim::host_read32(unsigned bar, uint32_t addr, uint32_t *data,
                                    uint64_t timeout_cycles) {
  if (check_args(bar, addr) != TSL_SOC_OK || !data) return TSL_SOC_EINVAL;
  return host_access(bar, addr, 0, 0, data, timeout_cycles);
}

TslSocStatus TslSocSim::host_write32(unsigned bar, uint32_t addr, uint32_t data, uint8_t wstrb,
                                     uint64_t timeout_cycles) {
  if (check_args(bar, addr) != TSL_SOC_OK || (wstrb & ~0xfu) || !wstrb) return TSL_SOC_EINVAL;
  return host_access(bar, addr, data, wstrb, nullptr, timeout_cycles);
}

TslSocStatus TslSocSim::host_access(unsigned bar, uint32_t addr, uint32_t wdata,
                                          uint8_t wstrb, uint32_t *rdata, uint64_t timeout) {
  Impl &m = *impl_;
  Vtsl_soc &t = *m.top;
  t.h_bar_i = bar;
  t.h_addr_i = addr;
  t.h_wdata_i = wdata;
  t.h_wstrb_i = wstrb;
  m.h_valid = true;
  m.h_done = false;
  host_accesses_++;
  for (uint64_t i = 0; i < timeout && !m.h_done; i++) cycle();
  if (!m.h_done) {
    // Give up. The request stays driven until answered, as the bus contract requires, but a
    // caller that sees a timeout should treat the device as broken.
    return TSL_SOC_ETIMEOUT;
  }
  if (rdata) *rdata = m.h_rdata;
  return m.h_err ? TSL_SOC_EBUS : TSL_SOC_OK;
}
