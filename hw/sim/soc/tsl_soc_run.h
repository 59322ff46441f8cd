// `tessel run`: run an RV32IM ELF on the simulated SoC (TslSocSim, tsl_soc_sim.h) from reset.
//   tsl_soc_run(argc, argv) takes the arguments after "run": [--max-cycles N|unlimited]
//   [--trace out.fst] [--stats] PROG.elf. It loads PROG.elf with the one ELF loader
//   (common/elf_image.h) into the core's RAM (tsl_prim_ram back door), runs it from
// reset, streams the console to stdout and returns the process exit code: the program's exit code
// (low 8 bits); 124 on timeout, 125 on a trap loop, 2 on a usage or load error, 3 when the HBM model
// saw an AXI rule violation. Messages go to stderr and start with "tessel: ".
// The host port is idle; the core reaches HBM through its window and the AXI bridge.
// Linked into build/bin/tessel (host_driver/tools/tessel_main.cpp) and the SoC's test harness.
#ifndef TSL_SOC_RUN_H
#define TSL_SOC_RUN_H

#include <cstdint>

// The cycle limit of a run without --max-cycles (~20 minutes at 170 k cycles/s); N must be >= 1,
// and only `--max-cycles unlimited` lifts the limit.
constexpr uint64_t kTslSocRunDefaultCycles = 200000000ull;

// The usage text of `tessel run`.
extern const char tsl_soc_run_usage[];
int tsl_soc_run(int argc, char **argv);

#endif  // TSL_SOC_RUN_H
