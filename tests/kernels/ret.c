/* Test kernel (tests/python/test_tessel.py): returns args[0] as an int32, after writing args[1..7]
 * to the 7 words at HBM args[1] when args[1] is not 0 (the arguments as the kernel saw them). */
#include "tsl_kernel.h"

int32_t tsl_kernel_main(const uint32_t args[TSL_PARAM_KERNEL_ARGS])
{
    if (args[1]) {
        volatile uint32_t *out = tsl_kernel_hbm32(args[1]);
        for (unsigned i = 1; i < TSL_PARAM_KERNEL_ARGS; i++)
            out[i - 1] = args[i];
    }
    return (int32_t)args[0];
}
