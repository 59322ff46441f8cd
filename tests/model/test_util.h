/* Small shared test helpers: a seeded xorshift generator and pass/fail counting.
 * tu_init reads the seed from argv[1] or $SEED (else derives one from the time) and prints it;
 * tu_done prints "N passed, M failed" and returns the process exit code. */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct {
    uint64_t s;
} tu_rng_t;

typedef struct {
    const char *name;
    uint64_t seed;
    tu_rng_t rng;
    int passed, failed;
} tu_t;

static inline uint64_t tu_next(tu_rng_t *r)
{
    uint64_t x = r->s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return r->s = x;
}

/* Uniform in [0, n). */
static inline uint64_t tu_below(tu_rng_t *r, uint64_t n)
{
    return n ? tu_next(r) % n : 0;
}

static inline void tu_seed(tu_rng_t *r, uint64_t seed)
{
    r->s = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    if (!r->s)
        r->s = 1;
}

static inline void tu_init(tu_t *t, const char *name, int argc, char **argv)
{
    const char *env = getenv("SEED");
    t->name = name;
    t->passed = t->failed = 0;
    if (argc > 1)
        t->seed = strtoull(argv[1], NULL, 0);
    else if (env && *env)
        t->seed = strtoull(env, NULL, 0);
    else
        t->seed = (uint64_t)time(NULL);
    tu_seed(&t->rng, t->seed);
    printf("%s: SEED=%llu\n", name, (unsigned long long)t->seed);
}

__attribute__((format(printf, 3, 4)))
static inline int tu_check(tu_t *t, int ok, const char *fmt, ...)
{
    va_list ap;
    if (ok) {
        t->passed++;
        return 1;
    }
    t->failed++;
    printf("FAIL %s (SEED=%llu): ", t->name, (unsigned long long)t->seed);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    return 0;
}

static inline int tu_done(tu_t *t)
{
    printf("%s: %d passed, %d failed\n", t->name, t->passed, t->failed);
    return t->failed ? 1 : 0;
}

#endif /* TEST_UTIL_H */
