/* The control core's RAM image from a firmware ELF (elf_image.h). Every field is bounds-checked
 * against the buffer before use: the input is whatever file the user names. */
#define _POSIX_C_SOURCE 200809L
#include "elf_image.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tessel_file.h"

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
    uint64_t entry = le32(elf + 24);
    int loads = 0;
    for (uint64_t k = 0; k < phnum; k++) {
        const uint8_t *ph = elf + phoff + k * phent;
        uint64_t off = le32(ph + 4), addr = le32(ph + 12), fsz = le32(ph + 16), msz = le32(ph + 20);
        if (le32(ph) != PtLoad)
            continue;
        loads++;
        /* Every value is below 2^32 and the sums are taken in 64 bits: none wraps. The segment's
         * memory (p_memsz, .bss included) must fit the RAM, its file bytes the file and the memory. */
        if (fsz > msz)
            return "a segment has more file bytes than memory bytes (p_filesz > p_memsz)";
        if (addr < base || addr - base + msz > img_bytes || off + fsz > n)
            return "a segment lies outside the core's RAM or the file";
        if (fsz == 0)                          /* only file bytes: .bss is zero anyway */
            continue;
        memcpy(img + (addr - base), elf + off, fsz);
        if (addr - base + fsz > *used)
            *used = (uint32_t)(addr - base + fsz);
    }
    if (!loads)
        return "it has no loadable segment (PT_LOAD)";
    if (!*used)
        return "it has no bytes to load";
    if (entry < base || entry - base >= img_bytes)
        return "its entry point (e_entry) lies outside the core's RAM";
    return NULL;
}

const char *tessel_elf_file(const char *path, uint32_t base, uint8_t *img, uint32_t img_bytes, uint32_t *used)
{
    *used = 0;
    uint64_t size;
    const char *why;
    int fd = tessel_file_open(path, &size, &why);   /* a regular file, opened without blocking */
    if (fd < 0)
        return why;
    if (size == 0)
        why = "is empty";
    else if (size > TESSEL_ELF_MAX_FILE)
        why = "is too large for a firmware ELF (over 16 MiB)";
    if (why) {
        close(fd);
        return why;
    }
    size_t n = (size_t)size, got = 0;
    uint8_t *buf = malloc(n);
    if (!buf) {
        close(fd);
        return "out of memory";
    }
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            why = r < 0 ? strerror(errno) : "was truncated while being read";
            break;
        }
        got += (size_t)r;
    }
    close(fd);
    if (!why)
        why = tessel_elf_image(buf, n, base, img, img_bytes, used);
    free(buf);
    return why;
}
