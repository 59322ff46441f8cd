// Unit test of tsl_vpu_fmul against tslm_f32_mul: a table of edge operands crossed with itself,
// then random pairs biased towards the hard cases (exponent sums near overflow and the FTZ
// threshold, products that round to a tie or carry into the next binade, zeros, subnormals,
// infinities, NaNs).   fmul_sim [count]   env: SEED=s
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "Vtsl_vpu_fmul.h"
#include "verilated.h"

#include "../common/tsl_rng.h"

extern "C" {
#include "tslm_arith.h"
}

static uint64_t rng_s;
static uint64_t rnd() { return tsl_splitmix64(&rng_s); }

// Exponent of b given a's: sums around 127 + 1 (FTZ) and 127 + 254 (overflow) are the edges.
static uint32_t pick_exp_b(uint32_t ea) {
    int e;
    switch (rnd() % 8) {
    case 0: return rnd() % 256;
    case 1: e = 128 - (int)ea + (int)(rnd() % 5) - 2; break;       // product near 2^-126
    case 2: e = 381 - (int)ea + (int)(rnd() % 5) - 2; break;       // product near 2^128
    default: e = 127 + (int)(rnd() % 41) - 20; break;              // moderate
    }
    return (uint32_t)(e < 0 ? 0 : e > 255 ? 255 : e);
}

static uint32_t pick_frac() {
    switch (rnd() % 7) {
    case 0: return 0;
    case 1: return 0x7FFFFF;
    case 2: return (uint32_t)(rnd() & 0x7F) << 16;                  // bf16-like
    case 3: return 1u << (rnd() % 23);
    case 4: return 0x7FFFFF ^ (1u << (rnd() % 23));
    default: return (uint32_t)(rnd() & 0x7FFFFF);
    }
}

static const uint32_t EDGES[] = {
    0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x00800000, 0x80800000, 0x00800001,
    0x3F800000, 0xBF800000, 0x3F800001, 0x3FFFFFFF, 0x3FB504F3, 0x3FB504F4, 0x40000000,
    0x7F7FFFFF, 0xFF7FFFFF, 0x7F000000, 0x1F800000, 0x20000000, 0x1F000000, 0x00FFFFFF,
    0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFFFFFFF, 0x7FBFFFFF,
    0x3F000000, 0x3F7FFFFF, 0x5F800000, 0x5F7FFFFF, 0x3F400000, 0x3FC00000, 0x3FFFFFFE,
};

int main(int argc, char **argv) {
    uint64_t count = argc > 1 ? strtoull(argv[1], nullptr, 0) : 2000000;
    const char *se = getenv("SEED");
    uint64_t seed = se ? strtoull(se, nullptr, 0) : (uint64_t)time(nullptr) * 2654435761u;
    rng_s = seed;
    printf("vpu_fmul: seed=0x%016" PRIx64 " (SEED= replays), %" PRIu64 " random pairs\n", seed, count);
    VerilatedContext ctx;
    Vtsl_vpu_fmul top(&ctx);
    uint64_t bad = 0, tested = 0;
    auto check = [&](uint32_t a, uint32_t b) {
        top.a_i = a;
        top.b_i = b;
        top.eval();
        uint32_t exp = tslm_f32_mul(a, b), got = top.y_o;
        tested++;
        if (exp != got) {
            if (!bad)
                printf("FAIL seed=0x%016" PRIx64 ": first mismatch a=0x%08x b=0x%08x expected 0x%08x got 0x%08x\n",
                       seed, a, b, exp, got);
            bad++;
        }
    };
    const unsigned ne = sizeof EDGES / sizeof EDGES[0];
    for (unsigned i = 0; i < ne; i++)
        for (unsigned j = 0; j < ne; j++)
            check(EDGES[i], EDGES[j]);
    for (uint64_t i = 0; i < count; i++) {
        uint32_t ea = rnd() % 256;
        if (rnd() % 4) ea = 64 + rnd() % 128;
        uint32_t a = ((uint32_t)(rnd() & 1) << 31) | (ea << 23) | pick_frac();
        uint32_t b = ((uint32_t)(rnd() & 1) << 31) | (pick_exp_b(ea) << 23) | pick_frac();
        if (rnd() % 16 == 0) b = EDGES[rnd() % ne];
        if (rnd() % 2) { uint32_t t = a; a = b; b = t; }
        check(a, b);
    }
    top.final();
    printf("vpu_fmul: %s (%" PRIu64 " pairs, %" PRIu64 " mismatches)\n", bad ? "FAIL" : "ok", tested, bad);
    printf("vpu_fmul: %d passed, %d failed\n", bad ? 0 : 1, bad ? 1 : 0);
    return bad ? 1 : 0;
}
