# FPGA builds (fpga/, docs/fpga.md): the UART host bridge (hw/rtl/fpga) and the board tops.
#   make test-fpga-bridge     Verilated tsl_uart_bridge: good/bad-CRC/BADREQ/BUS/truncated frames
#                             against a memory model (SEED= replays)
#   make test-fpga-lint       Verilator -Wall and iverilog -g2012 on the bridge and the board tops
#   make test-fpga-top        Verilated tsl_fpga_top + cp.elf through its UART pins (HOSTIF, firmware, HBM)
#   make test-fpga-ice40-top  Verilated tsl_ice40_top through its UART pins: a TC program against the model
#   make test-fpga-ice40-gl   the same on the synthesised iCE40 netlist (Yosys cell models)
#   make test-fpga            make fpga, reported as a test (fails unless nextpnr meets 12 MHz)
#   make fpga                 iCEBreaker bitstream (make -C fpga ice40): yosys, nextpnr-ice40, icepack
# fpga/board.mk (read by the top Makefile) lists the tops and their RTL (FPGA_RTL, ICE40_RTL, ARTY_RTL).

FPGA_OUT        := $(BUILD)/fpga
# The Verilated builds (mk/verilate.mk: bridge, fpga, ice40, ice40-gl): the bridge at 12 clocks/bit,
# $(FPGA_OUT)/bridge/bridge_sim; the tops driven by hw/sim/fpga/fpga_top_main.cpp at FPGA_CPB
# clocks/bit (mk/uart.mk links its board harness to the same models): tsl_fpga_top at its defaults
# (N=4 int8, VMEM 16 KiB, ACC 4 KiB, HBM 256 KiB), $(FPGA_OUT)/top/fpga_top_sim; tsl_ice40_top
# (BAR1 128 KiB), $(FPGA_OUT)/ice40-sim/fpga_top_sim; and at gate level, ice40-gl/fpga_top_sim.
FPGA_CPB        := 12

# Gate level: the synthesised iCE40 netlist (the bitstream's, from make fpga) with the cell models
# (SB_SPRAM256KA, SB_RAM40_4K, SB_MAC16, SB_LUT4, ...) of the Yosys that made it (0.55, from npm),
# driven by the same harness.
$(ICE40_NETLIST): $(FPGA_OUT)/ice40/$(ICE40_TOP).json
	@mkdir -p $(@D)
	@node fpga/yowasp-yosys.mjs $(YOWASP_GEN)/bundle.js $(@D) "read_json $<; write_verilog -noattr out/$(@F)" $< \
	  && mv $(@D)/out/$(@F) $@ && rmdir $(@D)/out

TESTS += fpga-lint fpga-bridge fpga-top fpga fpga-ice40-top fpga-ice40-gl
.PHONY: test-fpga-lint test-fpga-bridge test-fpga-top test-fpga-ice40-top test-fpga test-fpga-ice40-gl fpga

# Verilator -Wall (checks) and iverilog -g2012 (builds: tests/runner.py counts them as built) on the
# bridge and the three tops.
test-fpga-lint:
	@p=0; f=0; b=0; bf=0; \
	for t in "tsl_uart_bridge:$(TSL_RTL_UART_BRIDGE)" "$(FPGA_TOP):$(FPGA_RTL)" "$(ICE40_TOP):$(ICE40_RTL)" \
	         "$(ARTY_TOP):$(ARTY_RTL)"; do top=$${t%%:*}; rtl=$${t#*:}; \
	  if $(VERILATOR) --lint-only -Wall --top-module $$top $$rtl; \
	  then p=$$((p+1)); else f=$$((f+1)); echo "lint FAILED: $$top"; fi; \
	  if iverilog -g2012 -s $$top -o /dev/null $$rtl 2>&1 | { ! grep -v "sorry:"; }; \
	  then b=$$((b+1)); else bf=$$((bf+1)); echo "iverilog FAILED: $$top"; fi; done; \
	echo "fpga_lint: $$p passed, $$f failed"; echo "fpga_iverilog: $$b built, $$bf failed (Icarus elaboration only)"; \
	test $$f -eq 0 -a $$bf -eq 0

test-fpga-bridge: $(FPGA_OUT)/bridge/bridge_sim
	@$<

test-fpga-top: $(FPGA_OUT)/top/fpga_top_sim $(FW_ELF)
	@$< $(FW_ELF)

test-fpga-ice40-top: $(FPGA_OUT)/ice40-sim/fpga_top_sim
	@$<

test-fpga-ice40-gl: fpga
	@$(MAKE) --no-print-directory $(FPGA_OUT)/ice40-gl/fpga_top_sim && $(FPGA_OUT)/ice40-gl/fpga_top_sim

# The iCEBreaker bitstream; fails unless nextpnr meets 12 MHz.
fpga:
	@$(MAKE) -s --no-print-directory -C fpga ice40 BUILD=$(abspath $(BUILD))

test-fpga:
	@rm -f $(FPGA_OUT)/ice40/$(ICE40_TOP).asc
	@if $(MAKE) --no-print-directory fpga; then echo "fpga_ice40: 1 passed, 0 failed"; \
	else echo "fpga_ice40: 0 passed, 1 failed"; exit 1; fi

# Yosys synth_xilinx estimate of the Arty build (tsl_arty_top, N=16 int8) -> docs/fpga.md table.
# FPGA_SYNTH_CONFIGS="16:0 16:1" adds int8+bf16 (a long run).
FPGA_SYNTH_CONFIGS ?= 16:0
synth-report::
	@$(PYTHON) fpga/xilinx/synth_estimate.py --out $(FPGA_OUT)/arty-synth --configs "$(FPGA_SYNTH_CONFIGS)" \
	  $(ARTY_RTL)
