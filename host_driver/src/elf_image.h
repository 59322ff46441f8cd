/* libtessel internal: the control core's RAM image from a firmware ELF (the uart transport loads it
 * into a board held in BOOT.HOLD; tests/fuzz/fuzz_elf.c fuzzes it). */
#ifndef TESSEL_ELF_IMAGE_H
#define TESSEL_ELF_IMAGE_H

#include <stddef.h>
#include <stdint.h>

/* Places the PT_LOAD segments (their file bytes) of the little-endian RV32 ELF in elf[0..n) at their
 * physical addresses minus base into img[0..img_bytes), which is zeroed first; *used is the extent
 * written. Returns NULL, or why the file is refused (not an ELF, not RV32, a table or segment
 * outside the file or the image, nothing to load); img is then undefined. */
const char *tessel_elf_image(const uint8_t *elf, size_t n, uint32_t base, uint8_t *img, uint32_t img_bytes,
                             uint32_t *used);

#endif
