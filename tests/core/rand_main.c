/* Driver of a random program from rvgen.py: runs it and prints its signature (x1..x31 except
 * sp/gp/tp, mscratch, and an FNV-1a hash per 64-byte block of the 4 KiB data area). The output
 * must be identical on the Tessel core and on QEMU. Lines starting with '#' are informational
 * and not compared (the core build adds the retired-instruction count there). */
#include <stdint.h>
#include <stdio.h>

void rand_run(void);
extern uint32_t rand_sig[33];
extern uint8_t rand_data[4096];

int main(void) {
#ifdef TSL_SOC
  uint32_t i0, i1;
  __asm__ volatile("csrr %0, minstret" : "=r"(i0));
#endif
  rand_run();
#ifdef TSL_SOC
  __asm__ volatile("csrr %0, minstret" : "=r"(i1));
  printf("# rand instret %lu\n", (unsigned long)(i1 - i0));
#endif
  for (int r = 1; r < 32; r++) {
    if (r >= 2 && r <= 4) continue;
    printf("x%d %08lx\n", r, (unsigned long)rand_sig[r]);
  }
  printf("mscratch %08lx\n", (unsigned long)rand_sig[32]);
  for (int blk = 0; blk < 64; blk++) {
    uint32_t h = 2166136261u;
    for (int i = 0; i < 64; i++) h = (h ^ rand_data[blk * 64 + i]) * 16777619u;
    printf("mem[%04x] %08lx\n", blk * 64, (unsigned long)h);
  }
  return 0;
}
