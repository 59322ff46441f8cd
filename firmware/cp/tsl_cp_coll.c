/* Tessel's collective compiler: one chip's device program of a ring collective over ICI
 * (docs/pod.md, "Collectives"). Every chip of the ring runs its own program; they meet only through
 * DMA SENDs into each other's HBM and the SEMWAITs on this chip's semaphores.
 *
 * The ring runs both ways at once: direction 0 sends to the next position, direction 1 to the one
 * before, each on a semaphore of its own (0, 1). Each direction carries one half of every part (the
 * first half direction 0, the second direction 1), in tiles. A receiver takes its arrivals of one
 * direction in the order they were sent: both sides walk the same steps and tiles.
 *   reduce-scatter: at step 0 a chip sends its own contribution to the part of the position
 *     d(s + 1) behind it; at steps 1 .. n-1 it waits for the partial of that part, adds its own
 *     (partial op own) and sends it on, so that after n - 1 steps it holds its own part, reduced
 *     in ring order from the position after it to itself.
 *   all-gather: a chip sends its part; at steps 1 .. n-1 it waits for the part of the position d*s
 *     behind it, which lands in its output, and sends it on (not the last).
 *   all-reduce: reduce-scatter, whose last step sends the reduced part on as the all-gather's first.
 *   broadcast: each half runs down a chain of n - 1 hops from the root, forwarded by each chip.
 */
#include "tsl_cp_compile.h"
#include "tsl_cp_int.h"

#define SLOTS 4u   /* VMEM tile slots per direction: a tile's loads run ahead of the last tile's send */

typedef struct {
    tsl_cp_t *cp;
    const tsl_cp_coll_t *c;
    uint32_t es, tile;                 /* element bytes; tile bytes */
    uint32_t slot[2];                  /* the next slot of each direction */
    uint32_t base[2][SLOTS][2];        /* VMEM of slot s's A and B buffers */
    tsl_cp_buf_t buf[2][SLOTS][2];
    uint64_t sent;                     /* bytes SENT */
} coll_t;

/* Ring position p + k (k may be negative), and the chip there. */
static uint32_t pos(const tsl_cp_coll_t *c, int64_t k)
{
    int64_t n = c->n;
    return (uint32_t)((((int64_t)c->pos + k) % n + n) % n);
}

/* Elements [*lo, *hi) of part q (a chip index) carried by direction d: parts of `per` elements,
 * the first half (rounded up) one way, the rest the other. */
static void half(uint32_t q, uint32_t d, uint64_t per, uint64_t *lo, uint64_t *hi)
{
    uint64_t a = q * per, b = a + per, mid = a + (per + 1u) / 2u;
    *lo = d ? mid : a;
    *hi = d ? b : mid;
}

/* The elements of part q in an all-reduce of c->count: parts as even as can be, in chip order. */
static void ar_half(const tsl_cp_coll_t *c, uint32_t q, uint32_t d, uint64_t *lo, uint64_t *hi)
{
    uint64_t a = (uint64_t)q * c->count / c->n, b = (uint64_t)(q + 1u) * c->count / c->n, mid = a + (b - a + 1u) / 2u;
    *lo = d ? mid : a;
    *hi = d ? b : mid;
}

static uint32_t tiles(const coll_t *x, uint64_t lo, uint64_t hi)
{
    return (uint32_t)(((hi - lo) * x->es + x->tile - 1u) / x->tile);
}

/* Tile t of [lo, hi): its first element and its bytes. */
static uint32_t tile_at(const coll_t *x, uint64_t lo, uint64_t hi, uint32_t t, uint32_t *bytes)
{
    uint64_t off = (uint64_t)t * x->tile, all = (hi - lo) * x->es;
    *bytes = (uint32_t)(all - off < x->tile ? all - off : x->tile);
    return (uint32_t)(lo * x->es + off);
}

static uint32_t next_slot(coll_t *x, uint32_t d)
{
    uint32_t s = x->slot[d];
    x->slot[d] = (s + 1u) % SLOTS;
    return s;
}

static void load(coll_t *x, uint32_t d, uint32_t s, uint32_t ab, uint32_t hbm, uint32_t bytes)
{
    tsl_cp_issue(x->cp, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
            .op = TSL_DMA_OP_LOAD, .hbm_addr = hbm, .local_addr = x->base[d][s][ab], .rows = 1u, .row_bytes = bytes}),
                 NULL, NULL, &x->buf[d][s][ab], 0);
}

static void store(coll_t *x, uint32_t d, uint32_t s, uint32_t hbm, uint32_t bytes)
{
    tsl_cp_issue(x->cp, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
            .op = TSL_DMA_OP_STORE, .hbm_addr = hbm, .local_addr = x->base[d][s][0], .rows = 1u, .row_bytes = bytes}),
                 &x->buf[d][s][0], NULL, NULL, 0);
}

/* Send slot s's A buffer to the neighbour of direction d, at its HBM address `hbm`. */
static void send(coll_t *x, uint32_t d, uint32_t s, uint32_t hbm, uint32_t bytes)
{
    x->sent += bytes;
    tsl_cp_issue(x->cp, tsl_insn_dma_send_encode((tsl_insn_dma_send_t){
            .hbm_addr = hbm, .local_addr = x->base[d][s][0], .rows = 1u, .row_bytes = bytes,
            .dest_x = x->c->next_x[d], .dest_y = x->c->next_y[d], .sem = d}),
                 &x->buf[d][s][0], NULL, NULL, 0);
}

static void semwait(coll_t *x, uint32_t d)
{
    tsl_insn_t i = tsl_insn_dma_semwait_encode((tsl_insn_dma_semwait_t){.sem = d, .count = 1u});
    tsl_cp_push(x->cp, &i);
}

/* A = A op B over the slot's tile (whole vectors: lanes past `bytes` are never stored or sent). */
static void reduce(coll_t *x, uint32_t d, uint32_t s, uint32_t bytes)
{
    uint32_t vb = x->cp->n * x->es, dt = x->c->dtype;
    tsl_cp_issue(x->cp, tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
            .op = x->c->op, .dst_dtype = dt, .src1_dtype = dt, .src2_dtype = dt, .src2_mode = TSL_SRC2_VEC,
            .dst_addr = x->base[d][s][0], .src1_addr = x->base[d][s][0], .src2_addr = x->base[d][s][1],
            .rows = (bytes + vb - 1u) / vb}),
                 &x->buf[d][s][1], NULL, &x->buf[d][s][0], 0);
}

/* The parts' layout of each kind: the elements of part q, direction d, and where they sit in the
 * input, the output and the scratch (HBM byte offsets of element 0). */
static void part(const coll_t *x, uint32_t q, uint32_t d, uint64_t *lo, uint64_t *hi)
{
    const tsl_cp_coll_t *c = x->c;
    if (c->kind == TSL_CP_COLL_ALL_REDUCE)
        ar_half(c, q, d, lo, hi);
    else
        half(q, d, c->count, lo, hi);   /* reduce-scatter, all-gather: parts of COUNT elements */
}

/* Reduce-scatter (and an all-reduce's first half): n steps, both directions, tile by tile. The
 * input holds every part; partials arrive in the scratch at the part's place. */
static void reduce_scatter(coll_t *x)
{
    const tsl_cp_coll_t *c = x->c;
    int ar = c->kind == TSL_CP_COLL_ALL_REDUCE;
    for (uint32_t st = 0; st < c->n; st++) {
        uint64_t lo[2], hi[2];
        uint32_t nt[2], most = 0;
        for (uint32_t d = 0; d < 2u; d++) {
            int64_t back = d ? (int64_t)st + 1 : -(int64_t)st - 1;   /* direction 0 came from behind */
            part(x, c->ring[pos(c, back)], d, &lo[d], &hi[d]);
            nt[d] = tiles(x, lo[d], hi[d]);
            most = nt[d] > most ? nt[d] : most;
        }
        for (uint32_t t = 0; t < most; t++)
            for (uint32_t d = 0; d < 2u; d++) {
                if (t >= nt[d])
                    continue;
                uint32_t bytes, off = tile_at(x, lo[d], hi[d], t, &bytes), s = next_slot(x, d);
                if (st == 0) {
                    load(x, d, s, 0, c->in + off, bytes);
                    send(x, d, s, c->next_scratch[d] + off, bytes);
                    continue;
                }
                semwait(x, d);
                load(x, d, s, 0, c->scratch + off, bytes);
                load(x, d, s, 1, c->in + off, bytes);
                reduce(x, d, s, bytes);
                if (st + 1u < c->n) {
                    send(x, d, s, c->next_scratch[d] + off, bytes);
                } else if (ar) {   /* this chip's part, reduced: the all-gather's first step */
                    store(x, d, s, c->out + off, bytes);
                    send(x, d, s, c->next_out[d] + off, bytes);
                } else {           /* reduce-scatter: the part is this chip's whole output */
                    uint64_t first = c->ring[c->pos] * c->count * (uint64_t)x->es;
                    store(x, d, s, c->out + (uint32_t)(off - first), bytes);
                }
            }
    }
}

/* All-gather (and an all-reduce's second half): parts land in the output at their place; each chip
 * forwards what it received, except at the last step. An all-gather starts by copying its input
 * into its own part of the output and sending it. */
static void all_gather(coll_t *x)
{
    const tsl_cp_coll_t *c = x->c;
    int ag = c->kind == TSL_CP_COLL_ALL_GATHER;
    for (uint32_t st = ag ? 0u : 1u; st < c->n; st++) {
        uint64_t lo[2], hi[2];
        uint32_t nt[2], most = 0;
        for (uint32_t d = 0; d < 2u; d++) {
            int64_t back = d ? (int64_t)st : -(int64_t)st;
            part(x, c->ring[pos(c, back)], d, &lo[d], &hi[d]);
            nt[d] = tiles(x, lo[d], hi[d]);
            most = nt[d] > most ? nt[d] : most;
        }
        for (uint32_t t = 0; t < most; t++)
            for (uint32_t d = 0; d < 2u; d++) {
                if (t >= nt[d])
                    continue;
                uint32_t bytes, off = tile_at(x, lo[d], hi[d], t, &bytes), s;
                if (st == 0) {   /* own part: from the input, at its place in the output */
                    s = next_slot(x, d);
                    uint64_t first = c->ring[c->pos] * c->count * (uint64_t)x->es;
                    load(x, d, s, 0, c->in + (uint32_t)(off - first), bytes);
                    store(x, d, s, c->out + off, bytes);
                    send(x, d, s, c->next_out[d] + off, bytes);
                    continue;
                }
                semwait(x, d);
                if (st + 1u == c->n)
                    continue;
                s = next_slot(x, d);
                load(x, d, s, 0, c->out + off, bytes);
                send(x, d, s, c->next_out[d] + off, bytes);
            }
    }
}

/* Broadcast: half d of the root's input runs along direction d through the n - 1 other chips. */
static void broadcast(coll_t *x)
{
    const tsl_cp_coll_t *c = x->c;
    uint64_t lo[2], hi[2];
    uint32_t nt[2], most = 0;
    for (uint32_t d = 0; d < 2u; d++) {
        half(0, d, c->count, &lo[d], &hi[d]);
        nt[d] = tiles(x, lo[d], hi[d]);
        most = nt[d] > most ? nt[d] : most;
    }
    for (uint32_t t = 0; t < most; t++)
        for (uint32_t d = 0; d < 2u; d++) {
            if (t >= nt[d])
                continue;
            /* hops from the root to here along direction d */
            int64_t ahead = (int64_t)c->pos - (int64_t)c->root_pos;
            uint32_t k = (uint32_t)(((d ? -ahead : ahead) + c->n) % c->n);
            uint32_t bytes, off = tile_at(x, lo[d], hi[d], t, &bytes), s;
            if (k == 0) {
                s = next_slot(x, d);
                load(x, d, s, 0, c->in + off, bytes);
                store(x, d, s, c->out + off, bytes);
                send(x, d, s, c->next_out[d] + off, bytes);
                continue;
            }
            semwait(x, d);
            if (k + 1u == c->n)
                continue;
            s = next_slot(x, d);
            load(x, d, s, 0, c->out + off, bytes);
            send(x, d, s, c->next_out[d] + off, bytes);
        }
}

uint32_t tsl_cp_coll_tile(const tsl_cp_t *cp)
{
    uint32_t t = 1u;
    while (2u * t <= cp->vmem_bytes / (2u * SLOTS * 2u) && 2u * t <= 32768u)
        t *= 2u;
    return t;
}

uint64_t tsl_cp_compile_coll(tsl_cp_t *cp, const tsl_cp_coll_t *c, tsl_cp_prog_t *p)
{
    coll_t x = {.cp = cp, .c = c, .es = tsl_dtype_bytes(c->dtype), .tile = tsl_cp_coll_tile(cp)};
    for (uint32_t d = 0, a = 0; d < 2u; d++)
        for (uint32_t s = 0; s < SLOTS; s++)
            for (uint32_t ab = 0; ab < 2u; ab++, a += x.tile)
                x.base[d][s][ab] = a;
    cp->prog = p;
    tsl_cp_sched_begin(cp);
    if (c->kind == TSL_CP_COLL_BROADCAST)
        broadcast(&x);
    if (c->kind == TSL_CP_COLL_REDUCE_SCATTER || c->kind == TSL_CP_COLL_ALL_REDUCE)
        reduce_scatter(&x);
    if (c->kind == TSL_CP_COLL_ALL_GATHER || c->kind == TSL_CP_COLL_ALL_REDUCE)
        all_gather(&x);
    tsl_cp_sched_end(cp);
    p->open = 0;
    cp->prog = NULL;
    return x.sent;
}
