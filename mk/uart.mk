# The host `uart` transport (host_driver/src/transport_uart.c) against a board on a pty.
#   make test-uart    tests/uart/test_uart.py: `tessel gemm --backend uart --port PTY` against
#                     tests/uart/uart_dev_model (the golden-model device behind the bridge
#                     protocol, no RTL): int8 and bf16 shapes checked bit for bit against the C
#                     reference, `info`, and fault runs (bytes dropped / corrupted in either
#                     direction: the transport recovers, or fails cleanly with TESSEL_EIO).
#                     SEED=... replays the fault phases and masks.
# The device model links its own libtessel built without the Verilated SoC (-DTESSEL_NO_SIM).

UART_OUT  := $(BUILD)/uart
UART_OBJ  := $(UART_OUT)/obj
UART_LIB  := $(UART_OUT)/libtessel.a
UART_DEV  := $(UART_OUT)/uart_dev_model
# The plain C reference that checks the results (mk/cli.mk).
UART_REF  := $(BUILD)/cli/cli_ref
UART_OBJS := $(addprefix $(UART_OBJ)/,$(notdir $(TSL_HOST_ALL_C:.c=.o)))

define UART_CC_RULE
$(UART_OBJ)/$(notdir $(1:.c=.o)): $(1) $(TSL_HOST_ALL_H) mk/uart.mk
	@mkdir -p $$(@D)
	$(CC) $$(filter-out -DTESSEL_NO_SIM,$$(HOST_CFLAGS)) -DTESSEL_NO_SIM -c $(1) -o $$@
endef
$(foreach s,$(TSL_HOST_ALL_C),$(eval $(call UART_CC_RULE,$(s))))

$(UART_LIB): $(UART_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(UART_DEV): tests/uart/uart_dev_model.cpp hw/sim/board/tsl_pty.h $(TSL_HOST_ALL_H) hw/sim/common/tsl_rng.h \
             $(UART_LIB) mk/uart.mk
	$(CXX) -std=c++14 -O2 -g -Wall -Wextra -Werror $(HOST_INC) -Ihw/sim/board -Ihw/sim/common $< $(UART_LIB) -lm -o $@

TESTS += uart
.PHONY: test-uart

test-uart: $(UART_DEV) $(TESSEL) $(UART_REF)
	@rm -rf $(UART_OUT)/t && mkdir -p $(UART_OUT)/t
	@$(PYTHON) tests/uart/test_uart.py model $(UART_DEV) $(TESSEL) $(UART_REF) $(UART_OUT)/t

# --- the Verilated boards behind a pty (hw/sim/board/board_main.cpp) ------------------------------
#   make test-uart-board  a GEMM subset through `tessel gemm --backend uart` against the Verilated
#                         tsl_fpga_top of test-fpga-top (N=4 int8, as synthesised, HBM 256 KiB) with
#                         a bit-level UART model on its pins, bridged to a pty; the host loads
#                         $(FW_ELF) into it.
#   make test-uart-ice40  the same against the Verilated tsl_ice40_top, the iCEBreaker bitstream's RTL
#                         at its synthesised parameters (N=4, HBM 64 KiB, no control core): the host
#                         runs the command processor over the line.
#   make test-uart-ice40-gl  four of those GEMMs on the bitstream's synthesised netlist (make fpga).
#   make bench-ice40      int8 GEMMs up to 64x128x96 on the Verilated tsl_ice40_top, results checked:
#                         cycles, MXU utilisation, bytes sent ($(BUILD)/uart/bench-ice40/bench-ice40.md)
# The harness board_main is linked to the Verilated board tops that mk/fpga.mk builds for
# fpga_top_main (hw/sim/vlink.mk), so that each model is verilated and compiled once
# (mk/verilate.mk: board); ice40-gl is the bitstream's synthesised netlist, with the cell models of
# its Yosys (a 1-minute build).
UART_BOARD := $(UART_OUT)/board/board_sim
UART_ICE40 := $(UART_OUT)/ice40/board_sim
UART_ICE40_GL := $(UART_OUT)/ice40-gl/board_sim

TESTS += uart-board uart-ice40 uart-ice40-gl
.PHONY: test-uart-board test-uart-ice40 test-uart-ice40-gl

test-uart-board: $(UART_BOARD) $(TESSEL) $(UART_REF) $(FW_ELF)
	@rm -rf $(UART_OUT)/tb && mkdir -p $(UART_OUT)/tb
	@$(PYTHON) tests/uart/test_uart.py board $(UART_BOARD) $(FW_ELF) $(TESSEL) $(UART_REF) $(UART_OUT)/tb

test-uart-ice40: $(UART_ICE40) $(TESSEL) $(UART_REF)
	@rm -rf $(UART_OUT)/ti && mkdir -p $(UART_OUT)/ti
	@$(PYTHON) tests/uart/test_uart.py ice40 $(UART_ICE40) $(TESSEL) $(UART_REF) $(UART_OUT)/ti

test-uart-ice40-gl: fpga $(TESSEL) $(UART_REF)
	@$(MAKE) --no-print-directory $(UART_ICE40_GL)
	@rm -rf $(UART_OUT)/tg && mkdir -p $(UART_OUT)/tg
	@$(PYTHON) tests/uart/test_uart.py ice40-gl $(UART_ICE40_GL) $(TESSEL) $(UART_REF) $(UART_OUT)/tg

.PHONY: bench-ice40
bench-ice40: $(UART_ICE40) $(TESSEL) $(UART_REF)
	@rm -rf $(UART_OUT)/bench-ice40 && mkdir -p $(UART_OUT)/bench-ice40
	@$(PYTHON) tests/uart/test_uart.py bench-ice40 $(UART_ICE40) $(TESSEL) $(UART_REF) $(UART_OUT)/bench-ice40
