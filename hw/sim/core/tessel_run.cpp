// tessel-run: run a RV32IM ELF on the Verilated control subsystem (tsl_cpu_sys_sim).
// Usage: tessel-run [--max-cycles N] [--trace out.fst] [--stats] PROG.elf
// Console output goes to stdout; the process exits with the program's exit code (low 8 bits),
// or 124 on timeout, 125 on a trap loop, 2 on a usage/load error.
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <cstring>
#include <string>

#include "tsl_core_sim.h"
#include "verilated.h"

static int usage(const char *msg) {
  if (msg) fprintf(stderr, "tessel-run: %s\n", msg);
  fprintf(stderr, "usage: tessel-run [--max-cycles N] [--trace out.fst] [--stats] PROG.elf\n");
  return 2;
}

int main(int argc, char **argv) {
  uint64_t max_cycles = 200000000ull;
  std::string trace, elf;
  bool stats = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--max-cycles") && i + 1 < argc) {
      char *end;
      max_cycles = strtoull(argv[++i], &end, 0);
      if (*end) return usage("--max-cycles needs a number");
    } else if (!strcmp(argv[i], "--trace") && i + 1 < argc) {
      trace = argv[++i];
    } else if (!strcmp(argv[i], "--stats")) {
      stats = true;
    } else if (argv[i][0] == '-' || !elf.empty()) {
      return usage((std::string("unexpected argument ") + argv[i]).c_str());
    } else {
      elf = argv[i];
    }
  }
  if (elf.empty()) return usage("no program given");

  Verilated::commandArgs(argc, argv);
  TslCoreSim sim;
  std::string err;
  if (!sim.load_elf(elf, &err)) return fprintf(stderr, "tessel-run: %s\n", err.c_str()), 2;
  if (!trace.empty() && !sim.open_trace(trace, &err))
    return fprintf(stderr, "tessel-run: %s\n", err.c_str()), 2;

  auto t0 = std::chrono::steady_clock::now();
  TslRunResult r = sim.run(max_cycles, stdout);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (stats)
    fprintf(stderr, "tessel-run: cycles %llu instret %llu CPI %.3f (%.0f cycles/s simulated)\n",
            (unsigned long long)r.cycles, (unsigned long long)r.instret,
            r.instret ? double(r.cycles) / r.instret : 0.0, secs > 0 ? r.cycles / secs : 0.0);
  switch (r.reason) {
    case TslRunResult::kExit:
      return int(r.exit_code & 0xff);
    case TslRunResult::kTimeout:
      fprintf(stderr, "tessel-run: timeout after %llu cycles (%llu instructions retired)\n",
              (unsigned long long)r.cycles, (unsigned long long)r.instret);
      return 124;
    default:
      fprintf(stderr,
              "tessel-run: trap loop after %llu cycles: repeated traps with no instruction "
              "retired, last mcause 0x%08x at pc 0x%08x (is mtvec set?)\n",
              (unsigned long long)r.cycles, r.last_trap_cause, r.last_trap_pc);
      return 125;
  }
}
