# Tensor core (hw/rtl/tc): the whole unit co-simulated against the golden model.
#   make test-tc-n16          random race-free programs, N=16 default memories (SEED= replays)
#   make test-tc-gemm         256^3 int8 tiled GEMM with double buffering: MXU busy >= 90 %
#   make tc-trace TC_CFG=n4 SEED=0x...   rebuild with --trace-fst and replay one program -> tc.fst
#   make test-tc-seq-n4/-n16  random tile-sequencer descriptors on the whole core (tc_sim seq), half
#                             of them under an HBM window at the edges of their operands
#   make test-tc-window-n4/-n16  random programs under random HBM windows (HBM_BASE, HBM_LIMIT) on and
#                             across their DMAs' edges, set before and in the middle (tc_sim window)
#   make test-tc-fetch-n4/-n16  random device programs fetched by the program fetch unit (tc_sim fetch):
#                             INSN and SEQ records, bad records, CTRL.RESET mid-fetch, AXI stalls;
#                             prints the fetch rate
#   make test-tc-synth        Yosys 0.23 coarse synthesis of the whole core at N=4 (int8 only)
#   make test-tc-iverilog     Icarus compiles tsl_tc (a build: tests/runner.py counts it as built)
#   make soak                 includes tc-soak: >= 100 000 random instructions, tc-seq-soak, and
#                             tc-synth-yowasp (test-tc-synth with bf16 on Yosys 0.55)
# The builds $(TC_OUT)/<config>[_trace]/tc_sim, configurations n4, n8 and n16: mk/verilate.mk (tc).
TC_CFG     ?= n16

TC_RTL     := $(TSL_RTL_TC)
TC_OUT     := $(BUILD)/tc

TESTS += tc-lint tc-synth tc-iverilog tc-n4 tc-n8 tc-n16 tc-directed tc-gemm tc-seq-n4 tc-seq-n16 \
         tc-window-n4 tc-window-n16 tc-fetch-n4 tc-fetch-n16
SOAKS += tc-soak tc-seq-soak tc-window-soak tc-fetch-soak
.PHONY: test-tc-lint test-tc-synth test-tc-synth-yowasp test-tc-iverilog test-tc-n4 test-tc-n8 test-tc-n16 test-tc-directed test-tc-gemm \
        test-tc-soak tc-trace test-tc-seq-n4 test-tc-seq-n16 test-tc-seq-soak test-tc-window-n4 test-tc-window-n16 \
        test-tc-window-soak test-tc-fetch-n4 test-tc-fetch-n16 test-tc-fetch-soak

test-tc-lint:
	@p=0; f=0; for cfg in "4 0 1" "4 1 0" "16 1 1"; do set -- $$cfg; \
	  if $(VERILATOR) --lint-only -Wall --top-module tsl_tc -GN=$$1 -GEnableBf16="1'b$$2" -GEnableSeq="1'b$$3" $(TC_RTL); \
	  then p=$$((p+1)); else f=$$((f+1)); echo "lint FAILED: tsl_tc N=$$1 EnableBf16=$$2 EnableSeq=$$3"; fi; \
	done; echo "tc_lint: $$p passed, $$f failed"; test $$f -eq 0

test-tc-iverilog:
	@mkdir -p $(TC_OUT)
	@rm -f $(TC_OUT)/tsl_tc.vvp; iverilog -g2012 -Ptsl_tc.EnableSeq=1 -o $(TC_OUT)/tsl_tc.vvp -s tsl_tc $(TC_RTL) 2>&1 | grep -v 'sorry:'; \
	if test -s $(TC_OUT)/tsl_tc.vvp; then echo "tc_iverilog: 1 built, 0 failed (Icarus elaboration only)"; \
	else echo "tc_iverilog: 0 built, 1 failed"; exit 1; fi

test-tc-n4: $(TC_OUT)/n4/tc_sim
	@$< random 40 40
test-tc-n8: $(TC_OUT)/n8/tc_sim
	@$< random 20 40
test-tc-n16: $(TC_OUT)/n16/tc_sim
	@$< random 12 60
test-tc-directed: $(TC_OUT)/n4/tc_sim $(TC_OUT)/n16/tc_sim
	@$(TC_OUT)/n4/tc_sim directed && $(TC_OUT)/n16/tc_sim directed
test-tc-gemm: $(TC_OUT)/n16/tc_sim
	@$< gemm
test-tc-soak: $(TC_OUT)/n4/tc_sim $(TC_OUT)/n16/tc_sim
	@$(TC_OUT)/n4/tc_sim random 350 200 && $(TC_OUT)/n16/tc_sim random 160 200

test-tc-seq-n4: $(TC_OUT)/n4/tc_sim
	@$< seq 40
test-tc-seq-n16: $(TC_OUT)/n16/tc_sim
	@$< seq 20
test-tc-seq-soak: $(TC_OUT)/n4/tc_sim $(TC_OUT)/n8/tc_sim $(TC_OUT)/n16/tc_sim
	@$(TC_OUT)/n4/tc_sim seq 400 && $(TC_OUT)/n8/tc_sim seq 200 && $(TC_OUT)/n16/tc_sim seq 200

test-tc-window-n4: $(TC_OUT)/n4/tc_sim
	@$< window 40 30
test-tc-window-n16: $(TC_OUT)/n16/tc_sim
	@$< window 12 40
test-tc-window-soak: $(TC_OUT)/n4/tc_sim $(TC_OUT)/n16/tc_sim
	@$(TC_OUT)/n4/tc_sim window 400 40 && $(TC_OUT)/n16/tc_sim window 150 60

test-tc-fetch-n4: $(TC_OUT)/n4/tc_sim
	@$< fetch 30 40
test-tc-fetch-n16: $(TC_OUT)/n16/tc_sim
	@$< fetch 12 50
test-tc-fetch-soak: $(TC_OUT)/n4/tc_sim $(TC_OUT)/n16/tc_sim
	@$(TC_OUT)/n4/tc_sim fetch 400 60 && $(TC_OUT)/n16/tc_sim fetch 150 80

tc-trace: $(TC_OUT)/$(TC_CFG)_trace/tc_sim
	TRACE=1 $< random 1 40

# Synthesizable at every commit (make test): Yosys 0.23's coarse synthesis (synth -run :fine, to
# word-level cells, as test-seq-lint) of the whole tensor core at N=4 int8 only, and of the SoC
# (mk/soc.mk: test-soc-synth) at N=4 with bf16 and the sequencer; any Yosys error fails it.
# $(call synth_check,NAME,LOG DIR,SOURCES,TOP,EnableBf16): the recipe of both, its summary line NAME's.
define synth_check
	@mkdir -p $(2)
	@if yosys -q -l $(2)/$(4).log -p "read_verilog -sv $(3); \
	     chparam -set N 4 -set EnableBf16 $(5) -set EnableSeq 1 -set VmemBytes 16384 -set AccBytes 4096 \
	     -set HbmBytes 1048576 $(4); synth -top $(4) -run :fine" >/dev/null 2>&1; \
	then echo "$(1): 1 passed, 0 failed"; \
	else grep -m3 -i 'error' $(2)/$(4).log; echo "yosys FAILED: $(2)/$(4).log"; \
	  echo "$(1): 0 passed, 1 failed"; exit 1; fi
endef
TC_SYNTH_LOG := $(TC_OUT)/synth-check
test-tc-synth:
	$(call synth_check,tc_synth,$(TC_SYNTH_LOG),$(TC_RTL),tsl_tc,0)

# The same with Yosys 0.55 (@yowasp/yosys, the iCE40 build's Yosys: fpga/board.mk), with bf16 (about
# 4 min, in make soak).
SOAKS += tc-synth-yowasp
test-tc-synth-yowasp:
	@rm -rf $(TC_SYNTH_LOG)/yowasp && mkdir -p $(TC_SYNTH_LOG)/yowasp
	@if node fpga/yowasp-yosys.mjs $(YOWASP_GEN)/bundle.js $(TC_SYNTH_LOG)/yowasp "read_verilog -sv $(TC_RTL); \
	     chparam -set N 4 -set EnableBf16 1 -set EnableSeq 1 -set VmemBytes 16384 -set AccBytes 4096 \
	     -set HbmBytes 1048576 tsl_tc; tee -q -o out/yosys.log synth -top tsl_tc -run :fine" \
	     $(TC_RTL) $(TSL_RTL_INCLUDES) >$(TC_SYNTH_LOG)/yowasp.log 2>&1; \
	then echo "tc_synth_yowasp: 1 passed, 0 failed"; \
	else grep -m3 -i 'error' $(TC_SYNTH_LOG)/yowasp.log; echo "yosys 0.55 FAILED: $(TC_SYNTH_LOG)/yowasp.log"; \
	  echo "tc_synth_yowasp: 0 passed, 1 failed"; exit 1; fi

# Yosys on the whole tensor core, small memories (what an FPGA build would use): N=4 int8 only,
# and N=4 int8+bf16. Writes the tc-synth table of docs/hardware.md.
TC_SYNTH_SET := VmemBytes=16384 AccBytes=4096 HbmBytes=1048576
synth-report::
	@$(PYTHON) tests/mxu/synth_report.py --out $(TC_OUT)/synth --top tsl_tc --marker tc-synth \
	  --ns "4" --int8 "4" --set "$(TC_SYNTH_SET)" $(TC_RTL)
