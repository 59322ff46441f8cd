/* libtessel: NumPy .npy reader and writer (host_driver/include/tessel_npy.h).
 *
 * The header is parsed by a small tokenizer for the Python-literal dict numpy writes; every read
 * is bounds-checked against the header, and sizes are checked for overflow before any allocation.
 * Assumes a little-endian host (as every transport does).
 */
#define _POSIX_C_SOURCE 200809L   /* fdopen */
#include "tessel_npy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessel_file.h"

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_MAX_HEADER (1u << 24) /* a sane header is a few hundred bytes */
/* Exported from libtessel.so, which is built with -fvisibility=hidden. */
#define NPY_API __attribute__((visibility("default")))

static tessel_status_t npy_fail(tessel_status_t st, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static tessel_status_t npy_fail(tessel_status_t st, char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return st;
}

NPY_API size_t tessel_npy_dtype_size(tessel_npy_dtype_t dtype)
{
    switch (dtype) {
    case TESSEL_NPY_I1: return 1;
    case TESSEL_NPY_I4: return 4;
    case TESSEL_NPY_F4: return 4;
    }
    return 0;
}

NPY_API const char *tessel_npy_dtype_descr(tessel_npy_dtype_t dtype)
{
    switch (dtype) {
    case TESSEL_NPY_I1: return "|i1";
    case TESSEL_NPY_I4: return "<i4";
    case TESSEL_NPY_F4: return "<f4";
    }
    return "?";
}

/* ---- header dict tokenizer ------------------------------------------------------------------ */
typedef struct {
    const char *p, *end;
} npy_lex_t;

static void lex_ws(npy_lex_t *l)
{
    while (l->p < l->end && (*l->p == ' ' || *l->p == '\t' || *l->p == '\n' || *l->p == '\r'))
        l->p++;
}

static int lex_char(npy_lex_t *l, char c)
{
    lex_ws(l);
    if (l->p < l->end && *l->p == c) {
        l->p++;
        return 1;
    }
    return 0;
}

/* A quoted string ('...' or "...", no escapes) into buf; 0 if none or too long. */
static int lex_string(npy_lex_t *l, char *buf, size_t cap)
{
    lex_ws(l);
    if (l->p >= l->end || (*l->p != '\'' && *l->p != '"'))
        return 0;
    char q = *l->p++;
    size_t n = 0;
    while (l->p < l->end && *l->p != q) {
        if (*l->p == '\\' || (unsigned char)*l->p < 0x20 || n + 1 >= cap)
            return 0;
        buf[n++] = *l->p++;
    }
    if (l->p >= l->end)
        return 0;
    l->p++;
    buf[n] = 0;
    return 1;
}

static int lex_word(npy_lex_t *l, const char *w)
{
    lex_ws(l);
    size_t n = strlen(w);
    if ((size_t)(l->end - l->p) >= n && memcmp(l->p, w, n) == 0) {
        l->p += n;
        return 1;
    }
    return 0;
}

/* A non-negative decimal integer (numpy may write a trailing L in Python 2 files); 0 on overflow
 * past 2^62 or when there is no digit. */
static int lex_uint(npy_lex_t *l, uint64_t *v)
{
    lex_ws(l);
    uint64_t x = 0;
    int digits = 0;
    while (l->p < l->end && *l->p >= '0' && *l->p <= '9') {
        x = x * 10 + (uint64_t)(*l->p - '0');
        if (x > (1ull << 62))
            return 0;
        l->p++;
        digits++;
    }
    if (!digits)
        return 0;
    if (l->p < l->end && *l->p == 'L')
        l->p++;
    *v = x;
    return 1;
}

static tessel_status_t parse_dict(const char *hdr, size_t len, tessel_npy_t *out, char *err, size_t errlen)
{
    npy_lex_t l = {hdr, hdr + len};
    int have_descr = 0, have_fortran = 0, have_shape = 0;
    int fortran = 0;
    char descr[32] = "";

    for (size_t i = 0; i < len; i++)
        if ((unsigned char)hdr[i] >= 0x80 || (hdr[i] == 0))
            return npy_fail(TESSEL_EINVAL, err, errlen, "bad header: not ASCII text");
    if (!lex_char(&l, '{'))
        return npy_fail(TESSEL_EINVAL, err, errlen, "bad header: not a dict");
    for (;;) {
        char key[32];
        if (lex_char(&l, '}'))
            break;
        if (!lex_string(&l, key, sizeof key) || !lex_char(&l, ':'))
            return npy_fail(TESSEL_EINVAL, err, errlen, "bad header: expected 'key': value");
        if (!strcmp(key, "descr")) {
            if (have_descr++ || !lex_string(&l, descr, sizeof descr))
                return npy_fail(TESSEL_EINVAL, err, errlen, "bad header: bad or repeated 'descr'");
        } else if (!strcmp(key, "fortran_order")) {
            if (have_fortran++)
                return npy_fail(TESSEL_EINVAL, err, errlen, "bad header: repeated 'fortran_order'");
            if (lex_word(&l, "True"))
                fortran = 1;
            else if (!lex_word(&l, "False"))
                return npy_fail(TESSEL_EINVAL, err, errlen, "bad header: 'fortran_order' is not True or False");
        } else if (!strcmp(key, "shape")) {
            if (have_shape++ || !lex_char(&l, '('))
                return npy_fail(TESSEL_EINVAL, err, errlen, "bad header: bad or repeated 'shape'");
            out->ndim = 0;
            while (!lex_char(&l, ')')) {
                uint64_t d;
                if (out->ndim >= TESSEL_NPY_MAX_DIMS)
                    return npy_fail(TESSEL_EINVAL, err, errlen, "more than %d dimensions",
                                    TESSEL_NPY_MAX_DIMS);
                if (!lex_uint(&l, &d))
                    return npy_fail(TESSEL_EINVAL, err, errlen, "bad header: bad shape tuple");
                out->shape[out->ndim++] = d;
                if (!lex_char(&l, ',')) {
                    if (!lex_char(&l, ')'))
                        return npy_fail(TESSEL_EINVAL, err, errlen, "bad header: bad shape tuple");
                    if (out->ndim == 1)   /* (n) is an int in Python, not a tuple */
                        return npy_fail(TESSEL_EINVAL, err, errlen, "bad header: bad shape tuple");
                    break;
                }
            }
        } else {
            return npy_fail(TESSEL_EINVAL, err, errlen, "bad header: unexpected key '%s'", key);
        }
        if (!lex_char(&l, ',')) {
            if (!lex_char(&l, '}'))
                return npy_fail(TESSEL_EINVAL, err, errlen, "bad header: expected ',' or '}'");
            break;
        }
    }
    lex_ws(&l);
    if (l.p != l.end)
        return npy_fail(TESSEL_EINVAL, err, errlen, "bad header: text after the dict");
    if (!have_descr || !have_fortran || !have_shape)
        return npy_fail(TESSEL_EINVAL, err, errlen, "bad header: needs 'descr', 'fortran_order' and 'shape'");
    if (!strcmp(descr, "<i1") || !strcmp(descr, "|i1"))
        out->dtype = TESSEL_NPY_I1;
    else if (!strcmp(descr, "<i4"))
        out->dtype = TESSEL_NPY_I4;
    else if (!strcmp(descr, "<f4"))
        out->dtype = TESSEL_NPY_F4;
    else
        return npy_fail(TESSEL_EINVAL, err, errlen, "unsupported dtype '%s' (supported: <i1 |i1 <i4 <f4)", descr);
    if (fortran)
        return npy_fail(TESSEL_EINVAL, err, errlen, "Fortran-order arrays are not supported (save in C order)");
    return TESSEL_OK;
}

/* The preamble and the header dict of the image in b[0..len): fills out (no data) and the data's
 * offset and size in bytes; data past len is not needed. */
static tessel_status_t parse_head(const unsigned char *b, size_t len, tessel_npy_t *out, size_t *off,
                                  size_t *bytes, char *err, size_t errlen)
{
    if (len < NPY_MAGIC_LEN + 2 || memcmp(b, NPY_MAGIC, NPY_MAGIC_LEN) != 0)
        return npy_fail(TESSEL_EINVAL, err, errlen, "not a .npy file (bad magic)");
    unsigned major = b[6], minor = b[7];
    size_t hstart, hlen;
    if (major == 1 && minor == 0) {
        if (len < 10)
            return npy_fail(TESSEL_EINVAL, err, errlen, "truncated header");
        hstart = 10;
        hlen = (size_t)b[8] | (size_t)b[9] << 8;
    } else if (major == 2 && minor == 0) {
        if (len < 12)
            return npy_fail(TESSEL_EINVAL, err, errlen, "truncated header");
        hstart = 12;
        hlen = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
    } else {
        return npy_fail(TESSEL_EINVAL, err, errlen, "unsupported .npy format version %u.%u (need 1.0 or 2.0)",
                        major, minor);
    }
    if (hlen > NPY_MAX_HEADER || hlen > len - hstart)
        return npy_fail(TESSEL_EINVAL, err, errlen, "header length %zu runs past the end of the file (%zu bytes)",
                        hlen, len);
    tessel_status_t st = parse_dict((const char *)b + hstart, hlen, out, err, errlen);
    if (st != TESSEL_OK) {
        memset(out, 0, sizeof *out);
        return st;
    }

    size_t es = tessel_npy_dtype_size(out->dtype);
    uint64_t count = 1;
    for (uint32_t i = 0; i < out->ndim; i++) {
        uint64_t d = out->shape[i];
        if (d && count > (UINT64_MAX / es) / d) {
            memset(out, 0, sizeof *out);
            return npy_fail(TESSEL_EINVAL, err, errlen, "shape too large (size overflows)");
        }
        count *= d;
    }
    if (count > SIZE_MAX / es) {
        memset(out, 0, sizeof *out);
        return npy_fail(TESSEL_EINVAL, err, errlen, "shape too large (size overflows)");
    }
    out->count = count;
    *off = hstart + hlen;
    *bytes = (size_t)count * es;
    return TESSEL_OK;
}

NPY_API tessel_status_t tessel_npy_parse(const void *buf, size_t len, tessel_npy_t *out, char *err, size_t errlen)
{
    if (!out)
        return npy_fail(TESSEL_EINVAL, err, errlen, "no output");
    memset(out, 0, sizeof *out);
    if (!buf && len)
        return npy_fail(TESSEL_EINVAL, err, errlen, "no input");
    const unsigned char *b = buf;
    size_t off, bytes;
    tessel_status_t st = parse_head(b, len, out, &off, &bytes, err, errlen);
    if (st != TESSEL_OK)
        return st;
    size_t avail = len - off;
    if (bytes > avail) {
        memset(out, 0, sizeof *out);
        return npy_fail(TESSEL_EINVAL, err, errlen, "truncated data: the shape needs %zu bytes, the file has %zu",
                        bytes, avail);
    }
    out->data = malloc(bytes ? bytes : 1);
    if (!out->data) {
        memset(out, 0, sizeof *out);
        return npy_fail(TESSEL_ENOMEM, err, errlen, "out of memory (%zu bytes)", bytes);
    }
    if (bytes)
        memcpy(out->data, b + off, bytes);
    return TESSEL_OK;
}

/* Read up to want bytes more into *buf (capacity *cap, *len used), growing it as data arrives, so
 * memory follows what the file holds, not what its header claims. 0, or -1 on out of memory. */
static int read_more(FILE *f, unsigned char **buf, size_t *cap, size_t *len, size_t want)
{
    while (want) {
        if (*len == *cap) {
            size_t ncap = *cap ? *cap * 2 : 1 << 16;
            if (ncap < *cap) /* wrapped */
                return -1;
            unsigned char *nb = realloc(*buf, ncap);
            if (!nb)
                return -1;
            *buf = nb;
            *cap = ncap;
        }
        size_t chunk = *cap - *len < want ? *cap - *len : want;
        size_t got = fread(*buf + *len, 1, chunk, f);
        *len += got;
        want -= got;
        if (got < chunk)
            break;
    }
    return 0;
}

NPY_API tessel_status_t tessel_npy_load(const char *path, tessel_npy_t *out, char *err, size_t errlen)
{
    if (!path || !out)
        return npy_fail(TESSEL_EINVAL, err, errlen, "no file or output given");
    memset(out, 0, sizeof *out);
    uint64_t size;
    const char *why;
    int fd = tessel_file_open(path, &size, &why);   /* a regular file, opened without blocking */
    if (fd < 0)
        return npy_fail(TESSEL_EIO, err, errlen, "cannot open: %s", why);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        close(fd);
        return npy_fail(TESSEL_EIO, err, errlen, "cannot open: %s", strerror(e));
    }
    /* The preamble, then the header it announces, then only the data the header's shape needs (a
     * file that grows while it is read is not read past that), and the buffer grows with what
     * arrives, not with what the header claims. */
    unsigned char *buf = NULL;
    size_t cap = 0, len = 0;
    tessel_status_t st = TESSEL_OK;
    int oom = read_more(f, &buf, &cap, &len, 12);
    if (!oom && !ferror(f) && len >= 12 && !memcmp(buf, NPY_MAGIC, NPY_MAGIC_LEN) && (buf[6] == 1 || buf[6] == 2)) {
        size_t hstart = buf[6] == 1 ? 10 : 12;
        size_t hlen = (size_t)buf[8] | (size_t)buf[9] << 8 | (buf[6] == 2 ? (size_t)buf[10] << 16 | (size_t)buf[11] << 24 : 0);
        if (hlen <= NPY_MAX_HEADER && hstart + hlen > len)
            oom = read_more(f, &buf, &cap, &len, hstart + hlen - len);
        tessel_npy_t hdr;
        size_t off, bytes;
        if (!oom && !ferror(f) && parse_head(buf, len, &hdr, &off, &bytes, NULL, 0) == TESSEL_OK &&
            bytes > len - off)
            oom = read_more(f, &buf, &cap, &len, bytes - (len - off));
    }
    if (oom)
        st = npy_fail(TESSEL_ENOMEM, err, errlen, "out of memory reading the file");
    else if (ferror(f))
        st = npy_fail(TESSEL_EIO, err, errlen, "read error: %s", strerror(errno));
    fclose(f);
    if (st == TESSEL_OK)
        st = tessel_npy_parse(buf, len, out, err, errlen);
    free(buf);
    return st;
}

NPY_API tessel_status_t tessel_npy_save(const char *path, tessel_npy_dtype_t dtype, uint32_t ndim, const uint64_t *shape,
                                const void *data, char *err, size_t errlen)
{
    size_t es = tessel_npy_dtype_size(dtype);
    if (!path || !es || ndim > TESSEL_NPY_MAX_DIMS || (ndim && !shape))
        return npy_fail(TESSEL_EINVAL, err, errlen, "bad arguments");
    char dict[64 + 24 * TESSEL_NPY_MAX_DIMS];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                     tessel_npy_dtype_descr(dtype));
    uint64_t count = 1;
    for (uint32_t i = 0; i < ndim; i++) {
        if (shape[i] && count > (UINT64_MAX / es) / shape[i])
            return npy_fail(TESSEL_EINVAL, err, errlen, "shape too large");
        count *= shape[i];
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%llu%s", (unsigned long long)shape[i],
                      ndim == 1 ? "," : (i + 1 < ndim ? ", " : ""));
    }
    n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
    if (count && !data)
        return npy_fail(TESSEL_EINVAL, err, errlen, "no data");
    if (count > SIZE_MAX / es)
        return npy_fail(TESSEL_EINVAL, err, errlen, "shape too large");

    /* magic(6) version(2) len(2) dict pad '\n', total a multiple of 64 (version 1.0 fits easily) */
    size_t pre = 10, total = (pre + (size_t)n + 1 + 63) & ~(size_t)63;
    unsigned char head[16 + sizeof dict + 64];
    memcpy(head, NPY_MAGIC, NPY_MAGIC_LEN);
    head[6] = 1;
    head[7] = 0;
    size_t hlen = total - pre;
    head[8] = (unsigned char)hlen;
    head[9] = (unsigned char)(hlen >> 8);
    memcpy(head + pre, dict, (size_t)n);
    memset(head + pre + n, ' ', total - pre - (size_t)n - 1);
    head[total - 1] = '\n';

    FILE *f = fopen(path, "wb");
    if (!f)
        return npy_fail(TESSEL_EIO, err, errlen, "cannot create: %s", strerror(errno));
    size_t bytes = (size_t)count * es;
    int ok = fwrite(head, 1, total, f) == total && (bytes == 0 || fwrite(data, 1, bytes, f) == bytes);
    int saved = errno;
    if (fclose(f) != 0 && ok) {
        ok = 0;
        saved = errno;
    }
    if (!ok)
        return npy_fail(TESSEL_EIO, err, errlen, "write error: %s", strerror(saved));
    return TESSEL_OK;
}

NPY_API void tessel_npy_free(tessel_npy_t *npy)
{
    if (!npy)
        return;
    free(npy->data);
    memset(npy, 0, sizeof *npy);
}
