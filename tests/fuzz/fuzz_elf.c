/* libFuzzer target: the one firmware ELF loader (common/elf_image.c,
 * tessel_elf_image), which reads whatever file the user names.
 *
 * Any byte string is loaded into a 64 KiB image at base 0x8000_0000 (the loader gets an exact-size
 * heap copy, so ASan sees any read past its end). Properties checked beyond "no crash, no undefined
 * behaviour": a failure returns a non-empty reason; a success has 0 < used <= the image size and
 * every image byte past `used` is still zero. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_image.h"
#include "fuzz_in.h"

enum { ImgBytes = 65536 };
static uint8_t img[ImgBytes];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    uint32_t used = 12345;
    const char *why = tessel_elf_image(buf, size, 0x80000000u, img, ImgBytes, &used);
    if (why) {
        CHECK(why[0] != 0);
    } else {
        CHECK(used > 0 && used <= ImgBytes);
        for (uint32_t i = used; i < ImgBytes; i++)
            CHECK(img[i] == 0);
    }
    free(buf);
    return 0;
}
