# Simulator speed (issue 10): simulated cycles per wall-clock and per CPU second of the Verilated SoC.
#   make bench-sim   Verilates tsl_soc twice, as mk/soc.mk does (same flags, one thread, no trace
#                    opened), in the default configuration and int8-only (EnableBf16=0), each linked
#                    with libtessel and tests/bench_sim/bench_sim.cpp; runs a fixed GEMM workload
#                    (int8 256^3, plus bf16 256^3 on the default build) BENCH_SIM_RUNS times, every
#                    result checked against the model, and prints the commit (git describe), the
#                    machine (CPU model, cores, load average at start), cycles, the best run's wall
#                    and CPU seconds, the best and the median cycles/s, and the Verilator build's time
#                    and peak memory (/usr/bin/time -v). Writes $(BUILD)/bench/sim_speed.csv.
# BENCH_SIM_MNK=M,N,K changes the GEMM shape, BENCH_SIM_RUNS (default 4) the runs per GEMM.
# Goals: >= 150 k cycles/s default, >= 500 k int8-only.
# These two builds are separate from the shared one of mk/soc.mk on purpose: their build time is measured.

BENCH_SIM_OUT := $(BUILD)/bench
BENCH_SIM_MNK ?= 256,256,256
BENCH_SIM_RUNS ?= 4
# The builds $(BENCH_SIM_OUT)/sim_default/bench_sim and sim_int8 (mk/verilate.mk: bench): each from
# an empty directory, so that build.time holds the whole Verilator build's time and peak memory (C++
# compile included); libtessel's objects (without its own Verilated SoC) come from host.mk, made first
# by name; -Wno-fatal: a lint warning must not stop a measurement (test-soc-lint enforces -Wall).

# build.time -> "seconds MB" of the Verilator build.
bench_sim_cost = $$(awk -F': ' '/Elapsed/ {n = split($$2, t, ":"); s = 0; \
  for (i = 1; i <= n; i++) s = s * 60 + t[i]; printf "%.0f", s} /Maximum resident/ {printf " %.0f", $$2 / 1024}' $(1))

.PHONY: bench-sim
bench-sim: $(BENCH_SIM_OUT)/sim_default/bench_sim $(BENCH_SIM_OUT)/sim_int8/bench_sim $(FW_ELF)
	@echo "config,workload,commit,cpu,cores,load_start,runs,cycles,wall_s,cpu_s,cycles_per_s,cycles_per_cpu_s,median_cycles_per_s,median_cycles_per_cpu_s,build_s,build_peak_mb" \
	  >$(BENCH_SIM_OUT)/sim_speed.csv
	@commit=$$(git describe --always --dirty 2>/dev/null || echo unknown); \
	for c in default int8; do \
	  set -- $(call bench_sim_cost,$(BENCH_SIM_OUT)/sim_$$c/build.time); \
	  $(BENCH_SIM_OUT)/sim_$$c/bench_sim $$c $(BENCH_SIM_OUT)/sim_speed.csv $$1 $$2 $(BENCH_SIM_RUNS) $$commit \
	    $(subst $(comma), ,$(BENCH_SIM_MNK)) || exit 1; \
	done
	@echo "bench-sim: wrote $(BENCH_SIM_OUT)/sim_speed.csv (wall_s, cpu_s, cycles_per_s, cycles_per_cpu_s: the run with the least CPU time)"
