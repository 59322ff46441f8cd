# Coursework labs (docs/labs/). Each lab N has a starting point (tests/labs/N/skeleton; lab 4: a copy
# of the sources), a reference solution outside the student's path (tests/labs/N/solution*), and a check:
#   make lab-N-start     copy the starting point to labs/N/ (never overwrites an existing copy)
#   make lab-N-check     grade labs/N/ (LAB_DIR=dir grades another directory)
#   make test-lab-N-ref  the check run against the reference solution (in `make test`)
# Build products go to $(BUILD)/labs/N/<LAB_DIR with / as _>/.
#   make lab-1-wave      lab 1 with --trace-fst: build/labs/1/lab1.fst for gtkwave
#   make lab-1-screenshot  lab 1 traced to VCD and drawn into docs/img/lab1-wave.svg
# Knobs: LAB_DIR, SEED (replays lab 1's random rows).

LAB_OUT   := $(BUILD)/labs
LAB_TAG    = $(subst /,_,$(1))

# lab_start(n, doc): labs/<n>/ from tests/labs/<n>/skeleton/; doc is the lab's page in docs/labs/.
define lab_start
.PHONY: lab-$(1)-start
lab-$(1)-start:
	@if [ -e labs/$(1) ]; then echo "labs/$(1) exists already: keeping it (remove it to start over)"; \
	else mkdir -p labs && cp -r tests/labs/$(1)/skeleton labs/$(1) && \
	  echo "lab $(1): your starting point is in labs/$(1)/ (docs/labs/$(2)); grade it with make lab-$(1)-check"; fi
endef

# --- lab 1: the systolic dataflow ----------------------------------------------------------------
LAB1_DIR  := $(or $(LAB_DIR),labs/1)
LAB1_OUT  := $(LAB_OUT)/1/$(call LAB_TAG,$(LAB1_DIR))
LAB1_RTL  := $(TSL_RTL_MXU) tests/labs/1/tsl_lab1_array.sv $(LAB1_DIR)/tsl_lab1_pe.sv
LAB1_CPP  := tests/labs/1/lab1_main.cpp
LAB1_NS   := 4 8

# lab1_build(N, suffix, extra flags): the array around the graded PE. -Wno-fatal: an unfinished PE
# still builds and shows its wrong results (the lint step reports the warnings).
define lab1_build
$(LAB1_OUT)/n$(1)$(2)/lab1_sim: $(LAB1_RTL) $(LAB1_CPP) hw/sim/common/tsl_rng.h mk/labs.mk
	@mkdir -p $$(@D)
	@$(VERILATOR) --cc --exe --build -j 2 -Wall -Wno-fatal --top-module tsl_lab1_array -GN=$(1) $(3) \
	  -Mdir $$(@D) -CFLAGS "-O1 -I$(abspath hw/sim/common) -DLAB1_N=$(1)" -o lab1_sim \
	  $(LAB1_RTL) $(abspath $(LAB1_CPP)) >$$(@D)/build.log 2>&1 || { tail -30 $$(@D)/build.log; exit 1; }
endef
$(foreach n,$(LAB1_NS),$(eval $(call lab1_build,$(n),,)))
$(eval $(call lab1_build,4,_fst,--trace-fst))
$(eval $(call lab1_build,4,_vcd,--trace -CFLAGS -DLAB1_VCD))
$(eval $(call lab_start,1,1-systolic.md))

.PHONY: lab-1-check lab-1-wave lab-1-screenshot test-lab-1-ref
lab-1-check: $(foreach n,$(LAB1_NS),$(LAB1_OUT)/n$(n)/lab1_sim)
	@l=0; if $(VERILATOR) --lint-only -Wall --top-module tsl_lab1_array $(LAB1_RTL); \
	then echo "lab1_lint: 1 passed, 0 failed"; else echo "lab1_lint: 0 passed, 1 failed"; l=1; fi; \
	f=0; for n in $(LAB1_NS); do $(LAB1_OUT)/n$$n/lab1_sim 20 || f=1; done; test $$l -eq 0 -a $$f -eq 0

lab-1-wave: $(LAB1_OUT)/n4_fst/lab1_sim
	@SEED=$${SEED:-1} TRACE=1 TRACE_FILE=$(LAB_OUT)/1/lab1.fst $< 3
	@echo "wrote $(LAB_OUT)/1/lab1.fst: gtkwave $(LAB_OUT)/1/lab1.fst"

lab-1-screenshot: $(LAB1_OUT)/n4_vcd/lab1_sim
	@SEED=$${SEED:-1} TRACE=1 TRACE_FILE=$(LAB_OUT)/1/lab1.vcd $< 2
	@$(PYTHON) tests/labs/1/wave_svg.py $(LAB_OUT)/1/lab1.vcd docs/img/lab1-wave.svg

test-lab-1-ref:
	@$(MAKE) --no-print-directory lab-1-check LAB_DIR=tests/labs/1/solution

# --- labs 2 and 3: a tiled GEMM in firmware, double buffering --------------------------------------
# The grader firmware (tests/labs/2/lab2_grader.c) runs the student's lab2_gemm() on the simulated SoC
# (`tessel run`).
LAB_TESSEL  := $(TESSEL)
LAB_SDKDEPS := sdk/sdk.mk sdk/crt0.S sdk/link.ld $(wildcard sdk/src/*.c sdk/include/*.h) hw/include/tsl_hw.h \
               hw/include/tsl_insn.h
LAB2_FWDEPS := tests/labs/2/lab2_grader.c tests/labs/2/lab2.h tests/labs/2/Makefile $(LAB_SDKDEPS)

# lab2_fw(elf, gemm source, LAB_CFLAGS): the grader linked with one GEMM kernel.
define lab2_fw
$(1): $(2) $(LAB2_FWDEPS) mk/labs.mk
	@mkdir -p $$(@D)
	@$(MAKE) --no-print-directory -s -C tests/labs/2 GEMM=$$(abspath $(2)) OUT=$$(abspath $$(@D)) \
	  LAB_CFLAGS="$(3)" >$$(@D)/build.log 2>&1 || { cat $$(@D)/build.log; exit 1; }
endef

LAB2_DIR := $(or $(LAB_DIR),labs/2)
LAB2_OUT := $(LAB_OUT)/2/$(call LAB_TAG,$(LAB2_DIR))
$(eval $(call lab2_fw,$(LAB2_OUT)/lab2.elf,$(LAB2_DIR)/gemm.c,))
$(eval $(call lab_start,2,2-tiled-gemm.md))

.PHONY: lab-2-check test-lab-2-ref
lab-2-check: $(LAB2_OUT)/lab2.elf $(LAB_TESSEL)
	@$(PYTHON) tests/labs/2/check.py $(LAB_TESSEL) $< lab2

test-lab-2-ref:
	@$(MAKE) --no-print-directory lab-2-check LAB_DIR=tests/labs/2/solution

# Lab 3 measures the student's double-buffered kernel against lab 2's reference (single-buffered).
LAB3_DIR := $(or $(LAB_DIR),labs/3)
LAB3_OUT := $(LAB_OUT)/3/$(call LAB_TAG,$(LAB3_DIR))
$(eval $(call lab2_fw,$(LAB3_OUT)/check/lab2.elf,$(LAB3_DIR)/gemm_db.c,))
$(eval $(call lab2_fw,$(LAB3_OUT)/double/lab2.elf,$(LAB3_DIR)/gemm_db.c,-DLAB2_MEASURE))
$(eval $(call lab2_fw,$(LAB_OUT)/3/single/lab2.elf,tests/labs/2/solution/gemm.c,-DLAB2_MEASURE))
LAB3_MEASURE := $(LAB_TESSEL) $(LAB_OUT)/3/single/lab2.elf $(LAB3_OUT)/double/lab2.elf

.PHONY: lab-3-start lab-3-measure lab-3-check test-lab-3-ref
# Starting point: your lab 2 kernel (labs/2/gemm.c), or lab 2's reference if you skipped lab 2.
lab-3-start:
	@if [ -e labs/3 ]; then echo "labs/3 exists already: keeping it (remove it to start over)"; \
	else mkdir -p labs && cp -r tests/labs/3/skeleton labs/3 && \
	  if [ -f labs/2/gemm.c ]; then cp labs/2/gemm.c labs/3/gemm_db.c; \
	  else cp tests/labs/2/solution/gemm.c labs/3/gemm_db.c; fi && \
	  echo "lab 3: your starting point is in labs/3/ (docs/labs/3-double-buffering.md)"; fi

lab-3-measure: $(LAB3_MEASURE)
	@$(PYTHON) tests/labs/3/measure.py run $(LAB3_MEASURE) $(LAB3_DIR)/measure.csv
	@gnuplot -e "csv='$(LAB3_DIR)/measure.csv'; out='$(LAB3_DIR)/roofline.svg'" tests/labs/3/roofline.gp
	@echo "wrote $(LAB3_DIR)/roofline.svg"

lab-3-check: $(LAB3_OUT)/check/lab2.elf $(LAB3_MEASURE)
	@f=0; $(PYTHON) tests/labs/2/check.py $(LAB_TESSEL) $(LAB3_OUT)/check/lab2.elf lab3 || f=1; \
	rm -f $(LAB3_OUT)/fresh.csv $(LAB3_OUT)/roofline.svg; \
	$(PYTHON) tests/labs/3/measure.py check $(LAB3_MEASURE) $(LAB3_DIR)/measure.csv lab3_measure \
	  $(LAB3_OUT)/fresh.csv || f=1; \
	if [ -s $(LAB3_OUT)/fresh.csv ]; then $(PYTHON) tests/labs/3/measure.py report $(LAB3_OUT)/fresh.csv \
	  tests/labs/3/roofline.gp $(LAB3_OUT)/roofline.svg $(LAB3_DIR)/answers.md lab3_report || f=1; \
	else echo "lab3_report: no re-run to draw"; echo "lab3_report: 0 passed, 1 failed"; f=1; fi; \
	test $$f -eq 0

test-lab-3-ref:
	@$(MAKE) --no-print-directory lab-3-check LAB_DIR=tests/labs/3/solution

# --- lab 4: a new VPU op -------------------------------------------------------------------------
# The lab changes shared files (spec, model, RTL, SDK, tests), so it works in a copy of the sources:
# lab-4-start copies the repo (without build/, labs/ and .git) to labs/4/tree; the reference is the
# same copy with tests/labs/4/solution.patch applied and `make gen` run, in $(BUILD)/labs/4/ref/tree
# (the patch holds only hand-written files, so that it keeps applying as the generated ones change).
LAB4_DIR  := $(or $(LAB_DIR),labs/4/tree)
LAB4_REF  := $(LAB_OUT)/4/ref/tree
LAB4_COPY  = mkdir -p $(1) && tar -c --exclude=./build --exclude=./labs --exclude=./.git --exclude=__pycache__ . | \
             tar -x -C $(1)

.PHONY: lab-4-start lab-4-check test-lab-4-ref
lab-4-start:
	@if [ -e labs/4 ]; then echo "labs/4 exists already: keeping it (remove it to start over)"; \
	else $(call LAB4_COPY,labs/4/tree) && \
	  echo "lab 4: edit the copy of the sources in labs/4/tree (docs/labs/4-vpu-op.md)"; fi

lab-4-check:
	@tests/labs/4/check.sh $(LAB4_DIR)

test-lab-4-ref:
	@rm -rf $(LAB4_REF) && $(call LAB4_COPY,$(LAB4_REF))
	@patch -s -d $(LAB4_REF) -p1 <tests/labs/4/solution.patch || \
	  { echo "lab4: tests/labs/4/solution.patch no longer applies (docs/labs/4-vpu-op.md, Maintainers)"; \
	    echo "lab4: 0 passed, 1 failed"; exit 1; }
	@$(MAKE) --no-print-directory -s -C $(LAB4_REF) BUILD=build gen >/dev/null
	@$(MAKE) --no-print-directory lab-4-check LAB_DIR=$(LAB4_REF)

# --- lab 5: a port to another iCE40 board --------------------------------------------------------
# The student's top (which may instantiate tsl_ice40_top) with the iCE40 RTL of fpga/board.mk:
# Verilator lint, Yosys 0.55 synth_ice40,
# nextpnr-ice40 with the student's .pcf at 12 MHz, then tests/labs/5/check.py on pins and timing.
LAB5_DIR := $(or $(LAB_DIR),labs/5)
LAB5_OUT := $(LAB_OUT)/5/$(call LAB_TAG,$(LAB5_DIR))
LAB5_RTL := $(ICE40_RTL) $(LAB5_DIR)/tsl_lab5_top.sv
$(eval $(call lab_start,5,5-fpga-port.md))

# The same Yosys 0.55 (from npm, make deps) and options as the iCEBreaker build (fpga/Makefile).
$(LAB5_OUT)/tsl_lab5_top.json: $(LAB5_RTL) mk/labs.mk fpga/board.mk fpga/yowasp-yosys.mjs
	@mkdir -p $(@D)
	@$(call ice40_synth,tsl_lab5_top,$(LAB5_RTL),$(@D))

.PHONY: lab-5-check test-lab-5-ref
lab-5-check: $(LAB5_OUT)/tsl_lab5_top.json $(LAB5_DIR)/lab5.pcf
	@l=0; if $(VERILATOR) --lint-only -Wall --top-module tsl_lab5_top $(LAB5_RTL); \
	then echo "lab5_lint: 1 passed, 0 failed"; else echo "lab5_lint: 0 passed, 1 failed"; l=1; fi; \
	rm -f $(LAB5_OUT)/report.json; \
	nextpnr-ice40 -q --up5k --package sg48 --freq 12 --seed 1 --pcf $(LAB5_DIR)/lab5.pcf \
	  --json $< --asc $(LAB5_OUT)/tsl_lab5_top.asc --report $(LAB5_OUT)/report.json \
	  -l $(LAB5_OUT)/nextpnr.log >/dev/null 2>&1 || \
	  { grep -i "error" $(LAB5_OUT)/nextpnr.log | head -5; echo "lab5_pnr: 0 passed, 1 failed"; exit 1; }; \
	echo "lab5_pnr: 1 passed, 0 failed"; \
	$(PYTHON) tests/labs/5/check.py tests/labs/5/board.txt $(LAB5_DIR)/lab5.pcf $(LAB5_OUT)/report.json && \
	test $$l -eq 0

test-lab-5-ref:
	@$(MAKE) --no-print-directory lab-5-check LAB_DIR=tests/labs/5/solution

# --- lab 6: a layer's epilogue on the VPU --------------------------------------------------------
# The grader firmware (tests/labs/6/lab6_grader.c) runs the student's lab6_softmax() on the simulated
# SoC (`tessel run`); tests/labs/6/check.py compares y with a float64 softmax and reads answers.md.
LAB6_DIR := $(or $(LAB_DIR),labs/6)
LAB6_OUT := $(LAB_OUT)/6/$(call LAB_TAG,$(LAB6_DIR))
$(eval $(call lab_start,6,6-epilogue.md))

# lab6_fw(elf, softmax source): the grader linked with the student's kernel. As in lab2_fw, `call`
# expands $(MAKE), so that `make -n lab-6-check` (the docs' dry-run) prints the sub-make, not runs it.
define lab6_fw
$(1): $(2) tests/labs/6/lab6_grader.c tests/labs/6/lab6.h tests/labs/6/Makefile $(LAB_SDKDEPS) mk/labs.mk
	@mkdir -p $$(@D)
	@$(MAKE) --no-print-directory -s -C tests/labs/6 SOFTMAX=$$(abspath $(2)) OUT=$$(abspath $$(@D)) \
	  >$$(@D)/build.log 2>&1 || { cat $$(@D)/build.log; exit 1; }
endef
$(eval $(call lab6_fw,$(LAB6_OUT)/lab6.elf,$(LAB6_DIR)/softmax.c))

.PHONY: lab-6-check test-lab-6-ref
lab-6-check: $(LAB6_OUT)/lab6.elf $(LAB_TESSEL)
	@$(PYTHON) tests/labs/6/check.py $(LAB_TESSEL) $< lab6 $(LAB6_DIR)/answers.md

test-lab-6-ref:
	@$(MAKE) --no-print-directory lab-6-check LAB_DIR=tests/labs/6/solution

# --- lab 7: a ring all-reduce over ICI -----------------------------------------------------------
# The grader (tests/labs/7/lab7_grader.c, a host program against libtessel) builds every chip's
# program with the student's lab7_allreduce() and runs them on a pod of the golden model.
LAB7_DIR := $(or $(LAB_DIR),labs/7)
LAB7_OUT := $(LAB_OUT)/7/$(call LAB_TAG,$(LAB7_DIR))
$(eval $(call lab_start,7,7-ring-allreduce.md))

$(LAB7_OUT)/lab7: $(LAB7_DIR)/allreduce.c tests/labs/7/lab7_grader.c tests/labs/7/lab7.h $(LIBTESSEL) mk/labs.mk
	@mkdir -p $(@D)
	@$(CC) $(CFLAGS_COMMON) -Ihost_driver/include -Ihw/include -Itests/labs/7 tests/labs/7/lab7_grader.c \
	  $(LAB7_DIR)/allreduce.c $(LIBTESSEL) $(HOST_LIBS) -lpthread -o $@

.PHONY: lab-7-check test-lab-7-ref
lab-7-check: $(LAB7_OUT)/lab7
	@$<

test-lab-7-ref:
	@$(MAKE) --no-print-directory lab-7-check LAB_DIR=tests/labs/7/solution

# A graded file that is not there yet: say which start target makes it.
labs/%:
	@echo "$@ is missing: run make lab-$(firstword $(subst /, ,$*))-start first (docs/labs/README.md)"; exit 1

# Lab 5's reference is a second place-and-route of the iCEBreaker's design (about 3 minutes), so it is
# graded in `make soak`; `make test` keeps the iCEBreaker build itself (test-fpga).
TESTS += lab-1-ref lab-2-ref lab-3-ref lab-4-ref lab-6-ref lab-7-ref
SOAKS += lab-5-ref
