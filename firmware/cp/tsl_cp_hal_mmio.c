/* Tessel command processor: hardware-access layer for the RV32 control core (see tsl_cp_hal.h).
 * TC, HOSTIF and the HBM window are memory-mapped at TSL_MMAP_{TC,HOSTIF,HBM}_BASE; the cycle
 * counter is mcycle. The context pointer is unused. */
#include "tsl_cp_hal_mmio.h"

#include <setjmp.h>

#include "tsl_hal.h"
#include "tsl_kernel.h"

static uint32_t mmio_tc_read(void *ctx, uint32_t offset)
{
    (void)ctx;
    return tsl_cp_mmio_tc_read(offset);
}

static void mmio_tc_write(void *ctx, uint32_t offset, uint32_t value)
{
    (void)ctx;
    tsl_cp_mmio_tc_write(offset, value);
}

/* Straight-line stores: a push is 8 of them. */
static void mmio_tc_push(void *ctx, const uint32_t w[TSL_PARAM_INSN_WORDS])
{
    (void)ctx;
    volatile uint32_t *r = (volatile uint32_t *)(TSL_MMAP_TC_BASE + TSL_TC_INSN0_OFFSET);
    r[0] = w[0];
    r[1] = w[1];
    r[2] = w[2];
    r[3] = w[3];
    r[4] = w[4];
    r[5] = w[5];
    r[6] = w[6];
    r[7] = w[7];
}

/* Straight-line stores: the words of a descriptor, a few cycles each. */
static void mmio_tc_seq(void *ctx, const uint32_t w[TSL_PARAM_SEQ_WORDS], int window)
{
    (void)ctx;
    volatile uint32_t *r = (volatile uint32_t *)(TSL_MMAP_TC_BASE + TSL_TC_SEQ0_OFFSET);
    for (unsigned i = 0; i < TSL_SEQ_IN_H_WORD; i++)
        r[i] = w[i];
    if (window)
        for (unsigned i = TSL_SEQ_IN_H_WORD; i + 1u < TSL_PARAM_SEQ_WORDS; i++)
            r[i] = w[i];
    r[TSL_PARAM_SEQ_WORDS - 1u] = w[TSL_PARAM_SEQ_WORDS - 1u];
}

static uint32_t mmio_hostif_read(void *ctx, uint32_t offset)
{
    (void)ctx;
    return tsl_cp_mmio_hostif_read(offset);
}

static void mmio_hostif_write(void *ctx, uint32_t offset, uint32_t value)
{
    (void)ctx;
    tsl_cp_mmio_hostif_write(offset, value);
}

/* Word accesses when address, buffer and length allow; bytes otherwise. */
static void mmio_hbm_read(void *ctx, uint32_t addr, void *buf, uint32_t len)
{
    (void)ctx;
    uintptr_t src = TSL_MMAP_HBM_BASE + addr;
    if (((src | (uintptr_t)buf | len) & 3u) == 0) {
        tsl_cp_mmio_hbm_read_words(addr, buf, len / 4);
        return;
    }
    uint8_t *d = buf;
    for (uint32_t i = 0; i < len; i++)
        d[i] = ((const volatile uint8_t *)src)[i];
}

static void mmio_hbm_write(void *ctx, uint32_t addr, const void *buf, uint32_t len)
{
    (void)ctx;
    uintptr_t dst = TSL_MMAP_HBM_BASE + addr;
    if (((dst | (uintptr_t)buf | len) & 3u) == 0) {
        tsl_cp_mmio_hbm_write_words(addr, buf, len / 4);
        return;
    }
    const uint8_t *s = buf;
    for (uint32_t i = 0; i < len; i++)
        ((volatile uint8_t *)dst)[i] = s[i];
}

static uint64_t mmio_cycles(void *ctx)
{
    (void)ctx;
    return tsl_cycles();
}

void tsl_cp_hal_mmio_kick(void)
{
    tsl_mmio_write32(TSL_MMAP_HOSTIF_BASE + TSL_HOSTIF_WDT_KICK_OFFSET, 1u);
}

static void mmio_kick(void *ctx)
{
    (void)ctx;
    tsl_cp_hal_mmio_kick();
}

/* The synchronous exceptions a kernel can raise (mcause): misaligned or faulting fetch, illegal
 * instruction, breakpoint, misaligned or faulting load and store, ECALL. */
static const uint8_t kernel_traps[] = {0, 1, 2, 3, 4, 5, 6, 7, 11};

/* Where a trapped kernel resumes, after the trap's MRET: back to mmio_kernel's setjmp. */
static void kernel_trapped(jmp_buf *env, uint32_t mcause)
{
    longjmp(*env, (int)mcause + 1);
}

/* The handler of a kernel's trap: leave the trap (MRET) into kernel_trapped(env, mcause). */
static void kernel_trap(tsl_trap_frame_t *frame, void *env)
{
    frame->a0 = (uint32_t)(uintptr_t)env;
    frame->a1 = frame->mcause;
    frame->mepc = (uint32_t)(uintptr_t)kernel_trapped;
}

/* The image is copied word by word through the HBM window; FENCE.I then makes the core fetch the
 * new code rather than anything it fetched from the region before. While the kernel runs, its
 * traps come back here (setjmp) instead of ending in the SDK's default handler. */
static uint32_t mmio_kernel(void *ctx, uint32_t addr, uint32_t bytes, const uint32_t *args, int32_t *ret)
{
    jmp_buf env;
    mmio_hbm_read(ctx, addr, (void *)TSL_KERNEL_BASE, bytes);
    __asm__ volatile("fence\n\t.insn i 0x0f, 1, x0, x0, 0" ::: "memory");   /* FENCE.I */
    volatile uint32_t trap = (uint32_t)setjmp(env);
    int bad = 0;   /* the causes are all below 16: tsl_exc_set_handler never refuses them */
    for (unsigned i = 0; !trap && i < sizeof kernel_traps; i++)
        bad |= tsl_exc_set_handler(kernel_traps[i], kernel_trap, &env);
    if (!trap)
        *ret = ((tsl_kernel_fn_t)TSL_KERNEL_BASE)(args);
    for (unsigned i = 0; i < sizeof kernel_traps; i++)   /* the SDK's default handler again */
        bad |= tsl_exc_set_handler(kernel_traps[i], (tsl_trap_handler_t)0, (void *)0);
    (void)bad;
    return trap;
}

void tsl_cp_hal_mmio_init(tsl_cp_hal_t *hal)
{
    hal->ctx = (void *)0;
    hal->tc_read = mmio_tc_read;
    hal->tc_write = mmio_tc_write;
    hal->tc_push = mmio_tc_push;
    hal->tc_seq = mmio_tc_seq;
    hal->hostif_read = mmio_hostif_read;
    hal->hostif_write = mmio_hostif_write;
    hal->hbm_read = mmio_hbm_read;
    hal->hbm_write = mmio_hbm_write;
    hal->cycles = mmio_cycles;
    hal->idle = (void (*)(void *))0;
    hal->kick = mmio_kick;
    hal->kernel = mmio_kernel;
}
