# The inter-chip interconnect (hw/rtl/ici, docs/pod.md): the two ends of a link, the router, the semaphores.
TSL_RTL_ICI = $(TSL_RTL_PKG) $(TSL_RTL_PRIM) hw/rtl/ici/tsl_ici_crc.sv hw/rtl/ici/tsl_ici_tx.sv hw/rtl/ici/tsl_ici_rx.sv \
              hw/rtl/ici/tsl_ici_router.sv hw/rtl/ici/tsl_ici_sem.sv
