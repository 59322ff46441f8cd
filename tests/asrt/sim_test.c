/* libtessel's sim backend when an RTL assertion fails (make test-asrt-sim; tests/asrt/README.md).
 *
 * The SoC it links has tsl_asrt_trip bound in (tests/asrt/tsl_asrt_trip.sv): a GEMM whose A starts
 * with the bytes "TRIP-ME!" makes a TSL_ASSERT fail when the DMA reads them. Checks: the call returns
 * TESSEL_EDEVICE with the assertion's message in tessel_last_error, the process goes on, every later
 * call is TESSEL_EDEVICE until tessel_reset, which brings the device back with HBM kept, and a device
 * closed while failed leaves a new open working. Prints "asrt_sim_c: N passed, M failed".
 * Usage: sim_test (the firmware from $TESSEL_FIRMWARE). */
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "tessel.h"

enum { DIM = 8 };

static int passed, failed;

static void check(int ok, const char *what, tessel_dev_t *dev)
{
    if (ok) {
        passed++;
        return;
    }
    failed++;
    printf("asrt_sim_c FAIL: %s (last error: %s)\n", what, tessel_last_error(dev));
}

/* C = A x B, int8 in, int32 out, DIM x DIM x DIM; A's first row is "TRIP-ME!" when trip. */
static tessel_status_t gemm(tessel_dev_t *dev, int trip, int *right)
{
    int8_t a[DIM * DIM], b[DIM * DIM];
    int32_t c[DIM * DIM], want[DIM * DIM];
    for (int i = 0; i < DIM * DIM; i++) {
        a[i] = (int8_t)((i * 7) % 23 - 11);
        b[i] = (int8_t)((i * 5) % 19 - 9);
    }
    if (trip)
        memcpy(a, "TRIP-ME!", DIM);
    for (int i = 0; i < DIM; i++)
        for (int j = 0; j < DIM; j++) {
            int32_t s = 0;
            for (int k = 0; k < DIM; k++)
                s += a[i * DIM + k] * b[k * DIM + j];
            want[i * DIM + j] = s;
        }
    tessel_gemm_t g = {.m = DIM, .n = DIM, .k = DIM, .in_dtype = TESSEL_INT8, .out_dtype = TESSEL_INT32,
                       .a = a, .lda = DIM, .b = b, .ldb = DIM, .c = c, .ldc = DIM};
    memset(c, 0, sizeof c);
    tessel_status_t r = tessel_gemm(dev, &g, NULL);
    *right = r == TESSEL_OK && memcmp(c, want, sizeof c) == 0;
    return r;
}

/* The failing call's status and message. */
static void check_tripped(tessel_dev_t *dev, tessel_status_t r, const char *what)
{
    char m[128];
    snprintf(m, sizeof m, "%s: TESSEL_EDEVICE (got %d)", what, (int)r);
    check(r == TESSEL_EDEVICE, m, dev);
    snprintf(m, sizeof m, "%s: the assertion's name and message in tessel_last_error", what);
    check(strstr(tessel_last_error(dev), "NoTripWord") && strstr(tessel_last_error(dev), "trip word TRIP-ME!"), m, dev);
}

int main(void)
{
    tessel_dev_t *dev = NULL;
    int right = 0;
    if (tessel_open(&dev, "sim", NULL) != TESSEL_OK) {
        printf("asrt_sim_c FAIL: tessel_open(sim): %s\n", tessel_last_error(NULL));
        printf("asrt_sim_c: 0 passed, 1 failed\n");
        return 1;
    }
    /* a buffer that must survive the restart */
    uint8_t keep[64], back[64];
    for (int i = 0; i < 64; i++)
        keep[i] = (uint8_t)(i * 37 + 1);
    tessel_addr_t at = 0;
    check(tessel_alloc(dev, sizeof keep, 0, &at) == TESSEL_OK && tessel_write(dev, at, keep, sizeof keep) == TESSEL_OK,
          "alloc and write a buffer", dev);

    check(gemm(dev, 0, &right) == TESSEL_OK && right, "a GEMM before the failure is right", dev);
    check_tripped(dev, gemm(dev, 1, &right), "the GEMM that trips the assertion");
    check(tessel_read(dev, back, at, sizeof back) == TESSEL_EDEVICE, "tessel_read before the reset: TESSEL_EDEVICE",
          dev);
    check(strstr(tessel_last_error(dev), "NoTripWord") && strstr(tessel_last_error(dev), "tessel_reset"),
          "tessel_read before the reset: the assertion and the way back in the message", dev);
    check(gemm(dev, 0, &right) == TESSEL_EDEVICE, "a GEMM before the reset: TESSEL_EDEVICE", dev);

    check(tessel_reset(dev) == TESSEL_OK, "tessel_reset after the failure", dev);
    memset(back, 0, sizeof back);
    check(tessel_read(dev, back, at, sizeof back) == TESSEL_OK && memcmp(back, keep, sizeof keep) == 0,
          "HBM contents kept across the reset", dev);
    check(gemm(dev, 0, &right) == TESSEL_OK && right, "a GEMM after the reset is right", dev);
    check(gemm(dev, 0, &right) == TESSEL_OK && right, "a second GEMM after the reset is right", dev);
    check(tessel_reset(dev) == TESSEL_OK, "an ordinary tessel_reset after the restart", dev);
    check(gemm(dev, 0, &right) == TESSEL_OK && right, "a GEMM after that reset is right", dev);

    /* failed again, then closed without a reset: a new device works */
    check_tripped(dev, gemm(dev, 1, &right), "the second trip");
    tessel_close(dev);
    dev = NULL;
    check(tessel_open(&dev, "sim", NULL) == TESSEL_OK, "a new open after closing a failed device", NULL);
    if (dev) {
        check(gemm(dev, 0, &right) == TESSEL_OK && right, "a GEMM on the new device is right", dev);
        tessel_close(dev);
    }
    printf("asrt_sim_c: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
