// `tessel run` on TslSocSim (tsl_soc_run.h).
#include "tsl_soc_run.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tsl_hbm.h"
#include "tsl_soc_sim.h"

const char tsl_soc_run_usage[] =
    "usage: tessel run [--max-cycles N] [--trace out.fst] [--stats] PROG.elf\n"
    "  Run an RV32IM ELF on the simulated SoC (control core + tensor core + HBM).\n"
    "  Exit code: the program's (low 8 bits); 124 timeout, 125 trap loop, 2 usage/load error,\n"
    "  3 AXI rule violation seen by the HBM model.\n";

namespace {
int usage(const char *msg) {
  fprintf(stderr, "tessel: %s\n", msg);
  fputs(tsl_soc_run_usage, stderr);
  return 2;
}
}  // namespace

int tsl_soc_run(int argc, char **argv) {
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

  TslSocSim soc;
  std::string err;
  if (!soc.load_elf(elf, &err)) return fprintf(stderr, "tessel: %s\n", err.c_str()), 2;
  if (!trace.empty() && !soc.open_trace(trace, &err))
    return fprintf(stderr, "tessel: %s\n", err.c_str()), 2;

  auto t0 = std::chrono::steady_clock::now();
  soc.reset();
  uint64_t c0 = soc.cycles();
  TslSocStop stop = soc.run_until(nullptr, max_cycles);
  uint64_t cycles = soc.cycles() - c0;
  fflush(stdout);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (stats) {
    fprintf(stderr,
            "tessel: cycles %llu instret %llu CPI %.3f, %.0f cycles/s simulated (%.2f s)\n"
            "tessel: HBM model (all AXI masters): read %llu B, wrote %llu B\n",
            (unsigned long long)cycles, (unsigned long long)soc.instret(),
            soc.instret() ? double(cycles) / soc.instret() : 0.0, secs > 0 ? cycles / secs : 0.0,
            secs, (unsigned long long)soc.hbm().bytes_read(),
            (unsigned long long)soc.hbm().bytes_written());
  }
  const std::vector<std::string> &viol = soc.hbm().violations();
  if (!viol.empty()) {
    fprintf(stderr, "tessel: the HBM model saw %zu AXI rule violation(s), first: %s\n", viol.size(),
            viol[0].c_str());
    return 3;
  }
  switch (stop) {
    case TSL_SOC_EXIT:
      return int(soc.exit_code() & 0xff);
    case TSL_SOC_TRAP_LOOP:
      fprintf(stderr,
              "tessel: trap loop after %llu cycles: repeated traps with no instruction retired, "
              "last mcause 0x%08x at pc 0x%08x (is mtvec set?)\n",
              (unsigned long long)cycles, soc.last_trap_cause(), soc.last_trap_pc());
      return 125;
    default:
      fprintf(stderr, "tessel: timeout after %llu cycles (%llu instructions retired)\n",
              (unsigned long long)cycles, (unsigned long long)soc.instret());
      return 124;
  }
}
