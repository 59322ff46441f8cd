/* Tessel SDK hardware-access layer: see tsl_hal.h. */
#include "tsl_hal.h"

#include <stdio.h>

#define TSL_MSTATUS_MIE (1u << 3)
#define TSL_MIE_MTIE (1u << 7)
#define TSL_MIE_MEIE (1u << 11)
#define TSL_NUM_EXC 16u

typedef struct {
  tsl_trap_handler_t fn;
  void *ctx;
} tsl_handler_slot_t;

static tsl_handler_slot_t tsl_irq_handlers[TSL_IRQ_COUNT];
static tsl_handler_slot_t tsl_exc_handlers[TSL_NUM_EXC];

const char *tsl_strerror(tsl_status_t status) { return tsl_status_text(status); }

void tsl_console_putc(char c) { tsl_sys_write(TSL_SYS_CONSOLE_OFFSET, (uint8_t)c); }

void tsl_console_puts(const char *s) {
  while (*s) tsl_console_putc(*s++);
}

/* "0x" and eight hex digits, without printf: a program that does not print itself (the firmware)
 * then links no printf for the trap message. */
static void tsl_console_hex32(uint32_t v) {
  tsl_console_puts("0x");
  for (int shift = 28; shift >= 0; shift -= 4) tsl_console_putc("0123456789abcdef"[(v >> shift) & 0xfu]);
}

void tsl_exit(int code) {
  tsl_sys_write(TSL_SYS_EXIT_OFFSET, (uint32_t)code);
  for (;;) {
  }
}

/* picolibc hooks: stdout/stderr go to the console, exit() ends in _exit(). */
static int tsl_stdio_put(char c, FILE *file) {
  (void)file;
  tsl_console_putc(c);
  return (unsigned char)c;
}
static FILE tsl_stdio = FDEV_SETUP_STREAM(tsl_stdio_put, NULL, NULL, _FDEV_SETUP_WRITE);
FILE *const stdin = &tsl_stdio;
FILE *const stdout = &tsl_stdio;
FILE *const stderr = &tsl_stdio;

void _exit(int code);
void _exit(int code) { tsl_exit(code); }

uint64_t tsl_timer_now(void) {
  uint32_t hi, lo, hi2;
  do {
    hi = tsl_sys_read(TSL_SYS_MTIME_HI_OFFSET);
    lo = tsl_sys_read(TSL_SYS_MTIME_LO_OFFSET);
    hi2 = tsl_sys_read(TSL_SYS_MTIME_HI_OFFSET);
  } while (hi != hi2);
  return ((uint64_t)hi << 32) | lo;
}

void tsl_timer_set_cmp(uint64_t cmp) {
  /* Park the high word at all ones first so no spurious match happens between the writes. */
  tsl_sys_write(TSL_SYS_MTIMECMP_HI_OFFSET, 0xffffffffu);
  tsl_sys_write(TSL_SYS_MTIMECMP_LO_OFFSET, (uint32_t)cmp);
  tsl_sys_write(TSL_SYS_MTIMECMP_HI_OFFSET, (uint32_t)(cmp >> 32));
}

tsl_status_t tsl_irq_set_handler(tsl_irq_t irq, tsl_trap_handler_t handler, void *ctx) {
  if ((unsigned)irq >= TSL_IRQ_COUNT) return TSL_EINVAL;
  tsl_irq_handlers[irq].fn = handler;
  tsl_irq_handlers[irq].ctx = ctx;
  return TSL_OK;
}

tsl_status_t tsl_exc_set_handler(uint32_t mcause, tsl_trap_handler_t handler, void *ctx) {
  if (mcause >= TSL_NUM_EXC) return TSL_EINVAL;
  tsl_exc_handlers[mcause].fn = handler;
  tsl_exc_handlers[mcause].ctx = ctx;
  return TSL_OK;
}

tsl_status_t tsl_irq_enable(tsl_irq_t irq, bool enable) {
  uint32_t bit;
  switch (irq) {
    case TSL_IRQ_TIMER: bit = TSL_MIE_MTIE; break;
    case TSL_IRQ_EXTERNAL: bit = TSL_MIE_MEIE; break;
    default: return TSL_EINVAL;
  }
  if (enable) {
    TSL_CSR_SET(mie, bit);
  } else {
    TSL_CSR_CLEAR(mie, bit);
  }
  return TSL_OK;
}

void tsl_irq_set_ext_mask(uint32_t mask) { tsl_sys_write(TSL_SYS_IRQ_ENABLE_OFFSET, mask); }
void tsl_irq_global_enable(void) { TSL_CSR_SET(mstatus, TSL_MSTATUS_MIE); }
void tsl_irq_global_disable(void) { TSL_CSR_CLEAR(mstatus, TSL_MSTATUS_MIE); }

uint64_t tsl_cycles(void) {
  uint32_t hi, lo, hi2;
  do {
    hi = TSL_CSR_READ(mcycleh);
    lo = TSL_CSR_READ(mcycle);
    hi2 = TSL_CSR_READ(mcycleh);
  } while (hi != hi2);
  return ((uint64_t)hi << 32) | lo;
}

uint64_t tsl_instret(void) {
  uint32_t hi, lo, hi2;
  do {
    hi = TSL_CSR_READ(minstreth);
    lo = TSL_CSR_READ(minstret);
    hi2 = TSL_CSR_READ(minstreth);
  } while (hi != hi2);
  return ((uint64_t)hi << 32) | lo;
}

void tsl_trap_dispatch(tsl_trap_frame_t *frame) {
  uint32_t cause = frame->mcause;
  tsl_handler_slot_t *slot = NULL;
  if (cause == TSL_MCAUSE_TIMER_IRQ) {
    slot = &tsl_irq_handlers[TSL_IRQ_TIMER];
  } else if (cause == TSL_MCAUSE_EXT_IRQ) {
    slot = &tsl_irq_handlers[TSL_IRQ_EXTERNAL];
  } else if (cause < TSL_NUM_EXC) {
    slot = &tsl_exc_handlers[cause];
  }
  if (slot && slot->fn) {
    slot->fn(frame, slot->ctx);
    return;
  }
  tsl_console_puts("tsl: unhandled trap mcause=");
  tsl_console_hex32(cause);
  tsl_console_puts(" mepc=");
  tsl_console_hex32(frame->mepc);
  tsl_console_puts(" mtval=");
  tsl_console_hex32(frame->mtval);
  tsl_console_putc('\n');
  tsl_exit(128 + (int)(cause & 0x7fu));
}
