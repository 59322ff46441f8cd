/* Tessel's collective compiler: one chip's device program of a collective over ICI (docs/pod.md,
 * "Collectives"). Every chip of the pod runs its own program; they meet only through DMA SENDs into
 * each other's local memory and the SEMWAITs on this chip's semaphores.
 *
 * A collective is a list of phases, each a ring collective round one ring of the pod over a range of
 * elements (rings()): the line along an axis (X: the chip's row, Y: its column), or on a 2 x b
 * torus (b even) one of two rings through every chip that share no link. A phase runs both ways
 * round its ring at once: direction 0 sends to the next position, direction 1 to the one before. A
 * part of the range is split in two halves, the first travelling direction 0; on a torus's two
 * rings, in four pieces, a ring's two pieces its slice.
 *   reduce-scatter phase: at step 0 a chip sends its contribution to the part of the position
 *     d(s + 1) behind it; at steps 1 .. m-1 it reduces the partial that arrived with its own
 *     (partial op own) and sends it on; after m - 1 steps it holds its own part, reduced, and
 *     stores it.
 *   all-gather phase: a chip loads its part and sends it; at steps 1 .. m-1 it stores the part of
 *     the position d*s behind it, which arrived, and sends it on (not at the last step).
 *   broadcast phase: each half runs down a chain of m - 1 hops from the root's position.
 * On a torus with two rings every collective runs round both at once, each on its slice (plan()).
 * On another torus a collective runs its phases along X and Y; an all-reduce splits its buffer in
 * two halves run at once, one X then Y, the other Y then X, so that both axes carry data all the
 * time.
 *
 * A phase runs its steps skewed, tile by tile: at round r a chip takes tile r - st of each step st,
 * the last step first. So tile t of step st, which waits for the neighbour's tile t of step st - 1,
 * comes a round after it, and meanwhile the chip works on the other steps' tiles: the rounds are a
 * pipeline as deep as the ring.
 *
 * Data moves in tiles along streams: stream (r, d) carries, in order, every tile a chip sends
 * round ring r in direction d, whatever its phase. A tile lands (SEND TO_LOCAL) in one of `recv`
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
 * Semaphores, stream k = 2 r + d: k counts tiles that arrived, 4 + k credits, 8 + k tiles that
 * left. Every chip walks the same phases, steps and tiles, so each counts every stream's tiles in
 * the order they were sent; a first, dry pass counts the tiles each stream brings.
 */
#include "tsl_cp_compile.h"
#include "tsl_cp_int.h"

#define RING_MAX (2u * TSL_PARAM_ICI_DIM_MAX)   /* the longest ring: a torus's rings() */
#define RECV_MAX (2u * RING_MAX)   /* receive slots a stream: 2m on a ring of m (slots()) */
#define OWN_MAX 4u        /* own slots a stream (slots()) */
#define STREAMS 4u        /* (ring, direction) */
#define PHASES 3u         /* a plan's phases a line (plan()) */
#define CREDIT_BYTES 8u   /* a credit's payload: one flit */
#define CREDIT_AREA 32u   /* the top of VMEM: a credit's sink */

enum { PH_RS, PH_AG, PH_BC, PH_AR };
enum { SEM_DATA = 0, SEM_CREDIT = 4, SEM_DONE = 8 };

/* A buffer's elements: element e at base + (e - first) * es. */
typedef struct {
    uint32_t base;
    uint64_t first;
} span_t;

/* A ring a phase runs round: its length m and this chip's position p on it; the port (0 +X, 1 -X,
 * 2 +Y, 3 -Y) each direction sends by, to position p + 1 (direction 0) or p - 1; and the part of the
 * phase's elements position i owns, part[i] of m (rings()). */
typedef struct {
    uint32_t m, p, port[2];
    uint8_t part[RING_MAX];
} ring_t;

typedef struct phase {
    int kind;              /* PH_* */
    uint32_t ring;         /* the ring it runs round (ring_t) */
    uint32_t slice, slices;   /* each part's piece it works on: its slice of slices (both rings run a
                                 phase side by side, each on its slice) */
    uint64_t lo, hi;       /* the elements it works on */
    span_t own, res;       /* RS: own contributions, the reduced part's place; AG: the own part's source,
                              where parts go; BC: the root's input, where the data goes */
    uint32_t root;         /* BC: the root's position on the ring */
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
    ring_t ring[2];
    stream_t s[STREAMS];
    job_t pend[2];                 /* the tiles whose work is still to push (tiles()) */
    uint32_t npend;
    uint64_t sent;                 /* bytes of tiles SENT (credits left out) */
} coll_t;

/* (v + k) mod m for a k of either sign. */
static uint32_t wrap(uint32_t v, int64_t k, uint32_t m)
{
    return (uint32_t)((((int64_t)v + k) % (int64_t)m + m) % m);
}

/* (x, y) moved across port (0 +X, 1 -X, 2 +Y, 3 -Y) in collective c's pod. */
static void across(const tsl_cp_coll_t *c, uint32_t port, uint32_t *x, uint32_t *y)
{
    int64_t step = port & 1u ? -1 : 1;
    if (port < 2u)
        *x = wrap(*x, step, c->dx);
    else
        *y = wrap(*y, step, c->dy);
}

/* Part i of m of [lo, hi): [*a, *b). */
static void part_of(uint64_t lo, uint64_t hi, uint32_t i, uint32_t m, uint64_t *a, uint64_t *b)
{
    *a = lo + (hi - lo) * i / m;
    *b = lo + (hi - lo) * (i + 1u) / m;
}

/* Part i of m of [lo, hi), and its piece k of n: [*a, *b). The first pieces are rounded up. */
static void piece_of(uint64_t lo, uint64_t hi, uint32_t i, uint32_t m, uint32_t k, uint32_t n, uint64_t *a,
                     uint64_t *b)
{
    uint64_t p0, p1;
    part_of(lo, hi, i, m, &p0, &p1);
    *a = p0 + ((p1 - p0) * k + n - 1u) / n;
    *b = p0 + ((p1 - p0) * (k + 1u) + n - 1u) / n;
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

/* An ASYNC, EARLY SEND of `bytes` at `local` (buffers rb, read, and wb, written there) to local
 * memory `remote` of the next chip of ring r in direction d (to) or the one before it, counted there
 * on `sem`; with `done`, here on `done_sem`. ASYNC is safe: the slots it reads are only written
 * again by LOADs, which wait for the SENDs that read them, or by remote SENDs after a credit that
 * waited for it (docs/isa.md, DMA SEND and SEMWAIT). EARLY: it starts beside the LOADs and STOREs
 * before it that do not touch what it reads; a credit reads the slot it frees, so it waits for a
 * STORE of that slot. */
static void send(coll_t *x, uint32_t r, uint32_t d, int to, uint32_t local, tsl_cp_buf_t *rb, tsl_cp_buf_t *wb,
                 uint32_t remote, uint32_t bytes, uint32_t sem, int done, uint32_t done_sem)
{
    uint32_t px = x->c->x, py = x->c->y, port = x->ring[r].port[to ? d : 1u - d];
    across(x->c, port, &px, &py);
    issue(x, tsl_insn_dma_send_encode((tsl_insn_dma_send_t){
            .remote_addr = remote, .local_addr = local, .rows = 1u, .row_bytes = bytes, .dest_x = px, .dest_y = py,
            .sem = sem, .done_sem = done ? done_sem : 0u, .async = 1u, .to_local = 1u, .done = done != 0,
            .early = 1u, .neg = port & 1u}),
          rb, wb, 0);
}

/* Send a tile at `local` (buffer b) on stream (r, d) into the next receive slot of the peer,
 * after the credit for the slot's last tile; `done`: count on the stream's DONE once it left. */
static void send_tile(coll_t *x, uint32_t r, uint32_t d, uint32_t local, tsl_cp_buf_t *b, uint32_t bytes, int done)
{
    uint32_t k = 2u * r + d;
    stream_t *s = &x->s[k];
    if (s->sent >= x->recv)
        semwait(x, SEM_CREDIT + k, NULL, 0);
    send(x, r, d, 1, local, b, NULL, s->rbase + (s->sent % x->recv) * x->tile, bytes, SEM_DATA + k, done,
         SEM_DONE + k);
    s->sent++;
    x->sent += bytes;
}

/* Wait for the next tile of stream (r, d): returns its receive index. `hint`: the unit that reads it
 * next. */
static uint32_t arrive(coll_t *x, uint32_t r, uint32_t d, uint32_t hint)
{
    uint32_t k = 2u * r + d;
    stream_t *s = &x->s[k];
    semwait(x, SEM_DATA + k, &s->rbuf[s->got % x->recv], hint);
    return s->got++;
}

/* Give receive index j of stream (r, d) back to its sender, unless it is among the last recv. The
 * credit SEND is pushed as a writer of the slot: it waits for the VPU's read. Its source is the
 * slot's first bytes, so that, EARLY, it waits for a STORE in flight that reads the slot (docs/isa.md,
 * Order). */
static void credit(coll_t *x, uint32_t r, uint32_t d, uint32_t j)
{
    uint32_t k = 2u * r + d;
    stream_t *s = &x->s[k];
    if (j + x->recv < s->total)
        send(x, r, d, 0, s->rbase + (j % x->recv) * x->tile, NULL, &s->rbuf[j % x->recv],
             x->cp->vmem_bytes - CREDIT_AREA, CREDIT_BYTES, SEM_CREDIT + k, 0, 0);
}

/* Credits of stream k's slots that were sent on, all but the newest `keep`: each waits for its
 * SEND to leave. */
static void flush(coll_t *x, uint32_t k, uint32_t keep)
{
    stream_t *s = &x->s[k];
    while (s->lags > keep) {
        semwait(x, SEM_DONE + k, NULL, 0);
        credit(x, k / 2u, k % 2u, s->lag[0]);
        for (uint32_t i = 1; i < s->lags; i++)
            s->lag[i - 1] = s->lag[i];
        s->lags--;
    }
}

/* After a tile's work on stream (r, d), which sent `sent_on` (0 or 1) of its slots on: the credits
 * of the slots the stream's earlier tiles sent on. A credit waits at most one tile of its stream, so
 * a chip never holds one back behind a SEND that waits, around the ring, for it. */
static void job_end(coll_t *x, uint32_t r, uint32_t d, uint32_t sent_on)
{
    flush(x, 2u * r + d, sent_on);
}

/* The next own slot of stream (r, d): its address, and its buffer in *b. */
static uint32_t own_slot(coll_t *x, uint32_t r, uint32_t d, tsl_cp_buf_t **b)
{
    stream_t *s = &x->s[2u * r + d];
    uint32_t i = s->own++ % x->own;
    *b = &s->obuf[i];
    return s->obase + i * x->tile;
}

/* A broadcast: this chip's hops from the root in direction d. */
static uint32_t hops(const coll_t *x, const phase_t *ph, uint32_t d)
{
    uint32_t m = x->ring[ph->ring].m, p = x->ring[ph->ring].p;
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

/* A phase's steps: m round a ring of m; 2m - 1 for an all-reduce, whose step m - 1 ends its
 * reduce-scatter and starts its all-gather; 1 for a broadcast. */
static uint32_t steps(const coll_t *x, const phase_t *ph)
{
    uint32_t m = x->ring[ph->ring].m;
    return ph->kind == PH_BC ? 1u : ph->kind == PH_AR ? 2u * m - 1u : m;
}

/* Whether step st reduces: a reduce-scatter's, and an all-reduce's first m. */
static int reducing(const coll_t *x, const phase_t *ph, uint32_t st)
{
    return ph->kind == PH_RS || (ph->kind == PH_AR && st < x->ring[ph->ring].m);
}

/* Whether the tile at step st is this chip's own (it starts here), and whether this chip sends it
 * on (an all-gather's or a broadcast's: their chains end at their last chip). */
static int own_tile(const coll_t *x, const phase_t *ph, uint32_t st, uint32_t d)
{
    return ph->kind == PH_BC ? hops(x, ph, d) == 0 : st == 0;
}

static int sends_on(const coll_t *x, const phase_t *ph, uint32_t st, uint32_t d)
{
    return ph->kind == PH_BC ? hops(x, ph, d) + 1u < x->ring[ph->ring].m : st + 1u < steps(x, ph);
}

/* Tile (e, bytes) of step st, direction d, before its arrival: the own contribution (a step that
 * reduces) or the own tile (any phase's step 0, a broadcast's root) loaded into an own slot, whose
 * address it returns (0: none), with its buffer in *b. */
static uint32_t fetch(coll_t *x, const phase_t *ph, uint32_t st, uint32_t d, uint64_t e, uint32_t bytes,
                      tsl_cp_buf_t **b)
{
    if (!reducing(x, ph, st) && !own_tile(x, ph, st, d))
        return 0;
    uint32_t o = own_slot(x, ph->ring, d, b);
    int reduce = reducing(x, ph, st) && st > 0;
    xfer(x, TSL_DMA_OP_LOAD, o, *b, addr(x, ph->own, e), bytes, reduce ? TSL_TOK(TSL_UNIT_VPU) : 0);
    return o;
}

/* The rest of the tile's work, once it has arrived (receive index j) unless it is the own (own slot
 * o, buffer ob). A reduce-scatter reduces (after step 0) into the own slot and sends it on, or at
 * its last step stores it (an all-reduce sends it on too, its all-gather's own tile); an
 * all-gather or a broadcast sends the tile on unless its chain ends here, and stores it. The slot
 * goes back to its sender at once, unless it was sent on: then returns 1, and its credit waits
 * (job_end). */
static uint32_t finish(coll_t *x, const phase_t *ph, uint32_t st, uint32_t d, uint64_t e, uint32_t bytes, uint32_t j,
                       uint32_t o, tsl_cp_buf_t *ob)
{
    uint32_t m = x->ring[ph->ring].m, g = ph->ring, dst = addr(x, ph->res, e);
    stream_t *s = &x->s[2u * g + d];
    if (own_tile(x, ph, st, d)) {
        send_tile(x, g, d, o, ob, bytes, 0);
        if (!reducing(x, ph, st) && dst != addr(x, ph->own, e))
            xfer(x, TSL_DMA_OP_STORE, o, ob, dst, bytes, 0);
        return 0;
    }
    uint32_t r = s->rbase + (j % x->recv) * x->tile;
    tsl_cp_buf_t *rb = &s->rbuf[j % x->recv];
    if (reducing(x, ph, st)) {
        uint32_t vb = x->cp->n * x->es, dt = x->c->dtype;
        issue(x, tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                .op = x->c->op, .dst_dtype = dt, .src1_dtype = dt, .src2_dtype = dt, .src2_mode = TSL_SRC2_VEC,
                .dst_addr = o, .src1_addr = r, .src2_addr = o, .rows = (bytes + vb - 1u) / vb}),
              rb, ob, TSL_TOK(TSL_UNIT_DMA));
        if (st + 1u < m || ph->kind == PH_AR)
            send_tile(x, g, d, o, ob, bytes, 0);
        if (st + 1u == m)
            xfer(x, TSL_DMA_OP_STORE, o, ob, dst, bytes, 0);
        credit(x, g, d, j);
        return 0;
    }
    int on = sends_on(x, ph, st, d);
    if (on)
        send_tile(x, g, d, r, rb, bytes, 1);
    xfer(x, TSL_DMA_OP_STORE, r, rb, dst, bytes, 0);
    if (!on) {
        credit(x, g, d, j);
        return 0;
    }
    s->lag[s->lags++] = j;
    return 1;
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
            p[i].j = arrive(x, p[i].ph->ring, p[i].d, reducing(x, p[i].ph, p[i].st) ? TSL_TOK(TSL_UNIT_VPU) : 0);
    job_t next[2];
    for (uint32_t i = 0; i < count; i++) {
        next[i] = n[i];
        next[i].o = fetch(x, n[i].ph, n[i].st, n[i].d, n[i].e, n[i].bytes, &next[i].ob);
    }
    for (uint32_t i = 0; i < x->npend; i++)
        job_end(x, p[i].ph->ring, p[i].d, finish(x, p[i].ph, p[i].st, p[i].d, p[i].e, p[i].bytes, p[i].j, p[i].o,
                                                 p[i].ob));
    for (uint32_t i = 0; i < count; i++)
        p[i] = next[i];
    x->npend = count;
}

/* The part phase ph works on at step st, as two halves [a[d], b[d]) of nt[d] tiles each (none
 * before its first step or past its last, or on a chip off a broadcast's line): the pieces 2 slice
 * + d of 2 slices of the part. The part at step st: a reduce-scatter's is the one of the position st
 * + 1 behind, an all-gather's st behind. */
static void halves(const coll_t *x, const phase_t *ph, uint32_t st, uint64_t a[2], uint64_t b[2], uint32_t nt[2])
{
    const ring_t *g = &x->ring[ph->ring];
    for (uint32_t d = 0; d < 2u; d++) {
        nt[d] = 0;
        if (ph->idle || st >= steps(x, ph))
            continue;
        /* an all-reduce's all-gather steps: st + 1 - m back, the same mod m */
        int64_t back = (int64_t)st + (ph->kind == PH_RS || ph->kind == PH_AR);
        uint32_t k = 2u * ph->slice + d, n = 2u * ph->slices;
        if (ph->kind == PH_BC)
            piece_of(ph->lo, ph->hi, 0, 1, k, n, &a[d], &b[d]);
        else
            piece_of(ph->lo, ph->hi, g->part[wrap(g->p, d ? back : -back, g->m)], g->m, k, n, &a[d], &b[d]);
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
    if (!reducing(x, ph, st))
        tiles(x, NULL, 0);
    return count > 0;
}

/* A broadcast phase's tiles, of each line's phase ph[h]: a chain a direction of each. The chains'
 * tiles take turns in the order they arrive: tile t of chain i reaches the chip k_i hops from the
 * root after about k_i + t tiles' time (each hop forwards a tile once it has all of it), and the
 * chip's DMA queue waits for them in that order, so that a nearer chain is never held up behind a
 * tile of a farther one. */
static void broadcast(coll_t *x, const phase_t *const ph[2], uint32_t lines)
{
    uint64_t a[4], b[4];
    uint32_t nt[4], t[4] = {0, 0, 0, 0}, k[4], chains = 2u * lines;
    for (uint32_t i = 0; i < chains; i += 2u) {
        halves(x, ph[i / 2u], 0, &a[i], &b[i], &nt[i]);
        k[i] = hops(x, ph[i / 2u], 0);
        k[i + 1u] = hops(x, ph[i / 2u], 1);
    }
    for (;;) {
        uint32_t c = chains;
        for (uint32_t i = 0; i < chains; i++)
            if (t[i] < nt[i] && (c == chains || k[i] + t[i] < k[c] + t[c]))
                c = i;
        if (c == chains)
            return;
        job_t n = {.ph = ph[c / 2u], .st = 0, .d = c % 2u};
        n.bytes = tile_of(x, a[c], b[c], t[c]++, &n.e);
        tiles(x, &n, 1);
        tiles(x, NULL, 0);
    }
}

/* A phase on ring r, the whole of each part. */
static phase_t mk(int kind, uint32_t r, uint64_t lo, uint64_t hi, span_t own, span_t res)
{
    return (phase_t){.kind = kind, .ring = r, .slices = 1u, .lo = lo, .hi = hi, .own = own, .res = res};
}

/* Whether collective c's pod is a torus with two rings through every chip (rings()). */
static int paired(const tsl_cp_coll_t *c)
{
    return c->dx > 1u && c->dy > 1u && ((c->dx == 2u && c->dy % 2u == 0) || (c->dy == 2u && c->dx % 2u == 0));
}

/* The rings of collective c's pod. Ring a: the line along axis a (0: X, 1: Y) through this chip,
 * a part per coordinate; a pod that is one line, or a torus's phases, run along them. A torus of
 * 2 x b or b x 2 chips, b even (paired()), also has two rings through all its chips that share no
 * link, so that the two, both ways round, keep its four links busy: ring h alternates steps along
 * the other axis (+, port 2 l) and across the axis of extent 2 (its cable h: port 2 t + (t coordinate
 * xor h); each chip's two ports of that axis lead to the other chip of its line by two links),
 * ring 0 starting with a step along. A step's way back leaves by the port of the same link, the
 * port xor 1. Their parts are the chips': position i's is chip part[i]'s. Returns paired(). */
static int rings(coll_t *x)
{
    const tsl_cp_coll_t *c = x->c;
    for (uint32_t a = 0; a < 2u; a++) {
        ring_t *g = &x->ring[a];
        *g = (ring_t){.m = a ? c->dy : c->dx, .p = a ? c->y : c->x, .port = {2u * a, 2u * a + 1u}};
        for (uint32_t i = 0; i < g->m; i++)
            g->part[i] = (uint8_t)i;
    }
    if (!paired(c))
        return 0;
    uint32_t t = c->dx == 2u ? 0u : 1u, l = 1u - t, out[RING_MAX];
    for (uint32_t h = 0; h < 2u; h++) {
        ring_t *g = &x->ring[h];
        uint32_t px = 0, py = 0;
        g->m = c->dx * c->dy;
        for (uint32_t i = 0; i < g->m; i++) {
            out[i] = i % 2u == h ? 2u * l : 2u * t + ((t ? py : px) ^ h);
            g->part[i] = (uint8_t)(py * c->dx + px);
            if (px == c->x && py == c->y)
                g->p = i;
            across(c, out[i], &px, &py);
        }
        g->port[0] = out[g->p];
        g->port[1] = out[(g->p + g->m - 1u) % g->m] ^ 1u;
    }
    return 1;
}

/* The phases of collective c: two lines of at most PHASES, run side by side (the rings of a paired
 * torus, each on its slice of every part; the halves of another torus's all-reduce). Returns how many
 * in each line; *lines: 1 or 2. */
static uint32_t plan(const coll_t *x, int pair, phase_t ph[2][PHASES], uint32_t *lines)
{
    const tsl_cp_coll_t *c = x->c;
    uint64_t n = (uint64_t)c->dx * c->dy, all = c->kind == TSL_CP_COLL_ALL_REDUCE || c->kind == TSL_CP_COLL_BROADCAST
                                                   ? c->count : c->count * n;
    uint64_t q = (uint64_t)c->y * c->dx + c->x, row = all / c->dy;   /* this chip; a row's block */
    span_t in = {c->in, 0}, out = {c->out, 0}, mid = {c->scratch, 0}, mine = {c->out, q * c->count},
           in_mine = {c->in, q * c->count};
    int two = c->dx > 1u && c->dy > 1u;
    if (!two || pair) {   /* one phase round the line, or round each ring */
        *lines = pair ? 2u : 1u;
        for (uint32_t h = 0; h < *lines; h++) {
            uint32_t r = pair ? h : c->dx > 1u ? 0u : 1u;
            const ring_t *g = &x->ring[r];
            if (c->kind == TSL_CP_COLL_ALL_REDUCE) {
                ph[h][0] = mk(PH_AR, r, 0, all, in, out);
            } else if (c->kind == TSL_CP_COLL_REDUCE_SCATTER) {
                ph[h][0] = mk(PH_RS, r, 0, all, in, mine);
            } else if (c->kind == TSL_CP_COLL_ALL_GATHER) {
                ph[h][0] = mk(PH_AG, r, 0, all, in_mine, out);
            } else {
                ph[h][0] = mk(PH_BC, r, 0, all, in, out);
                while (g->part[ph[h][0].root] != c->root)
                    ph[h][0].root++;
            }
            ph[h][0].slice = h;
            ph[h][0].slices = *lines;
        }
        return 1;
    }
    *lines = 1;
    if (c->kind == TSL_CP_COLL_ALL_REDUCE) {   /* half 0: X, all-reduce along Y, X; half 1: Y, X, Y */
        uint64_t half = (all + 1u) / 2u;
        *lines = 2;
        for (uint32_t h = 0; h < 2u; h++) {
            uint32_t first = h, second = 1u - h;
            uint64_t lo = h ? half : 0, hi = h ? all : half, pa, pb;
            part_of(lo, hi, x->ring[first].p, x->ring[first].m, &pa, &pb);   /* this chip's after the first */
            ph[h][0] = mk(PH_RS, first, lo, hi, in, out);
            ph[h][1] = mk(PH_AR, second, pa, pb, out, out);
            ph[h][2] = mk(PH_AG, first, lo, hi, out, out);
        }
        return 3;
    }
    if (c->kind == TSL_CP_COLL_REDUCE_SCATTER) {   /* Y, then X: chip q's part is row block y, then x */
        ph[0][0] = mk(PH_RS, 1, 0, all, in, mid);
        ph[0][1] = mk(PH_RS, 0, c->y * row, (c->y + 1u) * row, mid, mine);
        return 2;
    }
    if (c->kind == TSL_CP_COLL_ALL_GATHER) {   /* X within the row's block, then Y */
        ph[0][0] = mk(PH_AG, 0, c->y * row, (c->y + 1u) * row, in_mine, out);
        ph[0][1] = mk(PH_AG, 1, 0, all, out, out);
        return 2;
    }
    uint32_t rx = c->root % c->dx, ry = c->root / c->dx;   /* broadcast: along the root's row, then down the columns */
    ph[0][0] = mk(PH_BC, 0, 0, all, in, out);
    ph[0][0].root = rx;
    ph[0][0].idle = c->y != ry;
    ph[0][1] = mk(PH_BC, 1, 0, all, out, out);
    ph[0][1].root = ry;
    return 2;
}

/* The slots of collective c's streams: the tile (a power of two, at most 32 KiB), the receive and
 * the own slots a stream, and where the own slots are. Receive slots sit in VMEM below the credits;
 * own slots in ACC for 32-bit elements (acc: a row of 16 is one ACC line, which the VPU's reduction
 * reads and writes in one access; the received row it adds is two VMEM lines), else in VMEM after
 * the receive slots. Receive slots: m + 1 on the longest ring of m. Own slots hold a stream's
 * loads, 3: a tile's load runs while the two before it leave. A reduce-scatter round a line or a
 * paired torus's rings (or an all-reduce's) loads every tile it sends or stores, and waits less
 * with 4; it then takes m receive slots where m + 1 would halve its tiles. */
typedef struct {
    uint32_t tile, recv, own;
    int acc;
} slots_t;

static int fits(const tsl_cp_t *cp, uint32_t streams, const slots_t *k, uint32_t tile, uint32_t recv)
{
    uint64_t vmem = (uint64_t)streams * tile * (recv + (k->acc ? 0u : k->own));
    return tile <= 32768u && vmem <= cp->vmem_bytes - CREDIT_AREA &&
           (!k->acc || (uint64_t)streams * tile * k->own <= cp->acc_bytes);
}

static slots_t slots(const tsl_cp_t *cp, const tsl_cp_coll_t *c)
{
    int line = c->dx == 1u || c->dy == 1u, pair = paired(c);
    uint32_t m = pair ? c->dx * c->dy : c->dx > c->dy ? c->dx : c->dy, streams = line ? 2u : 4u;
    int rs = (line || pair) && (c->kind == TSL_CP_COLL_REDUCE_SCATTER || c->kind == TSL_CP_COLL_ALL_REDUCE);
    uint32_t sends = c->kind == TSL_CP_COLL_ALL_REDUCE ? 2u * m - 2u : m - 1u;   /* a round's on a stream */
    slots_t k = {.tile = 1u, .recv = rs ? sends + 1u : sends + 2u, .own = rs ? 4u : 3u,
                 .acc = tsl_dtype_bytes(c->dtype) == 4u};
    while (fits(cp, streams, &k, 2u * k.tile, k.recv))
        k.tile *= 2u;
    if (fits(cp, streams, &k, k.tile, sends + 2u))
        k.recv = sends + 2u;
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
    return c->kind == TSL_CP_COLL_REDUCE_SCATTER && two && !paired(c) ? c->count * n * tsl_dtype_bytes(c->dtype) : 0u;
}

/* Every phase of the plan, the lines' phase i side by side, in rounds (the file's comment), each
 * phase's last tile's work pushed before the next phase's first load (which may read what it
 * stores); then the credits still lagging. */
static void walk(coll_t *x, phase_t ph[2][PHASES], uint32_t len, uint32_t lines)
{
    int both = lines == 2u;
    for (uint32_t i = 0; i < len; i++) {
        if (ph[0][i].kind == PH_BC) {
            const phase_t *l[2] = {&ph[0][i], &ph[1][i]};
            broadcast(x, l, lines);
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
    int two = c->dx > 1u && c->dy > 1u;
    uint32_t es = tsl_dtype_bytes(c->dtype);
    slots_t k0 = slots(cp, c);
    coll_t x = {.cp = cp, .c = c, .dry = 1, .es = es, .tile = k0.tile, .recv = k0.recv, .own = k0.own};
    uint32_t a1 = c->dx > 1u ? 0u : 1u, used = two ? 4u : 2u;
    uint32_t obase = k0.acc ? TSL_LOCAL_ACC_BASE : used * x.recv * x.tile;
    for (uint32_t k = 0, i = 0; k < STREAMS; k++) {   /* a line's two streams, or all four */
        if (!two && k / 2u != a1)
            continue;
        x.s[k].rbase = i * x.recv * x.tile;
        x.s[k].obase = obase + i * x.own * x.tile;
        i++;
    }
    phase_t ph[2][PHASES];
    uint32_t lines, len = plan(&x, rings(&x), ph, &lines);
    walk(&x, ph, len, lines);   /* dry: how many tiles each stream brings */
    for (uint32_t k = 0; k < STREAMS; k++)
        x.s[k] = (stream_t){.total = x.s[k].got, .rbase = x.s[k].rbase, .obase = x.s[k].obase};
    x.npend = 0;
    x.dry = 0;
    x.sent = 0;
    cp->prog = p;
    tsl_cp_sched_begin(cp);
    walk(&x, ph, len, lines);
    tsl_cp_sched_end(cp);
    p->open = 0;
    cp->prog = NULL;
    return x.sent;
}
