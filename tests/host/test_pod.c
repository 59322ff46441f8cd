/* Pods (docs/pod.md) on the model backend, and on the sim (Verilated SoCs joined by links):
 *   - the ISA: DMA SEND and SEMWAIT's dispatch checks and semantics on two golden-model chips;
 *   - random collectives (kinds, dtypes, reductions, sizes, roots; rings and tori of 2 to 8 chips)
 *     against a reference written here from docs/pod.md's reduction order: integers exact, floats
 *     bit for bit (host IEEE float with the VPU's flush to zero, bf16 rounded after each step);
 *   - faults and bad calls: a dead chip fails the collective (a deadlock, not a hang), the pod then
 *     works again; bad arguments are refused with the reason.
 *   - on the sim (a build with it): random collectives on a 2- and a 4-chip ring and a 2x2 torus,
 *     against the same reference, bit for bit; faults injected on a 2-chip ring (a packet corrupted
 *     on a link, a cut +X and a cut -X link, a dead chip, a link cut under a transfer longer than
 *     its credits) fail a collective within the bound set on the waits, with the reason, and the pod
 *     runs again after a dropped packet and a mended link.
 * Usage: test_pod [SEED] (or $SEED); $POD_CASES random collectives on the model (default 60),
 * $POD_SIM_CASES on each sim pod (default 6; 0: none), $POD_SIM_SHAPES the sim pods instead of the
 * default three (e.g. "8,2x4,4x2": an 8-chip ring and two 8-chip tori; make soak).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref.h"
#include "tessel.h"
#include "test_util.h"
#include "tslm.h"

static tu_t T;

/* ------------------------------------------------------------------------------------- the ISA */

static uint32_t push(tslm_t *m, tsl_insn_t i)
{
    if (tslm_push(m, i.w) == TSLM_OK)   /* else the refusal is in ERR_CODE */
        tslm_run(m);
    uint32_t e = tslm_reg_read(m, TSL_TC_ERR_CODE_OFFSET);
    tslm_reg_write(m, TSL_TC_CTRL_OFFSET, 1u << TSL_TC_CTRL_RESET_SHIFT);
    return e;
}

static tsl_insn_t send(uint32_t x, uint32_t y, uint32_t hbm, uint32_t local, uint32_t rows, uint32_t bytes,
                       uint32_t sem)
{
    return tsl_insn_dma_send_encode((tsl_insn_dma_send_t){.remote_addr = hbm, .local_addr = local, .rows = rows,
                                                          .row_bytes = bytes, .remote_stride = bytes,
                                                          .local_stride = bytes, .dest_x = x, .dest_y = y,
                                                          .sem = sem});
}

static tsl_insn_t semwait(uint32_t sem, uint32_t count)
{
    return tsl_insn_dma_semwait_encode((tsl_insn_dma_semwait_t){.sem = sem, .count = count});
}

static void test_isa(void)
{
    tslm_pod_t *pod;
    tslm_t a, b, plain;
    tslm_cfg_t ca = tslm_cfg_default(), cb;
    ca.features |= 1u << TSL_TC_CFG_FEATURES_ICI_SHIFT;
    ca.pod_x = 2;
    ca.pod_y = 1;
    cb = ca;
    cb.chip_x = 1;
    tslm_cfg_t cp = tslm_cfg_default();
    if (!tu_check(&T, tslm_pod_new(&pod, 2, 1) == TSLM_OK && tslm_init(&a, &ca) == TSLM_OK &&
                          tslm_init(&b, &cb) == TSLM_OK && tslm_init(&plain, &cp) == TSLM_OK &&
                          tslm_pod_attach(pod, &a) == TSLM_OK && tslm_pod_attach(pod, &b) == TSLM_OK,
                  "isa: a pod of two model chips"))
        return;
    tslm_cfg_t bad = ca;
    bad.chip_x = 2;
    tslm_t z;
    tu_check(&T, tslm_init(&z, &bad) == TSLM_EINVAL, "isa: a chip outside its pod's extents is refused");
    tu_check(&T, tslm_pod_attach(pod, &b) == TSLM_EINVAL, "isa: a second attach of a chip is refused");
    /* dispatch checks */
    tu_check(&T, push(&plain, send(1, 0, 0x1000, 0, 1, 64, 0)) == TSL_ERR_BAD_OPCODE,
             "isa: SEND without CFG_FEATURES.ICI is BAD_OPCODE");
    tu_check(&T, push(&plain, semwait(0, 1)) == TSL_ERR_BAD_OPCODE, "isa: SEMWAIT without ICI is BAD_OPCODE");
    tu_check(&T, push(&a, send(0, 0, 0x1000, 0, 1, 64, 0)) == TSL_ERR_BAD_FIELD, "isa: SEND to itself is BAD_FIELD");
    tu_check(&T, push(&a, send(2, 0, 0x1000, 0, 1, 64, 0)) == TSL_ERR_BAD_FIELD, "isa: SEND past X is BAD_FIELD");
    tu_check(&T, push(&a, send(1, 1, 0x1000, 0, 1, 64, 0)) == TSL_ERR_BAD_FIELD, "isa: SEND past Y is BAD_FIELD");
    tu_check(&T, push(&a, send(1, 0, 0x1000, 0, 0, 64, 0)) == TSL_ERR_BAD_FIELD, "isa: SEND of 0 rows is BAD_FIELD");
    tu_check(&T, push(&a, semwait(3, 0)) == TSL_ERR_BAD_FIELD, "isa: SEMWAIT of COUNT 0 is BAD_FIELD");
    tu_check(&T, push(&a, send(1, 0, ca.hbm_bytes - 32, 0, 1, 64, 0)) == TSL_ERR_HBM_RANGE,
             "isa: SEND past HBM is HBM_RANGE");
    tu_check(&T, push(&a, send(1, 0, 0x1000, ca.vmem_bytes - 32, 1, 64, 0)) == TSL_ERR_LOCAL_RANGE,
             "isa: SEND from past VMEM is LOCAL_RANGE");
    tslm_reg_write(&a, TSL_TC_HBM_BASE_OFFSET, 0x2000);
    tu_check(&T, push(&a, send(1, 0, 0x1000, 0, 1, 64, 0)) == TSL_ERR_HBM_RANGE,
             "isa: SEND below the sender's window is HBM_RANGE (buffers are symmetric)");
    tslm_reg_write(&a, TSL_TC_HBM_BASE_OFFSET, 0);
    tsl_insn_t w = semwait(0, 1);
    w.w[1] |= 1u << 4;
    tu_check(&T, push(&a, w) == TSL_ERR_BAD_FIELD, "isa: a reserved bit of SEMWAIT is BAD_FIELD");
    /* semantics: strided rows land at the destination, then its semaphore counts one */
    for (uint32_t i = 0; i < 96; i++)
        tslm_vmem(&a)[i] = (uint8_t)(i * 7u + 1u);
    tsl_insn_t s = send(1, 0, 0x4000, 0, 3, 20, 5);
    s.w[4] = 100;   /* HBM_STRIDE */
    s.w[5] = 32;    /* LOCAL_STRIDE */
    tu_check(&T, push(&a, s) == TSL_ERR_NONE, "isa: a strided SEND runs");
    int same = 1;
    for (uint32_t r = 0; r < 3; r++)
        same &= !memcmp(tslm_hbm(&b) + 0x4000 + 100 * r, tslm_vmem(&a) + 32 * r, 20);
    tu_check(&T, same && tslm_hbm(&b)[0x4000 + 20] == 0, "isa: the SEND's rows are at the destination, no more");
    tu_check(&T, b.sem[5] == 1 && a.sem[5] == 0, "isa: the destination's semaphore 5 is 1 (%u)", b.sem[5]);
    /* a SEMWAIT takes COUNT; one that can never be met is ERR_SEM_DEADLOCK, not a hang */
    tslm_pod_begin(pod, 1);
    tu_check(&T, push(&b, semwait(5, 1)) == TSL_ERR_NONE && b.sem[5] == 0, "isa: SEMWAIT takes the arrival");
    tu_check(&T, push(&b, semwait(5, 1)) == TSL_ERR_SEM_DEADLOCK, "isa: a SEMWAIT nobody can meet deadlocks");
    tslm_pod_leave(pod);
    tu_check(&T, push(&a, s) == TSL_ERR_NONE && push(&a, s) == TSL_ERR_NONE && b.sem[5] == 2,
             "isa: two SENDs count two");
    tslm_reg_write(&b, TSL_TC_CTRL_OFFSET, 1u << TSL_TC_CTRL_RESET_SHIFT);
    tu_check(&T, b.sem[5] == 0, "isa: CTRL.RESET zeroes the semaphores");
    tslm_free(&a);
    tslm_free(&b);
    tslm_free(&plain);
    tslm_pod_free(pod);
}

/* ----------------------------------------------------------------------- the reference (pod.md) */

typedef struct {
    uint32_t chips, dx, dy, torus;
} shape_t;

static uint32_t combine(uint32_t acc, uint32_t x, tessel_dtype_t dt, tessel_reduce_t op)
{
    if (dt == TESSEL_INT32)
        return op == TESSEL_REDUCE_SUM ? acc + x
               : op == TESSEL_REDUCE_MAX ? ((int32_t)acc > (int32_t)x ? acc : x)
                                         : ((int32_t)acc < (int32_t)x ? acc : x);
    uint32_t r = op == TESSEL_REDUCE_SUM ? ref_u(ref_f(ref_daz(acc)) + ref_f(ref_daz(x)))
                 : op == TESSEL_REDUCE_MAX ? ref_max(acc, x) : ref_min(acc, x);
    r = ref_daz(r);   /* the VPU flushes a subnormal result */
    return dt == TESSEL_BF16 ? (uint32_t)ref_bf16(r) << 16 : r;
}

/* Element j of chip c's input, as fp32 bits (bf16: the upper half). */
static uint32_t elem(const uint8_t *buf, uint64_t j, tessel_dtype_t dt)
{
    uint32_t v = 0;
    if (dt == TESSEL_BF16)
        memcpy((uint8_t *)&v + 2, buf + 2 * j, 2);
    else
        memcpy(&v, buf + 4 * j, 4);
    return v;
}

/* Part i of m of [lo, hi) (docs/pod.md, "Parts"). */
static void part_range(uint64_t lo, uint64_t hi, uint32_t i, uint32_t m, uint64_t *a, uint64_t *b)
{
    *a = lo + (hi - lo) * i / m;
    *b = lo + (hi - lo) * (i + 1u) / m;
}

/* Which of the m parts of [lo, hi) holds e (*part), and whether e is in its second half (the
 * direction that travels backwards). The part's range in *a, *b. */
static int locate(uint64_t lo, uint64_t hi, uint32_t m, uint64_t e, uint32_t *part, uint64_t *a, uint64_t *b)
{
    uint32_t q = 0;
    part_range(lo, hi, q, m, a, b);
    while (e >= *b)
        part_range(lo, hi, ++q, m, a, b);
    *part = q;
    return e >= *a + (*b - *a + 1u) / 2u;
}

/* The ring order of docs/pod.md over m values along an axis, for the part of coordinate o: from
 * o + 1 (o - 1 for the second half) round to o. */
static uint32_t ring_reduce(const uint32_t *v, uint32_t m, uint32_t o, int back, tessel_dtype_t dt, tessel_reduce_t op)
{
    uint32_t step = back ? m - 1u : 1u, acc = v[(o + step) % m];
    for (uint32_t k = 2; k <= m; k++)
        acc = combine(acc, v[(o + k * step) % m], dt, op);
    return m == 1u ? v[o] : acc;
}

/* The chip at coordinate u on `axis` and w on the other. */
static uint32_t chip_at(const shape_t *s, uint32_t axis, uint32_t u, uint32_t w)
{
    return axis ? u * s->dx + w : w * s->dx + u;
}

/* Element e reduced over the chips along `first` (parts of [lo, hi) by that axis), then those
 * results along the other axis (parts of the first's part), as docs/pod.md orders the phases. A pod
 * of one line has just the first. Returns it; *owner is the chip whose part holds e at the end. */
static uint32_t reduce_2d(const shape_t *s, uint8_t *const *in, uint64_t e, uint32_t first, uint64_t lo, uint64_t hi,
                          tessel_dtype_t dt, tessel_reduce_t op, uint32_t *owner)
{
    uint32_t second = 1u - first, m1 = first ? s->dy : s->dx, m2 = first ? s->dx : s->dy, q1, q2 = 0;
    uint64_t a, b, a2, b2;
    int back1 = locate(lo, hi, m1, e, &q1, &a, &b), back2 = locate(a, b, m2, e, &q2, &a2, &b2);
    uint32_t v[16], acc[16];
    for (uint32_t w = 0; w < m2; w++) {
        for (uint32_t u = 0; u < m1; u++)
            v[u] = elem(in[chip_at(s, first, u, w)], e, dt);
        acc[w] = ring_reduce(v, m1, q1, back1, dt, op);
    }
    *owner = chip_at(s, first, q1, q2);
    (void)second;
    return ring_reduce(acc, m2, q2, back2, dt, op);
}

/* Whether s is a torus of 2 x b or b x 2 chips, b even: one with two rings (docs/pod.md). */
static int paired(const shape_t *s)
{
    return s->torus && s->dx > 1u && ((s->dx == 2u && s->dy % 2u == 0) || (s->dy == 2u && s->dx % 2u == 0));
}

/* The chips of ring h of a paired torus, in ring order from chip 0: steps along the long axis
 * (+1) and across the axis of extent 2 take turns, ring 0's first along. */
static void paired_ring(const shape_t *s, uint32_t h, uint32_t *chip)
{
    uint32_t t = s->dx == 2u ? 0u : 1u, l = 1u - t, at[2] = {0, 0}, ext[2] = {s->dx, s->dy};
    for (uint32_t i = 0; i < s->chips; i++) {
        chip[i] = at[1] * s->dx + at[0];
        if (i % 2u == h)
            at[l] = (at[l] + 1u) % ext[l];
        else
            at[t] ^= 1u;
    }
}

/* Element e of [0, len) on a paired torus: [0, len) in n parts, part q chip q's, each in four
 * pieces (the first ones rounded up), pieces 2h and 2h + 1 the two directions of ring h; reduced in
 * ring order round the ring of its piece. *owner: the chip of its part. */
static uint32_t reduce_paired(const shape_t *s, uint8_t *const *in, uint64_t e, uint64_t len, tessel_dtype_t dt,
                              tessel_reduce_t op, uint32_t *owner)
{
    uint32_t n = s->chips, q, k = 0, o = 0, ring[16], v[16];
    uint64_t a, b;
    (void)locate(0, len, n, e, &q, &a, &b);
    while (k < 3u && e >= a + ((b - a) * (k + 1u) + 3u) / 4u)
        k++;
    paired_ring(s, k / 2u, ring);
    for (uint32_t i = 0; i < n; i++) {
        v[i] = elem(in[ring[i]], e, dt);
        if (ring[i] == q)
            o = i;
    }
    *owner = q;
    return ring_reduce(v, n, o, k % 2u, dt, op);
}

/* ------------------------------------------------------------------------- random collectives */

static const char *kind_name(tessel_coll_t k)
{
    static const char *const n[] = {"all-reduce", "reduce-scatter", "all-gather", "broadcast"};
    return n[k];
}

static uint32_t rand_value(tessel_dtype_t dt)
{
    if (dt == TESSEL_INT32)
        return (uint32_t)tu_next(&T.rng);
    /* normal floats between 2^-10 and 2^10 of either sign: sums stay far from subnormals */
    uint32_t e = 117u + (uint32_t)tu_below(&T.rng, 20), m = (uint32_t)tu_next(&T.rng) & 0x7FFFFFu;
    uint32_t f = ((uint32_t)tu_below(&T.rng, 2) << 31) | (e << 23) | m;
    return dt == TESSEL_BF16 ? f & 0xFFFF0000u : f;
}

static void put(uint8_t *buf, uint64_t j, uint32_t v, tessel_dtype_t dt)
{
    if (dt == TESSEL_BF16)
        memcpy(buf + 2 * j, (uint8_t *)&v + 2, 2);
    else
        memcpy(buf + 4 * j, &v, 4);
}

static const uint32_t shapes[][3] = {{2, 2, 1}, {3, 3, 1}, {4, 4, 1}, {8, 8, 1}, {4, 2, 2}, {6, 2, 3}, {8, 2, 4},
                                     {8, 4, 2}};
#define SHAPES (sizeof shapes / sizeof shapes[0])

/* One collective, random but for what `force` gives (a shape index, a kind: -1 for random); its
 * float sums are where the order shows. On `given` (a sim pod of shape `shape`) if not NULL, with
 * fewer elements, else on a model pod of its own. */
static uint64_t one_case(int idx, int shape, int kind, tessel_pod_t *given)
{
    uint64_t took = 0;
    const uint32_t *sh = shapes[shape >= 0 ? (uint32_t)shape : tu_below(&T.rng, SHAPES)];
    shape_t s = {.chips = sh[0], .dx = sh[1], .dy = sh[2], .torus = sh[2] > 1};
    tessel_collective_t c = {.kind = kind >= 0 ? (tessel_coll_t)kind : (tessel_coll_t)tu_below(&T.rng, 4),
                             .dtype = (tessel_dtype_t[]){TESSEL_INT32, TESSEL_FP32, TESSEL_BF16}[tu_below(&T.rng, 3)],
                             .op = (tessel_reduce_t)tu_below(&T.rng, 3),
                             .root = (uint32_t)tu_below(&T.rng, s.chips)};
    if (kind >= 0) {   /* a float sum: the order decides its bits */
        c.dtype = tu_below(&T.rng, 2) ? TESSEL_FP32 : TESSEL_BF16;
        c.op = TESSEL_REDUCE_SUM;
    }
    /* mostly small; sometimes several tiles of a direction's part */
    c.count = tu_below(&T.rng, 4) ? 1u + tu_below(&T.rng, 3000) : 20000u + tu_below(&T.rng, given ? 20000 : 60000);
    if (c.kind != TESSEL_ALL_REDUCE && c.kind != TESSEL_BROADCAST)
        c.count = (c.count + s.chips - 1u) / s.chips;
    uint32_t es = c.dtype == TESSEL_BF16 ? 2u : 4u, n = s.chips;
    uint64_t in_n = c.kind == TESSEL_REDUCE_SCATTER ? c.count * n : c.count;
    uint64_t out_n = c.kind == TESSEL_ALL_GATHER ? c.count * n : c.count;
    int in_place = (c.kind == TESSEL_ALL_REDUCE || c.kind == TESSEL_BROADCAST) && tu_below(&T.rng, 3) == 0;
    char what[160];
    snprintf(what, sizeof what, "%scase %d: %s %s %s of %llu on %s %ux%u%s, root %u", given ? "sim " : "", idx,
             kind_name(c.kind),
             c.dtype == TESSEL_INT32 ? "int32" : c.dtype == TESSEL_FP32 ? "fp32" : "bf16",
             (const char *[]){"sum", "max", "min"}[c.op], (unsigned long long)c.count, s.torus ? "torus" : "ring",
             s.dx, s.dy, in_place ? " in place" : "", c.root);
    tessel_pod_t *pod = given;
    if (!pod && !tu_check(&T, tessel_pod_open(&pod, "model", n, s.torus ? TESSEL_POD_TORUS : TESSEL_POD_RING, s.dx,
                                              s.dy) == TESSEL_OK, "%s: open: %s", what, tessel_pod_last_error(NULL)))
        return 0;
    tessel_pod_stats_t before;
    tessel_pod_stats(pod, &before);
    uint8_t *in[16], *out[16];
    tessel_addr_t a_in, a_out;
    int ok = tessel_pod_alloc(pod, in_n * es, &a_in) == TESSEL_OK;
    a_out = a_in;
    if (ok && !in_place)
        ok = tessel_pod_alloc(pod, out_n * es, &a_out) == TESSEL_OK;
    for (uint32_t i = 0; i < n; i++) {
        in[i] = malloc(in_n * es);
        out[i] = malloc(out_n * es);
        for (uint64_t j = 0; j < in_n; j++)
            put(in[i], j, rand_value(c.dtype), c.dtype);
        ok = ok && tessel_write(tessel_pod_device(pod, i), a_in, in[i], in_n * es) == TESSEL_OK;
    }
    c.in = a_in;
    c.out = a_out;
    int r = ok ? tessel_pod_collective(pod, &c) : -1;
    if (tu_check(&T, ok && r == TESSEL_OK, "%s: %s", what, tessel_pod_last_error(pod))) {
        unsigned csr = ref_fp_ftz_daz();
        uint64_t bad = 0, first = 0;
        uint32_t got_v = 0, want_v = 0, bad_chip = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (tessel_read(tessel_pod_device(pod, i), out[i], a_out, out_n * es)) {
                bad++;
                continue;
            }
            for (uint64_t j = 0; j < out_n; j++) {
                uint32_t want;
                uint32_t owner = i, line = s.dx > 1u ? 0u : 1u;   /* the axis of a pod that is one line */
                if (c.kind == TESSEL_ALL_REDUCE && paired(&s)) {
                    want = reduce_paired(&s, in, j, c.count, c.dtype, c.op, &owner);
                    owner = i;
                } else if (c.kind == TESSEL_REDUCE_SCATTER && paired(&s)) {
                    want = reduce_paired(&s, in, i * c.count + j, in_n, c.dtype, c.op, &owner);
                } else if (c.kind == TESSEL_ALL_REDUCE && s.dx > 1u && s.dy > 1u) {   /* halves: X then Y, Y then X */
                    uint64_t half = (c.count + 1u) / 2u;
                    uint32_t h = j >= half;
                    want = reduce_2d(&s, in, j, h, h ? half : 0, h ? c.count : half, c.dtype, c.op, &owner);
                    owner = i;
                } else if (c.kind == TESSEL_ALL_REDUCE) {
                    want = reduce_2d(&s, in, j, line, 0, c.count, c.dtype, c.op, &owner);
                    owner = i;
                } else if (c.kind == TESSEL_REDUCE_SCATTER) {   /* Y then X: chip q's part */
                    want = reduce_2d(&s, in, i * c.count + j, s.dy > 1u ? 1u : 0u, 0, in_n, c.dtype, c.op, &owner);
                } else if (c.kind == TESSEL_ALL_GATHER) {
                    want = elem(in[j / c.count], j % c.count, c.dtype);
                } else {
                    want = elem(in[c.root], j, c.dtype);
                }
                uint32_t got = elem(out[i], j, c.dtype);
                if ((got != want || owner != i) && !bad++) {
                    first = j;
                    got_v = got;
                    want_v = want;
                    bad_chip = i;
                }
            }
        }
        ref_fp_restore(csr);
        tu_check(&T, !bad, "%s: %llu elements differ; first chip %u element %llu: 0x%08x, want 0x%08x", what,
                 (unsigned long long)bad, bad_chip, (unsigned long long)first, got_v, want_v);
        tessel_pod_stats_t st;
        tu_check(&T, tessel_pod_stats(pod, &st) == TESSEL_OK && st.collectives == before.collectives + 1 &&
                         st.bytes - before.bytes == tessel_pod_coll_bytes(pod, &c) && st.ici_bytes > before.ici_bytes &&
                         st.model_cycles > before.model_cycles && (given ? st.cycles > before.cycles : !st.cycles),
                 "%s: the pod's statistics count it (cycles on the sim only)", what);
        took = st.cycles - before.cycles;
    }
    for (uint32_t i = 0; i < n; i++) {
        free(in[i]);
        free(out[i]);
    }
    if (ok && a_out != a_in)
        (void)tessel_pod_free(pod, a_out);
    if (ok)
        (void)tessel_pod_free(pod, a_in);
    if (!given)
        tessel_pod_close(pod);
    return took;
}

#ifndef TESSEL_NO_SIM
/* The index in shapes[] of a pod written as "N" (a ring of N chips) or "XxY" (a torus); -1 if none. */
static int shape_named(const char *name)
{
    unsigned a = 0, b = 1;
    char x;
    int n = sscanf(name, "%u%c%u", &a, &x, &b);
    if (n != 1 && !(n == 3 && x == 'x'))
        return -1;
    for (unsigned k = 0; k < SHAPES; k++)
        if (shapes[k][0] == a * b && shapes[k][1] == a && shapes[k][2] == b)
            return (int)k;
    return -1;
}
#endif

/* Random collectives on sim pods, each opened once (a boot is costly) for `cases` collectives: by
 * default a 2- and a 4-chip ring and a 2x2 torus; then the 4-chip ring is opened again, and its
 * first collective runs again: the same inputs after the same history take the same cycles (each
 * chip keeps its own clock, so host threads cannot reorder anything; docs/pod.md). `names`, if not
 * NULL, lists other pods instead (shape_named's names, separated by commas or spaces), without the
 * second opening. */
static void test_sim(int cases, const char *names)
{
#ifndef TESSEL_NO_SIM
    int sim_shapes[SHAPES + 1] = {0, 2, 4, 2}, count = 4;
    if (names) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", names);
        count = 0;
        for (char *t = strtok(buf, ", "); t && count < (int)SHAPES; t = strtok(NULL, ", ")) {
            int k = shape_named(t);
            if (tu_check(&T, k >= 0, "POD_SIM_SHAPES: %s is a ring (N) or torus (XxY) of test_pod's shapes", t))
                sim_shapes[count++] = k;
        }
    }
    tu_rng_t first[SHAPES + 1];
    uint64_t took[SHAPES + 1] = {0};
    for (int k = 0; k < count && cases > 0; k++) {
        const uint32_t *sh = shapes[sim_shapes[k]];
        tessel_pod_t *pod;
        if (!tu_check(&T, tessel_pod_open(&pod, "sim", sh[0], sh[2] > 1 ? TESSEL_POD_TORUS : TESSEL_POD_RING, sh[1],
                                          sh[2]) == TESSEL_OK,
                      "sim: open %u chips: %s", sh[0], tessel_pod_last_error(NULL)))
            continue;
        int again = !names && k == 3;
        tu_rng_t after = T.rng;
        first[k] = again ? first[1] : T.rng;
        T.rng = first[k];
        took[k] = one_case(0, sim_shapes[k], TESSEL_ALL_REDUCE, pod);
        if (again)
            T.rng = after;
        for (int i = 1; i < cases && !again; i++)
            one_case(i, sim_shapes[k], -1, pod);
        tessel_pod_close(pod);
    }
    if (cases > 0 && !names)
        tu_check(&T, took[1] && took[3] == took[1], "sim: the 4-chip ring's first collective took %llu cycles, "
                 "and %llu on a pod opened again", (unsigned long long)took[1], (unsigned long long)took[3]);
#else
    (void)cases;
    (void)names;
#endif
}

/* ----------------------------------------------------------------------- faults and bad calls */

#ifndef TESSEL_NO_SIM
/* The cycles a failed sim run took, from its error ("...; after N cycles"); all ones without them. */
static unsigned long long took(const char *e)
{
    const char *after = strstr(e, "; after ");
    return after ? strtoull(after + 8, NULL, 10) : ~0ull;
}

/* An all-reduce (int32 sum of 256 values on each of the pod's 2 chips) that must run and be right. */
static void sim_clean_run(tessel_pod_t *pod, const tessel_collective_t *c, const char *when)
{
    int32_t x[2][256], got[2][256];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 256; j++)
            x[i][j] = (int32_t)tu_below(&T.rng, 1u << 20) - (1 << 19);
    int ok = 1;
    for (uint32_t i = 0; i < 2; i++)
        ok &= tessel_write(tessel_pod_device(pod, i), c->in, x[i], sizeof x[i]) == TESSEL_OK;
    int r = tessel_pod_collective(pod, c);
    for (uint32_t i = 0; i < 2 && r == TESSEL_OK; i++) {
        ok &= tessel_read(tessel_pod_device(pod, i), got[i], c->out, sizeof got[i]) == TESSEL_OK;
        for (int j = 0; j < 256; j++)
            ok &= got[i][j] == (int32_t)((uint32_t)x[0][j] + (uint32_t)x[1][j]);
    }
    tu_check(&T, r == TESSEL_OK && ok, "sim faults: %s, the all-reduce runs and is right: %d %s", when, r,
             tessel_pod_last_error(pod));
}
#endif

/* Faults on a 2-chip sim ring (docs/pod.md, "Faults"), with a bound of kWait cycles on every wait: each
 * fails an all-reduce with the chip and the reason (SEM_DEADLOCK, or the packet dropped for its CRC,
 * which fails the run even when the chips finished it) in less than twice the bound (the error gives
 * the cycles the run took; the power-on bound is ICI_WAIT_CYCLES). */
static void test_sim_faults(void)
{
#ifndef TESSEL_NO_SIM
    const uint32_t kWait = 20000;
    const struct {
        const char *name;
        int dead;                   /* the chip killed, or -1 */
        tessel_link_fault_t fault;  /* on chip 0's link `port`, mended after */
        uint32_t port;
        const char *says;
    } faults[] = {
        {"a packet corrupted on a link", -1, TESSEL_LINK_CORRUPT, 0, "chip 1 dropped 1 packet for its CRC"},
        {"a cut link", -1, TESSEL_LINK_CUT, 0, "SEM_DEADLOCK"},
        /* direction 1 leaves by -X (the SEND's NEG), so the ring needs both links */
        {"a cut -X link", -1, TESSEL_LINK_CUT, 1, "SEM_DEADLOCK"},
        {"a dead chip", 1, TESSEL_LINK_OK, 0, "SEM_DEADLOCK"},
    };
    tessel_pod_t *pod;
    tessel_addr_t a;
    if (!tu_check(&T, tessel_pod_open(&pod, "sim", 2, TESSEL_POD_RING, 0, 0) == TESSEL_OK &&
                          tessel_pod_alloc(pod, 4096, &a) == TESSEL_OK,
                  "sim faults: open: %s", tessel_pod_last_error(NULL)))
        return;
    tu_check(&T, tessel_pod_link_fault(pod, 2, 0, TESSEL_LINK_CUT) == TESSEL_EINVAL,
             "sim faults: chip 2 of 2 is refused");
    tu_check(&T, tessel_pod_link_fault(pod, 0, 2, TESSEL_LINK_CUT) == TESSEL_EINVAL &&
                     strstr(tessel_pod_last_error(pod), "no link on port 2"),
             "sim faults: a ring has no +Y link: %s", tessel_pod_last_error(pod));
    tu_check(&T, tessel_pod_set_wait(pod, kWait) == TESSEL_OK, "sim faults: set the bound: %s",
             tessel_pod_last_error(pod));
    const tessel_collective_t c = {.kind = TESSEL_ALL_REDUCE, .dtype = TESSEL_INT32, .count = 256, .in = a, .out = a};
    for (size_t k = 0; k < sizeof faults / sizeof faults[0]; k++) {
        sim_clean_run(pod, &c, "before");
        if (faults[k].dead >= 0)
            tu_check(&T, tessel_pod_kill(pod, (uint32_t)faults[k].dead) == TESSEL_OK, "sim faults: kill");
        else
            tu_check(&T, tessel_pod_link_fault(pod, 0, faults[k].port, faults[k].fault) == TESSEL_OK,
                     "sim faults: inject");
        int r = tessel_pod_collective(pod, &c);
        const char *e = tessel_pod_last_error(pod);
        tu_check(&T, r == TESSEL_EDEVICE && strstr(e, "chip ") && strstr(e, faults[k].says) && took(e) < 2ull * kWait,
                 "sim faults: %s fails the all-reduce within the bound, with the reason: %d %s", faults[k].name, r, e);
        printf("test_pod: sim faults: %s: %s\n", faults[k].name, e);
        if (faults[k].dead < 0) {
            tu_check(&T, tessel_pod_link_fault(pod, 0, faults[k].port, TESSEL_LINK_OK) == TESSEL_OK,
                     "sim faults: mend");
            sim_clean_run(pod, &c, "after the fault");
        }
    }
    tessel_pod_close(pod);
    /* A link cut under an all-reduce of 256 KiB, which outlasts the sender's credits: the sender finds
     * the link down at the bound and drops what it is given from then on, so that nothing waits on it
     * forever; then a chip waits in vain for the rest, to the bound again. The link stays down: a pod
     * of its own. */
    if (!tu_check(&T, tessel_pod_open(&pod, "sim", 2, TESSEL_POD_RING, 0, 0) == TESSEL_OK &&
                          tessel_pod_alloc(pod, 1u << 18, &a) == TESSEL_OK && tessel_pod_set_wait(pod, kWait) == TESSEL_OK &&
                          tessel_pod_link_fault(pod, 0, 0, TESSEL_LINK_CUT) == TESSEL_OK,
                  "sim faults: open a second pod: %s", tessel_pod_last_error(NULL)))
        return;
    const tessel_collective_t big = {.kind = TESSEL_ALL_REDUCE, .dtype = TESSEL_INT32, .count = 1u << 16, .in = a,
                                     .out = a};
    int r = tessel_pod_collective(pod, &big);
    const char *e = tessel_pod_last_error(pod);
    tu_check(&T, r == TESSEL_EDEVICE && strstr(e, "chip 0's link +X is down") && took(e) < 4ull * kWait,
             "sim faults: a link cut under a large all-reduce is found down within the bound: %d %s", r, e);
    printf("test_pod: sim faults: a link cut under 256 KiB: %s\n", e);
    tessel_pod_close(pod);
#endif
}

static void test_faults(void)
{
    tessel_pod_t *pod;
    tu_check(&T, tessel_pod_open(&pod, "uart", 4, TESSEL_POD_RING, 0, 0) == TESSEL_ENODEV &&
                     strstr(tessel_pod_last_error(NULL), "uart"),
             "faults: a uart pod is refused with the reason: %s", tessel_pod_last_error(NULL));
    tu_check(&T, tessel_pod_open(&pod, "model", 1, TESSEL_POD_RING, 0, 0) == TESSEL_EINVAL,
             "faults: a pod of one chip is refused");
    tu_check(&T, tessel_pod_open(&pod, "model", 8, TESSEL_POD_TORUS, 3, 3) == TESSEL_EINVAL,
             "faults: a 3x3 torus of 8 chips is refused: %s", tessel_pod_last_error(NULL));
    tu_check(&T, tessel_pod_open(&pod, "model", 17, TESSEL_POD_RING, 0, 0) == TESSEL_EINVAL,
             "faults: a ring past ICI_DIM_MAX is refused");
    if (!tu_check(&T, tessel_pod_open(&pod, "model", 4, TESSEL_POD_RING, 0, 0) == TESSEL_OK, "faults: open"))
        return;
    tessel_addr_t a, b;
    if (!tu_check(&T, !tessel_pod_alloc(pod, 4096, &a) && !tessel_pod_alloc(pod, 4096, &b), "faults: alloc"))
        return;
    tessel_collective_t c = {.kind = TESSEL_ALL_REDUCE, .dtype = TESSEL_FP32, .count = 1000, .in = a, .out = b};
    tessel_collective_t x = c;
    x.dtype = TESSEL_INT8;
    tu_check(&T, tessel_pod_collective(pod, &x) == TESSEL_EINVAL && strstr(tessel_pod_last_error(pod), "int8"),
             "faults: int8 is refused: %s", tessel_pod_last_error(pod));
    x = c;
    x.count = 0;
    tu_check(&T, tessel_pod_collective(pod, &x) == TESSEL_EINVAL, "faults: count 0 is refused");
    x = c;
    x.kind = TESSEL_BROADCAST;
    x.root = 4;
    tu_check(&T, tessel_pod_collective(pod, &x) == TESSEL_EINVAL, "faults: root 4 of 4 chips is refused");
    x = c;
    x.out = a + 64;
    tu_check(&T, tessel_pod_collective(pod, &x) == TESSEL_EINVAL, "faults: overlapping in and out are refused");
    x = c;
    x.count = 1u << 30;
    tu_check(&T, tessel_pod_collective(pod, &x) == TESSEL_ERANGE, "faults: a buffer past HBM is refused");
    x = c;
    x.kind = TESSEL_ALL_GATHER;
    x.out = a;
    tu_check(&T, tessel_pod_collective(pod, &x) == TESSEL_EINVAL, "faults: an all-gather in place is refused");
    tu_check(&T, tessel_pod_collective(pod, &c) == TESSEL_OK, "faults: the pod runs: %s", tessel_pod_last_error(pod));
    tu_check(&T, tessel_pod_link_fault(pod, 0, 0, TESSEL_LINK_CUT) == TESSEL_ENODEV &&
                     tessel_pod_set_wait(pod, 100) == TESSEL_OK,
             "faults: the model's pod has no links to break, and no bound to set: %s", tessel_pod_last_error(pod));
    /* a dead chip: the others wait for it, find they never can, and fail: no hang */
    tu_check(&T, tessel_pod_kill(pod, 2) == TESSEL_OK, "faults: kill chip 2");
    int r = tessel_pod_collective(pod, &c);
    tu_check(&T, r == TESSEL_EDEVICE && strstr(tessel_pod_last_error(pod), "SEM_DEADLOCK"),
             "faults: a dead chip fails the collective with a deadlock: %d %s", r, tessel_pod_last_error(pod));
    tessel_pod_close(pod);
    /* the pod afterwards: a fresh pod runs; a chip's own commands still run on a pod chip */
    if (tu_check(&T, tessel_pod_open(&pod, "model", 2, TESSEL_POD_RING, 2, 1) == TESSEL_OK, "faults: reopen")) {
        tu_check(&T, !tessel_pod_alloc(pod, 4096, &a) && tessel_pod_collective(pod, &(tessel_collective_t){
                     .kind = TESSEL_BROADCAST, .dtype = TESSEL_INT32, .count = 7, .in = a, .out = a}) == TESSEL_OK,
                 "faults: a 2-chip broadcast in place runs: %s", tessel_pod_last_error(pod));
        tessel_pod_close(pod);
    }
}

/* Programs of one's own (tessel_pod_run): chip 0 loads 64 bytes and sends them to chip 1, which waits
 * for them; a window outside HBM and a bad record are refused. */
static void test_run(const char *backend)
{
    tessel_pod_t *pod;
    tessel_addr_t a;
    if (!tu_check(&T, tessel_pod_open(&pod, backend, 2, TESSEL_POD_RING, 0, 0) == TESSEL_OK &&
                          tessel_pod_alloc(pod, 4096, &a) == TESSEL_OK, "run %s: open", backend))
        return;
    uint8_t data[64], got[64] = {0};
    for (int i = 0; i < 64; i++)
        data[i] = (uint8_t)(i * 5 + 3);
    tu_check(&T, !tessel_write(tessel_pod_device(pod, 0), a, data, 64), "run: write");
    uint32_t p0[1 + 2 * TSL_PARAM_INSN_WORDS] = {0}, p1[1 + TSL_PARAM_INSN_WORDS] = {0};
    TSL_SET(&p0[0], TSL_PROG_HDR_KIND, TSL_PROG_REC_INSN);
    TSL_SET(&p0[0], TSL_PROG_HDR_COUNT, 2u);
    tsl_insn_t ld = tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
        .op = TSL_DMA_OP_LOAD, .hbm_addr = (uint32_t)a, .rows = 1, .row_bytes = 64});
    tsl_insn_t sd = send(1, 0, (uint32_t)a + 64, 0, 1, 64, 3);
    memcpy(&p0[1], ld.w, sizeof ld.w);
    memcpy(&p0[1 + TSL_PARAM_INSN_WORDS], sd.w, sizeof sd.w);
    TSL_SET(&p1[0], TSL_PROG_HDR_KIND, TSL_PROG_REC_INSN);
    TSL_SET(&p1[0], TSL_PROG_HDR_COUNT, 1u);
    memcpy(&p1[1], semwait(3, 1).w, 4 * TSL_PARAM_INSN_WORDS);
    tessel_pod_prog_t progs[2] = {{p0, 1 + 2 * TSL_PARAM_INSN_WORDS}, {p1, 1 + TSL_PARAM_INSN_WORDS}};
    int r = tessel_pod_run(pod, progs, a, a + 4096);
    tu_check(&T, r == TESSEL_OK && !tessel_read(tessel_pod_device(pod, 1), got, a + 64, 64) && !memcmp(got, data, 64),
             "run %s: chip 0's bytes reach chip 1, which waited for them: %s", backend, tessel_pod_last_error(pod));
    tu_check(&T, tessel_pod_run(pod, progs, 0, 4096) == TESSEL_ERANGE, "run %s: a window over the rings is refused",
             backend);
    /* TO_LOCAL and DONE: chip 0 sends its 64 bytes into chip 1's ACC and waits for them to leave
     * (its own semaphore 5); chip 1 waits for them and stores them into HBM. */
    uint32_t acc = TSL_LOCAL_ACC_BASE + 256u;
    tsl_insn_dma_send_t lo = tsl_insn_dma_send_decode(send(1, 0, acc, 0, 1, 64, 3).w);
    lo.to_local = 1u;
    lo.done = 1u;
    lo.done_sem = 5u;
    uint32_t q0[1 + 3 * TSL_PARAM_INSN_WORDS] = {0}, q1[1 + 2 * TSL_PARAM_INSN_WORDS] = {0};
    tsl_insn_t st = tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
        .op = TSL_DMA_OP_STORE, .hbm_addr = (uint32_t)a + 128, .local_addr = acc, .rows = 1, .row_bytes = 64});
    const tsl_insn_t w0[3] = {ld, tsl_insn_dma_send_encode(lo), semwait(5, 1)}, w1[2] = {semwait(3, 1), st};
    TSL_SET(&q0[0], TSL_PROG_HDR_KIND, TSL_PROG_REC_INSN);
    TSL_SET(&q0[0], TSL_PROG_HDR_COUNT, 3u);
    TSL_SET(&q1[0], TSL_PROG_HDR_KIND, TSL_PROG_REC_INSN);
    TSL_SET(&q1[0], TSL_PROG_HDR_COUNT, 2u);
    for (int k = 0; k < 3; k++)
        memcpy(&q0[1 + k * TSL_PARAM_INSN_WORDS], w0[k].w, sizeof w0[k].w);
    for (int k = 0; k < 2; k++)
        memcpy(&q1[1 + k * TSL_PARAM_INSN_WORDS], w1[k].w, sizeof w1[k].w);
    tessel_pod_prog_t local[2] = {{q0, 1 + 3 * TSL_PARAM_INSN_WORDS}, {q1, 1 + 2 * TSL_PARAM_INSN_WORDS}};
    memset(got, 0, sizeof got);
    r = tessel_pod_run(pod, local, a, a + 4096);
    tu_check(&T, r == TESSEL_OK && !tessel_read(tessel_pod_device(pod, 1), got, a + 128, 64) && !memcmp(got, data, 64),
             "run %s: a SEND with TO_LOCAL lands in chip 1's ACC, and its DONE counts on chip 0: %s", backend,
             tessel_pod_last_error(pod));
    /* the dispatch checks of a SEND, the same on every backend: a chip outside the pod; ASYNC with a
     * token out; DONE_SEM without DONE; TO_LOCAL rows past VMEM */
    tsl_insn_dma_send_t f = tsl_insn_dma_send_decode(send(1, 0, (uint32_t)a + 64, 0, 1, 64, 3).w), g = f, h = lo;
    f.async = 1u;
    f.signal = 1u << TSL_UNIT_VPU;
    g.done_sem = 2u;
    tessel_info_t info;
    tu_check(&T, !tessel_info(tessel_pod_device(pod, 1), &info), "run: info");
    h.dest_x = 0u;   /* from chip 1, which runs these */
    h.remote_addr = info.vmem_bytes - 32u;
    struct {
        tsl_insn_t insn;
        const char *what, *err;
    } bad[4] = {{send(2, 0, (uint32_t)a + 64, 0, 1, 64, 3), "a SEND out of the pod", "BAD_FIELD"},
                {tsl_insn_dma_send_encode(f), "an ASYNC SEND with SIGNAL", "BAD_FIELD"},
                {tsl_insn_dma_send_encode(g), "a SEND with DONE_SEM but no DONE", "BAD_FIELD"},
                {tsl_insn_dma_send_encode(h), "a TO_LOCAL SEND past VMEM", "LOCAL_RANGE"}};
    for (int k = 0; k < 4; k++) {
        memcpy(&p1[1], bad[k].insn.w, 4 * TSL_PARAM_INSN_WORDS);
        tessel_pod_prog_t one[2] = {{NULL, 0}, {p1, 1 + TSL_PARAM_INSN_WORDS}};
        r = tessel_pod_run(pod, one, a, a + 4096);
        tu_check(&T, r == TESSEL_EDEVICE && strstr(tessel_pod_last_error(pod), "chip 1") &&
                         strstr(tessel_pod_last_error(pod), bad[k].err),
                 "run %s: %s is %s: %s", backend, bad[k].what, bad[k].err, tessel_pod_last_error(pod));
    }
    p1[0] = 7;   /* no record kind */
    r = tessel_pod_run(pod, progs, a, a + 4096);
    tu_check(&T, r == TESSEL_EDEVICE && strstr(tessel_pod_last_error(pod), "chip 1"),
             "run %s: a bad record fails with the chip named: %s", backend, tessel_pod_last_error(pod));
    tessel_pod_close(pod);
}

int main(int argc, char **argv)
{
    tu_init(&T, "test_pod", argc, argv);
    const char *env = getenv("POD_CASES");
    int cases = env && *env ? atoi(env) : 60;
    test_isa();
    test_faults();
    test_sim_faults();
    test_run("model");
#ifndef TESSEL_NO_SIM
    test_run("sim");
#endif
    for (int i = 0; i < cases; i++)
        one_case(i, -1, -1, NULL);
    for (int k = 0; k < (int)SHAPES; k++)   /* every shape's reducing kinds, as float sums */
        for (int kind = TESSEL_ALL_REDUCE; kind <= TESSEL_REDUCE_SCATTER; kind++)
            one_case(cases + 2 * k + kind, k, kind, NULL);
    const char *sim_env = getenv("POD_SIM_CASES"), *shapes_env = getenv("POD_SIM_SHAPES");
    test_sim(sim_env && *sim_env ? atoi(sim_env) : 6, shapes_env && *shapes_env ? shapes_env : NULL);
    return tu_done(&T);
}
