/* Shared by the libFuzzer targets of tests/fuzz: CHECK, a property that aborts (a libFuzzer
 * crash) naming the file, line and condition; and the fuzz-input reader, which takes
 * little-endian integers off the front of the input; once the input is used up every read
 * returns 0, so any input, however short, decodes to a complete (mostly zero) test case. */
#ifndef FUZZ_IN_H
#define FUZZ_IN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(c)                                                                 \
    do {                                                                         \
        if (!(c)) {                                                              \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
            abort();                                                             \
        }                                                                        \
    } while (0)

typedef struct {
    const uint8_t *p;
    size_t left;
} fuzz_in_t;

static inline uint64_t fuzz_bytes(fuzz_in_t *in, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n && in->left; i++, in->p++, in->left--)
        v |= (uint64_t)*in->p << (8 * i);
    return v;
}

static inline uint8_t fuzz_u8(fuzz_in_t *in) { return (uint8_t)fuzz_bytes(in, 1); }
static inline uint16_t fuzz_u16(fuzz_in_t *in) { return (uint16_t)fuzz_bytes(in, 2); }
static inline uint32_t fuzz_u32(fuzz_in_t *in) { return (uint32_t)fuzz_bytes(in, 4); }

/* A size: mostly small (0..mask), sometimes a raw 32-bit value (the edges of the checks). */
static inline uint32_t fuzz_size(fuzz_in_t *in, uint32_t mask)
{
    uint8_t sel = fuzz_u8(in);
    return (sel & 0xE0u) == 0xE0u ? fuzz_u32(in) : (uint32_t)fuzz_u16(in) & mask;
}

/* Fill `bytes` (a multiple of 8) at p with a splitmix64 pattern from seed s. */
static inline void fuzz_fill(uint8_t *p, size_t bytes, uint64_t s)
{
    for (size_t a = 0; a < bytes; a += 8) {
        uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        for (unsigned i = 0; i < 8; i++)
            p[a + i] = (uint8_t)(z >> (8 * i));
    }
}

#endif /* FUZZ_IN_H */
