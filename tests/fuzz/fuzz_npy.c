/* libFuzzer target: the .npy reader (host_driver/src/npy.c, tessel_npy_parse).
 *
 * Any byte string is parsed (the parser gets an exact-size heap copy, so ASan sees any read past
 * its end). Properties checked beyond "no crash, no leak, no undefined behaviour":
 *   a failure returns TESSEL_EINVAL with a non-empty, NUL-terminated message and out->data NULL;
 *   a success has a known dtype, ndim <= TESSEL_NPY_MAX_DIMS, count = the product of the shape,
 *   and data holding count elements that equal the bytes at the end of the input's header;
 *   truncating the error buffer to 1..8 bytes still terminates it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_in.h"
#include "tessel_npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    tessel_npy_t t;
    char err[128];
    memset(err, 'x', sizeof err);
    tessel_status_t st = tessel_npy_parse(buf, size, &t, err, sizeof err);
    if (st != TESSEL_OK) {
        CHECK(st == TESSEL_EINVAL);
        CHECK(memchr(err, 0, sizeof err) != NULL && err[0] != 0);
        CHECK(t.data == NULL);
    } else {
        size_t es = tessel_npy_dtype_size(t.dtype);
        CHECK(es != 0 && t.ndim <= TESSEL_NPY_MAX_DIMS);
        uint64_t count = 1;
        for (uint32_t i = 0; i < t.ndim; i++)
            count *= t.shape[i];
        CHECK(count == t.count);
        /* the data is the count * es bytes right after the header (magic, version, length, dict) */
        size_t hlen = buf[6] == 1 ? 10u + (size_t)(buf[8] | buf[9] << 8)
                                  : 12u + (size_t)(buf[8] | buf[9] << 8 | buf[10] << 16 | (size_t)buf[11] << 24);
        CHECK(hlen + t.count * es <= size);
        CHECK(t.count == 0 || memcmp(t.data, buf + hlen, t.count * es) == 0);
        tessel_npy_free(&t);
        CHECK(t.data == NULL);
    }
    char small[8];
    size_t n = 1 + (size % sizeof small);
    if (tessel_npy_parse(buf, size, &t, small, n) == TESSEL_OK)
        tessel_npy_free(&t);
    else
        CHECK(memchr(small, 0, n) != NULL);
    free(buf);
    return 0;
}
