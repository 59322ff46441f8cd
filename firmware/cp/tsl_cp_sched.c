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
 */
#include "tsl_cp_int.h"

static void push_raw(tsl_cp_t *cp, const tsl_insn_t *i)
{
    cp->hal->tc_push(cp->hal->ctx, i->w);
    cp->s.seq[tsl_insn_hdr_decode(i->w).unit]++;
    cp->s.pushed++;
}

static uint32_t pend_pop(tsl_cp_sched_t *s, uint32_t u, uint32_t v)
{
    uint32_t seq = s->pend[u][v][s->pend_head[u][v]];
    s->pend_head[u][v] = (uint8_t)((s->pend_head[u][v] + 1u) % TSL_CP_PEND);
    s->pend_count[u][v]--;
    return seq;
}

static uint32_t pend_front(const tsl_cp_sched_t *s, uint32_t u, uint32_t v)
{
    return s->pend[u][v][s->pend_head[u][v]];
}

/* Push a SYNC on v that takes one token from u (the oldest outstanding signal u->v). */
static void consume(tsl_cp_t *cp, uint32_t u, uint32_t v)
{
    tsl_insn_t i = tsl_insn_sync_encode((tsl_insn_sync_t){.unit = v});
    tsl_insn_wait(&i, TSL_TOK(u));
    uint32_t seq = pend_pop(&cp->s, u, v);
    push_raw(cp, &i);
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

void tsl_cp_issue(tsl_cp_t *cp, tsl_insn_t insn, tsl_cp_buf_t *r1, tsl_cp_buf_t *r2, tsl_cp_buf_t *w,
                  uint32_t hint)
{
    tsl_cp_sched_t *s = &cp->s;
    uint32_t v = tsl_insn_hdr_decode(insn.w).unit, need[TSL_UNIT_LIMIT] = {0, 0, 0};
    tsl_cp_buf_t *rd[2] = {r1, r2};
    for (int k = 0; k < 2; k++)
        if (rd[k] && rd[k]->wseq && rd[k]->wseq > need[rd[k]->wunit])
            need[rd[k]->wunit] = rd[k]->wseq;
    if (w) {
        if (w->wseq && w->wseq > need[w->wunit])
            need[w->wunit] = w->wseq;
        for (uint32_t u = 0; u < TSL_UNIT_LIMIT; u++)
            if (w->rseq[u] > need[u])
                need[u] = w->rseq[u];
    }
    for (uint32_t u = 0; u < TSL_UNIT_LIMIT; u++) {
        if (u == v || need[u] <= s->known[u][v])
            continue;
        while (s->pend_count[u][v] && pend_front(s, u, v) < need[u])
            consume(cp, u, v);
        uint32_t seq;
        if (s->pend_count[u][v]) {
            seq = pend_pop(s, u, v);
        } else {
            tsl_insn_t sy = tsl_insn_sync_encode((tsl_insn_sync_t){.unit = u});
            tsl_insn_signal(&sy, TSL_TOK(v));
            push_raw(cp, &sy);
            seq = s->seq[u];
        }
        tsl_insn_wait(&insn, TSL_TOK(u));
        s->known[u][v] = seq;
    }
    hint &= ~TSL_TOK(v) & ((1u << TSL_UNIT_LIMIT) - 1u);
    for (uint32_t u = 0; u < TSL_UNIT_LIMIT; u++) {
        if (!((hint >> u) & 1u) || s->pend_count[v][u] >= TSL_CP_PEND)
            continue;
        tsl_insn_signal(&insn, TSL_TOK(u));
        s->pend[v][u][(s->pend_head[v][u] + s->pend_count[v][u]) % TSL_CP_PEND] = s->seq[v] + 1u;
        s->pend_count[v][u]++;
    }
    push_raw(cp, &insn);
    uint32_t seq = s->seq[v];
    for (int k = 0; k < 2; k++)
        if (rd[k])
            rd[k]->rseq[v] = seq;
    if (w) {
        w->wunit = v;
        w->wseq = seq;
        for (uint32_t u = 0; u < TSL_UNIT_LIMIT; u++)
            w->rseq[u] = 0;
    }
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

int tsl_cp_tc_error(tsl_cp_t *cp)
{
    return (cp->hal->tc_read(cp->hal->ctx, TSL_TC_STATUS_OFFSET) >> TSL_TC_STATUS_ERROR_SHIFT) & 1u;
}

#define POLLS_PER_CHECK 16u

static uint32_t progress(tsl_cp_t *cp)
{
    const tsl_cp_hal_t *h = cp->hal;
    return h->tc_read(h->ctx, TSL_TC_PERF_DMA_INSNS_LO_OFFSET) + h->tc_read(h->ctx, TSL_TC_PERF_MXU_INSNS_LO_OFFSET) +
           h->tc_read(h->ctx, TSL_TC_PERF_VPU_INSNS_LO_OFFSET);
}

uint32_t tsl_cp_sched_end(tsl_cp_t *cp, uint32_t *detail)
{
    const tsl_cp_hal_t *h = cp->hal;
    /* nothing pushed (a tile-sequencer GEMM), nothing pending */
    for (uint32_t u = 0; cp->s.pushed && u < TSL_UNIT_LIMIT; u++)
        for (uint32_t v = 0; v < TSL_UNIT_LIMIT; v++)
            while (cp->s.pend_count[u][v])
                consume(cp, u, v);
    uint64_t start = h->cycles(h->ctx);
    uint32_t last = progress(cp), st = TSL_CMD_ERR_OK;
    *detail = 0;
    /* STATUS at every poll, so that the end is seen within a few cycles; progress and the timeout
     * at every POLLS_PER_CHECK-th */
    for (uint32_t poll = 0;; poll++) {
        uint32_t status = h->tc_read(h->ctx, TSL_TC_STATUS_OFFSET);
        if ((status >> TSL_TC_STATUS_ERROR_SHIFT) & 1u) {
            *detail = h->tc_read(h->ctx, TSL_TC_ERR_CODE_OFFSET);
            st = TSL_CMD_ERR_DEVICE;
            break;
        }
        if ((status >> TSL_TC_STATUS_IDLE_SHIFT) & 1u)
            return TSL_CMD_ERR_OK;
        if (h->idle)
            h->idle(h->ctx);
        if (poll % POLLS_PER_CHECK)
            continue;
        uint32_t p = progress(cp);
        uint64_t now = h->cycles(h->ctx);
        if (p != last) {
            last = p;
            start = now;
        } else if (now - start > cp->timeout_cycles) {
            st = TSL_CMD_ERR_TIMEOUT;
            break;
        }
    }
    h->tc_write(h->ctx, TSL_TC_CTRL_OFFSET, 1u << TSL_TC_CTRL_RESET_SHIFT);
    return st;
}
