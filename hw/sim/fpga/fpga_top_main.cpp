// Smoke test of a Verilated FPGA top through its UART pins only. Built twice (mk/fpga.mk):
// FPGA_SOC=1: tsl_fpga_top (UART bridge + tsl_soc + on-chip HBM), all over the line: HOSTIF ID,
//   BOOT.HOLD set after power-on, the command-processor firmware loaded through the BAR0 RAM
//   window and read back, FW_STATUS 0 while held; BOOT.HOLD cleared, then FW_STATUS = ready and a
//   moving HEARTBEAT (the firmware runs), and BAR0 past the HOSTIF block and the RAM answer BUS.
// FPGA_SOC=0: tsl_ice40_top (the iCEBreaker bitstream's RTL, or with FPGA_GL=1 its synthesised
//   netlist; reset by its power-on counter): BAR0 is the lite tensor core's register block (ID,
//   CFG_*, BUS past 4 KiB). A program pushed over the line (DMA loads of random A and B, MATMULK of
//   two K-blocks, REQUANT to int8, RELU, DMA stores, then an invalid instruction) runs on the board
//   and on the golden model; HBM, the TC registers and the exact counters must agree.
// Both: random BAR1 bursts read back word for word against a host-side copy, and BAR1 past
// FPGA_HBM answers BUS. Usage: fpga_top_sim [cp.elf]   (SEED=0x... replays)
#include "verilated.h"
#if FPGA_SOC
#include "Vtsl_fpga_top.h"
#include "elf_image.h"
typedef Vtsl_fpga_top Top;
#else
#include "Vtsl_ice40_top.h"
typedef Vtsl_ice40_top Top;
extern "C" {
#include "tsl_insn.h"
#include "tslm.h"
}
#endif
#include "tsl_hw.h"
#include "tsl_rng.h"
#include "tsl_uart_sim.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#ifndef FPGA_GL
#define FPGA_GL 0  // 1: tsl_ice40_top is the synthesised netlist
#endif
#define FPGA_NAME (FPGA_SOC ? "fpga_top" : FPGA_GL ? "fpga_ice40_gl" : "fpga_ice40_top")
static const int CPB = FPGA_CPB;
static const uint32_t HBM_BYTES = FPGA_HBM;

struct Board {
    Top top;
    TslUartLine line{CPB};
    TslUartRx rx{CPB};
    uint64_t cycle = 0;
    void step() {
        top.uart_rx_i = line.pin();
        top.clk_i = 1; top.eval(); top.clk_i = 0; top.eval(); cycle++;
        rx.sample(top.uart_tx_o);
    }
    // One request; returns the STATUS (-1: no/garbled response) and the READ data words.
    int xfer(uint8_t op, uint32_t addr, const std::vector<uint32_t> &wr, uint32_t count,
             std::vector<uint32_t> *rd) {
        std::vector<uint8_t> d;
        for (uint32_t w : wr) for (int k = 0; k < 4; k++) d.push_back((uint8_t)(w >> (8 * k)));
        rx.got.clear();
        for (uint8_t b : tsl_uart_frame(op, addr, count - 1, d)) line.send(b);
        size_t want = 3 + ((op & 3) == 1 ? 4 * count : 0);
        uint64_t end = cycle + (d.size() + want + 16) * 12 * CPB + 20000;
        while ((rx.got.size() < 3 || (rx.got[1] <= 1 && rx.got.size() < want)) && cycle < end) step();
        if (rx.got.size() < 3 || rx.got[0] != 0xA5 || tsl_uart_crc8(rx.got, 1, rx.got.size()) != 0) return -1;
        if (rd) {
            rd->clear();
            for (size_t i = 2; i + 4 < rx.got.size(); i += 4)
                rd->push_back(rx.got[i] | rx.got[i + 1] << 8 | rx.got[i + 2] << 16 | (uint32_t)rx.got[i + 3] << 24);
        }
        return rx.got[1];
    }
    uint32_t read32(int bar, uint32_t addr, int *st) {
        std::vector<uint32_t> r;
        *st = xfer((uint8_t)(1 | bar << 7), addr, {}, 1, &r);
        return r.empty() ? 0 : r[0];
    }
};

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    uint64_t seed = getenv("SEED") ? strtoull(getenv("SEED"), nullptr, 0) : 0xF0A7ull ^ (uint64_t)time(nullptr);
    printf("%s: SEED=0x%" PRIx64 "\n", FPGA_NAME, seed);
    TslRng rng{seed};
    Board b;
    int pass = 0, fail = 0, st;
    auto expect = [&](bool ok, const char *what) {
        if (ok) { pass++; return; }
        fail++;
        printf("FAIL %s (SEED=0x%" PRIx64 ", cycle %" PRIu64 ")\n", what, seed, b.cycle);
    };
    b.top.uart_rx_i = 1; b.top.clk_i = 0;
#if FPGA_SOC
    if (argc < 2) { fprintf(stderr, "usage: %s cp.elf\n", argv[0]); return 2; }
    std::vector<uint8_t> bytes(TSL_PARAM_RAM_BYTES);
    uint32_t used = 0;
    if (const char *why = tessel_elf_file(argv[1], TSL_MMAP_RAM_BASE, bytes.data(), TSL_PARAM_RAM_BYTES, &used)) {
        fprintf(stderr, "fpga_top: %s: %s\n", argv[1], why);
        return 2;
    }
    std::vector<uint32_t> img((used + 3) / 4);  // the RAM image from the base, in words
    for (uint32_t off = 0; off < used; off++)
        img[off / 4] |= uint32_t(bytes[off]) << (off % 4 * 8);
    b.top.rst_ni = 0; b.top.eval();
    for (int i = 0; i < 4; i++) b.step();
    b.top.rst_ni = 1;
    uint32_t id = b.read32(0, TSL_HOSTIF_ID_OFFSET, &st);
    expect(st == 0 && id == 0x54534C31u, "HOSTIF ID reads 'TSL1'");
    uint32_t hold = b.read32(0, TSL_HOSTIF_BOOT_OFFSET, &st);
    expect(st == 0 && hold == 1u << TSL_HOSTIF_BOOT_HOLD_SHIFT, "BOOT.HOLD is set after power-on");
    // The firmware through the BAR0 RAM window, 64 words a frame, each frame read back.
    bool loaded = true;
    for (uint32_t i = 0; i < img.size() && loaded; i += 64) {
        uint32_t n = std::min<uint32_t>(64, uint32_t(img.size()) - i), a = TSL_PARAM_BAR0_RAM_OFFSET + 4 * i;
        std::vector<uint32_t> w(img.begin() + i, img.begin() + i + n), r;
        loaded = b.xfer(0x02, a, w, n, nullptr) == 0 && b.xfer(0x01, a, {}, n, &r) == 0 && r == w;
    }
    expect(loaded, "the firmware loads through the BAR0 RAM window and reads back");
    uint32_t fw = b.read32(0, TSL_HOSTIF_FW_STATUS_OFFSET, &st);
    expect(st == 0 && fw == 0, "FW_STATUS reads 0 while the cores are held");
    std::vector<uint32_t> one{0};
    expect(b.xfer(0x02, TSL_HOSTIF_BOOT_OFFSET, one, 1, nullptr) == 0, "BOOT.HOLD cleared");
    b.read32(0, TSL_PARAM_BAR0_RAM_OFFSET, &st);
    expect(st == 1, "the RAM window answers BUS once the cores run");
    for (int i = 0; i < 200 && (fw & TSL_HOSTIF_FW_STATUS_STATE_MASK) != 1; i++)
        fw = b.read32(0, TSL_HOSTIF_FW_STATUS_OFFSET, &st);
    expect((fw & TSL_HOSTIF_FW_STATUS_STATE_MASK) == 1, "FW_STATUS reaches ready (firmware runs)");
    uint32_t hb0 = b.read32(0, TSL_HOSTIF_HEARTBEAT_OFFSET, &st);
    for (int i = 0; i < 2000; i++) b.step();
    uint32_t hb1 = b.read32(0, TSL_HOSTIF_HEARTBEAT_OFFSET, &st);
    expect(st == 0 && hb1 != hb0, "HEARTBEAT moves");
    b.read32(0, 0x1000, &st);
    expect(st == 1, "BAR0 past the HOSTIF block answers BUS");
#else
    b.top.btn_ni = 1;
    for (int i = 0; i < 32; i++) b.step();  // the power-on reset lasts 15 cycles
    std::vector<uint32_t> cfg;
    expect(b.xfer(0x01, TSL_TC_ID_OFFSET, {}, 7, &cfg) == 0 && cfg.size() == 7 && cfg[0] == TSL_ID_VALUE &&
               cfg[1] == FPGA_N && cfg[3] == FPGA_ACC && cfg[4] == HBM_BYTES && cfg[5] == 1 && cfg[6] == 1,
           "TC ID and CFG_* (N, VMEM, ACC, HBM, int8, queue depth 1)");
    const uint32_t vmem = cfg.size() == 7 ? cfg[2] : 0;
    b.read32(0, 0x1000, &st);
    expect(st == 1, "BAR0 past the TC block answers BUS");

    // The same program on the board and on the golden model: C = A x B (8 x 8 x 4, int8 -> int32)
    // by MATMULK, REQUANT of C to int8, RELU of that, both stored; then an invalid DMA (ERR_*).
    tslm_t m{};
    tslm_cfg_t mc = tslm_cfg_default();
    mc.n = FPGA_N, mc.vmem_bytes = vmem, mc.acc_bytes = FPGA_ACC, mc.hbm_bytes = HBM_BYTES;
    mc.features = 1u << TSL_TC_CFG_FEATURES_INT8_SHIFT;
    mc.core = FPGA_SOC ? TSL_CORE_TC : TSL_CORE_LITE;
    expect(vmem && tslm_init(&m, &mc) == TSLM_OK, "golden model of the board's configuration");
    const uint32_t A = 0x1000, B = 0x1100, C = 0x1200, Q = 0x1300, ACC = TSL_LOCAL_ACC_BASE;
    std::vector<uint32_t> a_words(16), b_words(8);   // A: 8 rows of 8 bytes, B: 8 rows of 4 bytes
    for (uint32_t &w : a_words) w = rng.u32();
    for (uint32_t &w : b_words) w = rng.u32();
    expect(b.xfer(0x82, A, a_words, 16, nullptr) == 0 && b.xfer(0x82, B, b_words, 8, nullptr) == 0, "A and B written");
    memcpy(tslm_hbm(&m) + A, a_words.data(), 64);
    memcpy(tslm_hbm(&m) + B, b_words.data(), 32);
    std::vector<tsl_insn_t> prog = {
        tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                .op = TSL_DMA_OP_LOAD, .hbm_addr = A, .rows = 8, .row_bytes = 8, .hbm_stride = 8,
                .local_stride = 8}),        // A -> VMEM 0
        tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                .op = TSL_DMA_OP_LOAD, .hbm_addr = B, .local_addr = 0x100, .rows = 8, .row_bytes = 4,
                .hbm_stride = 4, .local_stride = 4}),    // B -> VMEM 0x100
        tsl_insn_mxu_matmulk_encode(tsl_insn_mxu_matmulk_t{
                .dtype = TSL_DTYPE_INT8, .act_stride = 8, .acc_addr = ACC, .acc_stride = 16, .rows = 8,
                .kblocks = 2, .w_addr = 0x100, .w_stride = 4}),
        tsl_insn_vpu_vec_encode(tsl_insn_vpu_vec_t{
                .op = TSL_VPU_OP_REQUANT, .dst_dtype = TSL_DTYPE_INT8, .src1_dtype = TSL_DTYPE_INT32,
                .dst_addr = 0x200, .src1_addr = ACC, .rows = 8, .scale = 77, .shift = 9, .zero_point = (uint32_t)-3}),
        tsl_insn_vpu_vec_encode(tsl_insn_vpu_vec_t{
                .op = TSL_VPU_OP_RELU, .dst_dtype = TSL_DTYPE_INT8, .src1_dtype = TSL_DTYPE_INT8, .dst_addr = 0x240,
                .src1_addr = 0x200, .rows = 8}),
        tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                .op = TSL_DMA_OP_STORE, .hbm_addr = C, .local_addr = ACC, .rows = 8, .row_bytes = 16,
                .hbm_stride = 16, .local_stride = 16}),  // C (int32) -> HBM
        tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                .op = TSL_DMA_OP_STORE, .hbm_addr = Q, .local_addr = 0x200, .rows = 16, .row_bytes = 4,
                .hbm_stride = 4, .local_stride = 4}),  // REQUANT and RELU rows -> HBM
    };
    tsl_insn_signal(&prog[1], TSL_TOK(TSL_UNIT_MXU));
    tsl_insn_wait(&prog[2], TSL_TOK(TSL_UNIT_DMA));
    tsl_insn_signal(&prog[2], TSL_TOK(TSL_UNIT_VPU));
    tsl_insn_wait(&prog[3], TSL_TOK(TSL_UNIT_MXU));
    tsl_insn_signal(&prog[4], TSL_TOK(TSL_UNIT_DMA));
    tsl_insn_wait(&prog[5], TSL_TOK(TSL_UNIT_VPU));
    tsl_insn_notify(&prog[6]);
    prog.push_back(tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
            .op = TSL_DMA_OP_LOAD, .hbm_addr = HBM_BYTES - 4, .rows = 1, .row_bytes = 8}));   // past HBM: ERR_HBM_RANGE
    bool pushed = true;
    for (const tsl_insn_t &i : prog) {
        std::vector<uint32_t> w(i.w, i.w + TSL_PARAM_INSN_WORDS);
        pushed = pushed && b.xfer(0x02, TSL_TC_INSN0_OFFSET, w, TSL_PARAM_INSN_WORDS, nullptr) == 0;
        (void)tslm_push(&m, i.w);
    }
    expect(pushed, "the program is pushed (one 8-word frame per instruction)");
    tslm_run(&m);
    uint32_t status = 0;
    for (int i = 0; i < 100 && !(status & 1u << TSL_TC_STATUS_IDLE_SHIFT); i++) status = b.read32(0, TSL_TC_STATUS_OFFSET, &st);
    expect(st == 0 && status == tslm_reg_read(&m, TSL_TC_STATUS_OFFSET), "STATUS: idle, and the error, as the model");
    const uint32_t regs[] = {TSL_TC_ERR_CODE_OFFSET, TSL_TC_ERR_SEQ_OFFSET, TSL_TC_ERR_ADDR_OFFSET,
                             TSL_TC_PUSH_COUNT_OFFSET, TSL_TC_NOTIFY_COUNT_OFFSET, TSL_TC_TOKENS_DMA_MXU_OFFSET,
                             TSL_TC_TOKENS_VPU_DMA_OFFSET};
    for (uint32_t off : regs) {
        uint32_t v = b.read32(0, off, &st);
        if (st != 0 || v != tslm_reg_read(&m, off)) {
            printf("  TC register 0x%03x: board 0x%x model 0x%x\n", off, v, tslm_reg_read(&m, off));
            expect(false, "a TC register differs from the model");
        }
    }
    for (uint32_t k : {TSL_PERF_DMA_INSNS, TSL_PERF_MXU_INSNS, TSL_PERF_VPU_INSNS, TSL_PERF_HBM_RD_BYTES,
                       TSL_PERF_HBM_WR_BYTES, TSL_PERF_MXU_MACS}) {
        uint32_t v = b.read32(0, TSL_TC_PERF_BASE + 8 * k, &st);
        if (st != 0 || v != tslm_reg_read(&m, TSL_TC_PERF_BASE + 8 * k)) {
            printf("  PERF %u: board %u model %u\n", k, v, tslm_reg_read(&m, TSL_TC_PERF_BASE + 8 * k));
            expect(false, "an exact counter differs from the model");
        }
    }
    bool same = true;
    for (uint32_t base : {C, Q}) {   // C: 8 rows of 4 int32; Q: 8 REQUANT rows, then 8 RELU rows
        uint32_t words = base == C ? 32 : 16, shown = 0;
        std::vector<uint32_t> out;
        same = same && b.xfer(0x81, base, {}, words, &out) == 0 && out.size() == words;
        for (uint32_t k = 0; k < out.size(); k++) {
            uint32_t mw;
            memcpy(&mw, tslm_hbm(&m) + base + 4 * k, 4);
            if (out[k] != mw && shown++ < 4)
                printf("  HBM 0x%04x: board 0x%08x model 0x%08x\n", base + 4 * k, out[k], mw);
            same = same && out[k] == mw;
        }
    }
    expect(same, "C, REQUANT and RELU in HBM equal the model's");
    expect(b.xfer(0x02, TSL_TC_CTRL_OFFSET, {1u << TSL_TC_CTRL_RESET_SHIFT}, 1, nullptr) == 0 &&
               b.read32(0, TSL_TC_ERR_CODE_OFFSET, &st) == 0 && st == 0, "CTRL.RESET clears the error");
    tslm_free(&m);
#endif

    std::vector<uint32_t> ref(HBM_BYTES / 4);
    std::vector<bool> known(HBM_BYTES / 4);
    for (int i = 0; i < 12; i++) {  // random BAR1 bursts, then read back
        uint32_t n = 1 + rng.below(64), w = rng.below(HBM_BYTES / 4 - n + 1);
        std::vector<uint32_t> d(n);
        for (uint32_t k = 0; k < n; k++) { d[k] = rng.u32(); ref[w + k] = d[k]; known[w + k] = true; }
        expect(b.xfer(0x82, 4 * w, d, n, nullptr) == 0, "BAR1 write answers OK");
    }
    for (int i = 0; i < 12; i++) {
        uint32_t n = 1 + rng.below(64), w = rng.below(HBM_BYTES / 4 - n + 1);
        std::vector<uint32_t> r;
        bool ok = b.xfer(0x81, 4 * w, {}, n, &r) == 0 && r.size() == n;
        for (uint32_t k = 0; ok && k < n; k++)
            if (known[w + k] && r[k] != ref[w + k]) {
                printf("  BAR1 0x%05x: expected 0x%08x got 0x%08x\n", 4 * (w + k), ref[w + k], r[k]);
                ok = false;
            }
        expect(ok, "BAR1 read returns what was written");
    }
    b.read32(1, HBM_BYTES, &st);
    expect(st == 1, "BAR1 past HbmBytes answers BUS");
    printf("%s: %d passed, %d failed\n", FPGA_NAME, pass, fail);
    return fail ? 1 : 0;
}
