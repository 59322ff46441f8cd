# The inter-chip interconnect (hw/rtl/ici, docs/pod.md): the two ends of a link, the router, the semaphores,
# the packetizer (a SEND's write bursts into packets), the ejector (packets into HBM writes), and the
# unit of a chip that joins them (tsl_ici, in tsl_soc).
TSL_RTL_ICI = $(TSL_RTL_PKG) $(TSL_RTL_PRIM) hw/rtl/ici/tsl_ici_crc.sv hw/rtl/ici/tsl_ici_tx.sv hw/rtl/ici/tsl_ici_rx.sv \
              hw/rtl/ici/tsl_ici_router.sv hw/rtl/ici/tsl_ici_sem.sv hw/rtl/ici/tsl_ici_pkt.sv \
              hw/rtl/ici/tsl_ici_eject.sv hw/rtl/ici/tsl_ici.sv
