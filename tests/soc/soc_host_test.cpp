// The SoC's test harness, linked with the simulator that libtessel and tessel share (mk/soc.mk):
//   soc_host_test FW.elf                 the host-port self-test (make test-soc-host) with the firmware
//                                        tests/soc/host_fw.c
//   soc_host_test run [...] PROG.elf     `tessel run` (hw/sim/soc/tsl_soc_run.h), for SoC builds that
//                                        have no tessel of their own (make test-rel-xrand)
// The self-test checks, from the host side only (BAR0/BAR1 through TslSocSim):
//   HOSTIF ID and error answers; rw/w1c/wo register semantics per side; a SUM command through the
//   rings (host writes data and the command via BAR1, rings the doorbell, waits for host_irq,
//   reads the completion and the result via BAR1); a STRESS command (TC DMA copy while the core
//   hammers the HBM window and the host hammers BAR1: all three AXI masters at once, every byte
//   compared); the RESET path (FW_STATUS reads 0, then ready again; boot count 1 -> 2; rings kept);
//   BOOT.HOLD (cores held, the RAM through the BAR0 window, the doorbell's prefetch of the announced
//   ring entry, a boot on release); an EXIT command; no
//   AXI rule violation seen by the HBM model.
// Expected values come from the host's own data (sums, patterns), never from the RTL.
// SEED=0x... replays the random data. Prints "soc_host: P passed, F failed".
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tsl_hbm.h"
#include "tsl_hw.h"
#include "tsl_soc_run.h"
#include "tsl_soc_sim.h"
extern "C" {
#include "host_proto.h"
}

namespace {
const uint32_t kCmdBase = 0x10000, kCmdSize = 4, kCplBase = 0x11000, kCplSize = 4;
const uint64_t kBudget = 3000000;  // cycles for any one wait

struct Tester {
  TslSocSim soc;
  int pass = 0, fail = 0;
  uint32_t cmd_head = 0, cpl_tail = 0;

  void check(bool ok, const char *what) {
    if (ok) {
      pass++;
    } else {
      fail++;
      printf("FAIL: %s (cycle %" PRIu64 ")\n", what, soc.cycles());
    }
  }
  uint32_t rd(unsigned bar, uint32_t addr) {
    uint32_t v = 0;
    TslSocStatus s = soc.host_read32(bar, addr, &v);
    if (s != TSL_SOC_OK) {
      printf("FAIL: host read bar %u 0x%x: status %d\n", bar, addr, s);
      fail++;
    }
    return v;
  }
  void wr(unsigned bar, uint32_t addr, uint32_t v, uint8_t strb = 0xf) {
    TslSocStatus s = soc.host_write32(bar, addr, v, strb);
    if (s != TSL_SOC_OK) {
      printf("FAIL: host write bar %u 0x%x: status %d\n", bar, addr, s);
      fail++;
    }
  }
  // Poll a BAR0 register until (value & mask) == want; false on timeout.
  bool wait_reg(uint32_t off, uint32_t mask, uint32_t want) {
    uint64_t t0 = soc.cycles();
    while (soc.cycles() - t0 < kBudget)
      if ((rd(0, off) & mask) == want) return true;
    return false;
  }
  // Write a command entry at CMD_HEAD via BAR1 and ring the doorbell.
  void submit(const uint32_t *w) {
    uint32_t entry = kCmdBase + (cmd_head % kCmdSize) * 64;
    for (int i = 0; i < 16; i++) wr(1, entry + 4 * i, w[i]);
    wr(0, TSL_HOSTIF_CMD_HEAD_OFFSET, ++cmd_head);
  }
  // Read the next completion (after host_irq) and retire it; clears HOST_IRQ_STATUS.CPL.
  void take_completion(uint32_t *c) {
    check(rd(0, TSL_HOSTIF_CPL_HEAD_OFFSET) == cpl_tail + 1, "CPL_HEAD advanced by one");
    uint32_t entry = kCplBase + (cpl_tail % kCplSize) * 16;
    for (int i = 0; i < 4; i++) c[i] = rd(1, entry + 4 * i);
    wr(0, TSL_HOSTIF_CPL_TAIL_OFFSET, ++cpl_tail);
    wr(0, TSL_HOSTIF_HOST_IRQ_STATUS_OFFSET, 1);
    check(!soc.host_irq(), "host_irq low after the w1c of HOST_IRQ_STATUS.CPL");
  }
  bool wait_irq() {
    TslSocStop s = soc.run_until([this] { return soc.host_irq(); }, kBudget);
    return s == TSL_SOC_STOPPED;
  }
};
}  // namespace

static int host_test(const std::string &elf) {
  uint64_t seed = 0;
  if (const char *e = getenv("SEED")) seed = strtoull(e, nullptr, 0);
  if (!seed) seed = std::random_device{}() | 1ull;
  printf("soc_host: SEED=0x%" PRIx64 "\n", seed);
  std::mt19937 rng(uint32_t(seed ^ (seed >> 32)));

  Tester t;
  std::string err;
  if (!t.soc.load_elf(elf, &err)) {
    fprintf(stderr, "tessel: %s\n", err.c_str());
    return 2;
  }
  t.soc.reset();
  uint8_t *mem = t.soc.hbm().data();

  // --- identity, errors, argument checks ------------------------------------------------------
  uint32_t v = 0;
  t.check(t.rd(0, TSL_HOSTIF_ID_OFFSET) == TSL_ID_VALUE, "BAR0 ID reads TSL_ID_VALUE");
  t.check(t.rd(0, TSL_HOSTIF_CFG_N_OFFSET) == SOC_N && t.rd(0, TSL_HOSTIF_CFG_HBM_BYTES_OFFSET) == t.soc.hbm_bytes() &&
              (t.rd(0, TSL_HOSTIF_CFG_FEATURES_OFFSET) & 1u),
          "HOSTIF CFG_N, CFG_HBM_BYTES and CFG_FEATURES.INT8 give the build's configuration");
  t.check(t.soc.host_read32(0, 0x004, &v) == TSL_SOC_EBUS, "BAR0 unmapped offset 0x004 -> bus error");
  t.check(t.soc.host_read32(0, TSL_MMAP_HOSTIF_BYTES, &v) == TSL_SOC_EBUS, "BAR0 beyond the block -> bus error");
  t.check(t.soc.host_write32(1, uint32_t(t.soc.hbm_bytes()), 1) == TSL_SOC_EBUS, "BAR1 beyond HBM -> bus error");
  t.check(t.soc.host_read32(2, 0, &v) == TSL_SOC_EINVAL, "bar 2 -> EINVAL");
  t.check(t.soc.host_read32(1, 2, &v) == TSL_SOC_EINVAL, "unaligned -> EINVAL");
  t.check(t.wait_reg(TSL_HOSTIF_FW_STATUS_OFFSET, 0xff, 1), "FW_STATUS becomes ready after reset");
  t.check(mem[TSL_TEST_BOOT_COUNT] == 1, "firmware booted once");
  uint32_t hb0 = t.rd(0, TSL_HOSTIF_HEARTBEAT_OFFSET);
  t.soc.step(2000);
  t.check(t.rd(0, TSL_HOSTIF_HEARTBEAT_OFFSET) != hb0, "HEARTBEAT advances while idle");

  // --- register semantics -----------------------------------------------------------------------
  t.wr(0, TSL_HOSTIF_CPL_TAIL_OFFSET, 0xAABBCCDD);
  t.wr(0, TSL_HOSTIF_CPL_TAIL_OFFSET, 0x00001100, 0x2);
  t.check(t.rd(0, TSL_HOSTIF_CPL_TAIL_OFFSET) == 0xAABB11DD, "rw register honours byte strobes");
  t.wr(0, TSL_HOSTIF_CPL_TAIL_OFFSET, 0);
  t.wr(0, TSL_HOSTIF_ID_OFFSET, 0);
  t.check(t.rd(0, TSL_HOSTIF_ID_OFFSET) == TSL_ID_VALUE, "ID is read-only");
  t.wr(0, TSL_HOSTIF_HOST_IRQ_SET_OFFSET, 3);
  t.check(t.rd(0, TSL_HOSTIF_HOST_IRQ_STATUS_OFFSET) == 0, "host write of HOST_IRQ_SET is ignored");
  t.check(t.rd(0, TSL_HOSTIF_RESET_OFFSET) == 0, "RESET reads 0");
  t.wr(0, TSL_HOSTIF_CMD_BASE_OFFSET, kCmdBase);
  t.wr(0, TSL_HOSTIF_CMD_SIZE_OFFSET, kCmdSize);
  t.wr(0, TSL_HOSTIF_CPL_BASE_OFFSET, kCplBase);
  t.wr(0, TSL_HOSTIF_CPL_SIZE_OFFSET, kCplSize);
  t.check(t.rd(0, TSL_HOSTIF_CMD_BASE_OFFSET) == kCmdBase && t.rd(0, TSL_HOSTIF_CPL_SIZE_OFFSET) == kCplSize,
          "ring registers read back");
  t.wr(0, TSL_HOSTIF_HOST_IRQ_ENABLE_OFFSET, 0);

  // --- SUM command, interrupt masked first: status set, line low --------------------------------
  auto sum_cmd = [&](uint32_t tag, uint32_t a, uint32_t c, uint32_t words, uint32_t *expect) {
    uint32_t sum = 0;
    for (uint32_t i = 0; i < words; i++) {
      uint32_t x = rng();
      t.wr(1, a + 4 * i, x);
      sum += x;
    }
    uint32_t w[16] = {TSL_TEST_OP_SUM, tag};
    w[3] = words, w[6] = a, w[10] = c;
    t.submit(w);
    *expect = sum;
  };
  uint32_t sum, cpl[4];
  sum_cmd(0x1234, 0x20000, 0x21000, 37, &sum);
  t.check(t.wait_reg(TSL_HOSTIF_HOST_IRQ_STATUS_OFFSET, 1, 1), "SUM: HOST_IRQ_STATUS.CPL set");
  t.check(!t.soc.host_irq(), "host_irq low while HOST_IRQ_ENABLE = 0");
  t.wr(0, TSL_HOSTIF_HOST_IRQ_STATUS_OFFSET, 0);
  t.check(t.rd(0, TSL_HOSTIF_HOST_IRQ_STATUS_OFFSET) == 1, "w1c: writing 0 keeps the bit");
  t.wr(0, TSL_HOSTIF_HOST_IRQ_ENABLE_OFFSET, 1);
  t.soc.step(1);
  t.check(t.soc.host_irq(), "host_irq = STATUS & ENABLE");
  t.take_completion(cpl);
  t.check(cpl[0] == 0x1234 && (cpl[1] & 0xffff) == TSL_CMD_ERR_OK && (cpl[1] >> 16 & 0xff) == TSL_TEST_OP_SUM,
          "SUM completion: tag, status, opcode");
  t.check(cpl[3] == sum, "SUM completion DETAIL = host's sum");
  t.check(t.rd(1, 0x21000) == sum, "SUM result read back via BAR1");
  t.check(t.rd(0, TSL_HOSTIF_CMD_TAIL_OFFSET) == 1, "CMD_TAIL advanced");
  t.check(t.rd(0, TSL_HOSTIF_DB_PENDING_OFFSET) == 0, "firmware cleared DB_PENDING");

  // --- STRESS: TC DMA + core window + host BAR1 at once -------------------------------------------
  {
    const uint32_t rows = 32, row_bytes = 480, a = 0x40003, lda = 512, c = 0x60005, ldc = 500;
    const uint32_t b = 0x80000, k = 256, hreg = 0xA0000;
    uint32_t pseed = rng(), hseed = rng();
    std::vector<uint8_t> before(mem + c - 64, mem + c + rows * ldc + 64);
    for (uint32_t r = 0; r < rows; r++)
      for (uint32_t i = 0; i < row_bytes; i++) mem[a + r * lda + i] = uint8_t(rng());
    uint32_t w[16] = {TSL_TEST_OP_STRESS, 0x5555};
    w[3] = rows, w[4] = row_bytes, w[5] = k, w[6] = a, w[7] = lda, w[8] = b, w[10] = c, w[11] = ldc;
    w[13] = pseed;
    t.submit(w);
    uint32_t hbad = 0, n = 0;
    uint64_t t0 = t.soc.cycles();
    while (!t.soc.host_irq() && t.soc.cycles() - t0 < kBudget) {
      uint32_t x = tsl_test_pattern(hseed, n), addr = hreg + 4 * (n % 512);
      t.wr(1, addr, x);
      if (t.rd(1, addr) != x) hbad++;
      n++;
    }
    t.check(t.soc.host_irq(), "STRESS completed (host_irq)");
    printf("soc_host: stress: %u host BAR1 write+read pairs during %" PRIu64 " cycles\n", n,
           t.soc.cycles() - t0);
    t.check(n > 100, "host traffic overlapped the command");
    t.check(hbad == 0, "host BAR1 read-back during the stress");
    t.take_completion(cpl);
    t.check(cpl[0] == 0x5555 && (cpl[1] & 0xffff) == TSL_CMD_ERR_OK, "STRESS completion status OK");
    t.check(cpl[3] == 0, "STRESS: core read-back mismatches = 0");
    int first = -1;
    for (uint32_t r = 0; r < rows && first < 0; r++)
      for (uint32_t i = 0; i < row_bytes; i++)
        if (mem[c + r * ldc + i] != mem[a + r * lda + i]) {
          first = int(r * ldc + i);
          printf("soc_host: DMA copy mismatch at HBM 0x%x: expected 0x%02x got 0x%02x\n",
                 c + r * ldc + i, mem[a + r * lda + i], mem[c + r * ldc + i]);
          break;
        }
    t.check(first < 0, "DMA copy (unaligned, strided) equals the source byte for byte");
    bool gaps = true;  // bytes between and around the rows are untouched
    for (uint32_t off = 0; off < before.size(); off++) {
      uint32_t addr = c - 64 + off;
      bool in_row = addr >= c && addr < c + rows * ldc && (addr - c) % ldc < row_bytes;
      if (!in_row && mem[addr] != before[off]) gaps = false;
    }
    t.check(gaps, "DMA store wrote only the row bytes");
    bool core_ok = true, host_ok = true;
    for (uint32_t i = 0; i < k; i++) {
      uint32_t got;
      memcpy(&got, mem + b + 4 * i, 4);
      if (got != tsl_test_pattern(pseed, i)) core_ok = false;
    }
    for (uint32_t i = 0; i < 512 && i < n; i++) {
      uint32_t got, last = i + ((n - 1 - i) / 512) * 512;  // last pattern index written there
      memcpy(&got, mem + hreg + 4 * i, 4);
      if (got != tsl_test_pattern(hseed, last)) host_ok = false;
    }
    t.check(core_ok, "core window region holds the firmware's pattern");
    t.check(host_ok, "host BAR1 region holds the host's pattern");
    uint32_t probe = (c + 7 * ldc + 12) & ~3u, model;
    memcpy(&model, mem + probe, 4);
    t.check(t.rd(1, probe) == model, "BAR1 read agrees with the HBM model's bytes");
  }

  // --- RESET path ------------------------------------------------------------------------------
  t.wr(0, TSL_HOSTIF_RESET_OFFSET, 1);
  t.check((t.rd(0, TSL_HOSTIF_FW_STATUS_OFFSET) & 0xff) == 0, "FW_STATUS reads 0 (reset) after RESET");
  t.check(t.wait_reg(TSL_HOSTIF_FW_STATUS_OFFSET, 0xff, 1), "FW_STATUS ready again after RESET");
  t.check(mem[TSL_TEST_BOOT_COUNT] == 2, "firmware booted a second time");
  t.check(t.rd(0, TSL_HOSTIF_CMD_BASE_OFFSET) == kCmdBase && t.rd(0, TSL_HOSTIF_CMD_HEAD_OFFSET) == t.cmd_head,
          "ring registers survive RESET");
  sum_cmd(0x77, 0x30000, 0x31000, 5, &sum);
  t.check(t.wait_irq(), "SUM after RESET: host_irq");
  t.take_completion(cpl);
  t.check(cpl[0] == 0x77 && cpl[3] == sum && t.rd(1, 0x31000) == sum, "SUM after RESET: result");

  // --- BOOT.HOLD: the cores held, their RAM through the BAR0 window -----------------------------
  {
    const uint32_t ram = TSL_PARAM_BAR0_RAM_OFFSET, last = ram + TSL_PARAM_RAM_BYTES - 4;
    t.check(t.rd(0, TSL_HOSTIF_BOOT_OFFSET) == 0, "BOOT.HOLD is 0 after power-on (the simulator loads the RAM)");
    t.check(t.soc.host_read32(0, ram, &v) == TSL_SOC_EBUS, "the RAM window answers BUS while the cores run");
    t.wr(0, TSL_HOSTIF_BOOT_OFFSET, 1);
    t.check(t.rd(0, TSL_HOSTIF_BOOT_OFFSET) == 1, "BOOT.HOLD reads back 1");
    t.check((t.rd(0, TSL_HOSTIF_FW_STATUS_OFFSET) & 0xff) == 0, "FW_STATUS reads 0 while the cores are held");
    uint32_t hb = t.rd(0, TSL_HOSTIF_HEARTBEAT_OFFSET);
    t.soc.step(2000);
    t.check(t.rd(0, TSL_HOSTIF_HEARTBEAT_OFFSET) == hb, "HEARTBEAT stands still while the cores are held");
    t.check(t.rd(0, ram) == 0x00000093u, "RAM word 0 through the window: crt0's first instruction, addi x1, x0, 0");
    t.wr(0, last, 0xC0FFEE11u);
    t.check(t.rd(0, last) == 0xC0FFEE11u, "a write through the RAM window reads back");
    t.check(t.soc.host_read32(0, ram + TSL_PARAM_RAM_BYTES, &v) == TSL_SOC_EBUS, "past the RAM window -> bus error");
    // The doorbell's prefetch (tsl_hostif, tsl_axi_from_bus): a CMD_HEAD write has the core's HBM
    // bridge read the 64-byte line of the entry it announces, with no core to ask for it. Written with
    // its own value, CMD_HEAD announces nothing to the firmware once it runs.
    uint64_t r0 = t.soc.hbm().bytes_read();
    t.wr(0, TSL_HOSTIF_CMD_HEAD_OFFSET, t.cmd_head);
    t.soc.step(1000);
    t.check(t.soc.hbm().bytes_read() - r0 == 64, "a doorbell has the core's bridge fetch its entry's line");
    // A hint outside HBM (CMD_BASE past its end) ends in DECERR beats and no answer to anyone.
    t.wr(0, TSL_HOSTIF_CMD_BASE_OFFSET, uint32_t(t.soc.hbm_bytes()));
    t.wr(0, TSL_HOSTIF_CMD_HEAD_OFFSET, t.cmd_head);
    t.soc.step(1000);
    t.check(t.soc.hbm().bytes_read() - r0 == 128 && t.soc.hbm().idle(),
            "a doorbell's hint outside HBM is read (DECERR) and drops nothing");
    t.wr(0, TSL_HOSTIF_CMD_BASE_OFFSET, kCmdBase);
    t.wr(0, TSL_HOSTIF_BOOT_OFFSET, 0);
    t.check(t.wait_reg(TSL_HOSTIF_FW_STATUS_OFFSET, 0xff, 1), "FW_STATUS ready again once BOOT.HOLD is cleared");
    t.check(mem[TSL_TEST_BOOT_COUNT] == 3, "firmware booted a third time");
  }

  // --- EXIT --------------------------------------------------------------------------------------
  {
    uint32_t w[16] = {TSL_TEST_OP_EXIT, 0x99};
    w[13] = 0x5A;
    t.submit(w);
    TslSocStop s = t.soc.run_until(nullptr, kBudget);
    t.check(s == TSL_SOC_EXIT && t.soc.exit_code() == 0x5A, "EXIT command ends the firmware with its code");
    t.check(t.soc.host_irq(), "EXIT completion raised host_irq");
  }
  const std::vector<std::string> &viol = t.soc.hbm().violations();
  t.check(viol.empty(), "no AXI rule violation seen by the HBM model");
  if (!viol.empty()) printf("soc_host: first violation: %s\n", viol[0].c_str());
  printf("soc_host: %" PRIu64 " cycles, %" PRIu64 " host accesses\n", t.soc.cycles(), t.soc.host_accesses());
  printf("soc_host: %d passed, %d failed\n", t.pass, t.fail);
  return t.fail ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc >= 2 && std::string(argv[1]) == "run") return tsl_soc_run(argc - 2, argv + 2);
  if (argc != 2) {
    fputs("usage: soc_host_test FW.elf | soc_host_test run [--max-cycles N] [--trace F] [--stats] PROG.elf\n",
          stderr);
    return 2;
  }
  return host_test(argv[1]);
}
