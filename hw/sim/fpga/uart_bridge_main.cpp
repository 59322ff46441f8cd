// Unit test of tsl_uart_bridge (hw/rtl/fpga): frames in through the UART rx pin, responses decoded
// from the tx pin, host-port accesses answered by a memory model with random latency. Every
// response, every host-port access (in order) and the final memory are compared with a reference
// that applies the protocol of docs/fpga.md to a copy of the memory. Cases: random good READ/WRITE
// (some words past the end of the memory answer h_err -> BUS), bad CRC, BADREQ, garbage before
// SYNC, truncated frames (timeout, no response). SEED=0x... replays; TRACE=1 is not built here.
#include "Vtsl_uart_bridge.h"
#include "verilated.h"
#include "tsl_rng.h"
#include "tsl_uart_sim.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

static const int CPB = UART_CPB;         // clocks per bit, as Verilated
static const int TMO_BITS = 2048;        // bridge inter-byte timeout
static const uint32_t MEM_WORDS = 1024;  // per BAR; word addresses beyond answer h_err

struct Access { int bar; uint32_t addr, wdata; bool write; };

struct Bench {
    Vtsl_uart_bridge top;
    TslRng rng;
    uint64_t cycle = 0;
    std::vector<uint32_t> mem[2];
    std::vector<Access> log;       // host-port accesses performed
    int lat = -1;                  // cycles left before answering the current access; -1 idle
    TslUartLine line{CPB};
    TslUartRx rx{CPB};

    explicit Bench(uint64_t seed) {
        rng.s = seed;
        for (auto &m : mem) { m.resize(MEM_WORDS); for (auto &w : m) w = rng.u32(); }
        top.uart_rx_i = 1; top.h_ready_i = 0; top.rst_ni = 0; top.clk_i = 0;
        top.eval(); top.clk_i = 1; top.eval(); top.clk_i = 0; top.rst_ni = 1; top.eval();
    }
    void send(const std::vector<uint8_t> &bytes) {
        for (uint8_t b : bytes) line.send(b, rng.chance(0.2) ? (int)rng.below(3) : 0);  // random gaps
    }
    void step() {
        top.uart_rx_i = line.pin();
        // host-port slave: answer after a random latency, for one cycle
        top.h_ready_i = 0;
        top.eval();
        if (top.h_valid_o) {
            if (lat < 0) lat = (int)rng.below(4);
            if (lat-- == 0) {
                uint32_t w = top.h_addr_o / 4;
                bool err = top.h_addr_o % 4 != 0 || w >= MEM_WORDS;
                bool wr = top.h_wstrb_o != 0;
                log.push_back({top.h_bar_o, top.h_addr_o, top.h_wdata_o, wr});
                top.h_ready_i = 1; top.h_err_i = err;
                top.h_rdata_i = err ? rng.u32() : mem[top.h_bar_o][w];
                if (wr && !err) mem[top.h_bar_o][w] = top.h_wdata_o;
                lat = -1;
            }
        }
        top.clk_i = 1; top.eval(); top.clk_i = 0; top.eval(); cycle++;
        rx.sample(top.uart_tx_o);
    }
    // Run until n response bytes arrived, then for `quiet` more bit times; false on a timeout.
    bool run_until(size_t n, uint64_t max_cycles) {
        uint64_t end = cycle + max_cycles;
        while (rx.got.size() < n || line.busy()) { if (cycle >= end) return false; step(); }
        for (int i = 0; i < 30 * CPB; i++) step();
        return true;
    }
};

// Reference: what the bridge must answer and which accesses it must perform.
static std::vector<uint8_t> reference(const std::vector<uint8_t> &f, std::vector<uint32_t> *mem,
                                      std::vector<Access> *acc) {
    uint8_t op = f[1];
    uint32_t addr = f[2] | f[3] << 8 | f[4] << 16 | (uint32_t)f[5] << 24;
    uint32_t count = f[6] + 1u;
    bool write = (op & 3) == 2;
    std::vector<uint8_t> r = {0xA5, 0};
    if (tsl_uart_crc8(f, 1, f.size()) != 0) r[1] = 2;
    else if ((op & 0x7C) || ((op & 3) != 1 && (op & 3) != 2) || count > 64 || addr % 4) r[1] = 3;
    else {
        int bar = op >> 7;
        std::vector<uint32_t> rd;
        for (uint32_t i = 0; i < count; i++) {
            uint32_t a = addr + 4 * i, w = a / 4;
            bool err = w >= MEM_WORDS;
            uint32_t wd = write ? (f[7 + 4 * i] | f[8 + 4 * i] << 8 | f[9 + 4 * i] << 16 |
                                   (uint32_t)f[10 + 4 * i] << 24) : 0;
            acc->push_back({bar, a, wd, write});
            if (err) r[1] = 1;
            if (write && !err) mem[bar][w] = wd;
            rd.push_back(err ? 0 : mem[bar][w]);
        }
        if (!write) for (uint32_t v : rd) for (int k = 0; k < 4; k++) r.push_back((uint8_t)(v >> (8 * k)));
    }
    r.push_back(tsl_uart_crc8(r, 1, r.size()));
    return r;
}

static std::vector<uint8_t> frame(uint8_t op, uint32_t addr, uint32_t count_m1, TslRng &rng, bool data) {
    std::vector<uint8_t> d;
    if (data) for (uint32_t i = 0; i < 4 * (count_m1 + 1); i++) d.push_back((uint8_t)rng.u32());
    return tsl_uart_frame(op, addr, count_m1, d);
}

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    uint64_t seed = getenv("SEED") ? strtoull(getenv("SEED"), nullptr, 0) : 0x7E55E1ull ^ (uint64_t)time(nullptr);
    printf("uart_bridge: SEED=0x%" PRIx64 "\n", seed);
    Bench b(seed);
    TslRng &rng = b.rng;
    std::vector<uint32_t> ref[2] = {b.mem[0], b.mem[1]};
    int pass = 0, fail = 0;
    const uint64_t byte_cycles = 13 * CPB;

    auto check = [&](const char *what, const std::vector<uint8_t> &f, bool expect_resp) {
        std::vector<Access> acc;
        std::vector<uint8_t> exp = expect_resp ? reference(f, ref, &acc) : std::vector<uint8_t>();
        b.rx.got.clear(); b.log.clear();
        b.send(f);
        bool ok = b.run_until(exp.size(), (f.size() + exp.size() + 8) * byte_cycles + 2400);
        if (!expect_resp) for (int k = 0; k < (TMO_BITS + 16) * CPB; k++) b.step();  // must stay silent
        const char *why = nullptr;
        if (!ok) why = "timeout waiting for the response";
        else if (b.rx.got != exp) why = "response differs";
        else if (b.log.size() != acc.size()) why = "number of host-port accesses differs";
        else for (size_t i = 0; i < acc.size() && !why; i++)
            if (b.log[i].bar != acc[i].bar || b.log[i].addr != acc[i].addr || b.log[i].write != acc[i].write ||
                (acc[i].write && b.log[i].wdata != acc[i].wdata)) why = "host-port access differs";
        for (int bar = 0; bar < 2 && !why; bar++) if (b.mem[bar] != ref[bar]) why = "memory differs";
        if (!why) { pass++; return; }
        fail++;
        if (fail > 5) return;
        printf("FAIL %s: %s (SEED=0x%" PRIx64 ", cycle %" PRIu64 ")\n  sent:", what, why, seed, b.cycle);
        for (uint8_t x : f) printf(" %02x", x);
        printf("\n  expected:"); for (uint8_t x : exp) printf(" %02x", x);
        printf("\n  got:     "); for (uint8_t x : b.rx.got) printf(" %02x", x);
        printf("\n  accesses: %zu (expected %zu)\n", b.log.size(), acc.size());
        for (size_t i = 0; i < b.log.size() && i < acc.size(); i++)
            if (b.log[i].addr != acc[i].addr || (acc[i].write && b.log[i].wdata != acc[i].wdata)) {
                printf("  first differing access %zu: addr 0x%08x/0x%08x wdata 0x%08x/0x%08x\n", i,
                       acc[i].addr, b.log[i].addr, acc[i].wdata, b.log[i].wdata);
                break;
            }
        for (int bar = 0; bar < 2; bar++) for (uint32_t w = 0; w < MEM_WORDS; w++)
            if (b.mem[bar][w] != ref[bar][w]) {
                printf("  first differing word: BAR%d 0x%05x expected 0x%08x got 0x%08x\n", bar, w * 4,
                       ref[bar][w], b.mem[bar][w]);
                bar = 2; break;
            }
    };
    auto rand_addr = [&](uint32_t words) {  // mostly in range; sometimes straddling the end (BUS)
        uint32_t w = rng.chance(0.15) ? MEM_WORDS - rng.below(words) : rng.below(MEM_WORDS - words + 1);
        return 4 * w;
    };

    for (int i = 0; i < 60; i++) {  // good requests, mixed with garbage before SYNC
        uint32_t cm1 = rng.chance(0.3) ? 63 : rng.below(64);
        bool wr = rng.chance(0.5);
        uint8_t op = (uint8_t)((wr ? 2 : 1) | (rng.chance(0.5) ? 0x80 : 0));
        std::vector<uint8_t> f = frame(op, rand_addr(cm1 + 1), cm1, rng, wr);
        if (rng.chance(0.2)) {  // bytes other than SYNC are dropped while hunting
            std::vector<uint8_t> g;
            for (int k = 0; k < 3; k++) { uint8_t x = (uint8_t)rng.below(255); g.push_back(x >= 0x55 ? x + 1 : x); }
            b.send(g);
        }
        check(wr ? "WRITE" : "READ", f, true);
    }
    for (int i = 0; i < 10; i++) {  // bad CRC: a corrupted data/header/CRC byte; nothing performed
        bool wr = rng.chance(0.7);
        std::vector<uint8_t> f = frame(wr ? 2 : 0x81, rand_addr(8), rng.below(8), rng, wr);
        uint32_t at = 2 + rng.below((uint32_t)f.size() - 2);  // not OP or COUNT: the length stays
        if (at == 6) at = 2;
        f[at] ^= (uint8_t)(1u << rng.below(8));
        check("bad CRC", f, true);
    }
    struct { uint8_t op; uint32_t addr, cm1; bool data; const char *what; } bad[] = {
        {0x00, 0, 0, false, "BADREQ op 0"}, {0x03, 0, 0, false, "BADREQ op 3"},
        {0x05, 0, 0, false, "BADREQ reserved bit"}, {0xC2, 0, 1, true, "BADREQ reserved bit write"},
        {0x01, 0, 64, false, "BADREQ read count 65"}, {0x82, 0, 200, true, "BADREQ write count 201"},
        {0x01, 6, 0, false, "BADREQ unaligned read"}, {0x02, 0x101, 2, true, "BADREQ unaligned write"},
    };
    for (auto &c : bad) check(c.what, frame(c.op, c.addr, c.cm1, rng, c.data), true);
    for (int i = 0; i < 4; i++) {  // truncated: silence -> dropped, no response, nothing performed
        bool wr = i & 1;
        std::vector<uint8_t> f = frame(wr ? 2 : 1, rand_addr(4), 3, rng, wr);
        f.resize(1 + rng.below((uint32_t)f.size() - 1));
        check("truncated frame", f, false);
        check("request after a timeout", frame(1, rand_addr(2), 1, rng, false), true);
    }
    printf("uart_bridge: %d passed, %d failed\n", pass, fail);
    return fail ? 1 : 0;
}
