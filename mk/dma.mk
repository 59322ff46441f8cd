# DMA unit (hw/rtl/tc/tsl_dma*.sv) and the AXI4 HBM model (hw/sim/tc/tsl_hbm.*): lint, Icarus
# compile, and Verilated tests against the golden model at N=4 and N=16 (AXI width 16N bits).
#   make test-dma-lint        verilator --lint-only -Wall at N=4 and N=16, plus the iverilog compile
#   make test-dma-n4          directed, AXI-error, random (DMA_PROGS programs), throughput tests, and
#                             chains (8 x DMA_PROGS runs of instructions back to back, LOADs mostly)
#   make test-dma-n16         the same at N=16
#   make dma-trace DMA_N=4 SEED=0x... [DMA_TRACE_MODE=random]   trace build (--trace-fst), writes dma.fst
# Knobs: DMA_PROGS (random programs per N, default 12), SEED.

# The builds $(DMA_OUT)/n4[_trace]/dma_sim and n16: mk/verilate.mk (dma).
DMA_RTL     := $(TSL_RTL_DMA)
DMA_SIM_SV  := hw/sim/tc/tsl_dma_sim.sv
DMA_OUT     := $(BUILD)/dma
DMA_PROGS   ?= 12
DMA_N       ?= 4

TESTS += dma-lint dma-n4 dma-n16
.PHONY: test-dma-lint test-dma-n4 test-dma-n16 dma-trace

test-dma-lint:
	@mkdir -p $(DMA_OUT)
	@p=0; f=0; for n in 4 16; do \
	  if $(VERILATOR) --lint-only -Wall --top-module tsl_dma -GN=$$n $(DMA_RTL); \
	  then p=$$((p+1)); else f=$$((f+1)); echo "lint FAILED: tsl_dma N=$$n"; fi; \
	  if $(VERILATOR) --lint-only -Wall --top-module tsl_dma_sim -GN=$$n $(DMA_RTL) $(DMA_SIM_SV); \
	  then p=$$((p+1)); else f=$$((f+1)); echo "lint FAILED: tsl_dma_sim N=$$n"; fi; \
	done; \
	rm -f $(DMA_OUT)/tsl_dma.vvp; \
	iverilog -g2012 -o $(DMA_OUT)/tsl_dma.vvp -s tsl_dma $(DMA_RTL) 2>&1 | grep -v 'sorry:'; \
	echo "dma_lint: $$p passed, $$f failed"; \
	if test -s $(DMA_OUT)/tsl_dma.vvp; then echo "dma_iverilog: 1 built, 0 failed (Icarus elaboration only)"; \
	else f=$$((f+1)); echo "iverilog FAILED: tsl_dma"; echo "dma_iverilog: 0 built, 1 failed"; fi; test $$f -eq 0

test-dma-n4: $(DMA_OUT)/n4/dma_sim
	@$< all $(DMA_PROGS)
test-dma-n16: $(DMA_OUT)/n16/dma_sim
	@$< all $(DMA_PROGS)

# Replays one group (DMA_TRACE_MODE: random, directed, errors, throughput or chains) and writes dma.fst here.
DMA_TRACE_MODE ?= random
dma-trace: $(DMA_OUT)/n$(DMA_N)_trace/dma_sim
	TRACE=1 $< $(DMA_TRACE_MODE) 1
