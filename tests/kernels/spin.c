/* Test kernel (tests/python/test_tessel.py): never returns. The SoC watchdog stops it; the host
 * library reports a timeout and resets the device. */
#include "tsl_kernel.h"

int32_t tsl_kernel_main(const uint32_t args[TSL_PARAM_KERNEL_ARGS])
{
    volatile uint32_t spins = args[0];
    for (;;)
        spins++;
}
