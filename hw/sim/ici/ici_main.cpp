// Unit test of one ICI link (tsl_ici_tx, tsl_ici_rx: docs/pod.md, The link), the link itself
// modelled here: flits reach the receiver LATENCY cycles after they leave, credits the sender
// LATENCY cycles after they are returned.
//   ici_sim LATENCY PACKETS      env: SEED=s replays
// random: PACKETS packets of 1..ICI_PACKET_FLITS flits with random gaps and a receiver that is not
//   always ready; about one flit in 3 000 has a bit flipped on the link. Every packet whose flits
//   all crossed intact arrives, in order, bit for bit; every other one is dropped, with one
//   crc_err pulse each; every CRC flit the sender puts on the link is zlib's crc32() of its packet.
// rate: packets of ICI_PACKET_FLITS flits back to back into a receiver always ready: the share of
//   cycles the link carries data, against credits / round trip (the credit bound), each packet's
//   CRC flit left out.
// In both the sender's bound on a link without credits is the largest; it never finds the link down.
// dead: a link that returns no credit, the bound 1..100 cycles: the sender spends its credits, then
//   finds the link down once a flit has waited the bound, and from then on takes every flit at once
//   and sends nothing.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <vector>

#include <zlib.h>

#include "Vtsl_ici_pair.h"
#include "verilated.h"

#include "../common/tsl_rng.h"
#include "ici_harness.h"

extern "C" {
#include "tsl_hw.h"
}

static_assert(ICI_BYTES >= 4 && ICI_BYTES <= 8, "the harness drives flits of 4 to 8 bytes");

static const uint64_t MASK = ICI_BYTES == 8 ? ~0ull : (1ull << (8 * ICI_BYTES)) - 1u;
static Tally tally{"ici"};

struct Flit {
    uint32_t kind;
    uint64_t data;
};

struct Link {
    Vtsl_ici_pair &top;
    uint32_t latency;
    std::deque<Flit> wire;          // flits in flight, oldest first
    std::deque<uint32_t> credits;   // credits in flight
    uint64_t cycles = 0;

    Link(Vtsl_ici_pair &t, uint32_t lat) : top(t), latency(lat) {
        wire.assign(lat, Flit{TSL_ICI_FLIT_IDLE, 0});
        credits.assign(lat, 0);
    }
    // One clock: the harness has set the inputs; `flip` is XORed into the flit leaving now. The link's
    // far ends are set first, and the receiver's credits read after them.
    Flit tick(uint64_t flip) {
        Flit arrive = wire.front();
        wire.pop_front();
        top.rx_kind_i = arrive.kind;
        top.rx_data_i = arrive.data;
        top.tx_credit_i = credits.front();
        credits.pop_front();
        top.eval();
        Flit out{top.tx_kind_o, (uint64_t)top.tx_data_o};
        Flit sent = out;
        if (out.kind != TSL_ICI_FLIT_IDLE)
            sent.data ^= flip;
        wire.push_back(sent);
        credits.push_back(top.rx_credit_o);
        clock(top);
        cycles++;
        return out;
    }
};

// The inputs idle, then the reset.
static void start(Vtsl_ici_pair &top) {
    top.in_valid_i = 0;
    top.out_ready_i = 0;
    top.rx_kind_i = 0;
    top.tx_credit_i = 0;
    top.tx_limit_i = ~0u;
    reset(top);
}

using Packet = std::vector<uint64_t>;

static uint32_t crc_of(const Packet &p) {
    std::vector<uint8_t> b;
    for (uint64_t f : p)
        for (int i = 0; i < ICI_BYTES; i++)
            b.push_back((uint8_t)(f >> (8 * i)));
    return (uint32_t)crc32(0, b.data(), (uInt)b.size());
}

static void random_test(uint32_t latency, uint32_t npkts, uint64_t seed) {
    VerilatedContext ctx;
    Vtsl_ici_pair top(&ctx);
    TslRng rng{seed};
    start(top);
    Link link(top, latency);
    std::vector<Packet> pkts(npkts);
    for (Packet &p : pkts) {
        p.resize(1 + rng.below(TSL_PARAM_ICI_PACKET_FLITS));
        for (uint64_t &f : p)
            f = rng.next() & MASK;
    }
    std::vector<bool> corrupt(npkts, false);
    std::vector<Packet> got;
    Packet cur;
    size_t in_pkt = 0, in_flit = 0, link_pkt = 0, link_flit = 0;
    uint32_t crc_errs = 0, crc_bad = 0, downs = 0;
    bool valid = false;
    for (uint64_t guard = 0; guard < 2000000ull + 100ull * npkts * TSL_PARAM_ICI_PACKET_FLITS; guard++) {
        if (!valid && in_pkt < npkts && rng.chance(0.7))
            valid = true;
        top.in_valid_i = valid;
        if (valid) {
            top.in_data_i = pkts[in_pkt][in_flit];
            top.in_last_i = in_flit + 1 == pkts[in_pkt].size();
        }
        top.out_ready_i = rng.chance(0.7);
        top.eval();
        bool took = valid && top.in_ready_o;
        bool popped = top.out_valid_o && top.out_ready_i;
        uint64_t pdata = top.out_data_o;
        bool plast = top.out_last_o;
        uint64_t flip = rng.below(3000) == 0 ? 1ull << rng.below(8 * ICI_BYTES) : 0;
        Flit f = link.tick(flip);
        if (f.kind != TSL_ICI_FLIT_IDLE) {   // the sender's flit as it left, before the flip
            if (flip && link_pkt < npkts)
                corrupt[link_pkt] = true;
            if (f.kind == TSL_ICI_FLIT_CRC) {
                crc_bad += link_pkt < npkts && f.data != crc_of(pkts[link_pkt]);
                link_pkt++;
                link_flit = 0;
            } else {
                link_flit++;
            }
        }
        crc_errs += top.crc_err_o;
        downs += top.tx_down_o;
        if (popped) {
            cur.push_back(pdata);
            if (plast) {
                got.push_back(cur);
                cur.clear();
            }
        }
        if (took) {
            valid = false;
            if (++in_flit == pkts[in_pkt].size()) {
                in_pkt++;
                in_flit = 0;
            }
        }
        if (link_pkt == npkts && got.size() + crc_errs >= npkts)
            break;
    }
    for (uint32_t i = 0; i < 2u * latency + 64u; i++) {   // nothing more arrives
        top.out_ready_i = 1;
        top.in_valid_i = 0;
        top.eval();
        if (top.out_valid_o)
            got.push_back(Packet{top.out_data_o});
        crc_errs += top.crc_err_o;
        link.tick(0);
    }
    std::vector<Packet> want;
    uint32_t nbad = 0;
    for (uint32_t i = 0; i < npkts; i++) {
        if (corrupt[i])
            nbad++;
        else
            want.push_back(pkts[i]);
    }
    char what[200];
    snprintf(what, sizeof what, "random: %zu packets arrived intact and %u CRC errors, want %zu and %u (latency %u)",
             got.size(), crc_errs, want.size(), nbad, latency);
    tally.check(got == want && crc_errs == nbad, what, seed);
    tally.check(!downs, "random: the sender found a working link down", seed);
    snprintf(what, sizeof what, "random: %u CRC flits differ from zlib's crc32 of their packet", crc_bad);
    tally.check(crc_bad == 0 && link_pkt == npkts, what, seed);
    tally.check(nbad > 0, "random: the run flipped no flit (too short to test the CRC)", seed);
    printf("ici random: latency %u, %u packets, %u corrupted and dropped, %" PRIu64 " cycles\n", latency, npkts,
           nbad, link.cycles);
}

static void rate_test(uint32_t latency, uint32_t npkts, uint64_t seed) {
    VerilatedContext ctx;
    Vtsl_ici_pair top(&ctx);
    start(top);
    Link link(top, latency);
    const uint32_t p = TSL_PARAM_ICI_PACKET_FLITS;
    uint64_t flit = 0, data_flits = 0, start = 0, window = 0;
    uint64_t total = (uint64_t)npkts * p, arrived = 0;
    top.out_ready_i = 1;
    while (arrived < total && link.cycles < 100ull * total + 10000) {
        top.in_valid_i = flit < total;
        top.in_data_i = flit & MASK;
        top.in_last_i = flit % p == p - 1;
        top.eval();
        bool took = flit < total && top.in_ready_o;
        arrived += top.out_valid_o;
        Flit f = link.tick(0);
        bool measuring = flit >= total / 4 && flit < 3 * total / 4;
        if (measuring && !window)
            start = link.cycles, window = 1;
        if (measuring)
            data_flits += f.kind == TSL_ICI_FLIT_DATA || f.kind == TSL_ICI_FLIT_LAST;
        else if (window == 1 && flit >= 3 * total / 4)
            window = link.cycles - start;
        flit += took;
    }
    double util = window > 1 ? (double)data_flits / (double)window : 0.0;
    // credits cover DEPTH flits per round trip: out (latency), the packet stored whole before its
    // CRC (p + 1), the credit back (latency), the sender's register (2)
    double round = 2.0 * latency + p + 3.0, bound = (ICI_DEPTH >= round ? 1.0 : ICI_DEPTH / round) * p / (p + 1.0);
    char what[200];
    snprintf(what, sizeof what, "rate: the link carries data %.4f of the cycles, want at least 0.97 x %.4f (latency %u,"
             " %u credits)", util, bound, latency, (unsigned)ICI_DEPTH);
    tally.check(arrived == total && util >= 0.97 * bound, what, seed);
    printf("ici rate: latency %u, %u bytes a flit, %u credits: %.4f of cycles carry data (bound %.4f), %.2f bytes "
           "a cycle\n", latency, (unsigned)ICI_BYTES, (unsigned)ICI_DEPTH, util, bound, util * ICI_BYTES);
}

static void dead_test(uint64_t seed) {
    VerilatedContext ctx;
    Vtsl_ici_pair top(&ctx);
    start(top);
    TslRng rng{seed};
    uint32_t limit = 1 + rng.below(100), sent = 0, waited = 0, down_at = 0, after = 0, bad = 0;
    top.tx_limit_i = limit;
    for (uint32_t c = 0; c < ICI_DEPTH * 3 + limit + 200; c++) {   // no credit ever comes back
        top.in_valid_i = 1;
        top.in_data_i = c & MASK;
        top.in_last_i = c % 8 == 6;   // the last flit the credits pay for is not a packet's last (no CRC after it)
        top.eval();
        bool down = top.tx_down_o;
        if (down && !down_at)
            down_at = c;
        if (down) {
            after++;
            bad += !top.in_ready_o || top.tx_kind_o != TSL_ICI_FLIT_IDLE;
        } else if (top.in_ready_o) {
            sent++;
            waited = 0;
        } else {
            waited++;
        }
        top.clk_i = 1;
        top.eval();
        top.clk_i = 0;
        top.eval();
    }
    char what[200];
    snprintf(what, sizeof what, "dead: %u flits sent (want %u, the credits), down after a flit waited %u cycles (want "
             "the bound %u + 1), %u cycles after that took a flit late or sent one", sent, (unsigned)ICI_DEPTH,
             waited, limit, bad);
    tally.check(sent == ICI_DEPTH && waited == limit + 1u && down_at && after > 100 && !bad, what, seed);
}

int main(int argc, char **argv) {
    uint32_t latency = argc > 1 ? (uint32_t)strtoul(argv[1], nullptr, 0) : TSL_PARAM_ICI_LINK_LATENCY;
    uint32_t npkts = argc > 2 ? (uint32_t)strtoul(argv[2], nullptr, 0) : 4000;
    const char *se = getenv("SEED");
    uint64_t seed = se ? strtoull(se, nullptr, 0) : (uint64_t)time(nullptr) * 2654435761u;
    printf("ici: seed=0x%016" PRIx64 " (SEED= replays), %u bytes a flit, %u credits, latency %u\n", seed,
           (unsigned)ICI_BYTES, (unsigned)ICI_DEPTH, latency);
    random_test(latency, npkts, seed);
    rate_test(latency, npkts / 4 + 64, seed);
    dead_test(seed);
    return tally.done();
}
