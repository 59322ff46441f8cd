/* Tessel's collective compiler: one chip's device program of a collective over ICI (docs/pod.md,
 * "Collectives"). Every chip of the pod runs its own program; they meet only through DMA SENDs into
 * each other's local memory and the SEMWAITs on this chip's semaphores.
 *
 * A collective is a list of phases, each a ring collective along one axis of the pod (X: the
 * chip's row, Y: its column) over a range of elements. A phase runs both ways round its ring at
 * once: direction 0 sends to the next coordinate, direction 1 to the one before. A part of the
 * range is split in two halves, the first travelling direction 0.
 *   reduce-scatter phase: at step 0 a chip sends its contribution to the part of the coordinate
 *     d(s + 1) behind it; at steps 1 .. m-1 it reduces the partial that arrived with its own
 *     (partial op own) and sends it on; after m - 1 steps it holds its own part, reduced, and
 *     stores it.
 *   all-gather phase: a chip loads its part and sends it; at steps 1 .. m-1 it stores the part of
 *     the coordinate d*s behind it, which arrived, and sends it on (not at the last step).
 *   broadcast phase: each half runs down a chain of m - 1 hops from the root's coordinate.
 * An all-reduce on a torus splits its buffer in two halves run at once, one X then Y, the other Y
 * then X, so that both axes carry data all the time.
 *
 * A phase runs its steps skewed, tile by tile: at round r a chip takes tile r - st of each step st,
 * the last step first. So tile t of step st, which waits for the neighbour's tile t of step st - 1,
 * comes a round after it, and meanwhile the chip works on the other steps' tiles: the rounds are a
 * pipeline as deep as the ring.
 *
 * Data moves in tiles along streams: stream (axis, d) carries, in order, every tile a chip sends
 * along that axis in direction d, whatever its phase. A tile lands (SEND TO_LOCAL) in one of `recv`
 * receive slots of the stream in the receiver's local memory, at the same addresses on every chip:
 * ACC for 32-bit elements, where the VPU reads a row in one access and keeps up with two links, else
 * VMEM. The receiver gives the slot back with a credit, a SEND of CREDIT_BYTES to the sender, once
 * nothing reads it any more: so
 * a sender waits for a credit before each tile past its first `recv`, and a receiver sends none for
 * the last `recv` tiles it takes. A round sends at most m - 1 tiles on a stream, whose credits come
 * back in the receiver's next round, before the sender's send m + 1 tiles on needs them: m + 1
 * slots keep the pipeline full, m slow it a little (slots()). A tile a chip sends on from a receive
 * slot counts, once its bytes have left, on the stream's DONE semaphore, which the chip waits for
 * before that slot's credit.
 * Semaphores, stream k = 2 axis + d: k counts tiles that arrived, 4 + k credits, 8 + k tiles that
 * left. Every chip walks the same phases, steps and tiles, so each counts every stream's tiles in
 * the order they were sent; a first, dry pass counts the tiles each stream brings.
 */
#include "tsl_cp_compile.h"
#include "tsl_cp_int.h"

#define RECV_MAX (TSL_PARAM_ICI_DIM_MAX + 1u)   /* receive slots a stream: m + 1 on a ring of m */
#define OWN_MAX 4u        /* own slots a stream (slots()) */
#define STREAMS 4u        /* (axis, direction) */
#define CREDIT_BYTES 8u   /* a credit's payload: one flit */
#define CREDIT_AREA 64u   /* the top of VMEM: a credit's source at its start, its sink 32 bytes on */

enum { PH_RS, PH_AG, PH_BC };
enum { SEM_DATA = 0, SEM_CREDIT = 4, SEM_DONE = 8 };

/* A buffer's elements: element e at base + (e - first) * es. */
typedef struct {
    uint32_t base;
    uint64_t first;
} span_t;

typedef struct phase {
    int kind;              /* PH_* */
    uint32_t axis;         /* 0: X, 1: Y */
    uint64_t lo, hi;       /* the elements it works on */
    span_t own, res;       /* RS: own contributions, the reduced part's place; AG: the own part's source,
                              where parts go; BC: the root's input, where the data goes */
    uint32_t root;         /* BC: the root's coordinate on the axis */
    int idle;              /* BC: this chip is not on the root's line */
} phase_t;

typedef struct {
    uint32_t sent, got, own;       /* tiles sent, tiles received, own slots used */
    uint32_t total;                /* tiles this chip receives on the stream (the dry pass's got) */
    uint32_t lag[2], lags;         /* receive indices sent on, whose credit waits for them to leave */
    uint32_t rbase, obase;         /* the receive and own slots */
    tsl_cp_buf_t rbuf[RECV_MAX], obuf[OWN_MAX];
} stream_t;

/* A tile's work (tiles()): of phase ph, step st, direction d, its first element e and its bytes; its
 * own slot o (buffer ob) once loaded, its receive index j once it arrived. */
typedef struct {
    const phase_t *ph;
    uint32_t st, d, bytes, o, j;
    uint64_t e;
    tsl_cp_buf_t *ob;
} job_t;

typedef struct {
    tsl_cp_t *cp;
    const tsl_cp_coll_t *c;
    int dry;                       /* count tiles only, push nothing */
    uint32_t es, tile, recv, own;  /* element bytes; tile bytes; receive and own slots a stream */
    stream_t s[STREAMS];
    job_t pend[2];                 /* the tiles whose work is still to push (tiles()) */
    uint32_t npend;
    uint64_t sent;                 /* bytes of tiles SENT (credits left out) */
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

static void issue(coll_t *x, tsl_insn_t i, tsl_cp_buf_t *r1, tsl_cp_buf_t *w, uint32_t hint)
{
    if (!x->dry)
        tsl_cp_issue(x->cp, i, r1, NULL, w, hint);
}

static void semwait(coll_t *x, uint32_t sem, tsl_cp_buf_t *w, uint32_t hint)
{
    issue(x, tsl_insn_dma_semwait_encode((tsl_insn_dma_semwait_t){.sem = sem, .count = 1u}), NULL, w, hint);
}

/* A LOAD (into local) or STORE (from local) of `bytes` between HBM and buffer b at `local`; `hint`
 * as tsl_cp_issue's. */
static void xfer(coll_t *x, uint32_t op, uint32_t local, tsl_cp_buf_t *b, uint32_t hbm, uint32_t bytes, uint32_t hint)
{
    issue(x, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
            .op = op, .hbm_addr = hbm, .local_addr = local, .rows = 1u, .row_bytes = bytes}),
          op == TSL_DMA_OP_STORE ? b : NULL, op == TSL_DMA_OP_LOAD ? b : NULL, hint);
}

/* The chip one step along `axis` in direction d (to: the way d sends) or against it. */
static void peer(const coll_t *x, uint32_t axis, uint32_t d, int to, uint32_t *px, uint32_t *py)
{
    const tsl_cp_coll_t *c = x->c;
    uint32_t q = wrap(coord(c, axis), (d != 0) == (to != 0) ? -1 : 1, extent(c, axis));
    *px = axis ? c->x : q;
    *py = axis ? q : c->y;
}

/* An ASYNC SEND of `bytes` at `local` (buffers rb, read, and wb, written there) to local memory
 * `remote` of the peer along `axis`, direction d (to) or against it, counted there on `sem`; with
 * `done`, here on `done_sem`. ASYNC is safe:
 * the slots it reads are only written again by LOADs, which wait for the SENDs that read them, or
 * by remote SENDs after a credit that waited for it (docs/isa.md, DMA SEND and SEMWAIT). `early`:
 * it starts beside the LOADs before it that do not write what it reads (EARLY), for it tells the
 * peer of no memory a LOAD or a STORE reads. */
static void send(coll_t *x, uint32_t axis, uint32_t d, int to, uint32_t local, tsl_cp_buf_t *rb, tsl_cp_buf_t *wb,
                 uint32_t remote, uint32_t bytes, uint32_t sem, int done, uint32_t done_sem, int early)
{
    uint32_t px, py;
    peer(x, axis, d, to, &px, &py);
    issue(x, tsl_insn_dma_send_encode((tsl_insn_dma_send_t){
            .remote_addr = remote, .local_addr = local, .rows = 1u, .row_bytes = bytes, .dest_x = px, .dest_y = py,
            .sem = sem, .done_sem = done ? done_sem : 0u, .async = 1u, .to_local = 1u, .done = done != 0,
            .early = early != 0}),
          rb, wb, 0);
}

/* Send a tile at `local` (buffer b) on stream (axis, d) into the next receive slot of the peer,
 * after the credit for the slot's last tile; `done`: count on the stream's DONE once it left. */
static void send_tile(coll_t *x, uint32_t axis, uint32_t d, uint32_t local, tsl_cp_buf_t *b, uint32_t bytes, int done)
{
    uint32_t k = 2u * axis + d;
    stream_t *s = &x->s[k];
    if (s->sent >= x->recv)
        semwait(x, SEM_CREDIT + k, NULL, 0);
    send(x, axis, d, 1, local, b, NULL, s->rbase + (s->sent % x->recv) * x->tile, bytes, SEM_DATA + k, done,
         SEM_DONE + k, 1);
    s->sent++;
    x->sent += bytes;
}

/* Wait for the next tile of stream (axis, d): returns its receive index. `hint`: the unit that reads
 * it next. */
static uint32_t arrive(coll_t *x, uint32_t axis, uint32_t d, uint32_t hint)
{
    uint32_t k = 2u * axis + d;
    stream_t *s = &x->s[k];
    semwait(x, SEM_DATA + k, &s->rbuf[s->got % x->recv], hint);
    return s->got++;
}

/* Give receive index j of stream (axis, d) back to its sender, unless it is among the last recv. The
 * credit SEND is pushed as a writer of the slot: it waits for the VPU's read. `stored`: a STORE of
 * the slot is before it in the DMA's queue, so the credit has no EARLY and starts once that STORE
 * has finished (docs/isa.md); else it is EARLY. */
static void credit(coll_t *x, uint32_t axis, uint32_t d, uint32_t j, int stored)
{
    uint32_t k = 2u * axis + d, top = x->cp->vmem_bytes - CREDIT_AREA;
    stream_t *s = &x->s[k];
    if (j + x->recv < s->total)
        send(x, axis, d, 0, top, NULL, &s->rbuf[j % x->recv], top + CREDIT_AREA / 2u, CREDIT_BYTES, SEM_CREDIT + k,
             0, 0, !stored);
}

/* Credits of stream k's slots that were sent on, all but the newest `keep`: each waits for its
 * SEND to leave. */
static void flush(coll_t *x, uint32_t k, uint32_t keep)
{
    stream_t *s = &x->s[k];
    while (s->lags > keep) {
        semwait(x, SEM_DONE + k, NULL, 0);
        credit(x, k / 2u, k % 2u, s->lag[0], 1);
        for (uint32_t i = 1; i < s->lags; i++)
            s->lag[i - 1] = s->lag[i];
        s->lags--;
    }
}

/* After a tile's work on stream (axis, d), which sent `sent_on` (0 or 1) of its slots on: the credits
 * of the slots the stream's earlier tiles sent on. A credit waits at most one tile of its stream, so
 * a chip never holds one back behind a SEND that waits, around the ring, for it. */
static void job_end(coll_t *x, uint32_t axis, uint32_t d, uint32_t sent_on)
{
    flush(x, 2u * axis + d, sent_on);
}

/* The next own slot of stream (axis, d): its address, and its buffer in *b. */
static uint32_t own_slot(coll_t *x, uint32_t axis, uint32_t d, tsl_cp_buf_t **b)
{
    stream_t *s = &x->s[2u * axis + d];
    uint32_t i = s->own++ % x->own;
    *b = &s->obuf[i];
    return s->obase + i * x->tile;
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
 * on (an all-gather's or a broadcast's: their chains end at their last chip). */
static int own_tile(const coll_t *x, const phase_t *ph, uint32_t st, uint32_t d)
{
    return ph->kind == PH_BC ? hops(x, ph, d) == 0 : st == 0;
}

static int sends_on(const coll_t *x, const phase_t *ph, uint32_t st, uint32_t d)
{
    uint32_t m = extent(x->c, ph->axis);
    return ph->kind == PH_BC ? hops(x, ph, d) + 1u < m : st + 1u < m;
}

/* Tile (e, bytes) of step st, direction d, before its arrival: the own contribution (a reduce-
 * scatter) or the own tile (any phase's step 0, a broadcast's root) loaded into an own slot, whose
 * address it returns (0: none), with its buffer in *b. */
static uint32_t fetch(coll_t *x, const phase_t *ph, uint32_t st, uint32_t d, uint64_t e, uint32_t bytes,
                      tsl_cp_buf_t **b)
{
    if (ph->kind != PH_RS && !own_tile(x, ph, st, d))
        return 0;
    uint32_t o = own_slot(x, ph->axis, d, b);
    int reduce = ph->kind == PH_RS && st > 0;
    xfer(x, TSL_DMA_OP_LOAD, o, *b, addr(x, ph->own, e), bytes, reduce ? TSL_TOK(TSL_UNIT_VPU) : 0);
    return o;
}

/* The rest of the tile's work, once it has arrived (receive index j) unless it is the own (own slot
 * o, buffer ob). A reduce-scatter reduces (after step 0) into the own slot and sends it on, or at
 * its last step stores it; an all-gather or a broadcast sends the tile on unless its chain ends
 * here, and stores it. The slot
 * goes back to its sender at once, unless it was sent on: then returns 1, and its credit waits
 * (job_end). */
static uint32_t finish(coll_t *x, const phase_t *ph, uint32_t st, uint32_t d, uint64_t e, uint32_t bytes, uint32_t j,
                       uint32_t o, tsl_cp_buf_t *ob)
{
    uint32_t m = extent(x->c, ph->axis), a = ph->axis, dst = addr(x, ph->res, e);
    stream_t *s = &x->s[2u * a + d];
    if (own_tile(x, ph, st, d)) {
        send_tile(x, a, d, o, ob, bytes, 0);
        if (ph->kind != PH_RS && dst != addr(x, ph->own, e))
            xfer(x, TSL_DMA_OP_STORE, o, ob, dst, bytes, 0);
        return 0;
    }
    uint32_t r = s->rbase + (j % x->recv) * x->tile;
    tsl_cp_buf_t *rb = &s->rbuf[j % x->recv];
    if (ph->kind == PH_RS) {
        uint32_t vb = x->cp->n * x->es, dt = x->c->dtype;
        issue(x, tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                .op = x->c->op, .dst_dtype = dt, .src1_dtype = dt, .src2_dtype = dt, .src2_mode = TSL_SRC2_VEC,
                .dst_addr = o, .src1_addr = r, .src2_addr = o, .rows = (bytes + vb - 1u) / vb}),
              rb, ob, TSL_TOK(TSL_UNIT_DMA));
        if (st + 1u < m)
            send_tile(x, a, d, o, ob, bytes, 0);
        else
            xfer(x, TSL_DMA_OP_STORE, o, ob, dst, bytes, 0);
        credit(x, a, d, j, 0);
        return 0;
    }
    int on = sends_on(x, ph, st, d);
    if (on)
        send_tile(x, a, d, r, rb, bytes, 1);
    xfer(x, TSL_DMA_OP_STORE, r, rb, dst, bytes, 0);
    if (!on) {
        credit(x, a, d, j, 1);
        return 0;
    }
    s->lag[s->lags++] = j;
    return 1;
}

static uint32_t steps(const coll_t *x, const phase_t *ph)
{
    return ph->kind == PH_BC ? 1u : extent(x->c, ph->axis);
}

/* The tiles of a step's two directions (count of them, 0 to push the last ones' rest). A tile's
 * work goes in three parts, each pushed a step's tiles late: its arrival waits (unless it is the
 * own), then the next tiles' loads (fetch, back to back: the DMA overlaps them), then its rest
 * (finish, job_end). So in a reduce-scatter a tile's load runs while the tiles before it are
 * reduced, and waits for no arrival; the other phases, which load only their own tiles, push the
 * rest at once (step_tile, broadcast), so that a tile goes on without waiting for the next. */
static void tiles(coll_t *x, const job_t *n, uint32_t count)
{
    job_t *p = x->pend;
    for (uint32_t i = 0; i < x->npend; i++)
        if (!own_tile(x, p[i].ph, p[i].st, p[i].d))
            p[i].j = arrive(x, p[i].ph->axis, p[i].d, p[i].ph->kind == PH_RS ? TSL_TOK(TSL_UNIT_VPU) : 0);
    job_t next[2];
    for (uint32_t i = 0; i < count; i++) {
        next[i] = n[i];
        next[i].o = fetch(x, n[i].ph, n[i].st, n[i].d, n[i].e, n[i].bytes, &next[i].ob);
    }
    for (uint32_t i = 0; i < x->npend; i++)
        job_end(x, p[i].ph->axis, p[i].d, finish(x, p[i].ph, p[i].st, p[i].d, p[i].e, p[i].bytes, p[i].j, p[i].o,
                                                 p[i].ob));
    for (uint32_t i = 0; i < count; i++)
        p[i] = next[i];
    x->npend = count;
}

/* The part phase ph works on at step st, as two halves [a[d], b[d]) of nt[d] tiles each (none
 * before its first step or past its last, or on a chip off a broadcast's line). The part at step
 * st: a reduce-scatter's is the coordinate st + 1 behind, an all-gather's st behind. */
static void halves(const coll_t *x, const phase_t *ph, uint32_t st, uint64_t a[2], uint64_t b[2], uint32_t nt[2])
{
    uint32_t m = extent(x->c, ph->axis), p = coord(x->c, ph->axis);
    for (uint32_t d = 0; d < 2u; d++) {
        nt[d] = 0;
        if (ph->idle || st >= steps(x, ph))
            continue;
        int64_t back = (int64_t)st + (ph->kind == PH_RS);
        if (ph->kind == PH_BC)
            half_of(ph->lo, ph->hi, 0, 1, d, &a[d], &b[d]);
        else
            half_of(ph->lo, ph->hi, wrap(p, d ? back : -back, m), m, d, &a[d], &b[d]);
        nt[d] = (uint32_t)(((b[d] - a[d]) * x->es + x->tile - 1u) / x->tile);
    }
}

/* Tile t of both directions of step st (those it has); returns whether the step has a tile t or a
 * later one. */
static int step_tile(coll_t *x, const phase_t *ph, uint32_t st, uint32_t t)
{
    uint64_t a[2], b[2];
    uint32_t nt[2], count = 0;
    job_t n[2];
    halves(x, ph, st, a, b, nt);
    for (uint32_t d = 0; d < 2u; d++)
        if (t < nt[d]) {
            n[count] = (job_t){.ph = ph, .st = st, .d = d};
            n[count].bytes = tile_of(x, a[d], b[d], t, &n[count].e);
            count++;
        }
    if (count)
        tiles(x, n, count);
    if (ph->kind != PH_RS)
        tiles(x, NULL, 0);
    return count > 0;
}

/* A broadcast phase's tiles. The two directions' tiles take turns in the order they arrive: tile t
 * of direction d reaches the chip k_d hops from the root after about k_d + t tiles' time (each hop
 * forwards a tile once it has all of it), and the chip's DMA queue waits for them in that order, so
 * that the nearer chain is never held up behind a tile of the farther one. */
static void broadcast(coll_t *x, const phase_t *ph)
{
    uint64_t a[2], b[2];
    uint32_t nt[2], t[2] = {0, 0}, k[2] = {hops(x, ph, 0), hops(x, ph, 1)};
    halves(x, ph, 0, a, b, nt);
    while (t[0] < nt[0] || t[1] < nt[1]) {
        uint32_t d = t[0] >= nt[0] || (t[1] < nt[1] && k[1] + t[1] < k[0] + t[0]);
        job_t n = {.ph = ph, .st = 0, .d = d};
        n.bytes = tile_of(x, a[d], b[d], t[d]++, &n.e);
        tiles(x, &n, 1);
        tiles(x, NULL, 0);
    }
}

/* A phase without the options. */
static phase_t mk(int kind, uint32_t axis, uint64_t lo, uint64_t hi, span_t own, span_t res)
{
    return (phase_t){.kind = kind, .axis = axis, .lo = lo, .hi = hi, .own = own, .res = res};
}

/* The phases of collective c: two lines of at most four (the halves of a torus all-reduce, run
 * side by side). Returns how many in each line. */
static uint32_t plan(const coll_t *x, phase_t ph[2][4])
{
    const tsl_cp_coll_t *c = x->c;
    uint64_t n = (uint64_t)c->dx * c->dy, all = c->kind == TSL_CP_COLL_ALL_REDUCE || c->kind == TSL_CP_COLL_BROADCAST
                                                   ? c->count : c->count * n;
    uint64_t q = (uint64_t)c->y * c->dx + c->x, row = all / c->dy;   /* this chip; a row's block */
    span_t in = {c->in, 0}, out = {c->out, 0}, mid = {c->scratch, 0}, mine = {c->out, q * c->count},
           in_mine = {c->in, q * c->count};
    int two = c->dx > 1u && c->dy > 1u;
    uint32_t a1 = c->dx > 1u ? 0u : 1u;   /* the axis of a pod that is one line */
    if (c->kind == TSL_CP_COLL_ALL_REDUCE && !two) {
        ph[0][0] = mk(PH_RS, a1, 0, all, in, out);
        ph[0][1] = mk(PH_AG, a1, 0, all, out, out);
        return 2;
    }
    if (c->kind == TSL_CP_COLL_ALL_REDUCE) {   /* half 0: X then Y; half 1: Y then X; back in reverse */
        uint64_t half = (all + 1u) / 2u;
        for (uint32_t h = 0; h < 2u; h++) {
            uint32_t first = h, second = 1u - h;
            uint64_t lo = h ? half : 0, hi = h ? all : half, pa, pb;
            part_of(lo, hi, coord(c, first), extent(c, first), &pa, &pb);   /* this chip's after the first */
            ph[h][0] = mk(PH_RS, first, lo, hi, in, out);
            ph[h][1] = mk(PH_RS, second, pa, pb, out, out);
            ph[h][2] = mk(PH_AG, second, pa, pb, out, out);
            ph[h][3] = mk(PH_AG, first, lo, hi, out, out);
        }
        return 4;
    }
    if (c->kind == TSL_CP_COLL_REDUCE_SCATTER) {   /* Y, then X: chip q's part is row block y, then x */
        if (!two) {
            ph[0][0] = mk(PH_RS, a1, 0, all, in, mine);
            return 1;
        }
        ph[0][0] = mk(PH_RS, 1, 0, all, in, mid);
        ph[0][1] = mk(PH_RS, 0, c->y * row, (c->y + 1u) * row, mid, mine);
        return 2;
    }
    if (c->kind == TSL_CP_COLL_ALL_GATHER) {   /* X within the row's block, then Y */
        if (!two) {
            ph[0][0] = mk(PH_AG, a1, 0, all, in_mine, out);
            return 1;
        }
        ph[0][0] = mk(PH_AG, 0, c->y * row, (c->y + 1u) * row, in_mine, out);
        ph[0][1] = mk(PH_AG, 1, 0, all, out, out);
        return 2;
    }
    uint32_t rx = c->root % c->dx, ry = c->root / c->dx;   /* broadcast: along the root's row, then down the columns */
    if (!two) {
        ph[0][0] = mk(PH_BC, a1, 0, all, in, out);
        ph[0][0].root = a1 ? ry : rx;
        return 1;
    }
    ph[0][0] = mk(PH_BC, 0, 0, all, in, out);
    ph[0][0].root = rx;
    ph[0][0].idle = c->y != ry;
    ph[0][1] = mk(PH_BC, 1, 0, all, out, out);
    ph[0][1].root = ry;
    return 2;
}

/* The slots of elements of es bytes: in ACC for 32-bit ones, else in VMEM below the credits. Their
 * first address, and the bytes they have. */
static uint32_t slot_base(uint32_t es) { return es == 4u ? TSL_LOCAL_ACC_BASE : 0u; }
static uint32_t slot_room(const tsl_cp_t *cp, uint32_t es)
{
    return es == 4u ? cp->acc_bytes : cp->vmem_bytes - CREDIT_AREA;
}

/* The slots of collective c's streams, in the bytes slot_room gives: the tile (a power of two, at
 * most 32 KiB), the receive and the own slots a stream. Receive slots: m + 1 on the longest ring of
 * m. Own slots hold a stream's loads, 3: a tile's load runs while the two before it leave. A
 * reduce-scatter on a ring (or an all-reduce's) loads every tile it sends or stores, and waits less
 * with 4; it then takes m receive slots where m + 1 would halve its tiles (4 KiB, not 2, for fp32 on
 * a ring of 4). */
typedef struct {
    uint32_t tile, recv, own;
} slots_t;

static slots_t slots(const tsl_cp_t *cp, const tsl_cp_coll_t *c)
{
    int ring = c->dx == 1u || c->dy == 1u;
    uint32_t m = c->dx > c->dy ? c->dx : c->dy, streams = ring ? 2u : 4u;
    uint32_t room = slot_room(cp, tsl_dtype_bytes(c->dtype));
    int rs = ring && (c->kind == TSL_CP_COLL_REDUCE_SCATTER || c->kind == TSL_CP_COLL_ALL_REDUCE);
    slots_t k = {.tile = 1u, .recv = rs ? m : m + 1u, .own = rs ? 4u : 3u};
    while (2u * k.tile <= room / (streams * (k.recv + k.own)) && 2u * k.tile <= 32768u)
        k.tile *= 2u;
    if (k.tile * streams * (m + 1u + k.own) <= room)
        k.recv = m + 1u;
    return k;
}

uint32_t tsl_cp_coll_tile(const tsl_cp_t *cp, const tsl_cp_coll_t *c)
{
    return slots(cp, c).tile;
}

uint64_t tsl_cp_coll_scratch(const tsl_cp_coll_t *c)
{
    uint64_t n = (uint64_t)c->dx * c->dy;
    int two = c->dx > 1u && c->dy > 1u;
    return c->kind == TSL_CP_COLL_REDUCE_SCATTER && two ? c->count * n * tsl_dtype_bytes(c->dtype) : 0u;
}

/* Every phase of the plan, the two halves' phase i side by side, in rounds (the file's comment),
 * each phase's last tile's work pushed before the next phase's first load (which may read what it
 * stores); then the credits still lagging. */
static void walk(coll_t *x, phase_t ph[2][4], uint32_t len, int both)
{
    for (uint32_t i = 0; i < len; i++) {
        if (ph[0][i].kind == PH_BC) {
            broadcast(x, &ph[0][i]);
            tiles(x, NULL, 0);
            continue;
        }
        uint32_t m = steps(x, &ph[0][i]);
        if (both && steps(x, &ph[1][i]) > m)
            m = steps(x, &ph[1][i]);
        for (uint32_t r = 0, more = 1; more; r++) {
            more = 0;
            for (uint32_t st = m; st-- > 0;)
                for (uint32_t h = 0; h < 1u + (uint32_t)both; h++)
                    if (r >= st)
                        more |= (uint32_t)step_tile(x, &ph[h][i], st, r - st);
            more |= r + 1u < m;
        }
        tiles(x, NULL, 0);
    }
    for (uint32_t k = 0; k < STREAMS; k++)
        flush(x, k, 0);
}

uint64_t tsl_cp_compile_coll(tsl_cp_t *cp, const tsl_cp_coll_t *c, tsl_cp_prog_t *p)
{
    int two = c->dx > 1u && c->dy > 1u, both = c->kind == TSL_CP_COLL_ALL_REDUCE && two;
    uint32_t es = tsl_dtype_bytes(c->dtype);
    slots_t k0 = slots(cp, c);
    coll_t x = {.cp = cp, .c = c, .dry = 1, .es = es, .tile = k0.tile, .recv = k0.recv, .own = k0.own};
    uint32_t a1 = c->dx > 1u ? 0u : 1u, base = slot_base(es);
    for (uint32_t k = 0, i = 0; k < STREAMS; k++) {   /* a line's two streams, or all four */
        if (!two && k / 2u != a1)
            continue;
        x.s[k].rbase = base + i * (x.recv + x.own) * x.tile;
        x.s[k].obase = x.s[k].rbase + x.recv * x.tile;
        i++;
    }
    phase_t ph[2][4];
    uint32_t len = plan(&x, ph);
    walk(&x, ph, len, both);   /* dry: how many tiles each stream brings */
    for (uint32_t k = 0; k < STREAMS; k++)
        x.s[k] = (stream_t){.total = x.s[k].got, .rbase = x.s[k].rbase, .obase = x.s[k].obase};
    x.npend = 0;
    x.dry = 0;
    x.sent = 0;
    cp->prog = p;
    tsl_cp_sched_begin(cp);
    walk(&x, ph, len, both);
    tsl_cp_sched_end(cp);
    p->open = 0;
    cp->prog = NULL;
    return x.sent;
}
