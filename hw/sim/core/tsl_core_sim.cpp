// Implementation of TslCoreSim: ELF loader, clocking and console/exit monitoring.
#include "tsl_core_sim.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "Vtsl_cpu_sys_sim.h"
#include "Vtsl_cpu_sys_sim__Dpi.h"
#include "svdpi.h"
#include "verilated.h"
#include "verilated_fst_c.h"

namespace {
const char *kRamScope = "TOP.tsl_cpu_sys_sim.u_sys.u_ram";

uint32_t rd32(const std::vector<uint8_t> &b, size_t off) {
  return b[off] | (b[off + 1] << 8) | (b[off + 2] << 16) | (uint32_t(b[off + 3]) << 24);
}
uint16_t rd16(const std::vector<uint8_t> &b, size_t off) { return b[off] | (b[off + 1] << 8); }
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
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    *err = "cannot open " + path;
    return false;
  }
  std::vector<uint8_t> b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (b.size() < 52 || memcmp(b.data(), "\x7f" "ELF", 4) != 0) {
    *err = path + ": not an ELF file";
    return false;
  }
  if (b[4] != 1 || b[5] != 1 || rd16(b, 18) != 0xf3) {
    *err = path + ": not a little-endian ELF32 RISC-V file";
    return false;
  }
  uint32_t phoff = rd32(b, 28);
  uint16_t phentsize = rd16(b, 42), phnum = rd16(b, 44);
  if (phentsize < 32 || uint64_t(phoff) + uint64_t(phnum) * phentsize > b.size()) {
    *err = path + ": program header table out of range";
    return false;
  }
  svSetScope(svGetScopeFromName(kRamScope));
  uint64_t ram_bytes = uint64_t(tsl_prim_ram_depth()) * 4;
  // Validate everything before touching the RAM.
  for (int pass = 0; pass < 2; pass++) {
    for (unsigned i = 0; i < phnum; i++) {
      size_t ph = phoff + size_t(i) * phentsize;
      if (rd32(b, ph) != 1) continue;  // PT_LOAD only
      uint32_t off = rd32(b, ph + 4), paddr = rd32(b, ph + 12);
      uint32_t filesz = rd32(b, ph + 16), memsz = rd32(b, ph + 20);
      if (memsz == 0) continue;
      if (pass == 0) {
        if (filesz > memsz || uint64_t(off) + filesz > b.size()) {
          *err = path + ": segment data out of range";
          return false;
        }
        if (paddr < kRamBase || uint64_t(paddr - kRamBase) + memsz > ram_bytes) {
          char msg[160];
          snprintf(msg, sizeof msg, ": segment 0x%08x+0x%x lies outside RAM 0x%08x+0x%llx",
                   paddr, memsz, kRamBase, (unsigned long long)ram_bytes);
          *err = path + msg;
          return false;
        }
        continue;
      }
      for (uint32_t a = 0; a < memsz; a++) {
        uint32_t byte_addr = paddr - kRamBase + a;
        uint32_t idx = byte_addr >> 2, sh = (byte_addr & 3) * 8;
        uint32_t w = tsl_prim_ram_read(idx);
        uint32_t v = a < filesz ? b[off + a] : 0;
        tsl_prim_ram_write(idx, (w & ~(0xffu << sh)) | (v << sh));
      }
    }
  }
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
