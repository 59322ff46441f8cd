// tsl_lite_perf against 64-bit counters kept here: random one-bit events on every counter,
// CTRL.CLEAR_PERF, and reads of every word. Built with N = 32768, PERF_MXU_MACS adds 2^30 per
// event, so its HI word carries. A read must answer within 2 * PERF_COUNT + 1 cycles with the
// counter's value at its flush: every event before the cycle in which the answer appears.
//   perf_sim CYCLES      SEED=s replays a run
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "Vtsl_lite_perf.h"
#include "verilated.h"
#include "../../hw/sim/common/tsl_rng.h"

extern "C" {
#include "tsl_hw.h"
}

static const unsigned K = TSL_PERF_COUNT;

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    uint64_t cycles = argc > 1 ? strtoull(argv[1], nullptr, 0) : 200000;
    const char *s = getenv("SEED");
    uint64_t seed = s ? strtoull(s, nullptr, 0) : (uint64_t)time(nullptr) ^ ((uint64_t)clock() << 32);
    printf("lite_perf: seed 0x%" PRIx64 " (SEED=0x%" PRIx64 " replays)\n", seed, seed);
    TslRng r{seed};
    Vtsl_lite_perf t;
    std::vector<uint64_t> ref(K, 0), prev(K, 0);  // after this cycle, and before it
    t.clk_i = 0;
    t.rst_ni = 0;
    t.eval();
    t.rst_ni = 1;
    t.eval();
    unsigned pass = 0, fail = 0, waiting = 0, word = 0;
    bool reading = false;
    for (uint64_t c = 0; c < cycles && fail < 5; c++) {
        // inputs of this cycle
        bool clr = r.below(5000) == 0;
        uint32_t inc = 0;
        for (unsigned k = 0; k < K; k++)
            if (r.chance(0.5)) inc |= 1u << k;
        bool rd = !reading && r.below(4) == 0;
        if (rd) word = r.below(2 * K);
        t.clr_i = clr;
        t.inc_i = inc;
        t.rd_i = rd;
        t.rd_word_i = word;
        t.clk_i = 1;
        t.eval();
        t.clk_i = 0;
        t.eval();
        prev = ref;
        for (unsigned k = 0; k < K; k++) {
            uint64_t add = (inc >> k) & 1u;
            if (k == TSL_PERF_MXU_MACS) add <<= 30;   // N = 32768: N*N per event
            ref[k] = clr ? 0 : ref[k] + add;
        }
        if (rd) {
            reading = true;
            waiting = 0;
        } else if (reading && ++waiting > 2 * K + 1) {
            fprintf(stderr, "FAIL cycle %" PRIu64 ": read of word %u not answered within %u cycles\n", c, word, 2 * K + 1);
            fail++;
            reading = false;
        }
        if (t.rvalid_o) {
            uint64_t v = prev[word / 2];
            uint32_t want = word & 1 ? (uint32_t)(v >> 32) : (uint32_t)v;
            if (!reading || t.rdata_o != want) {
                fprintf(stderr, "FAIL cycle %" PRIu64 ": word %u read 0x%08x, want 0x%08x\n", c, word, t.rdata_o, want);
                fail++;
            } else {
                pass++;
            }
            reading = false;
        }
    }
    printf("lite_perf: %u passed, %u failed\n", pass, fail);
    return fail ? 1 : 0;
}
