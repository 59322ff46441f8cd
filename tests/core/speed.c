/* Simulation-speed workload for `make bench-core`: a mixed loop (loads, stores, multiplies,
 * branches) of a few million instructions; prints a checksum so the work cannot be optimised out. */
#include <stdint.h>
#include <stdio.h>

static uint32_t table[256];

int main(void) {
  uint32_t h = 1;
  for (uint32_t i = 0; i < 256; i++) table[i] = i * 2654435761u;
  for (uint32_t round = 0; round < 4000; round++) {
    for (uint32_t i = 0; i < 256; i += 4) {
      h = (h ^ table[i]) * 16777619u;
      table[(i + round) & 255] += h >> 7;
      if (h & 1) h += round;
    }
  }
  printf("speed: checksum %08lx\n", (unsigned long)h);
  return 0;
}
