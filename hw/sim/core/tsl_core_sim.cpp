// Implementation of TslCoreSim: ELF loader, clocking and console/exit monitoring.
#include "tsl_core_sim.h"

#include "elf_image.h"

#include <cstring>
#include <vector>

#include "Vtsl_cpu_sys_sim.h"
#include "Vtsl_cpu_sys_sim__Dpi.h"
#include "svdpi.h"
#include "verilated.h"
#include "verilated_fst_c.h"

namespace {
const char *kRamScope = "TOP.tsl_cpu_sys_sim.u_sys.u_ram";
}  // namespace

TslCoreSim::TslCoreSim() : ctx_(new VerilatedContext), top_(new Vtsl_cpu_sys_sim(ctx_.get())) {
  top_->clk_i = 0;
  top_->rst_ni = 0;
  top_->eval();
}

TslCoreSim::~TslCoreSim() {
  if (trace_) trace_->close();
  top_->final();
}

bool TslCoreSim::load_elf(const std::string &path, std::string *err) {
  svSetScope(svGetScopeFromName(kRamScope));
  uint32_t bytes = tsl_prim_ram_depth() * 4, used = 0;
  std::vector<uint8_t> img(bytes);
  if (const char *why = tessel_elf_file(path.c_str(), kRamBase, img.data(), bytes, &used)) {
    *err = path + ": " + why;
    return false;
  }
  for (uint32_t i = 0; i < bytes / 4; i++)  // the whole RAM: .bss and the rest are zero
    tsl_prim_ram_write(i, img[4 * i] | img[4 * i + 1] << 8 | img[4 * i + 2] << 16 | uint32_t(img[4 * i + 3]) << 24);
  return true;
}

bool TslCoreSim::open_trace(const std::string &path, std::string *err) {
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

void TslCoreSim::tick() {
  top_->clk_i = 1;
  top_->eval();
  if (trace_) trace_->dump(time_ * 10 + 5);
  top_->clk_i = 0;
  top_->eval();
  time_++;
  if (trace_) trace_->dump(time_ * 10);
}

TslRunResult TslCoreSim::run(uint64_t max_cycles, FILE *console, uint32_t trap_loop_limit) {
  TslRunResult r = {TslRunResult::kTimeout, 0, 0, 0, 0, 0};
  top_->rst_ni = 0;
  for (int i = 0; i < 4; i++) tick();
  top_->rst_ni = 1;
  top_->eval();
  uint32_t traps_in_row = 0;
  // Outputs are sampled with the clock low, i.e. in the cycle they belong to, then the edge comes.
  while (max_cycles == 0 || r.cycles < max_cycles) {
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
        r.reason = TslRunResult::kTrapLoop;
        break;
      }
    }
    if (top_->exit_valid_o) {
      r.reason = TslRunResult::kExit;
      r.exit_code = top_->exit_code_o;
      r.cycles++;
      tick();
      break;
    }
    tick();
    r.cycles++;
  }
  fflush(console);
  return r;
}
