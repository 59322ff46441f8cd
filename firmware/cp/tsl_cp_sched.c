/* Tessel command processor: instruction scheduler.
 *
 * Every instruction declares the local buffers it reads and writes (tsl_cp_issue). The scheduler
 * turns read-after-write, write-after-read and write-after-write hazards between different units
 * into dependency tokens. Tokens of one channel u->v are consumed in the order they were signalled
 * (each queue runs in order), so the scheduler keeps, per channel, the unit-u sequence numbers of
 * the signals not yet waited for. To make v wait for u's instruction p it
 *   - does nothing if v already waited for p or a later u instruction (known[u][v] >= p);
 *   - consumes older outstanding signals with SYNC waits on v;
 *   - uses the next outstanding signal if it came from p or later (a hint given at p's push);
 *   - else pushes a SYNC on u that signals v (it finishes after p: u's queue is in order).
 * Every wait is matched by a signal pushed before it (the push-order rule), so no program the
 * scheduler produces can deadlock or underflow; tsl_cp_sched_end() consumes every leftover token
 * so that each command starts and ends with zero tokens.
 *
 * The control core pays for this at every push, so the common cases are short: an instruction
 * without buffers or hints is only pushed (tsl_cp_push, or tsl_cp_issue's fast path), and a run of
 * instructions of one unit over the same buffers (tsl_cp_issue_run) does the work at its first
 * (the waits, which cover the whole run: its unit's queue is in order) and its last (the record of
 * its reads and writes, the hint) only.
 */
#include "tsl_cp_int.h"

/* Push `i`, an instruction of unit `u`, and count it. */
static inline void push(tsl_cp_t *cp, const tsl_insn_t *i, uint32_t u)
{
    tsl_cp_emit_insn(cp, i->w);
    cp->s.seq[u]++;
    cp->s.pushed++;
}

/* Push a SYNC on `unit` that takes a token from each unit in `wait` and gives one to each in
 * `signal`. */
static void push_sync(tsl_cp_t *cp, uint32_t unit, uint32_t wait, uint32_t signal)
{
    tsl_insn_t i = tsl_insn_sync_encode((tsl_insn_sync_t){.unit = unit, .wait = wait, .signal = signal});
    push(cp, &i, unit);
}

static uint32_t pend_pop(tsl_cp_sched_t *s, uint32_t u, uint32_t v)
{
    uint32_t seq = s->pend[u][v][s->pend_head[u][v]];
    s->pend_head[u][v] = (uint8_t)((s->pend_head[u][v] + 1u) % TSL_CP_PEND);
    s->pend_count[u][v]--;
    return seq;
}

/* Push a SYNC on v that takes one token from u (the oldest outstanding signal u->v). */
static __attribute__((cold, noinline)) void consume(tsl_cp_t *cp, uint32_t u, uint32_t v)
{
    uint32_t seq = pend_pop(&cp->s, u, v);
    push_sync(cp, v, TSL_TOK(u), 0);
    if (seq > cp->s.known[u][v])
        cp->s.known[u][v] = seq;
}

void tsl_cp_sched_begin(tsl_cp_t *cp)
{
    tsl_cp_sched_t *s = &cp->s;
    for (uint32_t u = 0; u < TSL_UNIT_LIMIT; u++) {
        s->seq[u] = 0;
        for (uint32_t v = 0; v < TSL_UNIT_LIMIT; v++) {
            s->known[u][v] = 0;
            s->pend_head[u][v] = 0;
            s->pend_count[u][v] = 0;
        }
    }
    s->pushed = 0;
}

/* Make `i`, v's next instruction, wait for u's instruction `need`, which v has not waited for
 * yet (known[u][v] < need): the oldest outstanding signal u->v from `need` or later, after SYNCs
 * that consume the older ones, or else a lazy SYNC on u. Out of line: most instructions need
 * none, and tsl_cp_issue stays small. */
static __attribute__((cold, noinline)) void wait_for(tsl_cp_t *cp, tsl_insn_t *i, uint32_t u, uint32_t v, uint32_t need)
{
    tsl_cp_sched_t *s = &cp->s;
    while (s->pend_count[u][v] && s->pend[u][v][s->pend_head[u][v]] < need)
        consume(cp, u, v);
    uint32_t seq;
    if (s->pend_count[u][v]) {
        seq = pend_pop(s, u, v);
    } else {
        push_sync(cp, u, 0, TSL_TOK(v));
        seq = s->seq[u];
    }
    tsl_insn_wait(i, TSL_TOK(u));
    s->known[u][v] = seq;
}

/* The hints of v's next instruction `i` (a TSL_TOK mask without v): signal each unit whose
 * channel v->u has room for one more outstanding signal, and record it. */
static __attribute__((noinline)) void give_hints(tsl_cp_sched_t *s, tsl_insn_t *i, uint32_t v, uint32_t hint)
{
    for (uint32_t u = 0; u < TSL_UNIT_LIMIT; u++) {
        if (!((hint >> u) & 1u) || s->pend_count[v][u] >= TSL_CP_PEND)
            continue;
        tsl_insn_signal(i, TSL_TOK(u));
        s->pend[v][u][(s->pend_head[v][u] + s->pend_count[v][u]) % TSL_CP_PEND] = s->seq[v] + 1u;
        s->pend_count[v][u]++;
    }
}

/* need[b's writer] covers b's last write (wseq 0: none, never above need). */
static inline void need_write(uint32_t *need, const tsl_cp_buf_t *b)
{
    if (b->wseq > need[b->wunit])
        need[b->wunit] = b->wseq;
}

/* tsl_cp_issue with buffers or hints: the hazards of r1, r2 and w become the latest instruction
 * of each other unit to wait for, and only the units v has not waited for that far take the slow
 * path (wait_for). */
static __attribute__((noinline)) void issue_deps(tsl_cp_t *cp, tsl_insn_t *insn, uint32_t v, tsl_cp_buf_t *r1,
                                                 tsl_cp_buf_t *r2, tsl_cp_buf_t *w, uint32_t hint)
{
    tsl_cp_sched_t *s = &cp->s;
    uint32_t need[TSL_UNIT_LIMIT] = {0};
    if (r1)
        need_write(need, r1);
    if (r2)
        need_write(need, r2);
    if (w) {
        need_write(need, w);
        for (uint32_t u = 0; u < TSL_UNIT_LIMIT; u++)
            if (w->rseq[u] > need[u])
                need[u] = w->rseq[u];
    }
    for (uint32_t u = 0; u < TSL_UNIT_LIMIT; u++)
        if (u != v && need[u] > s->known[u][v])
            wait_for(cp, insn, u, v, need[u]);
    if (hint)
        give_hints(s, insn, v, hint);
    push(cp, insn, v);
    uint32_t seq = s->seq[v];
    if (r1)
        r1->rseq[v] = seq;
    if (r2)
        r2->rseq[v] = seq;
    if (w) {
        w->wunit = v;
        w->wseq = seq;
        for (uint32_t u = 0; u < TSL_UNIT_LIMIT; u++)
            w->rseq[u] = 0;
    }
}

/* GCC's noclone: one copy of the function, not a specialised one per caller (room). Clang, which
 * builds the fuzzers, has no such attribute. */
#ifdef __clang__
#define ONE_COPY __attribute__((noinline))
#else
#define ONE_COPY __attribute__((noinline, noclone))
#endif

/* The common case, an instruction with no buffer and no hint (a VPU step on its own scratch), is
 * only a push. Neither this nor issue_deps is inlined into tsl_cp_zero and tsl_cp_fill32: one
 * copy is what the firmware has room for. */
ONE_COPY void tsl_cp_issue(tsl_cp_t *cp, tsl_insn_t insn, tsl_cp_buf_t *r1, tsl_cp_buf_t *r2, tsl_cp_buf_t *w,
                           uint32_t hint)
{
    uint32_t v = TSL_GET(insn.w, TSL_INSN_HDR_UNIT);
    hint &= ~TSL_TOK(v) & ((1u << TSL_UNIT_LIMIT) - 1u);
    if (r1 || r2 || w || hint)
        issue_deps(cp, &insn, v, r1, r2, w, hint);
    else
        push(cp, &insn, v);
}

void tsl_cp_push(tsl_cp_t *cp, const tsl_insn_t *insn)
{
    push(cp, insn, TSL_GET(insn->w, TSL_INSN_HDR_UNIT));
}

void tsl_cp_issue_run(tsl_cp_t *cp, tsl_insn_t *insn, uint32_t k, uint32_t count, tsl_cp_buf_t *r1, tsl_cp_buf_t *r2,
                      tsl_cp_buf_t *w, uint32_t hint, uint32_t each)
{
    uint32_t v = TSL_GET(insn->w, TSL_INSN_HDR_UNIT), w0 = insn->w[0], last = k + 1u == count;
    hint = ((last ? hint : 0u) | each) & ~TSL_TOK(v) & ((1u << TSL_UNIT_LIMIT) - 1u);
    if ((k && !last) || !(r1 || r2 || w)) {
        if (hint)
            give_hints(&cp->s, insn, v, hint);
        push(cp, insn, v);
    } else {
        issue_deps(cp, insn, v, r1, r2, w, hint);
    }
    insn->w[0] = w0;   /* the template again, without this one's tokens */
}

tsl_cp_buf_t tsl_cp_run_part(const tsl_cp_buf_t *b, uint32_t k, uint32_t count)
{
    tsl_cp_buf_t p = {b->wunit, b->wseq - (count - 1u - k), {0, 0, 0}};
    return p;
}

void tsl_cp_zero(tsl_cp_t *cp, tsl_cp_buf_t *buf, uint32_t addr, uint32_t bytes, uint32_t hint)
{
    uint32_t rows = bytes / cp->n;
    while (rows) {
        uint32_t r = tsl_cp_min(rows, TSL_CP_MAX_ROWS);
        tsl_insn_t i = tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                .op = TSL_VPU_OP_MUL, .dst_dtype = TSL_DTYPE_INT8, .src1_dtype = TSL_DTYPE_INT8,
                .src2_dtype = TSL_DTYPE_INT32, .src2_mode = TSL_SRC2_IMM, .dst_addr = addr, .src1_addr = addr,
                .rows = r});
        rows -= r;
        addr += r * cp->n;
        tsl_cp_issue(cp, i, NULL, NULL, buf, rows ? 0u : hint);
    }
}

void tsl_cp_fill32(tsl_cp_t *cp, tsl_cp_buf_t *buf, uint32_t addr, uint32_t bytes, uint32_t pattern, uint32_t hint)
{
    uint32_t steps = pattern ? 2u : 1u;
    for (uint32_t st = 0; st < steps; st++)
        for (uint32_t a = addr, vecs = bytes / (4u * cp->n); vecs;) {
            uint32_t r = tsl_cp_min(vecs, TSL_CP_MAX_ROWS);
            vecs -= r;
            tsl_cp_issue(cp, tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                    .op = st ? TSL_VPU_OP_ADD : TSL_VPU_OP_MUL, .dst_dtype = TSL_DTYPE_INT32,
                    .src1_dtype = TSL_DTYPE_INT32, .src2_dtype = TSL_DTYPE_INT32, .src2_mode = TSL_SRC2_IMM,
                    .dst_addr = a, .src1_addr = a, .src2_addr = st ? pattern : 0u, .rows = r}),
                NULL, NULL, buf, !vecs && st + 1u == steps ? hint : 0u);
            a += r * 4u * cp->n;
        }
}

/* Bytes 0, 1, 2, 3 repeated, read as INT8 lanes, give l mod 4; each step multiplies the last step's
 * INT8 lanes by 0x04040404 into INT32 lanes, whose bytes, read as INT8 lanes again, give the next
 * base-4 digit of l times its weight (4, 16, ...). */
void tsl_cp_lane_index(tsl_cp_t *cp, uint32_t dst, uint32_t a, uint32_t b, int32_t c0)
{
    const uint32_t I8 = TSL_DTYPE_INT8, I32 = TSL_DTYPE_INT32;
    tsl_cp_fill32(cp, NULL, a, 4u * cp->n, 0x03020100u, 0);
    tsl_cp_issue(cp, tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
            .op = TSL_VPU_OP_ADD, .dst_dtype = I32, .src1_dtype = I8, .src2_dtype = I32,
            .src2_mode = TSL_SRC2_IMM, .dst_addr = dst, .src1_addr = a, .src2_addr = (uint32_t)c0, .rows = 1}),
        NULL, NULL, NULL, 0);
    for (uint32_t scale = 4, t; scale < cp->n; scale *= 4u, t = a, a = b, b = t) {
        tsl_cp_issue(cp, tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                .op = TSL_VPU_OP_MUL, .dst_dtype = I32, .src1_dtype = I8, .src2_dtype = I32,
                .src2_mode = TSL_SRC2_IMM, .dst_addr = b, .src1_addr = a, .src2_addr = 0x04040404u, .rows = 1}),
            NULL, NULL, NULL, 0);
        tsl_cp_issue(cp, tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                .op = TSL_VPU_OP_ADD, .dst_dtype = I32, .src1_dtype = I32, .src2_dtype = I8,
                .src2_mode = TSL_SRC2_VEC, .dst_addr = dst, .src1_addr = dst, .src2_addr = b, .rows = 1}),
            NULL, NULL, NULL, 0);
    }
}

void tsl_cp_sched_end(tsl_cp_t *cp)
{
    for (uint32_t u = 0; cp->s.pushed && u < TSL_UNIT_LIMIT; u++)
        for (uint32_t v = 0; v < TSL_UNIT_LIMIT; v++)
            while (cp->s.pend_count[u][v])
                consume(cp, u, v);
}
