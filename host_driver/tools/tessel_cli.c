/* `tessel gemm` and `tessel info`: libtessel from the command line (host_driver/tools/tessel_cli.h).
 *
 * gemm reads A (M x K) and B (K x N) from .npy files, runs C = epilogue(A x B) with tessel_gemm()
 * and writes C as .npy:
 *   int8 A and B ('<i1' / '|i1')   C int32 ('<i4'), or int8 ('|i1') with --out-dtype int8: REQUANT
 *                                  sat8(round_shift(x * rq_scale, rq_shift) + rq_zp); the defaults
 *                                  scale 1, shift 0, zero point 0 are plain saturation to [-128, 127].
 *                                  Bias: 1-D '<i4' (or '<i1', widened) of N values.
 *   float32 A and B ('<f4')        rounded to bf16 on the way in (RNE, DAZ); C float32, or with
 *                                  --out-dtype bf16 the bf16-rounded values stored as float32.
 *                                  --scale S multiplies the fp32 accumulator first. Bias: 1-D '<f4'.
 * The epilogue order is docs/isa.md §7: scale, bias, ReLU, then the conversion to the output type.
 * --stats prints one JSON line on stdout (nothing else goes to stdout).
 *
 * Outputs (--out, --timeline, --trace) are written to a temporary file in the same folder and
 * renamed over the target only when the whole command succeeded: a failure creates and truncates
 * nothing. An output that names an input or another output is refused before anything runs, and so
 * is an option the backend in use would ignore.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* mkstemps */
#include "tessel_cli.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tessel.h"
#include "tessel_npy.h"
#include "tsl_hw.h"

#define EXIT_DEV 1
#define EXIT_USAGE 2

const char tessel_cli_usage[] =
    "usage: tessel gemm --a A.npy --b B.npy [--bias BIAS.npy] [--relu] [--out C.npy]\n"
    "                   [--backend model|sim|uart] [--port TTY] [--stats] [--check]\n"
    "                   [--out-dtype int8|bf16|int32|fp32] [--rq-scale S] [--rq-shift SH] [--rq-zp Z]\n"
    "                   [--scale F] [--firmware FW.elf] [--trace out.fst] [--timeline out.json]\n"
    "  C = epilogue(A x B): int8 A, B give int32 C (int8 with --out-dtype int8: requantised with\n"
    "  --rq-scale/--rq-shift/--rq-zp, default 1/0/0 = saturation); float32 A, B are rounded to bf16\n"
    "  and give float32 C (--out-dtype bf16: bf16-rounded values stored as float32). Epilogue order:\n"
    "  scale, bias, ReLU, conversion. Backend default: model. --check (or TESSEL_CHECK=1) mirrors\n"
    "  every command on the model and fails on a difference. --stats prints one JSON line.\n"
    "  --timeline (sim) writes a Chrome-trace/Perfetto JSON of the run (docs/performance.md).\n"
    "  --port (uart) is the serial port of a board's UART bridge (e.g. /dev/ttyUSB1). --firmware (or\n"
    "  TESSEL_FIRMWARE): the sim's firmware ELF, or the one a board still in BOOT.HOLD is loaded with\n"
    "  (refused with --backend model). --trace (sim) writes an FST waveform. --scale 0 is refused (the\n"
    "  library reads a scale of 0 as none). Outputs are replaced only when the command succeeds; an\n"
    "  output that is also an input or another output is refused.\n"
    "       tessel info [--backend model|sim|uart] [--port TTY] [--firmware FW.elf] [--json]\n"
    "                   the device's configuration\n"
    "  Exit code: 0 ok, 1 device/library error or check mismatch, 2 usage or input error.\n";

int tessel_cli_handles(const char *sub)
{
    return sub && (!strcmp(sub, "gemm") || !strcmp(sub, "info"));
}

static int fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(int code, const char *fmt, ...)
{
    va_list ap;
    fputs("tessel: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return code;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- option parsing: "--opt value" and "--opt=value" ----------------------------------------- */
typedef struct {
    int argc, i;
    char **argv;
    const char *name;   /* the current option, without any "=value" */
    char buf[64];
} opts_t;

/* The value of the current option; NULL (after an error message) when there is none. */
static const char *opt_value(opts_t *o)
{
    const char *eq = strchr(o->argv[o->i], '=');
    if (eq)
        return eq + 1;
    if (o->i + 1 >= o->argc) {
        fail(EXIT_USAGE, "%s needs a value", o->name);
        return NULL;
    }
    return o->argv[++o->i];
}

/* Split argv[i] into its name; returns the name (kept in o->buf). */
static const char *opt_name(opts_t *o)
{
    const char *a = o->argv[o->i], *eq = strchr(a, '=');
    size_t n = eq ? (size_t)(eq - a) : strlen(a);
    if (n >= sizeof o->buf)
        n = sizeof o->buf - 1;
    memcpy(o->buf, a, n);
    o->buf[n] = 0;
    o->name = o->buf;
    return o->name;
}

static int parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 0);
    if (!*s || *end || errno || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

/* ---- device -------------------------------------------------------------------------------- */
static int check_backend(const char *b, const char *port)
{
    if (strcmp(b, "model") && strcmp(b, "sim") && strcmp(b, "uart"))
        return fail(EXIT_USAGE, "unknown backend '%s' (model, sim or uart)", b);
    if (!strcmp(b, "uart") != (port != NULL))
        return fail(EXIT_USAGE, port ? "--port goes with --backend uart" : "--backend uart needs --port TTY");
    return 0;
}

static int open_dev(tessel_dev_t **dev, const char *backend, uint32_t flags, const char *fw, const char *trace,
                    const char *timeline, const char *port)
{
    tessel_open_opts_t oo = {.flags = flags, .firmware = fw, .trace = trace, .timeline = timeline, .port = port};
    tessel_status_t st = tessel_open(dev, backend, &oo);
    if (st != TESSEL_OK || !*dev)
        return fail(EXIT_DEV, "cannot open the %s backend: %s%s%s", backend, tessel_strerror(st),
                    *tessel_last_error(NULL) ? ": " : "", tessel_last_error(NULL));
    return 0;
}

/* ---- progress on a terminal ------------------------------------------------------------------ */
/* tessel_gemm() blocks and the library has no progress hook, so a thread prints a spinner and the
 * elapsed time on stderr while it runs (only when stderr is a terminal, after the first second). */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done, shown;
    double t0;
    char what[96];
} progress_t;

static void *progress_main(void *arg)
{
    progress_t *p = arg;
    static const char spin[] = "|/-\\";
    unsigned k = 0;
    pthread_mutex_lock(&p->mu);
    while (!p->done) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 250000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&p->cv, &p->mu, &ts);
        double el = now_s() - p->t0;
        if (!p->done && el >= 1.0) {
            fprintf(stderr, "\r%c %s: %.1f s", spin[k++ & 3], p->what, el);
            fflush(stderr);
            p->shown = 1;
        }
    }
    if (p->shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* ---- gemm ---------------------------------------------------------------------------------- */
static const char *dtype_name(tessel_dtype_t d)
{
    switch (d) {
    case TESSEL_INT8: return "int8";
    case TESSEL_BF16: return "bf16";
    case TESSEL_INT32: return "int32";
    case TESSEL_FP32: return "fp32";
    }
    return "?";
}

static const char *npy_type_name(tessel_npy_dtype_t d)
{
    switch (d) {
    case TESSEL_NPY_I1: return "int8";
    case TESSEL_NPY_I4: return "int32";
    case TESSEL_NPY_F4: return "float32";
    }
    return "?";
}

static int load(const char *what, const char *path, tessel_npy_t *out)
{
    char err[200];
    tessel_status_t st = tessel_npy_load(path, out, err, sizeof err);
    if (st != TESSEL_OK)
        return fail(EXIT_USAGE, "%s %s: %s", what, path, err);
    return 0;
}


/* ---- outputs: same-file checks and atomic replacement ---------------------------------------- */
/* A name for comparing paths of files that may not exist yet: the canonical folder plus the last
 * component; the path itself when the folder cannot be resolved. */
static void canon_path(const char *path, char *buf, size_t cap)
{
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX], real[PATH_MAX];
    size_t dl = slash ? (size_t)(slash - path) : 0;
    if (slash && dl == 0)
        dl = 1;   /* "/name" */
    if (dl >= sizeof dir) {
        snprintf(buf, cap, "%s", path);
        return;
    }
    memcpy(dir, slash ? path : ".", slash ? dl : 1);
    dir[slash ? dl : 1] = 0;
    if (!realpath(dir, real)) {
        snprintf(buf, cap, "%s", path);
        return;
    }
    snprintf(buf, cap, "%s/%s", real, slash ? slash + 1 : path);
}

/* 1 when p and q name the same file: by device and inode when both exist, else by path. */
static int same_file(const char *p, const char *q)
{
    struct stat sp, sq;
    int ep = stat(p, &sp) == 0, eq = stat(q, &sq) == 0;
    if (ep && eq)
        return sp.st_dev == sq.st_dev && sp.st_ino == sq.st_ino;
    if (ep != eq)
        return 0;
    char cp[2 * PATH_MAX], cq[2 * PATH_MAX];
    canon_path(p, cp, sizeof cp);
    canon_path(q, cq, sizeof cq);
    return !strcmp(cp, cq);
}

/* 1 when path exists and is not a regular file (a terminal, /dev/null, a pipe): written in place,
 * since renaming over it would replace the device node. */
static int is_special(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

typedef struct {
    const char *opt;    /* "--out" */
    const char *path;   /* the user's path; NULL when the option is not given */
    char *tmp;          /* the temporary file written instead; NULL when writing in place */
} outfile_t;

/* Create out->tmp next to out->path (".tessel-XXXXXX-NAME", so the extension is kept) with the
 * mode a new file would get. Returns 0, or the exit code after a message. */
static int out_begin(outfile_t *out, int code)
{
    if (!out->path || is_special(out->path))
        return 0;
    const char *slash = strrchr(out->path, '/'), *base = slash ? slash + 1 : out->path;
    size_t dl = slash ? (size_t)(slash - out->path) + 1 : 0, bl = strlen(base);
    if (!bl)
        return fail(code, "%s %s: not a file name", out->opt, out->path);
    if (!(out->tmp = malloc(dl + bl + 16)))
        return fail(code, "out of memory");
    snprintf(out->tmp, dl + bl + 16, "%.*s.tessel-XXXXXX-%s", (int)dl, out->path, base);
    int fd = mkstemps(out->tmp, (int)bl + 1);
    if (fd < 0) {
        int e = errno;
        free(out->tmp);
        out->tmp = NULL;
        return fail(code, "cannot create %s %s: %s", out->opt, out->path, strerror(e));
    }
    mode_t um = umask(0);
    umask(um);
    (void)fchmod(fd, 0666 & ~um);
    close(fd);
    return 0;
}

/* Where the writer writes: the temporary file, or the path itself for a special file. */
static const char *out_target(const outfile_t *out)
{
    return out->tmp ? out->tmp : out->path;
}

/* ok: rename the temporary file over the path (returns 0, or EXIT_DEV after a message);
 * !ok: remove it. */
static int out_end(outfile_t *out, int ok)
{
    int rc = 0;
    if (out->tmp) {
        if (ok && rename(out->tmp, out->path) != 0)
            rc = fail(EXIT_DEV, "cannot replace %s %s: %s", out->opt, out->path, strerror(errno));
        if (!ok || rc)
            unlink(out->tmp);
        free(out->tmp);
        out->tmp = NULL;
    }
    return rc;
}

static int cmd_gemm(int argc, char **argv)
{
    const char *pa = NULL, *pb = NULL, *pbias = NULL, *pout = NULL, *backend = "model";
    const char *out_dtype = NULL, *fw = NULL, *trace = NULL, *timeline = NULL, *port = NULL, *argv_scale = "";
    int relu = 0, stats = 0, check = 0;
    int64_t rq_scale = 1, rq_shift = 0, rq_zp = 0;
    float scale = 1.0f;
    int have_rq = 0, have_scale = 0;

    opts_t o = {argc, 1, argv, NULL, ""};
    for (; o.i < argc; o.i++) {
        const char *a = argv[o.i];
        if (a[0] != '-' || a[1] != '-')
            return fail(EXIT_USAGE, "gemm: unexpected argument '%s' (see tessel --help)", a);
        const char *n = opt_name(&o), *v;
        int flag = !strcmp(n, "--relu") || !strcmp(n, "--stats") || !strcmp(n, "--check");
        if (flag) {
            if (strchr(a, '='))
                return fail(EXIT_USAGE, "%s takes no value", n);
            if (!strcmp(n, "--relu")) relu = 1;
            else if (!strcmp(n, "--stats")) stats = 1;
            else check = 1;
            continue;
        }
        if (strcmp(n, "--a") && strcmp(n, "--b") && strcmp(n, "--bias") && strcmp(n, "--out") &&
            strcmp(n, "--backend") && strcmp(n, "--out-dtype") && strcmp(n, "--rq-scale") &&
            strcmp(n, "--rq-shift") && strcmp(n, "--rq-zp") && strcmp(n, "--scale") &&
            strcmp(n, "--firmware") && strcmp(n, "--trace") && strcmp(n, "--timeline") &&
            strcmp(n, "--port"))
            return fail(EXIT_USAGE, "gemm: unknown option %s (see tessel --help)", n);
        if (!(v = opt_value(&o)))
            return EXIT_USAGE;
        if (!*v)
            return fail(EXIT_USAGE, "%s needs a non-empty value", n);
        if (!strcmp(n, "--a")) pa = v;
        else if (!strcmp(n, "--b")) pb = v;
        else if (!strcmp(n, "--bias")) pbias = v;
        else if (!strcmp(n, "--out")) pout = v;
        else if (!strcmp(n, "--backend")) backend = v;
        else if (!strcmp(n, "--out-dtype")) out_dtype = v;
        else if (!strcmp(n, "--firmware")) fw = v;
        else if (!strcmp(n, "--trace")) trace = v;
        else if (!strcmp(n, "--timeline")) timeline = v;
        else if (!strcmp(n, "--port")) port = v;
        else if (!strcmp(n, "--rq-scale")) {
            if (!parse_i64(v, INT32_MIN, INT32_MAX, &rq_scale))
                return fail(EXIT_USAGE, "--rq-scale needs a 32-bit signed integer, not '%s'", v);
            have_rq = 1;
        } else if (!strcmp(n, "--rq-shift")) {
            if (!parse_i64(v, 0, 62, &rq_shift))
                return fail(EXIT_USAGE, "--rq-shift needs an integer in 0..62, not '%s'", v);
            have_rq = 1;
        } else if (!strcmp(n, "--rq-zp")) {
            if (!parse_i64(v, INT32_MIN, INT32_MAX, &rq_zp))
                return fail(EXIT_USAGE, "--rq-zp needs a 32-bit signed integer, not '%s'", v);
            have_rq = 1;
        } else {   /* --scale */
            char *end;
            errno = 0;
            scale = strtof(v, &end);
            if (*end || errno)
                return fail(EXIT_USAGE, "--scale needs a number, not '%s'", v);
            have_scale = 1;
            argv_scale = v;
        }
    }
    if (!pa || !pb)
        return fail(EXIT_USAGE, "gemm needs --a A.npy and --b B.npy (see tessel --help)");
    if (check_backend(backend, port))
        return EXIT_USAGE;
    if (timeline && strcmp(backend, "sim"))
        return fail(EXIT_USAGE, "--timeline needs --backend sim");
    if (trace && strcmp(backend, "sim"))
        return fail(EXIT_USAGE, "--trace needs --backend sim");
    if (fw && !strcmp(backend, "model"))
        return fail(EXIT_USAGE, "--firmware needs --backend sim or uart (the model runs no firmware)");
    if (have_scale && (scale == 0.0f || !isfinite(scale)))
        return fail(EXIT_USAGE, "--scale %s is refused: the scale must be finite and not 0 (libtessel reads a "
                    "scale of 0 as none, which would give the unscaled A x B)", argv_scale);
    /* Outputs must not name an input or each other: --timeline on --a would destroy A. */
    const char *env_fw = strcmp(backend, "model") ? getenv("TESSEL_FIRMWARE") : NULL;
    const char *ins[][2] = {{"--a", pa}, {"--b", pb}, {"--bias", pbias},
                            {fw ? "--firmware" : "TESSEL_FIRMWARE", fw ? fw : env_fw}};
    outfile_t outs[] = {{"--out", pout, NULL}, {"--timeline", timeline, NULL}, {"--trace", trace, NULL}};
    const size_t n_ins = sizeof ins / sizeof ins[0], n_outs = sizeof outs / sizeof outs[0];
    for (size_t i = 0; i < n_outs; i++) {
        if (!outs[i].path)
            continue;
        for (size_t j = 0; j < n_ins; j++)
            if (ins[j][1] && *ins[j][1] && same_file(outs[i].path, ins[j][1]))
                return fail(EXIT_USAGE, "%s %s is also the input %s: refusing to overwrite an input", outs[i].opt,
                            outs[i].path, ins[j][0]);
        for (size_t j = i + 1; j < n_outs; j++)
            if (outs[j].path && !is_special(outs[i].path) && same_file(outs[i].path, outs[j].path))
                return fail(EXIT_USAGE, "%s and %s name the same file %s", outs[i].opt, outs[j].opt,
                            outs[i].path);
    }
    const char *env = getenv("TESSEL_CHECK");
    if (env && *env && strcmp(env, "0"))
        check = 1;

    int rc = EXIT_USAGE;
    tessel_npy_t A = {0}, B = {0}, bias = {0};
    void *c = NULL;
    tessel_dev_t *dev = NULL;
    if (load("A", pa, &A) || load("B", pb, &B) || (pbias && load("bias", pbias, &bias)))
        goto out;
    if (A.ndim != 2 || B.ndim != 2) {
        fail(EXIT_USAGE, "A and B must be 2-D (A has %u dimensions, B %u)", A.ndim, B.ndim);
        goto out;
    }
    if (A.shape[1] != B.shape[0]) {
        fail(EXIT_USAGE, "shape mismatch: A is %" PRIu64 "x%" PRIu64 ", B is %" PRIu64 "x%" PRIu64
             " (A's columns must equal B's rows)", A.shape[0], A.shape[1], B.shape[0], B.shape[1]);
        goto out;
    }
    uint64_t m = A.shape[0], k = A.shape[1], n = B.shape[1];
    if (!m || !k || !n) {
        fail(EXIT_USAGE, "empty matrix: A is %" PRIu64 "x%" PRIu64 ", B is %" PRIu64 "x%" PRIu64,
             m, k, B.shape[0], n);
        goto out;
    }
    if (m > UINT32_MAX || n > UINT32_MAX || k > UINT32_MAX) {
        fail(EXIT_USAGE, "matrix too large (dimensions must fit in 32 bits)");
        goto out;
    }
    tessel_dtype_t in;
    if (A.dtype == TESSEL_NPY_I1 && B.dtype == TESSEL_NPY_I1)
        in = TESSEL_INT8;
    else if (A.dtype == TESSEL_NPY_F4 && B.dtype == TESSEL_NPY_F4)
        in = TESSEL_BF16;
    else {
        fail(EXIT_USAGE, "unsupported dtypes: A is %s, B is %s (need both int8 or both float32)",
             npy_type_name(A.dtype), npy_type_name(B.dtype));
        goto out;
    }
    tessel_dtype_t outd = in == TESSEL_INT8 ? TESSEL_INT32 : TESSEL_FP32;
    if (out_dtype) {
        if (!strcmp(out_dtype, "int8")) outd = TESSEL_INT8;
        else if (!strcmp(out_dtype, "bf16")) outd = TESSEL_BF16;
        else if (!strcmp(out_dtype, "int32")) outd = TESSEL_INT32;
        else if (!strcmp(out_dtype, "fp32") || !strcmp(out_dtype, "float32")) outd = TESSEL_FP32;
        else {
            fail(EXIT_USAGE, "unknown --out-dtype '%s' (int8, bf16, int32 or fp32)", out_dtype);
            goto out;
        }
        if ((in == TESSEL_INT8) != (outd == TESSEL_INT8 || outd == TESSEL_INT32)) {
            fail(EXIT_USAGE, "--out-dtype %s does not go with %s inputs (int8 in: int32 or int8; "
                 "float32 in: fp32 or bf16)", out_dtype, in == TESSEL_INT8 ? "int8" : "float32");
            goto out;
        }
    }
    if (have_rq && outd != TESSEL_INT8) {
        fail(EXIT_USAGE, "--rq-scale/--rq-shift/--rq-zp need --out-dtype int8");
        goto out;
    }
    if (have_scale && in != TESSEL_BF16) {
        fail(EXIT_USAGE, "--scale applies to float32 inputs only");
        goto out;
    }
    if (pbias) {
        if (bias.ndim != 1 || bias.shape[0] != n) {
            fail(EXIT_USAGE, "bias must be 1-D with %" PRIu64 " values (B's columns)", n);
            goto out;
        }
        if (in == TESSEL_INT8 && bias.dtype == TESSEL_NPY_I1) {   /* widen int8 to int32 */
            int32_t *w = malloc(n * sizeof *w);
            if (!w) {
                fail(EXIT_DEV, "out of memory");
                goto out;
            }
            for (uint64_t j = 0; j < n; j++)
                w[j] = ((const int8_t *)bias.data)[j];
            free(bias.data);
            bias.data = w;
            bias.dtype = TESSEL_NPY_I4;
        }
        tessel_npy_dtype_t want = in == TESSEL_INT8 ? TESSEL_NPY_I4 : TESSEL_NPY_F4;
        if (bias.dtype != want) {
            fail(EXIT_USAGE, "bias is %s; %s inputs need a %s bias", npy_type_name(bias.dtype),
                 in == TESSEL_INT8 ? "int8" : "float32", npy_type_name(want));
            goto out;
        }
    }
    size_t ces = outd == TESSEL_INT8 ? 1 : 4;
    if (m * n > SIZE_MAX / ces || !(c = calloc((size_t)(m * n), ces))) {
        fail(EXIT_DEV, "out of memory for C (%" PRIu64 "x%" PRIu64 ")", m, n);
        goto out;
    }

    /* The library writes the timeline and the trace to the temporary files; they replace the
     * targets at the end, when everything succeeded. */
    if (out_begin(&outs[1], EXIT_USAGE) || out_begin(&outs[2], EXIT_USAGE))
        goto out;
    rc = EXIT_DEV;
    if (open_dev(&dev, backend, check ? TESSEL_OPEN_CHECK : 0, fw, trace ? out_target(&outs[2]) : NULL,
                 timeline ? out_target(&outs[1]) : NULL, port))
        goto out;
    tessel_info_t info;
    tessel_status_t st = tessel_info(dev, &info);
    if (st != TESSEL_OK) {
        fail(EXIT_DEV, "cannot read the device configuration: %s", tessel_strerror(st));
        goto out;
    }
    tessel_stats_reset(dev);

    tessel_gemm_t g = {(uint32_t)m, (uint32_t)n, (uint32_t)k, in, outd, A.data, (size_t)k, B.data, (size_t)n,
                       c, (size_t)n, pbias ? bias.data : NULL, relu, scale, 0, 0, 0};
    if (outd == TESSEL_INT8) {   /* the requantisation fields must be 0 for other outputs */
        g.rq_scale = (int32_t)rq_scale;
        g.rq_shift = (uint32_t)rq_shift;
        g.rq_zero_point = (int32_t)rq_zp;
    }
    tessel_completion_t cpl;
    memset(&cpl, 0, sizeof cpl);
    progress_t prog;
    pthread_t thr;
    int threaded = 0;
    double t0 = now_s();
    if (isatty(STDERR_FILENO)) {
        memset(&prog, 0, sizeof prog);
        pthread_mutex_init(&prog.mu, NULL);
        pthread_cond_init(&prog.cv, NULL);
        prog.t0 = t0;
        snprintf(prog.what, sizeof prog.what, "tessel: %s gemm %" PRIu64 "x%" PRIu64 "x%" PRIu64 " on %s",
                 dtype_name(in), m, n, k, backend);
        threaded = pthread_create(&thr, NULL, progress_main, &prog) == 0;
    }
    st = tessel_gemm(dev, &g, &cpl);
    double wall = now_s() - t0;
    if (threaded) {
        pthread_mutex_lock(&prog.mu);
        prog.done = 1;
        pthread_cond_signal(&prog.cv);
        pthread_mutex_unlock(&prog.mu);
        pthread_join(thr, NULL);
    }
    if (st == TESSEL_EDEVICE) {
        fail(EXIT_DEV, "gemm failed on the device: status %d, detail 0x%08x", (int)cpl.status, cpl.detail);
        goto out;
    }
    if (st != TESSEL_OK) {
        fail(EXIT_DEV, "gemm failed: %s (%s)", tessel_strerror(st), tessel_last_error(dev));
        goto out;
    }
    if (pout) {
        char err[200];
        uint64_t shape[2] = {m, n};
        tessel_npy_dtype_t nd = outd == TESSEL_INT8 ? TESSEL_NPY_I1 : outd == TESSEL_INT32 ? TESSEL_NPY_I4
                                                                                          : TESSEL_NPY_F4;
        if (out_begin(&outs[0], EXIT_DEV))
            goto out;
        if (tessel_npy_save(out_target(&outs[0]), nd, 2, shape, c, err, sizeof err) != TESSEL_OK) {
            fail(EXIT_DEV, "C %s: %s", pout, err);
            goto out;
        }
    }
    if (stats) {
        tessel_stats_t s;
        st = tessel_stats(dev, &s);
        if (st != TESSEL_OK) {
            fail(EXIT_DEV, "cannot read the statistics: %s", tessel_strerror(st));
            goto out;
        }
        uint64_t nn = (uint64_t)info.n * info.n;
        uint64_t mxu_cycles = nn ? (s.macs + nn - 1) / nn : 0;
        uint64_t bw_cycles = info.hbm_bytes_per_cycle
                                 ? (s.hbm_bytes + info.hbm_bytes_per_cycle - 1) / info.hbm_bytes_per_cycle
                                 : 0;
        /* The model backend is not timed: its cycle counts can be below the MXU bound, so the
         * ratio is clamped to 1 (cycles_timed says whether the cycles are the SoC's clock). */
        double util = s.cycles && nn ? (double)s.macs / ((double)nn * (double)s.cycles) : 0.0;
        util = util > 1.0 ? 1.0 : util;
        printf("{\"backend\": \"%s\", \"m\": %" PRIu64 ", \"n\": %" PRIu64 ", \"k\": %" PRIu64
               ", \"in_dtype\": \"%s\", \"out_dtype\": \"%s\", \"mxu_n\": %u, \"commands\": %" PRIu64
               ", \"cycles\": %" PRIu64 ", \"macs\": %" PRIu64 ", \"mxu_utilization\": %.6f"
               ", \"hbm_bytes\": %" PRIu64 ", \"hbm_bytes_per_cycle\": %u, \"roofline_cycles\": %" PRIu64
               ", \"completion_cycles\": %u, \"cycles_timed\": %s, \"checked\": %s, \"wall_seconds\": %.3f}\n",
               backend, m, n, k, dtype_name(in), dtype_name(outd), info.n, s.commands, s.cycles, s.macs, util,
               s.hbm_bytes, info.hbm_bytes_per_cycle, mxu_cycles > bw_cycles ? mxu_cycles : bw_cycles,
               cpl.cycles, strcmp(backend, "model") ? "true" : "false", check ? "true" : "false", wall);
        fflush(stdout);
    }
    rc = 0;
out:
    tessel_close(dev);   /* writes the timeline */
    for (size_t i = 0; i < n_outs; i++)
        if (out_end(&outs[i], rc == 0) && rc == 0)
            rc = EXIT_DEV;
    free(c);
    tessel_npy_free(&A);
    tessel_npy_free(&B);
    tessel_npy_free(&bias);
    return rc;
}

/* ---- info ---------------------------------------------------------------------------------- */
static int cmd_info(int argc, char **argv)
{
    const char *backend = "model", *fw = NULL, *port = NULL;
    int json = 0;
    opts_t o = {argc, 1, argv, NULL, ""};
    for (; o.i < argc; o.i++) {
        const char *a = argv[o.i];
        if (a[0] != '-' || a[1] != '-')
            return fail(EXIT_USAGE, "info: unexpected argument '%s' (see tessel --help)", a);
        const char *n = opt_name(&o), *v;
        if (!strcmp(n, "--json") && !strchr(a, '=')) {
            json = 1;
            continue;
        }
        if (strcmp(n, "--backend") && strcmp(n, "--firmware") && strcmp(n, "--port"))
            return fail(EXIT_USAGE, "info: unknown option %s (see tessel --help)", a);
        if (!(v = opt_value(&o)))
            return EXIT_USAGE;
        if (!strcmp(n, "--backend"))
            backend = v;
        else if (!strcmp(n, "--port"))
            port = v;
        else
            fw = v;
    }
    if (check_backend(backend, port))
        return EXIT_USAGE;
    if (fw && !strcmp(backend, "model"))
        return fail(EXIT_USAGE, "--firmware needs --backend sim or uart (the model runs no firmware)");
    tessel_dev_t *dev = NULL;
    if (open_dev(&dev, backend, 0, fw, NULL, NULL, port))
        return EXIT_DEV;
    tessel_info_t in;
    tessel_status_t st = tessel_info(dev, &in);
    tessel_close(dev);
    if (st != TESSEL_OK)
        return fail(EXIT_DEV, "cannot read the device configuration: %s", tessel_strerror(st));
    int i8 = (in.features >> TSL_TC_CFG_FEATURES_INT8_SHIFT) & 1, b16 = (in.features >> TSL_TC_CFG_FEATURES_BF16_SHIFT) & 1;
    int seq = (in.features >> TSL_TC_CFG_FEATURES_SEQ_SHIFT) & 1;
    if (json) {
        printf("{\"backend\": \"%s\", \"n\": %u, \"vmem_bytes\": %u, \"acc_bytes\": %u, \"hbm_bytes\": %" PRIu64
               ", \"hbm_bytes_per_cycle\": %u, \"features\": %u, \"int8\": %s, \"bf16\": %s, \"seq\": %s}\n",
               in.backend ? in.backend : backend, in.n, in.vmem_bytes, in.acc_bytes, in.hbm_bytes,
               in.hbm_bytes_per_cycle, in.features, i8 ? "true" : "false", b16 ? "true" : "false",
               seq ? "true" : "false");
    } else {
        printf("backend              %s\n"
               "MXU                  %u x %u\n"
               "VMEM                 %u bytes (%u KiB)\n"
               "ACC                  %u bytes (%u KiB)\n"
               "HBM                  %" PRIu64 " bytes (%" PRIu64 " MiB), %u bytes/cycle\n"
               "features             0x%08x:%s%s%s\n",
               in.backend ? in.backend : backend, in.n, in.n, in.vmem_bytes, in.vmem_bytes >> 10, in.acc_bytes,
               in.acc_bytes >> 10, in.hbm_bytes, in.hbm_bytes >> 20, in.hbm_bytes_per_cycle, in.features,
               i8 ? " int8" : "", b16 ? " bf16" : "", seq ? " seq (tile sequencer)" : "");
    }
    return 0;
}

int tessel_cli_main(int argc, char **argv)
{
    if (argc < 1 || !argv || !argv[0])
        return fail(EXIT_USAGE, "no subcommand given");
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return fputs(tessel_cli_usage, stdout), 0;
    if (!strcmp(argv[0], "gemm"))
        return cmd_gemm(argc, argv);
    if (!strcmp(argv[0], "info"))
        return cmd_info(argc, argv);
    return fail(EXIT_USAGE, "unknown subcommand %s", argv[0]);
}
