# RTL lists of the FPGA tops, relative to the repository root (included by fpga/Makefile and
# mk/fpga.mk; other harnesses include it to Verilate a board top).
#   FPGA_TOP / FPGA_RTL     tsl_fpga_top: UART bridge + tsl_soc + on-chip HBM (the Arty build's
#                           core; the Verilated top for the uart transport: docs/fpga.md)
#   ICE40_TOP / ICE40_RTL   tsl_ice40_top: iCEBreaker board top (UART bridge + lite tensor core + SPRAM HBM)
#   ARTY_TOP / ARTY_RTL     tsl_arty_top: Arty A7-100T board top (clock, reset, pins + tsl_fpga_top)
#   YOWASP_NPM / YOWASP_GEN Yosys 0.55 from npm (installed into YOWASP_NPM by `make deps`): in
#                           YOWASP_GEN, bundle.js for fpga/yowasp-yosys.mjs and
#                           share/ice40/cells_sim.v for gate-level runs
# FPGA_ROOT: the repository root with a trailing slash when included from another directory.
YOWASP_NPM      = $(abspath $(BUILD))/npm
YOWASP_GEN      = $(YOWASP_NPM)/node_modules/@yowasp/yosys/gen
# RTL_INCLUDES: the generated files the RTL `includes (by their path from the repository root, where
# every flow runs); a flow that copies the sources, as ice40_synth does, copies these too.
RTL_INCLUDES    = hw/rtl/tsl_insn.svh hw/rtl/tsl_regs.svh
# $(call ice40_synth,TOP,RTL,OUTDIR): a recipe line, run from the repository root, that synthesises
# TOP for the UP5K as the iCEBreaker build does (Yosys 0.55 synth_ice40 -dsp -spram -abc9) into
# OUTDIR/TOP.json, with OUTDIR/yosys.log and OUTDIR/yosys.stat. The script runs in Yosys's own file
# system (fpga/yowasp-yosys.mjs): paths are repository-relative and the outputs come back from out/.
ice40_synth     = node fpga/yowasp-yosys.mjs $(YOWASP_GEN)/bundle.js $(3) "read_verilog -sv $(2); \
                  tee -q -o out/yosys.log synth_ice40 -dsp -spram -abc9 -device u -top $(1); \
                  delete t:\$$scopeinfo; write_json out/$(1).json; tee -q -o out/yosys.stat stat" $(2) $(RTL_INCLUDES) \
                  && mv $(3)/out/* $(3)/ && rmdir $(3)/out || { tail -20 $(3)/out/yosys.log 2>/dev/null; exit 1; }
fpga_glob       = $(patsubst $(FPGA_ROOT)%,%,$(sort $(wildcard $(addprefix $(FPGA_ROOT),$(1)))))
FPGA_BRIDGE_RTL = hw/rtl/prim/tsl_prim_ram_1r1w.sv hw/rtl/fpga/tsl_uart_rx.sv hw/rtl/fpga/tsl_uart_tx.sv \
                  hw/rtl/fpga/tsl_uart_bridge.sv
FPGA_SOC_RTL    = hw/rtl/tsl_pkg.sv $(call fpga_glob,hw/rtl/prim/*.sv hw/rtl/mxu/*.sv hw/rtl/tc/*.sv \
                  hw/rtl/soc/*.sv) \
                  hw/rtl/core/tsl_core_regfile.sv hw/rtl/core/tsl_core_alu.sv hw/rtl/core/tsl_core_muldiv.sv \
                  hw/rtl/core/tsl_core_csr.sv hw/rtl/core/tsl_core.sv hw/rtl/core/tsl_cpu_sys_regs.sv \
                  hw/rtl/core/tsl_cpu_sys.sv
FPGA_TOP        = tsl_fpga_top
FPGA_RTL        = $(FPGA_SOC_RTL) hw/rtl/fpga/tsl_uart_rx.sv \
                  hw/rtl/fpga/tsl_uart_tx.sv hw/rtl/fpga/tsl_uart_bridge.sv hw/rtl/fpga/tsl_fpga_hbm.sv \
                  hw/rtl/fpga/tsl_fpga_top.sv
ICE40_TOP       = tsl_ice40_top
ICE40_RTL       = $(FPGA_BRIDGE_RTL) hw/rtl/tsl_pkg.sv hw/rtl/prim/tsl_prim_ram.sv hw/rtl/tc/tsl_tc_check.sv \
                  $(call fpga_glob,hw/rtl/lite/*.sv) fpga/ice40/tsl_ice40_top.sv
ARTY_TOP        = tsl_arty_top
ARTY_RTL        = $(FPGA_RTL) fpga/xilinx/tsl_arty_top.sv
