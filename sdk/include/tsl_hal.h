/* Tessel SDK hardware-access layer for the RV32IM control core: MMIO accessors, console, exit,
 * machine timer and interrupt/exception handler registration. Every symbol starts with tsl_.
 * Register addresses come from the generated hw/include/tsl_hw.h only. */
#ifndef TSL_HAL_H
#define TSL_HAL_H

#include <stdbool.h>
#include <stdint.h>

#include "tsl_hw.h"

/* Status codes: tsl_status_t of tsl_hw.h, generated from the spec and shared with the firmware and
 * the golden model: TSL_OK, or a negative error (TSL_EINVAL: bad argument, no hardware was touched;
 * TSL_ERANGE; TSL_ETIMEOUT; TSL_EDEVICE: the hardware reported an error). */

/* Human-readable text for a status; never NULL. */
const char *tsl_strerror(tsl_status_t status);

/* mcause values. */
#define TSL_MCAUSE_IRQ_FLAG 0x80000000u
#define TSL_MCAUSE_MISALIGNED_FETCH 0u
#define TSL_MCAUSE_FETCH_FAULT 1u
#define TSL_MCAUSE_ILLEGAL 2u
#define TSL_MCAUSE_BREAKPOINT 3u
#define TSL_MCAUSE_MISALIGNED_LOAD 4u
#define TSL_MCAUSE_LOAD_FAULT 5u
#define TSL_MCAUSE_MISALIGNED_STORE 6u
#define TSL_MCAUSE_STORE_FAULT 7u
#define TSL_MCAUSE_ECALL_M 11u
#define TSL_MCAUSE_TIMER_IRQ (TSL_MCAUSE_IRQ_FLAG | 7u)
#define TSL_MCAUSE_EXT_IRQ (TSL_MCAUSE_IRQ_FLAG | 11u)

/* Registers saved by the trap entry (sdk/crt0.S). A handler may change any field; the new values
 * are restored on return, so an exception handler skips the faulting instruction with
 * frame->mepc += 4. */
typedef struct {
  uint32_t ra, t0, t1, t2, a0, a1, a2, a3, a4, a5, a6, a7, t3, t4, t5, t6;
  uint32_t mepc, mcause, mtval, reserved;
} tsl_trap_frame_t;

/* Handler for one trap kind; ctx is the pointer given at registration (owned by the caller). */
typedef void (*tsl_trap_handler_t)(tsl_trap_frame_t *frame, void *ctx);

/* Interrupt sources a handler can be registered for. */
typedef enum { TSL_IRQ_TIMER = 0, TSL_IRQ_EXTERNAL = 1, TSL_IRQ_COUNT = 2 } tsl_irq_t;

/* --- MMIO ------------------------------------------------------------------------------------ */
static inline uint32_t tsl_mmio_read32(uintptr_t addr) { return *(volatile uint32_t *)addr; }
static inline void tsl_mmio_write32(uintptr_t addr, uint32_t value) {
  *(volatile uint32_t *)addr = value;
}
/* SYS register access by generated offset (TSL_SYS_<REG>_OFFSET). */
static inline uint32_t tsl_sys_read(uint32_t offset) {
  return tsl_mmio_read32(TSL_MMAP_SYS_BASE + offset);
}
static inline void tsl_sys_write(uint32_t offset, uint32_t value) {
  tsl_mmio_write32(TSL_MMAP_SYS_BASE + offset, value);
}

/* --- console and exit ------------------------------------------------------------------------- */
/* Write one byte to the console. printf/puts go here too (stdout is hooked up by tsl_hal.c). */
void tsl_console_putc(char c);
/* Write a NUL-terminated string (s must not be NULL). */
void tsl_console_puts(const char *s);
/* End the simulation with this exit code; does not return. */
void tsl_exit(int code) __attribute__((noreturn));

/* --- machine timer ------------------------------------------------------------------------------ */
/* Current 64-bit mtime (cycles since reset), read consistently across the two halves. */
uint64_t tsl_timer_now(void);
/* Set mtimecmp; the timer interrupt is pending while mtime >= mtimecmp. */
void tsl_timer_set_cmp(uint64_t cmp);

/* --- interrupts and exceptions ------------------------------------------------------------------- */
/* Register handler for an interrupt source (NULL removes it). Does not enable the interrupt.
 * Returns TSL_EINVAL for an unknown source. */
__attribute__((warn_unused_result)) tsl_status_t tsl_irq_set_handler(tsl_irq_t irq,
                                                                     tsl_trap_handler_t handler,
                                                                     void *ctx);
/* Register handler for synchronous exceptions with mcause < 16 (NULL restores the default, which
 * prints the trap and exits with code 128 + mcause). Returns TSL_EINVAL for a bad mcause. */
__attribute__((warn_unused_result)) tsl_status_t tsl_exc_set_handler(uint32_t mcause,
                                                                     tsl_trap_handler_t handler,
                                                                     void *ctx);
/* Enable or disable an interrupt source in mie (MTIE/MEIE). Returns TSL_EINVAL for a bad source. */
__attribute__((warn_unused_result)) tsl_status_t tsl_irq_enable(tsl_irq_t irq, bool enable);
/* Set SYS.IRQ_ENABLE: which external sources (TSL_SYS_IRQ_STATUS_* bits) raise MEIP. */
void tsl_irq_set_ext_mask(uint32_t mask);
/* Global interrupt enable (mstatus.MIE). */
void tsl_irq_global_enable(void);
void tsl_irq_global_disable(void);

/* C entry from the trap vector (sdk/crt0.S); not for direct use. */
void tsl_trap_dispatch(tsl_trap_frame_t *frame);

/* --- CSR helpers -------------------------------------------------------------------------------- */
#define TSL_CSR_READ(csr)                                 \
  ({                                                      \
    uint32_t tsl_csr_v_;                                  \
    __asm__ volatile("csrr %0, " #csr : "=r"(tsl_csr_v_)); \
    tsl_csr_v_;                                           \
  })
#define TSL_CSR_WRITE(csr, v) __asm__ volatile("csrw " #csr ", %0" ::"r"((uint32_t)(v)))
#define TSL_CSR_SET(csr, v) __asm__ volatile("csrs " #csr ", %0" ::"r"((uint32_t)(v)))
#define TSL_CSR_CLEAR(csr, v) __asm__ volatile("csrc " #csr ", %0" ::"r"((uint32_t)(v)))

/* 64-bit cycle and retired-instruction counters. */
uint64_t tsl_cycles(void);
uint64_t tsl_instret(void);

#endif /* TSL_HAL_H */
