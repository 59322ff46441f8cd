// Unit test of tsl_vpu_eup against tslm_f32_exp/recip/rsqrt: one input a cycle, the function
// chosen at random each cycle (so every stage holds a different function), each result compared
// LAT cycles later. Inputs: the edges (zeros, subnormals, the normal range's ends, the
// infinities, NaN, EXP's overflow and flush thresholds and |x| = 128, the table intervals' ends)
// and every STEP-th bit pattern, each through every function, then random ones biased towards the
// table intervals' ends (make soak: STEP = 1, every FP32 value), among them cycles with en_i low,
// whose random input must not enter and across which the output must hold.
//   eup_sim [count] [step]   env: SEED=s (replays the random part)
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <deque>

#include "Vtsl_vpu_eup.h"
#include "verilated.h"

#include "../common/tsl_rng.h"

extern "C" {
#include "tsl_hw.h"
#include "tslm_arith.h"
}

static uint64_t rng_s;
static uint64_t rnd() { return tsl_splitmix64(&rng_s); }

static const uint32_t FNS[3] = {TSL_VPU_OP_EXP, TSL_VPU_OP_RECIP, TSL_VPU_OP_RSQRT};
static const char *const NAMES[3] = {"EXP", "RECIP", "RSQRT"};

int main(int argc, char **argv) {
    uint64_t count = argc > 1 ? strtoull(argv[1], nullptr, 0) : 2000000;
    uint64_t step = argc > 2 ? strtoull(argv[2], nullptr, 0) : 65537;
    const char *se = getenv("SEED");
    uint64_t seed = se ? strtoull(se, nullptr, 0) : (uint64_t)time(nullptr) * 2654435761u;
    rng_s = seed;
    const unsigned lat = 5;   // tsl_vpu_fn_pkg::LAT, the contract under test
    printf("vpu_eup: seed=0x%016" PRIx64 " (SEED= replays), every %" PRIu64 "-th input and %" PRIu64
           " random ones, latency %u\n", seed, step, count, lat);
    VerilatedContext ctx;
    Vtsl_vpu_eup top(&ctx);
    struct pend { unsigned f; uint32_t x; };
    std::deque<pend> pipe;
    uint64_t tested[3] = {0, 0, 0}, bad = 0;
    auto edge = [&](bool en, unsigned f, uint32_t x) {   // one clock edge with these inputs
        top.en_i = en;
        top.fn_i = FNS[f];
        top.x_i = tslm_f32_canon(x);
        top.clk_i = 0;
        top.eval();
        top.clk_i = 1;
        top.eval();
    };
    auto hold = [&](unsigned f, uint32_t x) {   // en_i low: nothing moves
        uint32_t before = top.y_o;
        edge(false, f, x);
        if (top.y_o != before && bad++ < 5)
            printf("FAIL seed=0x%016" PRIx64 ": the output moved with en_i low\n", seed);
    };
    auto cycle = [&](unsigned f, uint32_t x) {
        edge(true, f, x);
        pipe.push_back({f, tslm_f32_canon(x)});
        if (pipe.size() == lat) {   // the input of lat - 1 calls ago is out: lat clock edges
            pend p = pipe.front();
            pipe.pop_front();
            uint32_t exp = tslm_f32_fn(FNS[p.f], 0, p.x), got = top.y_o;
            tested[p.f]++;
            if (exp != got && bad++ < 5)
                printf("FAIL seed=0x%016" PRIx64 ": %s(0x%08x) expected 0x%08x got 0x%08x\n", seed, NAMES[p.f],
                       p.x, exp, got);
        }
    };
    // The edges, each through every function, and a window of 64 patterns around each.
    const uint32_t edges[] = {0x00000000, 0x00800000, 0x7F7FFFFF, 0x7F800000, 0x7FC00000, 0x3F800000,
                              0x42B17218, 0xC2AEAC50, 0x43000000, 0x42FFFFFF, 0x3F000000, 0x40000000,
                              0x7F000000, 0x00FFFFFF, 0x33800000, 0x2F800000};
    for (uint32_t e : edges)
        for (uint32_t s = 0; s < 2; s++)
            for (int d = -32; d < 32; d++)
                for (unsigned f = 0; f < 3; f++)
                    cycle(f, (e ^ s << 31) + (uint32_t)d);
    for (uint64_t x = 0; x <= 0xFFFFFFFFull; x += step)
        for (unsigned f = 0; f < 3; f++)
            cycle(f, (uint32_t)x);
    const unsigned db = 23 - TSL_VPU_FN_TABLE_BITS;
    for (uint64_t i = 0; i < count; i++) {
        uint32_t x = (uint32_t)rnd();
        switch (rnd() % 4) {
        case 0: x ^= (uint32_t)(rnd() % 8) - 4u; x &= ~((1u << db) - 1u); x += (uint32_t)(rnd() % 8) - 4u; break;
        case 1: x = (x & 0x807FFFFF) | (uint32_t)(100 + rnd() % 40) << 23; break;   // near 1 and EXP's range
        default: break;
        }
        if (rnd() % 8 == 0)
            hold(rnd() % 3, (uint32_t)rnd());
        cycle(rnd() % 3, x);
    }
    for (unsigned i = 0; i < lat; i++)
        cycle(0, 0);
    top.final();
    for (unsigned f = 0; f < 3; f++)
        printf("vpu_eup: %s: %" PRIu64 " inputs\n", NAMES[f], tested[f]);
    printf("vpu_eup: %s (%" PRIu64 " mismatches)\n", bad ? "FAIL" : "ok", bad);
    printf("vpu_eup: %d passed, %d failed\n", bad ? 0 : 1, bad ? 1 : 0);
    return bad ? 1 : 0;
}
