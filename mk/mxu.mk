# MXU (hw/rtl/mxu): lint, Icarus compile, Verilated random tests per N, throughput, synthesis.
#   make test-mxu-n16          random LOADW/MATMUL programs at N=16 vs the golden model (SEED= replays);
#                              N = 4, 8 and 16 in make test, N = 32 in make soak
#   make test-mxu-throughput   back-to-back matmuls with weight swaps: >= 95 % of N^2 MAC/cycle
#                              (N = 4, 8 and 16; N = 32 with test-mxu-n32 in make soak)
#   make mxu-trace MXU_N=8 SEED=0x...   rebuild with --trace-fst and replay, writing an FST
#   make mxu-speed             Verilator cycles/s of the N=16 MXU (bf16 and int8)
#   make synth-report          Yosys per N: generic, ice40, xilinx -> docs/hardware.md table
# Knobs: MXU_RUNS (random runs per N, default 6), SEED.

# The builds (mk/verilate.mk: mxu, mxu-fadd): $(MXU_OUT)/n<N>/mxu_sim for N = 4, 8, 16 and 32, a
# --trace-fst variant of each (n<N>_trace, built only when asked for), and the fp32 adder against
# tslm_f32_add, $(MXU_OUT)/fadd/fadd_sim.
MXU_RTL     := $(TSL_RTL_MXU)
MXU_SIM_SV  := hw/sim/mxu/tsl_mxu_sim.sv
MXU_OUT     := $(BUILD)/mxu
MXU_RUNS    ?= 6
MXU_N       ?= 16

TESTS += mxu-lint mxu-iverilog mxu-fadd mxu-n4 mxu-n8 mxu-n16 mxu-throughput
SOAKS += mxu-n32   # the largest array (random and throughput): its build is most of a minute
.PHONY: test-mxu-lint test-mxu-iverilog test-mxu-fadd test-mxu-n4 test-mxu-n8 test-mxu-n16 test-mxu-n32 \
        test-mxu-throughput mxu-trace mxu-speed synth-report

# Verilator -Wall on every MXU top, at two N and with bf16 on and off.
test-mxu-lint:
	@p=0; f=0; for top in tsl_mxu tsl_mxu_acc; do for n in 4 32; do for bf in 0 1; do \
	  if $(VERILATOR) --lint-only -Wall --top-module $$top -GN=$$n -GEnableBf16="1'b$$bf" $(MXU_RTL); \
	  then p=$$((p+1)); else f=$$((f+1)); echo "lint FAILED: $$top N=$$n EnableBf16=$$bf"; fi; \
	  done; done; done; \
	if $(VERILATOR) --lint-only -Wall --top-module tsl_mxu_sim -GN=8 $(MXU_RTL) $(MXU_SIM_SV); \
	then p=$$((p+1)); else f=$$((f+1)); echo "lint FAILED: tsl_mxu_sim"; fi; \
	echo "mxu_lint: $$p passed, $$f failed"; test $$f -eq 0

# Icarus 11 compiles the MXU ("sorry: constant selects" notes are Icarus's, about sensitivity).
test-mxu-iverilog:
	@mkdir -p $(MXU_OUT)
	@p=0; f=0; for top in tsl_mxu tsl_mxu_acc; do \
	  rm -f $(MXU_OUT)/$$top.vvp; \
	  iverilog -g2012 -o $(MXU_OUT)/$$top.vvp -s $$top $(MXU_RTL) 2>&1 | grep -v 'sorry:'; \
	  if test -s $(MXU_OUT)/$$top.vvp; then p=$$((p+1)); else f=$$((f+1)); echo "iverilog FAILED: $$top"; fi; \
	done; echo "mxu_iverilog: $$p built, $$f failed (Icarus elaboration only)"; test $$f -eq 0

test-mxu-fadd: $(MXU_OUT)/fadd/fadd_sim
	@$< 3000000

test-mxu-n4: $(MXU_OUT)/n4/mxu_sim
	@$< random $(MXU_RUNS)
test-mxu-n8: $(MXU_OUT)/n8/mxu_sim
	@$< random $(MXU_RUNS)
test-mxu-n16: $(MXU_OUT)/n16/mxu_sim
	@$< random $(MXU_RUNS)
test-mxu-n32: $(MXU_OUT)/n32/mxu_sim
	@$< random $(MXU_RUNS) && $< throughput

test-mxu-throughput: $(MXU_OUT)/n4/mxu_sim $(MXU_OUT)/n8/mxu_sim $(MXU_OUT)/n16/mxu_sim
	@for n in 4 8 16; do $(MXU_OUT)/n$$n/mxu_sim throughput || exit 1; done

mxu-trace: $(MXU_OUT)/n$(MXU_N)_trace/mxu_sim
	TRACE=1 $< random 1

mxu-speed: $(MXU_OUT)/n16/mxu_sim
	@$< speed bf16
	@$< speed int8

# --- synthesis --------------------------------------------------------------------------------------
MXU_SYNTH_NS ?= 4 8 16
synth-report::
	@$(PYTHON) tests/mxu/synth_report.py --out $(MXU_OUT)/synth --ns "$(MXU_SYNTH_NS)" $(MXU_RTL)
