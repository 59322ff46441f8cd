# Tile sequencer (hw/rtl/tc/tsl_tc_seq.sv, tsl_tc_seq_chk.sv) on its own: random descriptors, the
# instruction stream compared word for word with the golden model's (hw/model/tslm_seq.c), and
# the launch checks' ERR_CODE/ERR_ADDR on invalid ones.
#   make test-seq-n4 / test-seq-n16     300 / 150 descriptors (SEED= replays, SEQ_DESCS= how many)
#   make test-seq-lint                  Verilator -Wall at N=4/16, bf16 on/off, and Yosys 0.23's coarse
#                                       synthesis at N=16 (to word-level cells: mapping the multipliers
#                                       to gates took 50 s more)
#   make test-seq-soak                  (in make soak) 5000 descriptors at N=4 and 16, 3000 at N=8 (no bf16),
#                                       40 large ones (N=4, 16 MiB VMEM and ACC)
#   make seq-trace SEQ_CFG=n4 SEED=0x...   a --trace-fst build, one run -> seq.fst
# The builds $(SEQ_OUT)/<config>[_trace]/seq_sim, configurations n4, n8 and n16 as mk/tc.mk's and big
# (N=4, 16 MiB VMEM and ACC): mk/verilate.mk (seq).
SEQ_RTL   = $(VL.seq.rtl)
SEQ_OUT  := $(BUILD)/seq
SEQ_CFG  ?= n4
SEQ_DESCS ?=

TESTS += seq-lint seq-n4 seq-n16
SOAKS += seq-soak
.PHONY: test-seq-lint test-seq-n4 test-seq-n16 test-seq-soak seq-trace

test-seq-lint:
	@p=0; f=0; for cfg in "4 0" "4 1" "16 1"; do set -- $$cfg; \
	  if $(VERILATOR) --lint-only -Wall --top-module tsl_tc_seq -GN=$$1 -GEnableBf16="1'b$$2" $(SEQ_RTL); \
	  then p=$$((p+1)); else f=$$((f+1)); echo "lint FAILED: tsl_tc_seq N=$$1 EnableBf16=$$2"; fi; \
	done; \
	if yosys -q -p "read_verilog -sv $(SEQ_RTL); chparam -set N 16 tsl_tc_seq; synth -top tsl_tc_seq -run :fine" \
	   >$(BUILD)/seq-yosys.log 2>&1; then p=$$((p+1)); else f=$$((f+1)); echo "yosys FAILED: $(BUILD)/seq-yosys.log"; fi; \
	echo "seq_lint: $$p passed, $$f failed"; test $$f -eq 0

test-seq-n4: $(SEQ_OUT)/n4/seq_sim
	@$< $(or $(SEQ_DESCS),300)
test-seq-n16: $(SEQ_OUT)/n16/seq_sim
	@$< $(or $(SEQ_DESCS),150)
test-seq-soak: $(SEQ_OUT)/n4/seq_sim $(SEQ_OUT)/n8/seq_sim $(SEQ_OUT)/n16/seq_sim $(SEQ_OUT)/big/seq_sim
	@$(SEQ_OUT)/n4/seq_sim 5000 && $(SEQ_OUT)/n8/seq_sim 3000 && $(SEQ_OUT)/n16/seq_sim 5000 && \
	  $(SEQ_OUT)/big/seq_sim 40 big

seq-trace: $(SEQ_OUT)/$(SEQ_CFG)_trace/seq_sim
	TRACE=1 $< 1
