// What the ICI unit tests share (hw/sim/ici): the tally of checks, a clock and an asynchronous
// reset of any Verilated top with clk_i and rst_ni.
#ifndef ICI_HARNESS_H
#define ICI_HARNESS_H

#include <cinttypes>
#include <cstdio>

struct Tally {
    const char *name;
    int passed = 0, failed = 0;
    void check(bool ok, const char *what, uint64_t seed) {
        if (ok) {
            passed++;
            return;
        }
        failed++;
        printf("FAIL %s (SEED=0x%" PRIx64 "): %s\n", name, seed, what);
    }
    int done() const {
        printf("%s: %d passed, %d failed\n", name, passed, failed);
        return failed ? 1 : 0;
    }
};

// One rising and falling edge of clk_i, the time advancing with each.
template <class Top> static void clock(Top &t) {
    t.contextp()->timeInc(1);
    t.clk_i = 1;
    t.eval();
    t.contextp()->timeInc(1);
    t.clk_i = 0;
    t.eval();
}

// An asynchronous reset: a falling edge of rst_ni, a clock while it is low, then high again. The
// caller has set the top's other inputs.
template <class Top> static void reset(Top &t) {
    t.clk_i = 0;
    t.rst_ni = 1;
    t.eval();
    t.rst_ni = 0;
    t.eval();
    clock(t);
    t.rst_ni = 1;
    t.eval();
}

#endif  // ICI_HARNESS_H
