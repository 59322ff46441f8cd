/* The control core's RAM image from a firmware ELF. The one ELF loader of the project: the uart and
 * sim transports, `tessel run`, tessel-run and the FPGA harness all load through it
 * (tests/fuzz/fuzz_elf.c fuzzes tessel_elf_image). It lives in common/, below both libtessel and
 * the simulators, which include it and never a header of host_driver/src. C, callable from C++. */
#ifndef TESSEL_ELF_IMAGE_H
#define TESSEL_ELF_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest firmware file tessel_elf_file reads (an RV32 RAM image is far smaller). */
#define TESSEL_ELF_MAX_FILE (16u << 20)

/* Places the PT_LOAD segments (their file bytes) of the little-endian RV32 ELF in elf[0..n) at their
 * physical addresses minus base into img[0..img_bytes), which is zeroed first (so .bss is zero);
 * *used is the extent written. Returns NULL, or why the file is refused (not an ELF, not RV32, a
 * table outside the file, a segment whose file bytes lie outside the file or whose memory
 * (p_memsz) lies outside the image, p_filesz > p_memsz, no PT_LOAD segment, nothing to load, an entry
 * point e_entry outside [base, base + img_bytes)); img is then undefined. The core always starts at
 * its reset vector (the RAM base, where the SDK's crt0 puts _start): e_entry is only checked. */
const char *tessel_elf_image(const uint8_t *elf, size_t n, uint32_t base, uint8_t *img, uint32_t img_bytes,
                             uint32_t *used);

/* tessel_elf_image on the file at path. Besides its reasons, refuses a path that cannot be opened
 * (strerror), a directory, anything but a regular file (a FIFO, /dev/zero), an empty file and a file
 * larger than TESSEL_ELF_MAX_FILE, each with its own reason, before reading more than that. Never
 * prints, never aborts. */
const char *tessel_elf_file(const char *path, uint32_t base, uint8_t *img, uint32_t img_bytes, uint32_t *used);

#ifdef __cplusplus
}
#endif

#endif
