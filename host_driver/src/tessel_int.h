/* libtessel internals: the transport interface and the device structure.
 *
 * A transport is a table of function pointers over one device: HOSTIF register access (BAR0),
 * HBM access (BAR1), a `wait` that lets the device make progress, and `close`. Everything else
 * (allocator, rings, completions, stats, checking mode) is in tessel.c, once for every transport.
 * Transport calls return 0 or a negative tessel_status_t (TESSEL_EIO on a bus failure).
 */
#ifndef TESSEL_INT_H
#define TESSEL_INT_H

#include <stddef.h>
#include <stdint.h>

#include "tessel.h"
#include "tsl_hw.h"

#define TESSEL_API __attribute__((visibility("default")))

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    void *ctx;                      /* owned by the transport; freed by close */
    const char *name;               /* "model", "sim" or "uart" */
    /* the device's configuration (TC CFG_*) */
    uint32_t n, vmem_bytes, acc_bytes, features, hbm_bytes_per_cycle;
    uint64_t hbm_bytes;
    int (*hostif_read)(void *ctx, uint32_t offset, uint32_t *value);
    int (*hostif_write)(void *ctx, uint32_t offset, uint32_t value);
    /* [addr, addr + len) lies inside HBM (checked by the caller) */
    int (*hbm_read)(void *ctx, uint64_t addr, void *buf, size_t len);
    int (*hbm_write)(void *ctx, uint64_t addr, const void *buf, size_t len);
    /* Let the device make progress towards the next completion and return: the model runs the
     * firmware's doorbell + poll once; the sim clocks the SoC until the host interrupt rises or a
     * slice of cycles has passed. 0, or TESSEL_EIO when the device stopped (trap loop, exit). */
    int (*wait)(void *ctx);
    /* Optional (NULL: none): the device's cycle counter. With it, TESSEL_TIMEOUT_AUTO limits are
     * counted in device cycles (independent of how fast the host runs the simulation). */
    uint64_t (*cycles)(void *ctx);
    /* Without cycles(): a lower bound of the device cycles it completes per millisecond of wall
     * clock, from which TESSEL_TIMEOUT_AUTO derives its wall-clock limit (0: 1). */
    uint32_t cycles_per_ms;
    void (*close)(void *ctx);
    const char *(*error)(void *ctx); /* optional: why the last failed call failed (one line) */
    /* Optional: the device failed in a way only tessel_reset clears (sim: an RTL assertion failed);
     * every call then returns TESSEL_EDEVICE and error() says why. restart brings it back (0, or a
     * negative status with error() saying why); the device's ring indices start again at 0. */
    int (*failed)(void *ctx);
    int (*restart)(void *ctx);
    /* Optional (a chip of a sim pod): fault injection on the link that leaves it by ICI port `port`
     * (tessel_link_fault_t); TESSEL_EINVAL when it has no link there. */
    int (*link_fault)(void *ctx, uint32_t port, int fault);
    /* Optional (a chip of a sim pod, whose chips keep their own times): hold keeps the chip from
     * being advanced on a neighbour's behalf (on) or lets it be again (0); align brings every chip
     * of the pod to the time of the one furthest on, with no thread using a chip. */
    void (*hold)(void *ctx, int on);
    void (*align)(void *ctx);
    /* fn(arg, i) for every chip i of the pod in this process, each on a thread of its own while the
     * chip is held (its own accesses happen at the same times of its clock whatever the others do) */
    void (*each)(void *ctx, void (*fn)(void *arg, uint32_t chip), void *arg);
    char err[160];                  /* why open failed */
} tessel_transport_t;

/* Configuration of a model device (0 fields: the defaults of tslm_cfg_default). A chip of a pod
 * (pod not NULL) has CFG_FEATURES.ICI and is attached to it at (chip_x, chip_y) of pod_x by pod_y. */
typedef struct tslm_pod tslm_pod_t;
typedef struct {
    uint32_t n, vmem_bytes, acc_bytes, features;
    uint64_t hbm_bytes;
    tslm_pod_t *pod;
    uint32_t pod_x, pod_y, chip_x, chip_y;
} tessel_model_cfg_t;

int tessel_transport_model_open(tessel_transport_t *t, const tessel_model_cfg_t *cfg);
int tessel_transport_uart_open(tessel_transport_t *t, const tessel_open_opts_t *opts);
#ifndef TESSEL_NO_SIM
int tessel_transport_sim_open(tessel_transport_t *t, const tessel_open_opts_t *opts);
/* The dx * dy chips of a simulated pod (docs/pod.md), one transport each in t[0 .. dx*dy-1]: chip i at
 * (i mod dx, i / dx), links of ICI_LINK_LATENCY cycles, booted; on failure none is open and t[0].err
 * says why. net: NULL, or a TslPodNet (an Open MPI pod): then only the chips of this rank are here,
 * and the others' t[i] stay zero (ctx NULL). The chips are held (hold) until the caller's `each` has
 * run on them. */
int tessel_transport_sim_pod_open(tessel_transport_t *t, uint32_t dx, uint32_t dy, const tessel_open_opts_t *opts,
                                  void *net);
#endif

/* Open a device on an already opened transport (used for the checking-mode shadow). */
tessel_status_t tessel_open_transport(tessel_dev_t **dev, tessel_transport_t *t, uint32_t flags);

/* Why the float v breaks tessel_f32_arg's rule for `kind`, or NULL; zero_none: a scale of 0 is taken
 * (a float field's "not given"). */
const char *tessel_f32_why(double v, tessel_arg_t kind, int zero_none);
/* The same rule on a float field `name` of call `what` (a scale of 0 is "not given"): 0, or
 * TESSEL_EINVAL with the reason in tessel_last_error(dev). */
int tessel_f32_check(tessel_dev_t *dev, const char *what, const char *name, float v, tessel_arg_t kind);
/* The timeout in ms that environment variable `var` sets (TESSEL_TIMEOUT_AUTO when unset or empty);
 * NULL, or why its value is refused (*ms is then TESSEL_TIMEOUT_AUTO). */
const char *tessel_env_timeout(const char *var, uint32_t *ms);

/* Record why a call failed (tessel_last_error) and return `status`. */
__attribute__((format(printf, 3, 4))) int tessel_fail(tessel_dev_t *dev, int status, const char *fmt, ...);

/* Reserve `bytes` of HBM at exactly `addr` (a pod's symmetric buffers): TESSEL_ENOMEM, nothing
 * reserved, when any of it is taken, in flight, reserved or outside HBM. Freed by tessel_free. */
tessel_status_t tessel_alloc_at(tessel_dev_t *dev, tessel_addr_t addr, size_t bytes);

/* The device's cycle counter (transport cycles()), 0 without one: the model. */
uint64_t tessel_device_cycles(tessel_dev_t *dev);
/* A HOSTIF register through the device's transport (pod.c: ICI_WAIT, ICI_CRC_ERRORS); a status, and
 * on failure the reason in tessel_last_error(dev). */
int tessel_device_hostif_read(tessel_dev_t *dev, uint32_t offset, uint32_t *value);
int tessel_device_hostif_write(tessel_dev_t *dev, uint32_t offset, uint32_t value);
/* The transport's link_fault; TESSEL_ENODEV without one (the model's chips have no links). */
int tessel_device_link_fault(tessel_dev_t *dev, uint32_t port, int fault);

/* An Open MPI pod's net (host_driver/src/pod_mpi.cpp, docs/pod.md): the TslPodNet its sim pod
 * takes, this process's rank, the rank that simulates each chip, and the largest v of all ranks
 * (every rank calls it, in the same order). */
typedef struct {
    void *net;
    uint32_t rank;
    uint32_t (*owner)(void *net, uint32_t chip);
    uint64_t (*max)(void *net, uint64_t v);
    void (*free)(void *net);   /* when the pod closes, after its chips */
} tessel_pod_net_t;

/* tessel_pod_open of a sim pod spread over processes by net: each runs it with the same arguments,
 * and holds devices for its own chips only (tessel_pod_device is NULL for the others'). The pod
 * owns net from the call on (net->free), even when the call fails. */
tessel_status_t tessel_pod_open_net(tessel_pod_t **pod, uint32_t chips, tessel_topology_t topology, uint32_t dx,
                                    uint32_t dy, const tessel_pod_net_t *net);
/* Set what tessel_pod_last_error(NULL) says (an opener's own checks). */
void tessel_pod_open_error(const char *msg);

/* The transport's hold and align (a chip of a sim pod); nothing without them. */
void tessel_device_pod_hold(tessel_dev_t *dev, int on);
void tessel_device_pod_align(tessel_dev_t *dev);

/* Give up on command `h` (tessel_gemm after a failed wait): nobody will wait for it; its slot is
 * dropped when its completion arrives, and until then the memory it may touch stays in flight
 * (never handed out by tessel_alloc). A command already complete is dropped at once. */
void tessel_orphan(tessel_dev_t *dev, tessel_handle_t h);

/* The library calls (gemm.c, window.c): device buffers, staged through one host buffer. */
typedef struct {
    tessel_addr_t addr;
    size_t bytes;
    int have;
} tessel_buf_t;

/* Allocate each of the `n` buffers with bytes > 0 (64-byte aligned); on failure the ones
 * allocated are freed again. */
tessel_status_t tessel_bufs_alloc(tessel_dev_t *dev, tessel_buf_t *b, int n);
void tessel_bufs_free(tessel_dev_t *dev, tessel_buf_t *b, int n);
/* TESSEL_EINVAL, nothing sent, when $TESSEL_TIMEOUT_MS is set to a value tessel_env_timeout refuses
 * ("WHAT: $TESSEL_TIMEOUT_MS ..."). */
tessel_status_t tessel_env_check(tessel_dev_t *dev, const char *what);
/* tessel_info, tessel_env_check, and TESSEL_EINVAL ("WHAT: this device has no bf16/int8 support")
 * when the device lacks the input type. */
tessel_status_t tessel_need(tessel_dev_t *dev, int bf16, const char *what, tessel_info_t *info);
/* Write `rows` rows of `cols` elements, `ld` elements apart, of a host operand to `dst`, packed
 * dense through `stage` (rows * cols * size(dt) bytes) as DTYPE dt: int8_t copied (INT8), float
 * rounded to bf16 (BF16) or copied (FP32). */
tessel_status_t tessel_put_matrix(tessel_dev_t *dev, tessel_addr_t dst, const void *src, uint64_t rows, uint64_t cols,
                                  uint64_t ld, uint32_t dt, uint8_t *stage);
/* Wait for `h` ($TESSEL_TIMEOUT_MS, else TESSEL_TIMEOUT_AUTO); on a failed wait (not a device
 * error) the command is orphaned (the in-flight rule keeps its memory). TESSEL_EMISMATCH still
 * leaves the device's result to read. tessel_run: submit `cmd`, then that. */
tessel_status_t tessel_finish(tessel_dev_t *dev, tessel_handle_t h, tessel_completion_t *cpl);
tessel_status_t tessel_run(tessel_dev_t *dev, const tessel_cmd_t *cmd, tessel_completion_t *cpl);
/* A dense device result of `rows` x `cols` elements of DTYPE dt at `src` into the caller's array
 * `dst` (int8_t, int32_t or float; bf16 widened to float), rows `ld` elements apart. */
void tessel_get_matrix(void *dst, uint64_t ld, const uint8_t *src, uint64_t rows, uint64_t cols, uint32_t dt);
uint16_t tessel_f32_to_bf16(float f);

/* The command encoders' helpers (gemm.c). The command's DTYPE of a tessel_dtype_t (INT8, BF16,
 * INT32, FP32; any other value gives FP32: the encoders check dtypes first). */
uint32_t tessel_cmd_dtype(tessel_dtype_t t);
/* A dtype's name in messages: int8, bf16, int32, fp32 ("dtype 7" style text for any other value). */
const char *tessel_dtype_str(tessel_dtype_t t);
/* 0, or TESSEL_ERANGE ("WHAT: NAME 0x... is past the command's 32-bit addresses") for a device
 * address that a command word cannot hold. */
tessel_status_t tessel_cmd_addr(tessel_dev_t *dev, const char *what, const char *name, tessel_addr_t a);
/* 0, or TESSEL_EINVAL ("WHAT: NAME V is outside MIN..MAX") for the field of the overlay struct `g`
 * that tsl_win_bad_field or tsl_att_bad_field found out of its range (f, or NULL: none). */
tessel_status_t tessel_cmd_range(tessel_dev_t *dev, const char *what, const tsl_field_range_t *f, const void *g);
/* The bits of a float, for the command's SCALE word. */
uint32_t tessel_f32_bits(float f);
/* A host call's operands before it has buffers: the encoders check a call's arguments with this
 * address for every operand given (one that any command word holds), before anything is allocated. */
#define TESSEL_ADDR_PROVISIONAL ((tessel_addr_t)TESSEL_HBM_RESERVED)

#ifdef __cplusplus
}
#endif

#endif /* TESSEL_INT_H */
