# The FPGA board tops and their RTL (the manifest of fpga/, built from the unit manifests of
# hw/rtl/sources.mk, which must be included first). The top Makefile and fpga/Makefile include it.
# Paths are relative to the repository root.
#   FPGA_TOP / FPGA_RTL     tsl_fpga_top: UART bridge + tsl_soc + on-chip HBM (the Arty build's
#                           core; the Verilated top for the uart transport: docs/fpga.md)
#   ICE40_TOP / ICE40_RTL   tsl_ice40_top: iCEBreaker board top (UART bridge + lite tensor core + SPRAM HBM)
#   ARTY_TOP / ARTY_RTL     tsl_arty_top: Arty A7-100T board top (clock, reset, pins + tsl_fpga_top)
#   YOWASP_NPM / YOWASP_GEN Yosys 0.55 from npm (installed into YOWASP_NPM by `make deps`): in
#                           YOWASP_GEN, bundle.js for fpga/yowasp-yosys.mjs and
#                           share/ice40/cells_sim.v for gate-level runs
#   ICE40_NETLIST           the iCEBreaker bitstream's synthesised netlist as Verilog (mk/fpga.mk), and
#   ICE40_CELLS             the cell models of the Yosys that made it: the gate-level runs
FPGA_TOP        = tsl_fpga_top
FPGA_RTL        = $(TSL_RTL_FPGA_TOP)
ICE40_TOP       = tsl_ice40_top
ICE40_RTL       = $(call tsl_uniq,$(TSL_RTL_LITE) $(TSL_RTL_UART_BRIDGE) fpga/ice40/tsl_ice40_top.sv)
ARTY_TOP        = tsl_arty_top
ARTY_RTL        = $(FPGA_RTL) fpga/xilinx/tsl_arty_top.sv

YOWASP_NPM      = $(abspath $(BUILD))/npm
YOWASP_GEN      = $(YOWASP_NPM)/node_modules/@yowasp/yosys/gen
ICE40_NETLIST   = $(BUILD)/fpga/ice40-gl/netlist.v
ICE40_CELLS     = $(YOWASP_GEN)/share/ice40/cells_sim.v
# $(call ice40_synth,TOP,RTL,OUTDIR): a recipe line, run from the repository root, that synthesises
# TOP for the UP5K as the iCEBreaker build does (Yosys 0.55 synth_ice40 -dsp -spram -abc9) into
# OUTDIR/TOP.json, with OUTDIR/yosys.log and OUTDIR/yosys.stat. The script runs in Yosys's own file
# system (fpga/yowasp-yosys.mjs): paths are repository-relative and the outputs come back from out/.
ice40_synth     = node fpga/yowasp-yosys.mjs $(YOWASP_GEN)/bundle.js $(3) "read_verilog -sv $(2); \
                  tee -q -o out/yosys.log synth_ice40 -dsp -spram -abc9 -device u -top $(1); \
                  delete t:\$$scopeinfo; write_json out/$(1).json; tee -q -o out/yosys.stat stat" $(2) $(TSL_RTL_INCLUDES) \
                  && mv $(3)/out/* $(3)/ && rmdir $(3)/out || { tail -20 $(3)/out/yosys.log 2>/dev/null; exit 1; }
