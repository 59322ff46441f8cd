# RV32IM control core: Verilated runner, SDK programs, ISA tests, QEMU differential tests, synthesis.
#   make build/bin/tessel-run     Verilated control subsystem + ELF runner
#   make test-core-lint|test-core-isa|test-core-qemu-diff|test-core-soak|synth-core
# Knobs: SEED= (random tests), CORE_DIFF_PROGS / CORE_DIFF_LEN (fast diff size),
#        CORE_SOAK_PROGS / CORE_SOAK_LEN (soak size).

CORE_SYS_RTL  := $(TSL_RTL_CPU_SIM)
CORE_OBJDIR   := $(BUILD)/core/verilator

# The runner is built in $(CORE_OBJDIR) (mk/verilate.mk: core) and copied.
$(TESSEL_RUN): $(CORE_OBJDIR)/tessel-run
	@mkdir -p $(dir $@)
	cp $< $@

# Variant with the small iterative multiplier (IterMul=1), as used on iCE40 (mk/verilate.mk).
CORE_RUN_ITERMUL := $(BUILD)/core/itermul/tessel-run

# --- programs -------------------------------------------------------------------------------------
CORE_TDIR     := tests/core
CORE_OUT      := $(BUILD)/core
RISCV_CC      ?= riscv64-unknown-elf-gcc

$(CORE_OUT)/hello/hello.elf: firmware/examples/hello/hello.c sdk/sdk.mk sdk/crt0.S sdk/link.ld \
                             sdk/src/tsl_hal.c sdk/include/tsl_hal.h
	@mkdir -p $(dir $@)
	@$(MAKE) --no-print-directory -s -C firmware/examples/hello OUT=$(abspath $(dir $@)) \
	  >$(dir $@)build.log 2>&1 || { cat $(dir $@)build.log; exit 1; }

# --- tests -----------------------------------------------------------------------------------------
TESTS += core-lint core-hello core-isa core-qemu-diff core-itermul
SOAKS += core-soak
CORE_TEST     := $(PYTHON) tests/core/coretest.py
CORE_DIFF_PROGS ?= 20
CORE_DIFF_LEN   ?= 2000
CORE_SOAK_PROGS ?= 420
CORE_SOAK_LEN   ?= 3000
CORE_SYNTH_RTL  := $(TSL_RTL_CORE)

.PHONY: test-core-lint test-core-hello test-core-isa test-core-qemu-diff test-core-itermul \
        test-core-soak synth-core

# Verilator -Wall lint of the whole subsystem (a check), and an Icarus elaboration of it (a build:
# it simulates nothing, so tests/runner.py tallies it as built, not passed).
CORE_HELLO_TEXT := Hello from Tessel's RV32IM control core!
test-core-lint:
	@mkdir -p $(CORE_OUT); f=0; \
	if $(VERILATOR) --lint-only -Wall --top-module tsl_cpu_sys_sim $(CORE_SYS_RTL); \
	then echo "core_lint: 1 passed, 0 failed"; else echo "core_lint: 0 passed, 1 failed"; f=1; fi; \
	rm -f $(CORE_OUT)/lint.vvp; \
	iverilog -g2012 -o $(CORE_OUT)/lint.vvp -s tsl_cpu_sys_sim $(CORE_SYS_RTL) 2>&1 | grep -v 'sorry:'; \
	if test -s $(CORE_OUT)/lint.vvp; then echo "core_iverilog: 1 built, 0 failed (Icarus elaboration only)"; \
	else echo "core_iverilog: 0 built, 1 failed"; f=1; fi; test $$f -eq 0

test-core-hello: $(TESSEL_RUN) $(CORE_OUT)/hello/hello.elf
	@$(TESSEL_RUN) $(CORE_OUT)/hello/hello.elf >$(CORE_OUT)/hello/out.txt; rc=$$?; cat $(CORE_OUT)/hello/out.txt; \
	if [ $$rc -eq 0 ] && grep -qx "$(CORE_HELLO_TEXT)" $(CORE_OUT)/hello/out.txt; \
	then echo "core_hello: 1 passed, 0 failed"; \
	else echo "core_hello: exit code $$rc"; echo "core_hello: 0 passed, 1 failed"; exit 1; fi

# Self-checking ISA, trap and SoC programs on the Verilated core; writes $(CORE_OUT)/cpi.txt.
test-core-isa: $(TESSEL_RUN)
	@$(CORE_TEST) isa

# Portable programs + seeded random programs on the core and on QEMU; SEED= replays.
test-core-qemu-diff: $(TESSEL_RUN)
	@$(CORE_TEST) diff --progs $(CORE_DIFF_PROGS) --len $(CORE_DIFF_LEN) $(if $(SEED),--seed $(SEED))

# The IterMul=1 core: self-checking programs plus a short QEMU diff.
test-core-itermul: $(CORE_RUN_ITERMUL)
	@$(CORE_TEST) isa --runner $(CORE_RUN_ITERMUL) --label itermul
	@$(CORE_TEST) diff --runner $(CORE_RUN_ITERMUL) --label itermul --progs 6 \
	  $(if $(SEED),--seed $(SEED))

# >= 1 000 000 random instructions against QEMU.
test-core-soak: $(TESSEL_RUN)
	@$(CORE_TEST) soak --progs $(CORE_SOAK_PROGS) --len $(CORE_SOAK_LEN) $(if $(SEED),--seed $(SEED))

# Cycles per instruction class (both multiplier options) and simulation speed.
.PHONY: bench-core
bench-core: $(TESSEL_RUN) $(CORE_RUN_ITERMUL)
	@for p in cpi_bench speed; do \
	  $(MAKE) --no-print-directory -s -f sdk/sdk.mk TESSEL_SDK=sdk PROG=$$p \
	    SRCS=$(abspath tests/core/$$p.c) OUT=$(CORE_OUT)/bench >/dev/null || exit 1; \
	done
	@echo "== IterMul=0 (default)"; $(TESSEL_RUN) $(CORE_OUT)/bench/cpi_bench.elf
	@echo "== IterMul=1"; $(CORE_RUN_ITERMUL) $(CORE_OUT)/bench/cpi_bench.elf | grep -E ' (mul|mulh) '
	@echo "== simulation speed (tsl_cpu_sys_sim, Verilator)"; \
	  $(TESSEL_RUN) --stats $(CORE_OUT)/bench/speed.elf

# Area of the core alone (no RAM): iCE40 with the iterative multiplier, iCE40 with DSPs, Xilinx 7.
synth-core:
	@mkdir -p $(CORE_OUT)/synth
	@for t in "ice40-itermul:0:synth_ice40" "ice40-dsp:1:synth_ice40 -dsp" \
	          "xilinx:1:synth_xilinx -flatten"; do \
	  name=$${t%%:*}; rest=$${t#*:}; fast=$${rest%%:*}; cmd=$${rest#*:}; \
	  if [ $$fast = 1 ]; then im=0; else im=1; fi; \
	  yosys -q -l $(CORE_OUT)/synth/$$name.log -p "read_verilog -sv $(CORE_SYNTH_RTL); \
	    chparam -set IterMul $$im tsl_core; $$cmd -top tsl_core; \
	    tee -q -o $(CORE_OUT)/synth/$$name.stat stat" >/dev/null || exit 1; \
	  echo "== tsl_core IterMul=$$im on $$name ($$cmd)"; \
	  awk '/Number of cells/{b=""} /Number of cells/,/^$$/{b=b $$0 "\n"} END{printf "%s", b}' \
	    $(CORE_OUT)/synth/$$name.stat; \
	done
