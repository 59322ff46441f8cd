# MXU (hw/rtl/mxu): the systolic array, its skew and deskew stages, controller, output buffer and
# accumulators. tsl_mxu_fadd.sv also declares the package tsl_mxu_fadd_pkg, so it comes first (its
# function is called in tsl_mxu_acc.sv and tsl_mxu_pe.sv).
TSL_RTL_MXU = $(call tsl_uniq,$(TSL_RTL_PKG) $(TSL_RTL_PRIM) hw/rtl/mxu/tsl_mxu_fadd.sv \
              hw/rtl/mxu/tsl_mxu.sv hw/rtl/mxu/tsl_mxu_acc.sv hw/rtl/mxu/tsl_mxu_array.sv \
              hw/rtl/mxu/tsl_mxu_ctrl.sv hw/rtl/mxu/tsl_mxu_deskew.sv \
              hw/rtl/mxu/tsl_mxu_obuf.sv hw/rtl/mxu/tsl_mxu_pe.sv hw/rtl/mxu/tsl_mxu_skew.sv)
