/* make test-npy: the .npy reader/writer (host_driver/src/npy.c).
 *   - round trips for int8, int32 and float32 at 0-D, 1-D, 2-D and 3-D shapes (file and memory);
 *   - hand-made headers numpy writes (version 1.0 and 2.0, '<i1' and '|i1', "(n,)", spacing);
 *   - every malformed case: bad magic, bad version, header length past the end, bad dict, missing
 *     or unknown keys, shape overflow, Fortran order, unsupported descr, truncated data, and a
 *     missing file; each must fail with a message and no crash;
 *   - inputs that are not regular files (a FIFO with no writer, a directory, /dev/zero) are refused
 *     at once with TESSEL_EIO "not a regular file" / "directory" (an alarm fails a load that blocks);
 *   - random mutations and truncations of valid images (SEED=... replays): never a crash, and a
 *     success only with data that fits the image.
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tessel_npy.h"

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "FAIL test_npy: a load blocked (a FIFO with no writer)\n";
    (void)!write(STDOUT_FILENO, msg, sizeof msg - 1);
    _exit(1);
}

static int passed, failed;

#define CHECK(cond, ...)                                                                             \
    do {                                                                                             \
        if (cond) {                                                                                  \
            passed++;                                                                                \
        } else {                                                                                     \
            failed++;                                                                                \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                              \
            printf(__VA_ARGS__);                                                                     \
            printf("\n");                                                                            \
        }                                                                                            \
    } while (0)

static uint64_t rng;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

/* An image: version, header text (padded with spaces to 64 bytes unless raw), then data. */
static size_t make_image(unsigned char *buf, int major, const char *dict, const void *data, size_t bytes)
{
    size_t pre = major == 1 ? 10 : 12, dl = strlen(dict);
    size_t total = (pre + dl + 1 + 63) & ~(size_t)63, hlen = total - pre;
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)major;
    buf[7] = 0;
    buf[8] = (unsigned char)hlen;
    buf[9] = (unsigned char)(hlen >> 8);
    if (major == 2) {
        buf[10] = 0;
        buf[11] = 0;
    }
    memcpy(buf + pre, dict, dl);
    memset(buf + pre + dl, ' ', hlen - dl - 1);
    buf[total - 1] = '\n';
    if (bytes)
        memcpy(buf + total, data, bytes);
    return total + bytes;
}

static void expect_bad(const char *what, const unsigned char *img, size_t len, const char *needle)
{
    tessel_npy_t t;
    char err[200] = "";
    tessel_status_t st = tessel_npy_parse(img, len, &t, err, sizeof err);
    CHECK(st == TESSEL_EINVAL && err[0] && !strchr(err, '\n') && (!needle || strstr(err, needle)) && !t.data,
          "%s: status %d, message '%s' (want '%s')", what, st, err, needle ? needle : "");
    tessel_npy_free(&t);
}

static void expect_dict_bad(const char *what, const char *dict, size_t data_bytes, const char *needle)
{
    static unsigned char img[4096];
    unsigned char data[256] = {0};
    size_t len = make_image(img, 1, dict, data, data_bytes);
    expect_bad(what, img, len, needle);
}

static void round_trip(const char *dir, tessel_npy_dtype_t dt, uint32_t ndim, const uint64_t *shape)
{
    size_t es = tessel_npy_dtype_size(dt), count = 1;
    for (uint32_t i = 0; i < ndim; i++)
        count *= shape[i];
    unsigned char *data = malloc(count * es + 1);
    for (size_t i = 0; i < count * es; i++)
        data[i] = (unsigned char)rnd();
    char path[512], err[200] = "";
    snprintf(path, sizeof path, "%s/rt_%d_%u.npy", dir, (int)dt, ndim);
    tessel_status_t st = tessel_npy_save(path, dt, ndim, shape, data, err, sizeof err);
    CHECK(st == TESSEL_OK, "save %s: %s", path, err);
    tessel_npy_t t;
    st = tessel_npy_load(path, &t, err, sizeof err);
    int same = st == TESSEL_OK && t.dtype == dt && t.ndim == ndim && t.count == count &&
               (count == 0 || memcmp(t.data, data, count * es) == 0);
    for (uint32_t i = 0; same && i < ndim; i++)
        same = t.shape[i] == shape[i];
    CHECK(same, "round trip %s %u-D: status %d '%s'", tessel_npy_dtype_descr(dt), ndim, st, err);
    /* the file is what numpy writes: version 1.0, header a multiple of 64 ending in '\n' */
    FILE *f = fopen(path, "rb");
    unsigned char h[10] = {0};
    size_t got = f ? fread(h, 1, 10, f) : 0;
    if (f)
        fclose(f);
    size_t hl = (size_t)h[8] | (size_t)h[9] << 8;
    CHECK(got == 10 && h[6] == 1 && (10 + hl) % 64 == 0, "%s: header layout", path);
    tessel_npy_free(&t);
    free(data);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    const char *seed_env = getenv("SEED");
    uint64_t seed = seed_env ? strtoull(seed_env, NULL, 0) : 0x5eed0001ull;
    printf("npy: SEED=0x%llx\n", (unsigned long long)seed);
    rng = seed ? seed : 1;

    /* round trips */
    static const uint64_t s0[1] = {0}, s1[1] = {37}, s2[2] = {5, 7}, s3[3] = {2, 3, 4}, se[2] = {0, 3};
    for (int dt = 0; dt < 3; dt++) {
        round_trip(dir, (tessel_npy_dtype_t)dt, 0, s0);
        round_trip(dir, (tessel_npy_dtype_t)dt, 1, s1);
        round_trip(dir, (tessel_npy_dtype_t)dt, 2, s2);
        round_trip(dir, (tessel_npy_dtype_t)dt, 3, s3);
        round_trip(dir, (tessel_npy_dtype_t)dt, 2, se);
    }

    /* headers numpy writes, by hand */
    static unsigned char img[1 << 16];
    int32_t vals[6] = {1, -2, 3, -4, 5, -6};
    struct {
        int major;
        const char *dict;
        tessel_npy_dtype_t dt;
        uint32_t ndim;
        uint64_t d0, d1;
    } good[] = {
        {1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", TESSEL_NPY_I4, 2, 2, 3},
        {2, "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", TESSEL_NPY_F4, 1, 6, 0},
        {1, "{'descr': '|i1', 'fortran_order': False, 'shape': (24,), }", TESSEL_NPY_I1, 1, 24, 0},
        {1, "{'descr': '<i1', 'fortran_order': False, 'shape': (4, 6)}", TESSEL_NPY_I1, 2, 4, 6},
        {1, "{\"shape\": (3,2), \"fortran_order\": False, \"descr\": \"<i4\"}", TESSEL_NPY_I4, 2, 3, 2},
        {1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2L, 3L), }", TESSEL_NPY_I4, 2, 2, 3},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        size_t len = make_image(img, good[i].major, good[i].dict, vals, sizeof vals);
        tessel_npy_t t;
        char err[200] = "";
        tessel_status_t st = tessel_npy_parse(img, len, &t, err, sizeof err);
        CHECK(st == TESSEL_OK && t.dtype == good[i].dt && t.ndim == good[i].ndim && t.shape[0] == good[i].d0 &&
                  (t.ndim < 2 || t.shape[1] == good[i].d1) && memcmp(t.data, vals, sizeof vals) == 0,
              "valid header %zu (%s): status %d '%s'", i, good[i].dict, st, err);
        tessel_npy_free(&t);
    }

    /* malformed files */
    size_t len = make_image(img, 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", vals,
                            sizeof vals);
    unsigned char bad[256];
    memcpy(bad, img, len);
    bad[1] = 'X';
    expect_bad("bad magic", bad, len, "magic");
    expect_bad("empty file", img, 0, "magic");
    expect_bad("magic only", img, 6, "magic");
    expect_bad("no header length", img, 9, "header");
    memcpy(bad, img, len);
    bad[6] = 3;
    expect_bad("version 3.0", bad, len, "version");
    memcpy(bad, img, len);
    bad[7] = 1;
    expect_bad("version 1.1", bad, len, "version");
    memcpy(bad, img, len);
    bad[8] = 0xff;
    bad[9] = 0xff;
    expect_bad("header length past the end", bad, len, "past the end");
    expect_bad("header cut short", img, 40, "past the end");
    size_t len2 = make_image(bad, 2, "{'descr': '<i4', 'fortran_order': False, 'shape': (6,), }", vals, 24);
    bad[11] = 0x80;
    expect_bad("v2 header length 2^31", bad, len2, "past the end");
    expect_bad("truncated data", img, len - 1, "truncated");
    expect_bad("no data", img, len - sizeof vals, "truncated");

    expect_dict_bad("not a dict", "['descr', '<i4']", 24, "dict");
    expect_dict_bad("empty header", "", 24, "dict");
    expect_dict_bad("unterminated dict", "{'descr': '<i4', 'fortran_order': False, 'shape': (6,)", 24, NULL);
    expect_dict_bad("unterminated string", "{'descr: '<i4', 'fortran_order': False, 'shape': (6,)}", 24, NULL);
    expect_dict_bad("missing shape", "{'descr': '<i4', 'fortran_order': False}", 24, "shape");
    expect_dict_bad("missing descr", "{'fortran_order': False, 'shape': (6,)}", 24, "descr");
    expect_dict_bad("unknown key", "{'descr': '<i4', 'fortran_order': False, 'shape': (6,), 'x': 1}", 24, "'x'");
    expect_dict_bad("repeated key", "{'descr': '<i4', 'descr': '<i4', 'fortran_order': False, 'shape': (6,)}",
                    24, "repeated");
    expect_dict_bad("shape not a tuple", "{'descr': '<i4', 'fortran_order': False, 'shape': 6}", 24, "shape");
    expect_dict_bad("shape (6) is an int", "{'descr': '<i4', 'fortran_order': False, 'shape': (6)}", 24, "shape");
    expect_dict_bad("negative dim", "{'descr': '<i4', 'fortran_order': False, 'shape': (-6,)}", 24, "shape");
    expect_dict_bad("float dim", "{'descr': '<i4', 'fortran_order': False, 'shape': (6.0,)}", 24, "shape");
    expect_dict_bad("bad fortran_order", "{'descr': '<i4', 'fortran_order': 0, 'shape': (6,)}", 24, "fortran");
    expect_dict_bad("text after dict", "{'descr': '<i4', 'fortran_order': False, 'shape': (6,)} x", 24, "after");
    expect_dict_bad("NUL in header", "{'descr': '<i4',\x01 'fortran_order': False, 'shape': (6,)}", 24, NULL);
    expect_dict_bad("shape overflow", "{'descr': '<i4', 'fortran_order': False, 'shape': (4294967296, 4294967296)}",
                    24, "overflow");
    expect_dict_bad("dim past 2^62", "{'descr': '<i4', 'fortran_order': False, 'shape': (99999999999999999999,)}",
                    24, "shape");
    expect_dict_bad("huge but no overflow", "{'descr': '<i1', 'fortran_order': False, 'shape': (1000000000,)}",
                    24, "truncated");
    expect_dict_bad("too many dims",
                    "{'descr': '<i1', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1)}", 24, "dimensions");
    expect_dict_bad("fortran order", "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3)}", 24, "Fortran");
    expect_dict_bad("big-endian", "{'descr': '>i4', 'fortran_order': False, 'shape': (6,)}", 24, "unsupported dtype");
    expect_dict_bad("float64", "{'descr': '<f8', 'fortran_order': False, 'shape': (3,)}", 24, "unsupported dtype");
    expect_dict_bad("uint8", "{'descr': '|u1', 'fortran_order': False, 'shape': (6,)}", 24, "unsupported dtype");
    expect_dict_bad("structured", "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (6,)}", 24, "descr");

    /* a missing file, and a save to a directory that does not exist */
    {
        tessel_npy_t t;
        char err[200] = "", path[512];
        snprintf(path, sizeof path, "%s/no-such-file.npy", dir);
        tessel_status_t st = tessel_npy_load(path, &t, err, sizeof err);
        CHECK(st == TESSEL_EIO && strstr(err, "cannot open"), "missing file: %d '%s'", st, err);
        snprintf(path, sizeof path, "%s/no-such-dir/x.npy", dir);
        uint64_t sh[1] = {1};
        st = tessel_npy_save(path, TESSEL_NPY_I1, 1, sh, vals, err, sizeof err);
        CHECK(st == TESSEL_EIO && err[0], "save into a missing directory: %d '%s'", st, err);
        CHECK(tessel_npy_parse(img, len, NULL, err, sizeof err) == TESSEL_EINVAL, "NULL out");
        CHECK(tessel_npy_save(path, (tessel_npy_dtype_t)7, 1, sh, vals, err, sizeof err) == TESSEL_EINVAL,
              "bad dtype");
        tessel_npy_free(NULL);
    }

    /* not regular files: refused without reading, and without blocking on a FIFO with no writer */
    {
        char fifo[512], err[200];
        snprintf(fifo, sizeof fifo, "%s/fifo.npy", dir);
        unlink(fifo);
        CHECK(mkfifo(fifo, 0600) == 0, "mkfifo %s", fifo);
        const char *paths[3] = {fifo, dir, "/dev/zero"}, *want[3] = {"not a regular file", "directory",
                                                                     "not a regular file"};
        signal(SIGALRM, on_alarm);
        for (int i = 0; i < 3; i++) {
            tessel_npy_t t;
            err[0] = 0;
            alarm(10);
            tessel_status_t st = tessel_npy_load(paths[i], &t, err, sizeof err);
            alarm(0);
            CHECK(st == TESSEL_EIO && strstr(err, want[i]), "load of %s: %d '%s', expected EIO '%s'", paths[i], st,
                  err, want[i]);
        }
        unlink(fifo);
    }

    /* mutations and truncations: no crash, success only when the data fits */
    int mut_ok = 1;
    unsigned char *m = malloc(sizeof img);
    for (int it = 0; it < 20000 && mut_ok; it++) {
        size_t base = make_image(img, 1 + (int)(rnd() & 1),
                                 (rnd() & 1) ? "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }"
                                             : "{'descr': '|i1', 'fortran_order': False, 'shape': (24,), }",
                                 vals, sizeof vals);
        memcpy(m, img, base);
        int nmut = 1 + (int)(rnd() % 4);
        for (int k = 0; k < nmut; k++)
            m[rnd() % base] = (rnd() & 1) ? (unsigned char)rnd() : (unsigned char)"(),:'0123456789 {}L"[rnd() % 19];
        size_t l = (rnd() & 3) ? base : rnd() % (base + 1);
        tessel_npy_t t;
        char err[200];
        tessel_status_t st = tessel_npy_parse(m, l, &t, err, sizeof err);
        if (st == TESSEL_OK) {
            size_t es = tessel_npy_dtype_size(t.dtype);
            mut_ok = t.data && t.count * es <= l;
        } else {
            mut_ok = !t.data && st == TESSEL_EINVAL && memchr(err, 0, sizeof err) != NULL;
        }
        if (!mut_ok)
            printf("FAIL mutation %d: status %d\n", it, st);
        tessel_npy_free(&t);
    }
    free(m);
    CHECK(mut_ok, "20000 mutated images");

    printf("npy: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
