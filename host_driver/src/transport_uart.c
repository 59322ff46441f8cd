/* libtessel uart transport: a board's UART bridge (fpga tsl_uart_bridge) over a serial port,
 * speaking the framed protocol of tessel_uart.h (termios raw 8N1 at 1 000 000 baud; a pty
 * ignores the speed).
 *
 * Every HOSTIF (BAR0) and HBM (BAR1) access is one or more requests of up to 64 words, each
 * answered before the next is sent. A request whose response is missing (no byte for
 * $TESSEL_UART_TIMEOUT_MS, default 500), malformed, fails its CRC, or reports CRC or BADREQ is
 * retried up to 3 times after a resynchronisation: stay silent until the line has been quiet for
 * 3 ms (longer than the bridge's 2048-bit inter-byte timeout), then flush the input. A BUS status
 * is an answer, not a transmission error: it fails at once. Failures are TESSEL_EIO with a one
 * line cause (the `error` hook; tessel_last_error shows it). Unaligned HBM writes read-modify-write
 * their edge words (the protocol moves whole words).
 *
 * Two kinds of board:
 * - BAR0 is HOSTIF, and the board's control core runs the firmware (the Arty build). N, VMEM, ACC,
 *   HBM and the features come from the HOSTIF CFG_* registers. A device without them (BUS: the
 *   model device of the tests) has its HBM size probed through BAR1 (the largest power of two
 *   whose last word reads without BUS) and the rest from $TESSEL_UART_CFG
 *   ("n=4,vmem=65536,acc=16384,features=1,bpc=4", any subset), else the golden model's defaults
 *   (tslm_cfg_default). A board held in BOOT.HOLD (after power-on) is first given its firmware
 *   (boot()). Open waits up to 2 s for FW_STATUS to leave "reset" (a board just reset, powered up
 *   or loaded). `wait` sleeps 1 ms: the board runs its firmware by itself.
 * - BAR0 is the tensor core's register block, and there is no control core (the iCEBreaker): told
 *   apart by BAR0 0x004, which is TC CFG_N and not a HOSTIF register. The configuration comes from
 *   TC CFG_*. The host runs the command processor (tessel_hostcp.h) with HOSTIF emulated here and
 *   a HAL over the link: TC registers through BAR0, an instruction push as one 8-word WRITE at
 *   INSN0, HBM through BAR1, cycles from the tensor core's PERF_CYCLES. `wait` runs it: every
 *   pending command to completion. A link failure inside it sticks: the command ends (its
 *   watchdog), and this and every later call fails with TESSEL_EIO.
 * The roofline bandwidth (bpc) comes from $TESSEL_UART_CFG, else the SoC's HBM_BYTES_PER_CYCLE,
 * or 1 for a board without a control core (the lite tensor core's DMA moves a byte a cycle).
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "elf_image.h"
#include "tessel_hostcp.h"
#include "tessel_int.h"
#include "tessel_uart.h"
#include "tsl_cp_hostif.h"
#include "tsl_hw.h"
#include "tslm.h"

#define UART_RETRIES 3
#define UART_QUIET_MS 3          /* > 2048 bit times at 1 Mbaud */
#define UART_DRAIN_MS 1000       /* resync gives up on a line that never goes quiet */
#define UART_TIMEOUT_MS 500
#define UART_BOOT_MS 2000        /* a board just out of reset: wait for its firmware to start */

typedef struct {
    int fd;
    int timeout_ms;
    char port[64];
    char err[224];
    /* A host-driven board (BAR0 is the tensor core's register block): the command processor runs
     * here (tessel_hostcp.h) on `hal`, with HOSTIF emulated in `hif`. */
    int host_cp;
    tsl_cp_hostif_t hif;
    tsl_cp_hal_t hal;
    tessel_hostcp_t cp;
    int link_failed;          /* a HAL access failed: u->err says why; every later one fails at once */
    uint32_t cycles_lo;       /* the last PERF_CYCLES_LO read, extended to 64 bits in cycles_hi */
    uint64_t cycles_hi;
} uart_t;

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait until fd is readable (1), the deadline passes (0) or it fails (-1). */
static int wait_fd(int fd, short ev, int64_t deadline)
{
    for (;;) {
        int64_t left = deadline - now_ms();
        if (left < 0)
            left = 0;
        struct pollfd p = {fd, ev, 0};
        int r = poll(&p, 1, (int)left);
        if (r > 0)
            return (p.revents & ev) ? 1 : -1;
        if (r == 0)
            return 0;
        if (errno != EINTR)
            return -1;
    }
}

/* Read exactly n bytes before the deadline: n, or what arrived before a timeout, or -1. */
static int read_n(uart_t *u, uint8_t *p, int n, int64_t deadline)
{
    int got = 0;
    while (got < n) {
        int w = wait_fd(u->fd, POLLIN, deadline);
        if (w <= 0)
            return w < 0 ? -1 : got;
        ssize_t r = read(u->fd, p + got, (size_t)(n - got));
        if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN))
            return -1;   /* hung up (end of file), or failed */
        if (r > 0)
            got += (int)r;
    }
    return got;
}

static int write_all(uart_t *u, const uint8_t *p, size_t n)
{
    int64_t deadline = now_ms() + u->timeout_ms;
    while (n) {
        if (wait_fd(u->fd, POLLOUT, deadline) <= 0)
            return -1;
        ssize_t r = write(u->fd, p, n);
        if (r < 0 && errno != EINTR && errno != EAGAIN)
            return -1;
        if (r > 0) {
            p += r;
            n -= (size_t)r;
        }
    }
    return 0;
}

/* Resynchronise: let the line go quiet for UART_QUIET_MS (the bridge drops a partial request),
 * discarding whatever arrives, then flush the input. */
static void resync(uart_t *u)
{
    uint8_t junk[256];
    int64_t stop = now_ms() + UART_DRAIN_MS;
    while (now_ms() < stop && wait_fd(u->fd, POLLIN, now_ms() + UART_QUIET_MS) > 0) {
        ssize_t r = read(u->fd, junk, sizeof junk);
        if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN))
            break;   /* hung up, or failed */
    }
    tcflush(u->fd, TCIFLUSH);
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* One attempt: send the frame, receive the response. Returns the STATUS (0..3), or -1 with *cause
 * set (no answer, short answer, bad SYNC/STATUS, CRC). */
static int attempt(uart_t *u, const uint8_t *req, size_t req_len, int is_read, uint32_t *words, unsigned count,
                   const char **cause)
{
    uint8_t rsp[2 + 4 * TESSEL_UART_MAX_WORDS + 1];
    tcflush(u->fd, TCIFLUSH);
    if (write_all(u, req, req_len)) {
        *cause = "the port refused the request (write failed)";
        return -1;
    }
    int64_t deadline = now_ms() + u->timeout_ms;
    int got;
    do {   /* hunt for the response's SYNC */
        if ((got = read_n(u, rsp, 1, deadline)) != 1)
            goto short_rsp;
    } while (rsp[0] != TESSEL_UART_SYNC_RSP);
    if ((got = read_n(u, rsp + 1, 1, deadline)) != 1)
        goto short_rsp;
    uint8_t st = rsp[1];
    if (st > TESSEL_UART_BADREQ) {
        *cause = "bad response (unknown STATUS)";
        return -1;
    }
    int data = is_read && st <= TESSEL_UART_BUS ? (int)(4 * count) : 0;
    if ((got = read_n(u, rsp + 2, data + 1, deadline)) != data + 1)
        goto short_rsp;
    if (tessel_uart_crc8(0, rsp + 1, (size_t)data + 1) != rsp[2 + data]) {
        *cause = "bad CRC in the response";
        return -1;
    }
    for (int i = 0; i < data / 4; i++)
        words[i] = get32(rsp + 2 + 4 * i);
    return st;
short_rsp:
    *cause = got < 0 ? "the port failed (read error or hang-up)" : "timeout (no or incomplete response)";
    return -1;
}

/* Read or write `count` (1..64) words at ADDR of a BAR, with the retries: 0, TESSEL_UART_BUS, or
 * TESSEL_EIO (the link failed); u->err says why when not 0. */
static int xfer_st(uart_t *u, int write, int bar1, uint32_t addr, uint32_t *words, unsigned count)
{
    uint8_t req[TESSEL_UART_HDR_BYTES + 4 * TESSEL_UART_MAX_WORDS + 1];
    req[0] = TESSEL_UART_SYNC_REQ;
    req[1] = (uint8_t)((write ? TESSEL_UART_OP_WRITE : TESSEL_UART_OP_READ) | (bar1 ? TESSEL_UART_OP_BAR1 : 0u));
    put32(req + 2, addr);
    req[6] = (uint8_t)(count - 1);
    size_t n = TESSEL_UART_HDR_BYTES;
    for (unsigned i = 0; write && i < count; i++, n += 4)
        put32(req + n, words[i]);
    req[n] = tessel_uart_crc8(0, req + 1, n - 1);
    n++;
    const char *cause = "";
    int st = -1, a;
    for (a = 0; a <= UART_RETRIES && st != TESSEL_UART_BUS; a++) {
        if (a)
            resync(u);
        st = attempt(u, req, n, !write, words, count, &cause);
        if (st == TESSEL_UART_OK)
            return 0;
        if (st == TESSEL_UART_BUS)
            cause = "BUS error (the device answered an access with an error)";
        else if (st == TESSEL_UART_CRC)
            cause = "the device saw a bad CRC in the request";
        else if (st == TESSEL_UART_BADREQ)
            cause = "the device rejected the request (BADREQ)";
    }
    snprintf(u->err, sizeof u->err, "uart %s: %s of %u words at BAR%d 0x%08x: %s (%d attempt%s)", u->port,
             write ? "write" : "read", count, bar1, addr, cause, a, a > 1 ? "s" : "");
    return st == TESSEL_UART_BUS ? TESSEL_UART_BUS : TESSEL_EIO;
}

static int xfer(uart_t *u, int write, int bar1, uint32_t addr, uint32_t *words, unsigned count)
{
    return xfer_st(u, write, bar1, addr, words, count) ? TESSEL_EIO : 0;
}

static int u_hostif_read(void *ctx, uint32_t off, uint32_t *v)
{
    return xfer(ctx, 0, 0, off, v, 1);
}

static int u_hostif_write(void *ctx, uint32_t off, uint32_t v)
{
    return xfer(ctx, 1, 0, off, &v, 1);
}

static int u_hbm_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    uint8_t *out = buf;
    uint64_t a = addr & ~(uint64_t)3, end = addr + len;
    while (a < end) {
        uint32_t w[TESSEL_UART_MAX_WORDS];
        uint8_t b[4 * TESSEL_UART_MAX_WORDS];
        uint64_t words = (end - a + 3) / 4;
        unsigned count = words < TESSEL_UART_MAX_WORDS ? (unsigned)words : TESSEL_UART_MAX_WORDS;
        int r = xfer(ctx, 0, 1, (uint32_t)a, w, count);
        if (r)
            return r;
        for (unsigned i = 0; i < count; i++)
            put32(b + 4 * i, w[i]);
        uint64_t lo = a > addr ? a : addr, hi = a + 4u * count < end ? a + 4u * count : end;
        memcpy(out + (lo - addr), b + (lo - a), (size_t)(hi - lo));
        a += 4u * count;
    }
    return 0;
}

static int u_hbm_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    const uint8_t *in = buf;
    uint64_t a = addr & ~(uint64_t)3, end = addr + len;
    while (a < end) {
        uint32_t w[TESSEL_UART_MAX_WORDS];
        uint64_t words = (end - a + 3) / 4;
        unsigned count = words < TESSEL_UART_MAX_WORDS ? (unsigned)words : TESSEL_UART_MAX_WORDS;
        for (unsigned i = 0; i < count; i++) {
            uint64_t wa = a + 4u * i;
            uint8_t b[4];
            if (wa < addr || wa + 4 > end) {   /* an edge word: keep the bytes outside [addr, end) */
                int r = xfer(ctx, 0, 1, (uint32_t)wa, &w[i], 1);
                if (r)
                    return r;
            }
            put32(b, w[i]);
            for (unsigned j = 0; j < 4; j++)
                if (wa + j >= addr && wa + j < end)
                    b[j] = in[wa + j - addr];
            w[i] = get32(b);
        }
        int r = xfer(ctx, 1, 1, (uint32_t)a, w, count);
        if (r)
            return r;
        a += 4u * count;
    }
    return 0;
}

/* ---- a host-driven board: the command processor's HAL over the link ---------------------------
 * A failed access latches link_failed (u->err keeps its cause); every later one fails at once
 * without touching the line, and reads give zeros. */
static int hal_xfer(uart_t *u, int write, int bar1, uint32_t addr, uint32_t *words, unsigned count)
{
    if (!u->link_failed && xfer(u, write, bar1, addr, words, count))
        u->link_failed = 1;
    if (u->link_failed && !write)
        memset(words, 0, 4u * count);
    return u->link_failed;
}

static uint32_t hal_tc_read(void *ctx, uint32_t off)
{
    uint32_t v;
    (void)hal_xfer(ctx, 0, 0, off, &v, 1);
    return v;
}

static void hal_tc_write(void *ctx, uint32_t off, uint32_t v)
{
    (void)hal_xfer(ctx, 1, 0, off, &v, 1);
}

/* INSN0..INSN7 in one frame: the bridge writes them in order, and the INSN7 write pushes. */
static void hal_tc_push(void *ctx, const uint32_t w[TSL_PARAM_INSN_WORDS])
{
    uint32_t words[TSL_PARAM_INSN_WORDS];
    memcpy(words, w, sizeof words);
    (void)hal_xfer(ctx, 1, 0, TSL_TC_INSN0_OFFSET, words, TSL_PARAM_INSN_WORDS);
}

static uint32_t hal_hostif_read(void *ctx, uint32_t off)
{
    return tsl_cp_hostif_read(&((uart_t *)ctx)->hif, off);
}

static void hal_hostif_write(void *ctx, uint32_t off, uint32_t v)
{
    if (tsl_cp_hostif_write(&((uart_t *)ctx)->hif, off, v))
        hal_tc_write(ctx, TSL_TC_CTRL_OFFSET, 1u << TSL_TC_CTRL_RESET_SHIFT);
}

static void hal_hbm_read(void *ctx, uint32_t addr, void *buf, uint32_t len)
{
    uart_t *u = ctx;
    if (!u->link_failed && u_hbm_read(u, addr, buf, len))
        u->link_failed = 1;
    if (u->link_failed)
        memset(buf, 0, len);
}

static void hal_hbm_write(void *ctx, uint32_t addr, const void *buf, uint32_t len)
{
    uart_t *u = ctx;
    if (!u->link_failed && u_hbm_write(u, addr, buf, len))
        u->link_failed = 1;
}

/* The tensor core's PERF_CYCLES (cycles since CTRL.CLEAR_PERF, which nothing here writes) from its
 * low word, extended across wraps (calls are far fewer than 2^32 cycles apart). After a link
 * failure the clock runs 2^40 cycles a call, so the progress watchdog ends a command at once. */
static uint64_t hal_cycles(void *ctx)
{
    uart_t *u = ctx;
    uint32_t lo = hal_tc_read(u, TSL_TC_PERF_CYCLES_LO_OFFSET);
    if (u->link_failed)
        return u->cycles_hi += 1ull << 40;
    if (lo < u->cycles_lo)
        u->cycles_hi += 1ull << 32;
    u->cycles_lo = lo;
    return u->cycles_hi | lo;
}

static int hc_hostif_read(void *ctx, uint32_t off, uint32_t *v)
{
    *v = hal_hostif_read(ctx, off);
    return 0;
}

static int hc_hostif_write(void *ctx, uint32_t off, uint32_t v)
{
    uart_t *u = ctx;
    tessel_hostcp_hostif_write(&u->cp, off, v);
    return u->link_failed ? TESSEL_EIO : 0;
}

/* The command processor runs every pending command to completion here. */
static int hc_wait(void *ctx)
{
    uart_t *u = ctx;
    tessel_hostcp_run(&u->cp);
    return u->link_failed ? TESSEL_EIO : 0;
}

/* Start the command processor on the host for a board whose BAR0 is the tensor core. */
static int host_cp_start(uart_t *u)
{
    u->host_cp = 1;
    u->hal = (tsl_cp_hal_t){.ctx = u, .tc_read = hal_tc_read, .tc_write = hal_tc_write, .tc_push = hal_tc_push,
                            .hostif_read = hal_hostif_read, .hostif_write = hal_hostif_write,
                            .hbm_read = hal_hbm_read, .hbm_write = hal_hbm_write, .cycles = hal_cycles};
    int r = tessel_hostcp_start(&u->cp, &u->hal);
    if (u->link_failed)
        return TESSEL_EIO;
    if (r)
        snprintf(u->err, sizeof u->err, "uart %s: the command processor refuses the board's tensor core "
                 "(N %u, VMEM %u, ACC %u bytes)", u->port, u->cp.cp.n, u->cp.cp.vmem_bytes, u->cp.cp.acc_bytes);
    return r;
}

static int u_wait(void *ctx)
{
    (void)ctx;
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
    return 0;
}

static const char *u_error(void *ctx)
{
    return ((uart_t *)ctx)->err;
}

static void u_close(void *ctx)
{
    uart_t *u = ctx;
    close(u->fd);
    free(u);
}

/* The HBM size: HbmBytes is a power of two and BAR1 answers BUS from there on. */
static int probe_hbm(uart_t *u, uint64_t *bytes)
{
    unsigned lo = 12, hi = 30;   /* 4 KiB always answers; 1 GiB is the largest HBM */
    while (lo < hi) {
        unsigned mid = (lo + hi + 1) / 2;
        uint32_t w;
        int r = xfer_st(u, 0, 1, (uint32_t)((1ull << mid) - 4), &w, 1);
        if (r == TESSEL_EIO)
            return r;
        if (r == TESSEL_UART_BUS)
            hi = mid - 1;
        else
            lo = mid;
    }
    *bytes = 1ull << lo;
    u->err[0] = 0;
    return 0;
}

/* The core's RAM image from a firmware ELF file (cp.elf): img is TSL_PARAM_RAM_BYTES; *bytes the
 * extent used. 0, or -1 with err set. */
static int read_image(const char *path, uint8_t *img, uint32_t *bytes, char *err, size_t errlen)
{
    const char *why = tessel_elf_file(path, TSL_MMAP_RAM_BASE, img, TSL_PARAM_RAM_BYTES, bytes);
    if (why)
        snprintf(err, errlen, "uart: firmware %.120s: %s", path, why);
    return why ? -1 : 0;
}

/* A board in HOSTIF BOOT.HOLD (an FPGA after power-on: its core RAM starts empty) gets the firmware
 * (opts->firmware, else $TESSEL_FIRMWARE: cp.elf) through the BAR0 RAM window, each frame
 * read back and compared; then BOOT.HOLD is cleared and the core starts. 0 or TESSEL_*. */
static int boot(uart_t *u, const char *path)
{
    uint32_t hold = 0;
    int r = xfer_st(u, 0, 0, TSL_HOSTIF_BOOT_OFFSET, &hold, 1);
    if (r == TESSEL_UART_BUS) {   /* no BOOT register (the model device): it boots by itself */
        u->err[0] = 0;
        return 0;
    }
    if (r || !((hold >> TSL_HOSTIF_BOOT_HOLD_SHIFT) & TSL_HOSTIF_BOOT_HOLD_MASK))
        return r;
    if (!path || !*path) {
        snprintf(u->err, sizeof u->err, "uart %s: the board waits for its firmware (HOSTIF BOOT.HOLD is set): "
                 "pass --firmware or set $TESSEL_FIRMWARE (build/fw/cp.elf)", u->port);
        return TESSEL_ENODEV;
    }
    uint32_t *img = malloc(TSL_PARAM_RAM_BYTES), back[TESSEL_UART_MAX_WORDS], bytes = 0;
    if (!img)
        return TESSEL_ENOMEM;
    r = read_image(path, (uint8_t *)img, &bytes, u->err, sizeof u->err) ? TESSEL_EINVAL : 0;
    for (uint32_t i = 0, words = (bytes + 3) / 4; !r && i < words; i += TESSEL_UART_MAX_WORDS) {
        unsigned c = words - i < TESSEL_UART_MAX_WORDS ? words - i : TESSEL_UART_MAX_WORDS;
        uint32_t a = TSL_PARAM_BAR0_RAM_OFFSET + 4 * i;
        if (!(r = xfer(u, 1, 0, a, &img[i], c)) && !(r = xfer(u, 0, 0, a, back, c)) && memcmp(back, &img[i], 4 * c)) {
            snprintf(u->err, sizeof u->err, "uart %s: the firmware reads back wrong near RAM offset 0x%x", u->port,
                     4 * i);
            r = TESSEL_EIO;
        }
    }
    free(img);
    hold = 0;
    return r ? r : xfer(u, 1, 0, TSL_HOSTIF_BOOT_OFFSET, &hold, 1);
}

/* $TESSEL_UART_CFG: "key=value" pairs separated by commas (n, vmem, acc, features, bpc). */
static int parse_cfg(tessel_transport_t *t, const char *s)
{
    while (s && *s) {
        char key[16];
        long v;
        int used = 0;
        if (sscanf(s, "%15[a-z]=%li%n", key, &v, &used) != 2 || used == 0)
            return -1;
        if (!strcmp(key, "n")) t->n = (uint32_t)v;
        else if (!strcmp(key, "vmem")) t->vmem_bytes = (uint32_t)v;
        else if (!strcmp(key, "acc")) t->acc_bytes = (uint32_t)v;
        else if (!strcmp(key, "features")) t->features = (uint32_t)v;
        else if (!strcmp(key, "bpc")) t->hbm_bytes_per_cycle = (uint32_t)v;
        else return -1;
        s += used;
        if (*s == ',')
            s++;
        else if (*s)
            return -1;
    }
    return 0;
}

int tessel_transport_uart_open(tessel_transport_t *t, const tessel_open_opts_t *opts)
{
    memset(t, 0, sizeof *t);
    const char *port = opts ? opts->port : NULL;
    if (!port || !*port) {
        snprintf(t->err, sizeof t->err, "uart: no port given");
        return TESSEL_EINVAL;
    }
    tslm_cfg_t def = tslm_cfg_default();
    t->n = def.n;
    t->vmem_bytes = def.vmem_bytes;
    t->acc_bytes = def.acc_bytes;
    t->features = def.features;
    t->hbm_bytes_per_cycle = 0;   /* below: $TESSEL_UART_CFG, else by the kind of board */
    if (parse_cfg(t, getenv("TESSEL_UART_CFG"))) {
        snprintf(t->err, sizeof t->err, "uart: bad $TESSEL_UART_CFG (want n=,vmem=,acc=,features=,bpc=)");
        return TESSEL_EINVAL;
    }
    uint32_t tmo_ms;   /* a bad value is refused, not ignored */
    const char *tmo_why = tessel_env_timeout("TESSEL_UART_TIMEOUT_MS", &tmo_ms);
    if (tmo_why || (tmo_ms != TESSEL_TIMEOUT_AUTO && tmo_ms > INT32_MAX)) {
        snprintf(t->err, sizeof t->err, "uart: $TESSEL_UART_TIMEOUT_MS '%.40s' %s", getenv("TESSEL_UART_TIMEOUT_MS"),
                 tmo_why ? tmo_why : "is past 2147483647");
        return TESSEL_EINVAL;
    }
    uart_t *u = calloc(1, sizeof *u);
    if (!u)
        return TESSEL_ENOMEM;
    u->timeout_ms = tmo_ms == TESSEL_TIMEOUT_AUTO ? UART_TIMEOUT_MS : (int)tmo_ms;
    snprintf(u->port, sizeof u->port, "%s", port);
    struct termios tio;
    u->fd = open(port, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (u->fd < 0 || tcgetattr(u->fd, &tio)) {
        snprintf(t->err, sizeof t->err, "uart: cannot open %s: %s", port, strerror(errno));
        if (u->fd >= 0)
            close(u->fd);
        free(u);
        return TESSEL_ENODEV;
    }
    cfmakeraw(&tio);
    tio.c_cflag = (tio.c_cflag & ~(tcflag_t)(CSIZE | PARENB | CSTOPB | CRTSCTS)) | CS8 | CLOCAL | CREAD;
    tio.c_cc[VMIN] = 0;
    tio.c_cc[VTIME] = 0;
    cfsetispeed(&tio, B1000000);
    cfsetospeed(&tio, B1000000);
    if (tcsetattr(u->fd, TCSANOW, &tio)) {
        snprintf(t->err, sizeof t->err, "uart: cannot configure %s: %s", port, strerror(errno));
        u_close(u);
        return TESSEL_ENODEV;
    }
    resync(u);
    uint32_t cfg[6];   /* TC ID, CFG_N, CFG_VMEM_BYTES, CFG_ACC_BYTES, CFG_HBM_BYTES, CFG_FEATURES */
    int r = xfer_st(u, 0, 0, TSL_TC_ID_OFFSET, cfg, 6);
    if (!r && cfg[0] == TSL_ID_VALUE && cfg[1]) {   /* HOSTIF has no register at 0x004 */
        t->n = cfg[1];
        t->vmem_bytes = cfg[2];
        t->acc_bytes = cfg[3];
        t->hbm_bytes = cfg[4];
        t->features = cfg[5];
        if (!t->hbm_bytes_per_cycle)
            t->hbm_bytes_per_cycle = 1;
        r = host_cp_start(u);
    } else if (r != TESSEL_EIO && !(r = xfer_st(u, 0, 0, TSL_HOSTIF_CFG_N_OFFSET, cfg, 5))) {
        t->n = cfg[0];
        t->vmem_bytes = cfg[1];
        t->acc_bytes = cfg[2];
        t->hbm_bytes = cfg[3];
        t->features = cfg[4];
    } else if (r == TESSEL_UART_BUS) {   /* no CFG_* mirrors (the model device) */
        r = probe_hbm(u, &t->hbm_bytes);
    }
    if (!t->hbm_bytes_per_cycle)
        t->hbm_bytes_per_cycle = TSL_PARAM_HBM_BYTES_PER_CYCLE;
    if (!r && !u->host_cp)
        r = boot(u, opts->firmware ? opts->firmware : getenv("TESSEL_FIRMWARE"));
    uint32_t fw = 0;
    for (int64_t stop = now_ms() + UART_BOOT_MS; !r && !u->host_cp && now_ms() < stop; u_wait(u)) {
        if ((r = xfer(u, 0, 0, TSL_HOSTIF_FW_STATUS_OFFSET, &fw, 1)))
            break;
        if ((fw >> TSL_HOSTIF_FW_STATUS_STATE_SHIFT) & TSL_HOSTIF_FW_STATUS_STATE_MASK)
            break;
    }
    if (r) {
        snprintf(t->err, sizeof t->err, "%.159s", u->err);
        u_close(u);
        return r == TESSEL_EINVAL || r == TESSEL_ENOMEM ? r : TESSEL_ENODEV;
    }
    t->ctx = u;
    t->name = "uart";
    t->hostif_read = u->host_cp ? hc_hostif_read : u_hostif_read;
    t->hostif_write = u->host_cp ? hc_hostif_write : u_hostif_write;
    t->hbm_read = u_hbm_read;
    t->hbm_write = u_hbm_write;
    t->wait = u->host_cp ? hc_wait : u_wait;
    /* TESSEL_TIMEOUT_AUTO: a board's control core runs at >= 10 MHz; a host-driven board runs the
     * firmware here, every tensor-core access a UART round trip (assume >= 10 000 "cycles" per s). */
    t->cycles_per_ms = u->host_cp ? 10u : 10000u;
    t->error = u_error;
    t->close = u_close;
    return TESSEL_OK;
}
