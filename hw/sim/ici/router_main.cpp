// Unit test of tsl_ici_router (docs/pod.md, Routing) with PORTS link ports and the chip's own.
//   router_sim [RUNS]      env: SEED=s replays
// random: each run a pod of random extents (a ring: X only) and a random place for this chip;
//   every input sends random packets (a header to a random chip, 0..31 payload flits) with random
//   gaps into outputs that are not always ready. Every packet leaves whole at the port that
//   docs/pod.md's dimension order gives (computed here on its own), in order per input and output.
// rate: one input streams packets of 32 flits to one output that is always ready: a flit a cycle,
//   packets back to back.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <vector>

#include "Vtsl_ici_router.h"
#include "verilated.h"

#include "../common/tsl_rng.h"
#include "ici_harness.h"

extern "C" {
#include "tsl_hw.h"
}

static const int IO = PORTS + 1;
static Tally tally{"router"};

struct Packet {
    uint32_t src, seq, dest_x, dest_y;
    std::vector<uint64_t> flits;   // the header first
};

// docs/pod.md: X first, the shorter way (+X on a tie), then Y, then the chip (port PORTS).
static int route(uint32_t x, uint32_t y, uint32_t mx, uint32_t my, uint32_t dx, uint32_t dy) {
    uint32_t hx = (x + dx - mx) % dx, hy = (y + dy - my) % dy;
    if (hx)
        return 2 * hx <= dx ? 0 : 1;
    if (hy)
        return 2 * hy <= dy ? 2 : 3;
    return PORTS;
}

static uint64_t header(uint32_t x, uint32_t y, uint32_t id) {
    uint64_t h = 0;
    h |= (uint64_t)x << TSL_ICI_HDR_DEST_X_SHIFT;
    h |= (uint64_t)y << TSL_ICI_HDR_DEST_Y_SHIFT;
    h |= (uint64_t)id << 32;   // HBM_ADDR, word 1: the packet's name here
    return h;
}

static void set_in(Vtsl_ici_router &t, int i, bool valid, uint64_t data, bool last) {
    t.in_valid_i = (t.in_valid_i & ~(1u << i)) | ((uint32_t)valid << i);
    t.in_last_i = (t.in_last_i & ~(1u << i)) | ((uint32_t)last << i);
    t.in_data_i[2 * i] = (uint32_t)data;
    t.in_data_i[2 * i + 1] = (uint32_t)(data >> 32);
}

static uint64_t out_data(const Vtsl_ici_router &t, int o) {
    return (uint64_t)t.out_data_o[2 * o] | (uint64_t)t.out_data_o[2 * o + 1] << 32;
}

// This chip's place and the pod's extents, the inputs idle, then the reset.
static void start(Vtsl_ici_router &t, uint32_t mx, uint32_t my, uint32_t dx, uint32_t dy) {
    t.in_valid_i = 0;
    t.out_ready_i = 0;
    t.my_x_i = mx;
    t.my_y_i = my;
    t.dim_x_i = dx;
    t.dim_y_i = dy;
    reset(t);
}

static void random_run(TslRng &rng, uint64_t seed) {
    VerilatedContext ctx;
    Vtsl_ici_router t(&ctx);
    uint32_t dx = 2 + rng.below(15), dy = PORTS == 4 ? 1 + rng.below(8) : 1;
    if (PORTS == 4)
        dx = 1 + rng.below(8);
    if (dx * dy < 2)
        dx = 2;
    uint32_t mx = rng.below(dx), my = rng.below(dy);
    start(t, mx, my, dx, dy);
    std::vector<std::deque<Packet>> in(IO);
    std::vector<Packet> all;
    uint32_t total = 0;
    for (int i = 0; i < IO; i++)
        for (uint32_t s = 0, n = 20 + rng.below(60); s < n; s++) {
            Packet p{(uint32_t)i, s, rng.below(dx), rng.below(dy), {}};
            p.flits.push_back(header(p.dest_x, p.dest_y, (uint32_t)i << 16 | s));
            for (uint32_t k = 0, m = rng.below(TSL_PARAM_ICI_PACKET_FLITS); k < m; k++)
                p.flits.push_back(rng.next());
            in[i].push_back(p);
            all.push_back(p);
            total++;
        }
    std::vector<size_t> at(IO, 0);          // the next flit of each input's front packet
    std::vector<bool> valid(IO, false);
    std::vector<std::vector<uint64_t>> cur(IO);
    std::vector<std::vector<uint32_t>> last_seq(IO, std::vector<uint32_t>(IO, 0));
    uint32_t got = 0, wrong = 0, order = 0;
    for (uint64_t cyc = 0; cyc < 200000 && got < total; cyc++) {
        for (int i = 0; i < IO; i++) {
            if (!valid[i] && !in[i].empty() && rng.chance(0.8))
                valid[i] = true;
            if (valid[i]) {
                const Packet &p = in[i].front();
                set_in(t, i, true, p.flits[at[i]], at[i] + 1 == p.flits.size());
            } else {
                set_in(t, i, false, 0, false);
            }
        }
        uint32_t ready = 0;
        for (int o = 0; o < IO; o++)
            ready |= (uint32_t)rng.chance(0.7) << o;
        t.out_ready_i = ready;
        t.eval();
        for (int o = 0; o < IO; o++) {
            if (!((t.out_valid_o >> o) & 1) || !((ready >> o) & 1))
                continue;
            cur[o].push_back(out_data(t, o));
            if (!((t.out_last_o >> o) & 1))
                continue;
            uint32_t id = (uint32_t)(cur[o][0] >> 32), src = id >> 16, seq = id & 0xFFFF;
            const Packet *p = nullptr;
            for (const Packet &q : all)
                if (q.src == src && q.seq == seq)
                    p = &q;
            got++;
            if (!p || p->flits != cur[o] || route(p->dest_x, p->dest_y, mx, my, dx, dy) != o)
                wrong++;
            if (seq < last_seq[src][o])   // one past the last seq this output gave of that input
                order++;
            last_seq[src][o] = seq + 1;
            cur[o].clear();
        }
        uint32_t took = t.in_ready_o;
        clock(t);
        for (int i = 0; i < IO; i++) {
            if (!valid[i] || !((took >> i) & 1))
                continue;
            valid[i] = false;
            if (++at[i] == in[i].front().flits.size()) {
                in[i].pop_front();
                at[i] = 0;
            }
        }
    }
    char what[200];
    snprintf(what, sizeof what, "random: pod %ux%u, chip (%u, %u): %u of %u packets out, %u at the wrong port or "
             "changed, %u out of order", dx, dy, mx, my, got, total, wrong, order);
    tally.check(got == total && !wrong && !order, what, seed);
}

static void rate_run(uint64_t seed) {
    VerilatedContext ctx;
    Vtsl_ici_router t(&ctx);
    start(t, 0, 0, 4, PORTS == 4 ? 4 : 1);
    const uint32_t packets = 64, p = TSL_PARAM_ICI_PACKET_FLITS;
    uint32_t sent = 0, out = 0, cycles = 0;
    t.out_ready_i = (1u << IO) - 1u;
    while (out < packets * p && cycles < 10 * packets * p) {
        set_in(t, PORTS, sent < packets * p, sent % p ? sent : header(1, 0, sent / p), sent % p == p - 1);
        t.eval();
        out += t.out_valid_o & 1u;
        bool took = t.in_ready_o >> PORTS & 1u;
        clock(t);
        sent += took && sent < packets * p;
        cycles++;
    }
    char what[160];
    snprintf(what, sizeof what, "rate: %u flits of %u packets in %u cycles, want one a cycle", out, packets, cycles);
    tally.check(out == packets * p && cycles == packets * p, what, seed);
}

int main(int argc, char **argv) {
    uint32_t runs = argc > 1 ? (uint32_t)strtoul(argv[1], nullptr, 0) : 40;
    const char *se = getenv("SEED");
    uint64_t seed = se ? strtoull(se, nullptr, 0) : (uint64_t)time(nullptr) * 2654435761u;
    printf("router: seed=0x%016" PRIx64 " (SEED= replays), %d link ports, %u runs\n", seed, PORTS, runs);
    TslRng rng{seed};
    for (uint32_t r = 0; r < runs; r++)
        random_run(rng, seed);
    rate_run(seed);
    return tally.done();
}
