# VPU (hw/rtl/tc/tsl_vpu*): lint, Icarus compile, fp32 multiplier unit test, Verilated random tests.
#   make test-vpu-lint         verilator -Wall on tsl_vpu at N = 4, 16 (FnRows 2, 8) with EnableBf16 = 0, 1
#                              (and the sim top)
#   make test-vpu-iverilog     Icarus 11 compiles tsl_vpu at N = 4, 16 (FnRows 2, 8) with EnableBf16 = 0, 1
#   make test-vpu-fmul         tsl_vpu_fmul vs tslm_f32_mul: edge-value table plus 3M random pairs
#   make test-vpu-eup          tsl_vpu_eup vs tslm_f32_exp/recip/rsqrt: edges, every 4099th input, 2M random
#   make test-vpu-eup-all      (make soak) the same over every FP32 input
#   make test-vpu-n4 / -n16    directed + random VPU_VEC instructions vs the golden model (SEED= replays);
#                              N = 4 with FnRows = 2 (functions on two rows at once), N = 16 the default
#   make test-vpu-n4-int       the same at N = 4 with EnableBf16 = 0 (integer class only)
#   make vpu-trace VPU_N=4 SEED=0x...   rebuild with --trace-fst, replay the seed into build/vpu/vpu.fst (stops at the first failure)
# Knobs: VPU_RUNS (random runs per N, default 30), VPU_INSNS (instructions per run, default 80), SEED.

# The builds (mk/verilate.mk: vpu, vpu-fmul): $(VPU_OUT)/n<N>/vpu_sim for N = 4, 8, 16 and 32, a
# --trace-fst variant of each (n<N>_trace, built only when asked for), n4_int (EnableBf16 = 0), and
# the fp32 multiplier against tslm_f32_mul, $(VPU_OUT)/fmul/fmul_sim, and the transcendental unit
# against the model's functions, $(VPU_OUT)/eup/eup_sim.
VPU_RTL     := $(TSL_RTL_VPU)
VPU_SIM_RTL  = $(VL.vpu.rtl)
VPU_OUT     := $(BUILD)/vpu
VPU_RUNS    ?= 30
VPU_INSNS   ?= 80
VPU_N       ?= 4

TESTS += vpu-lint vpu-iverilog vpu-fmul vpu-eup vpu-n4 vpu-n16 vpu-n4-int
.PHONY: test-vpu-lint test-vpu-iverilog test-vpu-fmul test-vpu-eup test-vpu-n4 test-vpu-n16 test-vpu-n4-int vpu-trace

test-vpu-lint:
	@p=0; f=0; for n in 4 16; do for bf in 0 1; do \
	  if $(VERILATOR) --lint-only -Wall --top-module tsl_vpu -GN=$$n -GEnableBf16="1'b$$bf" -GFnRows=$$((n / 2)) $(VPU_RTL); \
	  then p=$$((p+1)); else f=$$((f+1)); echo "lint FAILED: tsl_vpu N=$$n EnableBf16=$$bf FnRows=$$((n / 2))"; fi; \
	  done; done; \
	if $(VERILATOR) --lint-only -Wall --top-module tsl_vpu_sim -GN=8 $(VPU_SIM_RTL); \
	then p=$$((p+1)); else f=$$((f+1)); echo "lint FAILED: tsl_vpu_sim"; fi; \
	echo "vpu_lint: $$p passed, $$f failed"; test $$f -eq 0

# Icarus 11 compiles the VPU ("sorry:" notes are Icarus's, about sensitivity lists and unique case).
test-vpu-iverilog:
	@mkdir -p $(VPU_OUT)
	@p=0; f=0; for n in 4 16; do for bf in 0 1; do \
	  rm -f $(VPU_OUT)/tsl_vpu.vvp; \
	  iverilog -g2012 -Ptsl_vpu.N=$$n -Ptsl_vpu.EnableBf16=$$bf -Ptsl_vpu.FnRows=$$((n / 2)) -o $(VPU_OUT)/tsl_vpu.vvp -s tsl_vpu \
	    $(VPU_RTL) 2>&1 | grep -v 'sorry:'; \
	  if test -s $(VPU_OUT)/tsl_vpu.vvp; then p=$$((p+1)); else f=$$((f+1)); \
	    echo "iverilog FAILED: tsl_vpu N=$$n EnableBf16=$$bf"; fi; \
	done; done; echo "vpu_iverilog: $$p built, $$f failed (Icarus elaboration only)"; test $$f -eq 0

test-vpu-fmul: $(VPU_OUT)/fmul/fmul_sim
	@$< 3000000

test-vpu-eup: $(VPU_OUT)/eup/eup_sim
	@$< 2000000 4099

# Every FP32 value through each of the three functions (about 25 minutes of one core).
SOAKS += vpu-eup-all
.PHONY: test-vpu-eup-all
test-vpu-eup-all: $(VPU_OUT)/eup/eup_sim
	@$< 0 1

test-vpu-n4: $(VPU_OUT)/n4/vpu_sim
	@$< $(VPU_RUNS) $(VPU_INSNS)
test-vpu-n16: $(VPU_OUT)/n16/vpu_sim
	@$< $(VPU_RUNS) $(VPU_INSNS)
test-vpu-n4-int: $(VPU_OUT)/n4_int/vpu_sim
	@$< $(VPU_RUNS) $(VPU_INSNS)

vpu-trace: $(VPU_OUT)/n$(VPU_N)_trace/vpu_sim
	TRACE=1 TRACE_FILE=$(VPU_OUT)/vpu.fst $< $(VPU_RUNS) $(VPU_INSNS)
