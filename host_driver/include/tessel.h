/* libtessel: the host library of the Tessel TPU.
 *
 * One driver, several transports (docs/architecture.md): a transport only reads and writes the
 * device's HOSTIF registers (BAR0) and HBM (BAR1) and waits; everything else — memory allocation,
 * the command and completion rings, completions, errors — lives here once.
 *   model  the golden model with the firmware command processor built natively (fast, exact);
 *   sim    the Verilated SoC running the RV32 firmware (cycle-accurate, slow);
 *   uart   a board (fpga/) through its UART bridge on a serial port (opts->port).
 *
 * Conventions: every function that can fail returns a tessel_status_t (0 or a negative code) and
 * checks its arguments first: a bad argument returns TESSEL_EINVAL with no device access. The
 * library never aborts and never prints. The device handle comes first, out-parameters last.
 * Device addresses are HBM byte offsets. Setting TESSEL_CHECK=1 in the environment (or the
 * TESSEL_OPEN_CHECK flag) mirrors every command on a model device and compares the results.
 */
#ifndef TESSEL_H
#define TESSEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    TESSEL_OK = 0,
    TESSEL_EINVAL = -1,    /* bad argument; nothing was touched */
    TESSEL_ENOMEM = -2,    /* host or device memory exhausted */
    TESSEL_ETIMEOUT = -3,  /* gave up waiting */
    TESSEL_EDEVICE = -4,   /* the device reported an error (see the completion's status/detail) */
    TESSEL_ENODEV = -5,    /* unknown backend, or the device/firmware could not be started */
    TESSEL_ERANGE = -6,    /* an address or size outside the device */
    TESSEL_EIO = -7,       /* transport failure (bus error, lost link) */
    TESSEL_EMISMATCH = -8, /* checking mode: the device's result differs from the model's */
} tessel_status_t;

/* Human-readable text for a status; never NULL. */
const char *tessel_strerror(int status);

typedef struct tessel_dev tessel_dev_t;
typedef uint64_t tessel_addr_t;    /* HBM byte offset */
typedef uint64_t tessel_handle_t;  /* a submitted command */

#define TESSEL_OPEN_CHECK 1u       /* mirror every command on a model device and compare */

typedef struct {
    uint32_t flags;                /* TESSEL_OPEN_* */
    const char *firmware;          /* firmware ELF (NULL: $TESSEL_FIRMWARE, else sim: the built-in
                                      default path; uart: loaded only into a board in BOOT.HOLD) */
    const char *trace;             /* sim: FST waveform path, or NULL */
    const char *timeline;          /* sim: Chrome-trace JSON of every TC instruction, the control core's
                                      phases and each command (docs/performance.md), written by
                                      tessel_close(); NULL for none. Opened (truncated) at tessel_open */
    const char *port;              /* uart: the serial port of the board's UART bridge (/dev/ttyUSB1) */
} tessel_open_opts_t;

/* Open a device on `backend` ("model", "sim" or "uart"); opts may be NULL (not for "uart", which needs
 * opts->port). *dev is NULL on failure. TESSEL_EINVAL, with nothing opened, for an option the backend
 * would ignore (model: firmware, trace, timeline or port; sim: port; uart: trace or timeline) and for
 * a bad environment variable: $TESSEL_TIMEOUT_MS not a decimal number of milliseconds in
 * 1..4294967294, $TESSEL_CHECK not "", "0" or "1"; tessel_last_error(NULL) says which. */
__attribute__((warn_unused_result)) tessel_status_t tessel_open(tessel_dev_t **dev, const char *backend,
                                                                const tessel_open_opts_t *opts);
/* Close and free everything the device owns. NULL is ignored. */
void tessel_close(tessel_dev_t *dev);

/* Reset the device: hold and reset its cores, drop every queued command that has not completed
 * (a later tessel_wait on one gives TESSEL_EIO, "cancelled by tessel_reset"; commands that had
 * completed keep their completions), restart the firmware and set the rings up again. HBM
 * contents, allocations and statistics are kept; the memory of the dropped commands is free again
 * (the in-flight rule). The way back after a watchdog reset (TESSEL_EIO, fault code 3), a
 * command that never completes, or an RTL assertion that failed on the sim (every call is then
 * TESSEL_EDEVICE with the assertion's message until this builds the simulated SoC anew, HBM kept).
 * TESSEL_ETIMEOUT when the firmware does not start again (a DMA burst the memory never answers:
 * close and reopen). */
__attribute__((warn_unused_result)) tessel_status_t tessel_reset(tessel_dev_t *dev);

typedef struct {
    const char *backend;           /* "model", "sim" or "uart" */
    uint32_t n;                    /* MXU size */
    uint32_t vmem_bytes, acc_bytes;
    uint64_t hbm_bytes;
    uint32_t features;             /* TC CFG_FEATURES bits */
    uint32_t hbm_bytes_per_cycle;  /* bandwidth the roofline uses */
} tessel_info_t;

tessel_status_t tessel_info(tessel_dev_t *dev, tessel_info_t *out);

/* One line about the device's most recent failure (EDEVICE: command, tag, CMD_ERR name, status
 * and detail; EMISMATCH: command opcode/tag, first differing HBM address, expected (model) and
 * received bytes; ETIMEOUT, EIO and ERANGE: what was refused; an op's EINVAL: the one rule its
 * arguments break, e.g. "tessel_gemm: rq_shift 63 is outside 0..62", for a front end to show as
 * it is). Not cleared by later successes; "" before any failure; never NULL. With NULL: why this
 * thread's most recent tessel_open or tessel_f32_arg failed ("" if it succeeded). */
const char *tessel_last_error(tessel_dev_t *dev);

/* Float arguments. The device takes a scale or an eps as float32, and the library's float fields
 * read a scale of 0 as "not given" (no scale; attention: 1/sqrt(d)). A front end holding the user's
 * value as a double (the CLI's --scale and --eps, Python's scale= and eps=) passes it here, given
 * or not, and puts *out in the field: this is the one rule for these arguments.
 *   TESSEL_ARG_SCALE  finite, not 0, and its float32 a normal number (|v| from about 1.2e-38 to
 *                     3.4e38): a scale that rounds to 0, is subnormal (the device reads a subnormal
 *                     as 0) or overflows would change the result.
 *   TESSEL_ARG_EPS    finite, >= 0, its float32 finite and not subnormal, and not 0 unless v is 0.
 * TESSEL_EINVAL otherwise, *out untouched, and tessel_last_error(NULL) gives "NAME V is refused:
 * why" (name: what the user typed, "--scale" or "scale"). The calls that take these fields apply
 * the same rule to the float they get (a scale that is not finite, a negative eps: TESSEL_EINVAL). */
typedef enum { TESSEL_ARG_SCALE = 0, TESSEL_ARG_EPS = 1 } tessel_arg_t;

__attribute__((warn_unused_result)) tessel_status_t tessel_f32_arg(const char *name, double v, tessel_arg_t kind,
                                                                   float *out);

/* Checking mode: the shadow model device that mirrors `dev` (NULL when not checking). Writing to
 * it directly makes the two diverge (the tests use this to provoke TESSEL_EMISMATCH). */
tessel_dev_t *tessel_shadow(tessel_dev_t *dev);

/* Device memory: a first-fit allocator over HBM. [0, TESSEL_HBM_RESERVED) holds the command and
 * completion rings; tessel_read/tessel_write refuse it, the allocator starts after it, and
 * tessel_submit refuses a command that would read or write it (TESSEL_ERANGE).
 * In-flight rule: device memory that a submitted command may still touch (its operands' extents)
 * is never handed out by tessel_alloc until that command has completed (its completion was read)
 * or the device was reset (tessel_reset) or closed, whatever happened to the command's wait (a timeout, an error) and
 * whether or not the caller already freed the memory. tessel_free is immediate; only the reuse
 * waits. */
#define TESSEL_HBM_RESERVED 0x2000u
__attribute__((warn_unused_result)) tessel_status_t tessel_alloc(tessel_dev_t *dev, size_t bytes, size_t align,
                                                                 tessel_addr_t *out);
tessel_status_t tessel_free(tessel_dev_t *dev, tessel_addr_t addr);
__attribute__((warn_unused_result)) tessel_status_t tessel_write(tessel_dev_t *dev, tessel_addr_t dst,
                                                                 const void *src, size_t bytes);
__attribute__((warn_unused_result)) tessel_status_t tessel_read(tessel_dev_t *dev, void *dst, tessel_addr_t src,
                                                                size_t bytes);

/* A raw 64-byte command (docs/isa.md §7; the fields with TSL_CMD_* in tsl_hw.h). Unused fields 0. */
typedef struct {
    uint32_t w[16];
} tessel_cmd_t;

typedef struct {
    uint32_t tag;
    int32_t status;                /* CMD_ERR code (0 = OK) */
    uint32_t opcode, cycles, detail;
} tessel_completion_t;

/* Queue a command (the library sets TAG); returns at once with a handle. TESSEL_ERANGE, with
 * nothing sent, when an operand the command reads or writes reaches into [0, TESSEL_HBM_RESERVED);
 * the firmware refuses such a command too (CMD_ERR_BAD_ADDR), so the rings cannot be corrupted. */
__attribute__((warn_unused_result)) tessel_status_t tessel_submit(tessel_dev_t *dev, const tessel_cmd_t *cmd,
                                                                  tessel_handle_t *out);
/* Wait up to timeout_ms (wall clock) for a command. TESSEL_EDEVICE when it completed with an error
 * status (the completion is filled in either way; out may be NULL). Commands may be waited for in
 * any order; each handle once (a handle not outstanding is TESSEL_EINVAL). timeout_ms = 0 looks
 * once and gives TESSEL_ETIMEOUT if the command is not complete yet; it stays outstanding.
 * TESSEL_TIMEOUT_AUTO: a limit derived from the size of this command and of those queued before
 * it, and from the backend (docs/reliability.md, "Limits"): counted in device cycles on the sim,
 * in wall-clock time elsewhere. */
#define TESSEL_TIMEOUT_AUTO 0xFFFFFFFFu
__attribute__((warn_unused_result)) tessel_status_t tessel_wait(tessel_dev_t *dev, tessel_handle_t h,
                                                                uint32_t timeout_ms, tessel_completion_t *out);

/* Graphs: several commands compiled into one device program and run with one submission (docs/
 * host-api.md, "Graphs"). Each command runs after the one before it has finished, as if submitted
 * one by one, without the device's cost per command (fetch, completion, the wait for the idle tensor
 * core). tessel_graph_add compiles the command at once: TESSEL_EDEVICE with the firmware's status
 * (BAD_SHAPE, ...) when it is refused, TESSEL_ERANGE as tessel_submit; the graph is then as it was.
 * Only the operations the host compiles (GEMM, ELTWISE, COPY, FILL, CONV2D, POOL2D, ROWWISE,
 * ATTENTION) go in a graph. tessel_graph_submit queues the whole graph as one command (a handle for
 * tessel_wait, whose completion has the first command's opcode); a graph can be submitted again, and
 * destroyed once submitted. */
typedef struct tessel_graph tessel_graph_t;
__attribute__((warn_unused_result)) tessel_status_t tessel_graph_create(tessel_dev_t *dev, tessel_graph_t **out);
__attribute__((warn_unused_result)) tessel_status_t tessel_graph_add(tessel_graph_t *g, const tessel_cmd_t *cmd);
__attribute__((warn_unused_result)) tessel_status_t tessel_graph_submit(tessel_graph_t *g, tessel_handle_t *out);
void tessel_graph_destroy(tessel_graph_t *g);

/* The program cache (docs/host-api.md, "Program cache"): per device, the programs the library
 * compiled, keyed by the command's 16 words (for a graph's command also: behind another one), never
 * by data; at most this many, the least recently used making room; emptied by tessel_reset. */
#define TESSEL_PROGRAM_CACHE_ENTRIES 64u

/* Counters accumulated over the commands this device completed (the program cache's: over the
 * commands compiled, at tessel_submit and tessel_graph_add). */
typedef struct {
    uint64_t commands;             /* each command of a graph counts */
    uint64_t submissions;          /* completions the device posted: a graph is one */
    uint64_t cycles;               /* sum of completion CYCLES */
    uint64_t macs;                 /* MACs the GEMMs issued: M * Kp * Np, K and N padded up to multiples
                                      of the MXU N (= the hardware's PERF_MXU_MACS, N*N per MATMUL row) */
    uint64_t hbm_bytes;            /* compulsory HBM bytes of the successful commands (each operand,
                                      bias and result once; the tiling may re-read A or B) */
    uint64_t program_cache_hits;   /* commands whose program (or refusal) came from the cache */
    uint64_t program_cache_misses; /* commands the compiler ran for */
} tessel_stats_t;

tessel_status_t tessel_stats(tessel_dev_t *dev, tessel_stats_t *out);
void tessel_stats_reset(tessel_dev_t *dev);

/* ---- the matmul library --------------------------------------------------------------------- */
typedef enum { TESSEL_INT8 = 0, TESSEL_BF16 = 1, TESSEL_INT32 = 2, TESSEL_FP32 = 3 } tessel_dtype_t;

/* gen:epilogue */
/* A GEMM epilogue's last step, after the bias and ReLU (hw/spec/tessel.toml [gemm_post]; generated
 * by `make gen`). BF16 inputs only; TESSEL_EPILOGUE_NAMES are the Python names. */
typedef enum {
    TESSEL_EPILOGUE_NONE = 0,
    TESSEL_EPILOGUE_GELU = 1, /* GELU (its tanh form) of the result; not with relu */
    TESSEL_EPILOGUE_ADD_C = 2, /* C = epilogue(A x B) + C: C's old value added (in FP32, a residual connection) */
    TESSEL_EPILOGUE_SILU = 3, /* SiLU of the result; not with relu */
} tessel_epilogue_t;
#define TESSEL_EPILOGUE_COUNT 4
#define TESSEL_EPILOGUE_NAMES {"none", "gelu", "add_c", "silu"}
/* /gen:epilogue */

/* C = epilogue(A x B) for host row-major operands of any shape. in_dtype INT8: A and B are int8_t,
 * C is int32_t (out_dtype INT32) or int8_t (INT8, requantised). in_dtype BF16: A and B are float,
 * rounded to bf16 on the way in; C is float (FP32) or float holding bf16-rounded values (BF16).
 * Strides are in elements. Epilogue order as docs/isa.md §7: scale (float C), bias, ReLU, the
 * last step (epilogue: GELU, the old C added, ...), then the conversion to out_dtype. */
typedef struct {
    uint32_t m, n, k;
    tessel_dtype_t in_dtype, out_dtype;
    const void *a; size_t lda;
    const void *b; size_t ldb;
    void *c; size_t ldc;
    const void *bias;              /* NULL, or n int32_t (int8 in) / float (bf16 in) */
    int relu;
    float scale;                   /* float C: multiplier applied first (1.0f or 0.0f: none; with INT8
                                      inputs it must be 1.0f or 0.0f; finite, see tessel_f32_arg) */
    int32_t rq_scale;              /* INT8 out: requantisation multiplier, shift (<= 62), zero point;
                                      all three must be 0 for other outputs */
    uint32_t rq_shift;
    int32_t rq_zero_point;
    tessel_epilogue_t epilogue;    /* BF16 in: the last step (above); TESSEL_EPILOGUE_ADD_C reads C's values first
                                      (bf16 rounded for a BF16 C) */
} tessel_gemm_t;

/* The GEMM of operands already in device memory, as a command for tessel_submit or tessel_graph_add
 * (asynchronous: nothing runs here): a, b, c and bias are device addresses (bias 0: none; its n values
 * int32 or float as tessel_gemm's; TESSEL_ERANGE for one past 32 bits), strides in elements (0: dense),
 * the other fields as tessel_gemm_t's and checked as tessel_gemm checks them (TESSEL_EINVAL with the
 * reason in tessel_last_error). Operands are int8 or bf16 A and B, C in out_dtype. tessel_gemm is
 * this, with its host operands written to buffers of its own first and C read back after. */
typedef struct {
    uint32_t m, n, k;
    tessel_dtype_t in_dtype, out_dtype;
    tessel_addr_t a, b, c, bias;
    uint32_t lda, ldb, ldc;
    int relu;
    float scale;
    int32_t rq_scale;
    uint32_t rq_shift;
    int32_t rq_zero_point;
    tessel_epilogue_t epilogue;
} tessel_gemm_op_t;
__attribute__((warn_unused_result)) tessel_status_t tessel_gemm_cmd(tessel_dev_t *dev, const tessel_gemm_op_t *op,
                                                                    tessel_cmd_t *cmd);

/* cpl may be NULL. Timeout: $TESSEL_TIMEOUT_MS in ms when set, else TESSEL_TIMEOUT_AUTO (derived
 * from the GEMM's size and the backend); the same for every call below that runs commands. A
 * value that is not a decimal number in 1..4294967294 is TESSEL_EINVAL before anything is sent
 * (tessel_open refuses it too). On any failure after the submit (a timeout, a halted
 * firmware) the command may still be queued: its buffers are released under the in-flight rule
 * above, so no later call is given memory it may still write. */
__attribute__((warn_unused_result)) tessel_status_t tessel_gemm(tessel_dev_t *dev, const tessel_gemm_t *g,
                                                                tessel_completion_t *cpl);

/* ---- convolution and pooling ---------------------------------------------------------------- */
/* Output size along one axis of a window op: (in + pad0 + pad1 - dil*(k-1) - 1) / stride + 1, or 0
 * when the window does not fit the padded input or k, stride or dil is 0. */
uint32_t tessel_window_out(uint32_t in, uint32_t pad0, uint32_t pad1, uint32_t k, uint32_t stride, uint32_t dil);

/* Y = epilogue(conv2d(X, W)) (docs/isa.md §7, CONV2D): X dense NHWC (batch x h x w x c), W dense
 * HWIO (kh x kw x c/groups x cout), Y dense batch x oh x ow x cout (tessel_window_out). Types and
 * the epilogue are tessel_gemm's: int8 X and weights (int8_t) give int32 Y, or int8 with requantisation;
 * float X and weights are rounded to bf16 and give float Y (FP32, or BF16-rounded). Padding reads
 * x_zero_point (int8; 0 for float). Bias: cout int32_t or float. The input is never rearranged in
 * memory (the firmware's implicit im2col). Every size, stride, dil and groups is at least 1:
 * 0 is TESSEL_EINVAL, naming the field. */
typedef struct {
    uint32_t batch, h, w, c;
    uint32_t cout, kh, kw, groups;
    uint32_t stride_h, stride_w, pad_t, pad_b, pad_l, pad_r, dil_h, dil_w;
    tessel_dtype_t in_dtype, out_dtype;
    const void *x, *weights;
    void *y;
    const void *bias;
    int relu;
    float scale;                   /* as tessel_gemm */
    int32_t x_zero_point;          /* INT8: the input zero point, -128..127; 0 for BF16 */
    int32_t rq_scale;              /* INT8 out: as tessel_gemm; all 0 for other outputs */
    uint32_t rq_shift;
    int32_t rq_zero_point;
} tessel_conv2d_t;

__attribute__((warn_unused_result)) tessel_status_t tessel_conv2d(tessel_dev_t *dev, const tessel_conv2d_t *p,
                                                                  tessel_completion_t *cpl);

/* Y = pool(X) over windows of dense NHWC X into dense Y (batch x oh x ow x c). MAX: the largest
 * value of each window, padding excluded (it reads as the lowest value); INT8 -> INT8, BF16 -> BF16
 * (float in, bf16-rounded float out). AVG: the mean of the kh*kw taps, padding included (as
 * PyTorch's count_include_pad); INT8 -> INT8 with the input's quantisation, rounded to nearest,
 * ties away from zero (padding reads x_zero_point); BF16 -> FP32 or BF16, the fp32 sum times
 * fp32(1/(kh*kw)).
 * Sizes, strides and dil are at least 1, as tessel_conv2d's. */
typedef enum { TESSEL_POOL_MAX = 0, TESSEL_POOL_AVG = 1 } tessel_pool_kind_t;

typedef struct {
    tessel_pool_kind_t kind;
    uint32_t batch, h, w, c, kh, kw;
    uint32_t stride_h, stride_w, pad_t, pad_b, pad_l, pad_r, dil_h, dil_w;
    tessel_dtype_t in_dtype, out_dtype;
    const void *x;
    void *y;
    int32_t x_zero_point;          /* AVG of INT8: the padding value, -128..127; else 0 */
} tessel_pool2d_t;

__attribute__((warn_unused_result)) tessel_status_t tessel_pool2d(tessel_dev_t *dev, const tessel_pool2d_t *p,
                                                                  tessel_completion_t *cpl);

/* The encoders of operands already in device memory (tessel_gemm_cmd's pattern): each fills the 16
 * words of one command for tessel_submit or tessel_graph_add (asynchronous: nothing runs here) and
 * checks its arguments first, as the synchronous call checks them: TESSEL_EINVAL with the reason in
 * tessel_last_error for anything the command cannot express, TESSEL_ERANGE for an address past the
 * command's 32 bits; *cmd is untouched then. Addresses are device addresses (tessel_alloc), 0 for an
 * optional operand not given; strides are in elements, 0 for dense rows (tessel_gemm_cmd's too). The
 * synchronous call is the encoder with its
 * host operands written to buffers of its own first and the result read back after.
 *
 * CONV2D: x dense NHWC, weights dense HWIO, y dense batch x oh x ow x cout, bias cout int32 or float
 * values (0: none); every other field as tessel_conv2d_t's. */
typedef struct {
    uint32_t batch, h, w, c;
    uint32_t cout, kh, kw, groups;
    uint32_t stride_h, stride_w, pad_t, pad_b, pad_l, pad_r, dil_h, dil_w;
    tessel_dtype_t in_dtype, out_dtype;
    tessel_addr_t x, weights, y, bias;
    int relu;
    float scale;
    int32_t x_zero_point;
    int32_t rq_scale;
    uint32_t rq_shift;
    int32_t rq_zero_point;
} tessel_conv2d_op_t;
__attribute__((warn_unused_result)) tessel_status_t tessel_conv2d_cmd(tessel_dev_t *dev, const tessel_conv2d_op_t *op,
                                                                      tessel_cmd_t *cmd);

/* POOL2D: x dense NHWC, y dense batch x oh x ow x c; every other field as tessel_pool2d_t's (the
 * scale of an average is the library's: 1/(kh*kw) in fp32, or int8's exact rounding). */
typedef struct {
    tessel_pool_kind_t kind;
    uint32_t batch, h, w, c, kh, kw;
    uint32_t stride_h, stride_w, pad_t, pad_b, pad_l, pad_r, dil_h, dil_w;
    tessel_dtype_t in_dtype, out_dtype;
    tessel_addr_t x, y;
    int32_t x_zero_point;
} tessel_pool2d_op_t;
__attribute__((warn_unused_result)) tessel_status_t tessel_pool2d_cmd(tessel_dev_t *dev, const tessel_pool2d_op_t *op,
                                                                      tessel_cmd_t *cmd);

/* ---- row functions: softmax, layer norm, RMS norm, GELU, SiLU -------------------------------- */
/* y = f(x) row by row for an m x n float matrix (strides in elements), one ROWWISE command
 * (docs/isa.md §7): computed in FP32 on the device from x rounded to bf16 (in_dtype BF16) or
 * taken as it is (FP32); y is FP32, or BF16-rounded floats (out_dtype BF16). The norms take a
 * residual too: NULL, or m x n values, ldx apart, of out_dtype (bf16-rounded for BF16), added to x
 * in FP32 first, y = norm(x + residual), in the same command (ADD_C); every other function takes
 * NULL. */
typedef struct {
    uint32_t m, n;
    tessel_dtype_t in_dtype, out_dtype;
    const float *x;
    size_t ldx;
    float *y;
    size_t ldy;
    const float *residual;
} tessel_rows_t;

/* softmax(x * scale + mask) of each row (scale 0 or 1: none, else finite; mask NULL, or m x n
 * additive values, row-major, e.g. -inf above the diagonal for a causal mask), the row max
 * subtracted first. */
__attribute__((warn_unused_result)) tessel_status_t tessel_softmax(tessel_dev_t *dev, const tessel_rows_t *r,
                                                                   float scale, const float *mask,
                                                                   tessel_completion_t *cpl);
/* (x - mean) / sqrt(var + eps) * gamma + beta (beta NULL: 0); gamma and beta have n values; eps
 * finite and >= 0 (as for rmsnorm). */
__attribute__((warn_unused_result)) tessel_status_t tessel_layernorm(tessel_dev_t *dev, const tessel_rows_t *r,
                                                                     const float *gamma, const float *beta, float eps,
                                                                     tessel_completion_t *cpl);
/* x / sqrt(mean(x^2) + eps) * gamma. */
__attribute__((warn_unused_result)) tessel_status_t tessel_rmsnorm(tessel_dev_t *dev, const tessel_rows_t *r,
                                                                   const float *gamma, float eps,
                                                                   tessel_completion_t *cpl);
/* GELU, tanh form: x * sigmoid(2 sqrt(2/pi) (x + 0.044715 x^3)) (PyTorch's approximate='tanh'). */
__attribute__((warn_unused_result)) tessel_status_t tessel_gelu(tessel_dev_t *dev, const tessel_rows_t *r,
                                                                tessel_completion_t *cpl);
/* Elementwise functions, one ELTWISE command (docs/isa.md §7) with the VPU's FP32 rules: y = op(x, b)
 * for the binary ones (b is m x n, stride ldx, of x's dtype), y = op(x) for the unary ones (b NULL).
 * RELU is max(x, 0) with -0 kept; EXP, RECIP and RSQRT are the VPU's (isa.md gives their ulp
 * bounds). */
typedef enum {
    TESSEL_EW_ADD = 0, TESSEL_EW_MUL = 1, TESSEL_EW_MAX = 2, TESSEL_EW_MIN = 3,   /* binary */
    TESSEL_EW_RELU = 4, TESSEL_EW_EXP = 5, TESSEL_EW_RECIP = 6, TESSEL_EW_RSQRT = 7,  /* unary */
    TESSEL_EW_MOV = 8   /* unary: y = x, converted to out_dtype (FP32 to BF16 to nearest even) */
} tessel_eltwise_op_t;

__attribute__((warn_unused_result)) tessel_status_t tessel_eltwise(tessel_dev_t *dev, const tessel_rows_t *r,
                                                                   tessel_eltwise_op_t op, const float *b,
                                                                   tessel_completion_t *cpl);
/* y = x + b: tessel_eltwise's ADD, e.g. a residual connection. */
__attribute__((warn_unused_result)) tessel_status_t tessel_add(tessel_dev_t *dev, const tessel_rows_t *r,
                                                               const float *b, tessel_completion_t *cpl);
/* SiLU: x * sigmoid(x). */
__attribute__((warn_unused_result)) tessel_status_t tessel_silu(tessel_dev_t *dev, const tessel_rows_t *r,
                                                                tessel_completion_t *cpl);

/* The ROWWISE and ELTWISE commands of device buffers (the encoders' rules above tessel_conv2d_op_t).
 * x and y: m rows of n values, ldx and ldy elements apart, of in_dtype and out_dtype (BF16 or FP32
 * each). ROWWISE computes fn of each row:
 *   SOFTMAX    softmax(x * scale + mask): scale as tessel_softmax's; mask 0 or m x n FP32 values,
 *              ldmask elements apart
 *   LAYERNORM  gamma (n FP32 values, needed), beta (n FP32, 0: none), eps as tessel_layernorm's
 *   RMSNORM    gamma and eps as tessel_rmsnorm's
 *   GELU, SILU as tessel_gelu and tessel_silu
 *   SUM        each row's sum, in every column of the row
 * A field that fn does not read must be 0. */
typedef enum {
    TESSEL_ROW_SOFTMAX = 0, TESSEL_ROW_LAYERNORM = 1, TESSEL_ROW_RMSNORM = 2,
    TESSEL_ROW_GELU = 3, TESSEL_ROW_SILU = 4, TESSEL_ROW_SUM = 5
} tessel_row_fn_t;

typedef struct {
    tessel_row_fn_t fn;
    uint32_t m, n;
    tessel_dtype_t in_dtype, out_dtype;
    tessel_addr_t x, y;
    uint32_t ldx, ldy;
    float scale;                   /* SOFTMAX */
    tessel_addr_t mask;            /* SOFTMAX */
    uint32_t ldmask;
    tessel_addr_t gamma, beta;     /* the norms */
    float eps;
    int add_y;                     /* the norms: 1 adds y's old value to x first, y = norm(x + y) */
} tessel_rows_op_t;
__attribute__((warn_unused_result)) tessel_status_t tessel_rowwise_cmd(tessel_dev_t *dev, const tessel_rows_op_t *op,
                                                                       tessel_cmd_t *cmd);

/* ELTWISE: y = op(x) for the unary ops; for the binary ones y = op(x, B), B one of: an m x n matrix
 * of in_dtype at b, ldb elements apart; one row of n values of in_dtype at b, the same for every row
 * (b_row); the scalar imm (b_imm, b 0), rounded to FP32. */
typedef struct {
    tessel_eltwise_op_t op;
    uint32_t m, n;
    tessel_dtype_t in_dtype, out_dtype;
    tessel_addr_t x, y, b;
    uint32_t ldx, ldy, ldb;
    int b_row, b_imm;
    float imm;
} tessel_ew_op_t;
__attribute__((warn_unused_result)) tessel_status_t tessel_eltwise_cmd(tessel_dev_t *dev, const tessel_ew_op_t *op,
                                                                       tessel_cmd_t *cmd);

/* ---- batched matmul and attention ------------------------------------------------------------ */
/* C[i] = epilogue(A[i] x B[i]) for i < batch: tessel_gemm's operands and rules, each a dense block,
 * the blocks one after another (A: batch x m x k, B: batch x k x n, C: batch x m x n). One GEMM
 * command per block, each a tessel_gemm, one after another (the first failure stops it). g->lda, ldb
 * and ldc are ignored. */
__attribute__((warn_unused_result)) tessel_status_t tessel_bmm(tessel_dev_t *dev, const tessel_gemm_t *g,
                                                               uint32_t batch);

/* O = softmax(Q K^T * scale + mask) V for `batch` independent heads, in bf16 with FP32 accumulation
 * (docs/networks.md): the FP32 scores, scaled, the causal mask (-inf where key j > query i + lk -
 * lq), the softmax rounded to BF16 probabilities, the product with V. One ATTENTION command runs
 * every head with the scores kept on chip; when the device refuses it (a head's tiles do not fit
 * VMEM and ACC, or a size over 65535), three commands a head do the same, bit for bit: a GEMM, a
 * ROWWISE softmax and a GEMM, queued together (cpl: the last command's completion). Q: batch x lq
 * x d, K: batch x lk x d (uploaded transposed), V: batch x lk x dv, O: batch x lq x dv, all dense
 * float. scale 0: 1/sqrt(d), else finite. */
typedef struct {
    uint32_t batch, lq, lk, d, dv;
    const float *q, *k, *v;
    float *o;
    float scale;
    int causal;
    tessel_dtype_t out_dtype;      /* FP32 or BF16 */
} tessel_attention_t;

__attribute__((warn_unused_result)) tessel_status_t tessel_attention(tessel_dev_t *dev, const tessel_attention_t *a,
                                                                     tessel_completion_t *cpl);

/* One ATTENTION command of device buffers (the encoders' rules above tessel_conv2d_op_t), every head
 * on chip: O = softmax(Q K^T * scale + mask) V, batch heads (1..65535, as lq, lk, d and dv), Q, K and
 * V BF16, O out_dtype (FP32 or BF16); scale and causal as tessel_attention's. Each operand's heads
 * are stacked (head h: rows h*l.. for an operand of l rows a head), or with head_columns side by side
 * (head h: columns h*d.. of Q, h*dv.. of V and O; rows then hold every head). k is K transposed, d
 * rows of lk values per head, stacked; or with k_rows K itself, lk rows of d per head, laid out as Q
 * (needs CFG_FEATURES.TRANSPOSE: the device refuses it otherwise). Strides (ldq, ldk, ldv, ldo) in
 * elements, at least a row of every head the row holds (0: that). When the tiles of a head do not fit on chip
 * the device refuses the command (TESSEL_EDEVICE, BAD_SHAPE), and tessel_attention's three commands
 * a head do the same work. */
typedef struct {
    uint32_t batch, lq, lk, d, dv;
    tessel_addr_t q, k, v, o;
    uint32_t ldq, ldk, ldv, ldo;
    float scale;
    int causal, head_columns, k_rows;
    tessel_dtype_t out_dtype;
} tessel_attention_op_t;
__attribute__((warn_unused_result)) tessel_status_t tessel_attention_cmd(tessel_dev_t *dev,
                                                                         const tessel_attention_op_t *op,
                                                                         tessel_cmd_t *cmd);

/* Custom kernels (docs/host-api.md, "Custom kernels"; docs/sdk.md): C code for the control core,
 * built with sdk/kernel.mk into a flat image, that the KERNEL command copies into the control core's
 * RAM and calls with up to TESSEL_KERNEL_ARGS argument words, between other commands. Only a device
 * whose firmware runs on a control core runs kernels (the sim backend, boards with one); on the
 * model backend, and the uart one of a board without it, every run fails with TESSEL_EDEVICE
 * ("cannot run kernels"). A loaded kernel is its image in HBM: */
#define TESSEL_KERNEL_ARGS 8u                   /* TSL_PARAM_KERNEL_ARGS */
#define TESSEL_KERNEL_MAX_BYTES 3072u           /* TSL_PARAM_KERNEL_BYTES: the largest image */
#define TESSEL_KERNEL_BUDGET_DEFAULT 10000000u  /* device cycles a run may take when given 0 */
typedef struct {
    tessel_addr_t addr;            /* the image in HBM (from tessel_alloc); 0 after tessel_kernel_free */
    uint32_t bytes;                /* its size, a multiple of 4, 1..TESSEL_KERNEL_MAX_BYTES */
} tessel_kernel_t;

/* Upload the `bytes`-byte kernel image to HBM once, for any number of runs. TESSEL_EINVAL, with
 * nothing allocated, for a NULL argument or a size that is 0, not a multiple of 4 or larger than
 * TESSEL_KERNEL_MAX_BYTES (the kernel region); TESSEL_ENOMEM when HBM is full. The caller owns *out
 * and gives it back with tessel_kernel_free. */
__attribute__((warn_unused_result)) tessel_status_t tessel_kernel_load(tessel_dev_t *dev, const void *image,
                                                                       size_t bytes, tessel_kernel_t *out);

/* Run kernel `k` with args[0..nargs) (the rest 0) and wait for it. The kernel's return value
 * (>= 0) is cpl->detail; a negative one is TESSEL_EDEVICE with CMD_ERR_KERNEL in cpl->status, the
 * value in cpl->detail and in the message; a trap (an illegal instruction, a bad access, ECALL) is
 * TESSEL_EDEVICE with CMD_ERR_KERNEL_TRAP, mcause in cpl->detail, and the device goes on. `budget` is the device cycles the run may take (0:
 * TESSEL_KERNEL_BUDGET_DEFAULT, at most UINT32_MAX): the SoC watchdog and the wait are armed for it
 * (plus the image copy), so a kernel that never returns is stopped; the call then resets the device
 * (tessel_reset: the commands still queued are dropped) and returns TESSEL_ETIMEOUT, and the device
 * takes commands again. TESSEL_EINVAL, with nothing submitted, for a NULL dev or k, a k not
 * loaded, nargs > TESSEL_KERNEL_ARGS, args NULL with nargs > 0, a budget over UINT32_MAX, or a
 * device in checking mode (the model has no control core to compare with). The library does not
 * know what memory the kernel touches: its buffers are the caller's to keep until the call returns.
 * cpl may be NULL. */
__attribute__((warn_unused_result)) tessel_status_t tessel_kernel_run(tessel_dev_t *dev, const tessel_kernel_t *k,
                                                                      const uint32_t *args, unsigned nargs,
                                                                      uint64_t budget, tessel_completion_t *cpl);

/* Free the image of `k` (tessel_free) and zero *k; NULL or an already freed k does nothing. */
void tessel_kernel_free(tessel_dev_t *dev, tessel_kernel_t *k);

/* ---- pods: chips joined by ICI, and their collectives (docs/pod.md) ------------------------ */
typedef struct tessel_pod tessel_pod_t;
typedef enum { TESSEL_POD_RING = 0, TESSEL_POD_TORUS = 1 } tessel_topology_t;

/* Open a pod of `chips` chips, each a device of its own, joined by ICI links:
 *   TESSEL_POD_RING   chips 2..ICI_DIM_MAX in a ring; dx and dy 0 (or chips and 1);
 *   TESSEL_POD_TORUS  a dx by dy 2-D torus (each 1..ICI_DIM_MAX, dx * dy = chips >= 2).
 * Chip i sits at (i mod dx, i / dx). Backends: "model" (each chip the golden model with the native
 * firmware, run by a thread of its own during a collective) and "sim" (Verilated SoCs joined by
 * links of ICI_LINK_LATENCY cycles, each chip with its own clock; a chip of it cannot be restarted
 * alone). Use each chip from one thread at a time.
 * TESSEL_ENODEV for another backend, TESSEL_EINVAL for a bad shape; tessel_last_error(NULL) says why
 * a call failed. */
__attribute__((warn_unused_result)) tessel_status_t tessel_pod_open(tessel_pod_t **pod, const char *backend,
                                                                    uint32_t chips, tessel_topology_t topology,
                                                                    uint32_t dx, uint32_t dy);
void tessel_pod_close(tessel_pod_t *pod);
uint32_t tessel_pod_chips(const tessel_pod_t *pod);
/* Chip i's device (NULL past the last): its own commands, memory and statistics. */
tessel_dev_t *tessel_pod_device(tessel_pod_t *pod, uint32_t chip);
/* Why the pod's last call failed; "" before any failure; never NULL. */
const char *tessel_pod_last_error(const tessel_pod_t *pod);

/* Symmetric memory: `bytes` at the same HBM address on every chip (a collective's buffers are
 * symmetric: a SEND's remote address is checked against the sender's window). */
__attribute__((warn_unused_result)) tessel_status_t tessel_pod_alloc(tessel_pod_t *pod, size_t bytes,
                                                                     tessel_addr_t *out);
tessel_status_t tessel_pod_free(tessel_pod_t *pod, tessel_addr_t addr);

typedef enum {
    TESSEL_ALL_REDUCE = 0,     /* out = the reduction of every chip's in (count elements) */
    TESSEL_REDUCE_SCATTER = 1, /* in: chips parts of count elements; chip i's out = the reduction of part i */
    TESSEL_ALL_GATHER = 2,     /* in: count elements; out: chips parts, part i chip i's in */
    TESSEL_BROADCAST = 3,      /* every chip's out = the root's in (count elements) */
} tessel_coll_t;
typedef enum { TESSEL_REDUCE_SUM = 0, TESSEL_REDUCE_MAX = 1, TESSEL_REDUCE_MIN = 2 } tessel_reduce_t;

/* A collective over every chip, on symmetric buffers (tessel_pod_alloc); dtype TESSEL_INT32,
 * TESSEL_FP32 or TESSEL_BF16. in and out may be the same buffer for an all-reduce and a broadcast.
 * The reduction order is fixed (docs/pod.md, "Reduction order"): the same bits on every run and
 * backend. TESSEL_EDEVICE when a chip failed (tessel_pod_last_error names it and its status, e.g.
 * a deadlock when a chip is dead); every chip is then reset. */
typedef struct {
    tessel_coll_t kind;
    tessel_dtype_t dtype;
    tessel_reduce_t op;        /* ALL_REDUCE, REDUCE_SCATTER */
    uint64_t count;            /* elements per chip: see tessel_coll_t */
    uint32_t root;             /* BROADCAST: the chip whose in is sent */
    tessel_addr_t in, out;
} tessel_collective_t;
__attribute__((warn_unused_result)) tessel_status_t tessel_pod_collective(tessel_pod_t *pod,
                                                                          const tessel_collective_t *c);

/* Device programs of your own on a pod (docs/pod.md, "Programs of your own"; docs/labs/7): progs[i]
 * is chip i's program, PROGRAM records (docs/isa.md §7), nwords 0 for none. They run at once, their
 * DMAs, and their SENDs' remote rows, kept inside [win_base, win_limit) on every chip (symmetric
 * buffers). TESSEL_EDEVICE when a chip failed (tessel_pod_last_error names it and its ERR, e.g.
 * BAD_FIELD or SEM_DEADLOCK); every chip is then reset. TESSEL_ERANGE for a window outside HBM above
 * the rings. */
typedef struct {
    const uint32_t *words;
    uint32_t nwords;
} tessel_pod_prog_t;
__attribute__((warn_unused_result)) tessel_status_t tessel_pod_run(tessel_pod_t *pod, const tessel_pod_prog_t *progs,
                                                                   tessel_addr_t win_base, tessel_addr_t win_limit);

/* The size nccl-tests gives a collective (bytes of the all-reduce's or broadcast's buffer, of the
 * all-gather's output, of the reduce-scatter's input), and the pod's cost model of its time in cycles
 * (docs/pod.md, "Cost model"). */
uint64_t tessel_pod_coll_bytes(const tessel_pod_t *pod, const tessel_collective_t *c);
uint64_t tessel_pod_model_cycles(const tessel_pod_t *pod, tessel_coll_t kind, uint64_t bytes);

typedef struct {
    uint64_t collectives;      /* completed */
    uint64_t bytes;            /* their tessel_pod_coll_bytes */
    uint64_t ici_bytes;        /* bytes of data the chips SENT over ICI (not a collective's 8-byte credits) */
    uint64_t cycles;           /* simulated cycles (sim; 0 on the model, which has no time) */
    uint64_t model_cycles;     /* the cost model's cycles of each */
} tessel_pod_stats_t;
tessel_status_t tessel_pod_stats(const tessel_pod_t *pod, tessel_pod_stats_t *out);

/* Fault injection (tests): chip `chip` is dead from now on: it runs nothing, and the writes sent to it
 * are lost; the collectives that need it fail with ERR_SEM_DEADLOCK on the chips waiting for it. */
tessel_status_t tessel_pod_kill(tessel_pod_t *pod, uint32_t chip);

/* The bound on every chip's waits (docs/pod.md, "Faults"): a DMA SEMWAIT gives up with ERR_SEM_DEADLOCK
 * after `cycles` cycles (0 counts as 1) in which no remote write reached its chip. The sim writes each
 * chip's HOSTIF ICI_WAIT (power-on value ICI_WAIT_CYCLES); the model has no time and finds a deadlock
 * when every chip waits, so there it changes nothing. */
tessel_status_t tessel_pod_set_wait(tessel_pod_t *pod, uint32_t cycles);

/* Fault injection on a sim pod's link (tests): the link that leaves chip `chip` by ICI port `port`
 * (0 +X, 1 -X, 2 +Y, 3 -Y), from now on. TESSEL_LINK_CORRUPT flips a bit of the next packet flit it
 * carries, once: the receiver drops that packet for its CRC (counted in its HOSTIF ICI_CRC_ERRORS, and
 * named in the error of the collective that fails for it). TESSEL_LINK_CUT carries nothing, flits or
 * credits, until TESSEL_LINK_OK. TESSEL_ENODEV on the model (no links), TESSEL_EINVAL for a chip or port
 * without a link. */
typedef enum { TESSEL_LINK_OK = 0, TESSEL_LINK_CORRUPT = 1, TESSEL_LINK_CUT = 2 } tessel_link_fault_t;
tessel_status_t tessel_pod_link_fault(tessel_pod_t *pod, uint32_t chip, uint32_t port, tessel_link_fault_t fault);

#ifdef __cplusplus
}
#endif

#endif /* TESSEL_H */
