/* Tessel control-subsystem test (core build only: QEMU has no such SoC and emulates misaligned
 * accesses instead of trapping). Covers misaligned load/store traps, access faults on unmapped
 * addresses (load, store, fetch), the SYS registers, the external bus window with back-pressure,
 * timer and external interrupt delivery/masking/priority, WFI, and exact counter behaviour.
 * Uses the SDK HAL for handlers. Prints `soc: N passed, M failed`. */
#include <stdint.h>
#include <stdio.h>

#include "tsl_hal.h"

static unsigned passed, failed;

static void check(const char *name, uint32_t got, uint32_t expected) {
  if (got == expected) {
    passed++;
  } else {
    failed++;
    printf("FAIL %s: expected 0x%08lx got 0x%08lx\n", name, (unsigned long)expected,
           (unsigned long)got);
  }
}

#define MUST(call) check(#call, (uint32_t)(call), TSL_OK)

/* --- exceptions ------------------------------------------------------------------------------ */
static volatile uint32_t exc_count, exc_cause, exc_epc, exc_tval;

static void on_exception(tsl_trap_frame_t *f, void *ctx) {
  (void)ctx;
  exc_count++;
  exc_cause = f->mcause;
  exc_epc = f->mepc;
  exc_tval = f->mtval;
  /* A fetch fault has no instruction to skip: return to the caller instead. */
  f->mepc = (f->mcause == TSL_MCAUSE_FETCH_FAULT) ? f->ra : f->mepc + 4;
}

static void expect_exc(const char *name, uint32_t c0, uint32_t cause, uint32_t epc, uint32_t tval) {
  char buf[64];
  snprintf(buf, sizeof buf, "%s: trapped once", name);
  check(buf, exc_count - c0, 1);
  snprintf(buf, sizeof buf, "%s: mcause", name);
  check(buf, exc_cause, cause);
  snprintf(buf, sizeof buf, "%s: mepc", name);
  check(buf, exc_epc, epc);
  snprintf(buf, sizeof buf, "%s: mtval", name);
  check(buf, exc_tval, tval);
}

/* One load with a5 preset; returns the instruction address, updates *a5. */
#define LOAD_AT(insn, base, off, a5_io)                                                   \
  ({                                                                                     \
    uint32_t at_;                                                                        \
    register uint32_t a5_ __asm__("a5") = (a5_io);                                       \
    __asm__ volatile("la %0, 1f\n1: " insn " a5, " #off "(%2)"                           \
                     : "=&r"(at_), "+r"(a5_)                                             \
                     : "r"(base)                                                         \
                     : "memory");                                                        \
    (a5_io) = a5_;                                                                       \
    at_;                                                                                 \
  })
#define STORE_AT(insn, base, off, val)                                                   \
  ({                                                                                     \
    uint32_t at_;                                                                        \
    __asm__ volatile("la %0, 1f\n1: " insn " %2, " #off "(%1)"                           \
                     : "=&r"(at_)                                                        \
                     : "r"(base), "r"(val)                                               \
                     : "memory");                                                        \
    at_;                                                                                 \
  })

static volatile uint32_t buf[4] = {0x11223344u, 0x55667788u, 0x99aabbccu, 0xddeeff00u};

static void test_misaligned(void) {
  uintptr_t b = (uintptr_t)buf;
  uint32_t c, at, v;
  static const char *names[] = {"lh +1", "lhu +3", "lw +1", "lw +2", "lw +3"};
  for (int i = 0; i < 5; i++) {
    c = exc_count;
    v = 0xa5a5a5a5u;
    switch (i) {
      case 0: at = LOAD_AT("lh", b, 1, v); expect_exc(names[i], c, 4, at, b + 1); break;
      case 1: at = LOAD_AT("lhu", b, 3, v); expect_exc(names[i], c, 4, at, b + 3); break;
      case 2: at = LOAD_AT("lw", b, 1, v); expect_exc(names[i], c, 4, at, b + 1); break;
      case 3: at = LOAD_AT("lw", b, 2, v); expect_exc(names[i], c, 4, at, b + 2); break;
      default: at = LOAD_AT("lw", b, 3, v); expect_exc(names[i], c, 4, at, b + 3); break;
    }
    check("misaligned load leaves rd", v, 0xa5a5a5a5u);
  }
  c = exc_count;
  at = STORE_AT("sh", b, 5, 0xffffffffu);
  expect_exc("sh +5", c, 6, at, b + 5);
  c = exc_count;
  at = STORE_AT("sw", b, 6, 0xffffffffu);
  expect_exc("sw +6", c, 6, at, b + 6);
  check("misaligned stores leave memory", buf[1], 0x55667788u);
  /* Aligned sub-word accesses at every legal offset do not trap. */
  c = exc_count;
  v = 0;
  LOAD_AT("lbu", b, 3, v);
  check("lbu +3", v, 0x11);
  LOAD_AT("lh", b, 2, v);
  check("lh +2", v, 0x1122);
  LOAD_AT("lb", b, 11, v);
  check("lb +11", v, 0xffffff99u);
  check("aligned accesses do not trap", exc_count - c, 0);
}

static void test_access_faults(void) {
  static const uint32_t bad[] = {0x00000000u, 0x50000000u, 0x10000020u, 0x10000ffcu,
                                 0x10002000u, 0x10011000u, 0x44000000u, 0x80010000u};
  for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char name[40];
    uint32_t c = exc_count, v = 0xa5a5a5a5u, at;
    snprintf(name, sizeof name, "load fault @%08lx", (unsigned long)bad[i]);
    at = LOAD_AT("lw", bad[i], 0, v);
    expect_exc(name, c, 5, at, bad[i]);
    check("faulting load leaves rd", v, 0xa5a5a5a5u);
    c = exc_count;
    snprintf(name, sizeof name, "store fault @%08lx", (unsigned long)bad[i]);
    at = STORE_AT("sw", bad[i], 0, 0x1234u);
    expect_exc(name, c, 7, at, bad[i]);
  }
  uint32_t c = exc_count;
  void (*fn)(void) = (void (*)(void))0x50000000u;
  fn();
  expect_exc("fetch fault", c, 1, 0x50000000u, 0x50000000u);
}

/* --- SYS registers and the external window ------------------------------------------------------ */
static void test_sys_regs(uint32_t cmp_lo_at_reset, uint32_t cmp_hi_at_reset) {
  check("MTIMECMP_LO reset", cmp_lo_at_reset, 0xffffffffu);
  check("MTIMECMP_HI reset", cmp_hi_at_reset, 0xffffffffu);
  uint32_t t0 = tsl_sys_read(TSL_SYS_MTIME_LO_OFFSET);
  uint32_t t1 = tsl_sys_read(TSL_SYS_MTIME_LO_OFFSET);
  check("MTIME counts", t1 - t0 > 0 && t1 - t0 < 100, 1);
  uint32_t hi = tsl_sys_read(TSL_SYS_MTIME_HI_OFFSET);
  tsl_sys_write(TSL_SYS_MTIME_HI_OFFSET, hi + 7);
  check("MTIME_HI writable", tsl_sys_read(TSL_SYS_MTIME_HI_OFFSET), hi + 7);
  tsl_sys_write(TSL_SYS_MTIME_HI_OFFSET, hi);
  tsl_sys_write(TSL_SYS_MTIMECMP_LO_OFFSET, 0x12345678u);
  check("MTIMECMP_LO rw", tsl_sys_read(TSL_SYS_MTIMECMP_LO_OFFSET), 0x12345678u);
  tsl_sys_write(TSL_SYS_MTIMECMP_LO_OFFSET, 0xffffffffu);
  check("IRQ_STATUS idle", tsl_sys_read(TSL_SYS_IRQ_STATUS_OFFSET), 0);
  tsl_irq_set_ext_mask(0xffffffffu);
  check("IRQ_ENABLE has 2 bits", tsl_sys_read(TSL_SYS_IRQ_ENABLE_OFFSET), 3);
  tsl_irq_set_ext_mask(0);
  check("IRQ_ENABLE clear", tsl_sys_read(TSL_SYS_IRQ_ENABLE_OFFSET), 0);
}

/* The test SoC ties the external port to a responder with 15 scratch words and an IRQ register at
 * word 15, aliased over the host-interface, tensor-core and HBM windows, with random wait states. */
#define STUB_IRQ (TSL_MMAP_TC_BASE + 0x3c)

static void test_ext_window(void) {
  volatile uint32_t *tc = (volatile uint32_t *)TSL_MMAP_TC_BASE;
  volatile uint32_t *host = (volatile uint32_t *)TSL_MMAP_HOSTIF_BASE;
  volatile uint32_t *hbm = (volatile uint32_t *)(TSL_MMAP_HBM_BASE + TSL_MMAP_HBM_BYTES - 64);
  uint32_t c = exc_count;
  for (uint32_t i = 0; i < 15; i++) tc[i] = 0x1000u * i + 0xabu;
  uint32_t ok = 1;
  for (uint32_t i = 0; i < 15; i++) ok &= (tc[i] == 0x1000u * i + 0xabu);
  check("ext window: 15 words write/read", ok, 1);
  host[2] = 0xcafef00du;
  check("ext window: host interface range", host[2], 0xcafef00du);
  hbm[3] = 0x0badbeefu;
  check("ext window: last HBM bytes", hbm[3], 0x0badbeefu);
  ((volatile uint8_t *)tc)[4 * 5 + 2] = 0x77;
  check("ext window: byte write", tc[5], 0x7750abu);
  ((volatile uint16_t *)tc)[2 * 6 + 1] = 0x1234;
  check("ext window: halfword write", tc[6], 0x123460abu);
  check("ext window: no faults", exc_count - c, 0);
}

/* --- interrupts --------------------------------------------------------------------------------- */
static volatile uint32_t irq_count, irq_cause[4], irq_status_seen;
static volatile uint64_t irq_mtime_seen;

static void on_timer(tsl_trap_frame_t *f, void *ctx) {
  (void)ctx;
  if (irq_count < 4) irq_cause[irq_count] = f->mcause;
  irq_count++;
  irq_mtime_seen = tsl_timer_now();
  tsl_timer_set_cmp(~0ull); /* acknowledge */
}

static void on_external(tsl_trap_frame_t *f, void *ctx) {
  (void)ctx;
  if (irq_count < 4) irq_cause[irq_count] = f->mcause;
  irq_count++;
  irq_status_seen = tsl_sys_read(TSL_SYS_IRQ_STATUS_OFFSET);
  tsl_mmio_write32(STUB_IRQ, 0); /* acknowledge at the source */
}

static uint32_t wait_irqs(uint32_t n) {
  for (uint32_t spin = 0; spin < 20000 && irq_count < n; spin++) {
  }
  return irq_count;
}

static void test_timer_irq(void) {
  MUST(tsl_irq_set_handler(TSL_IRQ_TIMER, on_timer, NULL));
  MUST(tsl_irq_enable(TSL_IRQ_TIMER, true));
  /* Pending but globally disabled: visible in mip, not taken. */
  tsl_timer_set_cmp(0);
  check("MTIP visible in mip", (TSL_CSR_READ(mip) >> 7) & 1, 1);
  for (volatile int i = 0; i < 50; i++) {
  }
  check("MIE=0 blocks the timer interrupt", irq_count, 0);
  tsl_timer_set_cmp(~0ull);
  check("MTIP clears", (TSL_CSR_READ(mip) >> 7) & 1, 0);
  /* Delivery. */
  uint64_t cmp = tsl_timer_now() + 400;
  tsl_timer_set_cmp(cmp);
  tsl_irq_global_enable();
  check("timer interrupt taken once", wait_irqs(1), 1);
  check("timer mcause", irq_cause[0], TSL_MCAUSE_TIMER_IRQ);
  check("taken at or after mtimecmp", irq_mtime_seen >= cmp, 1);
  check("MIE restored by mret", TSL_CSR_READ(mstatus) & 8, 8);
  /* WFI then wake up (WFI is a no-op here; the loop re-executes it until the interrupt). */
  tsl_timer_set_cmp(tsl_timer_now() + 200);
  while (irq_count < 2) __asm__ volatile("wfi");
  check("wfi loop woken by timer", irq_count, 2);
  tsl_irq_global_disable();
  MUST(tsl_irq_enable(TSL_IRQ_TIMER, false));
}

static void test_external_irq(void) {
  irq_count = 0;
  MUST(tsl_irq_set_handler(TSL_IRQ_EXTERNAL, on_external, NULL));
  MUST(tsl_irq_enable(TSL_IRQ_EXTERNAL, true));
  tsl_irq_global_enable();
  /* Source raised but not enabled in IRQ_ENABLE: no MEIP. */
  tsl_irq_set_ext_mask(1u << TSL_SYS_IRQ_STATUS_TC_SHIFT);
  tsl_mmio_write32(STUB_IRQ, 1u << TSL_SYS_IRQ_STATUS_DOORBELL_SHIFT);
  check("IRQ_STATUS shows doorbell", tsl_sys_read(TSL_SYS_IRQ_STATUS_OFFSET), 1);
  check("masked source: no MEIP", (TSL_CSR_READ(mip) >> 11) & 1, 0);
  check("masked source: no interrupt", irq_count, 0);
  tsl_mmio_write32(STUB_IRQ, 0);
  /* Enabled source: delivered with mcause 11 | interrupt flag. */
  tsl_mmio_write32(STUB_IRQ, 1u << TSL_SYS_IRQ_STATUS_TC_SHIFT);
  check("external interrupt taken once", wait_irqs(1), 1);
  check("external mcause", irq_cause[0], TSL_MCAUSE_EXT_IRQ);
  check("IRQ_STATUS in handler", irq_status_seen, 2);
  /* mie.MEIE = 0 blocks it. */
  MUST(tsl_irq_enable(TSL_IRQ_EXTERNAL, false));
  tsl_mmio_write32(STUB_IRQ, 2);
  check("MEIP visible in mip", (TSL_CSR_READ(mip) >> 11) & 1, 1);
  for (volatile int i = 0; i < 50; i++) {
  }
  check("MEIE=0 blocks", irq_count, 1);
  /* Both pending when MIE opens: external before timer. */
  tsl_irq_global_disable();
  MUST(tsl_irq_enable(TSL_IRQ_EXTERNAL, true));
  MUST(tsl_irq_enable(TSL_IRQ_TIMER, true));
  tsl_timer_set_cmp(0);
  irq_count = 0;
  tsl_irq_global_enable();
  check("two interrupts", wait_irqs(2), 2);
  check("priority: external first", irq_cause[0], TSL_MCAUSE_EXT_IRQ);
  check("priority: timer second", irq_cause[1], TSL_MCAUSE_TIMER_IRQ);
  tsl_irq_global_disable();
  tsl_irq_set_ext_mask(0);
}

/* --- counters --------------------------------------------------------------------------------- */
static void test_counters(void) {
  uint32_t i0, i1, c0, c1;
  /* minstret counts retired instructions: the first csrr plus ten nops between the reads.
   * mcycle: 1 cycle per such instruction (the documented CPI of straight-line ALU/CSR ops). */
  __asm__ volatile(
      "csrr %0, minstret\n csrr %2, mcycle\n nop\n nop\n nop\n nop\n nop\n nop\n nop\n nop\n nop\n"
      "csrr %1, minstret\n csrr %3, mcycle"
      : "=&r"(i0), "=&r"(i1), "=&r"(c0), "=&r"(c1));
  check("minstret delta", i1 - i0, 11);
  check("mcycle delta", c1 - c0, 11);
  __asm__ volatile("csrr %0, cycle\n csrr %1, mcycle" : "=&r"(c0), "=&r"(c1));
  check("cycle alias", c1 - c0, 1);
  __asm__ volatile("csrr %0, instret\n csrr %1, minstret" : "=&r"(i0), "=&r"(i1));
  check("instret alias", i1 - i0, 1);
  /* Zicsr: a write replaces the writing instruction's own increment, so the next instruction
   * reads exactly the value written. */
  __asm__ volatile("csrw minstret, zero\n csrr %0, minstret" : "=r"(i0));
  check("minstret write", i0, 0);
  __asm__ volatile("csrw mcycleh, %1\n csrr %0, mcycleh" : "=r"(c0) : "r"(0x55u));
  check("mcycleh write", c0, 0x55);
  __asm__ volatile("csrw minstreth, %1\n csrr %0, minstreth" : "=r"(i0) : "r"(0x66u));
  check("minstreth write", i0, 0x66);
}

int main(void) {
  uint32_t cmp_lo = tsl_sys_read(TSL_SYS_MTIMECMP_LO_OFFSET);
  uint32_t cmp_hi = tsl_sys_read(TSL_SYS_MTIMECMP_HI_OFFSET);
  check("bad handler index rejected", (uint32_t)tsl_exc_set_handler(99, on_exception, NULL),
        (uint32_t)TSL_EINVAL);
  check("bad irq rejected", (uint32_t)tsl_irq_enable((tsl_irq_t)7, true), (uint32_t)TSL_EINVAL);
  for (uint32_t c = 0; c < 8; c++) MUST(tsl_exc_set_handler(c, on_exception, NULL));
  test_misaligned();
  test_access_faults();
  test_sys_regs(cmp_lo, cmp_hi);
  test_ext_window();
  test_timer_irq();
  test_external_irq();
  test_counters();
  printf("soc: %u passed, %u failed\n", passed, failed);
  return failed != 0;
}
