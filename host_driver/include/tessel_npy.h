/* libtessel: NumPy .npy files (the format `tessel gemm` reads and writes).
 *
 * Supported: format versions 1.0 and 2.0, little-endian, C order, dtypes '<i1' / '|i1' (int8),
 * '<i4' (int32) and '<f4' (float32), up to TESSEL_NPY_MAX_DIMS dimensions. Everything else is
 * rejected with TESSEL_EINVAL and a one-line reason: bad magic or version, a header length past the
 * end of the file, a header that is not the dict numpy writes ({'descr': ..., 'fortran_order': ...,
 * 'shape': (...)} with exactly those keys), fortran order, another descr, a shape whose size
 * overflows, data shorter than the shape needs. Bytes after the data are ignored, as numpy does.
 * The parser reads only inside the buffer it is given and never aborts (it is fuzzed).
 *
 * Like the rest of libtessel these functions never print: a failure returns a tessel_status_t and,
 * when err is not NULL, a message of at most errlen bytes (no trailing newline).
 */
#ifndef TESSEL_NPY_H
#define TESSEL_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "tessel.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TESSEL_NPY_MAX_DIMS 8

typedef enum { TESSEL_NPY_I1 = 0, TESSEL_NPY_I4 = 1, TESSEL_NPY_F4 = 2 } tessel_npy_dtype_t;

typedef struct {
    tessel_npy_dtype_t dtype;
    uint32_t ndim;
    uint64_t shape[TESSEL_NPY_MAX_DIMS];
    uint64_t count;                /* product of the shape (1 for ndim 0) */
    void *data;                    /* count elements, C order, host (little-endian) layout; malloc'd */
} tessel_npy_t;

/* Bytes per element (1, 4, 4); 0 for an unknown value. */
size_t tessel_npy_dtype_size(tessel_npy_dtype_t dtype);
/* The numpy descr written for a dtype ("|i1", "<i4", "<f4"); "?" for an unknown value. */
const char *tessel_npy_dtype_descr(tessel_npy_dtype_t dtype);

/* Parse a whole .npy image in memory. On success out->data is a fresh copy of the data. */
tessel_status_t tessel_npy_parse(const void *buf, size_t len, tessel_npy_t *out, char *err, size_t errlen);
/* Read a .npy file: TESSEL_EIO when it cannot be opened or read, or is not a regular file (a FIFO,
 * a device, a socket, a directory: refused without reading or blocking, the file opened
 * O_NONBLOCK), else as tessel_npy_parse. Reads the preamble, the header it announces, then only the
 * bytes the header's shape needs. */
tessel_status_t tessel_npy_load(const char *path, tessel_npy_t *out, char *err, size_t errlen);
/* Write a .npy file (version 1.0, header padded to a multiple of 64 bytes as numpy does). */
tessel_status_t tessel_npy_save(const char *path, tessel_npy_dtype_t dtype, uint32_t ndim, const uint64_t *shape,
                                const void *data, char *err, size_t errlen);
/* Free out->data and clear *out. NULL is ignored. */
void tessel_npy_free(tessel_npy_t *npy);

#ifdef __cplusplus
}
#endif

#endif /* TESSEL_NPY_H */
