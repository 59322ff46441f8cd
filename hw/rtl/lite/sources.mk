# Lite tensor core (hw/rtl/lite): tsl_tc's interface and ISA on small serial units, int8 only (the
# iCEBreaker build). It shares the tensor core's instruction check.
TSL_RTL_LITE = $(call tsl_uniq,$(TSL_RTL_PKG) $(TSL_RTL_PRIM) $(TSL_RTL_TC_CHECK) \
               hw/rtl/lite/tsl_lite_axi.sv hw/rtl/lite/tsl_lite_core.sv hw/rtl/lite/tsl_lite_ctrl.sv \
               hw/rtl/lite/tsl_lite_dma.sv hw/rtl/lite/tsl_lite_hbm.sv hw/rtl/lite/tsl_lite_mul.sv \
               hw/rtl/lite/tsl_lite_mxu.sv hw/rtl/lite/tsl_lite_perf.sv hw/rtl/lite/tsl_lite_tc.sv \
               hw/rtl/lite/tsl_lite_vpu.sv)
