/* Firmware for the host-port test (make test-soc-host): a miniature command processor. It checks
 * the HOSTIF ID, counts its boots in HBM, sets FW_STATUS ready, then serves the command ring on
 * the doorbell interrupt (test opcodes of host_proto.h), posting one completion per command and
 * raising HOST_IRQ_SET.CPL. While idle it increments HEARTBEAT. */
#include <stdint.h>

#include "host_proto.h"
#include "tsl_hal.h"
#include "tsl_tc.h"

static inline uint32_t hif_read(uint32_t off) { return tsl_mmio_read32(TSL_MMAP_HOSTIF_BASE + off); }
static inline void hif_write(uint32_t off, uint32_t v) { tsl_mmio_write32(TSL_MMAP_HOSTIF_BASE + off, v); }
static inline volatile uint32_t *hbm_word(uint32_t off) {
  return (volatile uint32_t *)(uintptr_t)(TSL_MMAP_HBM_BASE + off);
}

static volatile uint32_t g_doorbell;

static void on_ext_irq(tsl_trap_frame_t *frame, void *ctx) {
  (void)frame;
  (void)ctx;
  if (tsl_sys_read(TSL_SYS_IRQ_STATUS_OFFSET) & TSL_SYS_IRQ_STATUS_DOORBELL_MASK) {
    hif_write(TSL_HOSTIF_DB_PENDING_OFFSET, 1u); /* w1c */
    g_doorbell = 1u;
  }
}

static int tc_idle(void) {
  return (tsl_tc_read(TSL_TC_STATUS_OFFSET) >> TSL_TC_STATUS_IDLE_SHIFT) & TSL_TC_STATUS_IDLE_MASK;
}

/* Write pattern words at b (k words) and read each back until the TC is idle and at least one
 * full pass is done. Returns the number of read-back mismatches. */
static uint32_t hammer_until_idle(uint32_t b, uint32_t k, uint32_t seed) {
  uint32_t bad = 0, n = 0;
  while (n < k || !tc_idle()) {
    uint32_t i = n % k, v = tsl_test_pattern(seed, i);
    *hbm_word(b + 4u * i) = v;
    if (*hbm_word(b + 4u * i) != v) bad++;
    n++;
  }
  return bad;
}

/* Execute one command; returns the CMD_ERR status and sets *detail. */
static uint32_t execute(const uint32_t *w, uint32_t *detail) {
  uint32_t op = w[0] & 0xffu, m = w[3], n = w[4], k = w[5];
  uint32_t a = w[6], lda = w[7], b = w[8], c = w[10], ldc = w[11], scale = w[13];
  *detail = 0;
  switch (op) {
    case TSL_CMD_OP_NOP:
    case TSL_TEST_OP_EXIT:
      return TSL_CMD_ERR_OK;
    case TSL_TEST_OP_SUM: {
      uint32_t sum = 0;
      for (uint32_t i = 0; i < m; i++) sum += *hbm_word(a + 4u * i);
      *hbm_word(c) = sum;
      *detail = sum;
      return TSL_CMD_ERR_OK;
    }
    case TSL_TEST_OP_STRESS: {
      uint32_t bad;
      tsl_tc_dma_load((tsl_insn_dma_xfer_t){
              .hbm_addr = a, .rows = m, .row_bytes = n, .hbm_stride = lda, .local_stride = n});
      bad = hammer_until_idle(b, k, scale);
      tsl_tc_dma_store((tsl_insn_dma_xfer_t){
              .hbm_addr = c, .rows = m, .row_bytes = n, .hbm_stride = ldc, .local_stride = n});
      bad += hammer_until_idle(b, k, scale);
      for (uint32_t i = 0; i < k; i++)
        if (*hbm_word(b + 4u * i) != tsl_test_pattern(scale, i)) bad++;
      *detail = bad;
      if (tsl_tc_read(TSL_TC_STATUS_OFFSET) & (TSL_TC_STATUS_ERROR_MASK << TSL_TC_STATUS_ERROR_SHIFT)) {
        *detail = tsl_tc_read(TSL_TC_ERR_CODE_OFFSET);
        return TSL_CMD_ERR_DEVICE;
      }
      return TSL_CMD_ERR_OK;
    }
    default:
      return TSL_CMD_ERR_BAD_OPCODE;
  }
}

/* Consume every command up to CMD_HEAD, posting completions. */
static void serve(void) {
  uint32_t cmd_base = hif_read(TSL_HOSTIF_CMD_BASE_OFFSET), cmd_size = hif_read(TSL_HOSTIF_CMD_SIZE_OFFSET);
  uint32_t cpl_base = hif_read(TSL_HOSTIF_CPL_BASE_OFFSET), cpl_size = hif_read(TSL_HOSTIF_CPL_SIZE_OFFSET);
  uint32_t tail = hif_read(TSL_HOSTIF_CMD_TAIL_OFFSET);
  while (tail != hif_read(TSL_HOSTIF_CMD_HEAD_OFFSET) && cmd_size != 0 && cpl_size != 0) {
    uint32_t w[TSL_PARAM_CMD_WORDS], detail, status, exit_code = 0;
    uint32_t entry = cmd_base + (tail & (cmd_size - 1u)) * 4u * TSL_PARAM_CMD_WORDS;
    uint64_t t0 = tsl_cycles();
    for (uint32_t i = 0; i < TSL_PARAM_CMD_WORDS; i++) w[i] = *hbm_word(entry + 4u * i);
    status = execute(w, &detail);
    uint32_t head = hif_read(TSL_HOSTIF_CPL_HEAD_OFFSET);
    uint32_t cpl = cpl_base + (head & (cpl_size - 1u)) * 4u * TSL_PARAM_CPL_WORDS;
    *hbm_word(cpl + 0) = w[1];
    *hbm_word(cpl + 4) = status | (w[0] & 0xffu) << 16;
    *hbm_word(cpl + 8) = (uint32_t)(tsl_cycles() - t0);
    *hbm_word(cpl + 12) = detail;
    hif_write(TSL_HOSTIF_CPL_HEAD_OFFSET, head + 1u);
    hif_write(TSL_HOSTIF_CMD_TAIL_OFFSET, ++tail);
    hif_write(TSL_HOSTIF_HOST_IRQ_SET_OFFSET, TSL_HOSTIF_HOST_IRQ_STATUS_CPL_MASK
                                                  << TSL_HOSTIF_HOST_IRQ_STATUS_CPL_SHIFT);
    if ((w[0] & 0xffu) == TSL_TEST_OP_EXIT) {
      exit_code = w[13];
      tsl_exit((int)exit_code);
    }
  }
}

int main(void) {
  if (hif_read(TSL_HOSTIF_ID_OFFSET) != TSL_ID_VALUE) {
    hif_write(TSL_HOSTIF_FW_STATUS_OFFSET, 2u | (1u << TSL_HOSTIF_FW_STATUS_CODE_SHIFT));
    hif_write(TSL_HOSTIF_HOST_IRQ_SET_OFFSET, TSL_HOSTIF_HOST_IRQ_STATUS_FAULT_MASK
                                                  << TSL_HOSTIF_HOST_IRQ_STATUS_FAULT_SHIFT);
    for (;;) {
    }
  }
  *hbm_word(TSL_TEST_BOOT_COUNT) += 1u;
  if (tsl_irq_set_handler(TSL_IRQ_EXTERNAL, on_ext_irq, 0) != TSL_OK) tsl_exit(90);
  tsl_irq_set_ext_mask(TSL_SYS_IRQ_STATUS_DOORBELL_MASK << TSL_SYS_IRQ_STATUS_DOORBELL_SHIFT);
  if (tsl_irq_enable(TSL_IRQ_EXTERNAL, true) != TSL_OK) tsl_exit(91);
  tsl_irq_global_enable();
  hif_write(TSL_HOSTIF_FW_STATUS_OFFSET, 1u); /* ready */
  for (;;) {
    serve();
    while (!g_doorbell) hif_write(TSL_HOSTIF_HEARTBEAT_OFFSET, hif_read(TSL_HOSTIF_HEARTBEAT_OFFSET) + 1u);
    g_doorbell = 0;
  }
}
