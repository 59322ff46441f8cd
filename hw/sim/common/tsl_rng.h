// The one random-number generator of the Verilator harnesses: splitmix64, small, fast and
// reproducible from a printed 64-bit seed (SEED= replays a run).
#ifndef TSL_RNG_H
#define TSL_RNG_H

#include <cstdint>

// Advance *s and return the next 64-bit value.
static inline uint64_t tsl_splitmix64(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

struct TslRng {
    uint64_t s;
    uint64_t next() { return tsl_splitmix64(&s); }
    uint32_t u32() { return (uint32_t)next(); }
    uint32_t below(uint32_t n) { return n ? (uint32_t)(next() % n) : 0; }  // 0 when n is 0
    bool chance(double p) { return (next() >> 11) * (1.0 / 9007199254740992.0) < p; }
};

#endif  // TSL_RNG_H
