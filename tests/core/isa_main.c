/* Driver of the generated RV32IM instruction test (gen_isa.py). Runs on the Tessel core and on
 * QEMU alike: prints each failing case (id, got, expected) and `isa: N passed, M failed`. */
#include <stdint.h>
#include <stdio.h>

typedef struct {
  uint32_t failures;
  uint32_t entry[32][3]; /* case id, got, expected */
} isa_log_t;

uint32_t isa_run(isa_log_t *log);
extern const uint32_t isa_ncases;

static isa_log_t isa_log;

int main(void) {
  uint32_t executed = isa_run(&isa_log);
  uint32_t failed = isa_log.failures;
  for (uint32_t i = 0; i < failed && i < 32; i++) {
    printf("isa: case %lu FAILED: got 0x%08lx expected 0x%08lx\n", (unsigned long)isa_log.entry[i][0],
           (unsigned long)isa_log.entry[i][1], (unsigned long)isa_log.entry[i][2]);
  }
  if (executed != isa_ncases) {
    printf("isa: only %lu of %lu cases executed (control flow broken)\n", (unsigned long)executed,
           (unsigned long)isa_ncases);
    failed += isa_ncases - executed;
  }
  printf("isa: %lu passed, %lu failed\n", (unsigned long)(isa_ncases - failed), (unsigned long)failed);
  return failed != 0;
}
