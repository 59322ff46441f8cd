# Tensor-core controller (hw/rtl/tc/tsl_tc_ctrl.sv and parts): lint, Icarus compile, and a
# Verilated random test against the golden model at two configurations.
#   make test-tcctrl-lint      Verilator -Wall at N=4/16 (bf16 on/off) and an Icarus 11 compile
#   make test-tcctrl-n4        N=4, VMEM 64 KiB, ACC 16 KiB, HBM 1 MiB, QueueDepth 8, no bf16, InflightMax 2
#   make test-tcctrl-n16       the default parameters (tsl_pkg), InflightMax 4; make soak runs it (tcctrl-soak)
#                              (make test-tc-n16 runs the same controller inside the whole core)
#   make test-tcctrl-iverilog  the Icarus compile alone
#   make soak                  adds test-tcctrl-soak: both configurations with TCCTRL_SOAK_SEGS (200000)
# Knobs: TCCTRL_SEGS (random segments per run, default 4000: about 10 s at N=4), SEED (replay).

TCCTRL_RTL := $(TSL_RTL_TCCTRL)
TCCTRL_OUT  := $(BUILD)/tcctrl
TCCTRL_SEGS ?= 4000
TCCTRL_SOAK_SEGS ?= 200000
# The builds $(TCCTRL_OUT)/n4/ctrl_sim and n16/ctrl_sim: mk/verilate.mk (tcctrl).

TESTS += tcctrl-lint tcctrl-n4
SOAKS += tcctrl-soak
.PHONY: test-tcctrl-lint test-tcctrl-iverilog test-tcctrl-n4 test-tcctrl-n16 test-tcctrl-soak

test-tcctrl-lint:
	@p=0; f=0; for n in 4 16; do for bf in 0 1; do \
	  if $(VERILATOR) --lint-only -Wall --top-module tsl_tc_ctrl -GN=$$n -GEnableBf16="1'b$$bf" \
	     $(TCCTRL_RTL); then p=$$((p+1)); else f=$$((f+1)); echo "lint FAILED: N=$$n EnableBf16=$$bf"; fi; \
	done; done; \
	for n in 4 16; do \
	  if $(VERILATOR) --lint-only -Wall --top-module tsl_tc_ctrl -GN=$$n -GEnableSeq="1'b1" $(TCCTRL_RTL); \
	  then p=$$((p+1)); else f=$$((f+1)); echo "lint FAILED: N=$$n EnableSeq=1"; fi; \
	done; \
	if $(VERILATOR) --lint-only -Wall --top-module tsl_tc_ctrl -GN=4 -GQueueDepth=5 -GInflightMax=1 \
	   $(TCCTRL_RTL); then p=$$((p+1)); else f=$$((f+1)); echo "lint FAILED: QueueDepth=5 InflightMax=1"; fi; \
	echo "tcctrl_lint: $$p passed, $$f failed"; \
	if $(MAKE) -s --no-print-directory test-tcctrl-iverilog; then echo "tcctrl_iverilog: 1 built, 0 failed (Icarus elaboration only)"; \
	else f=$$((f+1)); echo "tcctrl_iverilog: 0 built, 1 failed"; fi; test $$f -eq 0

test-tcctrl-iverilog:
	@mkdir -p $(TCCTRL_OUT)
	@rm -f $(TCCTRL_OUT)/tsl_tc_ctrl.vvp
	@iverilog -g2012 -Ptsl_tc_ctrl.EnableSeq=1 -o $(TCCTRL_OUT)/tsl_tc_ctrl.vvp -s tsl_tc_ctrl $(TCCTRL_RTL) 2>&1 | grep -v 'sorry:' || true
	@test -s $(TCCTRL_OUT)/tsl_tc_ctrl.vvp || { echo "iverilog FAILED: tsl_tc_ctrl"; exit 1; }

test-tcctrl-n4: $(TCCTRL_OUT)/n4/ctrl_sim
	@$< $(TCCTRL_SEGS)
test-tcctrl-n16: $(TCCTRL_OUT)/n16/ctrl_sim
	@$< $(TCCTRL_SEGS)
test-tcctrl-soak: $(TCCTRL_OUT)/n4/ctrl_sim $(TCCTRL_OUT)/n16/ctrl_sim
	@$(TCCTRL_OUT)/n4/ctrl_sim $(TCCTRL_SOAK_SEGS) && $(TCCTRL_OUT)/n16/ctrl_sim $(TCCTRL_SOAK_SEGS)
