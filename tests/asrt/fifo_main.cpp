// Drives tsl_prim_fifo (Width 8) in one of these modes and exits 0 if the run ends:
//   ok      random valid/ready that keeps the stream rules; every byte must come out in order
//   drop    the producer drops valid_i while the FIFO is full (its assertion InValidHeld fires)
//   change  the producer changes data_i while the FIFO is full (InDataStable fires)
// Built with --assert; a firing assertion stops the process with its message and a non-zero exit.
// Usage: fifo_asrt MODE [SEED]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>

#include "Vtsl_prim_fifo.h"
#include "tsl_rng.h"
#include "verilated.h"

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s ok|drop|change [SEED]\n", argv[0]);
        return 2;
    }
    const char *mode = argv[1];
    TslRng rng{argc > 2 ? strtoull(argv[2], nullptr, 0) : 1};
    Verilated::commandArgs(argc, argv);
    Vtsl_prim_fifo f;
    f.clk_i = 0;
    f.rst_ni = 0;
    f.clr_i = 0;
    f.valid_i = 0;
    f.ready_i = 0;
    f.eval();
    f.clk_i = 1;
    f.eval();
    f.rst_ni = 1;

    std::deque<uint8_t> sent;
    uint8_t next = 0;
    bool waiting = false;  // valid_i shown without a handshake yet
    for (int cycle = 0; cycle < 2000; cycle++) {
        f.clk_i = 0;
        f.eval();
        bool full = !f.ready_o;
        if (waiting && full && strcmp(mode, "drop") == 0 && cycle > 100) {
            f.valid_i = 0;  // breaks the rule: valid falls before ready
        } else if (waiting && full && strcmp(mode, "change") == 0 && cycle > 100) {
            f.data_i = (uint8_t)(f.data_i + 1);  // breaks the rule: payload moves while waiting
        } else if (!waiting) {
            f.valid_i = rng.chance(0.7);
            f.data_i = next;
        }
        f.ready_i = rng.chance(cycle < 1000 ? 0.3 : 0.8);  // slow consumer first: the FIFO fills
        f.eval();
        bool push = f.valid_i && f.ready_o, pop = f.valid_o && f.ready_i;
        if (pop) {
            if (sent.empty() || f.data_o != sent.front()) {
                fprintf(stderr, "fifo_asrt: cycle %d: popped 0x%02x, expected 0x%02x\n", cycle, f.data_o,
                        sent.empty() ? 0 : sent.front());
                return 1;
            }
            sent.pop_front();
        }
        if (push) {
            sent.push_back(f.data_i);
            next++;
        }
        waiting = f.valid_i && !push;
        f.clk_i = 1;
        f.eval();
    }
    printf("fifo_asrt %s: ran 2000 cycles\n", mode);
    return 0;
}
