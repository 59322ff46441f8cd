/* libtessel model transport: the golden model (hw/model) with the firmware command processor
 * (firmware/cp) run on the host (tessel_hostcp.h) through tsl_cp_hal_model: HOSTIF accesses go
 * to its emulated register file, HBM accesses to tslm_hbm(), and `wait` runs one pass of the
 * firmware's main loop, which executes every pending command to completion.
 */
#include <stdlib.h>
#include <string.h>

#include "tessel_hostcp.h"
#include "tessel_int.h"
#include "tsl_cp_hal_model.h"
#include "tslm.h"

typedef struct {
    tslm_t m;
    tsl_cp_model_t dev;
    tsl_cp_hal_t hal;
    tessel_hostcp_t cp;
} model_t;

static int m_hostif_read(void *ctx, uint32_t off, uint32_t *v)
{
    *v = tsl_cp_model_hostif_read(&((model_t *)ctx)->dev, off);
    return 0;
}

static int m_hostif_write(void *ctx, uint32_t off, uint32_t v)
{
    tessel_hostcp_hostif_write(&((model_t *)ctx)->cp, off, v);
    return 0;
}

static int m_hbm_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    memcpy(buf, tslm_hbm(&((model_t *)ctx)->m) + addr, len);
    return 0;
}

static int m_hbm_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    memcpy(tslm_hbm(&((model_t *)ctx)->m) + addr, buf, len);
    return 0;
}

static int m_wait(void *ctx)
{
    tessel_hostcp_run(&((model_t *)ctx)->cp);
    return 0;
}

static void m_close(void *ctx)
{
    model_t *x = ctx;
    tslm_free(&x->m);
    free(x);
}

int tessel_transport_model_open(tessel_transport_t *t, const tessel_model_cfg_t *c)
{
    tslm_cfg_t cfg = tslm_cfg_default();
    if (c) {
        if (c->n) cfg.n = c->n;
        if (c->vmem_bytes) cfg.vmem_bytes = c->vmem_bytes;
        if (c->acc_bytes) cfg.acc_bytes = c->acc_bytes;
        if (c->features) cfg.features = c->features;
        if (c->pod) {
            cfg.features |= 1u << TSL_TC_CFG_FEATURES_ICI_SHIFT;
            cfg.pod_x = c->pod_x;
            cfg.pod_y = c->pod_y;
            cfg.chip_x = c->chip_x;
            cfg.chip_y = c->chip_y;
        }
        if (c->hbm_bytes) {
            if (c->hbm_bytes > UINT32_MAX)
                return TESSEL_EINVAL;
            cfg.hbm_bytes = (uint32_t)c->hbm_bytes;
        }
    }
    model_t *x = calloc(1, sizeof *x);
    if (!x)
        return TESSEL_ENOMEM;
    if (tslm_init(&x->m, &cfg) != TSLM_OK) {
        free(x);
        return TESSEL_ENODEV;
    }
    if (c && c->pod && tslm_pod_attach(c->pod, &x->m) != TSLM_OK) {
        m_close(x);
        return TESSEL_ENODEV;
    }
    tsl_cp_hal_model_init(&x->hal, &x->dev, &x->m);
    if (tessel_hostcp_start(&x->cp, &x->hal)) {
        m_close(x);
        return TESSEL_ENODEV;
    }
    memset(t, 0, sizeof *t);
    t->ctx = x;
    t->name = "model";
    t->n = cfg.n;
    t->vmem_bytes = cfg.vmem_bytes;
    t->acc_bytes = cfg.acc_bytes;
    t->features = cfg.features;
    t->hbm_bytes = cfg.hbm_bytes;
    t->hbm_bytes_per_cycle = TSL_PARAM_HBM_BYTES_PER_CYCLE;
    t->hostif_read = m_hostif_read;
    t->hostif_write = m_hostif_write;
    t->hbm_read = m_hbm_read;
    t->hbm_write = m_hbm_write;
    t->wait = m_wait;
    t->cycles_per_ms = 1000u;  /* TESSEL_TIMEOUT_AUTO: the model runs a command to completion in one wait */
    t->close = m_close;
    return TESSEL_OK;
}
