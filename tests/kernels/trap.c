/* Test kernel (tests/python/test_tessel.py): traps. args[0] 0: an illegal instruction (the all-zero
 * word, mcause 2); 1: ECALL (mcause 11); else EBREAK (mcause 3). The
 * firmware abandons the kernel and completes the command with KERNEL_TRAP. */
#include "tsl_kernel.h"

int32_t tsl_kernel_main(const uint32_t args[TSL_PARAM_KERNEL_ARGS])
{
    if (args[0] == 0)
        __asm__ volatile(".word 0x00000000");
    else if (args[0] == 1)
        __asm__ volatile("ecall");
    else
        __asm__ volatile("ebreak");
    return 0;
}
