/* Tessel command processor: the RV32 MMIO implementation of tsl_cp_hal_t. */
#ifndef TSL_CP_HAL_MMIO_H
#define TSL_CP_HAL_MMIO_H

#include "tsl_cp_hal.h"
#include "tsl_hal.h"

/* The accesses themselves, inline: the table's functions wrap them, and the runner's hot path
 * (tsl_cp.c, built with TSL_CP_MMIO) calls them directly, since an indirect call costs more than a
 * HOSTIF or TC access (one cycle at the slave). */
static inline uint32_t tsl_cp_mmio_tc_read(uint32_t offset) { return tsl_mmio_read32(TSL_MMAP_TC_BASE + offset); }
static inline void tsl_cp_mmio_tc_write(uint32_t offset, uint32_t value)
{
    tsl_mmio_write32(TSL_MMAP_TC_BASE + offset, value);
}
static inline uint32_t tsl_cp_mmio_hostif_read(uint32_t offset)
{
    return tsl_mmio_read32(TSL_MMAP_HOSTIF_BASE + offset);
}
/* Ordered after earlier HBM-window stores (a completion entry). */
static inline void tsl_cp_mmio_hostif_write(uint32_t offset, uint32_t value)
{
    __asm__ volatile("fence" ::: "memory");
    tsl_mmio_write32(TSL_MMAP_HOSTIF_BASE + offset, value);
}
/* `words` words from HBM byte address `addr` (aligned to 4) into `buf`. */
static inline void tsl_cp_mmio_hbm_read_words(uint32_t addr, uint32_t *buf, uint32_t words)
{
    const volatile uint32_t *src = (const volatile uint32_t *)(TSL_MMAP_HBM_BASE + addr);
    for (uint32_t i = 0; i < words; i++)
        buf[i] = src[i];
}
static inline void tsl_cp_mmio_hbm_write_words(uint32_t addr, const uint32_t *buf, uint32_t words)
{
    volatile uint32_t *dst = (volatile uint32_t *)(TSL_MMAP_HBM_BASE + addr);
    for (uint32_t i = 0; i < words; i++)
        dst[i] = buf[i];
}
/* mcycle's low word: enough for a command's CYCLES. */
static inline uint32_t tsl_cp_mmio_cycles32(void)
{
    uint32_t v;
    __asm__ volatile("csrr %0, mcycle" : "=r"(v));
    return v;
}

/* Fill `hal` with the MMIO accessors of the control core (TSL_MMAP_* windows, mcycle). */
void tsl_cp_hal_mmio_init(tsl_cp_hal_t *hal);

/* Kick the HOSTIF watchdog (a write of WDT_KICK reloads it with WDT_TIMEOUT). */
void tsl_cp_hal_mmio_kick(void);

#endif /* TSL_CP_HAL_MMIO_H */
