# Product SoC (hw/rtl/soc): tsl_soc = control subsystem + tensor core + host interface + watchdog +
# AXI arbiter, bridge and isolation stage to HBM + the ICI unit (hw/rtl/ici).
TSL_RTL_SOC = $(call tsl_uniq,$(TSL_RTL_TC) $(TSL_RTL_CPU_SYS) $(TSL_RTL_ICI) \
              hw/rtl/soc/tsl_wdt.sv hw/rtl/soc/tsl_hostif.sv hw/rtl/soc/tsl_axi_from_bus.sv \
              hw/rtl/soc/tsl_axi_arb_rr.sv hw/rtl/soc/tsl_axi_arb.sv hw/rtl/soc/tsl_axi_iso.sv \
              hw/rtl/soc/tsl_soc.sv)
