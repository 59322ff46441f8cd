# Benchmarks of the simulated SoC (tests/bench, docs/performance.md): GEMMs through libtessel's sim
# backend (`tessel gemm --backend sim --stats`), data in HBM, cycles from doorbell to completion.
#   make bench           the sweep: shapes x int8/bf16 x epilogues (none, bias+ReLU, requantisation)
#                        x N = 16 and 4, two simulations at a time; prints the table and writes
#                        $(BUILD)/bench/bench.csv, utilisation.png and roofline.png (~15 minutes)
#   make bench-quick     a few N=16 cases (< 3 minutes): $(BUILD)/bench/quick/...
#   make bench-timeline  a 128^3 bf16 GEMM + bias + ReLU with --timeline: $(BUILD)/bench/timeline.json
#                        (open it in https://ui.perfetto.dev) and its gnuplot rendering timeline.png
#   make bench-rows      the row functions (gelu, silu, softmax, layernorm, rmsnorm) of 256 x 1024
#                        against the memory roofline, each checked on the model (bench_win.py):
#                        $(BUILD)/bench/rows/bench_win.md (~1 minute)
#   make bench-epilogue  a 256x1024x256 bf16 GEMM with each VPU function the epilogue can end in
#                        (GELU) against the same GEMM plain, each checked on the model
#                        (bench_epilogue.py)
#   make bench-doorbell  the doorbell's latency: 16 bf16 GEMMs of 64^3 on the sim, cycles from each
#                        CMD_HEAD write to its program's first DMA (tests/bench/bench_doorbell.py)
#   make bench-conv      convolutions and pools (tests/bench/bench_win.py): MXU utilisation and the
#                        memory roofline; $(BUILD)/bench/win/bench_win.md (~2 minutes)
#   make test-bench      the sweep driver on three tiny cases (JSON parsed, roofline recomputed, CSV)
#   make test-timeline   a --timeline trace parses; span counts equal PERF_*_INSNS; no overlap
# The N=4 SoC is a second build of the SoC, the host library and tessel by a nested make with
# BUILD=$(BUILD)/bench/n4 SOC_N=4 (mk/soc.mk, mk/host.mk and mk/cli.mk unchanged; ~3 minutes once).
# Every SoC runs $(BUILD)/fw/cp.elf.

BENCH_OUT  := $(BUILD)/bench
BENCH_N4   := $(BENCH_OUT)/n4
BENCH_CLI  := $(TESSEL)
# The demo's data generator (mk/cli.mk).
BENCH_DEMO := $(BUILD)/cli/tessel-demo
BENCH_FW   := $(FW_ELF)
BENCH_RUN  := $(PYTHON) tests/bench/bench.py --demo $(BENCH_DEMO) --firmware $(BENCH_FW) -j 2
BENCH_DEPS := $(BENCH_CLI) $(BENCH_DEMO) $(BENCH_FW) tests/bench/bench.py

.PHONY: bench bench-quick bench-conv bench-rows bench-epilogue bench-doorbell bench-timeline bench-n4-tessel test-bench test-timeline

# The N=4 tessel: everything under $(BENCH_N4), rebuilt when its sources change.
bench-n4-tessel:
	@$(MAKE) --no-print-directory BUILD=$(BENCH_N4) SOC_N=4 $(BENCH_N4)/bin/tessel

bench: deps $(BENCH_DEPS) bench-n4-tessel
	@$(BENCH_RUN) --out $(BENCH_OUT) --cases full --plots --tessel 16=$(BENCH_CLI) --tessel 4=$(BENCH_N4)/bin/tessel

bench-quick: deps $(BENCH_DEPS)
	@$(BENCH_RUN) --out $(BENCH_OUT)/quick --cases quick --plots --tessel 16=$(BENCH_CLI)

bench-conv: deps $(BENCH_CLI) $(BENCH_FW) tests/bench/bench_win.py
	@$(PYTHON) tests/bench/bench_win.py --tessel $(BENCH_CLI) --out $(BENCH_OUT)/win --cases full

bench-rows: deps $(BENCH_CLI) $(BENCH_FW) tests/bench/bench_win.py
	@$(PYTHON) tests/bench/bench_win.py --tessel $(BENCH_CLI) --out $(BENCH_OUT)/rows --cases rows

bench-epilogue: deps python $(BENCH_FW) tests/bench/bench_epilogue.py
	@TESSEL_FIRMWARE=$(abspath $(BENCH_FW)) PYTHONPATH=$(BUILD)/python $(PYTHON) tests/bench/bench_epilogue.py

bench-doorbell: deps python $(BENCH_FW) tests/bench/bench_doorbell.py
	@mkdir -p $(BENCH_OUT)
	@TESSEL_FIRMWARE=$(abspath $(BENCH_FW)) PYTHONPATH=$(BUILD)/python $(PYTHON) tests/bench/bench_doorbell.py \
	  --timeline $(BENCH_OUT)/doorbell.json

BENCH_TL := $(BENCH_OUT)/timeline
bench-timeline: deps $(BENCH_CLI) $(BENCH_DEMO) $(BENCH_FW)
	@mkdir -p $(BENCH_TL)
	@$(BENCH_DEMO) gen $(BENCH_TL) 128 128 128 1
	@$(BENCH_CLI) gemm --backend sim --firmware $(BENCH_FW) --a $(BENCH_TL)/a.npy --b $(BENCH_TL)/b.npy \
	  --bias $(BENCH_TL)/bias.npy --relu --stats --timeline $(BENCH_OUT)/timeline.json
	@$(PYTHON) tests/bench/timeline.py check $(BENCH_OUT)/timeline.json
	@$(PYTHON) tests/bench/timeline.py png $(BENCH_OUT)/timeline.json $(BENCH_OUT)/timeline.png
	@echo "bench-timeline: wrote $(BENCH_OUT)/timeline.json and $(BENCH_OUT)/timeline.png"

# --- tests -----------------------------------------------------------------------------------------
TESTS += bench timeline

test-bench: $(BENCH_DEPS) python tests/bench/test_bench.py tests/bench/bench_doorbell.py
	@rm -rf $(BENCH_OUT)/tiny && mkdir -p $(BENCH_OUT)
	@$(BENCH_RUN) --out $(BENCH_OUT)/tiny --cases tiny --plots --tessel 16=$(BENCH_CLI) >$(BENCH_OUT)/tiny.log 2>&1 || \
	  { cat $(BENCH_OUT)/tiny.log; exit 1; }
	@grep '^bench: .* passed' $(BENCH_OUT)/tiny.log
	@$(PYTHON) tests/bench/test_bench.py $(BENCH_OUT)/tiny/bench.csv
	@$(PYTHON) tests/bench/bench_win.py --tessel $(BENCH_CLI) --out $(BENCH_OUT)/tiny_win --cases tiny | tail -1
	@$(PYTHON) tests/bench/bench_win.py --tessel $(BENCH_CLI) --out $(BENCH_OUT)/tiny_rows --cases rows-tiny | tail -1
	@TESSEL_FIRMWARE=$(abspath $(BENCH_FW)) PYTHONPATH=$(BUILD)/python $(PYTHON) tests/bench/bench_doorbell.py \
	  --count 3 --size 32 --timeline $(BENCH_OUT)/tiny_doorbell.json | grep 'later commands'

# int8 with requantisation (DMA, LOADW, MATMUL and VPU REQUANT), K = 3 MXU blocks.
BENCH_TT := $(BENCH_OUT)/ttl
test-timeline: $(BENCH_CLI) $(BENCH_FW) tests/bench/timeline.py tests/bench/bench.py
	@rm -rf $(BENCH_TT) && mkdir -p $(BENCH_TT)
	@$(PYTHON) -c 'import sys; sys.path.insert(0, "tests/bench"); import bench, random; r = random.Random(7); \
	  bench.npy_write("$(BENCH_TT)/a.npy", "|i1", (40, 48), r.randbytes(40 * 48)); \
	  bench.npy_write("$(BENCH_TT)/b.npy", "|i1", (48, 32), r.randbytes(48 * 32))'
	@$(BENCH_CLI) gemm --backend sim --firmware $(BENCH_FW) --a $(BENCH_TT)/a.npy --b $(BENCH_TT)/b.npy \
	  --out-dtype int8 --rq-scale 3 --rq-shift 8 --timeline $(BENCH_TT)/t.json
	@$(PYTHON) tests/bench/timeline.py check $(BENCH_TT)/t.json
