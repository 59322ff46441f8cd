/* make test-rel-lib-model, test-rel-lib-sim: the library's rules for in-flight commands, the
 * reserved region and bounded waits (docs/reliability.md, docs/host-api.md).
 *   test_lib BACKEND [SEED]     BACKEND model or sim; SEED=... replays (it seeds the operands)
 * Cases:
 *   inflight   a tessel_gemm whose timeout expires ($TESSEL_TIMEOUT_MS=1) while its command is still
 *              queued, then GEMMs of other shapes: each is exact or an error, never TESSEL_OK with a
 *              wrong C; the same with a raw GEMM whose tessel_wait times out and whose buffers the
 *              caller frees at once. Then every old command is waited for and the device still works.
 *   reasons    tessel_gemm's ENOMEM for a C larger than HBM and its EINVAL for a short stride say why.
 *   reserved   raw commands whose operands reach into [0, TESSEL_HBM_RESERVED) (the FILL over the
 *              command ring of issue 23, a COPY reading the completion ring, a GEMM whose C ends one
 *              byte into it, an ELTWISE with a broadcast B there) are refused by tessel_submit with
 *              TESSEL_ERANGE and a message; the device keeps working (a GEMM after them is exact).
 *   firmware   entries written straight into the command ring through the transport (past the
 *              library's check): a PROGRAM whose window reaches into a ring is CMD_ERR_BAD_ADDR with
 *              detail WIN_BASE's word, a raw FILL CMD_ERR_BAD_OPCODE (the firmware plans nothing), and
 *              the rings are intact (the next command through the library works).
 *   reset      a raw GEMM still queued (on the sim its read of A held 300 000 cycles) is dropped by
 *              tessel_reset: its wait gives TESSEL_EIO "cancelled" (or TESSEL_OK, exact, when it had
 *              completed), and a GEMM over its memory afterwards is exact; again in checking mode
 *              (the shadow model forgets the dropped command: no TESSEL_EMISMATCH).
 *   bounded    (sim) a DMA burst that never completes, with the library's defaults: tessel_gemm
 *              returns an error within 2 000 000 device cycles, seconds (the watchdog tessel_open
 *              arms); the same with the watchdog disabled: TESSEL_ETIMEOUT from the default timeout,
 *              within 2 000 000 device cycles.
 *   args       (issue 32) one rule per float argument: tessel_f32_arg refuses a scale of 0, one that
 *              rounds to 0 or overflows in float32 (1e-50, -1e-50, 1e39), an eps below 0, rounding to
 *              0 or overflowing, with "NAME V is refused: why"; the calls refuse an infinite or NaN
 *              scale and a negative eps with EINVAL and nothing run; tessel_open refuses the options
 *              a backend would ignore (model: firmware, trace, timeline, port; sim: port), a bad
 *              $TESSEL_TIMEOUT_MS (abc, -5, 0, 2^32 - 1, 0x10), $TESSEL_UART_TIMEOUT_MS or $TESSEL_CHECK,
 *              and a GEMM refuses a
 *              bad $TESSEL_TIMEOUT_MS set after the open with nothing submitted.
 *   elf        (issue 32) the ELF loader refuses a PT_LOAD whose p_memsz reaches past the core's RAM
 *              (0xFFFFFFF0, one byte past its end) or is below p_filesz; a fitting one loads.
 * A SIGALRM guard fails the program when a case takes longer than REL_LIB_LIMIT_S seconds. */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "elf_image.h"
#include "rel_util.h"
#include "tessel_sim_fault.h"

#define REL_LIB_LIMIT_S 240u   /* per case */

static tu_t T;
static const char *backend;
static volatile const char *current = "start";
static uint32_t open_flags;       /* TESSEL_OPEN_CHECK for the checking-mode pass of case_reset */

static void on_alarm(int sig)
{
    (void)sig;
    printf("FAIL test_lib: %s: no answer within %u s\n", (const char *)current, REL_LIB_LIMIT_S);
    printf("rel_lib: %d passed, %d failed\n", T.passed, T.failed + 1);
    fflush(stdout);
    _exit(1);
}

/* Open a device on `backend`, keeping a copy of its transport (for the fault hooks and raw access). */
static int open_dev(tessel_dev_t **d, tessel_transport_t *t)
{
    int st;
    memset(t, 0, sizeof *t);
    if (!strcmp(backend, "model"))
        st = tessel_transport_model_open(t, NULL);
    else
        st = tessel_transport_sim_open(t, NULL);
    if (st) {
        printf("open %s: %s: %s\n", backend, tessel_strerror(st), t->err);
        return st;
    }
    return tessel_open_transport(d, t, open_flags);
}

static void fill_i8(int8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (int8_t)tu_next(&T.rng);
}

/* tessel_gemm of an int8 m x n x k (int32 C) with random operands; 1 when it returned TESSEL_OK. */
static int gemm_checked(tessel_dev_t *d, uint32_t m, uint32_t n, uint32_t k, const char *what, int must_ok)
{
    int8_t *a = malloc((size_t)m * k), *b = malloc((size_t)k * n);
    int32_t *c = malloc(4u * m * n), *ref = malloc(4u * m * n);
    fill_i8(a, (size_t)m * k);
    fill_i8(b, (size_t)k * n);
    memset(c, 0x5A, 4u * m * n);
    rel_gemm_ref(m, n, k, a, b, ref);
    tessel_gemm_t g = {.m = m, .n = n, .k = k, .in_dtype = TESSEL_INT8, .out_dtype = TESSEL_INT32,
                       .a = a, .lda = k, .b = b, .ldb = n, .c = c, .ldc = n, .scale = 1.0f};
    int st = tessel_gemm(d, &g, NULL);
    uint32_t wrong = 0, first = 0;
    if (st == TESSEL_OK)
        for (uint32_t i = 0; i < m * n; i++)
            if (c[i] != ref[i] && !wrong++)
                first = i;
    if (wrong)
        printf("  %s: C[%u][%u] = %d, expected %d (%u of %u wrong)\n", what, first / n, first % n, c[first],
               ref[first], wrong, m * n);
    tu_check(&T, wrong == 0, "%s: %ux%ux%u GEMM returned TESSEL_OK with %u wrong elements", what, m, n, k, wrong);
    if (must_ok)
        tu_check(&T, st == TESSEL_OK, "%s: %ux%ux%u GEMM: %s (%s)", what, m, n, k, tessel_strerror(st),
                 tessel_last_error(d));
    free(a);
    free(b);
    free(c);
    free(ref);
    return st == TESSEL_OK;
}

/* ------------------------------------------------------------------------------------ cases */

static void case_inflight(void)
{
    tessel_dev_t *d;
    tessel_transport_t t;
    current = "inflight";
    alarm(REL_LIB_LIMIT_S);
    if (!tu_check(&T, open_dev(&d, &t) == 0, "inflight: open %s", backend))
        return;
    /* 1. tessel_gemm times out; the next GEMMs (other shapes) must not share its buffers. */
    setenv("TESSEL_TIMEOUT_MS", "1", 1);
    int8_t a[64 * 64], b[64 * 64];
    int32_t c[64 * 64];
    fill_i8(a, sizeof a);
    fill_i8(b, sizeof b);
    tessel_gemm_t g = {.m = 64, .n = 64, .k = 64, .in_dtype = TESSEL_INT8, .out_dtype = TESSEL_INT32,
                       .a = a, .lda = 64, .b = b, .ldb = 64, .c = c, .ldc = 64, .scale = 1.0f};
    int st = tessel_gemm(d, &g, NULL);
    unsetenv("TESSEL_TIMEOUT_MS");
    printf("  inflight: a 64x64x64 GEMM with TESSEL_TIMEOUT_MS=1: %s %s\n", tessel_strerror(st),
           st ? tessel_last_error(d) : "");
    gemm_checked(d, 16, 64, 256, "after a timed-out tessel_gemm", 0);   /* A, B over the old C */
    gemm_checked(d, 48, 40, 24, "after a timed-out tessel_gemm, second", 0);

    /* 2. a raw GEMM times out; the caller frees its buffers at once and runs tessel_gemm. */
    tessel_addr_t da, db, dc;
    tessel_handle_t h;
    int ok = !tessel_alloc(d, sizeof a, 64, &da) && !tessel_alloc(d, sizeof b, 64, &db) &&
             !tessel_alloc(d, sizeof c, 64, &dc) && !tessel_write(d, da, a, sizeof a) &&
             !tessel_write(d, db, b, sizeof b);
    tessel_cmd_t cmd = rel_gemm_cmd(64, 64, 64, da, db, dc);
    ok = ok && !tessel_submit(d, &cmd, &h);
    tu_check(&T, ok, "inflight: raw GEMM setup: %s", tessel_last_error(d));
    if (ok) {
        st = tessel_wait(d, h, 0, NULL);
        printf("  inflight: a raw 64x64x64 GEMM waited for with timeout 0: %s\n", tessel_strerror(st));
        (void)tessel_free(d, da);
        (void)tessel_free(d, db);
        (void)tessel_free(d, dc);
        gemm_checked(d, 8, 128, 256, "after a timed-out raw GEMM whose buffers were freed", 0);
        if (st == TESSEL_ETIMEOUT) {
            st = tessel_wait(d, h, 600000, NULL);
            tu_check(&T, st == TESSEL_OK, "inflight: the raw GEMM's later wait: %s (%s)", tessel_strerror(st),
                     tessel_last_error(d));
        }
    }
    gemm_checked(d, 33, 17, 70, "inflight: a GEMM after all of it", 1);
    tessel_close(d);
}

/* Every failure of tessel_gemm says why (issue 23: a tall A whose C exceeds HBM gave an empty
 * reason). The operands are never read: the sizes are refused first. */
static void case_reasons(void)
{
    tessel_dev_t *d;
    tessel_transport_t t;
    current = "reasons";
    alarm(REL_LIB_LIMIT_S);
    if (!tu_check(&T, open_dev(&d, &t) == 0, "reasons: open %s", backend))
        return;
    int8_t a[16], b[16];
    int32_t c[16];
    tessel_gemm_t g = {.m = 1u << 22, .n = 4096, .k = 1, .in_dtype = TESSEL_INT8, .out_dtype = TESSEL_INT32,
                       .a = a, .lda = 1, .b = b, .ldb = 4096, .c = c, .ldc = 4096, .scale = 1.0f};
    int st = tessel_gemm(d, &g, NULL);
    printf("  reasons: a tall A whose C exceeds HBM: %s: %s\n", tessel_strerror(st), tessel_last_error(d));
    tu_check(&T, st == TESSEL_ENOMEM && strstr(tessel_last_error(d), "C 68719476736 bytes"),
             "reasons: a C larger than HBM: %s, reason \"%s\"", tessel_strerror(st), tessel_last_error(d));
    g.m = 4, g.n = 4, g.k = 4, g.ldb = 4, g.ldc = 4, g.lda = 2;   /* LDA shorter than a row */
    st = tessel_gemm(d, &g, NULL);
    tu_check(&T, st == TESSEL_EINVAL && strstr(tessel_last_error(d), "lda 2 is shorter than a row"),
             "reasons: a short LDA: %s, reason \"%s\"", tessel_strerror(st), tessel_last_error(d));
    tessel_close(d);
}

static tessel_cmd_t fill_cmd(uint32_t c_addr, uint32_t m, uint32_t n, uint32_t ldc, uint32_t value)
{
    tessel_cmd_t cmd;
    memset(&cmd, 0, sizeof cmd);
    TSL_SET(cmd.w, TSL_CMD_OPCODE, TSL_CMD_OP_FILL);
    cmd.w[TSL_CMD_M_WORD] = m;
    cmd.w[TSL_CMD_N_WORD] = n;
    cmd.w[TSL_CMD_C_ADDR_WORD] = c_addr;
    cmd.w[TSL_CMD_LDC_WORD] = ldc;
    cmd.w[TSL_CMD_SCALE_WORD] = value;
    return cmd;
}

static void case_reserved(void)
{
    tessel_dev_t *d;
    tessel_transport_t t;
    current = "reserved";
    alarm(REL_LIB_LIMIT_S);
    if (!tu_check(&T, open_dev(&d, &t) == 0, "reserved: open %s", backend))
        return;
    tessel_addr_t buf;
    if (!tu_check(&T, !tessel_alloc(d, 1u << 16, 64, &buf), "reserved: alloc")) {
        tessel_close(d);
        return;
    }
    struct {
        const char *what;
        tessel_cmd_t cmd;
    } bad[5];
    bad[0].what = "FILL over the command ring (C_ADDR 0, M 1, N 4096, LDC 4096)";
    bad[0].cmd = fill_cmd(0, 1, 4096, 4096, 0xFFFFFFFFu);
    bad[1].what = "COPY reading the completion ring";
    memset(&bad[1].cmd, 0, sizeof bad[1].cmd);
    TSL_SET(bad[1].cmd.w, TSL_CMD_OPCODE, TSL_CMD_OP_COPY);
    bad[1].cmd.w[TSL_CMD_M_WORD] = 4;
    bad[1].cmd.w[TSL_CMD_N_WORD] = 64;
    bad[1].cmd.w[TSL_CMD_A_ADDR_WORD] = 0x1000;
    bad[1].cmd.w[TSL_CMD_LDA_WORD] = 64;
    bad[1].cmd.w[TSL_CMD_C_ADDR_WORD] = (uint32_t)buf;
    bad[1].cmd.w[TSL_CMD_LDC_WORD] = 64;
    bad[2].what = "GEMM whose C ends one byte into the reserved region";
    bad[2].cmd = rel_gemm_cmd(2, 4, 4, buf, buf + 64, TESSEL_HBM_RESERVED - 31u);   /* rows of 16 bytes */
    bad[3].what = "ELTWISE with a broadcast B in the command ring";
    memset(&bad[3].cmd, 0, sizeof bad[3].cmd);
    TSL_SET(bad[3].cmd.w, TSL_CMD_OPCODE, TSL_CMD_OP_ELTWISE);
    TSL_SET(bad[3].cmd.w, TSL_CMD_VPU_OP, TSL_VPU_OP_ADD);
    TSL_SET(bad[3].cmd.w, TSL_CMD_A_DTYPE, TSL_DTYPE_INT8);
    TSL_SET(bad[3].cmd.w, TSL_CMD_B_DTYPE, TSL_DTYPE_INT8);
    TSL_SET(bad[3].cmd.w, TSL_CMD_C_DTYPE, TSL_DTYPE_INT8);
    TSL_SET(bad[3].cmd.w, TSL_CMD_FLAGS, 1u << TSL_CMD_FLAG_B_BCAST);
    bad[3].cmd.w[TSL_CMD_M_WORD] = 2;
    bad[3].cmd.w[TSL_CMD_N_WORD] = 32;
    bad[3].cmd.w[TSL_CMD_A_ADDR_WORD] = (uint32_t)buf;
    bad[3].cmd.w[TSL_CMD_LDA_WORD] = 32;
    bad[3].cmd.w[TSL_CMD_B_ADDR_WORD] = 0x40;
    bad[3].cmd.w[TSL_CMD_C_ADDR_WORD] = (uint32_t)buf + 1024;
    bad[3].cmd.w[TSL_CMD_LDC_WORD] = 32;
    bad[4].what = "GEMM with a bias at address 0";
    bad[4].cmd = rel_gemm_cmd(4, 4, 4, buf, buf + 64, buf + 128);
    TSL_SET(bad[4].cmd.w, TSL_CMD_FLAGS, 1u << TSL_CMD_FLAG_BIAS);
    bad[4].cmd.w[TSL_CMD_BIAS_ADDR_WORD] = 0;
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tessel_handle_t h = 0;
        int st = tessel_submit(d, &bad[i].cmd, &h);
        const char *why = tessel_last_error(d);
        tu_check(&T, st == TESSEL_ERANGE && *why, "reserved: %s: %s (%s)", bad[i].what, tessel_strerror(st), why);
        if (st == TESSEL_OK) {
            st = tessel_wait(d, h, 60000, NULL);
            printf("  reserved: %s was accepted; its wait: %s (%s)\n", bad[i].what, tessel_strerror(st),
                   tessel_last_error(d));
        } else if (i == 0) {
            printf("  reserved: %s: %s\n", bad[i].what, why);
        }
    }
    /* operands that start right at the end of the reserved region are fine */
    tessel_cmd_t edge = fill_cmd(TESSEL_HBM_RESERVED, 1, 64, 64, 7);
    tessel_handle_t h;
    int st = tessel_submit(d, &edge, &h);
    if (!st)
        st = tessel_wait(d, h, 60000, NULL);
    tu_check(&T, st == TESSEL_OK, "reserved: a FILL at TESSEL_HBM_RESERVED: %s (%s)", tessel_strerror(st),
             tessel_last_error(d));
    gemm_checked(d, 20, 24, 28, "reserved: a GEMM after the refused commands", 1);
    tessel_close(d);
}

static void case_firmware(void)
{
    tessel_dev_t *d;
    tessel_transport_t t;
    current = "firmware";
    alarm(REL_LIB_LIMIT_S);
    if (!tu_check(&T, open_dev(&d, &t) == 0, "firmware: open %s", backend))
        return;
    /* the library set the rings up (CMD_BASE 0, CPL_BASE 0x1000) and has submitted nothing */
    uint32_t head = 0, cpl_head = 0, base = 0, cpl_base = 0, size = 0, cpl_size = 0;
    t.hostif_read(t.ctx, TSL_HOSTIF_CMD_HEAD_OFFSET, &head);
    t.hostif_read(t.ctx, TSL_HOSTIF_CPL_HEAD_OFFSET, &cpl_head);
    t.hostif_read(t.ctx, TSL_HOSTIF_CMD_BASE_OFFSET, &base);
    t.hostif_read(t.ctx, TSL_HOSTIF_CMD_SIZE_OFFSET, &size);
    t.hostif_read(t.ctx, TSL_HOSTIF_CPL_BASE_OFFSET, &cpl_base);
    t.hostif_read(t.ctx, TSL_HOSTIF_CPL_SIZE_OFFSET, &cpl_size);
    /* Raw entries past the library: a PROGRAM whose window reaches into a ring (the runner refuses
     * it, BAD_ADDR at WIN_BASE: its DMAs could reach there), and a raw FILL (the runner plans
     * nothing: BAD_OPCODE). */
    const struct {
        const char *what;
        uint32_t win_base, win_limit, status, word;
    } cases[] = {
        {"a PROGRAM whose window holds the command ring", base, base + 4096u, TSL_CMD_ERR_BAD_ADDR,
         TSL_PROG_WIN_BASE_WORD},
        {"a PROGRAM whose window holds the completion ring", cpl_base + 16u, cpl_base + 4096u + 24u,
         TSL_CMD_ERR_BAD_ADDR, TSL_PROG_WIN_BASE_WORD},
        {"a PROGRAM whose window ends in the command ring", base + 64u * size - 8u, base + 64u * size + 8u,
         TSL_CMD_ERR_BAD_ADDR, TSL_PROG_WIN_BASE_WORD},
        {"a raw FILL over the command ring", base, 0, TSL_CMD_ERR_BAD_OPCODE, TSL_CMD_OPCODE_WORD},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t before[0x2000], after[0x2000];
        tessel_cmd_t cmd = fill_cmd(base, 1, 4096, 4096, 0xA5A5A5A5u);
        if (cases[i].status == TSL_CMD_ERR_BAD_ADDR) {
            memset(&cmd, 0, sizeof cmd);
            TSL_SET(cmd.w, TSL_CMD_OPCODE, TSL_CMD_OP_PROGRAM);
            cmd.w[TSL_CMD_N_WORD] = 4;
            cmd.w[TSL_CMD_A_ADDR_WORD] = 0x2000u;
            cmd.w[TSL_PROG_WIN_BASE_WORD] = cases[i].win_base;
            cmd.w[TSL_PROG_WIN_LIMIT_WORD] = cases[i].win_limit;
        }
        cmd.w[TSL_CMD_TAG_WORD] = 0x7000u + i;
        t.hbm_write(t.ctx, base + (head % size) * 64u, cmd.w, 64);
        t.hbm_read(t.ctx, 0, before, sizeof before);
        t.hostif_write(t.ctx, TSL_HOSTIF_CMD_HEAD_OFFSET, ++head);
        uint32_t ch = cpl_head;
        for (int spins = 0; spins < 1000 && ch == cpl_head; spins++) {
            t.hostif_write(t.ctx, TSL_HOSTIF_HOST_IRQ_STATUS_OFFSET, 1u << TSL_HOSTIF_HOST_IRQ_STATUS_CPL_SHIFT);
            t.wait(t.ctx);
            t.hostif_read(t.ctx, TSL_HOSTIF_CPL_HEAD_OFFSET, &ch);
        }
        uint32_t e[4] = {0, 0, 0, 0};
        t.hbm_read(t.ctx, cpl_base + (cpl_head % cpl_size) * 16u, e, sizeof e);
        t.hbm_read(t.ctx, 0, after, sizeof after);
        /* the completion entry itself is the one expected change in the rings */
        memcpy(before + cpl_base + (cpl_head % cpl_size) * 16u, e, sizeof e);
        uint32_t st = TSL_GET(e, TSL_CPL_STATUS), detail = TSL_GET(e, TSL_CPL_DETAIL);
        tu_check(&T, ch == cpl_head + 1 && e[TSL_CPL_TAG_WORD] == 0x7000u + i && st == cases[i].status &&
                         detail == cases[i].word,
                 "firmware: %s: CPL_HEAD %u -> %u, completion tag 0x%x status %u (%s) detail %u, expected %s "
                 "detail %u", cases[i].what, cpl_head, ch, e[TSL_CPL_TAG_WORD], st,
                 st < TSL_CMD_ERR_LIMIT ? tsl_cmd_err_name(st) : "?", detail, tsl_cmd_err_name(cases[i].status),
                 cases[i].word);
        uint32_t j = 0;
        while (j < sizeof before && before[j] == after[j])
            j++;
        tu_check(&T, j == sizeof before, "firmware: %s: reserved HBM changed at 0x%x: expected 0x%02x, got 0x%02x",
                 cases[i].what, j, j < sizeof before ? before[j] : 0, j < sizeof after ? after[j] : 0);
        cpl_head = ch;
        t.hostif_write(t.ctx, TSL_HOSTIF_CPL_TAIL_OFFSET, cpl_head);
    }
    tessel_close(d);
}

static void case_reset(uint32_t flags)
{
    open_flags = flags;
    tessel_dev_t *d;
    tessel_transport_t t;
    current = "reset";
    alarm(REL_LIB_LIMIT_S);
    if (!tu_check(&T, open_dev(&d, &t) == 0, "reset: open %s", backend))
        return;
    int8_t a[64 * 64], b[64 * 64];
    int32_t c[64 * 64], ref[64 * 64];
    fill_i8(a, sizeof a);
    fill_i8(b, sizeof b);
    rel_gemm_ref(64, 64, 64, a, b, ref);
    tessel_addr_t da, db, dc;
    tessel_handle_t h;
    int ok = !tessel_alloc(d, sizeof a, 64, &da) && !tessel_alloc(d, sizeof b, 64, &db) &&
             !tessel_alloc(d, sizeof c, 64, &dc) && !tessel_write(d, da, a, sizeof a) &&
             !tessel_write(d, db, b, sizeof b);
    tessel_cmd_t cmd = rel_gemm_cmd(64, 64, 64, da, db, dc);
    if (!strcmp(backend, "sim"))
        tessel_sim_stall(t.ctx, da, sizeof a, 0, 300000);
    ok = ok && !tessel_submit(d, &cmd, &h);
    if (!tu_check(&T, ok, "reset: setup: %s", tessel_last_error(d))) {
        tessel_close(d);
        return;
    }
    int st = tessel_wait(d, h, 0, NULL);   /* looks once: the command stays queued */
    uint64_t t0 = rel_now_ms();
    int sr = tessel_reset(d);
    printf("  reset: a queued 64x64x64 GEMM (wait: %s), tessel_reset: %s after %llu ms\n", tessel_strerror(st),
           tessel_strerror(sr), (unsigned long long)(rel_now_ms() - t0));
    tu_check(&T, sr == TESSEL_OK, "reset: tessel_reset: %s (%s)", tessel_strerror(sr), tessel_last_error(d));
    if (!strcmp(backend, "sim"))
        tessel_sim_clear_faults(t.ctx);
    st = tessel_wait(d, h, TESSEL_TIMEOUT_AUTO, NULL);
    int exact = st == TESSEL_OK && !tessel_read(d, c, dc, sizeof c) && !memcmp(c, ref, sizeof c);
    printf("  reset: the dropped GEMM's wait: %s (%s)\n", tessel_strerror(st), st ? tessel_last_error(d) : "exact");
    tu_check(&T, (st == TESSEL_EIO && strstr(tessel_last_error(d), "cancelled by tessel_reset")) || exact,
             "reset: the dropped GEMM's wait: %s (%s)", tessel_strerror(st), tessel_last_error(d));
    if (!strcmp(backend, "sim"))
        tu_check(&T, st == TESSEL_EIO, "reset: the held GEMM was not cancelled: %s", tessel_strerror(st));
    (void)tessel_free(d, da);
    (void)tessel_free(d, db);
    (void)tessel_free(d, dc);
    gemm_checked(d, 16, 64, 256, flags ? "reset: a GEMM after tessel_reset, checking mode" :
                                         "reset: a GEMM after tessel_reset", 1);
    tessel_close(d);
    open_flags = 0;
}

/* A 64 x 64 x 64 GEMM whose read of A never completes; returns its status, *ms the wall time and
 * *cyc the device cycles it took. */
static int stuck_gemm(int wdt_off, uint64_t *ms, uint64_t *cyc, char *why, size_t why_len)
{
    tessel_dev_t *d;
    tessel_transport_t t;
    if (open_dev(&d, &t))
        return TESSEL_ENODEV;
    if (wdt_off)
        tessel_sim_hostif_write(t.ctx, TSL_HOSTIF_WDT_TIMEOUT_OFFSET, 0);
    /* the first allocation of tessel_gemm is A: stall every read at the start of the usable HBM */
    tessel_sim_stall(t.ctx, TESSEL_HBM_RESERVED, 64u * 64u, 0, TESSEL_SIM_STALL_FOREVER);
    int8_t a[64 * 64], b[64 * 64];
    int32_t c[64 * 64];
    fill_i8(a, sizeof a);
    fill_i8(b, sizeof b);
    tessel_gemm_t g = {.m = 64, .n = 64, .k = 64, .in_dtype = TESSEL_INT8, .out_dtype = TESSEL_INT32,
                       .a = a, .lda = 64, .b = b, .ldb = 64, .c = c, .ldc = 64, .scale = 1.0f};
    uint64_t t0 = rel_now_ms(), c0 = tessel_sim_cycles(t.ctx);
    int st = tessel_gemm(d, &g, NULL);
    *ms = rel_now_ms() - t0;
    *cyc = tessel_sim_cycles(t.ctx) - c0;
    snprintf(why, why_len, "%s", tessel_last_error(d));
    tu_check(&T, tessel_sim_stalls_hit(t.ctx) >= 1, "bounded: the stall was not hit");
    tessel_close(d);
    return st;
}

static void case_bounded(void)
{
    /* Bounds in device cycles (the wall clock depends on the machine's load: 7 to 33 s measured
     * on the shared 2-core machine), and a loose wall-clock bound. */
    char why[256];
    uint64_t ms, cyc;
    current = "bounded (watchdog)";
    alarm(REL_LIB_LIMIT_S);
    int st = stuck_gemm(0, &ms, &cyc, why, sizeof why);
    printf("  bounded: a DMA read that never completes, defaults: %s after %llu cycles, %llu ms (%s)\n",
           tessel_strerror(st), (unsigned long long)cyc, (unsigned long long)ms, why);
    tu_check(&T, st == TESSEL_EIO && strstr(why, "fault code 3") && cyc < 2000000 && ms < 180000,
             "bounded: defaults: %s after %llu cycles, %llu ms; expected the watchdog's EIO (fault code 3) within "
             "2 000 000 cycles", tessel_strerror(st), (unsigned long long)cyc, (unsigned long long)ms);
    current = "bounded (no watchdog)";
    alarm(REL_LIB_LIMIT_S);
    st = stuck_gemm(1, &ms, &cyc, why, sizeof why);
    printf("  bounded: the same with the watchdog off: %s after %llu cycles, %llu ms (%s)\n", tessel_strerror(st),
           (unsigned long long)cyc, (unsigned long long)ms, why);
    tu_check(&T, st == TESSEL_ETIMEOUT && cyc < 2000000 && ms < 180000,
             "bounded: watchdog off: %s after %llu cycles, %llu ms; expected TESSEL_ETIMEOUT within 2 000 000 cycles",
             tessel_strerror(st), (unsigned long long)cyc, (unsigned long long)ms);
}

/* tessel_open(backend, opts) is refused with EINVAL, *dev NULL and a reason holding `part`. */
static void open_refused(const char *what, const char *backend_name, const tessel_open_opts_t *o, const char *part)
{
    tessel_dev_t *x = (tessel_dev_t *)&T;
    int st = tessel_open(&x, backend_name, o);
    tu_check(&T, st == TESSEL_EINVAL && !x && strstr(tessel_last_error(NULL), part),
             "args: %s: %s, reason \"%s\"; expected EINVAL with \"%s\"", what, tessel_strerror(st),
             tessel_last_error(NULL), part);
    if (st == TESSEL_OK)
        tessel_close(x);
}

static void case_args(void)
{
    current = "args";
    alarm(REL_LIB_LIMIT_S);
    static const struct {
        double v;
        tessel_arg_t kind;
        const char *why;     /* NULL: taken */
    } f32[] = {
        {0.5, TESSEL_ARG_SCALE, NULL}, {-3.0, TESSEL_ARG_SCALE, NULL}, {1e-30, TESSEL_ARG_SCALE, NULL},
        {1.2e-38, TESSEL_ARG_SCALE, NULL}, {3e38, TESSEL_ARG_SCALE, NULL},
        {1e-40, TESSEL_ARG_SCALE, "scale 1e-40 is refused: it is subnormal in float32"},
        {1e-40, TESSEL_ARG_EPS, "eps 1e-40 is refused: it is subnormal in float32"},
        {0.0, TESSEL_ARG_SCALE, "scale 0 is refused: libtessel reads a scale of 0 as not given"},
        {1e-50, TESSEL_ARG_SCALE, "scale 1e-50 is refused: it rounds to 0 in float32"},
        {-1e-50, TESSEL_ARG_SCALE, "scale -1e-50 is refused: it rounds to 0 in float32"},
        {1e39, TESSEL_ARG_SCALE, "scale 1e+39 is refused: it overflows float32"},
        {-1e39, TESSEL_ARG_SCALE, "scale -1e+39 is refused: it overflows float32"},
        {INFINITY, TESSEL_ARG_SCALE, "not a finite number"}, {NAN, TESSEL_ARG_SCALE, "not a finite number"},
        {0.0, TESSEL_ARG_EPS, NULL}, {1e-5, TESSEL_ARG_EPS, NULL},
        {-1.0, TESSEL_ARG_EPS, "eps -1 is refused: an eps must be >= 0"},
        {1e-50, TESSEL_ARG_EPS, "eps 1e-50 is refused: it rounds to 0 in float32"},
        {1e39, TESSEL_ARG_EPS, "eps 1e+39 is refused: it overflows float32"},
        {INFINITY, TESSEL_ARG_EPS, "not a finite number"},
    };
    for (size_t i = 0; i < sizeof f32 / sizeof f32[0]; i++) {
        const char *name = f32[i].kind == TESSEL_ARG_EPS ? "eps" : "scale";
        float out = 7.0f;
        int st = tessel_f32_arg(name, f32[i].v, f32[i].kind, &out);
        if (f32[i].why)
            tu_check(&T, st == TESSEL_EINVAL && out == 7.0f && strstr(tessel_last_error(NULL), f32[i].why),
                     "args: tessel_f32_arg(%s %g): %s, \"%s\"; expected EINVAL \"%s\"", name, f32[i].v,
                     tessel_strerror(st), tessel_last_error(NULL), f32[i].why);
        else
            tu_check(&T, st == TESSEL_OK && out == (float)f32[i].v && !*tessel_last_error(NULL),
                     "args: tessel_f32_arg(%s %g): %s, %g", name, f32[i].v, tessel_strerror(st), (double)out);
    }

    /* the calls: a scale that is not finite, a negative eps: EINVAL, nothing run */
    tessel_dev_t *d;
    int st = tessel_open(&d, "model", NULL);
    if (!tu_check(&T, st == TESSEL_OK, "args: open model: %s", tessel_strerror(st)))
        return;
    float a[4] = {1, 2, 3, 4}, c[4], g1[2] = {1, 1};
    tessel_gemm_t g = {.m = 2, .n = 2, .k = 2, .in_dtype = TESSEL_BF16, .out_dtype = TESSEL_FP32, .a = a, .lda = 2,
                       .b = a, .ldb = 2, .c = c, .ldc = 2, .scale = INFINITY};
    tessel_rows_t r = {.m = 2, .n = 2, .in_dtype = TESSEL_FP32, .out_dtype = TESSEL_FP32, .x = a, .ldx = 2, .y = c,
                       .ldy = 2};
    tessel_conv2d_t cv = {.batch = 1, .h = 2, .w = 2, .c = 1, .cout = 1, .kh = 1, .kw = 1, .groups = 1, .stride_h = 1,
                          .stride_w = 1, .dil_h = 1, .dil_w = 1, .in_dtype = TESSEL_BF16,
                          .out_dtype = TESSEL_FP32, .x = a, .weights = g1, .y = c, .scale = NAN};
    tessel_attention_t at = {.batch = 1, .lq = 2, .lk = 2, .d = 2, .dv = 2, .q = a, .k = a, .v = a, .o = c,
                             .scale = -INFINITY, .out_dtype = TESSEL_FP32};
    tessel_stats_t s0, s1;
    (void)tessel_stats(d, &s0);
    const struct {
        const char *what;
        int st;
    } calls[] = {
        {"tessel_gemm scale inf", tessel_gemm(d, &g, NULL)},
        {"tessel_bmm scale inf", tessel_bmm(d, &g, 2)},
        {"tessel_conv2d scale nan", tessel_conv2d(d, &cv, NULL)},
        {"tessel_softmax scale nan", tessel_softmax(d, &r, NAN, NULL, NULL)},
        {"tessel_attention scale -inf", tessel_attention(d, &at, NULL)},
        {"tessel_layernorm eps -1", tessel_layernorm(d, &r, g1, NULL, -1.0f, NULL)},
        {"tessel_rmsnorm eps inf", tessel_rmsnorm(d, &r, g1, INFINITY, NULL)},
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
        tu_check(&T, calls[i].st == TESSEL_EINVAL, "args: %s: %s; expected EINVAL", calls[i].what,
                 tessel_strerror(calls[i].st));
    tu_check(&T, strstr(tessel_last_error(d), "tessel_rmsnorm: eps inf is refused") != NULL,
             "args: the reason of the last refusal: \"%s\"", tessel_last_error(d));
    (void)tessel_stats(d, &s1);
    tu_check(&T, s1.commands == s0.commands, "args: the refused calls ran %llu commands",
             (unsigned long long)(s1.commands - s0.commands));

    /* $TESSEL_TIMEOUT_MS set badly after the open: the next call refuses it, nothing submitted */
    g.scale = 0.5f;
    setenv("TESSEL_TIMEOUT_MS", "abc", 1);
    st = tessel_gemm(d, &g, NULL);
    tu_check(&T, st == TESSEL_EINVAL && strstr(tessel_last_error(d), "$TESSEL_TIMEOUT_MS 'abc'"),
             "args: a GEMM with TESSEL_TIMEOUT_MS=abc: %s, \"%s\"", tessel_strerror(st), tessel_last_error(d));
    (void)tessel_stats(d, &s1);
    tu_check(&T, s1.commands == s0.commands, "args: TESSEL_TIMEOUT_MS=abc: a command was run");
    setenv("TESSEL_TIMEOUT_MS", "60000", 1);
    st = tessel_gemm(d, &g, NULL);
    tu_check(&T, st == TESSEL_OK && c[0] == 0.5f * 7.0f, "args: a GEMM with TESSEL_TIMEOUT_MS=60000: %s, C[0] %g",
             tessel_strerror(st), (double)c[0]);
    unsetenv("TESSEL_TIMEOUT_MS");
    tessel_close(d);

    /* tessel_open: options the backend would ignore, and the environment */
    open_refused("model with a firmware", "model", &(tessel_open_opts_t){.firmware = "build/fw/cp.elf"}, "firmware");
    open_refused("model with a timeline", "model", &(tessel_open_opts_t){.timeline = "t.json"}, "timeline");
    open_refused("model with a trace", "model", &(tessel_open_opts_t){.trace = "t.fst"}, "trace");
    open_refused("model with a port", "model", &(tessel_open_opts_t){.port = "/dev/null"}, "port");
    open_refused("sim with a port", "sim", &(tessel_open_opts_t){.port = "/dev/null"}, "port");
    open_refused("uart with a timeline", "uart", &(tessel_open_opts_t){.port = "/dev/null", .timeline = "t.json"},
                 "timeline");
    static const char *const bad_ms[] = {"abc", "-5", "0", "4294967295", "0x10", " 5", "5s"};
    for (size_t i = 0; i < sizeof bad_ms / sizeof bad_ms[0]; i++) {
        char what[64];
        setenv("TESSEL_TIMEOUT_MS", bad_ms[i], 1);
        snprintf(what, sizeof what, "TESSEL_TIMEOUT_MS='%s'", bad_ms[i]);
        open_refused(what, "model", NULL, "$TESSEL_TIMEOUT_MS");
    }
    unsetenv("TESSEL_TIMEOUT_MS");
    setenv("TESSEL_UART_TIMEOUT_MS", "abc", 1);
    open_refused("TESSEL_UART_TIMEOUT_MS=abc", "uart", &(tessel_open_opts_t){.port = "/dev/null"},
                 "$TESSEL_UART_TIMEOUT_MS 'abc'");
    unsetenv("TESSEL_UART_TIMEOUT_MS");
    setenv("TESSEL_CHECK", "yes", 1);
    open_refused("TESSEL_CHECK=yes", "model", NULL, "$TESSEL_CHECK 'yes'");
    unsetenv("TESSEL_CHECK");
    st = tessel_open(&d, "model", NULL);
    tu_check(&T, st == TESSEL_OK, "args: open model after the environment is clean: %s", tessel_strerror(st));
    if (st == TESSEL_OK)
        tessel_close(d);
}

/* A little-endian RV32 ELF of one PT_LOAD: 4 file bytes at `addr`, p_memsz `msz`, entry at addr. */
static size_t tiny_elf(uint8_t *e, uint32_t addr, uint32_t msz)
{
    enum { Ehdr = 52, Phdr = 32 };
    memset(e, 0, Ehdr + Phdr + 4);
    memcpy(e, "\177ELF", 4);
    e[4] = 1, e[5] = 1, e[6] = 1;                 /* ELFCLASS32, little-endian, version */
    e[16] = 2, e[18] = 243;                       /* ET_EXEC, EM_RISCV */
    uint32_t words[][2] = {{24, addr}, {28, Ehdr}};   /* e_entry, e_phoff */
    for (size_t i = 0; i < 2; i++)
        memcpy(e + words[i][0], &words[i][1], 4);
    e[42] = Phdr, e[44] = 1;                      /* e_phentsize, e_phnum */
    uint32_t ph[8] = {1, Ehdr + Phdr, addr, addr, 4, msz, 7, 4};   /* PT_LOAD */
    memcpy(e + Ehdr, ph, sizeof ph);
    memcpy(e + Ehdr + Phdr, "\x13\x00\x00\x00", 4); /* nop */
    return Ehdr + Phdr + 4;
}

static void case_elf(void)
{
    current = "elf";
    alarm(REL_LIB_LIMIT_S);
    enum { Base = 0x80000000u, Ram = 4096 };
    static const struct {
        uint32_t addr, msz;
        const char *why;   /* NULL: loads */
    } cases[] = {
        {Base, 4, NULL}, {Base, Ram, NULL}, {Base + Ram - 8, 8, NULL},
        {Base, 0xFFFFFFF0u, "outside the core's RAM"},
        {Base + 16, 0xFFFFFFF0u, "outside the core's RAM"},
        {Base, Ram + 1, "outside the core's RAM"},
        {Base + Ram - 8, 9, "outside the core's RAM"},
        {Base, 2, "p_filesz > p_memsz"},
    };
    static uint8_t img[Ram];
    uint8_t elf[128];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint32_t used = 0;
        size_t n = tiny_elf(elf, cases[i].addr, cases[i].msz);
        const char *why = tessel_elf_image(elf, n, Base, img, Ram, &used);
        if (cases[i].why)
            tu_check(&T, why && strstr(why, cases[i].why), "elf: PT_LOAD at 0x%08x, p_memsz 0x%08x: %s; expected "
                     "\"%s\"", cases[i].addr, cases[i].msz, why ? why : "loaded", cases[i].why);
        else
            tu_check(&T, !why && used == cases[i].addr - Base + 4, "elf: PT_LOAD at 0x%08x, p_memsz 0x%08x: %s",
                     cases[i].addr, cases[i].msz, why ? why : "loaded");
    }
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "model") && strcmp(argv[1], "sim"))) {
        fprintf(stderr, "usage: test_lib model|sim [SEED]\n");
        return 2;
    }
    backend = argv[1];
    tu_init(&T, "rel_lib", argc - 1, argv + 1);
    unsetenv("TESSEL_TIMEOUT_MS");
    signal(SIGALRM, on_alarm);
    case_inflight();
    case_reasons();
    case_reserved();
    case_firmware();
    case_reset(0);
    case_reset(TESSEL_OPEN_CHECK);
    case_args();
    case_elf();
    if (!strcmp(backend, "sim"))
        case_bounded();
    alarm(0);
    printf("rel_lib: %s\n", backend);
    return tu_done(&T);
}
