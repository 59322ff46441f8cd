/* Test protocol between tests/soc/host_fw.c (firmware on the control core) and the host side of
 * hw/sim/soc/soc_host_test.cpp. Test-only opcodes (0x80+) in the CMD_OP field of a standard
 * 64-byte command entry (docs/isa.md §7); completions use the standard 16-byte format. */
#ifndef TSL_HOST_PROTO_H
#define TSL_HOST_PROTO_H

#define TSL_TEST_BOOT_COUNT 0x100u /* HBM word: the firmware adds 1 at every boot */
#define TSL_TEST_OP_SUM 0x80u      /* C_ADDR word = sum of M words at A_ADDR; DETAIL = the sum */
/* TC DMA copies M rows of N bytes A_ADDR (stride LDA) -> VMEM 0 -> C_ADDR (stride LDC) while the
 * core writes and reads back pattern(SCALE, i) over K words at B_ADDR; DETAIL = core mismatches. */
#define TSL_TEST_OP_STRESS 0x81u
#define TSL_TEST_OP_EXIT 0x82u /* posts its completion, then exits with code SCALE */

/* Test data pattern, word i of a region seeded by seed. */
static inline uint32_t tsl_test_pattern(uint32_t seed, uint32_t i) {
  uint32_t x = seed ^ (i * 0x9E3779B9u);
  x ^= x >> 16;
  x *= 0x85EBCA6Bu;
  x ^= x >> 13;
  return x;
}

#endif /* TSL_HOST_PROTO_H */
