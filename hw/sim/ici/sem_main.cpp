// Unit test of tsl_ici_sem (docs/pod.md, The instructions) with SEMS semaphores, its 5 increment
// inputs (the ejector's and 4 send engines') and bounds (ICI_WAIT) of 0 to WAIT cycles, changed every
// 5000 cycles, cycle by cycle against docs/pod.md's rules written here:
//   a SEMWAIT of COUNT on semaphore s ends (done) in a cycle where s holds at least COUNT, taking
//   COUNT at that edge together with the cycle's increments (several may hit one semaphore); it gives up (timeout) once the bound's
//   cycles (1 for 0) have passed with neither an increment of any semaphore nor its end; CTRL.RESET
//   zeroes them all.
//   sem_sim [CYCLES]      env: SEED=s replays
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "Vtsl_ici_sem.h"
#include "verilated.h"

#include "../common/tsl_rng.h"
#include "ici_harness.h"

int main(int argc, char **argv) {
    uint64_t cycles = argc > 1 ? strtoull(argv[1], nullptr, 0) : 200000;
    const char *se = getenv("SEED");
    uint64_t seed = se ? strtoull(se, nullptr, 0) : (uint64_t)time(nullptr) * 2654435761u;
    printf("sem: seed=0x%016" PRIx64 " (SEED= replays), %d semaphores, wait bounds 0..%d, %" PRIu64 " cycles\n", seed,
           SEMS, WAIT, cycles);
    TslRng rng{seed};
    VerilatedContext ctx;
    Vtsl_ici_sem t(&ctx);
    reset(t);
    uint32_t sem[SEMS] = {0}, idle = 0, ws = 0, wc = 0, limit = WAIT;
    bool waiting = false;
    uint64_t dones = 0, timeouts = 0, bad = 0, first_bad = 0;
    double p_inc = 0.3;
    for (uint64_t c = 0; c < cycles; c++) {
        if (c % 5000 == 0) {  // phases: busy senders, rare ones (the bound shows), none; a new bound
            p_inc = (double[]){0.3, 0.02, 0.0, 0.6}[rng.below(4)];
            limit = rng.chance(0.5) ? WAIT : rng.below(WAIT + 1);
        }
        uint32_t bound = limit ? limit : 1;
        if (!waiting && rng.chance(0.5)) {
            waiting = true;
            ws = rng.below(SEMS);
            wc = 1 + rng.below(rng.chance(0.1) ? 65535 : 4);
        }
        const int incs = 5;
        bool clear = rng.below(20000) == 0, inc = false;
        uint32_t is[incs], on = 0, packed = 0, bits = 0;
        while ((1u << bits) < SEMS)
            bits++;
        for (int i = 0; i < incs; i++) {
            is[i] = rng.below(rng.chance(0.3) ? 2 : SEMS);   // often the same few: increments add up
            if (rng.chance(p_inc / 2))
                on |= 1u << i;
            packed |= is[i] << (bits * i);
        }
        inc = on != 0;
        t.inc_i = on;
        t.inc_sem_i = packed;
        t.clear_i = clear;
        t.limit_i = limit;
        t.wait_valid_i = waiting;
        t.wait_sem_i = ws;
        t.wait_count_i = wc;
        t.eval();
        bool done = waiting && sem[ws] >= wc, timeout = waiting && !done && idle >= bound;
        bool same = t.done_o == done && t.timeout_o == timeout;
        for (int s = 0; s < SEMS; s++)
            same &= (uint32_t)(t.sem_o[s] ) == sem[s];
        if (!same && !bad++)
            first_bad = c;
        dones += done;
        timeouts += timeout;
        clock(t);
        idle = !waiting || done || inc || clear ? 0 : idle + (idle < bound);
        for (int s = 0; s < SEMS; s++) {
            uint32_t add = 0;
            for (int i = 0; i < incs; i++)
                add += (on >> i & 1) && is[i] == (uint32_t)s;
            sem[s] = clear ? 0 : sem[s] + add - (done && ws == (uint32_t)s ? wc : 0);
        }
        if (done || timeout)
            waiting = false;
    }
    Tally tally{"sem"};
    char what[160];
    snprintf(what, sizeof what, "%" PRIu64 " cycles differ from the rules, the first %" PRIu64, bad, first_bad);
    tally.check(!bad, what, seed);
    snprintf(what, sizeof what, "the run must meet waits and time some out: %" PRIu64 " met, %" PRIu64 " timed out",
             dones, timeouts);
    tally.check(dones && timeouts, what, seed);
    printf("sem: %" PRIu64 " waits met, %" PRIu64 " timed out\n", dones, timeouts);
    return tally.done();
}
