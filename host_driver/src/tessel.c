/* libtessel core: devices, the HBM allocator, the command and completion rings, submit/wait,
 * statistics, status strings and checking mode. Transport-independent (tessel_int.h).
 *
 * HBM layout: [0, TESSEL_HBM_RESERVED) is reserved for the rings — the command ring (RING_CMD_SIZE
 * entries of 64 bytes) at 0 and the completion ring (RING_CPL_SIZE entries of 16 bytes) at
 * RING_CPL_BASE; tessel_read/tessel_write refuse it (TESSEL_ERANGE) and the allocator starts
 * after it. The allocator is first fit over a sorted array of blocks.
 *
 * Commands: TAG = the low 32 bits of the handle, a per-device sequence number starting at 1.
 * Completions arrive in command order; every completion read is matched to the oldest
 * outstanding command (a different TAG is TESSEL_EIO) and kept until that command is waited for,
 * so commands may be waited for in any order. tessel_submit refuses a command whose operands
 * reach into the reserved region (TESSEL_ERANGE) and records each operand's extent (cmd_spans);
 * until its completion is read, tessel_alloc hands out nothing that overlaps them (the in-flight
 * rule of tessel.h). An orphaned command (tessel_gemm gave up waiting) is dropped when its
 * completion arrives. Limits: TESSEL_TIMEOUT_AUTO and the watchdog derive from cmd_cycles.
 *
 * Checking mode: a shadow model device with the same configuration receives every tessel_write
 * and tessel_submit; tessel_wait waits for both, compares the completions (TAG, STATUS, OPCODE,
 * DETAIL; not CYCLES, which the model counts differently) and, for a successful GEMM, ELTWISE,
 * COPY or FILL, the command's output rows (C_ADDR, M rows of the C row bytes, stride LDC). The
 * first difference gives TESSEL_EMISMATCH and a tessel_last_error() line; the shadow's copy is
 * then overwritten with the device's bytes so that later commands are compared on equal inputs.
 *
 * Program cache: the compiled program of each command (compile_cached; docs/host-api.md, "Program
 * cache"), host bytes only: every submission still writes its program to a block of its own.
 */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tessel_int.h"
#include "tsl_att.h"
#include "tsl_cp_compile.h"
#include "tsl_cmd_out.h"
#include "tsl_hw.h"
#include "tsl_insn.h"
#include "tsl_win.h"

#define RING_CMD_BASE 0x0u
#define RING_CMD_SIZE 64u
#define RING_CPL_BASE 0x1000u
#define RING_CPL_SIZE 64u
_Static_assert(RING_CMD_BASE + RING_CMD_SIZE * 64u <= RING_CPL_BASE &&
               RING_CPL_BASE + RING_CPL_SIZE * 16u <= TESSEL_HBM_RESERVED, "the rings fit the reserved HBM");
/* Limits (docs/reliability.md, "Limits"). A command's cycle estimate is a generous upper bound of
 * what the firmware needs for it (see cmd_cycles); TESSEL_TIMEOUT_AUTO waits for the estimates of
 * the command and of every command queued before it, plus AUTO_FLOOR_CYCLES; the watchdog is
 * armed with the largest estimate of a queued command, at least WDT_MIN_CYCLES. */
#define AUTO_FLOOR_CYCLES 1000000u
#define AUTO_BASE_MS 10000u       /* wall-clock limits: this much plus the cycles at cycles_per_ms */
#define WDT_MIN_CYCLES 1000000u
#define MAX_SPANS 5   /* the operands (at most four) and the program */

typedef struct {
    uint64_t lo, hi;              /* HBM bytes [lo, hi) */
    const char *name;             /* the operand: "A", "B", "C", "bias", "V" (ATTENTION), ... */
} span_t;

typedef struct {
    tessel_addr_t addr;
    uint64_t bytes;
} block_t;

typedef struct {
    uint64_t seq;
    tessel_handle_t shadow;       /* the shadow device's handle (checking mode) */
    int done;
    int orphan;                   /* nobody will wait: drop the slot when the completion arrives */
    int cancelled;                /* tessel_reset dropped it before it completed (done is set) */
    int out_gone;                 /* checking mode: before the wait, its output was freed or a later
                                     command wrote there (outputs_gone); not compared */
    uint64_t est;                 /* cycle estimate (cmd_cycles) */
    span_t span[MAX_SPANS];       /* the memory the command may touch, until it completes */
    unsigned nspan;
    tessel_cmd_t cmd;             /* as submitted (a compiled command's opcode is in its completion); a
                                     graph's first command */
    tessel_cmd_t *rest;           /* a graph's other commands (malloc'd, freed with the slot) */
    size_t nrest;
    tessel_addr_t prog;           /* the block holding its device program, freed at completion; 0: none */
    tessel_completion_t cpl;
} slot_t;

/* A program cache entry: a command's words (and whether it follows another command of a graph's
 * program: compiled behind a barrier), the compiler's verdict on it, and when it passed, the
 * program the compiler appended for it. `used` 0: empty. */
typedef struct {
    uint64_t hash;                /* pc_hash of the key */
    uint32_t key[TSL_PARAM_CMD_WORDS];
    uint32_t behind;              /* 1: compiled behind another command (p->words was not 0) */
    uint32_t status, detail;      /* the verdict (CMD_ERR) and its detail */
    uint32_t *w, words;           /* the program's words (status OK; malloc'd) */
    uint64_t used;                /* the tick of its last use, for LRU eviction; 0: empty */
} pc_entry_t;

struct tessel_dev {
    tessel_transport_t t;
    const char *backend;
    uint64_t hbm_bytes;
    block_t *blocks;              /* sorted by address */
    size_t nblocks, cap_blocks;
    slot_t *slots;                /* outstanding commands, in submission order */
    size_t nslots, cap_slots;
    uint64_t next_seq;
    uint32_t cmd_head, cmd_tail, cpl_tail;
    uint32_t wdt;                 /* WDT_TIMEOUT as last written by the library (0: not armed) */
    int no_wdt;                   /* the device refused a write of WDT_TIMEOUT: it has none */
    tessel_stats_t stats;
    tessel_dev_t *shadow;         /* checking mode */
    tsl_cp_t cc;                  /* the command compiler, for this device's configuration */
    pc_entry_t pc[TESSEL_PROGRAM_CACHE_ENTRIES];   /* its program cache */
    uint64_t pc_tick;             /* the last entry use */
    char last_error[256];
};

/* ------------------------------------------------------------------------------------ misc */

TESSEL_API const char *tessel_strerror(int status)
{
    switch (status) {
    case TESSEL_OK: return "success";
    case TESSEL_EINVAL: return "invalid argument";
    case TESSEL_ENOMEM: return "out of memory";
    case TESSEL_ETIMEOUT: return "timed out";
    case TESSEL_EDEVICE: return "the device reported an error";
    case TESSEL_ENODEV: return "no such device or the device could not be started";
    case TESSEL_ERANGE: return "address or size outside the device";
    case TESSEL_EIO: return "transport failure";
    case TESSEL_EMISMATCH: return "checking mode: the device differs from the model";
    default: return "unknown status";
    }
}

int tessel_fail(tessel_dev_t *d, int status, const char *fmt, ...)
{
    if (d) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(d->last_error, sizeof d->last_error, fmt, ap);
        va_end(ap);
    }
    return status;
}

/* why the last tessel_open or tessel_f32_arg of this thread failed */
static _Thread_local char open_error[256];

TESSEL_API const char *tessel_last_error(tessel_dev_t *dev)
{
    return dev ? dev->last_error : open_error;
}

/* ------------------------------------------------------------------- float arguments */

const char *tessel_f32_why(double v, tessel_arg_t kind, int zero_none)
{
    if (!isfinite(v))
        return "it is not a finite number";
    if (kind == TESSEL_ARG_EPS && v < 0)
        return "an eps must be >= 0";
    if (v == 0)
        return kind == TESSEL_ARG_EPS || zero_none ? NULL
               : "libtessel reads a scale of 0 as not given (no scale; attention: 1/sqrt(d))";
    float f = (float)v;   /* IEEE: rounds to nearest, to 0 or to an infinity out of range */
    if (f == 0.0f)
        return "it rounds to 0 in float32, the device's type (|v| below about 1.4e-45)";
    if (fabsf(f) < FLT_MIN)
        return "it is subnormal in float32, which the device reads as 0 (|v| below about 1.2e-38)";
    if (isinf(f))
        return "it overflows float32, the device's type (|v| above about 3.4e38)";
    return NULL;
}

TESSEL_API tessel_status_t tessel_f32_arg(const char *name, double v, tessel_arg_t kind, float *out)
{
    const char *why = kind != TESSEL_ARG_SCALE && kind != TESSEL_ARG_EPS ? "unknown kind of argument"
                      : !out ? "NULL output" : tessel_f32_why(v, kind, 0);
    if (why) {
        snprintf(open_error, sizeof open_error, "%s %g is refused: %s", name ? name : "the argument", v, why);
        return TESSEL_EINVAL;
    }
    open_error[0] = 0;
    *out = (float)v;
    return TESSEL_OK;
}

int tessel_f32_check(tessel_dev_t *dev, const char *what, const char *name, float v, tessel_arg_t kind)
{
    const char *why = tessel_f32_why(v, kind, 1);
    return why ? tessel_fail(dev, TESSEL_EINVAL, "%s: %s %g is refused: %s", what, name, (double)v, why) : 0;
}

/* ------------------------------------------------------------------- the environment */

/* s as a decimal number in 1..UINT32_MAX - 1 (digits only); 0 when it is not one. */
static uint32_t env_ms(const char *s)
{
    uint64_t v = 0;
    if (!*s)
        return 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return 0;
        v = v * 10u + (uint64_t)(*s - '0');
        if (v >= TESSEL_TIMEOUT_AUTO)
            return 0;
    }
    return (uint32_t)v;
}

const char *tessel_env_timeout(const char *var, uint32_t *ms)
{
    static const char why[] = "is not a decimal number of milliseconds in 1..4294967294 (unset it for the "
                              "default limit)";
    const char *e = getenv(var);
    *ms = TESSEL_TIMEOUT_AUTO;
    if (!e || !*e)
        return NULL;
    *ms = env_ms(e);
    if (!*ms) {
        *ms = TESSEL_TIMEOUT_AUTO;
        return why;
    }
    return NULL;
}

/* tessel_open's environment: $TESSEL_TIMEOUT_MS and $TESSEL_CHECK ("1": *check). 0, or TESSEL_EINVAL
 * with the reason in open_error. */
static int open_env(int *check)
{
    uint32_t ms;
    const char *tmo = getenv("TESSEL_TIMEOUT_MS"), *why = tessel_env_timeout("TESSEL_TIMEOUT_MS", &ms);
    if (why) {
        snprintf(open_error, sizeof open_error, "$TESSEL_TIMEOUT_MS '%.60s' %s", tmo, why);
        return TESSEL_EINVAL;
    }
    const char *chk = getenv("TESSEL_CHECK");
    if (chk && *chk && strcmp(chk, "0") && strcmp(chk, "1")) {
        snprintf(open_error, sizeof open_error, "$TESSEL_CHECK '%.60s' is refused: 1 mirrors every command on a "
                 "model device, 0 or unset does not", chk);
        return TESSEL_EINVAL;
    }
    *check = chk && !strcmp(chk, "1");
    return 0;
}

static const char *op_name(uint32_t op)
{
    const char *s = tsl_cmd_op_name(op);
    return s ? s : "?";
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* A transport failure: TESSEL_EIO (TESSEL_EDEVICE when the device failed until a reset), with the
 * transport's own cause appended when it gives one. */
__attribute__((format(printf, 2, 3))) static int io_fail(tessel_dev_t *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->last_error, sizeof d->last_error, fmt, ap);
    va_end(ap);
    const char *why = d->t.error ? d->t.error(d->t.ctx) : "";
    size_t n = strlen(d->last_error);
    if (*why)
        snprintf(d->last_error + n, sizeof d->last_error - n, ": %s", why);
    return d->t.failed && d->t.failed(d->t.ctx) ? TESSEL_EDEVICE : TESSEL_EIO;
}

static int hif_rd(tessel_dev_t *d, uint32_t off, uint32_t *v)
{
    int r = d->t.hostif_read(d->t.ctx, off, v);
    return r ? io_fail(d, "%s: HOSTIF read of 0x%03x failed", d->backend, off) : 0;
}

static int hif_wr(tessel_dev_t *d, uint32_t off, uint32_t v)
{
    int r = d->t.hostif_write(d->t.ctx, off, v);
    return r ? io_fail(d, "%s: HOSTIF write of 0x%03x failed", d->backend, off) : 0;
}

/* ---------------------------------------------------------------------- the program cache */

/* FNV-1a (64 bits) over the key's bytes, low byte of each word first, the flag `behind` last. */
static uint64_t pc_hash(const uint32_t *w, uint32_t behind)
{
    uint64_t h = 0xcbf29ce484222325ull;   /* the FNV offset basis */
    for (unsigned i = 0; i <= TSL_PARAM_CMD_WORDS; i++) {
        uint32_t v = i < TSL_PARAM_CMD_WORDS ? w[i] : behind;
        for (unsigned b = 0; b < 4u; b++) {
            h ^= (v >> (8u * b)) & 0xFFu;
            h *= 0x100000001b3ull;        /* the FNV prime */
        }
    }
    return h;
}

/* Forget every entry (tessel_reset, tessel_close). */
static void pc_flush(tessel_dev_t *d)
{
    for (unsigned i = 0; i < TESSEL_PROGRAM_CACHE_ENTRIES; i++)
        free(d->pc[i].w);
    memset(d->pc, 0, sizeof d->pc);
}

/* tsl_cp_compile(&d->cc, TESSEL_HBM_RESERVED, w, p, detail) through the device's program cache.
 * What the compiler appends for a command depends only on the device's configuration (fixed while
 * it is open), the command's words, and whether p already holds a program (then a barrier comes
 * first); it closes its last record, so nothing already in p changes and nothing after it joins
 * (tests/fw checks that a graph's program is its commands' programs end to end). The key is those
 * words, all TSL_PARAM_CMD_WORDS of them, and that flag; a hit compares the whole key, never the hash
 * alone. A refused command is cached as its verdict. The least recently used entry makes room. */
static uint32_t compile_cached(tessel_dev_t *d, const uint32_t *w, tsl_cp_prog_t *p, uint32_t *detail)
{
    uint32_t behind = p->words != 0;
    uint64_t h = pc_hash(w, behind);
    pc_entry_t *e = NULL, *victim = &d->pc[0];
    for (unsigned i = 0; i < TESSEL_PROGRAM_CACHE_ENTRIES && !e; i++) {
        pc_entry_t *c = &d->pc[i];
        if (c->used && c->hash == h && c->behind == behind && !memcmp(c->key, w, sizeof c->key))
            e = c;
        else if (c->used < victim->used)
            victim = c;
    }
    if (e) {
        d->stats.program_cache_hits++;
        e->used = ++d->pc_tick;
        *detail = e->detail;
        if (e->status == TSL_CMD_ERR_OK)
            (void)tsl_cp_prog_append(p, e->w, e->words);   /* p->oom tells */
        return e->status;
    }
    d->stats.program_cache_misses++;
    uint32_t start = p->words, st = tsl_cp_compile(&d->cc, TESSEL_HBM_RESERVED, w, p, detail);
    uint32_t n = st == TSL_CMD_ERR_OK && !p->oom ? p->words - start : 0u;
    uint32_t *copy = n ? malloc(4u * (size_t)n) : NULL;
    if (p->oom || (n && !copy))   /* not cached */
        return st;
    if (n)
        memcpy(copy, p->w + start, 4u * (size_t)n);
    free(victim->w);
    *victim = (pc_entry_t){.hash = h, .behind = behind, .status = st, .detail = *detail, .w = copy, .words = n,
                           .used = ++d->pc_tick};
    memcpy(victim->key, w, sizeof victim->key);
    return st;
}

/* ------------------------------------------------------------------------------------ open */

static int arm_watchdog(tessel_dev_t *d, uint64_t need);

static tessel_status_t ring_setup(tessel_dev_t *d)
{
    uint32_t id = 0, fw = 0;
    int r;
    if ((r = hif_rd(d, TSL_HOSTIF_ID_OFFSET, &id)) || (r = hif_rd(d, TSL_HOSTIF_FW_STATUS_OFFSET, &fw)))
        return r;
    if (id != TSL_ID_VALUE)
        return tessel_fail(d, TESSEL_ENODEV, "%s: HOSTIF ID 0x%08x, expected 0x%08x", d->backend, id, TSL_ID_VALUE);
    if (d->hbm_bytes <= TESSEL_HBM_RESERVED)
        return tessel_fail(d, TESSEL_ENODEV, "%s: HBM of %llu bytes cannot hold the rings and data", d->backend,
                    (unsigned long long)d->hbm_bytes);
    if (((fw >> TSL_HOSTIF_FW_STATUS_STATE_SHIFT) & TSL_HOSTIF_FW_STATUS_STATE_MASK) != 1u)
        return tessel_fail(d, TESSEL_ENODEV, "%s: firmware not ready (FW_STATUS 0x%08x)", d->backend, fw);
    /* A device that outlives its host (a board) keeps its ring indices, and its firmware polls while
     * this runs: resetting them to 0 one by one would show it a stale or invalid ring. Adopt them. */
    uint32_t head, tail, cpl_head;
    if ((r = hif_rd(d, TSL_HOSTIF_CMD_HEAD_OFFSET, &head)) || (r = hif_rd(d, TSL_HOSTIF_CMD_TAIL_OFFSET, &tail)) ||
        (r = hif_rd(d, TSL_HOSTIF_CPL_HEAD_OFFSET, &cpl_head)))
        return r;
    if (head != tail)
        return tessel_fail(d, TESSEL_ENODEV, "%s: commands still in flight (CMD_HEAD %u, CMD_TAIL %u)", d->backend, head,
                    tail);
    const uint32_t regs[][2] = {
        {TSL_HOSTIF_HOST_IRQ_ENABLE_OFFSET, 0},
        {TSL_HOSTIF_CMD_BASE_OFFSET, RING_CMD_BASE}, {TSL_HOSTIF_CMD_SIZE_OFFSET, RING_CMD_SIZE},
        {TSL_HOSTIF_CPL_BASE_OFFSET, RING_CPL_BASE}, {TSL_HOSTIF_CPL_SIZE_OFFSET, RING_CPL_SIZE},
        {TSL_HOSTIF_CPL_TAIL_OFFSET, cpl_head},
        {TSL_HOSTIF_DB_PENDING_OFFSET, 1},
        {TSL_HOSTIF_HOST_IRQ_STATUS_OFFSET, 3},
        {TSL_HOSTIF_HOST_IRQ_ENABLE_OFFSET, (1u << TSL_HOSTIF_HOST_IRQ_STATUS_CPL_SHIFT) |
                                                (1u << TSL_HOSTIF_HOST_IRQ_STATUS_FAULT_SHIFT)},
    };
    for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++)
        if ((r = hif_wr(d, regs[i][0], regs[i][1])))
            return r;
    d->cmd_head = d->cmd_tail = head;
    d->cpl_tail = cpl_head;
    d->wdt = 0;
    return arm_watchdog(d, WDT_MIN_CYCLES);
}

tessel_status_t tessel_open_transport(tessel_dev_t **dev, tessel_transport_t *t, uint32_t flags)
{
    tessel_dev_t *d = calloc(1, sizeof *d);
    if (!d) {
        t->close(t->ctx);
        return TESSEL_ENOMEM;
    }
    d->t = *t;
    d->backend = t->name;
    d->hbm_bytes = t->hbm_bytes;
    d->next_seq = 1;
    int r = tsl_cp_compiler_init(&d->cc, t->n, t->vmem_bytes, t->acc_bytes, (uint32_t)t->hbm_bytes, t->features)
                ? tessel_fail(d, TESSEL_ENODEV, "%s: no command fits this tensor core (N %u, VMEM %u, ACC %u bytes)",
                              d->backend, t->n, t->vmem_bytes, t->acc_bytes)
                : ring_setup(d);
    if (!r && (flags & TESSEL_OPEN_CHECK)) {
        tessel_transport_t st;
        tessel_model_cfg_t cfg = {.n = t->n, .vmem_bytes = t->vmem_bytes, .acc_bytes = t->acc_bytes,
                                  .features = t->features, .hbm_bytes = t->hbm_bytes};
        r = tessel_transport_model_open(&st, &cfg);
        if (!r)
            r = tessel_open_transport(&d->shadow, &st, 0);
    }
    if (r) {
        snprintf(open_error, sizeof open_error, "%s", d->last_error);
        tessel_close(d);
        return r;
    }
    *dev = d;
    return TESSEL_OK;
}

TESSEL_API tessel_status_t tessel_open(tessel_dev_t **dev, const char *backend, const tessel_open_opts_t *opts)
{
    snprintf(open_error, sizeof open_error, "%s",
             !dev || !backend ? "NULL device pointer or backend" : "unknown open flags");
    if (!dev)
        return TESSEL_EINVAL;
    *dev = NULL;
    if (!backend || (opts && (opts->flags & ~TESSEL_OPEN_CHECK)))
        return TESSEL_EINVAL;
    open_error[0] = 0;
    uint32_t flags = opts ? opts->flags : 0;
    int model = !strcmp(backend, "model"), sim = !strcmp(backend, "sim"), uart = !strcmp(backend, "uart");
    /* an option the backend would ignore: refused, not dropped */
    static const char *const names[] = {"firmware", "trace", "timeline", "port"};
    const char *given[] = {opts ? opts->firmware : NULL, opts ? opts->trace : NULL, opts ? opts->timeline : NULL,
                           opts ? opts->port : NULL};
    const int takes[][4] = {{0, 0, 0, 0}, {1, 1, 1, 0}, {1, 0, 0, 1}};   /* model, sim, uart */
    for (int i = 0; i < 4 && (model || sim || uart); i++)
        if (given[i] && !takes[model ? 0 : sim ? 1 : 2][i]) {
            snprintf(open_error, sizeof open_error, "%s: the %s option is refused: %s", backend, names[i],
                     i == 3 ? "only the uart backend has a port"
                     : model ? "the model backend runs no firmware and writes no trace or timeline"
                             : "the uart backend writes no trace or timeline (sim only)");
            return TESSEL_EINVAL;
        }
    int env_check;
    if (open_env(&env_check))
        return TESSEL_EINVAL;
    tessel_transport_t t;
    int r;
    memset(&t, 0, sizeof t);
    if (model) {
        r = tessel_transport_model_open(&t, NULL);
    } else if (sim) {
#ifdef TESSEL_NO_SIM
        r = TESSEL_ENODEV;
        snprintf(t.err, sizeof t.err, "this libtessel was built without the sim backend");
#else
        r = tessel_transport_sim_open(&t, opts);
#endif
        if (env_check)
            flags |= TESSEL_OPEN_CHECK;
    } else if (uart) {
        r = tessel_transport_uart_open(&t, opts);
    } else {
        r = TESSEL_ENODEV;
        snprintf(t.err, sizeof t.err, "unknown backend '%s' (model, sim or uart)", backend);
    }
    if (r) {
        snprintf(open_error, sizeof open_error, "%s", t.err);
        return r;
    }
    return tessel_open_transport(dev, &t, flags);
}

TESSEL_API void tessel_close(tessel_dev_t *dev)
{
    if (!dev)
        return;
    tessel_close(dev->shadow);
    if (dev->t.close)
        dev->t.close(dev->t.ctx);
    pc_flush(dev);
    free(dev->blocks);
    free(dev->slots);
    free(dev);
}

TESSEL_API tessel_dev_t *tessel_shadow(tessel_dev_t *dev)
{
    return dev ? dev->shadow : NULL;
}

TESSEL_API tessel_status_t tessel_info(tessel_dev_t *dev, tessel_info_t *out)
{
    if (!dev || !out)
        return TESSEL_EINVAL;
    memset(out, 0, sizeof *out);
    out->backend = dev->backend;
    out->n = dev->t.n;
    out->vmem_bytes = dev->t.vmem_bytes;
    out->acc_bytes = dev->t.acc_bytes;
    out->hbm_bytes = dev->hbm_bytes;
    out->features = dev->t.features;
    out->hbm_bytes_per_cycle = dev->t.hbm_bytes_per_cycle;
    return TESSEL_OK;
}

/* ------------------------------------------------------------- what a command touches */

/* addr + (rows - 1) * ld + row, saturated (rows >= 1; addr < 2^32, row < 2^35). */
static uint64_t extent_end(uint64_t addr, uint64_t rows, uint64_t ld, uint64_t row)
{
    uint64_t r1 = rows - 1u;
    if (r1 && ld > (UINT64_MAX - addr - row) / r1)
        return UINT64_MAX;
    return addr + r1 * ld + row;
}

/* The HBM the command may read or write, one span per operand, from the fields the firmware
 * reads for its opcode (firmware/cp/tsl_cp.c, validate). Commands the firmware refuses for their
 * shape (a zero size) touch nothing. Returns the number of spans. */
static unsigned cmd_spans(const uint32_t *w, span_t *sp)
{
    uint64_t m = w[TSL_CMD_M_WORD], n = w[TSL_CMD_N_WORD], k = w[TSL_CMD_K_WORD];
    uint64_t esa = tsl_dtype_bytes(TSL_GET(w, TSL_CMD_A_DTYPE)), esb = tsl_dtype_bytes(TSL_GET(w, TSL_CMD_B_DTYPE));
    uint32_t f = TSL_GET(w, TSL_CMD_FLAGS), vop = TSL_GET(w, TSL_CMD_VPU_OP);
    unsigned ns = 0;
#define SPAN(nm, addr, rows, ld, row)                                                   \
    do {                                                                                \
        if ((rows) != 0 && (row) != 0) {                                              \
            sp[ns].lo = (addr);                                                         \
            sp[ns].hi = extent_end(sp[ns].lo, (rows), (ld), (row));                     \
            sp[ns++].name = (nm);                                                       \
        }                                                                               \
    } while (0)
    const uint64_t a = w[TSL_CMD_A_ADDR_WORD], b = w[TSL_CMD_B_ADDR_WORD], c = w[TSL_CMD_C_ADDR_WORD];
    const uint64_t lda = w[TSL_CMD_LDA_WORD], ldb = w[TSL_CMD_LDB_WORD];
    switch (TSL_GET(w, TSL_CMD_OPCODE)) {
    case TSL_CMD_OP_GEMM:
        SPAN("A", a, m, lda, k * esa);
        SPAN("B", b, k, ldb, n * esb);
        if ((f >> TSL_CMD_FLAG_BIAS) & 1u)
            SPAN("bias", w[TSL_CMD_BIAS_ADDR_WORD], 1u, 0u, 4u * n);
        break;
    case TSL_CMD_OP_ELTWISE: {
        int binary = !tsl_ops_has(TSL_OPS_UNARY, TSL_UNIT_VPU, vop);
        SPAN("A", a, m, lda, n * esa);
        if (binary && !((f >> TSL_CMD_FLAG_B_IMM) & 1u)) {
            if ((f >> TSL_CMD_FLAG_B_BCAST) & 1u)
                SPAN("B", b, 1u, 0u, n * esb);
            else
                SPAN("B", b, m, ldb, n * esb);
        }
        break;
    }
    case TSL_CMD_OP_ROWWISE:
        SPAN("A", a, m, lda, n * esa);
        if ((f >> TSL_CMD_FLAG_MASK) & 1u)
            SPAN("B", b, m, ldb, n * esb);
        else if (vop == TSL_ROW_OP_LAYERNORM || vop == TSL_ROW_OP_RMSNORM)
            SPAN("gamma", b, 1u, 0u, 4u * n);
        if ((f >> TSL_CMD_FLAG_BIAS) & 1u)
            SPAN("beta", w[TSL_CMD_BIAS_ADDR_WORD], 1u, 0u, 4u * n);
        break;
    case TSL_CMD_OP_COPY:
        SPAN("A", a, m, lda, n);
        break;
    case TSL_CMD_OP_KERNEL: SPAN("image", a, 1u, 0u, n); break;   /* what the kernel touches is unknown */
    case TSL_CMD_OP_PROGRAM: {   /* the records, and the window its DMAs are kept in */
        uint64_t wb = w[TSL_PROG_WIN_BASE_WORD], wl = w[TSL_PROG_WIN_LIMIT_WORD];
        SPAN("program", a, 1u, 0u, n);
        SPAN("window", wb, 1u, 0u, wl > wb ? wl - wb : 0u);
        break;
    }
    case TSL_CMD_OP_ATTENTION: {   /* BATCH heads of rows each, or side by side (HEAD_COLUMNS) */
        tsl_att_t g = tsl_att_decode(w);
        int cols = tsl_att_head_columns(f);
        tsl_att_span_t q = tsl_att_q(&g, cols, (uint32_t)lda), kr = tsl_att_k(&g, f, (uint32_t)ldb),
                       v = tsl_att_v(&g, cols);
        SPAN("A", a, q.rows, lda, q.row_bytes);
        SPAN("B", b, kr.rows, ldb, kr.row_bytes);
        SPAN("V", g.v_addr, v.rows, g.ldv, v.row_bytes);
        break;
    }
    case TSL_CMD_OP_CONV2D:
    case TSL_CMD_OP_POOL2D: {
        tsl_win_t g = tsl_win_decode(w);
        SPAN("A", a, 1u, 0u, tsl_win_in_bytes(&g, esa));
        if (TSL_GET(w, TSL_CMD_OPCODE) == TSL_CMD_OP_CONV2D)
            SPAN("B", b, 1u, 0u, tsl_win_w_bytes(&g, esb));
        if ((f >> TSL_CMD_FLAG_BIAS) & 1u)
            SPAN("bias", w[TSL_CMD_BIAS_ADDR_WORD], 1u, 0u, 4u * (uint64_t)g.cout);
        break;
    }
    default: break;
    }
    uint64_t orows, old, orow = tsl_cmd_out(w, &orows, &old);   /* C, the rows the command writes */
    SPAN("C", c, orows, old, orow);
#undef SPAN
    return ns;
}

/* cmd_cycles of a ROWWISE: per tile about 8 instructions (LOADs, STOREs, VPU chains) per block of N
 * columns, 1 000 cycles each, with at most twice the rows' share of VMEM in tiles, plus one (a long
 * row gets a tile of its own); and the VPU's 128 cycles per row and block. */
static uint64_t rowwise_cycles(const tessel_dev_t *d, const uint32_t *w)
{
    uint64_t nn = d->t.n ? d->t.n : 1u, m = w[TSL_CMD_M_WORD], v = (w[TSL_CMD_N_WORD] + nn - 1) / nn;
    uint64_t es = tsl_dtype_bytes(TSL_GET(w, TSL_CMD_A_DTYPE)) + tsl_dtype_bytes(TSL_GET(w, TSL_CMD_B_DTYPE)) +
                  tsl_dtype_bytes(TSL_GET(w, TSL_CMD_C_DTYPE));
    uint64_t vmem = d->t.vmem_bytes ? d->t.vmem_bytes : 1u, rows_bytes = m * v * nn * (2u * es + 8u);
    return 128u * m * v + (2u * ((rows_bytes + vmem - 1u) / vmem) + 1u) * (8000u * v + 10000u);
}

/* A generous upper bound of the device cycles the firmware needs for the command (measured
 * worst cases are 8x and more below it, docs/reliability.md): per command 100 000, per N x N x N
 * GEMM tile 32 N, per HBM byte touched 4, per output row 1 000 (ATTENTION: per query row and block
 * of N keys; ROWWISE: 128 per row and block, and per tile 8 000 per block, the tiles at most twice
 * the rows' share of VMEM; KERNEL: its BUDGET, or TESSEL_KERNEL_BUDGET_DEFAULT for 0, and 64 per image
 * byte, which the control core copies through the HBM window). A command the firmware refuses (an
 * operand outside HBM) costs only the fixed part. */
static uint64_t cmd_cycles(const tessel_dev_t *d, const uint32_t *w)
{
    span_t sp[MAX_SPANS];
    unsigned ns = cmd_spans(w, sp);
    uint64_t est = 100000u, bytes = 0, nn = d->t.n ? d->t.n : 1u;
    for (unsigned i = 0; i < ns; i++) {
        if (sp[i].hi > d->hbm_bytes)
            return est;
        bytes += sp[i].hi - sp[i].lo;
    }
    uint64_t m = w[TSL_CMD_M_WORD], n = w[TSL_CMD_N_WORD], k = w[TSL_CMD_K_WORD];
    uint32_t op = TSL_GET(w, TSL_CMD_OPCODE);
    tsl_win_t g = tsl_win_decode(w);
    tsl_att_t at = tsl_att_decode(w);
    uint64_t pixels = (uint64_t)g.batch * tsl_win_oh(&g) * tsl_win_ow(&g), taps = (uint64_t)g.kh * g.kw;
    uint64_t qb = (at.lq + nn - 1) / nn, kb = (at.lk + nn - 1) / nn;
    if (op == TSL_CMD_OP_GEMM)
        est += 32u * nn * ((m + nn - 1) / nn) * ((k + nn - 1) / nn) * ((n + nn - 1) / nn);
    else if (op == TSL_CMD_OP_ATTENTION)   /* per head two GEMMs, and the softmax per row and block of keys */
        est += (uint64_t)at.batch * (32u * nn * qb * kb * ((at.d + nn - 1) / nn + (at.dv + nn - 1) / nn) +
                                     1000u * at.lq * kb);
    else if (op == TSL_CMD_OP_CONV2D && g.groups)   /* a GEMM per group, and a LOAD per tap and output row */
        est += g.groups * (32u * nn * ((pixels + nn - 1) / nn) * ((taps * g.c / g.groups + nn - 1) / nn) *
                           ((g.cout / g.groups + nn - 1) / nn) + 1000u * taps * g.batch * tsl_win_oh(&g));
    else if (op == TSL_CMD_OP_POOL2D)               /* a LOAD per tap and output row, a VPU row per tap */
        est += taps * (1000u * g.batch * tsl_win_oh(&g) + 4u * pixels * ((g.c + nn - 1) / nn));
    else if (op == TSL_CMD_OP_ROWWISE)
        est += rowwise_cycles(d, w);
    else if (op == TSL_CMD_OP_KERNEL)
        return est + 64u * n + (w[TSL_KERN_BUDGET_WORD] ? w[TSL_KERN_BUDGET_WORD] : TESSEL_KERNEL_BUDGET_DEFAULT);
    else if (ns)
        est += 1000u * m;
    return est + 4u * bytes;
}

/* 1 when [a, a + bytes) overlaps memory a queued command may still touch, on the device or, in
 * checking mode, on its shadow (which runs a command only when it is compared, so it can lag
 * behind). *end: the end of the first such span (where the next candidate starts). */
static int in_flight(const tessel_dev_t *d, uint64_t a, uint64_t bytes, uint64_t *end)
{
    for (size_t i = 0; i < d->nslots; i++) {
        const slot_t *s = &d->slots[i];
        if (s->done)
            continue;
        for (unsigned j = 0; j < s->nspan; j++)
            if (s->span[j].lo < a + bytes && s->span[j].hi > a) {
                *end = s->span[j].hi;
                return 1;
            }
    }
    return d->shadow ? in_flight(d->shadow, a, bytes, end) : 0;
}

/* ------------------------------------------------------------------------------- memory */

/* Room for one more block; 0 or TESSEL_ENOMEM. */
static int block_room(tessel_dev_t *dev)
{
    if (dev->nblocks < dev->cap_blocks)
        return 0;
    size_t cap = dev->cap_blocks ? 2 * dev->cap_blocks : 16;
    block_t *b = realloc(dev->blocks, cap * sizeof *b);
    if (!b)
        return TESSEL_ENOMEM;
    dev->blocks = b;
    dev->cap_blocks = cap;
    return 0;
}

TESSEL_API tessel_status_t tessel_alloc(tessel_dev_t *dev, size_t bytes, size_t align, tessel_addr_t *out)
{
    if (!dev || !out)
        return TESSEL_EINVAL;
    if (align == 0)
        align = 64;
    if (bytes == 0 || (align & (align - 1)) || align > dev->hbm_bytes)
        return tessel_fail(dev, TESSEL_EINVAL, "tessel_alloc: bytes %zu, align %zu", bytes, align);
    if (bytes > dev->hbm_bytes - TESSEL_HBM_RESERVED)
        return tessel_fail(dev, TESSEL_ENOMEM, "tessel_alloc: %zu bytes exceed HBM", bytes);
    if (block_room(dev))
        return TESSEL_ENOMEM;
    uint64_t lo = TESSEL_HBM_RESERVED, busy_end;
    for (size_t i = 0; i <= dev->nblocks; i++) {
        uint64_t hi = i < dev->nblocks ? dev->blocks[i].addr : dev->hbm_bytes;
        uint64_t a = (lo + align - 1) & ~(uint64_t)(align - 1);
        /* the in-flight rule: skip memory a queued command may still touch */
        while (a <= hi && hi - a >= bytes && in_flight(dev, a, bytes, &busy_end))
            a = busy_end > hi ? hi + 1 : (busy_end + align - 1) & ~(uint64_t)(align - 1);
        if (a <= hi && hi - a >= bytes) {
            memmove(dev->blocks + i + 1, dev->blocks + i, (dev->nblocks - i) * sizeof *dev->blocks);
            dev->blocks[i].addr = a;
            dev->blocks[i].bytes = bytes;
            dev->nblocks++;
            *out = a;
            return TESSEL_OK;
        }
        if (i < dev->nblocks)
            lo = dev->blocks[i].addr + dev->blocks[i].bytes;
    }
    return tessel_fail(dev, TESSEL_ENOMEM, "tessel_alloc: no free range of %zu bytes (align %zu)", bytes, align);
}

tessel_status_t tessel_alloc_at(tessel_dev_t *dev, tessel_addr_t addr, size_t bytes)
{
    uint64_t busy_end;
    size_t i = 0;
    while (i < dev->nblocks && dev->blocks[i].addr < addr)
        i++;
    if (!bytes || addr < TESSEL_HBM_RESERVED || addr > dev->hbm_bytes || dev->hbm_bytes - addr < bytes ||
        (i > 0 && dev->blocks[i - 1].addr + dev->blocks[i - 1].bytes > addr) ||
        (i < dev->nblocks && dev->blocks[i].addr < addr + bytes) || in_flight(dev, addr, bytes, &busy_end) ||
        block_room(dev))
        return TESSEL_ENOMEM;
    memmove(dev->blocks + i + 1, dev->blocks + i, (dev->nblocks - i) * sizeof *dev->blocks);
    dev->blocks[i].addr = addr;
    dev->blocks[i].bytes = bytes;
    dev->nblocks++;
    return TESSEL_OK;
}

/* Checking mode: the commands not yet waited for whose output C overlaps [lo, hi) are not compared
 * at their wait, when those rows may hold other data: a freed block used again, or the output of a
 * later command that writes there (a GEMM that adds C in place). */
static void outputs_gone(tessel_dev_t *dev, uint64_t lo, uint64_t hi)
{
    for (size_t i = 0; i < dev->nslots; i++)
        for (unsigned j = 0; j < dev->slots[i].nspan; j++)
            if (!strcmp(dev->slots[i].span[j].name, "C") && dev->slots[i].span[j].lo < hi && dev->slots[i].span[j].hi > lo)
                dev->slots[i].out_gone = 1;
}

TESSEL_API tessel_status_t tessel_free(tessel_dev_t *dev, tessel_addr_t addr)
{
    if (!dev)
        return TESSEL_EINVAL;
    size_t lo = 0, hi = dev->nblocks;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (dev->blocks[mid].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == dev->nblocks || dev->blocks[lo].addr != addr)
        return tessel_fail(dev, TESSEL_EINVAL, "tessel_free: 0x%llx is not an allocated block", (unsigned long long)addr);
    outputs_gone(dev, addr, addr + dev->blocks[lo].bytes);
    memmove(dev->blocks + lo, dev->blocks + lo + 1, (dev->nblocks - lo - 1) * sizeof *dev->blocks);
    dev->nblocks--;
    return TESSEL_OK;
}

static int range_ok(tessel_dev_t *d, tessel_addr_t a, size_t bytes)
{
    return a >= TESSEL_HBM_RESERVED && a <= d->hbm_bytes && bytes <= d->hbm_bytes - a;
}

TESSEL_API tessel_status_t tessel_write(tessel_dev_t *dev, tessel_addr_t dst, const void *src, size_t bytes)
{
    if (!dev || !src || !bytes)
        return TESSEL_EINVAL;
    if (!range_ok(dev, dst, bytes))
        return tessel_fail(dev, TESSEL_ERANGE, "tessel_write: [0x%llx, +%zu) outside the usable HBM", (unsigned long long)dst,
                    bytes);
    if (dev->t.hbm_write(dev->t.ctx, dst, src, bytes))
        return io_fail(dev, "%s: HBM write failed", dev->backend);
    return dev->shadow ? tessel_write(dev->shadow, dst, src, bytes) : TESSEL_OK;
}

TESSEL_API tessel_status_t tessel_read(tessel_dev_t *dev, void *dst, tessel_addr_t src, size_t bytes)
{
    if (!dev || !dst || !bytes)
        return TESSEL_EINVAL;
    if (!range_ok(dev, src, bytes))
        return tessel_fail(dev, TESSEL_ERANGE, "tessel_read: [0x%llx, +%zu) outside the usable HBM", (unsigned long long)src,
                    bytes);
    if (dev->t.hbm_read(dev->t.ctx, src, dst, bytes))
        return io_fail(dev, "%s: HBM read failed", dev->backend);
    return TESSEL_OK;
}

/* ------------------------------------------------------------------------------- commands */

static void account(tessel_dev_t *d, const tessel_cmd_t *c, const tessel_completion_t *cpl)
{
    const uint32_t *w = c->w;
    d->stats.commands++;
    d->stats.cycles += cpl->cycles;
    if (cpl->status != 0)
        return;
    uint64_t m = TSL_GET(w, TSL_CMD_M), n = TSL_GET(w, TSL_CMD_N), k = TSL_GET(w, TSL_CMD_K), nn = d->t.n;
    uint64_t orows, old, orow = tsl_cmd_out(w, &orows, &old);
    uint32_t flags = TSL_GET(w, TSL_CMD_FLAGS);
    tsl_win_t g = tsl_win_decode(w);
    uint64_t sa = tsl_dtype_bytes(TSL_GET(w, TSL_CMD_A_DTYPE)), sb = tsl_dtype_bytes(TSL_GET(w, TSL_CMD_B_DTYPE));
    switch (TSL_GET(w, TSL_CMD_OPCODE)) {
    case TSL_CMD_OP_GEMM:
        /* what the firmware issues: M rows per K-block per column block, N*N MACs per row */
        d->stats.macs += m * ((k + nn - 1) / nn * nn) * ((n + nn - 1) / nn * nn);
        d->stats.hbm_bytes += m * k * sa + k * n * sb + orows * orow +
                              ((flags >> TSL_CMD_FLAG_BIAS) & 1u ? 4u * n : 0u) +
                              (tsl_gemm_post_has(TSL_GEMM_POST_OLD_C, TSL_GET(w, TSL_CMD_VPU_OP)) ? orows * orow : 0u);   /* the old C */
        break;
    case TSL_CMD_OP_ELTWISE: {
        uint64_t b = 0;
        uint32_t op = TSL_GET(w, TSL_CMD_VPU_OP);
        int unary = tsl_ops_has(TSL_OPS_UNARY, TSL_UNIT_VPU, op);
        if (!unary && !((flags >> TSL_CMD_FLAG_B_IMM) & 1u))
            b = ((flags >> TSL_CMD_FLAG_B_BCAST) & 1u ? 1u : m) * n * sb;
        d->stats.hbm_bytes += m * n * sa + b + orows * orow;
        break;
    }
    case TSL_CMD_OP_CONV2D: {
        d->stats.macs += tsl_win_macs(&g, TSL_GET(w, TSL_CMD_A_DTYPE), (uint32_t)nn);
        d->stats.hbm_bytes += tsl_win_in_bytes(&g, (uint32_t)sa) + tsl_win_w_bytes(&g, (uint32_t)sb) + orow +
                              ((flags >> TSL_CMD_FLAG_BIAS) & 1u ? 4u * (uint64_t)g.cout : 0u);
        break;
    }
    case TSL_CMD_OP_POOL2D: d->stats.hbm_bytes += tsl_win_in_bytes(&g, (uint32_t)sa) + orow; break;
    case TSL_CMD_OP_ATTENTION: {   /* per head: Q Kt over D and LK padded, P V over LK and DV padded */
        tsl_att_t at = tsl_att_decode(w);
        uint64_t dp = (at.d + nn - 1) / nn * nn, lkp = (at.lk + nn - 1) / nn * nn, dvp = (at.dv + nn - 1) / nn * nn;
        d->stats.macs += (uint64_t)at.batch * at.lq * lkp * (dp + dvp);
        d->stats.hbm_bytes += (uint64_t)at.batch * 2u * ((uint64_t)at.lq * at.d + (uint64_t)at.d * at.lk +
                                                         (uint64_t)at.lk * at.dv) + orows * orow;
        break;
    }
    case TSL_CMD_OP_ROWWISE: {
        uint32_t op = TSL_GET(w, TSL_CMD_VPU_OP), norm = op == TSL_ROW_OP_LAYERNORM || op == TSL_ROW_OP_RMSNORM;
        uint64_t b = (flags >> TSL_CMD_FLAG_MASK) & 1u ? m * n * sb : norm ? 4u * n : 0u;
        d->stats.hbm_bytes += m * n * sa + b + orows * orow + ((flags >> TSL_CMD_FLAG_BIAS) & 1u ? 4u * n : 0u) +
                              ((flags >> TSL_CMD_FLAG_ADD_C) & 1u ? orows * orow : 0u);   /* the old C */
        break;
    }
    case TSL_CMD_OP_COPY: d->stats.hbm_bytes += 2u * m * n; break;
    case TSL_CMD_OP_FILL: d->stats.hbm_bytes += m * n; break;
    default: break;
    }
}

static slot_t *find_slot(tessel_dev_t *d, uint64_t seq)
{
    for (size_t i = 0; i < d->nslots; i++)
        if (d->slots[i].seq == seq)
            return &d->slots[i];
    return NULL;
}

static void drop_slot(tessel_dev_t *d, slot_t *s)
{
    free(s->rest);
    memmove(s, s + 1, (size_t)(d->slots + d->nslots - (s + 1)) * sizeof *s);
    d->nslots--;
}

/* The block of a slot's device program is free again once the program cannot run any more. */
static void release_prog(tessel_dev_t *d, slot_t *s)
{
    if (s->prog)
        (void)tessel_free(d, s->prog);
    s->prog = 0;
}

/* Read every completion the device has posted; match each to the oldest outstanding command. */
static int reap(tessel_dev_t *d)
{
    uint32_t head;
    int r = hif_rd(d, TSL_HOSTIF_CPL_HEAD_OFFSET, &head);
    if (r)
        return r;
    if (head - d->cpl_tail > RING_CPL_SIZE)
        return tessel_fail(d, TESSEL_EIO, "%s: CPL_HEAD %u is more than a ring ahead of CPL_TAIL %u", d->backend, head,
                    d->cpl_tail);
    while (d->cpl_tail != head) {
        uint32_t e[4];
        if (d->t.hbm_read(d->t.ctx, RING_CPL_BASE + (d->cpl_tail % RING_CPL_SIZE) * 16u, e, sizeof e))
            return io_fail(d, "%s: HBM read of the completion ring failed", d->backend);
        slot_t *s = NULL;
        for (size_t i = 0; i < d->nslots && !s; i++)
            if (!d->slots[i].done)
                s = &d->slots[i];
        if (!s || e[TSL_CPL_TAG_WORD] != (uint32_t)s->seq)
            return tessel_fail(d, TESSEL_EIO, "%s: completion with TAG %u, expected %s%llu", d->backend, e[TSL_CPL_TAG_WORD],
                        s ? "" : "none: ", s ? (unsigned long long)(uint32_t)s->seq : 0ull);
        s->cpl.tag = e[TSL_CPL_TAG_WORD];
        s->cpl.status = (int16_t)TSL_GET(e, TSL_CPL_STATUS);
        s->cpl.opcode = tsl_cp_compiled(TSL_GET(s->cmd.w, TSL_CMD_OPCODE)) ? TSL_GET(s->cmd.w, TSL_CMD_OPCODE)
                                                                            : TSL_GET(e, TSL_CPL_OPCODE);
        s->cpl.cycles = TSL_GET(e, TSL_CPL_CYCLES);
        s->cpl.detail = TSL_GET(e, TSL_CPL_DETAIL);
        s->done = 1;
        release_prog(d, s);
        d->stats.submissions++;
        for (size_t i = 0; i <= s->nrest; i++) {   /* a graph's cycles once */
            tessel_completion_t c = s->cpl;
            c.cycles = i ? 0u : c.cycles;
            account(d, i ? &s->rest[i - 1] : &s->cmd, &c);
        }
        if (s->orphan)
            drop_slot(d, s);
        d->cpl_tail++;
        if ((r = hif_wr(d, TSL_HOSTIF_CPL_TAIL_OFFSET, d->cpl_tail)))
            return r;
    }
    return TESSEL_OK;
}

/* One round of "let the device work": clear the host IRQ, collect completions, check the
 * firmware, and if nothing arrived, let the transport run. *progress: completions were read. */
static int service(tessel_dev_t *d, int *progress)
{
    uint32_t before = d->cpl_tail, fw;
    int r;
    if ((r = hif_wr(d, TSL_HOSTIF_HOST_IRQ_STATUS_OFFSET, 1u << TSL_HOSTIF_HOST_IRQ_STATUS_CPL_SHIFT)) ||
        (r = reap(d)))
        return r;
    *progress = d->cpl_tail != before;
    if (*progress)
        return TESSEL_OK;
    if ((r = hif_rd(d, TSL_HOSTIF_FW_STATUS_OFFSET, &fw)))
        return r;
    if (((fw >> TSL_HOSTIF_FW_STATUS_STATE_SHIFT) & TSL_HOSTIF_FW_STATUS_STATE_MASK) == 2u)
        return tessel_fail(d, TESSEL_EIO, "%s: the firmware halted (FW_STATUS 0x%08x, fault code %u)", d->backend, fw,
                    (fw >> TSL_HOSTIF_FW_STATUS_CODE_SHIFT) & TSL_HOSTIF_FW_STATUS_CODE_MASK);
    if (d->t.wait(d->t.ctx))
        return io_fail(d, "%s: the device stopped", d->backend);
    return TESSEL_OK;
}

/* TESSEL_TIMEOUT_AUTO for the queued commands up to and including `upto` (all when NULL): the
 * sum of their cycle estimates plus AUTO_FLOOR_CYCLES. */
static uint64_t auto_cycles(const tessel_dev_t *d, const slot_t *upto)
{
    uint64_t c = AUTO_FLOOR_CYCLES;
    for (size_t i = 0; i < d->nslots; i++) {
        if (!d->slots[i].done)
            c += d->slots[i].est;
        if (&d->slots[i] == upto)
            break;
    }
    return c;
}

/* A deadline: in device cycles when the transport counts them, else in wall-clock ms. */
typedef struct {
    int cycles;                   /* counted in device cycles */
    uint64_t start, limit;
} deadline_t;

static deadline_t deadline_auto(const tessel_dev_t *d, uint64_t cycles)
{
    deadline_t t;
    t.cycles = d->t.cycles != NULL;
    t.start = t.cycles ? d->t.cycles(d->t.ctx) : now_ms();
    t.limit = t.cycles ? cycles : AUTO_BASE_MS + cycles / (d->t.cycles_per_ms ? d->t.cycles_per_ms : 1u);
    return t;
}

static deadline_t deadline_ms(uint64_t ms)
{
    deadline_t t = {0, now_ms(), ms};
    return t;
}

static int expired(const tessel_dev_t *d, const deadline_t *t)
{
    return (t->cycles ? d->t.cycles(d->t.ctx) : now_ms()) - t->start >= t->limit;
}

static const char *deadline_text(const deadline_t *t, char *buf, size_t len)
{
    snprintf(buf, len, "%llu %s", (unsigned long long)t->limit, t->cycles ? "device cycles" : "ms");
    return buf;
}

/* The watchdog covers the longest queued command: raise WDT_TIMEOUT to `need` cycles (at least
 * WDT_MIN_CYCLES) when it is lower; with nothing queued, set it to exactly that. A write also
 * reloads the counter. Devices without a watchdog ignore the register (the model) or refuse the
 * write (the uart device model, host-driven boards): the library then stops writing it. */
static int arm_watchdog(tessel_dev_t *d, uint64_t need)
{
    if (d->no_wdt)
        return TESSEL_OK;
    int idle = 1;
    for (size_t i = 0; i < d->nslots; i++)
        idle &= d->slots[i].done;
    need = need < WDT_MIN_CYCLES ? WDT_MIN_CYCLES : need > UINT32_MAX ? UINT32_MAX : need;
    if (need == d->wdt || (!idle && need < d->wdt))
        return TESSEL_OK;
    if (d->t.hostif_write(d->t.ctx, TSL_HOSTIF_WDT_TIMEOUT_OFFSET, (uint32_t)need))
        d->no_wdt = 1;            /* a link failure shows at the next access */
    else
        d->wdt = (uint32_t)need;
    return TESSEL_OK;
}

/* Queue the commands cmds[0..n) (one, or a graph's; their spans sp[0..ns)) as the ring entry
 * `entry`, or, with entry NULL, one command as already completed with the compiler's verdict
 * `refused`; on the shadow too, which gets the same entry (the same program, at the same address).
 * `prog`: the block holding the program (owned by the slot from here on, also on failure). */
static int enqueue(tessel_dev_t *dev, const tessel_cmd_t *cmds, size_t n, uint32_t *entry,
                   const tessel_completion_t *refused, const span_t *sp, unsigned ns, tessel_addr_t prog,
                   tessel_handle_t *out)
{
    int r, progress;
    const tessel_cmd_t *cmd = &cmds[0];
    tessel_cmd_t *rest = n > 1 ? malloc((n - 1) * sizeof *rest) : NULL;
    if (n > 1 && !rest) {
        r = TESSEL_ENOMEM;
        goto fail;
    }
    if (rest)
        memcpy(rest, cmds + 1, (n - 1) * sizeof *rest);
    deadline_t dl = deadline_auto(dev, auto_cycles(dev, NULL));
    char lim[48];
    while (entry && dev->cmd_head - dev->cmd_tail >= RING_CMD_SIZE) {   /* ring full (as far as we know) */
        if ((r = hif_rd(dev, TSL_HOSTIF_CMD_TAIL_OFFSET, &dev->cmd_tail)))
            goto fail;
        if (dev->cmd_head - dev->cmd_tail < RING_CMD_SIZE)
            break;
        if (expired(dev, &dl)) {
            r = tessel_fail(dev, TESSEL_ETIMEOUT, "tessel_submit: the command ring stayed full for %s",
                            deadline_text(&dl, lim, sizeof lim));
            goto fail;
        }
        if ((r = service(dev, &progress)))
            goto fail;
    }
    for (unsigned i = 0; dev->shadow && i < ns; i++)
        if (!strcmp(sp[i].name, "C"))
            outputs_gone(dev, sp[i].lo, sp[i].hi);
    if (dev->nslots == dev->cap_slots) {
        size_t cap = dev->cap_slots ? 2 * dev->cap_slots : 64;
        slot_t *sl = realloc(dev->slots, cap * sizeof *sl);
        if (!sl) {
            r = TESSEL_ENOMEM;
            goto fail;
        }
        dev->slots = sl;
        dev->cap_slots = cap;
    }
    slot_t *s = &dev->slots[dev->nslots];
    memset(s, 0, sizeof *s);
    s->seq = dev->next_seq;
    s->cmd = *cmd;
    s->cmd.w[TSL_CMD_TAG_WORD] = (uint32_t)s->seq;
    memcpy(s->span, sp, ns * sizeof *sp);
    s->nspan = ns;
    for (size_t i = 0; i < n; i++)
        s->est += cmd_cycles(dev, cmds[i].w);
    s->rest = rest;
    s->nrest = n - 1;
    rest = NULL;
    if (entry) {
        entry[TSL_CMD_TAG_WORD] = (uint32_t)s->seq;
        if ((r = arm_watchdog(dev, s->est)) ||
            (dev->t.hbm_write(dev->t.ctx, RING_CMD_BASE + (dev->cmd_head % RING_CMD_SIZE) * 64u, entry, 64) &&
             (r = io_fail(dev, "%s: HBM write of the command ring failed", dev->backend)))) {
            free(s->rest);
            goto fail;
        }
        if ((r = hif_wr(dev, TSL_HOSTIF_CMD_HEAD_OFFSET, dev->cmd_head + 1))) {
            free(s->rest);
            goto fail;
        }
        dev->cmd_head++;
        s->prog = prog;
    } else {
        s->done = 1;
        s->cpl = *refused;
        s->cpl.tag = (uint32_t)s->seq;
        account(dev, &s->cmd, &s->cpl);
        if (prog)
            (void)tessel_free(dev, prog);
    }
    dev->next_seq++;
    dev->nslots++;
    if (dev->shadow && (r = enqueue(dev->shadow, cmds, n, entry, refused, sp, ns, 0, &s->shadow)))
        return tessel_fail(dev, r, "checking mode: the model refused the command: %s", tessel_last_error(dev->shadow));
    *out = s->seq;
    return TESSEL_OK;
fail:
    free(rest);
    if (prog)
        (void)tessel_free(dev, prog);
    return r;
}

/* The window of a compiled command's program: the hull of its operands (there is at least one). */
static void window(const span_t *sp, unsigned ns, uint32_t *entry)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    for (unsigned i = 0; i < ns; i++) {
        lo = sp[i].lo < lo ? sp[i].lo : lo;
        hi = sp[i].hi > hi ? sp[i].hi : hi;
    }
    entry[TSL_PROG_WIN_BASE_WORD] = (uint32_t)lo;
    entry[TSL_PROG_WIN_LIMIT_WORD] = (uint32_t)hi;
}

TESSEL_API tessel_status_t tessel_submit(tessel_dev_t *dev, const tessel_cmd_t *cmd, tessel_handle_t *out)
{
    if (!dev || !cmd || !out)
        return TESSEL_EINVAL;
    span_t sp[MAX_SPANS];
    unsigned ns = cmd_spans(cmd->w, sp);
    uint32_t op = TSL_GET(cmd->w, TSL_CMD_OPCODE);
    for (unsigned i = 0; i < ns; i++)
        if (sp[i].lo < TESSEL_HBM_RESERVED)
            return tessel_fail(dev, TESSEL_ERANGE,
                        "tessel_submit: %s %s [0x%llx, 0x%llx) reaches into the reserved HBM [0, 0x%x) of the "
                        "command and completion rings", op_name(op), sp[i].name,
                        (unsigned long long)sp[i].lo, (unsigned long long)sp[i].hi, TESSEL_HBM_RESERVED);
    uint32_t entry[TSL_PARAM_CMD_WORDS];
    memcpy(entry, cmd->w, sizeof entry);
    if (!tsl_cp_compiled(op))   /* NOP, FENCE, KERNEL, PROGRAM and unknown opcodes: the firmware's */
        return enqueue(dev, cmd, 1, entry, NULL, sp, ns, 0, out);
    /* compile it: a refused command completes here, with the firmware's status and detail */
    tsl_cp_prog_t p = {0};
    tessel_completion_t verdict = {.opcode = op};
    uint32_t detail = 0, st = compile_cached(dev, cmd->w, &p, &detail);
    verdict.status = (int32_t)st;
    verdict.detail = detail;
    tessel_addr_t prog = 0;
    uint32_t bytes = 4u * p.words;
    int r = TESSEL_OK;
    if (p.oom)
        r = tessel_fail(dev, TESSEL_ENOMEM, "tessel_submit: %s: no host memory for its device program", op_name(op));
    else if (st == TSL_CMD_ERR_OK && (r = tessel_alloc(dev, bytes, 64, &prog)))
        r = tessel_fail(dev, r, "tessel_submit: %s: no HBM for its device program of %u bytes", op_name(op), bytes);
    else if (st == TSL_CMD_ERR_OK && (r = tessel_write(dev, prog, p.w, bytes)))
        (void)tessel_free(dev, prog);
    tsl_cp_prog_free(&p);
    if (r)
        return r;
    if (st != TSL_CMD_ERR_OK)
        return enqueue(dev, cmd, 1, NULL, &verdict, sp, ns, 0, out);
    memset(entry + 2, 0, sizeof entry - 8u);
    TSL_SET(entry, TSL_CMD_OPCODE, TSL_CMD_OP_PROGRAM);
    TSL_SET(entry, TSL_CMD_FLAGS, 0);
    entry[TSL_CMD_N_WORD] = bytes;
    entry[TSL_CMD_A_ADDR_WORD] = (uint32_t)prog;
    window(sp, ns, entry);
    sp[ns] = (span_t){prog, prog + bytes, "program"};
    return enqueue(dev, cmd, 1, entry, NULL, sp, ns + 1u, prog, out);
}

/* ------------------------------------------------------------------------------- graphs */

struct tessel_graph {
    tessel_dev_t *dev;
    tsl_cp_prog_t prog;           /* the commands' program, compiled as they are added */
    tessel_cmd_t *cmds;           /* the commands, for checking mode, the statistics and the limits */
    size_t n, cap;
    span_t all, out;              /* the hulls of every operand and of the outputs */
};

TESSEL_API tessel_status_t tessel_graph_create(tessel_dev_t *dev, tessel_graph_t **out)
{
    if (!dev || !out)
        return TESSEL_EINVAL;
    tessel_graph_t *g = calloc(1, sizeof *g);
    if (!g)
        return TESSEL_ENOMEM;
    g->dev = dev;
    g->all = (span_t){UINT64_MAX, 0, "graph"};
    g->out = (span_t){UINT64_MAX, 0, "C"};
    *out = g;
    return TESSEL_OK;
}

TESSEL_API void tessel_graph_destroy(tessel_graph_t *g)
{
    if (!g)
        return;
    tsl_cp_prog_free(&g->prog);
    free(g->cmds);
    free(g);
}

TESSEL_API tessel_status_t tessel_graph_add(tessel_graph_t *g, const tessel_cmd_t *cmd)
{
    if (!g || !cmd)
        return TESSEL_EINVAL;
    tessel_dev_t *dev = g->dev;
    uint32_t op = TSL_GET(cmd->w, TSL_CMD_OPCODE);
    if (!tsl_cp_compiled(op))
        return tessel_fail(dev, TESSEL_EINVAL, "tessel_graph_add: %s is not an operation a graph can hold", op_name(op));
    span_t sp[MAX_SPANS];
    unsigned ns = cmd_spans(cmd->w, sp);
    for (unsigned i = 0; i < ns; i++)
        if (sp[i].lo < TESSEL_HBM_RESERVED)
            return tessel_fail(dev, TESSEL_ERANGE, "tessel_graph_add: %s %s [0x%llx, 0x%llx) reaches into the reserved HBM "
                               "[0, 0x%x)", op_name(op), sp[i].name, (unsigned long long)sp[i].lo,
                               (unsigned long long)sp[i].hi, TESSEL_HBM_RESERVED);
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 16;
        tessel_cmd_t *c = realloc(g->cmds, cap * sizeof *c);
        if (!c)
            return TESSEL_ENOMEM;
        g->cmds = c;
        g->cap = cap;
    }
    uint32_t words = g->prog.words, detail = 0;
    uint32_t st = compile_cached(dev, cmd->w, &g->prog, &detail);
    if (g->prog.oom)
        return tessel_fail(dev, TESSEL_ENOMEM, "tessel_graph_add: %s: no host memory for the program", op_name(op));
    if (st != TSL_CMD_ERR_OK) {   /* the command is left out; the graph stays as it was */
        g->prog.words = words;
        return tessel_fail(dev, TESSEL_EDEVICE, "tessel_graph_add: %s: %s (status %u, detail %u)", op_name(op),
                           tsl_cmd_err_name(st), st, detail);
    }
    g->cmds[g->n++] = *cmd;
    for (unsigned i = 0; i < ns; i++) {
        span_t *h = strcmp(sp[i].name, "C") ? NULL : &g->out;
        for (int k = 0; k < 2; k++, h = &g->all)
            if (h) {
                h->lo = sp[i].lo < h->lo ? sp[i].lo : h->lo;
                h->hi = sp[i].hi > h->hi ? sp[i].hi : h->hi;
            }
    }
    return TESSEL_OK;
}

TESSEL_API tessel_status_t tessel_graph_submit(tessel_graph_t *g, tessel_handle_t *out)
{
    if (!g || !out)
        return TESSEL_EINVAL;
    tessel_dev_t *dev = g->dev;
    if (!g->n)
        return tessel_fail(dev, TESSEL_EINVAL, "tessel_graph_submit: the graph holds no command");
    uint32_t bytes = 4u * g->prog.words, entry[TSL_PARAM_CMD_WORDS] = {0};
    tessel_addr_t prog;
    int r;
    if ((r = tessel_alloc(dev, bytes, 64, &prog)))
        return tessel_fail(dev, r, "tessel_graph_submit: no HBM for the program of %u bytes", bytes);
    if ((r = tessel_write(dev, prog, g->prog.w, bytes))) {
        (void)tessel_free(dev, prog);
        return r;
    }
    TSL_SET(entry, TSL_CMD_OPCODE, TSL_CMD_OP_PROGRAM);
    entry[TSL_CMD_N_WORD] = bytes;
    entry[TSL_CMD_A_ADDR_WORD] = (uint32_t)prog;
    span_t sp[3] = {g->all, g->out, {prog, prog + bytes, "program"}};
    window(sp, 2, entry);
    return enqueue(dev, g->cmds, g->n, entry, NULL, sp, 3u, prog, out);
}

/* Checking mode: compare the output rows of the successful command w (of the ring entry with TAG
 * `tag`) on the device and on the shadow. */
static int check_out(tessel_dev_t *d, const uint32_t *w, uint32_t tag)
{
    uint32_t op = TSL_GET(w, TSL_CMD_OPCODE);
    uint64_t rows, ld, row = tsl_cmd_out(w, &rows, &ld);
    uint64_t base = TSL_GET(w, TSL_CMD_C_ADDR);
    if (row == 0)
        return TESSEL_OK;
    uint8_t *a = malloc(row), *b = malloc(row);
    if (!a || !b) {
        free(a);
        free(b);
        return TESSEL_ENOMEM;
    }
    int result = TESSEL_OK;
    for (uint64_t i = 0; i < rows && result == TESSEL_OK; i++) {
        uint64_t addr = base + i * ld;
        if (d->t.hbm_read(d->t.ctx, addr, a, row) || d->shadow->t.hbm_read(d->shadow->t.ctx, addr, b, row)) {
            result = tessel_fail(d, TESSEL_EIO, "checking mode: HBM read failed");
            break;
        }
        if (!memcmp(a, b, row))
            continue;
        uint64_t j = 0;
        while (a[j] == b[j])
            j++;
        result = tessel_fail(d, TESSEL_EMISMATCH,
                      "%s tag %u: HBM 0x%llx (C row %llu, byte %llu) differs: expected 0x%02x (model), received "
                      "0x%02x (%s)", op_name(op), tag, (unsigned long long)(addr + j), (unsigned long long)i,
                      (unsigned long long)j, b[j], a[j], d->backend);
        /* resynchronise the shadow with the device's output */
        for (uint64_t q = i; q < rows; q++) {
            uint64_t qa = base + q * ld;
            if (d->t.hbm_read(d->t.ctx, qa, a, row) || d->shadow->t.hbm_write(d->shadow->t.ctx, qa, a, row))
                break;
        }
    }
    free(a);
    free(b);
    return result;
}

/* Checking mode: compare the finished command `s` (with completion c) against the shadow: the
 * completion, and the output rows of each of its commands (a graph's too: the device and the model ran
 * the same program, so every output is the same at its end). */
static int check(tessel_dev_t *d, const slot_t *s, const tessel_completion_t *c)
{
    tessel_completion_t e;
    const uint32_t *w = s->cmd.w;
    uint32_t op = TSL_GET(w, TSL_CMD_OPCODE);
    int r = tessel_wait(d->shadow, s->shadow, TESSEL_TIMEOUT_AUTO, &e);
    if (r && r != TESSEL_EDEVICE)
        return tessel_fail(d, TESSEL_EMISMATCH, "%s tag %u: the model failed: %s", op_name(op), c->tag,
                    tessel_last_error(d->shadow));
    if (e.status != c->status || e.opcode != c->opcode || e.detail != c->detail || e.tag != c->tag)
        return tessel_fail(d, TESSEL_EMISMATCH,
                    "%s tag %u: completion status %d opcode %u detail %u, model: status %d opcode %u detail %u",
                    op_name(op), c->tag, c->status, c->opcode, c->detail, e.status, e.opcode, e.detail);
    if (c->status != 0 || s->out_gone)
        return TESSEL_OK;
    for (size_t i = 0; i <= s->nrest && !r; i++)
        r = check_out(d, i ? s->rest[i - 1].w : w, c->tag);
    return r;
}

TESSEL_API tessel_status_t tessel_wait(tessel_dev_t *dev, tessel_handle_t h, uint32_t timeout_ms,
                                       tessel_completion_t *out)
{
    if (!dev)
        return TESSEL_EINVAL;
    slot_t *s = find_slot(dev, h);
    if (!s)
        return tessel_fail(dev, TESSEL_EINVAL, "tessel_wait: handle %llu is not an outstanding command",
                    (unsigned long long)h);
    deadline_t dl = timeout_ms == TESSEL_TIMEOUT_AUTO ? deadline_auto(dev, auto_cycles(dev, s))
                                                      : deadline_ms(timeout_ms);
    int r, progress = 0;
    char lim[48];
    while (!s->done) {
        if ((r = service(dev, &progress)))
            return r;
        s = find_slot(dev, h);   /* reap() drops only orphans, never this slot */
        if (!s->done && !progress && expired(dev, &dl))
            return tessel_fail(dev, TESSEL_ETIMEOUT, "%s tag %u: no completion after %s%s",
                        op_name(TSL_GET(s->cmd.w, TSL_CMD_OPCODE)), (uint32_t)h, deadline_text(&dl, lim, sizeof lim),
                        timeout_ms == TESSEL_TIMEOUT_AUTO ? " (TESSEL_TIMEOUT_AUTO)" : "");
    }
    r = TESSEL_OK;
    if (s->cancelled) {
        r = tessel_fail(dev, TESSEL_EIO, "%s tag %u: cancelled by tessel_reset before it completed",
                        op_name(TSL_GET(s->cmd.w, TSL_CMD_OPCODE)), (uint32_t)h);
    } else {
        if (out)
            *out = s->cpl;
        if (dev->shadow)
            r = check(dev, s, &s->cpl);
        uint32_t st = (uint32_t)s->cpl.status & 0xFFFFu;
        if (!r && s->cpl.status != 0)
            r = tessel_fail(dev, TESSEL_EDEVICE, "%s tag %u: %s (status %d, detail %u)", op_name(s->cpl.opcode),
                            s->cpl.tag, st < TSL_CMD_ERR_LIMIT ? tsl_cmd_err_name(st) : "unknown error",
                            s->cpl.status, s->cpl.detail);
    }
    drop_slot(dev, s);
    return r;
}

/* Checking mode after tessel_reset: the shadow runs everything it was given, then forgets the
 * commands the device dropped, and takes the device's bytes wherever those may have written, so
 * that later commands are compared on equal inputs. */
static int shadow_after_reset(tessel_dev_t *d)
{
    tessel_dev_t *sh = d->shadow;
    int progress, r;
    for (size_t i = 0, spins = 0; i < sh->nslots; spins++) {
        if (sh->slots[i].done) {
            i++;
            continue;
        }
        if (spins > 100000)
            return tessel_fail(d, TESSEL_EMISMATCH, "checking mode: the model did not finish its commands at tessel_reset");
        if ((r = service(sh, &progress)))
            return tessel_fail(d, TESSEL_EMISMATCH, "checking mode: the model failed at tessel_reset: %s",
                        tessel_last_error(sh));
    }
    uint8_t buf[4096];
    for (size_t i = 0; i < d->nslots; i++) {
        slot_t *s = &d->slots[i];
        if (!s->cancelled)
            continue;
        for (unsigned j = 0; j < s->nspan; j++)
            for (uint64_t a = s->span[j].lo; a < s->span[j].hi && a < d->hbm_bytes; a += sizeof buf) {
                size_t len = (size_t)((s->span[j].hi < d->hbm_bytes ? s->span[j].hi : d->hbm_bytes) - a);
                len = len < sizeof buf ? len : sizeof buf;
                if (d->t.hbm_read(d->t.ctx, a, buf, len) || sh->t.hbm_write(sh->t.ctx, a, buf, len))
                    return io_fail(d, "checking mode: HBM copy to the model failed");
            }
        tessel_orphan(sh, s->shadow);
    }
    return TESSEL_OK;
}

TESSEL_API tessel_status_t tessel_reset(tessel_dev_t *dev)
{
    if (!dev)
        return TESSEL_EINVAL;
    /* A device that failed until a reset (sim: an RTL assertion) is restarted first; its completions
     * are lost, so what was queued is cancelled below, and its rings start again at 0. */
    pc_flush(dev);   /* the compiler starts again with nothing cached (its configuration is the device's) */
    int restarted = dev->t.failed && dev->t.failed(dev->t.ctx);
    if (restarted && !dev->t.restart)
        return io_fail(dev, "tessel_reset: %s: the device failed and cannot be restarted alone (a chip of a pod)",
                       dev->backend);
    if (restarted && dev->t.restart(dev->t.ctx))
        return io_fail(dev, "tessel_reset: %s: the restart failed", dev->backend);
    /* Hold the cores (a device without BOOT ignores or refuses it: RESET alone then stops them),
     * collect what has completed, drop what has not started, reset, release. */
    (void)dev->t.hostif_write(dev->t.ctx, TSL_HOSTIF_BOOT_OFFSET, 1u << TSL_HOSTIF_BOOT_HOLD_SHIFT);
    if (!restarted)
        (void)reap(dev);
    uint32_t tail = 0;
    int r2;
    if ((r2 = hif_rd(dev, TSL_HOSTIF_CMD_TAIL_OFFSET, &tail)) || (r2 = hif_wr(dev, TSL_HOSTIF_CMD_HEAD_OFFSET, tail)) ||
        (r2 = hif_wr(dev, TSL_HOSTIF_RESET_OFFSET, 1u)))
        return r2;
    (void)dev->t.hostif_write(dev->t.ctx, TSL_HOSTIF_BOOT_OFFSET, 0u);
    for (size_t i = 0; i < dev->nslots;) {   /* they will not run: their memory is free again */
        slot_t *s = &dev->slots[i];
        if (s->done) {
            i++;
            continue;
        }
        release_prog(dev, s);
        if (s->orphan) {
            drop_slot(dev, s);
        } else {
            s->done = s->cancelled = 1;
            i++;
        }
    }
    /* wait for the firmware to boot, then set the rings up again */
    deadline_t dl = deadline_auto(dev, AUTO_FLOOR_CYCLES);
    uint32_t fw = 0;
    char lim[48];
    for (;;) {
        if ((r2 = hif_rd(dev, TSL_HOSTIF_FW_STATUS_OFFSET, &fw)))
            return r2;
        if (((fw >> TSL_HOSTIF_FW_STATUS_STATE_SHIFT) & TSL_HOSTIF_FW_STATUS_STATE_MASK) != 0u)
            break;
        if (expired(dev, &dl))
            return tessel_fail(dev, TESSEL_ETIMEOUT, "tessel_reset: the firmware did not start within %s (FW_STATUS 0x%08x)",
                        deadline_text(&dl, lim, sizeof lim), fw);
        if (dev->t.wait(dev->t.ctx))
            return io_fail(dev, "%s: the device stopped", dev->backend);
    }
    if ((r2 = ring_setup(dev)))
        return r2;
    return dev->shadow ? shadow_after_reset(dev) : TESSEL_OK;
}

uint64_t tessel_device_cycles(tessel_dev_t *dev)
{
    return dev->t.cycles ? dev->t.cycles(dev->t.ctx) : 0;
}

int tessel_device_hostif_read(tessel_dev_t *dev, uint32_t offset, uint32_t *value)
{
    return hif_rd(dev, offset, value);
}

int tessel_device_hostif_write(tessel_dev_t *dev, uint32_t offset, uint32_t value)
{
    return hif_wr(dev, offset, value);
}

int tessel_device_link_fault(tessel_dev_t *dev, uint32_t port, int fault)
{
    return dev->t.link_fault ? dev->t.link_fault(dev->t.ctx, port, fault) : TESSEL_ENODEV;
}

void tessel_device_pod_hold(tessel_dev_t *dev, int on)
{
    if (dev->t.hold)
        dev->t.hold(dev->t.ctx, on);
}

void tessel_device_pod_align(tessel_dev_t *dev)
{
    if (dev->t.align)
        dev->t.align(dev->t.ctx);
}

void tessel_orphan(tessel_dev_t *dev, tessel_handle_t h)
{
    slot_t *s = dev ? find_slot(dev, h) : NULL;
    if (!s)
        return;
    if (dev->shadow)
        tessel_orphan(dev->shadow, s->shadow);
    if (s->done)
        drop_slot(dev, s);
    else
        s->orphan = 1;
}

TESSEL_API tessel_status_t tessel_stats(tessel_dev_t *dev, tessel_stats_t *out)
{
    if (!dev || !out)
        return TESSEL_EINVAL;
    *out = dev->stats;
    return TESSEL_OK;
}

TESSEL_API void tessel_stats_reset(tessel_dev_t *dev)
{
    if (dev)
        memset(&dev->stats, 0, sizeof dev->stats);
}
