# RV32IM control core (hw/rtl/core).
#   TSL_RTL_CORE     the core tsl_core alone, without RAM (make synth-core)
#   TSL_RTL_CPU_SYS  the control subsystem tsl_cpu_sys: core, local RAM, MMIO (in tsl_soc)
#   TSL_RTL_CPU_SIM  its simulation top tsl_cpu_sys_sim with the test responder tsl_cpu_sys_stub
#                    (build/bin/tessel-run, mk/core.mk)
TSL_RTL_CORE    = hw/rtl/core/tsl_core_regfile.sv hw/rtl/core/tsl_core_alu.sv \
                  hw/rtl/core/tsl_core_muldiv.sv hw/rtl/core/tsl_core_csr.sv \
                  hw/rtl/core/tsl_core_fetch.sv hw/rtl/core/tsl_core.sv
TSL_RTL_CPU_SYS = $(call tsl_uniq,$(TSL_RTL_PKG) $(TSL_RTL_PRIM) $(TSL_RTL_CORE) \
                  hw/rtl/core/tsl_cpu_sys_regs.sv hw/rtl/core/tsl_cpu_sys.sv)
TSL_RTL_CPU_SIM = $(TSL_RTL_CPU_SYS) hw/rtl/core/tsl_cpu_sys_stub.sv hw/rtl/core/tsl_cpu_sys_sim.sv
