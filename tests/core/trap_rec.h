/* Shared by the portable trap tests: the recorder in trap_rec.S and a tiny check library. */
#ifndef TRAP_REC_H
#define TRAP_REC_H

#include <stdint.h>
#include <stdio.h>

typedef struct {
  volatile uint32_t mcause, mepc, mtval, mstatus, count, saved_t1, resume;
} trap_rec_t;

extern trap_rec_t trap_rec;
void trap_rec_entry(void);

#define TR_STR2(x) #x
#define TR_STR(x) TR_STR2(x)
#define CSR_READ(csr)                                  \
  ({                                                   \
    uint32_t v_;                                       \
    __asm__ volatile("csrr %0, " #csr : "=r"(v_));     \
    v_;                                                \
  })
#define CSR_WRITE(csr, v) __asm__ volatile("csrw " #csr ", %0" ::"r"((uint32_t)(v)))

static unsigned tr_passed, tr_failed;

/* Compare one value; prints the first mismatches with name, expected and got. */
static void check(const char *name, uint32_t got, uint32_t expected) {
  if (got == expected) {
    tr_passed++;
  } else {
    tr_failed++;
    printf("FAIL %s: expected 0x%08lx got 0x%08lx\n", name, (unsigned long)expected,
           (unsigned long)got);
  }
}

/* For behaviour where QEMU 7.2 departs from the privileged spec (mtval of a misaligned JAL or
 * taken branch: QEMU reports the translation block's start PC instead of the target). Checked on
 * the core only, counted in its own `core_only:` line, which the QEMU diff does not compare. */
#ifdef TSL_SOC
static unsigned tr_core_passed, tr_core_failed;
#endif
static void check_core_only(const char *name, uint32_t got, uint32_t expected) {
#ifdef TSL_SOC
  if (got == expected) {
    tr_core_passed++;
  } else {
    tr_core_failed++;
    printf("FAIL %s: expected 0x%08lx got 0x%08lx\n", name, (unsigned long)expected,
           (unsigned long)got);
  }
#else
  (void)name;
  (void)got;
  (void)expected;
#endif
}

static void trap_rec_install(void) {
  CSR_WRITE(mtvec, (uintptr_t)trap_rec_entry);
  trap_rec.count = 0;
  trap_rec.resume = 0;
}

#endif
