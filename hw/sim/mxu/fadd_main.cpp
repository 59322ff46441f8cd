// Unit test of tsl_mxu_fadd against tslm_f32_add: random operand pairs biased towards the hard
// cases (equal and adjacent exponents, cancellation, rounding ties, overflow, results near the
// FTZ threshold, zeros, subnormals, infinities, NaNs).   fadd_sim [count]   env: SEED=s
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "Vtsl_mxu_fadd.h"
#include "verilated.h"

#include "../common/tsl_rng.h"

extern "C" {
#include "tslm_arith.h"
}

static uint64_t rng_s;
static uint64_t rnd() { return tsl_splitmix64(&rng_s); }

static uint32_t pick_exp(uint32_t near) {
    switch (rnd() % 8) {
    case 0: return rnd() % 256;                          // anything, incl. 0 and 255
    case 1: return 1 + rnd() % 3;                        // FTZ threshold
    case 2: return 252 + rnd() % 3;                      // overflow
    default: {                                           // close to the other operand
        int e = (int)near + (int)(rnd() % 7) - 3;
        if (rnd() % 4 == 0) e = (int)near + (int)(rnd() % 61) - 30;
        return (uint32_t)(e < 0 ? 0 : e > 255 ? 255 : e);
    }
    }
}

static uint32_t pick_frac() {
    switch (rnd() % 6) {
    case 0: return 0;
    case 1: return 0x7FFFFF;
    case 2: return (uint32_t)(rnd() & 0x7FFFFF) & ~0xFFu;  // bf16-like (low bits zero)
    case 3: return 1u << (rnd() % 23);
    default: return (uint32_t)(rnd() & 0x7FFFFF);
    }
}

int main(int argc, char **argv) {
    uint64_t count = argc > 1 ? strtoull(argv[1], nullptr, 0) : 2000000;
    const char *se = getenv("SEED");
    uint64_t seed = se ? strtoull(se, nullptr, 0) : (uint64_t)time(nullptr) * 2654435761u;
    rng_s = seed;
    printf("mxu_fadd: seed=0x%016" PRIx64 " (SEED= replays), %" PRIu64 " pairs\n", seed, count);
    VerilatedContext ctx;
    Vtsl_mxu_fadd top(&ctx);
    uint64_t bad = 0;
    for (uint64_t i = 0; i < count; i++) {
        uint32_t ea = rnd() % 256, a = ((uint32_t)(rnd() & 1) << 31) | (ea << 23) | pick_frac();
        uint32_t b = ((uint32_t)(rnd() & 1) << 31) | (pick_exp(ea) << 23) | pick_frac();
        if (rnd() % 8 == 0) b = (a ^ 0x80000000u) + (uint32_t)(rnd() % 5) - 2;  // near cancellation
        if (rnd() % 2) { uint32_t t = a; a = b; b = t; }
        top.a_i = a;
        top.b_i = b;
        top.eval();
        uint32_t exp = tslm_f32_add(a, b), got = top.y_o;
        if (exp != got) {
            if (!bad)
                printf("FAIL seed=0x%016" PRIx64 ": first mismatch a=0x%08x b=0x%08x expected 0x%08x got 0x%08x\n",
                       seed, a, b, exp, got);
            bad++;
        }
    }
    top.final();
    printf("mxu_fadd: %s (%" PRIu64 " mismatches)\n", bad ? "FAIL" : "ok", bad);
    printf("mxu_fadd: %d passed, %d failed\n", bad ? 0 : 1, bad ? 1 : 0);
    return bad ? 1 : 0;
}
