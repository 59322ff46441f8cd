/* libFuzzer target: libtessel's public API and its argument checks, on the model transport.
 *
 * One small model device (N = 8, VMEM 32 KiB, ACC 8 KiB, HBM 1 MiB) lives for the whole run;
 * every input is a program of up to 24 calls decoded from the bytes (fuzz_in.h), and leaves the
 * device as it found it (its allocations freed, its commands waited for). Calls:
 *   tessel_gemm   fuzzed M, N, K (mostly 0..63, sometimes any 32-bit value), dtypes (valid and
 *                 not), strides (>= and < the row), NULL operands, bias, ReLU, scale, requant
 *                 fields. Host operands are heap blocks of exactly the size the strides imply
 *                 (NULL when that is over 1 Mi elements), so ASan sees any access outside them;
 *                 the bytes between C's rows are canaries and must survive every call, and all of
 *                 C must survive an EINVAL. An int8 GEMM that succeeds is checked against exact
 *                 integer maths (hw/model/ref.h), bias, ReLU and requantisation included.
 *   tessel_submit + tessel_wait   a raw fuzzed 64-byte command (its output kept out of the ring
 *                 area); completes with OK or EDEVICE.
 *   tessel_alloc / tessel_free / tessel_write / tessel_read   fuzzed sizes, alignments and
 *                 addresses, either fuzzed or inside a live block.
 *   tessel_wait   on a fuzzed handle (nothing is outstanding: EINVAL).
 * Every status must be one of tessel_status_t, and tessel_last_error() a string. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_in.h"
#include "ref.h"
#include "tessel_int.h"
#include "tsl_hw.h"

#define MAX_ELEMS (1u << 20)
#define MAX_BLOCKS 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static tessel_dev_t *g_dev;

static void check_status(int st)
{
    CHECK(st <= 0 && st >= TESSEL_EMISMATCH);
    const char *e = tessel_last_error(g_dev);
    CHECK(e != NULL && strlen(e) < 256);
}

static tessel_dev_t *device(void)
{
    if (!g_dev) {
        tessel_transport_t t;
        tessel_model_cfg_t cfg = {.n = 8, .vmem_bytes = 32768, .acc_bytes = 8192, .hbm_bytes = 1u << 20};
        CHECK(tessel_transport_model_open(&t, &cfg) == TESSEL_OK);
        CHECK(tessel_open_transport(&g_dev, &t, 0) == TESSEL_OK);
    }
    return g_dev;
}

/* Elements a strided operand of `rows` rows of `cols` spans, or 0 when it is empty or too big. */
static size_t extent(uint32_t rows, uint32_t cols, size_t ld)
{
    if (!rows || !cols || ld > MAX_ELEMS || rows > MAX_ELEMS)
        return 0;
    uint64_t e = (uint64_t)(rows - 1) * ld + cols;
    return e <= MAX_ELEMS ? (size_t)e : 0;
}

static size_t pick_ld(fuzz_in_t *in, uint32_t cols)
{
    uint8_t sel = fuzz_u8(in);
    if (sel < 200)
        return (size_t)cols + (sel & 3u);
    return sel < 230 ? (size_t)cols - (sel & 3u) : fuzz_u32(in);
}

static void *buffer(size_t elems, size_t es, uint8_t fill)
{
    void *p = elems ? malloc(elems * es) : NULL;
    if (p)
        memset(p, fill, elems * es);
    return p;
}

static void do_gemm(fuzz_in_t *in)
{
    static const float scales[] = {0.0f, 1.0f, 0.5f, -2.0f};
    tessel_gemm_t g;
    memset(&g, 0, sizeof g);
    g.m = fuzz_size(in, 0x3f);
    g.n = fuzz_size(in, 0x3f);
    g.k = fuzz_size(in, 0x3f);
    g.in_dtype = (tessel_dtype_t)(fuzz_u8(in) % 5u);
    g.out_dtype = (tessel_dtype_t)(fuzz_u8(in) % 5u);
    g.lda = pick_ld(in, g.k);
    g.ldb = pick_ld(in, g.n);
    g.ldc = pick_ld(in, g.n);
    uint8_t opt = fuzz_u8(in);
    g.relu = opt & 1u;
    g.scale = scales[(opt >> 1) & 3u];
    if (opt & 0x80u) {
        g.rq_scale = (int32_t)fuzz_u32(in);
        g.rq_shift = fuzz_u8(in);
        g.rq_zero_point = (int8_t)fuzz_u8(in);
    }
    int fl = g.in_dtype == TESSEL_BF16;
    size_t ies = fl ? 4 : 1, oes = g.out_dtype == TESSEL_INT8 ? 1 : 4;
    size_t ea = extent(g.m, g.k, g.lda), eb = extent(g.k, g.n, g.ldb), ec = extent(g.m, g.n, g.ldc);
    int8_t *a = buffer(ea, ies, 0), *b = buffer(eb, ies, 0);
    uint8_t *c = buffer(ec, oes, 0xA5), *c0 = buffer(ec, oes, 0xA5);
    int32_t *bias = (opt & 8u) && g.n <= MAX_ELEMS ? buffer(g.n, 4, 0) : NULL;
    for (size_t i = 0; a && i < ea; i++) {
        int8_t v = (int8_t)fuzz_u8(in);
        if (fl)
            ((float *)(void *)a)[i] = v / 8.0f;
        else
            a[i] = v;
    }
    for (size_t i = 0; b && i < eb; i++) {
        int8_t v = (int8_t)(i * 37u + 11u);
        if (fl)
            ((float *)(void *)b)[i] = v / 16.0f;
        else
            b[i] = v;
    }
    for (uint32_t j = 0; bias && j < g.n; j++) {
        if (fl)
            ((float *)bias)[j] = (float)j - 3.0f;
        else
            bias[j] = (int32_t)(j * 1000u) - 5000;
    }
    /* the epilogue's last step, one past the list too (the library refuses it, and any with int8) */
    g.epilogue = (tessel_epilogue_t)(fuzz_u8(in) % (TESSEL_EPILOGUE_COUNT + 1u));
    g.a = (opt & 0x10u) ? NULL : a;
    g.b = (opt & 0x20u) ? NULL : b;
    g.c = (opt & 0x40u) ? NULL : c;
    g.bias = bias;
    tessel_completion_t cpl;
    int st = tessel_gemm(device(), &g, &cpl);
    check_status(st);
    if (st == TESSEL_OK)
        CHECK(g.a && g.b && g.c);
    if (st == TESSEL_EINVAL && c)
        CHECK(memcmp(c, c0, ec * oes) == 0);
    /* the bytes between C's rows are never written */
    for (uint32_t i = 0; c && i < g.m; i++)
        for (size_t j = g.n; j < g.ldc && (size_t)i * g.ldc + j < ec; j++)
            CHECK(!memcmp(c + ((size_t)i * g.ldc + j) * oes, c0, oes));
    if (st == TESSEL_OK && !fl) {
        for (uint32_t i = 0; i < g.m; i++) {
            for (uint32_t j = 0; j < g.n; j++) {
                int64_t s = 0;
                for (uint32_t kk = 0; kk < g.k; kk++)
                    s += (int64_t)a[(size_t)i * g.lda + kk] * b[(size_t)kk * g.ldb + j];
                int32_t v = (int32_t)(uint32_t)s;
                if (bias)
                    v = (int32_t)((uint32_t)v + (uint32_t)bias[j]);
                if (g.relu && v < 0)
                    v = 0;
                size_t at = (size_t)i * g.ldc + j;
                if (g.out_dtype == TESSEL_INT8) {
                    int8_t e = ref_sat8(ref_requant(v, g.rq_scale, g.rq_shift, g.rq_zero_point));
                    if ((int8_t)c[at] != e) {
                        fprintf(stderr, "fuzz_api: int8 GEMM %ux%ux%u C[%u][%u] = %d, expected %d\n", g.m, g.n, g.k,
                                i, j, (int8_t)c[at], e);
                        abort();
                    }
                } else {
                    int32_t got;
                    memcpy(&got, c + 4 * at, 4);
                    if (got != v) {
                        fprintf(stderr, "fuzz_api: int8 GEMM %ux%ux%u C[%u][%u] = %d, expected %d\n", g.m, g.n, g.k,
                                i, j, got, v);
                        abort();
                    }
                }
            }
        }
    }
    free(a);
    free(b);
    free(c);
    free(c0);
    free(bias);
}

static void do_submit(fuzz_in_t *in)
{
    tessel_cmd_t cmd;
    for (unsigned i = 0; i < 16; i++)
        cmd.w[i] = fuzz_u32(in);
    tessel_handle_t h;
    int st = tessel_submit(device(), &cmd, &h);
    check_status(st);
    if (st != TESSEL_OK)
        return;
    tessel_completion_t cpl;
    st = tessel_wait(device(), h, 60000, &cpl);
    check_status(st);
    CHECK(st == TESSEL_OK || st == TESSEL_EDEVICE);
    CHECK(cpl.opcode == TSL_GET(cmd.w, TSL_CMD_OPCODE));
    CHECK((st == TESSEL_OK) == (cpl.status == 0));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in_t in = {data, size};
    tessel_dev_t *d = device();
    tessel_addr_t blocks[MAX_BLOCKS];
    unsigned nb = 0;
    static uint8_t host[4096];
    for (unsigned step = 0; step < 24 && in.left; step++) {
        uint8_t op = fuzz_u8(&in) % 6u;
        int st;
        switch (op) {
        case 0: do_gemm(&in); break;
        case 1: do_submit(&in); break;
        case 2: {
            size_t bytes = fuzz_size(&in, 0xffff), align = (size_t)1 << (fuzz_u8(&in) % 24u);
            if (fuzz_u8(&in) == 0xff)
                align = fuzz_u32(&in);
            tessel_addr_t a = 0;
            st = tessel_alloc(d, bytes, align, &a);
            check_status(st);
            if (st == TESSEL_OK) {
                CHECK(a >= TESSEL_HBM_RESERVED && a + bytes <= (1u << 20) && (align == 0 || a % align == 0));
                if (nb < MAX_BLOCKS)
                    blocks[nb++] = a;
                else
                    CHECK(tessel_free(d, a) == TESSEL_OK);
            }
            break;
        }
        case 3: {
            uint8_t sel = fuzz_u8(&in);
            if (nb && sel < 128) {
                unsigned i = sel % nb;
                CHECK(tessel_free(d, blocks[i]) == TESSEL_OK);
                blocks[i] = blocks[--nb];
            } else {
                tessel_addr_t a = fuzz_u32(&in);
                unsigned i = 0;
                while (i < nb && blocks[i] != a)
                    i++;
                st = tessel_free(d, a);
                check_status(st);
                CHECK(st == (i < nb ? TESSEL_OK : TESSEL_EINVAL));
                if (i < nb) {
                    blocks[i] = blocks[--nb];
                }
            }
            break;
        }
        case 4: {
            uint8_t sel = fuzz_u8(&in);
            size_t len = fuzz_u16(&in) % (sizeof host + 1);
            tessel_addr_t a = nb && sel < 128 ? blocks[sel % nb] + fuzz_u8(&in) : fuzz_u32(&in);
            st = (sel & 1u) ? tessel_write(d, a, host, len) : tessel_read(d, host, a, len);
            check_status(st);
            if (st == TESSEL_OK)
                CHECK(a >= TESSEL_HBM_RESERVED && a + len <= (1u << 20));
            break;
        }
        default:
            if (fuzz_u8(&in) < 16) {   /* a reset keeps allocations; nothing is queued here */
                st = tessel_reset(d);
                check_status(st);
                CHECK(st == TESSEL_OK);
            }
            st = tessel_wait(d, fuzz_u32(&in), 0, NULL);
            check_status(st);
            CHECK(st == TESSEL_EINVAL);
            break;
        }
    }
    for (unsigned i = 0; i < nb; i++)
        CHECK(tessel_free(d, blocks[i]) == TESSEL_OK);
    return 0;
}
