# Product SoC (hw/rtl/soc: tsl_soc = control core + tensor core + HOSTIF + AXI arbiter to HBM) and
# its simulator. tsl_soc is Verilated position independent, without the ICI unit (a chip alone) into
# $(BUILD)/soc/verilator and with it (a pod's chip, Vtsl_pod_soc) into $(BUILD)/soc/pod, with
# its C++ model (TslSocSim, the HBM model, `tessel run`: hw/sim/soc; ELF files are read by the one
# loader, common/elf_image.c); libtessel's sim
# transport (mk/host.mk), the `tessel` CLI (mk/cli.mk) and the SoC's test harness link those objects.
#   make $(SOC_SIM)           that build (~3 minutes); make build/bin/tessel for the CLI on it:
#                             tessel run [--max-cycles N] [--trace F] [--stats] PROG.elf
#   make test-sdk-hello       firmware/examples/hello on the SoC
#   make test-sdk-mxu         firmware/examples/mxu: a 32x32x32 int8 GEMM on the MXU, checked on the core
#   make test-sdk-cli         usage/load errors exit 2, a cycle limit exits 124, with messages
#   make test-sdk-elf         bad firmware files (directory, FIFO, /dev/zero, empty, huge, no PT_LOAD,
#                             entry outside RAM) for `tessel run` (exit 2) and sim (TESSEL_EINVAL);
#                             --max-cycles N>=1|unlimited; progress on a TTY (tests/soc/run_elf_test.py)
#   make test-soc-lint        Verilator -Wall on tsl_soc, tsl_hostif, tsl_axi_arb, tsl_axi_from_bus (N=4, 16)
#   make test-soc-iverilog    iverilog -g2012 compiles tsl_soc (a build: counted as built, not passed;
#                             test-rel-x runs the SoC under Icarus)
#   make test-soc-synth       Yosys 0.23 coarse synthesis of the SoC at N=4, bf16 and the sequencer
#   make test-soc-host        host port, rings, doorbell/host IRQ, RESET, 3-master AXI stress (SEED=):
#                             the harness $(BUILD)/soc/soc_host_test (tests/soc) with tests/soc/host_fw.c
# Configuration: the spec defaults (tsl_pkg): N=16, bf16 on, VMEM 256 KiB, ACC 64 KiB, HBM 64 MiB.

SOC_N      := 16
SOC_BF16   := 1
SOC_VMEM   := 262144
SOC_ACC    := 65536
SOC_HBM    := 67108864
SOC_OUT    := $(BUILD)/soc
SOC_OBJDIR := $(SOC_OUT)/verilator

SOC_INC    := -Ihw/sim/soc -Ihw/sim/core -Ihw/sim/tc -Ihw/include -Icommon
SOC_DEFS   := -DSOC_N=$(SOC_N) -DSOC_HBM=$(SOC_HBM)
# Every C++ file of a SoC build, Verilator's runtime included, starts with tsl_soc_vl.h: Verilator's
# error hooks that stop the simulation instead of aborting the process.
SOC_CFLAGS := -O2 $(foreach i,$(SOC_INC),-I$(abspath $(i:-I%=%))) $(SOC_DEFS) -include $(abspath hw/sim/soc/tsl_soc_vl.h)
# What a program links to simulate the SoC (the Verilated model is the archive; `tessel run` is
# SOC_RUN_OBJ), and the libraries they need. The ELF loader is in libtessel (ELF_OBJ): a program
# without libtessel links ELF_OBJ too.
SOC_SIM_OBJN  = $(filter-out tsl_soc_run.o,$(VL.soc.objs))
SOC_SIM_OBJS  = $(addprefix $(SOC_OBJDIR)/,$(SOC_SIM_OBJN)) $(SOC_OBJDIR)/Vtsl_soc__ALL.a \
                $(SOC_OUT)/pod/Vtsl_pod_soc__ALL.a
SOC_RUN_OBJ  := $(SOC_OBJDIR)/tsl_soc_run.o
SOC_SIM_LIBS := -lstdc++ -lz -lpthread -lm

# $(SOC_SIM), the stamp of $(SOC_OBJDIR), and its variants (N=4 for test-asrt-sim and test-rel-xrand,
# the timed builds of make bench-sim): mk/verilate.mk (soc, soc-asrt, soc-xrand, bench). The archive
# is removed before each build: ar adds to an existing one, and a rebuild names its objects anew.

# The test harness (tests/soc/soc_host_test.cpp; the headers of the SoC's C++ side are prerequisites
# of $(SOC_SIM)).
SOC_TEST := $(SOC_OUT)/soc_host_test
$(SOC_TEST): tests/soc/soc_host_test.cpp tests/soc/host_proto.h $(SOC_SIM) $(ELF_OBJ) mk/soc.mk
	$(CXX) -std=c++14 -O2 -g -Wall -Wextra -Werror $(SOC_INC) -Itests/soc $(SOC_DEFS) $< $(SOC_RUN_OBJ) $(SOC_SIM_OBJS) $(ELF_OBJ) \
	  $(SOC_SIM_LIBS) -o $@

# --- SDK examples --------------------------------------------------------------------------------
SOC_SDK_DEPS := sdk/sdk.mk sdk/crt0.S sdk/link.ld $(wildcard sdk/src/*.c sdk/include/*.h) \
                hw/include/tsl_hw.h hw/include/tsl_insn.h

# soc_example(name): firmware/examples/<name> -> $(SOC_OUT)/<name>/<name>.elf
define soc_example
$(SOC_OUT)/$(1)/$(1).elf: $(wildcard firmware/examples/$(1)/*.c) firmware/examples/$(1)/Makefile $(SOC_SDK_DEPS)
	@mkdir -p $$(dir $$@)
	@$(MAKE) --no-print-directory -s -C firmware/examples/$(1) OUT=$$(abspath $$(dir $$@)) \
	  >$$(dir $$@)build.log 2>&1 || { cat $$(dir $$@)build.log; exit 1; }
endef
$(eval $(call soc_example,hello))
$(eval $(call soc_example,mxu))

$(SOC_OUT)/host_fw/host_fw.elf: tests/soc/host_fw.c tests/soc/host_proto.h tests/soc/Makefile $(SOC_SDK_DEPS)
	@mkdir -p $(dir $@)
	@$(MAKE) --no-print-directory -s -C tests/soc OUT=$(abspath $(dir $@)) \
	  >$(dir $@)build.log 2>&1 || { cat $(dir $@)build.log; exit 1; }

# --- tests ---------------------------------------------------------------------------------------
TESTS += sdk-hello sdk-mxu sdk-cli sdk-elf soc-lint soc-synth soc-iverilog soc-host
.PHONY: test-sdk-hello test-sdk-mxu test-sdk-cli test-sdk-elf test-soc-lint test-soc-synth test-soc-iverilog \
        test-soc-host

# Yosys 0.23's coarse synthesis of the whole SoC (control core, tensor core with bf16 and the
# sequencer, host interface, AXI) at N=4 with small memories, as mk/tc.mk's test-tc-synth.
# (synth_check: mk/tc.mk)
test-soc-synth:
	$(call synth_check,soc_synth,$(SOC_OUT)/synth-check,$(TSL_RTL_SOC),tsl_soc,1)

# Verilator -Wall on the SoC top and each of its own blocks, at two N (the AXI width is 16N).
test-soc-lint:
	@p=0; f=0; for n in 4 16; do \
	  for top in tsl_soc tsl_hostif tsl_axi_arb tsl_axi_from_bus; do \
	    case $$top in tsl_soc) g="-GN=$$n";; tsl_hostif) g="";; *) g="-GDataW=$$((16*n))";; esac; \
	    if $(VERILATOR) --lint-only -Wall --top-module $$top $$g $(TSL_RTL_SOC); \
	    then p=$$((p+1)); else f=$$((f+1)); echo "lint FAILED: $$top N=$$n"; fi; \
	  done; done; \
	if $(VERILATOR) --lint-only -Wall --top-module tsl_axi_arb -GMasters=1 -GDataW=32 $(TSL_RTL_SOC); \
	then p=$$((p+1)); else f=$$((f+1)); echo "lint FAILED: tsl_axi_arb Masters=1"; fi; \
	echo "soc_lint: $$p passed, $$f failed"; test $$f -eq 0

test-soc-iverilog:
	@mkdir -p $(SOC_OUT)
	@rm -f $(SOC_OUT)/tsl_soc.vvp; iverilog -g2012 -o $(SOC_OUT)/tsl_soc.vvp -s tsl_soc $(TSL_RTL_SOC) 2>&1 | grep -v 'sorry:'; \
	if test -s $(SOC_OUT)/tsl_soc.vvp; then echo "soc_iverilog: 1 built, 0 failed (Icarus elaboration only)"; \
	else echo "soc_iverilog: 0 built, 1 failed"; exit 1; fi

# Host side of the SoC against tests/soc/host_fw.c (tests/soc/README.md).
test-soc-host: $(SOC_TEST) $(SOC_OUT)/host_fw/host_fw.elf
	@$(SOC_TEST) $(SOC_OUT)/host_fw/host_fw.elf

# The hello world prints its greeting and exits 0 on the SoC.
test-sdk-hello: $(TESSEL) $(SOC_OUT)/hello/hello.elf
	@$(TESSEL) run $(SOC_OUT)/hello/hello.elf >$(SOC_OUT)/hello/out.txt; rc=$$?; \
	cat $(SOC_OUT)/hello/out.txt; \
	if [ $$rc -eq 0 ] && grep -qx "Hello from Tessel's RV32IM control core!" $(SOC_OUT)/hello/out.txt; \
	then echo "sdk_hello: 1 passed, 0 failed"; \
	else echo "sdk_hello: exit code $$rc"; echo "sdk_hello: 0 passed, 1 failed"; exit 1; fi

# The MXU example computes C = A*B on the tensor core and checks it against the core's own loop.
test-sdk-mxu: $(TESSEL) $(SOC_OUT)/mxu/mxu.elf
	@$(TESSEL) run --stats $(SOC_OUT)/mxu/mxu.elf >$(SOC_OUT)/mxu/out.txt; rc=$$?; \
	cat $(SOC_OUT)/mxu/out.txt; \
	if [ $$rc -eq 0 ] && grep -qx "mxu: C matches the reference" $(SOC_OUT)/mxu/out.txt; \
	then echo "sdk_mxu: 1 passed, 0 failed"; \
	else echo "sdk_mxu: exit code $$rc"; echo "sdk_mxu: 0 passed, 1 failed"; exit 1; fi

# Failing paths of the CLI: usage and load errors exit 2, a cycle limit 124, each with a message.
test-sdk-cli: $(TESSEL) $(SOC_OUT)/hello/hello.elf
	@p=0; f=0; \
	$(TESSEL) run --max-cycles 500 $(SOC_OUT)/hello/hello.elf >/dev/null 2>$(SOC_OUT)/cli.err; rc=$$?; \
	if [ $$rc -eq 124 ] && grep -q '^tessel: timeout' $(SOC_OUT)/cli.err; then p=$$((p+1)); \
	else f=$$((f+1)); echo "FAIL: tessel run --max-cycles 500 hello.elf -> exit $$rc"; fi; \
	for args in "run $(SOC_OUT)/no-such-file.elf" "run" "frobnicate x.elf" "run --bogus x.elf" \
	            "run --max-cycles ten x.elf" "run $(TESSEL)"; do \
	  $(TESSEL) $$args >/dev/null 2>$(SOC_OUT)/cli.err; rc=$$?; \
	  if [ $$rc -eq 2 ] && grep -q '^tessel: ' $(SOC_OUT)/cli.err; then p=$$((p+1)); \
	  else f=$$((f+1)); echo "FAIL: tessel $$args -> exit $$rc"; cat $(SOC_OUT)/cli.err; fi; \
	done; echo "sdk_cli: $$p passed, $$f failed"; test $$f -eq 0

# Bad firmware files and the cycle limits of `tessel run` (tests/soc/run_elf_test.py).
test-sdk-elf: $(TESSEL) $(SOC_OUT)/hello/hello.elf $(FW_ELF) tests/soc/run_elf_test.py
	@$(PYTHON) tests/soc/run_elf_test.py $(TESSEL) $(SOC_OUT)/hello/hello.elf $(SOC_OUT)/elf_test
