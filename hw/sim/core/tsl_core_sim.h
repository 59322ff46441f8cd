// Tessel control-subsystem simulator: wraps the Verilated tsl_cpu_sys_sim, loads an ELF32 image
// into its RAM through the tsl_prim_ram DPI back door, runs it and streams the console.
// Reusable by the future `tessel run` CLI: construct, load_elf(), optionally open_trace(), run().
#ifndef TSL_CORE_SIM_H
#define TSL_CORE_SIM_H

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

class Vtsl_cpu_sys_sim;
class VerilatedContext;
class VerilatedFstC;

struct TslRunResult {
  enum Reason { kExit, kTimeout, kTrapLoop } reason;
  uint32_t exit_code;      // value written to SYS.EXIT (kExit only)
  uint64_t cycles;         // clock cycles simulated
  uint64_t instret;        // instructions retired
  uint32_t last_trap_cause;
  uint32_t last_trap_pc;
};

class TslCoreSim {
 public:
  static constexpr uint32_t kRamBase = 0x80000000u;  // TSL_MMAP_RAM_BASE

  TslCoreSim();
  ~TslCoreSim();

  // Load every PT_LOAD segment of an ELF32 RISC-V executable. Returns false and sets *err on a
  // malformed file or a segment outside RAM; the simulation is untouched in that case.
  bool load_elf(const std::string &path, std::string *err);
  // Dump an FST waveform of the whole run to path. Returns false and sets *err on failure.
  bool open_trace(const std::string &path, std::string *err);
  // Run from reset until EXIT is written, max_cycles pass (0 = no limit) or the core traps
  // trap_loop_limit times in a row without retiring an instruction. Console bytes go to console.
  TslRunResult run(uint64_t max_cycles, FILE *console, uint32_t trap_loop_limit = 1000);

 private:
  void tick();
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vtsl_cpu_sys_sim> top_;
  std::unique_ptr<VerilatedFstC> trace_;
  uint64_t time_ = 0;
};

#endif  // TSL_CORE_SIM_H
