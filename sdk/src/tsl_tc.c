/* Tessel SDK accelerator API: see tsl_tc.h. */
#include "tsl_tc.h"

tsl_status_t tsl_tc_wait(uint64_t timeout_cycles) {
  uint64_t start = tsl_timer_now();
  for (;;) {
    uint32_t s = tsl_tc_read(TSL_TC_STATUS_OFFSET);
    if (s & (1u << TSL_TC_STATUS_ERROR_SHIFT)) return TSL_EDEVICE;
    if (s & (1u << TSL_TC_STATUS_IDLE_SHIFT)) return TSL_OK;
    if (tsl_timer_now() - start > timeout_cycles) return TSL_ETIMEOUT;
  }
}
