/* libtessel: pods of chips joined by ICI, and their collectives (docs/pod.md). Each chip is a device
 * of its own; a collective compiles one device program per chip (firmware/cp/tsl_cp_coll.c), submits
 * them all as PROGRAM commands, and waits for them together, one thread per chip, since the chips
 * wait on each other. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessel_int.h"
#include "tsl_cp_compile.h"
#include "tslm.h"

struct tessel_pod {
    uint32_t chips, dx, dy, torus;
    tessel_dev_t **dev;
    tslm_pod_t *mp;               /* the model's pod, which carries the SENDs (NULL on the sim) */
    uint8_t *dead;                /* tessel_pod_kill */
    uint32_t *crc_errs;           /* each chip's HOSTIF ICI_CRC_ERRORS when last read (sim) */
    uint32_t *down;               /* each chip's HOSTIF ICI_LINK_DOWN when last read (sim) */
    tessel_pod_net_t net;         /* an Open MPI pod's, if net.net: dev[i] is NULL for another rank's chip */
    tessel_pod_stats_t stats;
    char last_error[512];
};

_Static_assert(TESSEL_ALL_REDUCE == (int)TSL_CP_COLL_ALL_REDUCE && TESSEL_REDUCE_SCATTER == (int)TSL_CP_COLL_REDUCE_SCATTER &&
                   TESSEL_ALL_GATHER == (int)TSL_CP_COLL_ALL_GATHER && TESSEL_BROADCAST == (int)TSL_CP_COLL_BROADCAST,
               "tessel_coll_t and TSL_CP_COLL_* differ");

__attribute__((format(printf, 3, 4))) static int pod_fail(tessel_pod_t *p, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->last_error, sizeof p->last_error, fmt, ap);
    va_end(ap);
    return status;
}

/* Add to the string in buf[n] (the pod's error, or one being built). */
__attribute__((format(printf, 3, 4))) static void append(char *buf, size_t n, const char *fmt, ...)
{
    size_t len = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, n - len, fmt, ap);
    va_end(ap);
}

static _Thread_local char open_error[256];

TESSEL_API const char *tessel_pod_last_error(const tessel_pod_t *pod)
{
    return pod ? pod->last_error : open_error;
}

void tessel_pod_open_error(const char *msg)
{
    snprintf(open_error, sizeof open_error, "%s", msg);
}

TESSEL_API void tessel_pod_close(tessel_pod_t *pod)
{
    if (!pod)
        return;
    for (uint32_t i = 0; pod->dev && i < pod->chips; i++)
        tessel_close(pod->dev[i]);
    tslm_pod_free(pod->mp);
    if (pod->net.net && pod->net.free)
        pod->net.free(pod->net.net);
    free(pod->dev);
    free(pod->dead);
    free(pod->crc_errs);
    free(pod->down);
    free(pod);
}

/* The first chip of this process (every chip, but with a net). */
static tessel_dev_t *first_dev(const tessel_pod_t *pod)
{
    for (uint32_t i = 0; i < pod->chips; i++)
        if (pod->dev[i])
            return pod->dev[i];
    return NULL;
}

/* Opening a pod's devices: chip i's into pod->dev[i] from t[i] (r[i]: its status, err[i] why). */
typedef struct {
    tessel_pod_t *pod;
    tessel_transport_t *t;
    char (*err)[160];
    int *r;
} opener_t;

static void open_chip(void *arg, uint32_t i)
{
    opener_t *o = arg;
    if (!(o->r[i] = tessel_open_transport(&o->pod->dev[i], &o->t[i], 0)))
        return;
    snprintf(o->err[i], sizeof o->err[i], "%s", o->t[i].err[0] ? o->t[i].err : tessel_last_error(NULL));
}

/* net, if not NULL, is the pod's once *taken is set (tessel_pod_close frees it). */
static tessel_status_t pod_open(tessel_pod_t **pod, const char *backend, uint32_t chips, tessel_topology_t topology,
                                uint32_t dx, uint32_t dy, const tessel_pod_net_t *net, int *taken);

TESSEL_API tessel_status_t tessel_pod_open(tessel_pod_t **pod, const char *backend, uint32_t chips,
                                           tessel_topology_t topology, uint32_t dx, uint32_t dy)
{
    int taken;
    return pod_open(pod, backend, chips, topology, dx, dy, NULL, &taken);
}

tessel_status_t tessel_pod_open_net(tessel_pod_t **pod, uint32_t chips, tessel_topology_t topology, uint32_t dx,
                                    uint32_t dy, const tessel_pod_net_t *net)
{
    int taken = 0;
    tessel_status_t r = pod_open(pod, "sim", chips, topology, dx, dy, net, &taken);
    if (!taken && net->free)
        net->free(net->net);
    return r;
}

static tessel_status_t pod_open(tessel_pod_t **pod, const char *backend, uint32_t chips, tessel_topology_t topology,
                                uint32_t dx, uint32_t dy, const tessel_pod_net_t *net, int *taken)
{
    *taken = 0;
    open_error[0] = 0;
    if (!pod || !backend) {
        snprintf(open_error, sizeof open_error, "tessel_pod_open: NULL pod pointer or backend");
        return TESSEL_EINVAL;
    }
    *pod = NULL;
    int sim = !strcmp(backend, "sim");
    if (strcmp(backend, "model") && !sim) {
        snprintf(open_error, sizeof open_error, "tessel_pod_open: %s",
                 !strcmp(backend, "uart") ? "the uart backend is one board, not a pod (model, sim)"
                                          : "unknown backend (model, sim)");
        return TESSEL_ENODEV;
    }
#ifdef TESSEL_NO_SIM
    if (sim) {
        snprintf(open_error, sizeof open_error, "tessel_pod_open: this libtessel was built without the sim backend");
        return TESSEL_ENODEV;
    }
#endif
    if (topology == TESSEL_POD_RING && (dx | dy) && !(dx == chips && dy == 1)) {
        snprintf(open_error, sizeof open_error, "tessel_pod_open: a ring of %u chips is %u x 1, not %u x %u", chips,
                 chips, dx, dy);
        return TESSEL_EINVAL;
    }
    if (topology == TESSEL_POD_RING)
        dx = chips, dy = 1;
    if ((topology != TESSEL_POD_RING && topology != TESSEL_POD_TORUS) || chips < 2 || dx < 1 || dy < 1 ||
        dx > TSL_PARAM_ICI_DIM_MAX || dy > TSL_PARAM_ICI_DIM_MAX || (uint64_t)dx * dy != chips) {
        snprintf(open_error, sizeof open_error,
                 "tessel_pod_open: %u chips as %s %u x %u: a pod has 2 or more chips, %u x %u of them, each "
                 "extent 1..%u", chips, topology == TESSEL_POD_TORUS ? "a torus" : "a ring", dx, dy, dx, dy,
                 TSL_PARAM_ICI_DIM_MAX);
        return TESSEL_EINVAL;
    }
    tessel_pod_t *p = calloc(1, sizeof *p);
    tessel_transport_t *t = calloc(chips, sizeof *t);
    if (!p || !t || !(p->dev = calloc(chips, sizeof *p->dev)) || !(p->dead = calloc(chips, 1)) ||
        !(p->crc_errs = calloc(chips, sizeof *p->crc_errs)) || !(p->down = calloc(chips, sizeof *p->down)) ||
        (!sim && tslm_pod_new(&p->mp, dx, dy) != TSLM_OK)) {
        free(t);
        tessel_pod_close(p);
        return TESSEL_ENOMEM;
    }
    if (net)
        p->net = *net, *taken = 1;
    p->chips = chips;
    p->dx = dx;
    p->dy = dy;
    p->torus = topology == TESSEL_POD_TORUS;
    int r = TESSEL_OK;
#ifndef TESSEL_NO_SIM
    if (sim && (r = tessel_transport_sim_pod_open(t, dx, dy, NULL, net ? net->net : NULL)))
        snprintf(open_error, sizeof open_error, "tessel_pod_open: %s", t[0].err);
#endif
    opener_t o = {p, t, r ? NULL : calloc(chips, sizeof *o.err), r ? NULL : calloc(chips, sizeof *o.r)};
    if (!r && (!o.r || !o.err)) {
        r = TESSEL_ENOMEM;
        for (uint32_t i = 0; i < chips && sim; i++)   /* opened with the pod, not yet a device's */
            if (t[i].ctx)
                t[i].close(t[i].ctx);
    }
    for (uint32_t i = 0; i < chips && !r && !sim; i++) {
        tessel_model_cfg_t cfg = {.pod = p->mp, .pod_x = dx, .pod_y = dy, .chip_x = i % dx, .chip_y = i / dx};
        if ((o.r[i] = tessel_transport_model_open(&t[i], &cfg)))
            snprintf(o.err[i], sizeof o.err[i], "%s", t[i].err);
        else
            open_chip(&o, i);
        r = o.r[i];
    }
    if (!r && sim) {   /* every chip of this process at once (docs/pod.md, "The sim pod") */
        uint32_t f = 0;
        while (!t[f].ctx)
            f++;
        t[f].each(t[f].ctx, open_chip, &o);
    }
    for (uint32_t i = 0; i < chips && o.r && !r; i++)
        if ((r = o.r[i]))
            snprintf(open_error, sizeof open_error, "tessel_pod_open: chip %u: %s", i, o.err[i]);
    free(o.r);
    free(o.err);
    free(t);
    if (r) {
        tessel_pod_close(p);
        return r;
    }
    *pod = p;
    return TESSEL_OK;
}

TESSEL_API uint32_t tessel_pod_chips(const tessel_pod_t *pod)
{
    return pod ? pod->chips : 0;
}

TESSEL_API tessel_dev_t *tessel_pod_device(tessel_pod_t *pod, uint32_t chip)
{
    return pod && chip < pod->chips ? pod->dev[chip] : NULL;
}

/* ------------------------------------------------------------------------- symmetric memory */

TESSEL_API tessel_status_t tessel_pod_alloc(tessel_pod_t *pod, size_t bytes, tessel_addr_t *out)
{
    if (!pod || !out || !bytes)
        return TESSEL_EINVAL;
    /* chip 0's first fit, taken on every other chip at the same address; an address some chip holds
     * stays taken on chip 0 while the next is tried */
    tessel_addr_t tried[64];
    unsigned ntried = 0;
    int r = TESSEL_ENOMEM;
    tessel_dev_t *d0 = first_dev(pod);   /* chip 0, or with a net this rank's first */
    while (ntried < 64u) {
        tessel_addr_t a;
        if (tessel_alloc(d0, bytes, 64, &a))
            break;
        uint32_t i = 0;
        while (i < pod->chips && (pod->dev[i] == d0 || !pod->dev[i] || !tessel_alloc_at(pod->dev[i], a, bytes)))
            i++;
        if (i == pod->chips) {
            *out = a;
            r = TESSEL_OK;
            break;
        }
        while (i-- > 0)
            if (pod->dev[i] && pod->dev[i] != d0)
                (void)tessel_free(pod->dev[i], a);
        tried[ntried++] = a;
    }
    while (ntried)
        (void)tessel_free(d0, tried[--ntried]);
    return r ? pod_fail(pod, r, "tessel_pod_alloc: no address has %zu free bytes on every chip", bytes) : TESSEL_OK;
}

TESSEL_API tessel_status_t tessel_pod_free(tessel_pod_t *pod, tessel_addr_t addr)
{
    if (!pod)
        return TESSEL_EINVAL;
    int r = TESSEL_OK;
    for (uint32_t i = 0; i < pod->chips; i++)
        if (pod->dev[i] && tessel_free(pod->dev[i], addr))
            r = pod_fail(pod, TESSEL_EINVAL, "tessel_pod_free: 0x%llx is not a symmetric buffer",
                         (unsigned long long)addr);
    return r;
}

/* ------------------------------------------------------------------------------ collectives */

static uint32_t esize(tessel_dtype_t t)
{
    return t == TESSEL_BF16 ? 2u : 4u;
}

/* The operands of c on each chip: [in, in + in_bytes), [out, out + out_bytes). */
static void extents(const tessel_pod_t *pod, const tessel_collective_t *c, uint64_t *in_bytes, uint64_t *out_bytes)
{
    uint64_t v = c->count * esize(c->dtype);
    *in_bytes = c->kind == TESSEL_REDUCE_SCATTER ? v * pod->chips : v;
    *out_bytes = c->kind == TESSEL_ALL_GATHER ? v * pod->chips : v;
}

TESSEL_API uint64_t tessel_pod_coll_bytes(const tessel_pod_t *pod, const tessel_collective_t *c)
{
    if (!pod || !c)
        return 0;
    uint64_t ib, ob;
    extents(pod, c, &ib, &ob);
    return c->kind == TESSEL_ALL_GATHER ? ob : ib;
}

/* docs/pod.md, "Cost model": a bidirectional ring of n chips all-gathers or reduce-scatters V bytes
 * in (n-1)/n * V / (2W) cycles, plus one link latency per step; an all-reduce costs both; a
 * broadcast sends each half down a chain of n-1 hops. A torus with both extents above 1 uses its two
 * axes at once (the bandwidth term halves) and steps (dx-1) + (dy-1) times. */
TESSEL_API uint64_t tessel_pod_model_cycles(const tessel_pod_t *pod, tessel_coll_t kind, uint64_t bytes)
{
    if (!pod)
        return 0;
    double n = pod->chips, w = 2.0 * TSL_PARAM_ICI_LINK_BYTES_PER_CYCLE;
    int two = pod->torus && pod->dx > 1 && pod->dy > 1;
    double steps = two ? (pod->dx - 1u) + (pod->dy - 1u) : n - 1.0, axes = two ? 2.0 : 1.0;
    double bw = kind == TESSEL_BROADCAST ? (double)bytes / (w * axes) : (n - 1.0) / n * (double)bytes / (w * axes);
    double t = bw + steps * TSL_PARAM_ICI_LINK_LATENCY;
    return (uint64_t)(kind == TESSEL_ALL_REDUCE ? 2.0 * t : t);
}

typedef struct {
    tessel_pod_t *pod;            /* NULL: the chip runs nothing */
    uint32_t chip;
    tessel_cmd_t cmd;
    tessel_handle_t h;
    int r, started;
    pthread_t th;
    tessel_completion_t cpl;
    uint64_t end;                 /* sim: the chip's time once its completion was read */
    uint32_t crc_errs, down;      /* sim: its HOSTIF ICI_CRC_ERRORS and ICI_LINK_DOWN then */
    int read;                     /* sim: both were read */
} runner_t;

/* What the links of a sim pod lost since the last look, added to buf[n] ("; ..." each): the packets
 * each chip dropped for their CRC, and the links its senders found down (they drop what they are
 * given); 1 if anything. A lost packet is why a chip waits in vain, or, when it was not a SEND's last
 * (whose write counts on the semaphore), why a run that finished lacks some bytes. A chip's counters
 * are those its runner read (run, if not NULL), else read now. */
static int ici_report(tessel_pod_t *pod, char *buf, size_t n, const runner_t *run)
{
    static const char *const port[] = {"+X", "-X", "+Y", "-Y"};
    int any = 0;
    for (uint32_t i = 0; !pod->mp && i < pod->chips; i++) {
        uint32_t v = 0, d = 0;
        if (!pod->dev[i])
            continue;
        int ok = run && run[i].read;
        if (ok)
            v = run[i].crc_errs, d = run[i].down;
        else
            ok = !tessel_device_hostif_read(pod->dev[i], TSL_HOSTIF_ICI_CRC_ERRORS_OFFSET, &v) &&
                 !tessel_device_hostif_read(pod->dev[i], TSL_HOSTIF_ICI_LINK_DOWN_OFFSET, &d);
        if (!ok)
            continue;
        if (v != pod->crc_errs[i]) {
            append(buf, n, "; chip %u dropped %u packet%s for its CRC", i, v - pod->crc_errs[i],
                   v - pod->crc_errs[i] == 1 ? "" : "s");
            pod->crc_errs[i] = v;
            any = 1;
        }
        if (d & ~pod->down[i]) {
            for (uint32_t p = 0; p < 4; p++)
                if ((d & ~pod->down[i]) >> p & 1u)
                    append(buf, n, "; chip %u's link %s is down", i, port[p]);
            pod->down[i] = d;
            any = 1;
        }
    }
    return any;
}

/* After a failed collective: every chip reset (its commands dropped, its semaphores zeroed). A chip
 * that does not come back says so in the pod's error. */
static void reset_all(tessel_pod_t *pod)
{
    ici_report(pod, pod->last_error, sizeof pod->last_error, NULL);
    for (uint32_t i = 0; i < pod->chips; i++)
        if (pod->dev[i] && tessel_reset(pod->dev[i]))
            append(pod->last_error, sizeof pod->last_error, "; chip %u did not reset: %s", i,
                   tessel_last_error(pod->dev[i]));
}

/* A chip's part of a run, on a thread of its own: submit, wait, and on the sim read the chip's ICI
 * counters before letting it go (hold), so that everything it does happens at the same times of its
 * own clock however the threads interleave. */
static void *run_chip(void *arg)
{
    runner_t *x = arg;
    tessel_dev_t *dev = x->pod->dev[x->chip];
    if (!(x->r = tessel_submit(dev, &x->cmd, &x->h)))
        x->r = tessel_wait(dev, x->h, TESSEL_TIMEOUT_AUTO, &x->cpl);
    if (x->pod->mp) {
        tslm_pod_leave(x->pod->mp);
        return NULL;
    }
    x->end = tessel_device_cycles(dev);
    x->read = !tessel_device_hostif_read(dev, TSL_HOSTIF_ICI_CRC_ERRORS_OFFSET, &x->crc_errs) &&
              !tessel_device_hostif_read(dev, TSL_HOSTIF_ICI_LINK_DOWN_OFFSET, &x->down);
    tessel_device_pod_hold(dev, 0);
    return NULL;
}

static int check(tessel_pod_t *pod, const tessel_collective_t *c)
{
    const char *what = "tessel_pod_collective";
    if ((unsigned)c->kind > TESSEL_BROADCAST)
        return pod_fail(pod, TESSEL_EINVAL, "%s: kind %d is not a collective", what, (int)c->kind);
    if (c->dtype != TESSEL_INT32 && c->dtype != TESSEL_FP32 && c->dtype != TESSEL_BF16)
        return pod_fail(pod, TESSEL_EINVAL, "%s: dtype %s: collectives take int32, fp32 or bf16", what,
                        tessel_dtype_str(c->dtype));
    if ((unsigned)c->op > TESSEL_REDUCE_MIN)
        return pod_fail(pod, TESSEL_EINVAL, "%s: reduction %d is not sum, max or min", what, (int)c->op);
    if (!c->count)
        return pod_fail(pod, TESSEL_EINVAL, "%s: count 0", what);
    if (c->count > UINT32_MAX)   /* past any HBM, and the byte counts below stay far from wrapping */
        return pod_fail(pod, TESSEL_ERANGE, "%s: count %llu is past the chips' HBM", what,
                        (unsigned long long)c->count);
    if (c->kind == TESSEL_BROADCAST && c->root >= pod->chips)
        return pod_fail(pod, TESSEL_EINVAL, "%s: root %u is not a chip of the %u", what, c->root, pod->chips);
    uint64_t ib, ob;
    extents(pod, c, &ib, &ob);
    tessel_info_t info;
    if (tessel_info(first_dev(pod), &info))
        return pod_fail(pod, TESSEL_EINVAL, "%s: no device info", what);
    uint64_t hbm = info.hbm_bytes;
    if (c->in < TESSEL_HBM_RESERVED || c->out < TESSEL_HBM_RESERVED || c->in > hbm || ib > hbm - c->in ||
        c->out > hbm || ob > hbm - c->out)
        return pod_fail(pod, TESSEL_ERANGE, "%s: in [0x%llx, +%llu) or out [0x%llx, +%llu) is outside the chips' "
                        "HBM above the rings", what, (unsigned long long)c->in, (unsigned long long)ib,
                        (unsigned long long)c->out, (unsigned long long)ob);
    int same_ok = c->kind == TESSEL_ALL_REDUCE || c->kind == TESSEL_BROADCAST;
    if (c->in != c->out || !same_ok)
        if (c->in < c->out + ob && c->out < c->in + ib)
            return pod_fail(pod, TESSEL_EINVAL, "%s: in and out overlap%s", what,
                            same_ok ? " without being the same buffer" : "");
    tsl_cp_t cc;
    tsl_cp_coll_t cl = {.kind = (uint32_t)c->kind, .dtype = tessel_cmd_dtype(c->dtype), .dx = pod->dx, .dy = pod->dy};
    if (tsl_cp_compiler_init(&cc, info.n, info.vmem_bytes, info.acc_bytes, (uint32_t)hbm, info.features) ||
        tsl_cp_coll_tile(&cc, &cl) < 4u * info.n)
        return pod_fail(pod, TESSEL_EINVAL, "%s: VMEM of %u bytes and ACC of %u are too small for collectives of "
                        "%s at N %u", what, info.vmem_bytes, info.acc_bytes, tessel_dtype_str(c->dtype), info.n);
    return TESSEL_OK;
}

/* progs[i] on chip i (a dead chip, or one without words, runs nothing), all at once, inside the window
 * [lo, hi) on every chip; `what` names the call in errors. Each chip is submitted and waited for on a
 * thread of its own: they wait on each other. A chip without a thread leaves the run at once: those
 * waiting for it then fail, not hang. On the sim every chip starts at one time (align), and each
 * chip's thread alone drives it until its completion is read (hold). After a failure every chip is
 * reset (semaphores may hold stray arrivals); on the sim the error then gives the cycles the run
 * took, the packets dropped for their CRC and the links found down, and a run that lost a packet
 * fails even when every chip finished. *cycles: on the sim, from that one start to the last chip's
 * completion read (0 on the model). */
static int run_programs(tessel_pod_t *pod, const char *what, const tessel_pod_prog_t *progs, uint64_t lo, uint64_t hi,
                        uint64_t *cycles)
{
    uint32_t n = pod->chips;
    runner_t *run = calloc(n, sizeof *run);
    tessel_addr_t *prog = calloc(n, sizeof *prog);
    int r = !run || !prog ? pod_fail(pod, TESSEL_ENOMEM, "%s: no host memory", what) : TESSEL_OK;
    uint32_t runs = 0;
    for (uint32_t i = 0; i < n && !r; i++) {
        uint32_t bytes = 4u * progs[i].nwords;
        if (pod->dead[i] || !bytes || !pod->dev[i])
            continue;
        if ((r = tessel_alloc(pod->dev[i], bytes, 64, &prog[i])))
            r = pod_fail(pod, r, "%s: chip %u: no HBM for its program of %u bytes", what, i, bytes);
        else if ((r = tessel_write(pod->dev[i], prog[i], progs[i].words, bytes)))
            r = pod_fail(pod, r, "%s: chip %u: %s", what, i, tessel_last_error(pod->dev[i]));
        if (r)
            break;
        tessel_cmd_t *cmd = &run[i].cmd;
        TSL_SET(cmd->w, TSL_CMD_OPCODE, TSL_CMD_OP_PROGRAM);
        cmd->w[TSL_CMD_A_ADDR_WORD] = (uint32_t)prog[i];
        cmd->w[TSL_CMD_N_WORD] = bytes;
        cmd->w[TSL_PROG_WIN_BASE_WORD] = (uint32_t)lo;
        cmd->w[TSL_PROG_WIN_LIMIT_WORD] = (uint32_t)hi;
        run[i].pod = pod, run[i].chip = i, runs++;
    }
    for (uint32_t i = 0; i < n && !r; i++)   /* held from here on: nobody else advances it past the start */
        if (run[i].pod)
            tessel_device_pod_hold(pod->dev[i], 1);
    if (!pod->mp)
        tessel_device_pod_align(first_dev(pod));
    uint64_t t0 = tessel_device_cycles(first_dev(pod)), last = t0;   /* every chip's time, once aligned */
    if (!r) {
        if (pod->mp)
            tslm_pod_begin(pod->mp, runs);
        for (uint32_t i = 0; i < n; i++)
            if (run[i].pod && !(run[i].started = !pthread_create(&run[i].th, NULL, run_chip, &run[i]))) {
                if (pod->mp)
                    tslm_pod_leave(pod->mp);
                tessel_device_pod_hold(pod->dev[i], 0);
                r = pod_fail(pod, TESSEL_ENOMEM, "%s: no thread for chip %u", what, i);
            }
        for (uint32_t i = 0; i < n; i++)
            if (run[i].started) {
                pthread_join(run[i].th, NULL);
                last = run[i].end > last ? run[i].end : last;
            }
        for (uint32_t i = 0; i < n && !r; i++)
            if (run[i].started && run[i].r) {
                uint32_t st = (uint32_t)run[i].cpl.status & 0xFFFFu;
                r = pod_fail(pod, run[i].r, "%s: chip %u: %s (ERR %s)", what, i, tessel_last_error(pod->dev[i]),
                             st == TSL_CMD_ERR_DEVICE && run[i].cpl.detail < TSL_ERR_LIMIT
                                 ? tsl_err_name(run[i].cpl.detail) : "-");
            }
    }
    char lost[sizeof pod->last_error] = "";
    if (!r && ici_report(pod, lost, sizeof lost, run))   /* a run whose every chip finished may still have lost a packet */
        r = pod_fail(pod, TESSEL_EDEVICE, "%s: its data is incomplete: %s", what, lost + 2);   /* without "; " */
    if (pod->net.net) {   /* every rank: the last chip's end, and whether any rank failed */
        last = pod->net.max(pod->net.net, last);
        if (pod->net.max(pod->net.net, r != 0) && !r)
            r = pod_fail(pod, TESSEL_EDEVICE, "%s: a chip of another rank failed (its rank's error says why)", what);
    }
    if (r && !pod->mp)   /* the sim: how long the chips ran before they gave up */
        append(pod->last_error, sizeof pod->last_error, "; after %llu cycles", (unsigned long long)(last - t0));
    if (r)
        reset_all(pod);
    else
        *cycles = last - t0;
    for (uint32_t i = 0; prog && i < n; i++)
        if (prog[i])
            (void)tessel_free(pod->dev[i], prog[i]);
    free(run);
    free(prog);
    return r;
}

TESSEL_API tessel_status_t tessel_pod_run(tessel_pod_t *pod, const tessel_pod_prog_t *progs, tessel_addr_t win_base,
                                          tessel_addr_t win_limit)
{
    if (!pod || !progs)
        return TESSEL_EINVAL;
    tessel_info_t info;
    if (tessel_info(first_dev(pod), &info))
        return pod_fail(pod, TESSEL_EINVAL, "tessel_pod_run: no device info");
    if (win_base < TESSEL_HBM_RESERVED || win_base > win_limit || win_limit > info.hbm_bytes)
        return pod_fail(pod, TESSEL_ERANGE, "tessel_pod_run: the window [0x%llx, 0x%llx) is not inside the chips' HBM "
                        "above the rings [0x%x, 0x%llx)", (unsigned long long)win_base, (unsigned long long)win_limit,
                        TESSEL_HBM_RESERVED, (unsigned long long)info.hbm_bytes);
    uint64_t cycles;
    return run_programs(pod, "tessel_pod_run", progs, win_base, win_limit, &cycles);
}

TESSEL_API tessel_status_t tessel_pod_collective(tessel_pod_t *pod, const tessel_collective_t *c)
{
    if (!pod || !c)
        return TESSEL_EINVAL;
    int r = check(pod, c);
    if (r)
        return r;
    uint32_t n = pod->chips;
    uint64_t ib, ob;
    extents(pod, c, &ib, &ob);
    static const uint32_t ops[] = {TSL_VPU_OP_ADD, TSL_VPU_OP_MAX, TSL_VPU_OP_MIN};
    tsl_cp_coll_t cl = {.kind = (uint32_t)c->kind, .dtype = tessel_cmd_dtype(c->dtype), .op = ops[c->op],
                        .count = c->count, .dx = pod->dx, .dy = pod->dy, .root = c->root, .in = (uint32_t)c->in,
                        .out = (uint32_t)c->out};
    tessel_addr_t scratch = 0;
    uint64_t sb = tsl_cp_coll_scratch(&cl);
    if (sb && (r = tessel_pod_alloc(pod, sb, &scratch)))
        return r;
    cl.scratch = (uint32_t)scratch;
    uint64_t lo = c->in < c->out ? c->in : c->out, hi = c->in + ib > c->out + ob ? c->in + ib : c->out + ob;
    if (sb) {
        lo = scratch < lo ? scratch : lo;
        hi = scratch + sb > hi ? scratch + sb : hi;
    }
    tsl_cp_prog_t *p = calloc(n, sizeof *p);
    tessel_pod_prog_t *progs = calloc(n, sizeof *progs);
    uint64_t sent = 0, cycles = 0;
    if (!p || !progs)
        r = pod_fail(pod, TESSEL_ENOMEM, "tessel_pod_collective: no host memory");
    for (uint32_t i = 0; i < n && !r; i++) {   /* chip i's program */
        tessel_info_t info;
        tsl_cp_t cc;
        if (tessel_info(first_dev(pod), &info) ||
            tsl_cp_compiler_init(&cc, info.n, info.vmem_bytes, info.acc_bytes, (uint32_t)info.hbm_bytes, info.features)) {
            r = pod_fail(pod, TESSEL_ENODEV, "tessel_pod_collective: chip %u: no compiler for it", i);
            break;
        }
        cl.x = i % pod->dx;
        cl.y = i / pod->dx;
        sent += tsl_cp_compile_coll(&cc, &cl, &p[i]);
        if (p[i].oom)
            r = pod_fail(pod, TESSEL_ENOMEM, "tessel_pod_collective: no host memory for chip %u's program", i);
        progs[i] = (tessel_pod_prog_t){p[i].w, p[i].words};
    }
    if (!r)
        r = run_programs(pod, "tessel_pod_collective", progs, lo, hi, &cycles);
    if (!r) {
        pod->stats.collectives++;
        pod->stats.bytes += tessel_pod_coll_bytes(pod, c);
        pod->stats.ici_bytes += sent;
        pod->stats.cycles += cycles;
        pod->stats.model_cycles += tessel_pod_model_cycles(pod, c->kind, tessel_pod_coll_bytes(pod, c));
    }
    for (uint32_t i = 0; p && i < n; i++)
        tsl_cp_prog_free(&p[i]);
    free(p);
    free(progs);
    if (scratch)
        (void)tessel_pod_free(pod, scratch);
    return r;
}

TESSEL_API tessel_status_t tessel_pod_stats(const tessel_pod_t *pod, tessel_pod_stats_t *out)
{
    if (!pod || !out)
        return TESSEL_EINVAL;
    *out = pod->stats;
    return TESSEL_OK;
}

TESSEL_API tessel_status_t tessel_pod_kill(tessel_pod_t *pod, uint32_t chip)
{
    if (!pod || chip >= pod->chips)
        return TESSEL_EINVAL;
    pod->dead[chip] = 1;
    if (pod->mp)
        tslm_pod_detach(pod->mp, chip % pod->dx, chip / pod->dx);
    return TESSEL_OK;
}

TESSEL_API tessel_status_t tessel_pod_set_wait(tessel_pod_t *pod, uint32_t cycles)
{
    if (!pod)
        return TESSEL_EINVAL;
    if (!pod->mp)   /* every chip writes at one time of its clock (docs/pod.md, "The sim pod") */
        tessel_device_pod_align(first_dev(pod));
    for (uint32_t i = 0; !pod->mp && i < pod->chips; i++) {
        if (!pod->dev[i])
            continue;
        int r = tessel_device_hostif_write(pod->dev[i], TSL_HOSTIF_ICI_WAIT_OFFSET, cycles);
        if (r)
            return pod_fail(pod, r, "tessel_pod_set_wait: chip %u: %s", i, tessel_last_error(pod->dev[i]));
    }
    return TESSEL_OK;
}

TESSEL_API tessel_status_t tessel_pod_link_fault(tessel_pod_t *pod, uint32_t chip, uint32_t port,
                                                 tessel_link_fault_t fault)
{
    if (!pod)
        return TESSEL_EINVAL;
    if (chip >= pod->chips || (unsigned)fault > TESSEL_LINK_CUT)
        return pod_fail(pod, TESSEL_EINVAL, "tessel_pod_link_fault: chip %u of %u, fault %d", chip, pod->chips,
                        (int)fault);
    if (!pod->dev[chip])
        return pod_fail(pod, TESSEL_EINVAL, "tessel_pod_link_fault: chip %u is another rank's", chip);
    int r = tessel_device_link_fault(pod->dev[chip], port, (int)fault);
    if (r == TESSEL_ENODEV)
        return pod_fail(pod, r, "tessel_pod_link_fault: the model's pod has no links");
    if (r)
        return pod_fail(pod, r, "tessel_pod_link_fault: chip %u has no link on port %u", chip, port);
    return TESSEL_OK;
}
