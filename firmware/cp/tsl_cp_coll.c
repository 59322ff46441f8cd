/* Tessel's collective compiler: one chip's device program of a collective over ICI (docs/pod.md,
 * "Collectives"). Every chip of the pod runs its own program; they meet only through DMA SENDs into
 * each other's HBM and the SEMWAITs on this chip's semaphores.
 *
 * A collective is a list of phases, each a ring collective along one axis of the pod (X: the
 * chip's row, Y: its column) over a range of elements. A phase runs both ways round its ring at
 * once: direction 0 sends to the next coordinate, direction 1 to the one before, each on a semaphore
 * of its own. A part of the range is split in two halves, the first travelling direction 0. Data
 * moves in tiles through VMEM slots. A receiver takes a semaphore's arrivals in the order they were
 * sent: every chip walks the same phases, steps, tiles and directions.
 *   reduce-scatter phase: at step 0 a chip sends its contribution to the part of the coordinate
 *     d(s + 1) behind it; at steps 1 .. m-1 it waits for that part's partial, reduces its own into
 *     it (partial op own) and sends it on; after m - 1 steps it holds its own part, reduced.
 *   all-gather phase: a chip sends its part; at steps 1 .. m-1 it waits for the part of the
 *     coordinate d*s behind it, which lands in place, and sends it on (not at the last step).
 *   broadcast phase: each half runs down a chain of m - 1 hops from the root's coordinate.
 * An all-reduce on a torus splits its buffer in two halves run at once, one X then Y, the other Y
 * then X, so that both axes carry data all the time.
 */
#include "tsl_cp_compile.h"
#include "tsl_cp_int.h"

#define SLOTS 4u   /* VMEM tile slots per direction: a tile's loads run ahead of the last tile's send */

enum { PH_RS, PH_AG, PH_BC };

/* A buffer's elements: element e at base + (e - first) * es. */
typedef struct {
    uint32_t base;
    uint64_t first;
} span_t;

typedef struct phase {
    int kind;              /* PH_* */
    uint32_t axis;         /* 0: X, 1: Y */
    uint64_t lo, hi;       /* the elements it works on */
    uint32_t sem;          /* direction d's arrivals count on semaphore sem + d */
    span_t own, part, res; /* RS: own contributions, arrived partials, the reduced part's place;
                              AG: the own part's source (res: already in place), where parts land;
                              BC: the root's input, where the data lands */
    uint32_t first_step;   /* AG: 1 behind a reduce-scatter whose last step sent the own part */
    const struct phase *then; /* RS: that all-gather (its last step sends on the AG's semaphores) */
    uint32_t root;         /* BC: the root's coordinate on the axis */
    int idle;              /* BC: this chip is not on the root's line */
} phase_t;

typedef struct {
    tsl_cp_t *cp;
    const tsl_cp_coll_t *c;
    uint32_t es, tile;                 /* element bytes; tile bytes */
    uint32_t slot[2];                  /* the next slot of each direction */
    uint32_t base[2][SLOTS][2];        /* VMEM of slot s's A and B buffers */
    tsl_cp_buf_t buf[2][SLOTS][2];
    uint64_t sent;                     /* bytes SENT */
} coll_t;

static uint32_t extent(const tsl_cp_coll_t *c, uint32_t axis) { return axis ? c->dy : c->dx; }
static uint32_t coord(const tsl_cp_coll_t *c, uint32_t axis) { return axis ? c->y : c->x; }

/* (v + k) mod m for a k of either sign. */
static uint32_t wrap(uint32_t v, int64_t k, uint32_t m)
{
    return (uint32_t)((((int64_t)v + k) % (int64_t)m + m) % m);
}

/* Part i of m of [lo, hi): [*a, *b). */
static void part_of(uint64_t lo, uint64_t hi, uint32_t i, uint32_t m, uint64_t *a, uint64_t *b)
{
    *a = lo + (hi - lo) * i / m;
    *b = lo + (hi - lo) * (i + 1u) / m;
}

/* Part i of m of [lo, hi), and its half d: [*a, *b). The first half is rounded up. */
static void half_of(uint64_t lo, uint64_t hi, uint32_t i, uint32_t m, uint32_t d, uint64_t *a, uint64_t *b)
{
    uint64_t p0, p1;
    part_of(lo, hi, i, m, &p0, &p1);
    uint64_t mid = p0 + (p1 - p0 + 1u) / 2u;
    *a = d ? mid : p0;
    *b = d ? p1 : mid;
}

static uint32_t addr(const coll_t *x, span_t s, uint64_t e)
{
    return s.base + (uint32_t)((e - s.first) * x->es);
}

static uint32_t next_slot(coll_t *x, uint32_t d)
{
    uint32_t s = x->slot[d];
    x->slot[d] = (s + 1u) % SLOTS;
    return s;
}

/* A LOAD or STORE of slot s's buffer ab; `hint` as tsl_cp_issue's (the unit that will wait for it
 * takes its own signal, not one from a SYNC that would wait for the ASYNC SENDs to leave). */
static void xfer(coll_t *x, uint32_t op, uint32_t d, uint32_t s, uint32_t ab, uint32_t hbm, uint32_t bytes,
                 uint32_t hint)
{
    tsl_cp_buf_t *b = &x->buf[d][s][ab];
    tsl_cp_issue(x->cp, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
            .op = op, .hbm_addr = hbm, .local_addr = x->base[d][s][ab], .rows = 1u, .row_bytes = bytes}),
                 op == TSL_DMA_OP_STORE ? b : NULL, NULL, op == TSL_DMA_OP_LOAD ? b : NULL, hint);
}

/* Send slot s's A buffer along `axis`, direction d, to the neighbour's HBM address `hbm`, counted on
 * its semaphore `sem`. ASYNC: the DMA goes on while the bytes leave. That is safe here because a
 * slot is only ever written again by a DMA LOAD, which waits for the SEND still reading it
 * (docs/isa.md, DMA SEND and SEMWAIT), and the collective ends with the queues idle. */
static void send(coll_t *x, uint32_t axis, uint32_t d, uint32_t s, uint32_t hbm, uint32_t bytes, uint32_t sem)
{
    const tsl_cp_coll_t *c = x->c;
    uint32_t to = wrap(coord(c, axis), d ? -1 : 1, extent(c, axis));
    x->sent += bytes;
    tsl_cp_issue(x->cp, tsl_insn_dma_send_encode((tsl_insn_dma_send_t){
            .hbm_addr = hbm, .local_addr = x->base[d][s][0], .rows = 1u, .row_bytes = bytes,
            .dest_x = axis ? c->x : to, .dest_y = axis ? to : c->y, .sem = sem, .async = 1u}),
                 &x->buf[d][s][0], NULL, NULL, 0);
}

static void semwait(coll_t *x, uint32_t sem)
{
    tsl_insn_t i = tsl_insn_dma_semwait_encode((tsl_insn_dma_semwait_t){.sem = sem, .count = 1u});
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
                 &x->buf[d][s][1], NULL, &x->buf[d][s][0], TSL_TOK(TSL_UNIT_DMA));
}

/* A broadcast: this chip's hops from the root in direction d. */
static uint32_t hops(const coll_t *x, const phase_t *ph, uint32_t d)
{
    uint32_t m = extent(x->c, ph->axis), p = coord(x->c, ph->axis);
    return d ? wrap(ph->root, -(int64_t)p, m) : wrap(p, -(int64_t)ph->root, m);
}

/* Tile t of a direction's half [a, b): its first element (*e) and its bytes, 0 if the half has no
 * tile t. */
static uint32_t tile_of(const coll_t *x, uint64_t a, uint64_t b, uint32_t t, uint64_t *e)
{
    uint32_t per = x->tile / x->es;
    *e = a + (uint64_t)t * per;
    return *e >= b ? 0u : (uint32_t)((b - *e < per ? b - *e : per) * x->es);
}

/* Whether the tile at step st is this chip's own (it starts here), and whether this chip sends it
 * on (a chain of an all-gather or a broadcast ends at its last chip). */
static int own_tile(const coll_t *x, const phase_t *ph, uint32_t st, uint32_t d)
{
    return ph->kind == PH_BC ? hops(x, ph, d) == 0 : st == 0;
}

static int sends_on(const coll_t *x, const phase_t *ph, uint32_t st, uint32_t d)
{
    uint32_t m = extent(x->c, ph->axis);
    if (ph->kind == PH_BC)
        return hops(x, ph, d) + 1u < m;
    return ph->kind == PH_RS || st + 1u < m;
}

/* The first half of a tile's work (tile_of's e and bytes), once it has arrived (unless it is the
 * own): load what the second half needs into a slot, which it returns. Reduce-scatter: the arrived
 * partial into A, the own contribution into B (step 0: only the own, into A). All-gather and
 * broadcast: the own tile into A and into place, or the tile that arrived in place into A, unless
 * it goes no further. */
static uint32_t fetch(coll_t *x, const phase_t *ph, uint32_t st, uint32_t d, uint64_t e, uint32_t bytes)
{
    int own = own_tile(x, ph, st, d);
    if (!own && !sends_on(x, ph, st, d))
        return 0;
    uint32_t s = next_slot(x, d);
    if (ph->kind == PH_RS) {
        xfer(x, TSL_DMA_OP_LOAD, d, s, 0, addr(x, own ? ph->own : ph->part, e), bytes, 0);
        if (!own)
            xfer(x, TSL_DMA_OP_LOAD, d, s, 1, addr(x, ph->own, e), bytes, TSL_TOK(TSL_UNIT_VPU));
        return s;
    }
    uint32_t dst = addr(x, ph->res, e), src = own ? addr(x, ph->own, e) : dst;
    xfer(x, TSL_DMA_OP_LOAD, d, s, 0, src, bytes, 0);
    if (src != dst)
        xfer(x, TSL_DMA_OP_STORE, d, s, 0, dst, bytes, 0);
    return s;
}

/* The second half, on slot s: a reduce-scatter reduces (after step 0) and sends the partial on, or at
 * its last step stores the reduced part, and sends it on as the all-gather's first step when one
 * follows; an all-gather or a broadcast sends the tile on unless its chain ends here. */
static void finish(coll_t *x, const phase_t *ph, uint32_t st, uint32_t d, uint64_t e, uint32_t bytes, uint32_t s)
{
    uint32_t m = extent(x->c, ph->axis);
    if (ph->kind != PH_RS) {
        if (own_tile(x, ph, st, d) || sends_on(x, ph, st, d))
            send(x, ph->axis, d, s, addr(x, ph->res, e), bytes, ph->sem + d);
        return;
    }
    if (st == 0) {
        send(x, ph->axis, d, s, addr(x, ph->part, e), bytes, ph->sem + d);
        return;
    }
    reduce(x, d, s, bytes);
    if (st + 1u < m)
        send(x, ph->axis, d, s, addr(x, ph->part, e), bytes, ph->sem + d);
    else
        xfer(x, TSL_DMA_OP_STORE, d, s, 0, addr(x, ph->res, e), bytes, 0);
    if (st + 1u == m && ph->then)   /* the all-gather's first step */
        send(x, ph->axis, d, s, addr(x, ph->res, e), bytes, ph->then->sem + d);
}

static uint32_t steps(const coll_t *x, const phase_t *ph)
{
    return ph->kind == PH_BC ? 1u : extent(x->c, ph->axis);
}

/* Step st of phase ph (nothing past its last), every tile, both directions. The part at step st:
 * a reduce-scatter's is the coordinate st + 1 behind, an all-gather's st behind. The two directions'
 * tiles take turns, in the order they arrive: in a broadcast, tile t of direction d reaches the chip
 * k_d hops from the root after about k_d + t tiles' time (each hop forwards a tile once it has all
 * of it), and the chip's DMA queue waits for them in that order, so that the nearer chain is never
 * held up behind a tile of the farther one. Elsewhere both directions' tiles arrive together. */
static void step(coll_t *x, const phase_t *ph, uint32_t st)
{
    if (!ph || ph->idle || st < ph->first_step || st >= steps(x, ph))
        return;
    uint32_t m = extent(x->c, ph->axis), p = coord(x->c, ph->axis), nt[2], t[2] = {0, 0}, k[2] = {0, 0};
    uint64_t a[2], b[2];
    for (uint32_t d = 0; d < 2u; d++) {
        int64_t back = (int64_t)st + (ph->kind == PH_RS);
        if (ph->kind == PH_BC) {
            half_of(ph->lo, ph->hi, 0, 1, d, &a[d], &b[d]);
            k[d] = hops(x, ph, d);
        } else {
            half_of(ph->lo, ph->hi, wrap(p, d ? back : -back, m), m, d, &a[d], &b[d]);
        }
        nt[d] = (uint32_t)(((b[d] - a[d]) * x->es + x->tile - 1u) / x->tile);
    }
    if (ph->kind == PH_BC) {
        while (t[0] < nt[0] || t[1] < nt[1]) {
            uint32_t d = t[0] >= nt[0] || (t[1] < nt[1] && k[1] + t[1] < k[0] + t[0]);
            uint64_t e;
            uint32_t bytes = tile_of(x, a[d], b[d], t[d]++, &e);
            if (!own_tile(x, ph, st, d))
                semwait(x, ph->sem + d);
            finish(x, ph, st, d, e, bytes, fetch(x, ph, st, d, e, bytes));
        }
        return;
    }
    /* Both directions' tiles arrive together: wait for both, then load both (the DMA overlaps loads
     * that follow each other, not across a SEMWAIT), then reduce and send each. */
    for (uint32_t i = 0; i < nt[0] || i < nt[1]; i++) {
        uint64_t e[2];
        uint32_t bytes[2], s[2];
        for (uint32_t d = 0; d < 2u; d++)
            if ((bytes[d] = tile_of(x, a[d], b[d], i, &e[d])) && !own_tile(x, ph, st, d))
                semwait(x, ph->sem + d);
        for (uint32_t d = 0; d < 2u; d++)
            if (bytes[d])
                s[d] = fetch(x, ph, st, d, e[d], bytes[d]);
        for (uint32_t d = 0; d < 2u; d++)
            if (bytes[d])
                finish(x, ph, st, d, e[d], bytes[d], s[d]);
    }
}

/* A phase without the options. */
static phase_t mk(int kind, uint32_t axis, uint64_t lo, uint64_t hi, uint32_t sem, span_t own, span_t part,
                  span_t res)
{
    return (phase_t){.kind = kind, .axis = axis, .lo = lo, .hi = hi, .sem = sem, .own = own, .part = part,
                     .res = res};
}

/* The phases of collective c: two lines of at most four (the halves of a torus all-reduce, run
 * side by side), each phase on its own pair of semaphores. Returns how many in each line. */
static uint32_t plan(const coll_t *x, phase_t ph[2][4])
{
    const tsl_cp_coll_t *c = x->c;
    uint64_t n = (uint64_t)c->dx * c->dy, all = c->kind == TSL_CP_COLL_ALL_REDUCE || c->kind == TSL_CP_COLL_BROADCAST
                                                   ? c->count : c->count * n;
    uint64_t q = (uint64_t)c->y * c->dx + c->x, row = all / c->dy;   /* this chip; a row's block */
    uint32_t es = x->es;
    span_t in = {c->in, 0}, out = {c->out, 0}, s0 = {c->scratch, 0}, s1 = {c->scratch + (uint32_t)(all * es), 0},
           mid = {c->scratch + (uint32_t)(2u * all * es), 0}, mine = {c->out, q * c->count},
           in_mine = {c->in, q * c->count};
    int two = c->dx > 1u && c->dy > 1u;
    uint32_t a1 = c->dx > 1u ? 0u : 1u;   /* the axis of a pod that is one line */
    if (c->kind == TSL_CP_COLL_ALL_REDUCE && !two) {
        ph[0][0] = mk(PH_RS, a1, 0, all, 0, in, s0, out);
        ph[0][1] = mk(PH_AG, a1, 0, all, 2, out, out, out);
        ph[0][0].then = &ph[0][1];
        ph[0][1].first_step = 1;
        return 2;
    }
    if (c->kind == TSL_CP_COLL_ALL_REDUCE) {   /* half 0: X then Y; half 1: Y then X; back in reverse */
        uint64_t half = (all + 1u) / 2u;
        for (uint32_t h = 0; h < 2u; h++) {
            uint32_t first = h, second = 1u - h, sem = 8u * h;
            uint64_t lo = h ? half : 0, hi = h ? all : half, pa, pb;
            part_of(lo, hi, coord(c, first), extent(c, first), &pa, &pb);   /* this chip's after the first */
            ph[h][0] = mk(PH_RS, first, lo, hi, sem, in, s0, out);
            ph[h][1] = mk(PH_RS, second, pa, pb, sem + 2u, out, s1, out);
            ph[h][2] = mk(PH_AG, second, pa, pb, sem + 4u, out, out, out);
            ph[h][3] = mk(PH_AG, first, lo, hi, sem + 6u, out, out, out);
            ph[h][1].then = &ph[h][2];
            ph[h][2].first_step = 1;
        }
        return 4;
    }
    if (c->kind == TSL_CP_COLL_REDUCE_SCATTER) {   /* Y, then X: chip q's part is row block y, then x */
        if (!two) {
            ph[0][0] = mk(PH_RS, a1, 0, all, 0, in, s0, mine);
            return 1;
        }
        ph[0][0] = mk(PH_RS, 1, 0, all, 0, in, s0, mid);
        ph[0][1] = mk(PH_RS, 0, c->y * row, (c->y + 1u) * row, 2, mid, s1, mine);
        return 2;
    }
    if (c->kind == TSL_CP_COLL_ALL_GATHER) {   /* X within the row's block, then Y */
        if (!two) {
            ph[0][0] = mk(PH_AG, a1, 0, all, 0, in_mine, out, out);
            return 1;
        }
        ph[0][0] = mk(PH_AG, 0, c->y * row, (c->y + 1u) * row, 0, in_mine, out, out);
        ph[0][1] = mk(PH_AG, 1, 0, all, 2, out, out, out);
        return 2;
    }
    uint32_t rx = c->root % c->dx, ry = c->root / c->dx;   /* broadcast: along the root's row, then down the columns */
    if (!two) {
        ph[0][0] = mk(PH_BC, a1, 0, all, 0, in, out, out);
        ph[0][0].root = a1 ? ry : rx;
        return 1;
    }
    ph[0][0] = mk(PH_BC, 0, 0, all, 0, in, out, out);
    ph[0][0].root = rx;
    ph[0][0].idle = c->y != ry;
    ph[0][1] = mk(PH_BC, 1, 0, all, 2, out, out, out);
    ph[0][1].root = ry;
    return 2;
}

uint32_t tsl_cp_coll_tile(const tsl_cp_t *cp)
{
    uint32_t t = 1u;
    while (2u * t <= cp->vmem_bytes / (2u * SLOTS * 2u) && 2u * t <= 32768u)
        t *= 2u;
    return t;
}

uint64_t tsl_cp_coll_scratch(const tsl_cp_coll_t *c)
{
    uint64_t n = (uint64_t)c->dx * c->dy, es = tsl_dtype_bytes(c->dtype);
    if (c->kind == TSL_CP_COLL_ALL_REDUCE)
        return 2u * c->count * es;
    return c->kind == TSL_CP_COLL_REDUCE_SCATTER ? 3u * c->count * n * es : 0u;
}

uint64_t tsl_cp_compile_coll(tsl_cp_t *cp, const tsl_cp_coll_t *c, tsl_cp_prog_t *p)
{
    coll_t x = {.cp = cp, .c = c, .es = tsl_dtype_bytes(c->dtype), .tile = tsl_cp_coll_tile(cp)};
    for (uint32_t d = 0, a = 0; d < 2u; d++)
        for (uint32_t s = 0; s < SLOTS; s++)
            for (uint32_t ab = 0; ab < 2u; ab++, a += x.tile)
                x.base[d][s][ab] = a;
    phase_t ph[2][4];
    uint32_t len = plan(&x, ph);
    int halves = c->kind == TSL_CP_COLL_ALL_REDUCE && c->dx > 1u && c->dy > 1u;
    cp->prog = p;
    tsl_cp_sched_begin(cp);
    for (uint32_t i = 0; i < len; i++) {   /* the two halves' phase i side by side, step by step */
        uint32_t most = steps(&x, &ph[0][i]);
        if (halves && steps(&x, &ph[1][i]) > most)
            most = steps(&x, &ph[1][i]);
        for (uint32_t st = 0; st < most; st++) {
            step(&x, &ph[0][i], st);
            step(&x, halves ? &ph[1][i] : NULL, st);
        }
    }
    tsl_cp_sched_end(cp);
    p->open = 0;
    cp->prog = NULL;
    return x.sent;
}
