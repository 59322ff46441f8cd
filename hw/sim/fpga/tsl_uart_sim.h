// UART line model for the Verilated FPGA harnesses (hw/sim/fpga): drives a board's rx pin with
// 8N1 bytes and decodes its tx pin, CPB clocks per bit, plus the bridge protocol's CRC-8 and
// request framing (docs/fpga.md, "UART protocol"). Call TslUartLine::pin() and
// TslUartRx::sample() once per clock cycle.
#ifndef TSL_UART_SIM_H
#define TSL_UART_SIM_H

#include <cstdint>
#include <deque>
#include <vector>

// CRC-8, polynomial 0x07, init 0, no reflection, no final xor, over b[from, to).
static inline uint8_t tsl_uart_crc8(const std::vector<uint8_t> &b, size_t from, size_t to) {
    uint8_t c = 0;
    for (size_t i = from; i < to; i++) {
        c ^= b[i];
        for (int k = 0; k < 8; k++) c = (uint8_t)((c & 0x80) ? (c << 1) ^ 0x07 : c << 1);
    }
    return c;
}

// A request frame: SYNC, OP, ADDR, COUNT-1, data (WRITE: 4 * (count_m1 + 1) bytes), CRC.
static inline std::vector<uint8_t> tsl_uart_frame(uint8_t op, uint32_t addr, uint32_t count_m1,
                                                  const std::vector<uint8_t> &data) {
    std::vector<uint8_t> f = {0x55, op, (uint8_t)addr, (uint8_t)(addr >> 8), (uint8_t)(addr >> 16),
                              (uint8_t)(addr >> 24), (uint8_t)count_m1};
    f.insert(f.end(), data.begin(), data.end());
    f.push_back(tsl_uart_crc8(f, 1, f.size()));
    return f;
}

// Host -> board: queued bytes become line levels, each held CPB cycles; idle high.
struct TslUartLine {
    int cpb;
    std::deque<int> bits;
    int cnt = 0, level = 1;
    explicit TslUartLine(int clks_per_bit) : cpb(clks_per_bit) {}
    void send(uint8_t b, int idle_bits = 0) {
        bits.push_back(0);
        for (int i = 0; i < 8; i++) bits.push_back((b >> i) & 1);
        for (int i = 0; i < 1 + idle_bits; i++) bits.push_back(1);
    }
    bool busy() const { return cnt > 0 || !bits.empty(); }
    int pin() {  // the level for this cycle
        if (cnt == 0 && !bits.empty()) { level = bits.front(); bits.pop_front(); cnt = cpb; }
        if (cnt == 0) level = 1; else cnt--;
        return level;
    }
};

// Board -> host: samples each bit at its middle; bytes with a bad stop bit are dropped.
struct TslUartRx {
    int cpb, state = 0, cnt = 0, nbit = 0;
    uint8_t sh = 0;
    std::vector<uint8_t> got;
    explicit TslUartRx(int clks_per_bit) : cpb(clks_per_bit) {}
    void sample(int line) {
        switch (state) {
        case 0: if (!line) { state = 1; cnt = cpb / 2; } break;
        case 1: if (--cnt == 0) { state = line ? 0 : 2; cnt = cpb; nbit = 0; } break;
        case 2: if (--cnt == 0) { sh = (uint8_t)((sh >> 1) | (line << 7)); cnt = cpb; if (++nbit == 8) state = 3; } break;
        default: if (--cnt == 0) { if (line) got.push_back(sh); state = 0; } break;
        }
    }
};

#endif  // TSL_UART_SIM_H
