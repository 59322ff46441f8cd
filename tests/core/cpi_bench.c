/* Cycles per instruction class on the Tessel core (`make bench-core`): mcycle is read before and
 * after 100 copies of one instruction; the cost of the mcycle read itself, measured with an empty
 * block, is subtracted. Core only (QEMU's mcycle is not a cycle count). */
#include <stdint.h>
#include <stdio.h>

#define BLOCK(name, setup, insn)                                                            \
  do {                                                                                    \
    uint32_t b0_, b1_;                                                                    \
    __asm__ volatile(setup "\n csrr %0, mcycle\n .rept 100\n " insn "\n .endr\n csrr %1, mcycle" \
                     : "=&r"(b0_), "=&r"(b1_)::"t0", "t1", "t2", "memory");               \
    report(name, b1_ - b0_);                                                              \
  } while (0)

static uint32_t overhead;
static volatile uint32_t word;

static void report(const char *name, uint32_t cycles) {
  uint32_t net = cycles - overhead;
  printf("cpi_bench: %-22s %lu.%02lu cycles\n", name, (unsigned long)(net / 100),
         (unsigned long)(net % 100));
}

int main(void) {
  uint32_t c0, c1;
  __asm__ volatile("csrr %0, mcycle\n csrr %1, mcycle" : "=&r"(c0), "=&r"(c1));
  overhead = c1 - c0;
  printf("cpi_bench: overhead of the mcycle read %lu cycles\n", (unsigned long)overhead);
  BLOCK("addi", "", "addi t0, t0, 1");
  BLOCK("add", "", "add t0, t0, t1");
  BLOCK("lui", "", "lui t0, 0x12345");
  BLOCK("csrr mscratch", "", "csrr t0, mscratch");
  BLOCK("lw", "la t1, word", "lw t0, 0(t1)");
  BLOCK("sw", "la t1, word", "sw t0, 0(t1)");
  BLOCK("lb", "la t1, word", "lb t0, 1(t1)");
  BLOCK("beq not taken", "li t0, 1", "beq t0, zero, .+8");
  BLOCK("beq taken", "", "beq zero, zero, .+4");
  BLOCK("jal", "", "jal t2, .+4");
  BLOCK("mul", "li t1, 12345", "mul t0, t1, t1");
  BLOCK("mulh", "li t1, -12345", "mulh t0, t1, t1");
  BLOCK("div", "li t1, 12345", "div t0, t1, t1");
  BLOCK("remu", "li t1, 12345", "remu t0, t1, t1");
  return 0;
}
