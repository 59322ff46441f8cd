/* Property test of the whole host library: random sequences of calls as a legal but hostile caller
 * makes them, on the model or the sim backend; a TESSEL_OK must never come with a wrong result.
 *   prop BACKEND SEQUENCES CALLS      BACKEND model or sim; SEED=... replays
 * Every sequence opens a device (one in three in checking mode, TESSEL_OPEN_CHECK: a shadow model
 * compares every command, and a TESSEL_EMISMATCH fails the test) and makes CALLS random calls:
 *   alloc    random size and alignment: inside the usable HBM, aligned, overlapping no live block;
 *   free     a random block, also one a queued command still uses (the in-flight rule must keep it
 *            from being handed out until that command has completed);
 *   write    random bytes into a block no queued command uses; the test keeps a copy;
 *   read     a block with known contents that no queued command uses: must read back exactly;
 *   gemm     tessel_gemm, int8 -> int32, int8 -> requantised int8, bf16 -> fp32 (small integers, so
 *            that every sum is exact), with bias and ReLU; one in eight with TESSEL_TIMEOUT_MS=1
 *            (a timeout that may expire while the command is queued); every TESSEL_OK is compared
 *            with an independent C reference, element by element;
 *   raw      a raw int8 GEMM on fresh blocks, waited for at once, later or never; some waits with a
 *            timeout of 0 or 1 ms; on the sim some with an AXI SLVERR injected on the reads of A
 *            (TESSEL_EDEVICE expected); a TESSEL_OK result is compared with the reference;
 *   invalid  a raw command broken in one way (opcode, zero size, reserved bits, an operand past HBM
 *            or in the reserved ring region, a short stride) aimed at a block with known contents:
 *            refused (TESSEL_ERANGE at submit for the reserved region, TESSEL_EDEVICE with a
 *            CMD_ERR_BAD_* code otherwise), and the block is unchanged;
 *   wait     a queued raw command;
 *   reset    close the device with commands queued and open it again, or tessel_reset it (each
 *            queued command then completes normally or gives TESSEL_EIO "cancelled").
 * The sequence ends by closing the device with whatever is still queued. Injected faults: short
 * timeouts, invalid commands, AXI errors, closes and resets with commands in flight. A wrong result is a
 * TESSEL_OK whose data differ from the reference (or a read-back that differs from what was
 * written); there must be none. Prints its seed, the counts and "prop: N passed, M failed". */
#include <stdlib.h>

#include "ref.h"
#include "rel_util.h"
#include "tessel_sim_fault.h"

#ifndef TESSEL_TIMEOUT_AUTO   /* a library before the derived timeouts (to show what this test finds there) */
#define TESSEL_TIMEOUT_AUTO 600000u
#endif

#define MAX_BLOCKS 48
#define MAX_CMDS 24

typedef struct {
    unsigned id;                  /* unique in the sequence */
    tessel_addr_t addr;
    uint32_t bytes;
    uint8_t *data;                /* the contents, when known */
    int known, users;             /* users: queued raw commands that use the block */
} blk_t;

typedef struct {
    tessel_handle_t h;
    int invalid;                  /* expected to fail with a CMD_ERR_BAD_* */
    int reset;                    /* queued across a tessel_reset: it may have been cancelled */
    unsigned ida, idb, idc;       /* block ids (0: none) */
    uint32_t m, n, k;
    int32_t *ref;                 /* valid: the expected C */
} cmd_t;

static tu_t T;
static const char *backend;
static int is_sim;
static tessel_dev_t *dev;
static void *sim_ctx;
static int checking;              /* this sequence runs in checking mode (a shadow model compares) */
static tessel_info_t info;
static blk_t blk[MAX_BLOCKS];
static unsigned nblk, next_id;
static cmd_t cmds[MAX_CMDS];
static unsigned ncmds;

static struct {
    unsigned long sequences, calls, alloc, free, write, read, gemm, raw, invalid, wait, reset;
    unsigned long short_timeouts, timeouts_hit, invalid_cmds, axi_errors, closes_in_flight, in_flight_frees;
    unsigned long ok_checked, wrong, resets_api, cancelled, checking;
} n;

static uint32_t rnd(uint32_t k) { return (uint32_t)tu_below(&T.rng, k); }

/* The sim's hooks; a build without the sim (TESSEL_NO_SIM: the sanitizer build) runs the model only. */
#ifdef TESSEL_NO_SIM
static int sim_open(tessel_transport_t *t) { snprintf(t->err, sizeof t->err, "built without the sim"); return TESSEL_ENODEV; }
static void sim_inject(uint64_t addr, uint64_t len) { (void)addr, (void)len; }
static void sim_clear(void) {}
#else
static int sim_open(tessel_transport_t *t) { return tessel_transport_sim_open(t, NULL); }
static void sim_inject(uint64_t addr, uint64_t len) { tessel_sim_inject(sim_ctx, addr, len, 0, 2); }
static void sim_clear(void) { tessel_sim_clear_faults(sim_ctx); }
#endif

static int dev_open(void)
{
    tessel_transport_t t;
    memset(&t, 0, sizeof t);
    int st = is_sim ? sim_open(&t) : tessel_transport_model_open(&t, NULL);
    if (st) {
        printf("open %s: %s: %s\n", backend, tessel_strerror(st), t.err);
        return st;
    }
    sim_ctx = t.ctx;
    if ((st = tessel_open_transport(&dev, &t, checking ? TESSEL_OPEN_CHECK : 0)))
        return st;
    return tessel_info(dev, &info);
}

static void forget_all(void)
{
    for (unsigned i = 0; i < nblk; i++)
        free(blk[i].data);
    for (unsigned i = 0; i < ncmds; i++)
        free(cmds[i].ref);
    nblk = ncmds = 0;
}

static void dev_close(void)
{
    if (ncmds)
        n.closes_in_flight++;
    tessel_close(dev);
    dev = NULL;
    forget_all();
}

static blk_t *find(unsigned id)
{
    for (unsigned i = 0; i < nblk && id; i++)
        if (blk[i].id == id)
            return &blk[i];
    return NULL;
}

static void wrong(const char *what, uint64_t addr, unsigned expected, unsigned got)
{
    n.wrong++;
    tu_check(&T, 0, "WRONG RESULT with TESSEL_OK: %s: first difference at 0x%llx: expected 0x%x, got 0x%x", what,
             (unsigned long long)addr, expected, got);
}

/* ------------------------------------------------------------------------------------ calls */

static blk_t *do_alloc(uint32_t bytes, size_t align)
{
    tessel_addr_t a;
    n.alloc++;
    if (nblk == MAX_BLOCKS)
        return NULL;
    int st = tessel_alloc(dev, bytes, align, &a);
    if (st == TESSEL_ENOMEM)
        return NULL;
    if (!tu_check(&T, st == TESSEL_OK, "alloc %u align %zu: %s (%s)", bytes, align, tessel_strerror(st),
                  tessel_last_error(dev)))
        return NULL;
    int ok = a >= TESSEL_HBM_RESERVED && a + bytes <= info.hbm_bytes && a % (align ? align : 64) == 0;
    for (unsigned i = 0; i < nblk && ok; i++)
        ok = a + bytes <= blk[i].addr || a >= blk[i].addr + blk[i].bytes;
    tu_check(&T, ok, "alloc %u align %zu gave 0x%llx: outside the usable HBM, misaligned or overlapping", bytes,
             align, (unsigned long long)a);
    blk_t *b = &blk[nblk++];
    memset(b, 0, sizeof *b);
    b->id = ++next_id;
    b->addr = a;
    b->bytes = bytes;
    b->data = malloc(bytes);
    return b;
}

static void do_free(blk_t *b)
{
    n.free++;
    if (b->users)
        n.in_flight_frees++;
    int st = tessel_free(dev, b->addr);
    tu_check(&T, st == TESSEL_OK, "free 0x%llx: %s", (unsigned long long)b->addr, tessel_strerror(st));
    free(b->data);
    *b = blk[--nblk];
}

static int do_write(blk_t *b)
{
    n.write++;
    for (uint32_t i = 0; i < b->bytes; i++)
        b->data[i] = (uint8_t)tu_next(&T.rng);
    int st = tessel_write(dev, b->addr, b->data, b->bytes);
    b->known = st == TESSEL_OK;
    return tu_check(&T, st == TESSEL_OK, "write %u bytes at 0x%llx: %s", b->bytes, (unsigned long long)b->addr,
                    tessel_strerror(st));
}

/* Compare a known block with the device. */
static void check_block(const blk_t *b, const char *what)
{
    uint8_t *got = malloc(b->bytes);
    int st = tessel_read(dev, got, b->addr, b->bytes);
    if (tu_check(&T, st == TESSEL_OK, "%s: read: %s", what, tessel_strerror(st))) {
        n.ok_checked++;
        for (uint32_t i = 0; i < b->bytes; i++)
            if (got[i] != b->data[i]) {
                wrong(what, b->addr + i, b->data[i], got[i]);
                break;
            }
    }
    free(got);
}

static int32_t sat8(int64_t v) { return v > 127 ? 127 : v < -128 ? -128 : (int32_t)v; }

/* REQUANT (hw/model/ref.h, independent of the model), then saturated to int8. */
static int32_t requant(int32_t x, int32_t scale, uint32_t shift, int32_t zp)
{
    return sat8(ref_requant(x, scale, shift, zp));
}

static void do_gemm(void)
{
    n.gemm++;
    uint32_t lim = is_sim ? 24 : 48, m = 1 + rnd(lim), nn = 1 + rnd(lim), k = 1 + rnd(lim), kind = rnd(3);
    int relu = rnd(2), bias = rnd(2), short_to = rnd(8) == 0;
    int32_t rq_scale = kind == 1 ? 1 + (int32_t)rnd(1u << 12) : 0, rq_zp = kind == 1 ? (int32_t)rnd(21) - 10 : 0;
    uint32_t rq_shift = kind == 1 ? 6 + rnd(10) : 0;
    int *ai = malloc(sizeof(int) * m * k), *bi = malloc(sizeof(int) * k * nn), *bs = malloc(sizeof(int) * nn);
    int8_t *a8 = malloc((size_t)m * k), *b8 = malloc((size_t)k * nn);
    float *af = malloc(sizeof(float) * m * k), *bf = malloc(sizeof(float) * k * nn), *biasf = malloc(4u * nn);
    int32_t *bias32 = malloc(4u * nn), *c32 = malloc(4u * m * nn);
    int8_t *c8 = malloc((size_t)m * nn);
    float *cf = malloc(sizeof(float) * m * nn);
    int range = kind == 2 ? 8 : 128;
    for (uint32_t i = 0; i < m * k; i++) {
        ai[i] = (int)rnd(2 * range) - range;
        a8[i] = (int8_t)ai[i];
        af[i] = (float)ai[i];
    }
    for (uint32_t i = 0; i < k * nn; i++) {
        bi[i] = (int)rnd(2 * range) - range;
        b8[i] = (int8_t)bi[i];
        bf[i] = (float)bi[i];
    }
    for (uint32_t j = 0; j < nn; j++) {
        bs[j] = (int)rnd(2001) - 1000;
        bias32[j] = bs[j];
        biasf[j] = (float)bs[j];
    }
    tessel_gemm_t g = {.m = m, .n = nn, .k = k, .relu = relu, .scale = 1.0f, .lda = k, .ldb = nn, .ldc = nn};
    if (kind == 2) {
        g.in_dtype = TESSEL_BF16;
        g.out_dtype = TESSEL_FP32;
        g.a = af;
        g.b = bf;
        g.c = cf;
        g.bias = bias ? biasf : NULL;
    } else {
        g.in_dtype = TESSEL_INT8;
        g.out_dtype = kind == 1 ? TESSEL_INT8 : TESSEL_INT32;
        g.a = a8;
        g.b = b8;
        g.c = kind == 1 ? (void *)c8 : (void *)c32;
        g.bias = bias ? bias32 : NULL;
        g.rq_scale = rq_scale;
        g.rq_shift = rq_shift;
        g.rq_zero_point = rq_zp;
    }
    if (short_to) {
        n.short_timeouts++;
        setenv("TESSEL_TIMEOUT_MS", "1", 1);
    }
    int st = tessel_gemm(dev, &g, NULL);
    unsetenv("TESSEL_TIMEOUT_MS");
    if (st == TESSEL_ETIMEOUT && short_to) {
        n.timeouts_hit++;
    } else if (tu_check(&T, st == TESSEL_OK, "gemm %ux%ux%u kind %u: %s (%s)", m, nn, k, kind, tessel_strerror(st),
                        tessel_last_error(dev))) {
        n.ok_checked++;
        for (uint32_t i = 0; i < m; i++)
            for (uint32_t j = 0; j < nn; j++) {
                int64_t s = bias ? bs[j] : 0;
                for (uint32_t q = 0; q < k; q++)
                    s += (int64_t)ai[i * k + q] * bi[q * nn + j];
                if (relu && s < 0)
                    s = 0;
                int64_t want = kind == 1 ? requant((int32_t)s, rq_scale, rq_shift, rq_zp) : s;
                int64_t got = kind == 0 ? c32[i * nn + j] : kind == 1 ? c8[i * nn + j] : (int64_t)cf[i * nn + j];
                if (got != want || (kind == 2 && cf[i * nn + j] != (float)s)) {
                    char what[96];
                    snprintf(what, sizeof what, "tessel_gemm %ux%ux%u kind %u C[%u][%u]", m, nn, k, kind, i, j);
                    wrong(what, (uint64_t)i * nn + j, (unsigned)want, (unsigned)got);
                    i = m;
                    break;
                }
            }
    }
    free(ai), free(bi), free(bs), free(a8), free(b8), free(af), free(bf), free(biasf), free(bias32), free(c32);
    free(c8), free(cf);
}

/* The outcome of a raw command's wait. */
static void finish(cmd_t *c, int st, const tessel_completion_t *cpl)
{
    blk_t *bc = find(c->idc);
    if (c->reset && st == TESSEL_EIO && strstr(tessel_last_error(dev), "cancelled by tessel_reset")) {
        n.cancelled++;
        if (bc && !c->invalid)
            bc->known = 0;   /* it may have written part of C */
    } else if (c->invalid) {
        tu_check(&T, st == TESSEL_EDEVICE && cpl->status >= 1 && cpl->status <= 5,
                 "invalid command: %s, completion status %d (%s)", tessel_strerror(st), cpl->status,
                 tessel_last_error(dev));
        if (bc && bc->known)
            check_block(bc, "the target of an invalid command");
    } else if (c->ref == NULL) {   /* an AXI error was injected */
        tu_check(&T, st == TESSEL_EDEVICE && cpl->status == (int32_t)TSL_CMD_ERR_DEVICE,
                 "raw GEMM with SLVERR on A: %s, status %d", tessel_strerror(st), cpl->status);
        if (bc)
            bc->known = 0;
    } else if (tu_check(&T, st == TESSEL_OK, "raw GEMM %ux%ux%u: %s (%s)", c->m, c->n, c->k, tessel_strerror(st),
                        tessel_last_error(dev)) && bc) {
        int32_t *got = malloc(4u * c->m * c->n);
        if (tu_check(&T, tessel_read(dev, got, bc->addr, 4u * c->m * c->n) == TESSEL_OK, "read raw C")) {
            n.ok_checked++;
            for (uint32_t i = 0; i < c->m * c->n; i++)
                if (got[i] != c->ref[i]) {
                    wrong("raw GEMM C", bc->addr + 4u * i, (unsigned)c->ref[i], (unsigned)got[i]);
                    break;
                }
            memcpy(bc->data, got, 4u * c->m * c->n);
            bc->known = bc->bytes == 4u * c->m * c->n;
        }
        free(got);
    }
    unsigned ids[3] = {c->ida, c->idb, c->idc};
    for (int i = 0; i < 3; i++) {
        blk_t *b = find(ids[i]);
        if (b)
            b->users--;
    }
    free(c->ref);
    *c = cmds[--ncmds];
}

static void do_wait(unsigned i, uint32_t timeout_ms)
{
    tessel_completion_t cpl;
    memset(&cpl, 0, sizeof cpl);
    n.wait++;
    int st = tessel_wait(dev, cmds[i].h, timeout_ms, &cpl);
    if (st == TESSEL_ETIMEOUT && timeout_ms <= 1) {
        n.timeouts_hit++;
        return;   /* still queued */
    }
    finish(&cmds[i], st, &cpl);
}

static void do_raw(void)
{
    n.raw++;
    if (ncmds == MAX_CMDS || nblk + 3 > MAX_BLOCKS)
        return;
    uint32_t lim = is_sim ? 24 : 48, m = 1 + rnd(lim), nn = 1 + rnd(lim), k = 1 + rnd(lim);
    blk_t *ba = do_alloc(m * k, 64), *bb = ba ? do_alloc(k * nn, 64) : NULL, *bc = bb ? do_alloc(4u * m * nn, 64)
                                                                                          : NULL;
    if (!bc || !do_write(ba) || !do_write(bb))
        return;
    int inject = is_sim && !checking && rnd(6) == 0;   /* the model would not see the fault */
    cmd_t *c = &cmds[ncmds];
    memset(c, 0, sizeof *c);
    c->ida = ba->id, c->idb = bb->id, c->idc = bc->id, c->m = m, c->n = nn, c->k = k;
    if (!inject) {
        c->ref = malloc(4u * m * nn);
        rel_gemm_ref(m, nn, k, (const int8_t *)ba->data, (const int8_t *)bb->data, c->ref);
    }
    tessel_cmd_t cmd = rel_gemm_cmd(m, nn, k, ba->addr, bb->addr, bc->addr);
    if (inject) {
        n.axi_errors++;
        sim_inject(ba->addr, ba->bytes);
    }
    int st = tessel_submit(dev, &cmd, &c->h);
    if (!tu_check(&T, st == TESSEL_OK, "raw submit: %s (%s)", tessel_strerror(st), tessel_last_error(dev))) {
        free(c->ref);
        if (inject)
            sim_clear();
        return;
    }
    ncmds++;
    ba->users++, bb->users++, bc->users++;
    unsigned ida = ba->id, idc = bc->id;   /* c moves when a command finishes */
    if (inject) {   /* wait at once: the injection must not outlive the command */
        do_wait(ncmds - 1, TESSEL_TIMEOUT_AUTO);
        sim_clear();
        return;
    }
    uint32_t r = rnd(4);
    if (r == 0) {
        do_wait(ncmds - 1, TESSEL_TIMEOUT_AUTO);
    } else if (r == 1) {
        n.short_timeouts++;
        do_wait(ncmds - 1, rnd(2));
    }
    if (rnd(3) == 0) {   /* free some of its blocks while it may still be queued */
        blk_t *b = find(rnd(2) ? ida : idc);
        if (b)
            do_free(b);
    }
}

static void do_invalid(void)
{
    n.invalid++;
    if (ncmds == MAX_CMDS)
        return;
    blk_t *t = NULL;
    for (unsigned tries = 0; tries < 4 && nblk && !t; tries++) {
        blk_t *b = &blk[rnd(nblk)];
        if (!b->users && b->known && b->bytes >= 64)
            t = b;
    }
    uint32_t c_addr = t ? (uint32_t)t->addr : (uint32_t)info.hbm_bytes - 64u;
    tessel_cmd_t cmd = rel_gemm_cmd(4, 4, 4, c_addr, c_addr + 16, c_addr);   /* 4x4x4 into 64 bytes */
    uint32_t *w = cmd.w, how = rnd(7);
    switch (how) {
    case 0: TSL_SET(w, TSL_CMD_OPCODE, TSL_CMD_OP_LIMIT + rnd(200)); break;
    case 1: w[TSL_CMD_M_WORD] = 0; break;
    case 2: w[0] |= 1u << (16 + rnd(16)); break;
    case 3: w[TSL_CMD_A_ADDR_WORD] = (uint32_t)info.hbm_bytes + rnd(64); break;
    case 4: w[TSL_CMD_C_ADDR_WORD] = rnd(TESSEL_HBM_RESERVED); break;   /* the ring region */
    case 5: w[TSL_CMD_LDC_WORD] = 4; break;                            /* shorter than a row */
    default: w[TSL_CMD_ZERO_POINT_WORD] = 1 + rnd(100); break;         /* a word this GEMM does not use */
    }
    n.invalid_cmds++;
    cmd_t *c = &cmds[ncmds];
    memset(c, 0, sizeof *c);
    c->invalid = 1;
    c->idc = t ? t->id : 0;
    int st = tessel_submit(dev, &cmd, &c->h);
    if (how == 4)
        tu_check(&T, st == TESSEL_ERANGE, "a command into the ring region: submit gave %s", tessel_strerror(st));
    else
        tu_check(&T, st == TESSEL_OK, "invalid submit (%u): %s (%s)", how, tessel_strerror(st),
                 tessel_last_error(dev));
    if (st != TESSEL_OK)
        return;
    ncmds++;
    if (t)
        t->users++;
    if (how == 4) {
        do_wait(ncmds - 1, TESSEL_TIMEOUT_AUTO);
        return;
    }
    if (rnd(2))
        do_wait(ncmds - 1, TESSEL_TIMEOUT_AUTO);
}

static void sequence(unsigned calls)
{
    n.sequences++;
    checking = rnd(3) == 0;
    n.checking += (unsigned long)checking;
    if (!tu_check(&T, dev_open() == 0, "open %s", backend))
        return;
    for (unsigned c = 0; c < calls; c++) {
        n.calls++;
        uint32_t op = rnd(100);
        if (op < 14) {
            static const size_t aligns[] = {0, 1, 4, 64, 256, 4096};
            (void)do_alloc(1 + rnd(is_sim ? 8192 : 65536), aligns[rnd(6)]);
        } else if (op < 24) {
            if (nblk)
                do_free(&blk[rnd(nblk)]);
        } else if (op < 38) {
            blk_t *b = nblk ? &blk[rnd(nblk)] : NULL;
            if (b && !b->users)
                (void)do_write(b);
        } else if (op < 48) {
            n.read++;
            blk_t *b = nblk ? &blk[rnd(nblk)] : NULL;
            if (b && !b->users && b->known)
                check_block(b, "read-back of a written block");
        } else if (op < 64) {
            do_gemm();
        } else if (op < 78) {
            do_raw();
        } else if (op < 86) {
            do_invalid();
        } else if (op < 97) {
            if (ncmds) {
                uint32_t to = rnd(5) ? TESSEL_TIMEOUT_AUTO : rnd(2);
                n.short_timeouts += to != TESSEL_TIMEOUT_AUTO;
                do_wait(rnd(ncmds), to);
            }
        } else if (rnd(2)) {
            n.reset++;
            dev_close();
            if (!tu_check(&T, dev_open() == 0, "reopen %s", backend))
                return;
        } else {   /* tessel_reset: queued commands complete or are cancelled; blocks stay */
            n.reset++;
            n.resets_api++;
            if (ncmds)
                n.closes_in_flight++;
            int st = tessel_reset(dev);
            if (!tu_check(&T, st == TESSEL_OK, "tessel_reset: %s (%s)", tessel_strerror(st), tessel_last_error(dev)))
                return;
            for (unsigned i = 0; i < ncmds; i++)
                cmds[i].reset = 1;
        }
    }
    dev_close();
}

int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[1], "sim") && strcmp(argv[1], "model")) || atoi(argv[2]) <= 0 ||
        atoi(argv[3]) <= 0) {
        fprintf(stderr, "usage: prop sim|model SEQUENCES CALLS   (SEED=... replays)\n");
        return 2;
    }
    backend = argv[1];
    is_sim = !strcmp(backend, "sim");
    tu_init(&T, "prop", 1, argv);
    unsetenv("TESSEL_TIMEOUT_MS");
    uint64_t t0 = rel_now_ms();
    for (int s = 0; s < atoi(argv[2]); s++)
        sequence((unsigned)atoi(argv[3]));
    printf("prop: %s: %lu sequences (%lu in checking mode), %lu calls (%lu alloc, %lu free, %lu write, %lu read, %lu gemm, %lu raw, "
           "%lu invalid, %lu wait, %lu reset) in %.1f s\n", backend, n.sequences, n.checking, n.calls, n.alloc, n.free, n.write,
           n.read, n.gemm, n.raw, n.invalid, n.wait, n.reset, (rel_now_ms() - t0) / 1000.0);
    printf("prop: %lu injected faults: %lu short timeouts (%lu expired), %lu invalid commands, %lu AXI errors, "
           "%lu closes or resets with commands in flight; %lu frees of blocks in flight; %lu tessel_reset, "
           "%lu commands it cancelled\n",
           n.short_timeouts + n.invalid_cmds + n.axi_errors + n.closes_in_flight, n.short_timeouts, n.timeouts_hit,
           n.invalid_cmds, n.axi_errors, n.closes_in_flight, n.in_flight_frees, n.resets_api, n.cancelled);
    printf("prop: %lu results checked, %lu wrong results\n", n.ok_checked, n.wrong);
    return tu_done(&T);
}
