/* Tessel command processor: ring handling, the runner's checks, device programs, completions. See
 * tsl_cp.h. */
#include "tsl_cp.h"

#include "tsl_cp_int.h"

#define CMD_BYTES (TSL_PARAM_CMD_WORDS * 4u)
#define CPL_BYTES (TSL_PARAM_CPL_WORDS * 4u)

/* The hardware accesses of the path from a doorbell to a running program and back. On the control
 * core (TSL_CP_MMIO, firmware/cp/Makefile) they are its own loads and stores, inlined; elsewhere
 * (the native runner, the lite core's host) they go through the HAL's table. */
#ifdef TSL_CP_MMIO
#include "tsl_cp_hal_mmio.h"
static inline uint32_t hif_rd(tsl_cp_t *cp, uint32_t off) { (void)cp; return tsl_cp_mmio_hostif_read(off); }
static inline void hif_wr(tsl_cp_t *cp, uint32_t off, uint32_t v) { (void)cp; tsl_cp_mmio_hostif_write(off, v); }
static inline uint32_t tc_rd(tsl_cp_t *cp, uint32_t off) { (void)cp; return tsl_cp_mmio_tc_read(off); }
static inline void tc_wr(tsl_cp_t *cp, uint32_t off, uint32_t v) { (void)cp; tsl_cp_mmio_tc_write(off, v); }
static inline void hbm_rd(tsl_cp_t *cp, uint32_t a, uint32_t *w, uint32_t n)
{
    (void)cp;
    tsl_cp_mmio_hbm_read_words(a, w, n);
}
static inline void hbm_wr(tsl_cp_t *cp, uint32_t a, const uint32_t *w, uint32_t n)
{
    (void)cp;
    tsl_cp_mmio_hbm_write_words(a, w, n);
}
static inline uint32_t now32(tsl_cp_t *cp) { (void)cp; return tsl_cp_mmio_cycles32(); }
/* The words of the command entry at HBM address `a` whose bits are set in the constant `mask`,
 * into w[] by word: loads at constant offsets from one address. */
static inline __attribute__((always_inline)) void hbm_rd_mask(tsl_cp_t *cp, uint32_t a, uint32_t *w, uint32_t mask)
{
    (void)cp;
    const volatile uint32_t *src = (const volatile uint32_t *)(TSL_MMAP_HBM_BASE + a);
#pragma GCC unroll 16
    for (uint32_t i = 0; i < TSL_PARAM_CMD_WORDS; i++)
        if ((mask >> i) & 1u)
            w[i] = src[i];
}
#else
static uint32_t hif_rd(tsl_cp_t *cp, uint32_t off) { return cp->hal->hostif_read(cp->hal->ctx, off); }
static void hif_wr(tsl_cp_t *cp, uint32_t off, uint32_t v) { cp->hal->hostif_write(cp->hal->ctx, off, v); }
static uint32_t tc_rd(tsl_cp_t *cp, uint32_t off) { return cp->hal->tc_read(cp->hal->ctx, off); }
static void tc_wr(tsl_cp_t *cp, uint32_t off, uint32_t v) { cp->hal->tc_write(cp->hal->ctx, off, v); }
static void hbm_rd(tsl_cp_t *cp, uint32_t a, uint32_t *w, uint32_t n) { cp->hal->hbm_read(cp->hal->ctx, a, w, 4u * n); }
static void hbm_wr(tsl_cp_t *cp, uint32_t a, const uint32_t *w, uint32_t n)
{
    cp->hal->hbm_write(cp->hal->ctx, a, w, 4u * n);
}
static uint32_t now32(tsl_cp_t *cp) { return (uint32_t)cp->hal->cycles(cp->hal->ctx); }
static void hbm_rd_mask(tsl_cp_t *cp, uint32_t a, uint32_t *w, uint32_t mask)
{
    for (uint32_t i = 0; i < TSL_PARAM_CMD_WORDS; i++)
        if ((mask >> i) & 1u)
            hbm_rd(cp, a + 4u * i, &w[i], 1);
}
#endif

static int is_pow2(uint32_t v) { return v && !(v & (v - 1u)); }

const char *tsl_cp_strerror(int status)
{
    return status > 0 ? "ok" : tsl_status_text(status);
}

tsl_cp_status_t tsl_cp_init(tsl_cp_t *cp, const tsl_cp_hal_t *hal)
{
    if (!cp || !hal || !hal->tc_read || !hal->tc_write || !hal->tc_push || !hal->hostif_read || !hal->hostif_write ||
        !hal->hbm_read || !hal->hbm_write || !hal->cycles)
        return TSL_CP_EINVAL;
    cp->hal = hal;
    cp->prog = NULL;
    cp->timeout_cycles = TSL_CP_TIMEOUT_DEFAULT;
    cp->commands = 0;
    cp->ring[0] = cp->ring[1] = cp->ring[2] = cp->ring[3] = 0;   /* CMD_SIZE 0: none checked yet */
    if (hal->tc_read(hal->ctx, TSL_TC_ID_OFFSET) != TSL_ID_VALUE)
        return TSL_CP_ECONFIG;
    cp->hbm_bytes = hal->tc_read(hal->ctx, TSL_TC_CFG_HBM_BYTES_OFFSET);
    cp->features = hal->tc_read(hal->ctx, TSL_TC_CFG_FEATURES_OFFSET);
    if (!is_pow2(cp->hbm_bytes))
        return TSL_CP_ECONFIG;
    tsl_cp_tc_reset(cp);
    return TSL_CP_OK;
}

void tsl_cp_tc_reset(tsl_cp_t *cp)
{
    tc_wr(cp, TSL_TC_CTRL_OFFSET, 1u << TSL_TC_CTRL_RESET_SHIFT);
    cp->seq_window = 0;   /* CTRL.RESET clears the SEQ registers */
}

int tsl_cp_doorbell(tsl_cp_t *cp)
{
    if (!cp)
        return 0;
    if (!(hif_rd(cp, TSL_HOSTIF_DB_PENDING_OFFSET) & 1u))
        return 0;
    hif_wr(cp, TSL_HOSTIF_DB_PENDING_OFFSET, 1u);
    return 1;
}

/* ------------------------------------------------------------------------------- validation */

typedef struct {
    uint32_t cmd_base, cmd_size, head, tail, cpl_base, cpl_size, cpl_head, cpl_tail;
    tsl_cp_rings_t reg;   /* the ring region [0, reg.hi) that no operand may reach */
} ring_t;

#define W(f) (1u << TSL_CMD_##f##_WORD)
/* The words a command of these fields (and OPCODE, TAG) leaves unused: they must be 0. */
#define UNUSED(fields) (0xFFFFu & ~(W(OPCODE) | W(TAG) | (fields)))

/* tsl_cp_nonzero_word for a constant mask: the OR of the words it covers, which the compiler keeps
 * to those loads, and the search only when one is not 0 (the check sits on the doorbell's path). */
static inline __attribute__((always_inline)) int first_nonzero(const uint32_t *w, uint32_t mask)
{
    uint32_t any = 0;
    for (uint32_t i = 0; i < TSL_PARAM_CMD_WORDS; i++)
        any |= (mask >> i) & 1u ? w[i] : 0u;
    return any ? tsl_cp_nonzero_word(w, mask) : -1;
}

/* The commands the firmware runs itself (docs/isa.md §7): NOP, FENCE, KERNEL and PROGRAM; the host
 * compiles every other opcode into a PROGRAM (tsl_cp_compile.h). None takes a flag or a dtype. The
 * checks read the raw words (OPCODE is the low byte of word 0; these commands set no bit above it),
 * not a decoded copy: they sit between the doorbell and the program's start. */
static tsl_cp_verdict_t validate(const tsl_cp_t *cp, const ring_t *r, const uint32_t *w)
{
    tsl_cp_verdict_t ok = {TSL_CMD_ERR_OK, 0};
    uint32_t op = w[TSL_CMD_OPCODE_WORD] & TSL_CMD_OPCODE_MASK, n = w[TSL_CMD_N_WORD], a = w[TSL_CMD_A_ADDR_WORD];
    int kern = op == TSL_CMD_OP_KERNEL, prog = op == TSL_CMD_OP_PROGRAM;
    if (!(op == TSL_CMD_OP_NOP || op == TSL_CMD_OP_FENCE || prog || (kern && cp->hal->kernel)))
        TSL_CP_FAIL(BAD_OPCODE, TSL_CMD_OPCODE_WORD);   /* KERNEL: no control core to run it on (native) */
    if (w[0] >> 8)
        TSL_CP_FAIL(BAD_FLAGS, 0);
    int bad = prog ? first_nonzero(w, UNUSED(TSL_PROG_WORDS_MASK | W(N) | W(A_ADDR)))
              : kern ? first_nonzero(w, UNUSED(TSL_KERN_WORDS_MASK | W(N) | W(A_ADDR)))
                     : first_nonzero(w, UNUSED(0u));
    if (bad >= 0)
        TSL_CP_FAIL(BAD_FLAGS, (uint32_t)bad);
    if (kern && (!n || n > TSL_PARAM_KERNEL_BYTES || (n & 3u)))   /* whole words, in the region */
        TSL_CP_FAIL(BAD_SHAPE, TSL_CMD_N_WORD);
    if (prog && (!n || (n & 3u)))
        TSL_CP_FAIL(BAD_SHAPE, TSL_CMD_N_WORD);
    if ((kern || prog) && ((a & 3u) || !tsl_cp_in_hbm(&r->reg, a, 1, 0, n)))
        TSL_CP_FAIL(BAD_ADDR, TSL_CMD_A_ADDR_WORD);
    uint32_t base = w[TSL_PROG_WIN_BASE_WORD], limit = w[TSL_PROG_WIN_LIMIT_WORD];
    if (prog && (base > limit || !tsl_cp_in_hbm(&r->reg, base, 1, 0, limit - base)))
        TSL_CP_FAIL(BAD_ADDR, TSL_PROG_WIN_BASE_WORD);
    return ok;
}

/* ---------------------------------------------------------------------------------- running */

#define POLLS_PER_CHECK 16u

static uint32_t progress(tsl_cp_t *cp)
{
    return tc_rd(cp, TSL_TC_PERF_DMA_INSNS_LO_OFFSET) + tc_rd(cp, TSL_TC_PERF_MXU_INSNS_LO_OFFSET) +
           tc_rd(cp, TSL_TC_PERF_VPU_INSNS_LO_OFFSET);
}

static int tc_error(tsl_cp_t *cp)
{
    return (tc_rd(cp, TSL_TC_STATUS_OFFSET) >> TSL_TC_STATUS_ERROR_SHIFT) & 1u;
}

uint32_t tsl_cp_wait(tsl_cp_t *cp, uint32_t *detail)
{
    const tsl_cp_hal_t *h = cp->hal;
    uint64_t start = h->cycles(h->ctx);
    uint32_t last = progress(cp), st = TSL_CMD_ERR_OK;
    *detail = 0;
    /* STATUS at every poll, so that the end is seen within a few cycles; progress and the timeout
     * at every POLLS_PER_CHECK-th */
    for (uint32_t poll = 0;; poll++) {
        uint32_t status = tc_rd(cp, TSL_TC_STATUS_OFFSET);
        if ((status >> TSL_TC_STATUS_ERROR_SHIFT) & 1u) {
            *detail = tc_rd(cp, TSL_TC_ERR_CODE_OFFSET);
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
    tsl_cp_tc_reset(cp);
    return st;
}

/* Keep the tensor core's HBM accesses inside [base, limit) (TC HBM_BASE, HBM_LIMIT), where it has the
 * window (CFG_FEATURES.WINDOW; the lite core has none: its host is its runner). */
static void set_window(tsl_cp_t *cp, uint32_t base, uint32_t limit)
{
    if (!((cp->features >> TSL_TC_CFG_FEATURES_WINDOW_SHIFT) & 1u))
        return;
    tc_wr(cp, TSL_TC_HBM_BASE_OFFSET, base);
    tc_wr(cp, TSL_TC_HBM_LIMIT_OFFSET, limit);
}

/* Instructions pushed between two looks at STATUS.ERROR: after an error the tensor core drops
 * pushes, so the look only stops a failed program early. */
#define ERROR_EVERY 16u

static int has_fetch(const tsl_cp_t *cp) { return (cp->features >> TSL_TC_CFG_FEATURES_FETCH_SHIFT) & 1u; }

/* The words of a PROGRAM that the tensor core takes before the checks (fetch_held). */
#define AHEAD_WORDS (W(A_ADDR) | W(N) | 1u << TSL_PROG_WIN_BASE_WORD | 1u << TSL_PROG_WIN_LIMIT_WORD)

/* A PROGRAM's records read ahead by the fetch unit and its window set, held (TC PROG_HOLD) while the
 * command is checked: the program's HBM latency overlaps the checks. Its address, size and window
 * are read first from the command entry at HBM address `entry` into w[] (by word, the opcode's
 * already there); poll reads the entry's other words after them, each word once, so the values
 * checked are the values used. Nothing runs before it is released; a refused command's
 * fetch is stopped by CTRL.RESET. */
static inline __attribute__((always_inline)) void fetch_held(tsl_cp_t *cp, uint32_t entry, uint32_t *w)
{
    uint32_t v[TSL_PARAM_CMD_WORDS];   /* in registers: the stores to the tensor core do not reload them */
    hbm_rd_mask(cp, entry, v, AHEAD_WORDS);
    tc_wr(cp, TSL_TC_PROG_HOLD_OFFSET, 1u << TSL_TC_PROG_HOLD_HOLD_SHIFT);
    tc_wr(cp, TSL_TC_PROG_ADDR_OFFSET, v[TSL_CMD_A_ADDR_WORD]);
    tc_wr(cp, TSL_TC_PROG_BYTES_OFFSET, v[TSL_CMD_N_WORD]);
    set_window(cp, v[TSL_PROG_WIN_BASE_WORD], v[TSL_PROG_WIN_LIMIT_WORD]);
#pragma GCC unroll 16
    for (uint32_t i = 0; i < TSL_PARAM_CMD_WORDS; i++)
        if ((AHEAD_WORDS >> i) & 1u)
            w[i] = v[i];
}

/* PROGRAM (docs/isa.md §7): with CFG_FEATURES.FETCH the records fetched by the tensor core itself
 * (read ahead, the window set and released by poll), or else the window set, then the records read
 * and pushed here in order; then the wait. A bad record stops the program as the fetch unit stops
 * it: what came before runs out, the status is DEVICE with ERR_BAD_RECORD (ERR_BAD_OPCODE for a SEQ
 * record without the sequencer), and the tensor core is reset. */
static uint32_t run_program(tsl_cp_t *cp, const uint32_t *w, uint32_t *detail)
{
    const tsl_cp_hal_t *h = cp->hal;
    const uint32_t start = w[TSL_CMD_A_ADDR_WORD], bytes = w[TSL_CMD_N_WORD];
    int seq = ((cp->features >> TSL_TC_CFG_FEATURES_SEQ_SHIFT) & 1u) && h->tc_seq;
    uint32_t at = 0, bad = TSL_ERR_NONE, pushed = 0;
    if (has_fetch(cp)) {
        cp->seq_window = 1;   /* a CONV descriptor may have set SEQ16..22 */
        return tsl_cp_wait(cp, detail);
    }
    set_window(cp, w[TSL_PROG_WIN_BASE_WORD], w[TSL_PROG_WIN_LIMIT_WORD]);
    while (at < bytes && bad == TSL_ERR_NONE) {
        uint32_t hdr, a = start + at;
        h->hbm_read(h->ctx, a, &hdr, 4u);
        uint32_t kind = TSL_GET(&hdr, TSL_PROG_HDR_KIND), count = TSL_GET(&hdr, TSL_PROG_HDR_COUNT);
        uint32_t words = kind == TSL_PROG_REC_INSN ? count * TSL_PARAM_INSN_WORDS
                         : kind == TSL_PROG_REC_SEQ && count == 1u ? TSL_PARAM_SEQ_WORDS : 0u;
        if (!words || (hdr & ~(TSL_PROG_HDR_KIND_MASK | (TSL_PROG_HDR_COUNT_MASK << TSL_PROG_HDR_COUNT_SHIFT))) ||
            words > (bytes - at) / 4u - 1u) {
            bad = TSL_ERR_BAD_RECORD;
        } else if (kind == TSL_PROG_REC_SEQ) {
            uint32_t d[TSL_PARAM_SEQ_WORDS];
            int conv = 0;
            h->hbm_read(h->ctx, a + 4u, d, sizeof d);
            for (uint32_t i = TSL_SEQ_IN_H_WORD; i + 1u < TSL_PARAM_SEQ_WORDS; i++)
                conv |= d[i] != 0;
            if (!seq) {
                bad = TSL_ERR_BAD_OPCODE;
            } else {
                h->tc_seq(h->ctx, d, conv || cp->seq_window);   /* SEQ16..22 hold 0 unless a CONV set them */
                cp->seq_window = conv;
            }
        } else {
            for (a += 4u; count--; a += 4u * TSL_PARAM_INSN_WORDS) {
                uint32_t i[TSL_PARAM_INSN_WORDS];
                if (!(++pushed % ERROR_EVERY) && tc_error(cp))
                    return tsl_cp_wait(cp, detail);
                h->hbm_read(h->ctx, a, i, sizeof i);
                h->tc_push(h->ctx, i);
            }
        }
        at += 4u + 4u * words;
    }
    uint32_t st = tsl_cp_wait(cp, detail);
    if (st != TSL_CMD_ERR_OK || bad == TSL_ERR_NONE)
        return st;
    tsl_cp_tc_reset(cp);   /* as after the fetch unit's error */
    *detail = bad;
    return TSL_CMD_ERR_DEVICE;
}

/* ------------------------------------------------------------------------------------ rings */

/* Each ring a power of two of aligned entries inside HBM (32-bit sums: size <= HBM / entry bytes
 * first), and no more entries pending than it holds; r->reg from the layout. The layout's checks
 * run when it differs from the one last found valid (cp->ring): they sit between the doorbell and
 * the first read of the command. */
static inline __attribute__((always_inline)) int ring_valid(tsl_cp_t *cp, ring_t *r)
{
    uint32_t hb = cp->hbm_bytes, cs = r->cmd_size, ps = r->cpl_size;
    if (!cs || ((r->cmd_base ^ cp->ring[0]) | (cs ^ cp->ring[1]) | (r->cpl_base ^ cp->ring[2]) | (ps ^ cp->ring[3]))) {
        if (!is_pow2(cs) || !is_pow2(ps) || (r->cmd_base % CMD_BYTES) || (r->cpl_base % CPL_BYTES) ||
            cs > hb / CMD_BYTES || ps > hb / CPL_BYTES || r->cmd_base > hb - cs * CMD_BYTES ||
            r->cpl_base > hb - ps * CPL_BYTES)
            return 0;
        cp->ring[0] = r->cmd_base;
        cp->ring[1] = cs;
        cp->ring[2] = r->cpl_base;
        cp->ring[3] = ps;
    }
    uint32_t cmd_end = r->cmd_base + cs * CMD_BYTES, cpl_end = r->cpl_base + ps * CPL_BYTES;
    r->reg.hi = cmd_end > cpl_end ? cmd_end : cpl_end;
    r->reg.above = hb - r->reg.hi;
    return r->head - r->tail <= cs && r->cpl_head - r->cpl_tail <= ps;
}

static uint32_t execute(tsl_cp_t *cp, const ring_t *r, const uint32_t *w, uint32_t op, uint32_t *detail)
{
    *detail = 0;
    if (op == TSL_CMD_OP_KERNEL) {   /* what a kernel pushes: anywhere above the rings */
        set_window(cp, r->reg.hi, cp->hbm_bytes);
        return tsl_cp_exec_kernel(cp, w, detail);
    }
    if (op == TSL_CMD_OP_PROGRAM)
        return run_program(cp, w, detail);
    return TSL_CMD_ERR_OK; /* NOP, FENCE: commands run one at a time, every earlier one has completed */
}

int tsl_cp_poll(tsl_cp_t *cp)
{
    if (!cp || !cp->hal)
        return TSL_CP_EINVAL;
    ring_t r;
    r.head = hif_rd(cp, TSL_HOSTIF_CMD_HEAD_OFFSET);
    r.tail = hif_rd(cp, TSL_HOSTIF_CMD_TAIL_OFFSET);
    if (r.head == r.tail)
        return 0;
    r.cmd_base = hif_rd(cp, TSL_HOSTIF_CMD_BASE_OFFSET);
    r.cmd_size = hif_rd(cp, TSL_HOSTIF_CMD_SIZE_OFFSET);
    r.cpl_base = hif_rd(cp, TSL_HOSTIF_CPL_BASE_OFFSET);
    r.cpl_size = hif_rd(cp, TSL_HOSTIF_CPL_SIZE_OFFSET);
    r.cpl_head = hif_rd(cp, TSL_HOSTIF_CPL_HEAD_OFFSET);
    r.cpl_tail = hif_rd(cp, TSL_HOSTIF_CPL_TAIL_OFFSET);
    if (!ring_valid(cp, &r))
        return TSL_CP_ERING;
    int done = 0;
    while (r.tail != r.head) {
        if (r.cpl_head - r.cpl_tail >= r.cpl_size) {
            r.cpl_tail = hif_rd(cp, TSL_HOSTIF_CPL_TAIL_OFFSET);
            if (r.cpl_head - r.cpl_tail >= r.cpl_size)
                break; /* full: never overwrite an unread completion */
        }
        const tsl_cp_hal_t *h = cp->hal;
        uint32_t t0 = now32(cp);
        uint32_t w[TSL_PARAM_CMD_WORDS], cpl[TSL_PARAM_CPL_WORDS] = {0, 0, 0, 0}, detail;
        uint32_t at = r.cmd_base + (r.tail & (r.cmd_size - 1u)) * CMD_BYTES;
        hbm_rd(cp, at, w, 1);   /* each word of the entry read once: the checks see what runs */
        uint32_t op = w[TSL_CMD_OPCODE_WORD] & TSL_CMD_OPCODE_MASK;
        int ahead = op == TSL_CMD_OP_PROGRAM && has_fetch(cp);
        if (ahead) {
            fetch_held(cp, at, w);
            hbm_rd_mask(cp, at, w, UNUSED(AHEAD_WORDS) | W(TAG));
        } else {
            hbm_rd(cp, at + 4u, &w[1], TSL_PARAM_CMD_WORDS - 1u);
        }
        tsl_cp_verdict_t v = validate(cp, &r, w);
        uint32_t st = v.status;
        detail = v.detail;
        if (ahead && st == TSL_CMD_ERR_OK)
            tc_wr(cp, TSL_TC_PROG_HOLD_OFFSET, 0);   /* run it */
        else if (ahead)
            tsl_cp_tc_reset(cp);   /* stop its read-ahead */
        if (st == TSL_CMD_ERR_OK)
            st = execute(cp, &r, w, op, &detail);
        tsl_cpl_t done_cpl = {.tag = w[TSL_CMD_TAG_WORD], .status = st, .opcode = op,
                              .cycles = now32(cp) - t0, .detail = detail};
        tsl_cpl_encode(&done_cpl, cpl);
        hbm_wr(cp, r.cpl_base + (r.cpl_head & (r.cpl_size - 1u)) * CPL_BYTES, cpl, TSL_PARAM_CPL_WORDS);
        r.cpl_head++;
        r.tail++;
        hif_wr(cp, TSL_HOSTIF_CPL_HEAD_OFFSET, r.cpl_head);
        hif_wr(cp, TSL_HOSTIF_CMD_TAIL_OFFSET, r.tail);
        hif_wr(cp, TSL_HOSTIF_HOST_IRQ_SET_OFFSET, 1u << TSL_HOSTIF_HOST_IRQ_STATUS_CPL_SHIFT);
        cp->commands++;
        done++;
        if (h->kick)
            h->kick(h->ctx);   /* between commands, outside the CYCLES of either */
        if (r.tail == r.head)
            r.head = hif_rd(cp, TSL_HOSTIF_CMD_HEAD_OFFSET);
        if (r.head - r.tail > r.cmd_size)
            return TSL_CP_ERING;
    }
    return done;
}
