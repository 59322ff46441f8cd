// tessel: the Tessel SoC simulator CLI (TslSocSim: the Verilated product SoC tsl_soc with the C++
// HBM model on its AXI port; hw/sim/soc/tsl_soc_sim.h).
//   tessel run [--max-cycles N] [--trace out.fst] [--stats] PROG.elf
//   tessel test-host FW.elf     host-port self-test (make test-soc-host; tests/soc/README.md)
//   tessel gemm|info ...        libtessel's CLI (host_driver/tools/tessel_cli.c; `tessel gemm --help`)
// `run` loads PROG.elf into the core's RAM (tsl_prim_ram back door), runs it from reset, streams
// the console to stdout and exits with the program's exit code (low 8 bits); 124 on timeout, 125
// on a trap loop, 2 on a usage or load error, 3 when the HBM model saw an AXI rule violation.
// The host port is idle during `run`; the core reaches HBM through its window and the AXI bridge.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <unistd.h>

#include "tsl_hbm.h"
#include "tsl_soc_sim.h"

int tsl_soc_host_test(const std::string &elf);  // soc_host_test.cpp

// gemm and info are libtessel's CLI (host_driver/tools/tessel_cli.c). When the build links it in,
// this weak reference resolves and it runs here; otherwise tessel-cli (the same code linked with
// libtessel.a, mk/cli.mk) is run from this binary's directory.
extern "C" int tessel_cli_main(int argc, char **argv) __attribute__((weak));

namespace {
const char kUsage[] =
    "usage: tessel run [--max-cycles N] [--trace out.fst] [--stats] PROG.elf\n"
    "  Run an RV32IM ELF on the simulated SoC (control core + tensor core + HBM).\n"
    "  Exit code: the program's (low 8 bits); 124 timeout, 125 trap loop, 2 usage/load error,\n"
    "  3 AXI rule violation seen by the HBM model.\n"
    "       tessel test-host FW.elf   host-port self-test with tests/soc/host_fw.c\n"
    "       tessel gemm --a A.npy --b B.npy [...]   a GEMM through libtessel (tessel gemm --help)\n"
    "       tessel info [--backend model|sim]      the device's configuration\n";

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
int cmd_cli(int argc, char **argv) {
  if (tessel_cli_main) return tessel_cli_main(argc - 1, argv + 1);
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  std::string path = n > 0 ? std::string(self, size_t(n)) : std::string(argv[0]);
  path = path.substr(0, path.rfind('/') + 1) + "tessel-cli";
  argv[0] = const_cast<char *>(path.c_str());
  execv(path.c_str(), argv);
  fprintf(stderr, "tessel: %s needs %s (make build/bin/tessel-cli)\n", argv[1], path.c_str());
  return 2;
}
}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) return usage("no subcommand given");
  std::string sub = argv[1];
  if (sub == "-h" || sub == "--help" || sub == "help") return fputs(kUsage, stdout), 0;
  if (sub == "test-host") {
    if (argc != 3) return usage("test-host needs exactly one firmware ELF");
    return tsl_soc_host_test(argv[2]);
  }
  if (sub == "gemm" || sub == "info") return cmd_cli(argc, argv);
  if (sub != "run") return usage(("unknown subcommand " + sub).c_str());
  return cmd_run(argc - 2, argv + 2);
}
