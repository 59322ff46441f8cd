# Lite tensor core (hw/rtl/lite): tsl_tc's interface and ISA, int8 only, one instruction at a time on
# small serial units, for small FPGAs. Co-simulated against the golden model by the tensor core's
# own harness (hw/sim/tc/tc_main.cpp, Verilated with --prefix Vtsl_tc and mk/tc.mk's flags).
#   make test-lite-n4 / test-lite-n8   random race-free programs (SEED= replays)
#   make test-lite-directed            every VPU op and type, DMA shapes and maximum sizes, errors
#   make test-lite-perf                tsl_lite_perf against 64-bit counters in C++
#   make test-lite-lint / -iverilog    Verilator -Wall (3 configurations) and an Icarus compile
#   make lite-trace LITE_CFG=n4 SEED=0x...   rebuild with --trace-fst and replay one program -> tc.fst
# Configurations (name: N, VMEM, ACC, HBM bytes, AXI data bits): n4 is the iCEBreaker's core with
# smaller memories (the harness moves all of VMEM and ACC twice per program, a word per HBM latency);
# n8 has tsl_tc's AXI width 16N.
LITE_CFG_n4 := 4 16384 4096 262144 32
LITE_CFG_n8 := 8 32768 8192 262144 128
LITE_CFG    ?= n4

LITE_RTL := $(TSL_RTL_LITE)
LITE_CPP := hw/sim/tc/tc_main.cpp hw/sim/tc/tsl_hbm.cpp
LITE_OUT := $(BUILD)/lite

# $(1) = config name, $(2) = suffix, $(3) = extra Verilator flags
define LITE_BUILD
$(LITE_OUT)/$(1)$(2)/tc_sim: $(LITE_RTL) $(LITE_CPP) hw/sim/tc/tsl_hbm.h hw/sim/tc/tsl_axi_pins.h hw/sim/tc/gemm_db.h $(MODEL_LIB) mk/tclite.mk
	@mkdir -p $$(@D)
	@set -- $(LITE_CFG_$(1)); \
	$(VERILATOR) --cc --exe --build -j 2 $$(subst tsl_tc,tsl_lite_tc,$$(TC_VFLAGS)) --prefix Vtsl_tc $(3) \
	  -GN=$$$$1 -GVmemBytes=$$$$2 -GAccBytes=$$$$3 -GHbmBytes=$$$$4 -GAxiBits=$$$$5 -Mdir $$(@D) \
	  -CFLAGS "$$(TC_CFLAGS) -DTC_NAME=\\\"lite\\\" -DTC_CORE=TSL_CORE_LITE -DTC_TIMEOUT=20000000 -DTC_N=$$$$1 -DTC_BF16=0 -DTC_VMEM=$$$$2 -DTC_ACC=$$$$3 -DTC_HBM=$$$$4 -DTC_AXI_BYTES=$$$$(($$$$5 / 8))" \
	  -LDFLAGS "$(abspath $(MODEL_LIB))" -o tc_sim \
	  $(LITE_RTL) $(abspath $(LITE_CPP)) >$$(@D)/build.log 2>&1 || { tail -40 $$(@D)/build.log; exit 1; }
endef
$(foreach c,n4 n8,$(eval $(call LITE_BUILD,$(c),,)))
$(foreach c,n4 n8,$(eval $(call LITE_BUILD,$(c),_trace,--trace-fst)))

# tsl_lite_perf alone, against 64-bit counters in C++ (N = 32768: PERF_MXU_MACS carries into HI)
$(LITE_OUT)/perf/perf_sim: $(LITE_RTL) tests/lite/perf_main.cpp hw/sim/common/tsl_rng.h mk/tclite.mk
	@mkdir -p $(@D)
	@$(VERILATOR) --cc --exe --build -j 2 -Wall --top-module tsl_lite_perf -GN=32768 -O3 -Mdir $(@D) \
	  -CFLAGS "-O2 -I$(abspath hw/include)" -o perf_sim $(LITE_RTL) $(abspath tests/lite/perf_main.cpp) \
	  >$(@D)/build.log 2>&1 || { tail -40 $(@D)/build.log; exit 1; }

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
