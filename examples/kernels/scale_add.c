/* A custom kernel (docs/sdk.md, "Custom kernels"): y[i] = a * x[i] + b over n int32 values in HBM,
 * on the control core, through the HBM window. Integer arithmetic wraps modulo 2^32, as numpy's
 * int32 does.
 *   args[0] x, args[1] y: HBM addresses (4-byte aligned; y may be x)
 *   args[2] n: values;  args[3] a, args[4] b: int32 (two's complement)
 * Returns n, or TSL_ERANGE (-6) when an operand is misaligned or reaches past HBM: the host then
 * sees CMD_ERR KERNEL with DETAIL -6, and nothing was written.
 * Built by `make kernels` into build/kernels/scale_add.bin; examples/python/kernel.py runs it. */
#include "tsl_kernel.h"

int32_t tsl_kernel_main(const uint32_t args[TSL_PARAM_KERNEL_ARGS])
{
    uint32_t x = args[0], y = args[1], n = args[2], a = args[3], b = args[4];
    uint32_t hbm = tsl_kernel_hbm_bytes();
    if (((x | y) & 3u) || n > hbm / 4u || x > hbm - 4u * n || y > hbm - 4u * n)
        return TSL_ERANGE;
    volatile uint32_t *px = tsl_kernel_hbm32(x), *py = tsl_kernel_hbm32(y);
    for (uint32_t i = 0; i < n; i++)
        py[i] = a * px[i] + b;
    return (int32_t)n;
}
