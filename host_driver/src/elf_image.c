/* The control core's RAM image from a firmware ELF (elf_image.h). Every field is bounds-checked
 * against the buffer before use: the input is whatever file the user names. */
#include "elf_image.h"

#include <string.h>

static uint32_t le16(const uint8_t *p) { return p[0] | (uint32_t)p[1] << 8; }
static uint32_t le32(const uint8_t *p) { return le16(p) | le16(p + 2) << 16; }

const char *tessel_elf_image(const uint8_t *elf, size_t n, uint32_t base, uint8_t *img, uint32_t img_bytes,
                             uint32_t *used)
{
    enum { EhdrBytes = 52, PhdrBytes = 32, PtLoad = 1, EmRiscv = 243 };
    memset(img, 0, img_bytes);
    *used = 0;
    if (n < EhdrBytes || memcmp(elf, "\177ELF", 4))
        return "not an ELF file";
    if (elf[4] != 1 || elf[5] != 1 || le16(elf + 18) != EmRiscv)
        return "not a little-endian RV32 ELF";
    uint64_t phoff = le32(elf + 28), phent = le16(elf + 42), phnum = le16(elf + 44);
    if (phent < PhdrBytes || phoff + phent * phnum > n)
        return "its program header table lies outside the file";
    for (uint64_t k = 0; k < phnum; k++) {
        const uint8_t *ph = elf + phoff + k * phent;
        uint64_t off = le32(ph + 4), addr = le32(ph + 12), fsz = le32(ph + 16);
        if (le32(ph) != PtLoad || fsz == 0)   /* only file bytes: .bss is zero anyway */
            continue;
        if (addr < base || addr - base + fsz > img_bytes || off + fsz > n)
            return "a segment lies outside the core's RAM or the file";
        memcpy(img + (addr - base), elf + off, fsz);
        if (addr - base + fsz > *used)
            *used = (uint32_t)(addr - base + fsz);
    }
    return *used ? NULL : "it has no bytes to load";
}
