/* `tessel gemm`, `conv2d`, `pool2d`, `softmax`, `layernorm`, `rmsnorm`, `gelu`, `silu`, `attention` and
 * `info`: libtessel from the command line (host_driver/tools/tessel_cli.h).
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
 * conv2d is the same for X (N x H x W x C, NHWC) and W (KH x KW x C/groups x COUT, HWIO) with
 * tessel_conv2d(); pool2d is the max or average of each window of X with tessel_pool2d(). Their Y
 * is N x OH x OW x COUT (pool2d: x C), OH and OW from tessel_window_out(). The row functions
 * (tessel_softmax() ... tessel_silu()) take float32 X of any shape, its rows along the last axis, and
 * give Y of X's shape; attention (tessel_attention()) takes Q, K and V whose leading dimensions are
 * the heads.
 * --stats prints one JSON line on stdout (nothing else goes to stdout).
 *
 * Outputs (--out, --timeline, --trace) are written to a temporary file in the same folder and
 * renamed over the target only when the whole command succeeded: a failure creates and truncates
 * nothing, and SIGINT, SIGTERM, SIGHUP or SIGQUIT remove the temporary files before the program
 * dies of the signal. An output that names an input or another output is refused before anything
 * runs; an option the backend in use would ignore is refused by tessel_open.
 * Inputs are regular files only (a FIFO or a device is refused without blocking: tessel_npy_load).
 * Integers are decimal (no base prefix: --rq-scale 010 is ten); the float options go through
 * tessel_f32_arg, the library's one rule for them. The CLI parses (option syntax, numbers, .npy
 * files, shapes into sizes, values into their C types) and checks no rule of the arguments itself:
 * tessel_open's EINVAL (an option the backend would ignore, a bad environment variable) and a
 * call's EINVAL or ERANGE (ranges, dtypes that do not go together: the library's one message,
 * shown as "tessel: SUB: MESSAGE") are usage errors (exit 2); any other failure of a call is exit 1.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* mkstemps */
#include "tessel_cli.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <float.h>
#include <pthread.h>
#include <signal.h>
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
    "       tessel conv2d --x X.npy --w W.npy [--bias B.npy] [--stride S|SH,SW] [--pad P|PT,PB,PL,PR]\n"
    "                     [--dilation D|DH,DW] [--groups G] [--relu] [--x-zp Z] [--out Y.npy]\n"
    "                     [--out-dtype ...] [--rq-scale S --rq-shift SH --rq-zp Z] [--scale F]\n"
    "                     [--backend ...] [--port TTY] [--stats] [--check] [--firmware FW.elf]\n"
    "                     [--trace out.fst] [--timeline out.json]\n"
    "  Y = epilogue(conv2d(X, W)): X is N x H x W x C (NHWC), W is KH x KW x C/G x COUT (HWIO), Y is\n"
    "  N x OH x OW x COUT; dtypes, bias (COUT values) and epilogue as gemm. Defaults: stride 1, pad 0,\n"
    "  dilation 1, groups 1. --x-zp (int8): the padding value, the input's zero point (default 0).\n"
    "       tessel pool2d --x X.npy --kind max|avg --window K|KH,KW [--stride S|SH,SW]\n"
    "                     [--pad P|PT,PB,PL,PR] [--dilation D|DH,DW] [--x-zp Z] [--out Y.npy]\n"
    "                     [--out-dtype ...] [--backend ...] (and conv2d's --port ... --timeline)\n"
    "  Y = the max or the average of each window, per channel: N x OH x OW x C. int8 X gives int8 Y\n"
    "  (avg: sum / (KH*KW) rounded to nearest, ties away from zero; padding counts as --x-zp). float32\n"
    "  X is rounded to bf16: max gives bf16 values, avg fp32 (or --out-dtype bf16; padding counts as\n"
    "  0). Padding never wins a max. Stride default: the window.\n"
    "       tessel softmax --x X.npy [--scale F] [--mask M.npy] [--in-dtype bf16|fp32] [--out Y.npy]\n"
    "                      [--out-dtype fp32|bf16] [--backend ...] (and conv2d's --port ... --timeline)\n"
    "       tessel layernorm --x X.npy --gamma G.npy [--beta B.npy] [--eps E] [--residual R.npy]\n"
    "                        [the options of softmax from --in-dtype on]\n"
    "       tessel rmsnorm --x X.npy --gamma G.npy [--eps E] [--residual R.npy] [...]\n"
    "       tessel gelu --x X.npy [...]       tessel silu --x X.npy [...]\n"
    "  Y = f(each row of X) (docs/isa.md §7, ROWWISE): X is float32 of any shape, a row its last axis;\n"
    "  Y has X's shape, float32 (--out-dtype bf16: bf16-rounded values). The device computes in fp32\n"
    "  from X rounded to bf16 (--in-dtype fp32: X as it is). softmax(X * scale + mask), the mask\n"
    "  float32 of X's shape, added (-inf masks out); layernorm (X - mean) / sqrt(var + eps) * gamma +\n"
    "  beta; rmsnorm X / sqrt(mean(X^2) + eps) * gamma; gamma and beta float32 of a row's length, eps\n"
    "  default 1e-5; a norm's residual, float32 of X's shape (rounded to --out-dtype), is added to X in\n"
    "  fp32 first, in the same command; gelu the tanh form; silu X * sigmoid(X).\n"
    "       tessel attention --q Q.npy --k K.npy --v V.npy [--causal] [--scale F] [--out O.npy]\n"
    "                        [--out-dtype fp32|bf16] [--backend ...] (and conv2d's --port ... --timeline)\n"
    "  O = softmax(Q K^T * scale + mask) V per head, in bf16 with fp32 accumulation: float32 Q is\n"
    "  ... x Lq x D, K ... x Lk x D, V ... x Lk x Dv, O ... x Lq x Dv, the leading dimensions (heads,\n"
    "  batch) the same. --scale default 1/sqrt(D). --causal masks key j > query i + Lk - Lq (needs\n"
    "  Lq <= Lk).\n"
    "       tessel info [--backend model|sim|uart] [--port TTY] [--firmware FW.elf] [--json]\n"
    "                   the device's configuration\n"
    "       tessel collective all-reduce|reduce-scatter|all-gather|broadcast --chips C --bytes N\n"
    "                   [--topology ring|torus] [--dims DXxDY] [--dtype int32|fp32|bf16] [--op sum|max|min]\n"
    "                   [--root R] [--backend model|sim] [--stats]\n"
    "  A collective of a pod of C chips joined by ICI (docs/pod.md), on N bytes (nccl-tests' size: the\n"
    "  all-reduce's or broadcast's buffer, the all-gather's output, the reduce-scatter's input) of\n"
    "  seeded data. Defaults: ring, fp32, sum, root 0, model.\n"
    "  --stats prints one JSON line: cycles, algbw and busbw in bytes per cycle (null on the model,\n"
    "  which has no time), link_bytes_per_cycle, model_cycles (the cost model's).\n"
    "  Exit code: 0 ok, 1 device/library error or check mismatch, 2 usage or input error.\n";

static int cmd_gemm(int argc, char **argv);
static int cmd_conv2d(int argc, char **argv);
static int cmd_pool2d(int argc, char **argv);
static int cmd_rows(int argc, char **argv);
static int cmd_attention(int argc, char **argv);
static int cmd_info(int argc, char **argv);
static int cmd_collective(int argc, char **argv);

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} subcommands[] = {{"gemm", cmd_gemm},       {"conv2d", cmd_conv2d}, {"pool2d", cmd_pool2d},
                   {"softmax", cmd_rows},    {"layernorm", cmd_rows}, {"rmsnorm", cmd_rows},
                   {"gelu", cmd_rows},       {"silu", cmd_rows},      {"attention", cmd_attention},
                   {"info", cmd_info},       {"collective", cmd_collective}};

int tessel_cli_handles(const char *sub)
{
    for (size_t i = 0; sub && i < sizeof subcommands / sizeof subcommands[0]; i++)
        if (!strcmp(sub, subcommands[i].name))
            return 1;
    return 0;
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

/* Append to the string in buf (cap bytes), truncating. */
static void appendf(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void appendf(char *buf, size_t cap, const char *fmt, ...)
{
    size_t len = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, cap - len, fmt, ap);
    va_end(ap);
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

/* A decimal integer at the start of s (an optional '-', then digits: no space, no '+', no base
 * prefix) in lo..hi into *out; returns the end of the digits, or NULL when there is none in range. */
static const char *dec_prefix(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    int neg = *s == '-';
    const char *p = s + neg;
    uint64_t mag = 0;
    if (*p < '0' || *p > '9')
        return NULL;
    for (; *p >= '0' && *p <= '9'; p++)
        if ((mag = mag * 10u + (uint64_t)(*p - '0')) > (uint64_t)INT64_MAX)
            return NULL;
    int64_t v = neg ? -(int64_t)mag : (int64_t)mag;
    if (v < lo || v > hi)
        return NULL;
    *out = v;
    return p;
}

/* s, exactly a decimal integer in lo..hi; 1 when it is one. */
static int parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    const char *end = dec_prefix(s, lo, hi, out);
    return end && !*end;
}

/* "V" or exactly n comma-separated values V1,...,Vn, each in lo..hi; one value stands for all n.
 * `form` spells the two forms in the message ("S or SH,SW"). */
static int parse_list(const char *opt, const char *form, const char *v, uint32_t n, uint64_t lo, uint64_t hi,
                      uint64_t *out)
{
    uint32_t got = 0;
    for (const char *s = v; got < n; s++) {
        int64_t x;
        const char *end = dec_prefix(s, (int64_t)lo, (int64_t)hi, &x);
        if (!end || (*end && *end != ','))
            break;
        out[got++] = (uint64_t)x;
        if (!*end) {
            if (got != 1 && got != n)
                break;
            for (uint32_t i = got; i < n; i++)
                out[i] = out[0];
            return 0;
        }
        s = end;
    }
    return fail(EXIT_USAGE, "%s needs %s, integers in %" PRIu64 "..%" PRIu64 ", not '%s'", opt, form, lo, hi, v);
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
    if (st != TESSEL_OK || !*dev)   /* EINVAL: an option or environment variable the library refuses */
        return fail(st == TESSEL_EINVAL ? EXIT_USAGE : EXIT_DEV, "cannot open the %s backend: %s%s%s", backend,
                    tessel_strerror(st), *tessel_last_error(NULL) ? ": " : "", tessel_last_error(NULL));
    return 0;
}

/* ---- progress on a terminal ------------------------------------------------------------------ */
/* The library's calls block and it has no progress hook, so a thread prints a spinner and the
 * elapsed time on stderr while one runs (only when stderr is a terminal, after the first second). */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t thr;
    int threaded, done, shown;
    double t0;
    char what[128];
} progress_t;

static void tmp_block(int on, sigset_t *old);

static void *progress_main(void *arg)
{
    progress_t *p = arg;
    sigset_t old;
    tmp_block(1, &old);   /* SIGINT and the others go to the main thread, which keeps the temporary files */
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

/* Start the spinner of one blocking call (on a terminal only), labelled by the format; progress_stop
 * ends it. */
static void progress_start(progress_t *p, double t0, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void progress_start(progress_t *p, double t0, const char *fmt, ...)
{
    memset(p, 0, sizeof *p);
    if (!isatty(STDERR_FILENO))
        return;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->t0 = t0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->what, sizeof p->what, fmt, ap);
    va_end(ap);
    p->threaded = pthread_create(&p->thr, NULL, progress_main, p) == 0;
}

static void progress_stop(progress_t *p)
{
    if (!p->threaded)
        return;
    pthread_mutex_lock(&p->mu);
    p->done = 1;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->thr, NULL);
}

/* ---- dtypes and operands ------------------------------------------------------------------- */
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

/* "2x8x8x16", in buf. */
static const char *shape_text(char *buf, size_t cap, const uint64_t *v, uint32_t n)
{
    buf[0] = 0;
    for (uint32_t i = 0; i < n; i++)
        appendf(buf, cap, "%s%" PRIu64, i ? "x" : "", v[i]);
    return buf;
}

/* Append ", \"name\": [v0, v1, ...]" to the JSON fields in buf (no comma when buf is empty). */
static void json_list(char *buf, size_t cap, const char *name, const uint64_t *v, uint32_t n)
{
    appendf(buf, cap, "%s\"%s\": [", *buf ? ", " : "", name);
    for (uint32_t i = 0; i < n; i++)
        appendf(buf, cap, "%s%" PRIu64, i ? ", " : "", v[i]);
    appendf(buf, cap, "]");
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

/* ---- temporary files and signals ---------------------------------------------------------------- */
/* The temporary outputs that exist, for the signal handler: slot i is live while tmp_path[i] names a
 * file this process created and has neither renamed nor removed. The signals are blocked while a
 * slot and its file change together (tmp_block), so the handler never sees one without the other. */
#define TMP_SLOTS 3
static char tmp_path[TMP_SLOTS][PATH_MAX];
static volatile sig_atomic_t tmp_live[TMP_SLOTS];
static const int tmp_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

/* Async-signal-safe: unlink the live temporary files, then die of the signal as if uncaught. */
static void on_signal(int sig)
{
    int saved = errno;
    for (int i = 0; i < TMP_SLOTS; i++)
        if (tmp_live[i])
            (void)unlink(tmp_path[i]);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    (void)sigaction(sig, &dfl, NULL);
    (void)raise(sig);   /* delivered when the handler returns (the signal is blocked in it) */
    errno = saved;
}

/* The handler for each signal that is not ignored (a program started with SIGINT ignored keeps it). */
static void tmp_handlers(void)
{
    for (size_t i = 0; i < sizeof tmp_signals / sizeof tmp_signals[0]; i++) {
        struct sigaction old, sa;
        if (sigaction(tmp_signals[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        for (size_t j = 0; j < sizeof tmp_signals / sizeof tmp_signals[0]; j++)
            sigaddset(&sa.sa_mask, tmp_signals[j]);
        (void)sigaction(tmp_signals[i], &sa, NULL);
    }
}

/* Block (on) or restore (off, from *old) the signals of tmp_signals in this thread. */
static void tmp_block(int on, sigset_t *old)
{
    if (on) {
        sigset_t set;
        sigemptyset(&set);
        for (size_t i = 0; i < sizeof tmp_signals / sizeof tmp_signals[0]; i++)
            sigaddset(&set, tmp_signals[i]);
        pthread_sigmask(SIG_BLOCK, &set, old);
    } else {
        pthread_sigmask(SIG_SETMASK, old, NULL);
    }
}

typedef struct {
    const char *opt;    /* "--out" */
    const char *path;   /* the user's path; NULL when the option is not given */
    char *tmp;          /* the temporary file written instead; NULL when writing in place */
    int slot;           /* its slot in tmp_path */
} outfile_t;

/* Create out->tmp next to out->path (".tessel-XXXXXX-NAME", so the extension is kept) with the
 * mode a new file would get, registered for the signal handler. Returns 0, or the exit code after
 * a message. */
static int out_begin(outfile_t *out, int code)
{
    if (!out->path || is_special(out->path))
        return 0;
    const char *slash = strrchr(out->path, '/'), *base = slash ? slash + 1 : out->path;
    size_t dl = slash ? (size_t)(slash - out->path) + 1 : 0, bl = strlen(base);
    if (!bl)
        return fail(code, "%s %s: not a file name", out->opt, out->path);
    if (dl + bl + 16 > sizeof tmp_path[0])
        return fail(code, "%s %s: the path is too long", out->opt, out->path);
    if (!(out->tmp = malloc(dl + bl + 16)))
        return fail(code, "out of memory");
    snprintf(out->tmp, dl + bl + 16, "%.*s.tessel-XXXXXX-%s", (int)dl, out->path, base);
    sigset_t old;
    tmp_block(1, &old);
    int fd = mkstemps(out->tmp, (int)bl + 1);
    if (fd >= 0) {
        memcpy(tmp_path[out->slot], out->tmp, dl + bl + 16);
        tmp_live[out->slot] = 1;
    }
    tmp_block(0, &old);
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
        sigset_t old;
        tmp_block(1, &old);
        int e = ok && rename(out->tmp, out->path) != 0 ? errno : 0;
        if (!ok || e)
            unlink(out->tmp);
        tmp_live[out->slot] = 0;
        tmp_block(0, &old);
        if (e)
            rc = fail(EXIT_DEV, "cannot replace %s %s: %s", out->opt, out->path, strerror(e));
        free(out->tmp);
        out->tmp = NULL;
    }
    return rc;
}

/* ---- what every device subcommand shares ---------------------------------------------------- */
/* run_t.takes: the options besides the common ones that parse_run handles itself. */
#define TAKES_SCALE 1u             /* --scale */
#define TAKES_RQ_RELU 2u           /* --relu, --rq-scale, --rq-shift and --rq-zp */

/* The options of a subcommand that runs on a device (parse_run), and its outputs. */
typedef struct {
    const char *sub;               /* "gemm", in messages */
    unsigned takes;                /* TAKES_* */
    const char *backend, *port, *fw, *out_dtype;
    int relu, stats, check, have_rq, have_scale;
    int64_t rq_scale, rq_shift, rq_zp;
    float scale;
    outfile_t outs[3];             /* --out, --timeline, --trace */
} run_t;

static void run_init(run_t *r, const char *sub, unsigned takes)
{
    *r = (run_t){.sub = sub, .takes = takes, .backend = "model", .rq_scale = 1, .scale = 1.0f,
                 .outs = {{"--out", NULL, NULL, 0}, {"--timeline", NULL, NULL, 1}, {"--trace", NULL, NULL, 2}}};
}

/* An option of a subcommand: a value (the string given for `name` goes to *val) or a flag (*flag
 * set to 1). */
typedef struct {
    const char *name;
    const char **val;
    int *flag;
} own_opt_t;

static const own_opt_t *find_opt(const own_opt_t *t, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(t[i].name, name))
            return &t[i];
    return NULL;
}

/* 1 when r takes the numeric option n that epilogue_value parses. */
static int takes_num(const run_t *r, const char *n)
{
    return ((r->takes & TAKES_SCALE) && !strcmp(n, "--scale")) ||
           ((r->takes & TAKES_RQ_RELU) &&
            (!strcmp(n, "--rq-scale") || !strcmp(n, "--rq-shift") || !strcmp(n, "--rq-zp")));
}

/* The float option opt (a scale or an eps: kind) given as v: a decimal number (strtod's syntax
 * without spaces and hexadecimal), then libtessel's rule for the argument (tessel_f32_arg) and its
 * message. 0, or the exit code after a message. */
static int parse_f32(const char *opt, const char *v, tessel_arg_t kind, float *out)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (end == v || *end || *v == ' ' || (*v >= '\t' && *v <= '\r') || strpbrk(v, "xX"))
        return fail(EXIT_USAGE, "%s needs a decimal number, not '%s'", opt, v);
    if (errno == ERANGE && d == 0.0)   /* below the doubles, yet not 0: the smallest stands for it */
        d = copysign(DBL_TRUE_MIN, d);
    if (tessel_f32_arg(opt, d, kind, out) != TESSEL_OK)
        return fail(EXIT_USAGE, "%s", tessel_last_error(NULL));
    return 0;
}

/* --rq-scale, --rq-shift, --rq-zp or --scale (n) set to v; the exit code after a message. */
static int epilogue_value(run_t *r, const char *n, const char *v)
{
    if (!strcmp(n, "--scale")) {
        if (parse_f32(n, v, TESSEL_ARG_SCALE, &r->scale))
            return EXIT_USAGE;
        r->have_scale = 1;
        return 0;
    }
    int shift = !strcmp(n, "--rq-shift");
    int64_t *dst = shift ? &r->rq_shift : !strcmp(n, "--rq-scale") ? &r->rq_scale : &r->rq_zp;
    if (!parse_i64(v, shift ? 0 : INT32_MIN, shift ? UINT32_MAX : INT32_MAX, dst))
        return fail(EXIT_USAGE, shift ? "%s needs a 32-bit unsigned integer, not '%s'"
                                      : "%s needs a 32-bit signed integer, not '%s'", n, v);
    r->have_rq = 1;
    return 0;
}

/* Parse argv: the common options into r, the subcommand's own options (values and flags) through
 * `own`. */
static int parse_run(run_t *r, const own_opt_t *own, size_t n_own, int argc, char **argv)
{
    const own_opt_t common[] = {{"--out", &r->outs[0].path, NULL}, {"--timeline", &r->outs[1].path, NULL},
                                {"--trace", &r->outs[2].path, NULL}, {"--backend", &r->backend, NULL},
                                {"--out-dtype", &r->out_dtype, NULL}, {"--firmware", &r->fw, NULL},
                                {"--port", &r->port, NULL}, {"--stats", NULL, &r->stats},
                                {"--check", NULL, &r->check}};
    opts_t o = {argc, 1, argv, NULL, ""};
    for (; o.i < argc; o.i++) {
        const char *a = argv[o.i];
        if (a[0] != '-' || a[1] != '-')
            return fail(EXIT_USAGE, "%s: unexpected argument '%s' (see tessel --help)", r->sub, a);
        const char *n = opt_name(&o), *v;
        const own_opt_t *opt = find_opt(own, n_own, n);
        opt = opt ? opt : find_opt(common, sizeof common / sizeof common[0], n);
        int *flag = opt ? opt->flag : (r->takes & TAKES_RQ_RELU) && !strcmp(n, "--relu") ? &r->relu : NULL;
        if (flag) {
            if (strchr(a, '='))
                return fail(EXIT_USAGE, "%s takes no value", n);
            *flag = 1;
            continue;
        }
        if (!opt && !takes_num(r, n))
            return fail(EXIT_USAGE, "%s: unknown option %s (see tessel --help)", r->sub, n);
        if (!(v = opt_value(&o)))
            return EXIT_USAGE;
        if (!*v)
            return fail(EXIT_USAGE, "%s needs a non-empty value", n);
        if (opt)
            *opt->val = v;
        else if (epilogue_value(r, n, v))
            return EXIT_USAGE;
    }
    return 0;
}

/* An input file option, for the same-file checks; path NULL when not given. */
typedef struct {
    const char *opt, *path;
} input_t;

/* Outputs must not name an input (or the firmware) or each other: --timeline on --a would destroy A. */
static int check_outputs(const run_t *r, const input_t *ins, size_t n_ins)
{
    const char *env_fw = strcmp(r->backend, "model") ? getenv("TESSEL_FIRMWARE") : NULL;
    const input_t fw = {r->fw ? "--firmware" : "TESSEL_FIRMWARE", r->fw ? r->fw : env_fw};
    for (size_t i = 0; i < 3; i++) {
        const outfile_t *o = &r->outs[i];
        if (!o->path)
            continue;
        for (size_t j = 0; j <= n_ins; j++) {
            const input_t *in = j < n_ins ? &ins[j] : &fw;
            if (in->path && *in->path && same_file(o->path, in->path))
                return fail(EXIT_USAGE, "%s %s is also the input %s: refusing to overwrite an input", o->opt,
                            o->path, in->opt);
        }
        for (size_t j = i + 1; j < 3; j++)
            if (r->outs[j].path && !is_special(o->path) && same_file(o->path, r->outs[j].path))
                return fail(EXIT_USAGE, "%s and %s name the same file %s", o->opt, r->outs[j].opt, o->path);
    }
    return 0;
}

/* Before anything is read: the backend, the outputs against the inputs; then TESSEL_CHECK ("1";
 * tessel_open refuses another value than "" and "0"). The options the backend would ignore
 * (--firmware, --trace, --timeline on the model) are tessel_open's to refuse. */
static int check_run(run_t *r, const input_t *ins, size_t n_ins)
{
    if (check_backend(r->backend, r->port))
        return EXIT_USAGE;
    if (check_outputs(r, ins, n_ins))
        return EXIT_USAGE;
    const char *env = getenv("TESSEL_CHECK");
    if (env && !strcmp(env, "1"))
        r->check = 1;
    return 0;
}

/* The input dtype: int8 or float32 (bf16 on the device) for x, and w the same (w NULL: x alone). */
static int in_dtype_of(const tessel_npy_t *x, const char *xn, const tessel_npy_t *w, const char *wn,
                       tessel_dtype_t *in)
{
    tessel_npy_dtype_t d = x->dtype;
    if ((d == TESSEL_NPY_I1 || d == TESSEL_NPY_F4) && (!w || w->dtype == d)) {
        *in = d == TESSEL_NPY_I1 ? TESSEL_INT8 : TESSEL_BF16;
        return 0;
    }
    if (!w)
        return fail(EXIT_USAGE, "unsupported dtype: %s is %s (need int8 or float32)", xn, npy_type_name(d));
    return fail(EXIT_USAGE, "unsupported dtypes: %s is %s, %s is %s (need both int8 or both float32)", xn,
                npy_type_name(d), wn, npy_type_name(w->dtype));
}

/* The dtype named s ("int8", "bf16", "int32", "fp32" or "float32"); 0 when s names none. */
static int parse_dtype(const char *s, tessel_dtype_t *d)
{
    if (!strcmp(s, "int8")) *d = TESSEL_INT8;
    else if (!strcmp(s, "bf16")) *d = TESSEL_BF16;
    else if (!strcmp(s, "int32")) *d = TESSEL_INT32;
    else if (!strcmp(s, "fp32") || !strcmp(s, "float32")) *d = TESSEL_FP32;
    else
        return 0;
    return 1;
}

/* The output dtype: --out-dtype, else def (the library says which go with the inputs). */
static int out_dtype_of(const run_t *r, tessel_dtype_t def, tessel_dtype_t *outd)
{
    const char *s = r->out_dtype;
    *outd = def;
    if (s && !parse_dtype(s, outd))
        return fail(EXIT_USAGE, "unknown --out-dtype '%s' (int8, bf16, int32 or fp32)", s);
    return 0;
}

/* A bias of n values (`of` says what n counts): int32 (int8 widened) for int8 in, float32 for float. */
static int bias_check(tessel_npy_t *bias, tessel_dtype_t in, uint64_t n, const char *of)
{
    if (bias->ndim != 1 || bias->shape[0] != n)
        return fail(EXIT_USAGE, "bias must be 1-D with %" PRIu64 " values (%s)", n, of);
    if (in == TESSEL_INT8 && bias->dtype == TESSEL_NPY_I1) {   /* widen int8 to int32 */
        int32_t *w = malloc(n * sizeof *w);
        if (!w)
            return fail(EXIT_DEV, "out of memory");
        for (uint64_t j = 0; j < n; j++)
            w[j] = ((const int8_t *)bias->data)[j];
        free(bias->data);
        bias->data = w;
        bias->dtype = TESSEL_NPY_I4;
    }
    tessel_npy_dtype_t want = in == TESSEL_INT8 ? TESSEL_NPY_I4 : TESSEL_NPY_F4;
    if (bias->dtype != want)
        return fail(EXIT_USAGE, "bias is %s; %s inputs need a %s bias", npy_type_name(bias->dtype),
                    in == TESSEL_INT8 ? "int8" : "float32", npy_type_name(want));
    return 0;
}

/* gemm and conv2d: the output dtype (int8 in: int32 by default, float32 in: fp32), then the bias
 * (NULL: none) of n values. --rq-* and --scale go to the library as given, which checks them
 * against the dtypes. */
static int epilogue_check(run_t *r, tessel_dtype_t in, tessel_npy_t *bias, uint64_t n, const char *of,
                          tessel_dtype_t *outd)
{
    if (out_dtype_of(r, in == TESSEL_INT8 ? TESSEL_INT32 : TESSEL_FP32, outd))
        return EXIT_USAGE;
    if (*outd != TESSEL_INT8 && !r->have_rq)
        r->rq_scale = 0;   /* the default scale of 1 is for an int8 output; other outputs take none */
    return bias ? bias_check(bias, in, n, of) : 0;
}

/* One library call and its output, for run_job. */
typedef struct {
    tessel_dtype_t in, out;
    const char *y_name;            /* the output in messages: "C" */
    uint32_t ndim;
    uint64_t shape[TESSEL_NPY_MAX_DIMS]; /* the output's */
    char dims[128];                /* the size on the progress line: "33x40x21" */
    char json[1024];               /* the --stats fields of the shape: "\"m\": 33, ..." */
    tessel_status_t (*call)(tessel_dev_t *dev, void *op, void *y, tessel_completion_t *cpl);
    void *op;                      /* call's argument; y is the output buffer */
} job_t;

static int print_stats(const run_t *r, const job_t *j, tessel_dev_t *dev, const tessel_info_t *info,
                       const tessel_completion_t *cpl, double wall)
{
    tessel_stats_t s;
    tessel_status_t st = tessel_stats(dev, &s);
    if (st != TESSEL_OK)
        return fail(EXIT_DEV, "cannot read the statistics: %s", tessel_strerror(st));
    uint64_t nn = (uint64_t)info->n * info->n;
    uint64_t mxu_cycles = nn ? (s.macs + nn - 1) / nn : 0;
    uint64_t bw_cycles = info->hbm_bytes_per_cycle
                             ? (s.hbm_bytes + info->hbm_bytes_per_cycle - 1) / info->hbm_bytes_per_cycle
                             : 0;
    /* The model backend is not timed: its cycle counts can be below the MXU bound, so the
     * ratio is clamped to 1 (cycles_timed says whether the cycles are the SoC's clock). */
    double util = s.cycles && nn ? (double)s.macs / ((double)nn * (double)s.cycles) : 0.0;
    util = util > 1.0 ? 1.0 : util;
    printf("{\"backend\": \"%s\", %s, \"in_dtype\": \"%s\", \"out_dtype\": \"%s\", \"mxu_n\": %u, \"commands\": %"
           PRIu64 ", \"cycles\": %" PRIu64 ", \"macs\": %" PRIu64 ", \"mxu_utilization\": %.6f"
           ", \"hbm_bytes\": %" PRIu64 ", \"hbm_bytes_per_cycle\": %u, \"roofline_cycles\": %" PRIu64
           ", \"completion_cycles\": %u, \"cycles_timed\": %s, \"checked\": %s, \"wall_seconds\": %.3f}\n",
           r->backend, j->json, dtype_name(j->in), dtype_name(j->out), info->n, s.commands, s.cycles, s.macs, util,
           s.hbm_bytes, info->hbm_bytes_per_cycle, mxu_cycles > bw_cycles ? mxu_cycles : bw_cycles,
           cpl->cycles, strcmp(r->backend, "model") ? "true" : "false", r->check ? "true" : "false", wall);
    fflush(stdout);
    return 0;
}

/* The call's status, and the output written to --out. */
static int finish_job(run_t *r, const job_t *j, tessel_dev_t *dev, tessel_status_t st,
                      const tessel_completion_t *cpl, const void *y)
{
    if (st == TESSEL_EDEVICE)
        return fail(EXIT_DEV, "%s failed on the device: status %d, detail 0x%08x", r->sub, (int)cpl->status,
                    cpl->detail);
    if (st == TESSEL_EINVAL || st == TESSEL_ERANGE)   /* the library refused the arguments: its reason */
        return fail(EXIT_USAGE, "%s: %s", r->sub, tessel_last_error(dev));
    if (st != TESSEL_OK)
        return fail(EXIT_DEV, "%s failed: %s (%s)", r->sub, tessel_strerror(st), tessel_last_error(dev));
    if (!r->outs[0].path)
        return 0;
    char err[200];
    tessel_npy_dtype_t nd = j->out == TESSEL_INT8 ? TESSEL_NPY_I1 : j->out == TESSEL_INT32 ? TESSEL_NPY_I4
                                                                                         : TESSEL_NPY_F4;
    outfile_t *out = &r->outs[0];
    if (out_begin(out, EXIT_DEV))
        return EXIT_DEV;
    if (tessel_npy_save(out_target(out), nd, j->ndim, j->shape, y, err, sizeof err) != TESSEL_OK)
        return fail(EXIT_DEV, "%s %s: %s", j->y_name, out->path, err);
    return 0;
}

/* Run the job on a device opened from r's options: the output buffer, the device, the call with a
 * spinner, --out, --stats; then every output file is replaced (success) or left alone. */
static int run_job(run_t *r, const job_t *j)
{
    int rc = EXIT_DEV;
    size_t es = j->out == TESSEL_INT8 ? 1 : 4, count = 1;
    int over = 0;   /* an empty output (a size of 0, which the library refuses) still has a buffer */
    for (uint32_t i = 0; i < j->ndim; i++)
        if (count && j->shape[i] > SIZE_MAX / es / count)
            over = 1;
        else
            count *= (size_t)j->shape[i];
    void *y = over ? NULL : calloc(count ? count : 1, es);
    tessel_dev_t *dev = NULL;
    tessel_info_t info;
    tessel_status_t st;
    if (!y) {
        char s[96];
        fail(EXIT_DEV, "out of memory for %s (%s)", j->y_name, shape_text(s, sizeof s, j->shape, j->ndim));
        goto out;
    }
    /* The library writes the timeline and the trace to the temporary files; they replace the
     * targets at the end, when everything succeeded. */
    if (out_begin(&r->outs[1], EXIT_USAGE) || out_begin(&r->outs[2], EXIT_USAGE)) {
        rc = EXIT_USAGE;
        goto out;
    }
    if ((rc = open_dev(&dev, r->backend, r->check ? TESSEL_OPEN_CHECK : 0, r->fw,
                       r->outs[2].path ? out_target(&r->outs[2]) : NULL,
                       r->outs[1].path ? out_target(&r->outs[1]) : NULL, r->port)))
        goto out;
    rc = EXIT_DEV;
    if ((st = tessel_info(dev, &info)) != TESSEL_OK) {
        fail(EXIT_DEV, "cannot read the device configuration: %s", tessel_strerror(st));
        goto out;
    }
    tessel_stats_reset(dev);
    tessel_completion_t cpl;
    memset(&cpl, 0, sizeof cpl);
    progress_t prog;
    double t0 = now_s();
    progress_start(&prog, t0, "tessel: %s %s %s on %s", dtype_name(j->in), r->sub, j->dims, r->backend);
    st = j->call(dev, j->op, y, &cpl);
    double wall = now_s() - t0;
    progress_stop(&prog);
    if (!(rc = finish_job(r, j, dev, st, &cpl, y)) && r->stats)
        rc = print_stats(r, j, dev, &info, &cpl, wall);
out:
    tessel_close(dev);   /* writes the timeline */
    for (size_t i = 0; i < 3; i++)
        if (out_end(&r->outs[i], rc == 0) && rc == 0)
            rc = EXIT_DEV;
    free(y);
    return rc;
}

/* ---- gemm ---------------------------------------------------------------------------------- */
static tessel_status_t call_gemm(tessel_dev_t *dev, void *op, void *y, tessel_completion_t *cpl)
{
    tessel_gemm_t *g = op;
    g->c = y;
    return tessel_gemm(dev, g, cpl);
}

static int gemm_run(run_t *r, const tessel_npy_t *A, const tessel_npy_t *B, tessel_npy_t *bias)
{
    if (A->ndim != 2 || B->ndim != 2)
        return fail(EXIT_USAGE, "A and B must be 2-D (A has %u dimensions, B %u)", A->ndim, B->ndim);
    if (A->shape[1] != B->shape[0])
        return fail(EXIT_USAGE, "shape mismatch: A is %" PRIu64 "x%" PRIu64 ", B is %" PRIu64 "x%" PRIu64
                    " (A's columns must equal B's rows)", A->shape[0], A->shape[1], B->shape[0], B->shape[1]);
    uint64_t m = A->shape[0], k = A->shape[1], n = B->shape[1];
    if (m > UINT32_MAX || n > UINT32_MAX || k > UINT32_MAX)
        return fail(EXIT_USAGE, "matrix too large (dimensions must fit in 32 bits)");
    tessel_dtype_t in, outd;
    int rc;
    if ((rc = in_dtype_of(A, "A", B, "B", &in)) || (rc = epilogue_check(r, in, bias, n, "B's columns", &outd)))
        return rc;
    tessel_gemm_t g = {(uint32_t)m, (uint32_t)n, (uint32_t)k, in, outd, A->data, (size_t)k, B->data, (size_t)n,
                       NULL, (size_t)n, bias ? bias->data : NULL, r->relu, r->scale, (int32_t)r->rq_scale,
                       (uint32_t)r->rq_shift, (int32_t)r->rq_zp, TESSEL_EPILOGUE_NONE};
    job_t j = {.in = in, .out = outd, .y_name = "C", .ndim = 2, .shape = {m, n}, .call = call_gemm, .op = &g};
    snprintf(j.dims, sizeof j.dims, "%" PRIu64 "x%" PRIu64 "x%" PRIu64, m, n, k);
    snprintf(j.json, sizeof j.json, "\"m\": %" PRIu64 ", \"n\": %" PRIu64 ", \"k\": %" PRIu64, m, n, k);
    return run_job(r, &j);
}

static int cmd_gemm(int argc, char **argv)
{
    run_t r;
    run_init(&r, "gemm", TAKES_SCALE | TAKES_RQ_RELU);
    const char *pa = NULL, *pb = NULL, *pbias = NULL;
    const own_opt_t own[] = {{"--a", &pa, NULL}, {"--b", &pb, NULL}, {"--bias", &pbias, NULL}};
    if (parse_run(&r, own, 3, argc, argv))
        return EXIT_USAGE;
    if (!pa || !pb)
        return fail(EXIT_USAGE, "gemm needs --a A.npy and --b B.npy (see tessel --help)");
    const input_t ins[] = {{"--a", pa}, {"--b", pb}, {"--bias", pbias}};
    if (check_run(&r, ins, 3))
        return EXIT_USAGE;
    tessel_npy_t A = {0}, B = {0}, bias = {0};
    int rc = load("A", pa, &A) || load("B", pb, &B) || (pbias && load("bias", pbias, &bias))
                 ? EXIT_USAGE : gemm_run(&r, &A, &B, pbias ? &bias : NULL);
    tessel_npy_free(&A);
    tessel_npy_free(&B);
    tessel_npy_free(&bias);
    return rc;
}

/* ---- conv2d and pool2d: the window ----------------------------------------------------------- */
/* The window options as given, then their values (docs/isa.md §7, window geometry). */
typedef struct {
    const char *x_s, *stride_s, *pad_s, *dil_s, *zp_s; /* --x, --stride, --pad, --dilation, --x-zp */
    uint64_t k[2], s[2], pad[4], dil[2];                 /* KH, KW; strides; padding T, B, L, R; dilations */
    int64_t zp;
    uint64_t x[4], oh, ow;                               /* X's N, H, W, C; the output's rows and columns */
} win_t;

/* The options of win_t, for a subcommand's own_opt_t table. */
#define WIN_OPTS(w)                                                                                        \
    {"--x", &(w).x_s, NULL}, {"--stride", &(w).stride_s, NULL}, {"--pad", &(w).pad_s, NULL},                 \
    {"--dilation", &(w).dil_s, NULL}, {"--x-zp", &(w).zp_s, NULL}

/* The geometry fields that tessel_conv2d_t and tessel_pool2d_t share. */
#define WIN_FIELDS(w)                                                                                      \
    .batch = (uint32_t)(w)->x[0], .h = (uint32_t)(w)->x[1], .w = (uint32_t)(w)->x[2], .c = (uint32_t)(w)->x[3], \
    .kh = (uint32_t)(w)->k[0], .kw = (uint32_t)(w)->k[1], .stride_h = (uint32_t)(w)->s[0],                   \
    .stride_w = (uint32_t)(w)->s[1], .pad_t = (uint32_t)(w)->pad[0], .pad_b = (uint32_t)(w)->pad[1],          \
    .pad_l = (uint32_t)(w)->pad[2], .pad_r = (uint32_t)(w)->pad[3], .dil_h = (uint32_t)(w)->dil[0],           \
    .dil_w = (uint32_t)(w)->dil[1], .x_zero_point = (int32_t)(w)->zp

static int win_values(win_t *w)
{
    if ((w->stride_s && parse_list("--stride", "S or SH,SW", w->stride_s, 2, 0, UINT32_MAX, w->s)) ||
        (w->pad_s && parse_list("--pad", "P or PT,PB,PL,PR", w->pad_s, 4, 0, UINT32_MAX, w->pad)) ||
        (w->dil_s && parse_list("--dilation", "D or DH,DW", w->dil_s, 2, 0, UINT32_MAX, w->dil)))
        return EXIT_USAGE;
    if (w->zp_s && !parse_i64(w->zp_s, INT32_MIN, INT32_MAX, &w->zp))
        return fail(EXIT_USAGE, "--x-zp needs a 32-bit signed integer, not '%s'", w->zp_s);
    return 0;
}

/* A 4-D operand (`layout` in messages) whose dimensions fit the library's 32-bit fields (the
 * library checks their ranges). */
static int check_dims(const char *what, const char *layout, const tessel_npy_t *a)
{
    char s[96];
    if (a->ndim != 4)
        return fail(EXIT_USAGE, "%s must be 4-D (%s); it has %u dimensions", what, layout, a->ndim);
    for (int i = 0; i < 4; i++)
        if (a->shape[i] > UINT32_MAX)
            return fail(EXIT_USAGE, "%s is %s (%s): its dimensions must fit in 32 bits", what,
                        shape_text(s, sizeof s, a->shape, 4), layout);
    return 0;
}

/* X: N x H x W x C. */
static int x_check(win_t *w, const tessel_npy_t *X)
{
    int rc = check_dims("X", "N x H x W x C", X);
    if (!rc)
        memcpy(w->x, X->shape, sizeof w->x);
    return rc;
}

/* The output size of the window over X (0 when it does not fit: the library says so). */
static void win_fit(win_t *w)
{
    w->oh = tessel_window_out((uint32_t)w->x[1], (uint32_t)w->pad[0], (uint32_t)w->pad[1], (uint32_t)w->k[0],
                              (uint32_t)w->s[0], (uint32_t)w->dil[0]);
    w->ow = tessel_window_out((uint32_t)w->x[2], (uint32_t)w->pad[2], (uint32_t)w->pad[3], (uint32_t)w->k[1],
                              (uint32_t)w->s[1], (uint32_t)w->dil[1]);
}

/* The job's output (N x OH x OW x cy) and the window's part of its progress line and --stats. */
static void win_job(job_t *j, const win_t *w, uint64_t cy)
{
    const uint64_t y[4] = {w->x[0], w->oh, w->ow, cy};
    char xs[64], ys[64];
    j->y_name = "Y";
    j->ndim = 4;
    memcpy(j->shape, y, sizeof y);
    snprintf(j->dims, sizeof j->dims, "%s -> %s", shape_text(xs, sizeof xs, w->x, 4), shape_text(ys, sizeof ys, y, 4));
    json_list(j->json, sizeof j->json, "x", w->x, 4);
    json_list(j->json, sizeof j->json, "y", y, 4);
    json_list(j->json, sizeof j->json, "window", w->k, 2);
    json_list(j->json, sizeof j->json, "stride", w->s, 2);
    json_list(j->json, sizeof j->json, "pad", w->pad, 4);
    json_list(j->json, sizeof j->json, "dilation", w->dil, 2);
}

/* ---- conv2d -------------------------------------------------------------------------------- */
static tessel_status_t call_conv2d(tessel_dev_t *dev, void *op, void *y, tessel_completion_t *cpl)
{
    tessel_conv2d_t *p = op;
    p->y = y;
    return tessel_conv2d(dev, p, cpl);
}

static int conv2d_run(run_t *r, win_t *w, const tessel_npy_t *X, const tessel_npy_t *W, tessel_npy_t *bias,
                      uint64_t groups)
{
    tessel_dtype_t in, outd;
    char s[96];
    int rc;
    if ((rc = x_check(w, X)) || (rc = check_dims("W", "KH x KW x C/groups x COUT", W)))
        return rc;
    uint64_t c = X->shape[3], cout = W->shape[3];
    if (groups && !(c % groups) && W->shape[2] != c / groups)   /* groups 0 or not dividing C: the library says so */
        return fail(EXIT_USAGE, "shape mismatch: W is %s, its third dimension must be C/groups = %" PRIu64,
                    shape_text(s, sizeof s, W->shape, 4), c / groups);
    memcpy(w->k, W->shape, sizeof w->k);
    win_fit(w);
    if ((rc = in_dtype_of(X, "X", W, "W", &in)) || (rc = epilogue_check(r, in, bias, cout, "W's COUT", &outd)))
        return rc;
    tessel_conv2d_t p = {WIN_FIELDS(w), .cout = (uint32_t)cout, .groups = (uint32_t)groups, .in_dtype = in,
                         .out_dtype = outd, .x = X->data, .weights = W->data, .bias = bias ? bias->data : NULL,
                         .relu = r->relu, .scale = r->scale, .rq_scale = (int32_t)r->rq_scale,
                         .rq_shift = (uint32_t)r->rq_shift, .rq_zero_point = (int32_t)r->rq_zp};
    job_t j = {.in = in, .out = outd, .call = call_conv2d, .op = &p};
    win_job(&j, w, cout);
    json_list(j.json, sizeof j.json, "w", W->shape, 4);
    appendf(j.json, sizeof j.json, ", \"groups\": %" PRIu64, groups);
    return run_job(r, &j);
}

static int cmd_conv2d(int argc, char **argv)
{
    run_t r;
    run_init(&r, "conv2d", TAKES_SCALE | TAKES_RQ_RELU);
    win_t w = {.s = {1, 1}, .dil = {1, 1}};
    const char *pw = NULL, *pbias = NULL, *pgroups = NULL;
    const own_opt_t own[] = {{"--w", &pw, NULL}, {"--bias", &pbias, NULL}, {"--groups", &pgroups, NULL},
                             WIN_OPTS(w)};
    int64_t groups = 1;
    if (parse_run(&r, own, sizeof own / sizeof own[0], argc, argv))
        return EXIT_USAGE;
    if (!w.x_s || !pw)
        return fail(EXIT_USAGE, "conv2d needs --x X.npy and --w W.npy (see tessel --help)");
    if (pgroups && !parse_i64(pgroups, 0, UINT32_MAX, &groups))
        return fail(EXIT_USAGE, "--groups needs an integer in 0..4294967295, not '%s'", pgroups);
    const input_t ins[] = {{"--x", w.x_s}, {"--w", pw}, {"--bias", pbias}};
    if (win_values(&w) || check_run(&r, ins, 3))
        return EXIT_USAGE;
    tessel_npy_t X = {0}, W = {0}, bias = {0};
    int rc = load("X", w.x_s, &X) || load("W", pw, &W) || (pbias && load("bias", pbias, &bias))
                 ? EXIT_USAGE : conv2d_run(&r, &w, &X, &W, pbias ? &bias : NULL, (uint64_t)groups);
    tessel_npy_free(&X);
    tessel_npy_free(&W);
    tessel_npy_free(&bias);
    return rc;
}

/* ---- pool2d -------------------------------------------------------------------------------- */
static tessel_status_t call_pool2d(tessel_dev_t *dev, void *op, void *y, tessel_completion_t *cpl)
{
    tessel_pool2d_t *p = op;
    p->y = y;
    return tessel_pool2d(dev, p, cpl);
}

static int pool2d_run(run_t *r, win_t *w, const tessel_npy_t *X, int avg)
{
    tessel_dtype_t in = TESSEL_INT8, outd;   /* in: set when in_dtype_of succeeds (GCC cannot tell) */
    int rc;
    if ((rc = x_check(w, X)) || (rc = in_dtype_of(X, "X", NULL, NULL, &in)))
        return rc;
    win_fit(w);
    int i8 = in == TESSEL_INT8;
    if ((rc = out_dtype_of(r, i8 ? TESSEL_INT8 : avg ? TESSEL_FP32 : TESSEL_BF16, &outd)))
        return rc;
    tessel_pool2d_t p = {WIN_FIELDS(w), .kind = avg ? TESSEL_POOL_AVG : TESSEL_POOL_MAX, .in_dtype = in,
                         .out_dtype = outd, .x = X->data};
    job_t j = {.in = in, .out = outd, .call = call_pool2d, .op = &p};
    win_job(&j, w, w->x[3]);
    appendf(j.json, sizeof j.json, ", \"kind\": \"%s\"", avg ? "avg" : "max");
    return run_job(r, &j);
}

static int cmd_pool2d(int argc, char **argv)
{
    run_t r;
    run_init(&r, "pool2d", 0);
    win_t w = {.dil = {1, 1}};
    const char *kind = NULL, *window = NULL;
    const own_opt_t own[] = {{"--kind", &kind, NULL}, {"--window", &window, NULL}, WIN_OPTS(w)};
    if (parse_run(&r, own, sizeof own / sizeof own[0], argc, argv))
        return EXIT_USAGE;
    if (!w.x_s || !kind || !window)
        return fail(EXIT_USAGE, "pool2d needs --x X.npy, --kind max|avg and --window K|KH,KW (see tessel --help)");
    if (strcmp(kind, "max") && strcmp(kind, "avg"))
        return fail(EXIT_USAGE, "unknown --kind '%s' (max or avg)", kind);
    if (parse_list("--window", "K or KH,KW", window, 2, 0, UINT32_MAX, w.k))
        return EXIT_USAGE;
    memcpy(w.s, w.k, sizeof w.s);   /* the stride defaults to the window */
    const input_t ins[] = {{"--x", w.x_s}};
    if (win_values(&w) || check_run(&r, ins, 1))
        return EXIT_USAGE;
    tessel_npy_t X = {0};
    int rc = load("X", w.x_s, &X) ? EXIT_USAGE : pool2d_run(&r, &w, &X, !strcmp(kind, "avg"));
    tessel_npy_free(&X);
    return rc;
}

/* ---- float operands of any shape ------------------------------------------------------------- */
/* a (`what` in messages) is float32 with at least min_dims dimensions (the library refuses a size
 * of 0). */
static int f32_check(const tessel_npy_t *a, const char *what, uint32_t min_dims)
{
    if (a->dtype != TESSEL_NPY_F4)
        return fail(EXIT_USAGE, "unsupported dtype: %s is %s (need float32)", what, npy_type_name(a->dtype));
    if (a->ndim < min_dims)
        return fail(EXIT_USAGE, "%s needs at least %u dimension%s; it has %u", what, min_dims, min_dims > 1 ? "s" : "",
                    a->ndim);
    return 0;
}

/* The product of v[0..n-1] (1 when n is 0). */
static uint64_t product(const uint64_t *v, uint32_t n)
{
    uint64_t p = 1;
    for (uint32_t i = 0; i < n; i++)
        p *= v[i];
    return p;
}

/* ---- the row functions: softmax, layernorm, rmsnorm, gelu, silu ------------------------------ */
enum { ROW_SOFTMAX, ROW_LAYERNORM, ROW_RMSNORM, ROW_GELU, ROW_SILU };

/* What a row function takes besides --x and --in-dtype. */
#define ROW_MASK 1u                /* --scale and --mask */
#define ROW_GAMMA 2u               /* --gamma, --eps and --residual */
#define ROW_BETA 4u                /* --beta */

static const struct {
    const char *name;              /* the subcommand, indexed by ROW_* */
    unsigned takes;
} row_fns[] = {{"softmax", ROW_MASK}, {"layernorm", ROW_GAMMA | ROW_BETA}, {"rmsnorm", ROW_GAMMA}, {"gelu", 0},
               {"silu", 0}};

/* A row function's options as given, its operands, and its library call. */
typedef struct {
    int fn;                        /* ROW_* */
    const char *x_s, *mask_s, *gamma_s, *beta_s, *eps_s, *in_s, *res_s;
    tessel_npy_t x, mask, gamma, beta, res;
    tessel_rows_t rows;
    float scale, eps;
} rows_t;

static tessel_status_t call_rows(tessel_dev_t *dev, void *op, void *y, tessel_completion_t *cpl)
{
    rows_t *a = op;   /* an operand not given has data NULL */
    a->rows.y = y;
    switch (a->fn) {
    case ROW_SOFTMAX: return tessel_softmax(dev, &a->rows, a->scale, a->mask.data, cpl);
    case ROW_LAYERNORM: return tessel_layernorm(dev, &a->rows, a->gamma.data, a->beta.data, a->eps, cpl);
    case ROW_RMSNORM: return tessel_rmsnorm(dev, &a->rows, a->gamma.data, a->eps, cpl);
    case ROW_GELU: return tessel_gelu(dev, &a->rows, cpl);
    default: return tessel_silu(dev, &a->rows, cpl);
    }
}

/* gamma or beta (`what`): float32, 1-D, n values. */
static int row_param_check(const tessel_npy_t *p, const char *what, uint64_t n)
{
    char s[192];
    if (f32_check(p, what, 1))
        return EXIT_USAGE;
    if (p->ndim != 1 || p->shape[0] != n)
        return fail(EXIT_USAGE, "%s is %s: it must be 1-D with %" PRIu64 " values (X's last dimension)", what,
                    shape_text(s, sizeof s, p->shape, p->ndim), n);
    return 0;
}

static int rows_run(run_t *r, rows_t *a)
{
    const tessel_npy_t *X = &a->x;
    char xs[192], ms[192];
    tessel_dtype_t outd;
    if (f32_check(X, "X", 1))
        return EXIT_USAGE;
    uint64_t n = X->shape[X->ndim - 1], m = product(X->shape, X->ndim - 1);
    if (m > UINT32_MAX || n > UINT32_MAX)
        return fail(EXIT_USAGE, "X has %" PRIu64 " rows of %" PRIu64 " values: both must fit in 32 bits", m, n);
    shape_text(xs, sizeof xs, X->shape, X->ndim);
    const struct {
        const char *s, *what;
        const tessel_npy_t *v;
    } like_x[] = {{a->mask_s, "the mask", &a->mask}, {a->res_s, "the residual", &a->res}};
    for (size_t i = 0; i < sizeof like_x / sizeof like_x[0]; i++) {   /* operands of X's shape */
        const tessel_npy_t *v = like_x[i].v;
        if (!like_x[i].s)
            continue;
        if (f32_check(v, like_x[i].what, 1))
            return EXIT_USAGE;
        if (v->ndim != X->ndim || memcmp(v->shape, X->shape, X->ndim * sizeof X->shape[0]))
            return fail(EXIT_USAGE, "shape mismatch: %s is %s, X is %s (%s must have X's shape)", like_x[i].what,
                        shape_text(ms, sizeof ms, v->shape, v->ndim), xs, like_x[i].what);
    }
    if ((a->gamma_s && row_param_check(&a->gamma, "gamma", n)) || (a->beta_s && row_param_check(&a->beta, "beta", n)))
        return EXIT_USAGE;
    tessel_dtype_t in = a->rows.in_dtype;
    if (out_dtype_of(r, TESSEL_FP32, &outd))
        return EXIT_USAGE;
    a->rows = (tessel_rows_t){.m = (uint32_t)m, .n = (uint32_t)n, .in_dtype = in, .out_dtype = outd, .x = X->data,
                              .ldx = (size_t)n, .ldy = (size_t)n, .residual = a->res.data};
    job_t j = {.in = in, .out = outd, .y_name = "Y", .ndim = X->ndim, .call = call_rows, .op = a};
    memcpy(j.shape, X->shape, X->ndim * sizeof X->shape[0]);
    snprintf(j.dims, sizeof j.dims, "%s (%" PRIu64 " rows of %" PRIu64 ")", xs, m, n);
    json_list(j.json, sizeof j.json, "x", X->shape, X->ndim);
    appendf(j.json, sizeof j.json, ", \"rows\": %" PRIu64 ", \"n\": %" PRIu64, m, n);
    return run_job(r, &j);
}

/* softmax, layernorm, rmsnorm, gelu and silu (argv[0]). */
static int cmd_rows(int argc, char **argv)
{
    rows_t a = {.eps = 1e-5f};
    while (strcmp(argv[0], row_fns[a.fn].name))   /* the dispatcher calls this for row_fns' names only */
        a.fn++;
    unsigned takes = row_fns[a.fn].takes;
    run_t r;
    run_init(&r, row_fns[a.fn].name, takes & ROW_MASK ? TAKES_SCALE : 0);
    own_opt_t own[7] = {{"--x", &a.x_s, NULL}, {"--in-dtype", &a.in_s, NULL}};
    size_t n_own = 2;
    if (takes & ROW_MASK)
        own[n_own++] = (own_opt_t){"--mask", &a.mask_s, NULL};
    if (takes & ROW_GAMMA) {
        own[n_own++] = (own_opt_t){"--gamma", &a.gamma_s, NULL};
        own[n_own++] = (own_opt_t){"--eps", &a.eps_s, NULL};
        own[n_own++] = (own_opt_t){"--residual", &a.res_s, NULL};
    }
    if (takes & ROW_BETA)
        own[n_own++] = (own_opt_t){"--beta", &a.beta_s, NULL};
    if (parse_run(&r, own, n_own, argc, argv))
        return EXIT_USAGE;
    if (!a.x_s || ((takes & ROW_GAMMA) && !a.gamma_s))
        return fail(EXIT_USAGE, "%s needs --x X.npy%s (see tessel --help)", r.sub,
                    takes & ROW_GAMMA ? " and --gamma G.npy" : "");
    a.rows.in_dtype = TESSEL_BF16;
    if (a.in_s && !parse_dtype(a.in_s, &a.rows.in_dtype))
        return fail(EXIT_USAGE, "unknown --in-dtype '%s' (bf16 or fp32; int8 and int32 are names too)", a.in_s);
    if (a.eps_s && parse_f32("--eps", a.eps_s, TESSEL_ARG_EPS, &a.eps))
        return EXIT_USAGE;
    a.scale = r.scale;
    const input_t ins[] = {{"--x", a.x_s},         {"--mask", a.mask_s}, {"--gamma", a.gamma_s},
                           {"--beta", a.beta_s},   {"--residual", a.res_s}};
    if (check_run(&r, ins, 5))
        return EXIT_USAGE;
    int rc = load("X", a.x_s, &a.x) || (a.mask_s && load("mask", a.mask_s, &a.mask)) ||
                     (a.gamma_s && load("gamma", a.gamma_s, &a.gamma)) || (a.beta_s && load("beta", a.beta_s, &a.beta)) ||
                     (a.res_s && load("residual", a.res_s, &a.res))
                 ? EXIT_USAGE : rows_run(&r, &a);
    tessel_npy_free(&a.x);
    tessel_npy_free(&a.mask);
    tessel_npy_free(&a.gamma);
    tessel_npy_free(&a.beta);
    tessel_npy_free(&a.res);
    return rc;
}

/* ---- attention ------------------------------------------------------------------------------- */
static tessel_status_t call_attention(tessel_dev_t *dev, void *op, void *y, tessel_completion_t *cpl)
{
    tessel_attention_t *p = op;
    p->o = y;
    return tessel_attention(dev, p, cpl);
}

static int attention_run(run_t *r, const tessel_npy_t *Q, const tessel_npy_t *K, const tessel_npy_t *V, int causal)
{
    char qs[192], ks[192], vs[192];
    tessel_dtype_t outd;
    if (f32_check(Q, "Q", 2) || f32_check(K, "K", 2) || f32_check(V, "V", 2))
        return EXIT_USAGE;
    uint32_t nd = Q->ndim, lead = nd - 2;
    shape_text(qs, sizeof qs, Q->shape, Q->ndim);
    shape_text(ks, sizeof ks, K->shape, K->ndim);
    shape_text(vs, sizeof vs, V->shape, V->ndim);
    if (K->ndim != nd || V->ndim != nd || memcmp(K->shape, Q->shape, lead * sizeof Q->shape[0]) ||
        memcmp(V->shape, Q->shape, lead * sizeof Q->shape[0]) || K->shape[nd - 1] != Q->shape[nd - 1] ||
        V->shape[nd - 2] != K->shape[nd - 2])
        return fail(EXIT_USAGE, "shape mismatch: Q is %s, K %s, V %s (need ... x Lq x D, ... x Lk x D and ... x Lk x "
                    "Dv, the leading dimensions the same)", qs, ks, vs);
    uint64_t batch = product(Q->shape, lead), lq = Q->shape[nd - 2], d = Q->shape[nd - 1], lk = K->shape[nd - 2];
    uint64_t dv = V->shape[nd - 1];
    if (batch > UINT32_MAX || lq > UINT32_MAX || lk > UINT32_MAX || d > UINT32_MAX || dv > UINT32_MAX)
        return fail(EXIT_USAGE, "attention too large (heads, Lq, Lk, D and Dv must fit in 32 bits)");
    if (out_dtype_of(r, TESSEL_FP32, &outd))
        return EXIT_USAGE;
    tessel_attention_t p = {.batch = (uint32_t)batch, .lq = (uint32_t)lq, .lk = (uint32_t)lk, .d = (uint32_t)d,
                            .dv = (uint32_t)dv, .q = Q->data, .k = K->data, .v = V->data,
                            .scale = r->have_scale ? r->scale : 0.0f, .causal = causal, .out_dtype = outd};
    job_t j = {.in = TESSEL_BF16, .out = outd, .y_name = "O", .ndim = nd, .call = call_attention, .op = &p};
    memcpy(j.shape, Q->shape, nd * sizeof Q->shape[0]);
    j.shape[nd - 1] = dv;
    snprintf(j.dims, sizeof j.dims, "%" PRIu64 " heads, %" PRIu64 "x%" PRIu64 " by %" PRIu64 "x%" PRIu64, batch, lq,
             d, lk, dv);
    json_list(j.json, sizeof j.json, "q", Q->shape, nd);
    json_list(j.json, sizeof j.json, "k", K->shape, nd);
    json_list(j.json, sizeof j.json, "v", V->shape, nd);
    json_list(j.json, sizeof j.json, "o", j.shape, nd);
    appendf(j.json, sizeof j.json, ", \"batch\": %" PRIu64 ", \"lq\": %" PRIu64 ", \"lk\": %" PRIu64 ", \"d\": %"
            PRIu64 ", \"dv\": %" PRIu64 ", \"causal\": %s", batch, lq, lk, d, dv, causal ? "true" : "false");
    return run_job(r, &j);
}

static int cmd_attention(int argc, char **argv)
{
    run_t r;
    run_init(&r, "attention", TAKES_SCALE);
    const char *pq = NULL, *pk = NULL, *pv = NULL;
    int causal = 0;
    const own_opt_t own[] = {{"--q", &pq, NULL}, {"--k", &pk, NULL}, {"--v", &pv, NULL}, {"--causal", NULL, &causal}};
    if (parse_run(&r, own, sizeof own / sizeof own[0], argc, argv))
        return EXIT_USAGE;
    if (!pq || !pk || !pv)
        return fail(EXIT_USAGE, "attention needs --q Q.npy, --k K.npy and --v V.npy (see tessel --help)");
    const input_t ins[] = {{"--q", pq}, {"--k", pk}, {"--v", pv}};
    if (check_run(&r, ins, 3))
        return EXIT_USAGE;
    tessel_npy_t Q = {0}, K = {0}, V = {0};
    int rc = load("Q", pq, &Q) || load("K", pk, &K) || load("V", pv, &V) ? EXIT_USAGE
                                                                           : attention_run(&r, &Q, &K, &V, causal);
    tessel_npy_free(&Q);
    tessel_npy_free(&K);
    tessel_npy_free(&V);
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
    tessel_dev_t *dev = NULL;
    int rc = open_dev(&dev, backend, 0, fw, NULL, NULL, port);
    if (rc)
        return rc;
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

/* ---- collective ------------------------------------------------------------------------------ */
static int cmd_collective(int argc, char **argv)
{
    static const char *const kinds[] = {"all-reduce", "reduce-scatter", "all-gather", "broadcast"};
    static const char *const reds[] = {"sum", "max", "min"};
    if (argc < 2 || argv[1][0] == '-')
        return fail(EXIT_USAGE, "collective: say which: all-reduce, reduce-scatter, all-gather or broadcast");
    tessel_collective_t c = {.dtype = TESSEL_FP32, .op = TESSEL_REDUCE_SUM};
    uint32_t k = 0;
    while (k < 4u && strcmp(argv[1], kinds[k]))
        k++;
    if (k == 4u)
        return fail(EXIT_USAGE, "collective: unknown collective '%s' (all-reduce, reduce-scatter, all-gather, "
                    "broadcast)", argv[1]);
    c.kind = (tessel_coll_t)k;
    const char *backend = "model", *topo = "ring";
    int64_t chips = 0, bytes = 0, root = 0, dx = 0, dy = 0;
    int stats = 0;
    opts_t o = {argc, 2, argv, NULL, ""};
    for (; o.i < argc; o.i++) {
        const char *a = argv[o.i], *n, *v;
        if (a[0] != '-' || a[1] != '-')
            return fail(EXIT_USAGE, "collective: unexpected argument '%s' (see tessel --help)", a);
        n = opt_name(&o);
        if (!strcmp(n, "--stats") && !strchr(a, '=')) {
            stats = 1;
            continue;
        }
        static const char *const takes[] = {"--chips", "--bytes", "--topology", "--dims", "--dtype", "--op",
                                            "--root", "--backend"};
        size_t t = 0;
        while (t < sizeof takes / sizeof takes[0] && strcmp(n, takes[t]))
            t++;
        if (t == sizeof takes / sizeof takes[0])
            return fail(EXIT_USAGE, "collective: unknown option %s (see tessel --help)", a);
        if (!(v = opt_value(&o)))
            return EXIT_USAGE;
        const char *x;
        if ((t == 0 && !parse_i64(v, 1, INT32_MAX, &chips)) || (t == 1 && !parse_i64(v, 1, INT64_MAX, &bytes)) ||
            (t == 6 && !parse_i64(v, 0, INT32_MAX, &root)) ||
            (t == 3 && (!(x = dec_prefix(v, 1, INT32_MAX, &dx)) || *x != 'x' || !parse_i64(x + 1, 1, INT32_MAX, &dy))))
            return fail(EXIT_USAGE, "collective: %s '%s' is not %s", n, v, t == 3 ? "DXxDY (e.g. 2x4)" : "a count");
        if (t == 2 && strcmp(v, "ring") && strcmp(v, "torus"))
            return fail(EXIT_USAGE, "collective: --topology '%s' is not ring or torus", v);
        if (t == 4 && (!parse_dtype(v, &c.dtype) || c.dtype == TESSEL_INT8))
            return fail(EXIT_USAGE, "collective: --dtype '%s' is not int32, fp32 or bf16", v);
        if (t == 5) {
            uint32_t r = 0;
            while (r < 3u && strcmp(v, reds[r]))
                r++;
            if (r == 3u)
                return fail(EXIT_USAGE, "collective: --op '%s' is not sum, max or min", v);
            c.op = (tessel_reduce_t)r;
        }
        if (t == 2)
            topo = v;
        if (t == 7)
            backend = v;
    }
    if (!chips || !bytes)
        return fail(EXIT_USAGE, "collective: --chips and --bytes are needed");
    int torus = !strcmp(topo, "torus");
    if (torus && !dx)
        return fail(EXIT_USAGE, "collective: a torus needs --dims DXxDY");
    uint64_t es = c.dtype == TESSEL_BF16 ? 2u : 4u, per = c.kind == TESSEL_ALL_GATHER || c.kind == TESSEL_REDUCE_SCATTER
                                                             ? es * (uint64_t)chips : es;
    if ((uint64_t)bytes % per)
        return fail(EXIT_USAGE, "collective: --bytes %" PRId64 " is not a multiple of %" PRIu64
                    " (the element size%s)", bytes, per, per > es ? " times the chips" : "");
    c.count = (uint64_t)bytes / per;
    c.root = (uint32_t)root;
    tessel_pod_t *pod;
    tessel_status_t st = tessel_pod_open(&pod, backend, (uint32_t)chips, torus ? TESSEL_POD_TORUS : TESSEL_POD_RING,
                                         (uint32_t)dx, (uint32_t)dy);
    if (st)
        return fail(st == TESSEL_EINVAL ? EXIT_USAGE : EXIT_DEV, "collective: %s", tessel_pod_last_error(NULL));
    uint64_t in_bytes = c.kind == TESSEL_REDUCE_SCATTER ? (uint64_t)bytes : c.count * es;
    uint64_t out_bytes = c.kind == TESSEL_ALL_GATHER ? (uint64_t)bytes : c.count * es;
    uint8_t *data = malloc(in_bytes ? in_bytes : 1);
    int rc = 0;
    if (!data) {
        rc = fail(EXIT_DEV, "collective: no host memory");
    } else if ((st = tessel_pod_alloc(pod, in_bytes, &c.in)) || (st = tessel_pod_alloc(pod, out_bytes, &c.out))) {
        rc = fail(EXIT_DEV, "collective: %s", tessel_pod_last_error(pod));
    } else {
        /* chip i's element j: small integers, exact in every dtype and every sum of up to 2^16 chips */
        for (uint32_t i = 0; i < (uint32_t)chips && !rc; i++) {
            for (uint64_t j = 0; j < in_bytes / es; j++) {
                int32_t v = (int32_t)((j * 7u + i * 13u) % 61u) - 30;
                float f = (float)v;
                uint32_t u;
                memcpy(&u, &f, 4);
                if (c.dtype == TESSEL_INT32)
                    memcpy(data + 4 * j, &v, 4);
                else if (c.dtype == TESSEL_FP32)
                    memcpy(data + 4 * j, &u, 4);
                else
                    memcpy(data + 2 * j, (uint8_t *)&u + 2, 2);
            }
            if ((st = tessel_write(tessel_pod_device(pod, i), c.in, data, in_bytes)))
                rc = fail(EXIT_DEV, "collective: %s", tessel_last_error(tessel_pod_device(pod, i)));
        }
        if (!rc && (st = tessel_pod_collective(pod, &c)))
            rc = fail(st == TESSEL_EINVAL || st == TESSEL_ERANGE ? EXIT_USAGE : EXIT_DEV, "collective: %s",
                      tessel_pod_last_error(pod));
    }
    tessel_pod_stats_t s;
    if (!rc && stats && !tessel_pod_stats(pod, &s)) {
        char cyc[32] = "null", alg[32] = "null", bus[32] = "null";
        double n = (double)chips, f = c.kind == TESSEL_ALL_REDUCE ? 2.0 * (n - 1.0) / n
                                      : c.kind == TESSEL_BROADCAST ? 1.0 : (n - 1.0) / n;
        if (s.cycles) {
            snprintf(cyc, sizeof cyc, "%" PRIu64, s.cycles);
            snprintf(alg, sizeof alg, "%.4f", (double)bytes / (double)s.cycles);
            snprintf(bus, sizeof bus, "%.4f", (double)bytes / (double)s.cycles * f);
        }
        printf("{\"collective\": \"%s\", \"backend\": \"%s\", \"chips\": %" PRId64 ", \"topology\": \"%s\", "
               "\"dims\": [%" PRId64 ", %" PRId64 "], \"dtype\": \"%s\", \"op\": \"%s\", \"bytes\": %" PRId64 ", "
               "\"cycles\": %s, \"algbw\": %s, \"busbw\": %s, \"link_bytes_per_cycle\": %u, \"model_cycles\": %" PRIu64
               ", \"ici_bytes\": %" PRIu64 "}\n",
               kinds[k], backend, chips, topo, torus ? dx : chips, torus ? dy : 1, dtype_name(c.dtype), reds[c.op],
               bytes, cyc, alg, bus, (unsigned)TSL_PARAM_ICI_LINK_BYTES_PER_CYCLE, s.model_cycles, s.ici_bytes);
    }
    free(data);
    tessel_pod_close(pod);
    return rc;
}

int tessel_cli_main(int argc, char **argv)
{
    if (argc < 1 || !argv || !argv[0])
        return fail(EXIT_USAGE, "no subcommand given");
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return fputs(tessel_cli_usage, stdout), 0;
    tmp_handlers();
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
        if (!strcmp(argv[0], subcommands[i].name))
            return subcommands[i].run(argc, argv);
    return fail(EXIT_USAGE, "unknown subcommand %s", argv[0]);
}
