/* make test-rel-faults: fault injection on the sim transport (the Verilated SoC + cp.elf).
 *
 * Workload: an int8 GEMM (C = A x B, 32 x 32 x 32, int32 C) on device buffers that each carry
 * 256-byte canary guards (rel_util.h), checked against exact host integers. Faults, through the
 * HBM model on the SoC's AXI port (host_driver/src/tessel_sim_fault.h):
 *   SLVERR / DECERR on reads of A and of B, on writes of C: tessel_wait gives TESSEL_EDEVICE,
 *     the completion says CMD_ERR_DEVICE with detail ERR_AXI_SLVERR / ERR_AXI_DECERR;
 *   a read burst of A held 300 000 cycles, the watchdog armed at 1 000 000: a 20 ms wait gives
 *     TESSEL_ETIMEOUT (the command stays outstanding), the next wait gets the correct result, and
 *     the watchdog (kicked between commands) never expired;
 *   a read burst of A held forever with the watchdog armed (WDT_TIMEOUT 200 000 cycles): the
 *     watchdog resets the cores, the firmware reboots and halts with fault code 3, tessel_wait gives
 *     TESSEL_EIO naming it, WDT_STATUS and HOST_IRQ_STATUS.WDT say so; a HOSTIF RESET brings the
 *     firmware back to ready with WDT_STATUS.EXPIRED cleared (COUNT kept); the device is then
 *     closed and reopened, which also resets the HBM side still holding the burst.
 * For every fault: the host returns within a bound (wall clock), the canaries around A, B and C
 * are intact, A and B are unchanged, no AXI rule was broken, and the next command (faults
 * cleared) gives the correct C. SEED=... replays (it seeds the operands). */
#include <stdlib.h>

#include "rel_util.h"
#include "tessel_sim_fault.h"

#define M 32u
#define N 32u
#define K 32u

typedef struct {
    tessel_dev_t *d;
    void *ctx;                    /* the sim transport's context */
    rel_buf_t a, b, c;
} rig_t;

static tu_t T;
static int8_t ha[M * K], hb[K * N];
static int32_t ref[M * N];
static unsigned faults;

static int rig_open(rig_t *r)
{
    tessel_transport_t t;
    memset(r, 0, sizeof *r);
    int st = tessel_transport_sim_open(&t, NULL);
    if (st) {
        printf("sim open: %s: %s\n", tessel_strerror(st), t.err);
        return st;
    }
    r->ctx = t.ctx;
    if ((st = tessel_open_transport(&r->d, &t, 0)))
        return st;
    if (rel_alloc(r->d, M * K, 0xA1A1u, &r->a) || rel_alloc(r->d, K * N, 0xB2B2u, &r->b) ||
        rel_alloc(r->d, 4 * M * N, 0xC3C3u, &r->c) || tessel_write(r->d, r->a.addr, ha, sizeof ha) ||
        tessel_write(r->d, r->b.addr, hb, sizeof hb))
        return TESSEL_EIO;
    return 0;
}

/* Canaries, inputs unchanged, AXI rules kept. */
static void check_intact(rig_t *r, const char *what)
{
    int8_t ga[M * K], gb[K * N];
    int bad = rel_guards_bad(r->d, &r->a, "A") + rel_guards_bad(r->d, &r->b, "B") + rel_guards_bad(r->d, &r->c, "C");
    tu_check(&T, bad == 0, "%s: %d canary bytes overwritten", what, bad);
    tu_check(&T, !tessel_read(r->d, ga, r->a.addr, sizeof ga) && !memcmp(ga, ha, sizeof ha) &&
                 !tessel_read(r->d, gb, r->b.addr, sizeof gb) && !memcmp(gb, hb, sizeof hb),
             "%s: an input buffer changed", what);
    tu_check(&T, tessel_sim_axi_violations(r->ctx) == 0, "%s: %u AXI rule violations", what,
             tessel_sim_axi_violations(r->ctx));
}

/* Submit the GEMM; with C cleared first. */
static int submit(rig_t *r, tessel_handle_t *h)
{
    static int32_t zero[M * N];
    tessel_cmd_t cmd = rel_gemm_cmd(M, N, K, r->a.addr, r->b.addr, r->c.addr);
    int st = tessel_write(r->d, r->c.addr, zero, sizeof zero);
    return st ? st : tessel_submit(r->d, &cmd, h);
}

static int c_correct(rig_t *r)
{
    int32_t got[M * N];
    if (tessel_read(r->d, got, r->c.addr, sizeof got))
        return 0;
    for (uint32_t i = 0; i < M * N; i++)
        if (got[i] != ref[i]) {
            printf("  C[%u][%u] = %d, expected %d\n", i / N, i % N, got[i], ref[i]);
            return 0;
        }
    return 1;
}

/* A clean GEMM works and is correct. */
static void gemm_ok(rig_t *r, const char *what)
{
    tessel_handle_t h;
    tessel_completion_t cpl;
    int st = submit(r, &h);
    if (!st)
        st = tessel_wait(r->d, h, 60000, &cpl);
    tu_check(&T, st == TESSEL_OK && c_correct(r), "%s: the next GEMM: %s (%s)", what, tessel_strerror(st),
             tessel_last_error(r->d));
    check_intact(r, what);
}

static void axi_error(rig_t *r, const char *what, const rel_buf_t *buf, int on_write, uint8_t resp)
{
    tessel_handle_t h;
    tessel_completion_t cpl;
    memset(&cpl, 0, sizeof cpl);
    tessel_sim_inject(r->ctx, buf->addr, buf->bytes, on_write, resp);
    faults++;
    uint64_t t0 = rel_now_ms();
    int st = submit(r, &h);
    if (!st)
        st = tessel_wait(r->d, h, 60000, &cpl);
    uint32_t want = resp == 2 ? TSL_ERR_AXI_SLVERR : TSL_ERR_AXI_DECERR;
    tu_check(&T, st == TESSEL_EDEVICE && cpl.status == (int32_t)TSL_CMD_ERR_DEVICE && cpl.detail == want,
             "%s: %s, completion status %d detail %u (expected DEVICE, %s); %s", what, tessel_strerror(st),
             cpl.status, cpl.detail, tsl_err_name(want), tessel_last_error(r->d));
    printf("  %s: %s after %llu ms\n", what, tessel_last_error(r->d), (unsigned long long)(rel_now_ms() - t0));
    tessel_sim_clear_faults(r->ctx);
    check_intact(r, what);
    gemm_ok(r, what);
}

static void stall_delayed(rig_t *r)
{
    const char *what = "read of A held 300000 cycles";
    tessel_handle_t h;
    uint32_t wdt = 1;
    tessel_sim_hostif_write(r->ctx, TSL_HOSTIF_WDT_TIMEOUT_OFFSET, 1000000);
    tessel_sim_stall(r->ctx, r->a.addr, r->a.bytes, 0, 300000);
    faults++;
    int st = submit(r, &h);
    uint64_t t0 = rel_now_ms();
    int st1 = st ? st : tessel_wait(r->d, h, 20, NULL);
    uint64_t waited = rel_now_ms() - t0;
    tu_check(&T, st1 == TESSEL_ETIMEOUT && waited < 5000, "%s: a 20 ms wait: %s after %llu ms", what,
             tessel_strerror(st1), (unsigned long long)waited);
    printf("  %s: %s\n", what, tessel_last_error(r->d));
    int st2 = st ? st : tessel_wait(r->d, h, 60000, NULL);
    tu_check(&T, st2 == TESSEL_OK && c_correct(r) && tessel_sim_stalls_hit(r->ctx) == 1,
             "%s: the second wait: %s, stalls hit %u", what, tessel_strerror(st2), tessel_sim_stalls_hit(r->ctx));
    tessel_sim_hostif_read(r->ctx, TSL_HOSTIF_WDT_STATUS_OFFSET, &wdt);
    tu_check(&T, wdt == 0, "%s: WDT_STATUS 0x%08x: the watchdog expired", what, wdt);
    tessel_sim_hostif_write(r->ctx, TSL_HOSTIF_WDT_TIMEOUT_OFFSET, 0);
    tessel_sim_clear_faults(r->ctx);
    check_intact(r, what);
    gemm_ok(r, what);
}

static void stall_forever_watchdog(rig_t *r)
{
    const char *what = "read of A held forever, watchdog 200000 cycles";
    tessel_handle_t h;
    uint32_t wdt = 0, irq = 0, fw = 0;
    tessel_sim_hostif_write(r->ctx, TSL_HOSTIF_WDT_TIMEOUT_OFFSET, 200000);
    tessel_sim_stall(r->ctx, r->a.addr, r->a.bytes, 0, TESSEL_SIM_STALL_FOREVER);
    faults++;
    uint64_t c0 = tessel_sim_cycles(r->ctx), t0 = rel_now_ms();
    int st = submit(r, &h);
    if (!st)
        st = tessel_wait(r->d, h, 60000, NULL);
    uint64_t cyc = tessel_sim_cycles(r->ctx) - c0;
    tessel_sim_hostif_read(r->ctx, TSL_HOSTIF_WDT_STATUS_OFFSET, &wdt);
    tessel_sim_hostif_read(r->ctx, TSL_HOSTIF_HOST_IRQ_STATUS_OFFSET, &irq);
    tessel_sim_hostif_read(r->ctx, TSL_HOSTIF_FW_STATUS_OFFSET, &fw);
    printf("  %s: %s after %llu cycles, %llu ms (WDT_STATUS 0x%08x, HOST_IRQ_STATUS 0x%x)\n", what,
           tessel_last_error(r->d), (unsigned long long)cyc, (unsigned long long)(rel_now_ms() - t0), wdt, irq);
    tu_check(&T, st == TESSEL_EIO && strstr(tessel_last_error(r->d), "fault code 3") != NULL, "%s: %s: %s", what,
             tessel_strerror(st), tessel_last_error(r->d));
    tu_check(&T, (wdt & 1u) && (wdt >> TSL_HOSTIF_WDT_STATUS_COUNT_SHIFT) == 1u &&
                 ((irq >> TSL_HOSTIF_HOST_IRQ_STATUS_WDT_SHIFT) & 1u) && fw == 0x00030002u,
             "%s: WDT_STATUS 0x%08x HOST_IRQ_STATUS 0x%x FW_STATUS 0x%08x", what, wdt, irq, fw);
    tu_check(&T, cyc < 2000000, "%s: %llu cycles to report", what, (unsigned long long)cyc);
    check_intact(r, what);
    tessel_sim_hostif_write(r->ctx, TSL_HOSTIF_RESET_OFFSET, 1);
    uint64_t r0 = tessel_sim_cycles(r->ctx);
    do
        tessel_sim_hostif_read(r->ctx, TSL_HOSTIF_FW_STATUS_OFFSET, &fw);
    while (fw != 1u && tessel_sim_cycles(r->ctx) - r0 < 2000000);
    tessel_sim_hostif_read(r->ctx, TSL_HOSTIF_WDT_STATUS_OFFSET, &wdt);
    tu_check(&T, fw == 1u && wdt == (1u << TSL_HOSTIF_WDT_STATUS_COUNT_SHIFT),
             "%s: after RESET: FW_STATUS 0x%08x, WDT_STATUS 0x%08x", what, fw, wdt);
    tessel_close(r->d);           /* device reset: a fresh SoC and HBM side */
    int so = rig_open(r);
    tu_check(&T, so == 0, "%s: reopen: %s", what, tessel_strerror(so));
    if (!so)
        gemm_ok(r, what);
}

int main(int argc, char **argv)
{
    rig_t r;
    tu_init(&T, "rel_faults", argc, argv);
    for (uint32_t i = 0; i < M * K; i++)
        ha[i] = (int8_t)tu_next(&T.rng);
    for (uint32_t i = 0; i < K * N; i++)
        hb[i] = (int8_t)tu_next(&T.rng);
    rel_gemm_ref(M, N, K, ha, hb, ref);
    int st = rig_open(&r);
    if (!tu_check(&T, st == 0, "open the sim device: %s", tessel_strerror(st)))
        return tu_done(&T);
    gemm_ok(&r, "no fault");
    axi_error(&r, "SLVERR on reads of A", &r.a, 0, 2);
    axi_error(&r, "DECERR on reads of B", &r.b, 0, 3);
    axi_error(&r, "SLVERR on writes of C", &r.c, 1, 2);
    axi_error(&r, "DECERR on writes of C", &r.c, 1, 3);
    stall_delayed(&r);
    stall_forever_watchdog(&r);
    tessel_close(r.d);
    printf("rel_faults: %u faults injected\n", faults);
    return tu_done(&T);
}
