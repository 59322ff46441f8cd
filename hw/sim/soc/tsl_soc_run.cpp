// `tessel run` on TslSocSim (tsl_soc_run.h).
#include "tsl_soc_run.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

#include "tsl_hbm.h"
#include "tsl_soc_sim.h"

const char tsl_soc_run_usage[] =
    "usage: tessel run [--max-cycles N|unlimited] [--trace out.fst] [--stats] PROG.elf\n"
    "  Run an RV32IM ELF on the simulated SoC (control core + tensor core + HBM), for at most\n"
    "  --max-cycles cycles (default 200000000; N >= 1, or `unlimited`). On a terminal, a run longer\n"
    "  than 2 s shows its cycles and cycles/s on stderr, refreshed every second.\n"
    "  Exit code: the program's (low 8 bits); 124 timeout, 125 trap loop, 2 usage/load error,\n"
    "  3 AXI rule violation seen by the HBM model, 4 an RTL assertion failed.\n";

namespace {
int usage(const char *msg) {
  fprintf(stderr, "tessel: %s\n", msg);
  fputs(tsl_soc_run_usage, stderr);
  return 2;
}
}  // namespace

int tsl_soc_run(int argc, char **argv) {
  uint64_t max_cycles = kTslSocRunDefaultCycles;  // 0: unlimited, only by --max-cycles unlimited
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
      if (!strcmp(v, "unlimited")) {
        max_cycles = 0;
        continue;
      }
      char *end;
      errno = 0;
      max_cycles = strtoull(v, &end, 0);
      // strtoull takes a sign and leading blanks (and wraps "-1"): only digits are a count
      if (!isdigit((unsigned char)v[0]) || *end || errno == ERANGE)
        return usage("--max-cycles needs a number of cycles (>= 1) or `unlimited`");
      if (max_cycles == 0) return usage("--max-cycles must be at least 1 (no limit: --max-cycles unlimited)");
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
  // In slices, so that a terminal sees progress: cycles and cycles/s once a second after 2 s.
  const bool tty = isatty(STDERR_FILENO);
  const uint64_t kSlice = 1u << 16;
  bool shown = false;
  double next_show = 2.0;
  TslSocStop stop = TSL_SOC_TIMEOUT;
  for (;;) {
    uint64_t done = soc.cycles() - c0;
    if (max_cycles && done >= max_cycles) break;
    uint64_t n = max_cycles && max_cycles - done < kSlice ? max_cycles - done : kSlice;
    stop = soc.run_until(nullptr, n);
    if (stop != TSL_SOC_TIMEOUT) break;
    if (!tty) continue;
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (t < next_show) continue;
    fflush(stdout);
    fprintf(stderr, "\rtessel: %llu cycles, %.0f cycles/s%s", (unsigned long long)(soc.cycles() - c0),
            (soc.cycles() - c0) / t, max_cycles ? "" : " (no cycle limit)");
    fflush(stderr);
    shown = true;
    next_show = t + 1.0;
  }
  uint64_t cycles = soc.cycles() - c0;
  fflush(stdout);
  if (shown) fputc('\n', stderr);
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
    case TSL_SOC_FAILED:  // Verilator has printed the message on stdout; the cause again on stderr
      fprintf(stderr, "tessel: the simulation stopped after %llu cycles: %s\n", (unsigned long long)cycles,
              soc.failure().c_str());
      return 4;
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
