// Drives tsl_axi_arb (2 masters, 32-bit data) through one read burst from master 0 and exits 0 if
// the run ends:
//   ok        a legal AR (held until arready) and its one R beat
//   archange  master 0 moves ARADDR while ARVALID waits for ARREADY (ArHeld fires)
//   stray     the slave sends an R beat that no AR asked for (RHasBurst fires)
// Built with --assert; a firing assertion stops the process with its message and a non-zero exit.
// Usage: arb_asrt MODE
#include <cstdio>
#include <cstring>

#include "Vtsl_axi_arb.h"
#include "verilated.h"

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s ok|archange|stray\n", argv[0]);
        return 2;
    }
    const char *mode = argv[1];
    Verilated::commandArgs(argc, argv);
    Vtsl_axi_arb a;
    a.clk_i = 0;
    a.rst_ni = 0;
    a.eval();
    a.clk_i = 1;
    a.eval();
    a.rst_ni = 1;
    a.s_axi_rready = 1;
    a.m_axi_bresp = 0;
    a.m_axi_rresp = 0;

    bool got = false;
    for (int cycle = 0; cycle < 20; cycle++) {
        a.clk_i = 0;
        a.eval();
        bool stray = strcmp(mode, "stray") == 0;
        a.s_axi_arvalid = (!stray && cycle >= 2 && cycle < 8) ? 1 : 0;  // master 0, held 6 cycles
        a.s_axi_araddr = (strcmp(mode, "archange") == 0 && cycle >= 4) ? 0x200 : 0x100;
        a.m_axi_arready = cycle == 7;                    // the slave takes it in the last one
        a.m_axi_rvalid = stray ? cycle == 5 : cycle == 10;
        a.m_axi_rlast = 1;
        a.m_axi_rdata = 0xC0FFEE;
        a.eval();
        if ((a.s_axi_rvalid & 1) && a.s_axi_rdata == 0xC0FFEE) got = true;
        a.clk_i = 1;
        a.eval();
    }
    if (!got) {
        fprintf(stderr, "arb_asrt %s: master 0 never saw its R beat\n", mode);
        return 1;
    }
    printf("arb_asrt %s: the R beat reached master 0\n", mode);
    return 0;
}
