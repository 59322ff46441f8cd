// tessel: the Tessel command-line tool, one binary linked with libtessel (mk/cli.mk).
//   tessel run [--max-cycles N|unlimited] [--trace out.fst] [--stats] PROG.elf
//                       an ELF on the simulated SoC from reset (hw/sim/soc/tsl_soc_run.h)
//   tessel gemm ...     a GEMM through libtessel on a device (tessel_cli.h; `tessel gemm --help`)
//   tessel conv2d ...   a 2-D convolution, tessel pool2d ...: max or average pooling (tessel_cli.h)
//   tessel softmax ...  and layernorm, rmsnorm, gelu, silu: a function of each row; tessel
//                       attention ...: softmax(Q K^T * scale + mask) V (tessel_cli.h)
//   tessel info ...     the device's configuration (tessel_cli.h)
// Exit code 2 and a "tessel: " message on a usage error. Built with -DTESSEL_NO_SIM (a libtessel
// without the simulated SoC, HOST_SIM=0), `run` says that it is not there.
#include <cstdio>
#include <cstring>

#include "tessel_cli.h"
#ifndef TESSEL_NO_SIM
#include "tsl_soc_run.h"
#endif

namespace {
#ifdef TESSEL_NO_SIM
const char tsl_soc_run_usage[] = "usage: tessel run PROG.elf   (not in this build: no simulated SoC)\n";
#endif

const char kSummary[] =
    "usage: tessel run [--max-cycles N|unlimited] [--trace out.fst] [--stats] PROG.elf\n"
    "       tessel gemm --a A.npy --b B.npy [...]   a GEMM through libtessel (tessel gemm --help)\n"
    "       tessel conv2d --x X.npy --w W.npy [...] a 2-D convolution (NHWC X, HWIO W)\n"
    "       tessel pool2d --x X.npy --kind max|avg --window K [...]\n"
    "                                               max or average pooling\n"
    "       tessel softmax|layernorm|rmsnorm|gelu|silu --x X.npy [...]\n"
    "                                               a function of each row of X\n"
    "       tessel attention --q Q.npy --k K.npy --v V.npy [...]\n"
    "                                               softmax(Q K^T * scale + mask) V per head\n"
    "       tessel info [--backend model|sim|uart]  the device's configuration\n"
    "       tessel --help                           all options\n";
}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs("tessel: no subcommand given\n", stderr);
    fputs(kSummary, stderr);
    return 2;
  }
  const char *sub = argv[1];
  if (!strcmp(sub, "-h") || !strcmp(sub, "--help") || !strcmp(sub, "help")) {
    fputs(tsl_soc_run_usage, stdout);
    fputs(tessel_cli_usage, stdout);
    return 0;
  }
  if (tessel_cli_handles(sub)) return tessel_cli_main(argc - 1, argv + 1);
  if (strcmp(sub, "run") != 0) {
    fprintf(stderr, "tessel: unknown subcommand %s\n", sub);
    fputs(kSummary, stderr);
    return 2;
  }
#ifdef TESSEL_NO_SIM
  fputs("tessel: run needs the simulated SoC, and this tessel was built without it (HOST_SIM=0)\n", stderr);
  return 2;
#else
  return tsl_soc_run(argc - 2, argv + 2);
#endif
}
