# Lite tensor core (hw/rtl/lite): tsl_tc's interface and ISA, int8 only, one instruction at a time on
# small serial units, for small FPGAs. Co-simulated against the golden model by the tensor core's
# own harness (hw/sim/tc/tc_main.cpp, Verilated with --prefix Vtsl_tc and mk/tc.mk's flags).
#   make test-lite-n4 / test-lite-n8   random race-free programs (SEED= replays)
#   make test-lite-directed            every VPU op and type, DMA shapes and maximum sizes, errors
#   make test-lite-perf                tsl_lite_perf against 64-bit counters in C++
#   make test-lite-lint / -iverilog    Verilator -Wall (3 configurations) and an Icarus compile
#   make lite-trace LITE_CFG=n4 SEED=0x...   rebuild with --trace-fst and replay one program -> tc.fst
# The builds (mk/verilate.mk: lite, lite-perf): $(LITE_OUT)/<config>[_trace]/tc_sim, configurations
# n4 (the iCEBreaker's core with smaller memories: the harness moves all of VMEM and ACC twice per
# program, a word per HBM latency) and n8 (tsl_tc's AXI width 16N); $(LITE_OUT)/perf/perf_sim,
# tsl_lite_perf alone at N = 32768 (PERF_MXU_MACS carries into HI).
LITE_CFG    ?= n4

LITE_RTL := $(TSL_RTL_LITE)
LITE_OUT := $(BUILD)/lite

TESTS += lite-lint lite-iverilog lite-perf lite-n4 lite-n8 lite-directed
.PHONY: test-lite-lint test-lite-iverilog test-lite-perf test-lite-n4 test-lite-n8 test-lite-directed lite-trace

test-lite-lint:
	@p=0; f=0; for cfg in "4 32" "4 64" "8 128"; do set -- $$cfg; \
	  if $(VERILATOR) --lint-only -Wall --top-module tsl_lite_tc -GN=$$1 -GAxiBits=$$2 $(LITE_RTL); \
	  then p=$$((p+1)); else f=$$((f+1)); echo "lint FAILED: tsl_lite_tc N=$$1 AxiBits=$$2"; fi; \
	done; echo "lite_lint: $$p passed, $$f failed"; test $$f -eq 0

test-lite-iverilog:
	@mkdir -p $(LITE_OUT)
	@rm -f $(LITE_OUT)/tsl_lite_tc.vvp; iverilog -g2012 -o $(LITE_OUT)/tsl_lite_tc.vvp -s tsl_lite_tc $(LITE_RTL) 2>&1 | grep -v 'sorry:'; \
	if test -s $(LITE_OUT)/tsl_lite_tc.vvp; then echo "lite_iverilog: 1 built, 0 failed (Icarus elaboration only)"; \
	else echo "lite_iverilog: 0 built, 1 failed"; exit 1; fi

test-lite-perf: $(LITE_OUT)/perf/perf_sim
	@$< 200000

test-lite-n4: $(LITE_OUT)/n4/tc_sim
	@$< random 40 40
test-lite-n8: $(LITE_OUT)/n8/tc_sim
	@$< random 20 40
test-lite-directed: $(LITE_OUT)/n4/tc_sim $(LITE_OUT)/n8/tc_sim
	@$(LITE_OUT)/n4/tc_sim directed && $(LITE_OUT)/n8/tc_sim directed

lite-trace: $(LITE_OUT)/$(LITE_CFG)_trace/tc_sim
	TRACE=1 $< random 1 40
