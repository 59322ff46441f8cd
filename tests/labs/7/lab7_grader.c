/* The grader of lab 7 (docs/labs/7-ring-allreduce.md): the helpers of lab7.h, and the checks.
 * For rings of 2, 3, 4 and 8 chips and several sizes and tiles, it builds every chip's program with
 * the student's lab7_allreduce(), runs them at once on a pod of the golden model (tessel_pod_run)
 * and checks:
 *   - every chip's buf holds the exact int32 sum (wrapping) of every chip's values;
 *   - each chip sent only to its ring neighbours, and no more bytes than a ring all-reduce's
 *     2 (n - 1) chunks of the largest size;
 *   - the programs ran without a device error (a wait that can never be met is one).
 * Usage: lab7_grader [SEED]; prints "lab7: N passed, M failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab7.h"
#include "tessel.h"
#include "tsl_hw.h"
#include "tsl_insn.h"

struct lab7 {
    uint32_t *w;              /* PROGRAM records: one INSN record per 65535 instructions */
    uint32_t words, cap, hdr; /* hdr: the open record's header word, or words past the end */
    uint32_t me, chips;
    uint64_t sent;            /* bytes SENT */
    int bad_dest;             /* a SEND to a chip that is not a neighbour */
    int oom;
};

static void push(lab7_t *p, tsl_insn_t i)
{
    if (p->words + 9u > p->cap) {
        uint32_t cap = p->cap ? 2u * p->cap : 1024u;
        uint32_t *w = realloc(p->w, 4u * cap);
        if (!w) {
            p->oom = 1;
            return;
        }
        p->w = w;
        p->cap = cap;
    }
    if (p->hdr >= p->words || TSL_GET(&p->w[p->hdr], TSL_PROG_HDR_COUNT) == TSL_PROG_HDR_COUNT_MASK) {
        p->hdr = p->words++;
        p->w[p->hdr] = 0;
        TSL_SET(&p->w[p->hdr], TSL_PROG_HDR_KIND, TSL_PROG_REC_INSN);
    }
    TSL_SET(&p->w[p->hdr], TSL_PROG_HDR_COUNT, TSL_GET(&p->w[p->hdr], TSL_PROG_HDR_COUNT) + 1u);
    memcpy(&p->w[p->words], i.w, sizeof i.w);
    p->words += TSL_PARAM_INSN_WORDS;
}

static void xfer(lab7_t *p, uint32_t op, uint32_t hbm, uint32_t vmem, uint32_t bytes)
{
    push(p, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){.op = op, .hbm_addr = hbm, .local_addr = vmem,
                                                           .rows = 1u, .row_bytes = bytes}));
}

void lab7_load(lab7_t *p, uint32_t vmem, uint32_t hbm, uint32_t bytes) { xfer(p, TSL_DMA_OP_LOAD, hbm, vmem, bytes); }
void lab7_store(lab7_t *p, uint32_t hbm, uint32_t vmem, uint32_t bytes) { xfer(p, TSL_DMA_OP_STORE, hbm, vmem, bytes); }

void lab7_send(lab7_t *p, uint32_t to, uint32_t hbm, uint32_t vmem, uint32_t bytes, uint32_t sem)
{
    p->sent += bytes;
    p->bad_dest |= to != (p->me + 1u) % p->chips && to != (p->me + p->chips - 1u) % p->chips;
    push(p, tsl_insn_dma_send_encode((tsl_insn_dma_send_t){.remote_addr = hbm, .local_addr = vmem, .rows = 1u,
                                                           .row_bytes = bytes, .dest_x = to, .sem = sem}));
}

void lab7_wait(lab7_t *p, uint32_t sem, uint32_t count)
{
    push(p, tsl_insn_dma_semwait_encode((tsl_insn_dma_semwait_t){.sem = sem, .count = count}));
}

/* The DMA tells the VPU that what it did before is done, the VPU adds and tells the DMA, which waits
 * for it before anything after. */
void lab7_add(lab7_t *p, uint32_t dst, uint32_t a, uint32_t b, uint32_t bytes)
{
    const uint32_t dma = 1u << TSL_UNIT_DMA, vpu = 1u << TSL_UNIT_VPU;
    push(p, tsl_insn_sync_encode((tsl_insn_sync_t){.unit = TSL_UNIT_DMA, .signal = vpu}));
    push(p, tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
            .op = TSL_VPU_OP_ADD, .dst_dtype = TSL_DTYPE_INT32, .src1_dtype = TSL_DTYPE_INT32,
            .src2_dtype = TSL_DTYPE_INT32, .src2_mode = TSL_SRC2_VEC, .dst_addr = dst, .src1_addr = a,
            .src2_addr = b, .rows = (bytes + 63u) / 64u, .wait = dma, .signal = dma}));
    push(p, tsl_insn_sync_encode((tsl_insn_sync_t){.unit = TSL_UNIT_DMA, .wait = vpu}));
}

static int passed, failed;

static void check(int ok, const char *fmt, unsigned a, unsigned b, unsigned c, const char *why)
{
    if (ok) {
        passed++;
        return;
    }
    failed++;
    printf("FAIL lab7: ");
    printf(fmt, a, b, c);
    printf(": %s\n", why);
}

static uint64_t rng_s;
static uint32_t rnd(void)
{
    rng_s ^= rng_s << 13;
    rng_s ^= rng_s >> 7;
    rng_s ^= rng_s << 17;
    return (uint32_t)rng_s;
}

static void one(uint32_t chips, uint32_t count, uint32_t tile)
{
    const char *what = "%u chips, %u values, tiles of %u bytes";
    tessel_pod_t *pod;
    if (tessel_pod_open(&pod, "model", chips, TESSEL_POD_RING, 0, 0)) {
        check(0, what, chips, count, tile, tessel_pod_last_error(NULL));
        return;
    }
    tessel_addr_t buf, scratch;
    int32_t *x = malloc(4u * count * chips), *got = malloc(4u * count);
    lab7_t *p = calloc(chips, sizeof *p);
    tessel_pod_prog_t *progs = calloc(chips, sizeof *progs);
    char why[300] = "";
    int ok = x && got && p && progs && !tessel_pod_alloc(pod, 4u * count, &buf) &&
             !tessel_pod_alloc(pod, 4u * count, &scratch);
    for (uint32_t i = 0; ok && i < chips; i++) {
        for (uint32_t j = 0; j < count; j++)
            x[i * count + j] = (int32_t)rnd();
        ok = !tessel_write(tessel_pod_device(pod, i), buf, x + i * count, 4u * count);
        lab7_args_t a = {.chip = i, .chips = chips, .count = count, .buf = (uint32_t)buf,
                         .scratch = (uint32_t)scratch, .vmem_a = 0, .vmem_b = tile, .tile = tile};
        p[i] = (lab7_t){.me = i, .chips = chips};
        lab7_allreduce(&p[i], &a);
        ok = ok && !p[i].oom;
        progs[i] = (tessel_pod_prog_t){p[i].w, p[i].words};
    }
    if (!ok)
        snprintf(why, sizeof why, "set-up failed (host memory or HBM)");
    uint64_t most = 2u * (chips - 1u) * 4u * ((count + chips - 1u) / chips);
    for (uint32_t i = 0; ok && i < chips; i++)
        if (p[i].bad_dest || p[i].sent > most) {
            snprintf(why, sizeof why, "chip %u sent %llu bytes%s: a ring all-reduce sends at most %llu, to its "
                     "neighbours only", i, (unsigned long long)p[i].sent, p[i].bad_dest ? ", some past its neighbours" : "",
                     (unsigned long long)most);
            ok = 0;
        }
    if (ok && tessel_pod_run(pod, progs, buf < scratch ? buf : scratch,
                             (buf > scratch ? buf : scratch) + 4u * count)) {
        snprintf(why, sizeof why, "the programs failed: %s", tessel_pod_last_error(pod));
        ok = 0;
    }
    for (uint32_t i = 0; ok && i < chips; i++) {
        ok = !tessel_read(tessel_pod_device(pod, i), got, buf, 4u * count);
        for (uint32_t j = 0; ok && j < count; j++) {
            uint32_t want = 0;
            for (uint32_t k = 0; k < chips; k++)
                want += (uint32_t)x[k * count + j];
            if ((uint32_t)got[j] != want) {
                snprintf(why, sizeof why, "chip %u value %u is %d, the sum is %d", i, j, got[j], (int32_t)want);
                ok = 0;
            }
        }
    }
    check(ok, what, chips, count, tile, why);
    for (uint32_t i = 0; p && i < chips; i++)
        free(p[i].w);
    free(p);
    free(progs);
    free(x);
    free(got);
    tessel_pod_close(pod);
}

int main(int argc, char **argv)
{
    rng_s = argc > 1 ? strtoull(argv[1], NULL, 0) : 7;
    if (!rng_s)
        rng_s = 7;
    static const uint32_t rings[] = {2, 3, 4, 8};
    for (unsigned r = 0; r < 4; r++) {
        uint32_t n = rings[r];
        one(n, 16u * n, 64);               /* one vector a chunk */
        one(n, 1000u + rnd() % 5000u, 256); /* uneven chunks, several tiles */
        one(n, 20000u + rnd() % 20000u, 4096);
    }
    printf("lab7: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
