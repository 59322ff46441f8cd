# Reliability (tests/rel, docs/reliability.md): fault injection, watchdog, soak, RTL X robustness.
#   make test-rel-faults      AXI SLVERR/DECERR on reads and writes, a delayed and a stuck DMA burst,
#                             the watchdog; sim transport (Verilated SoC + cp.elf), canary-guarded buffers
#   make test-rel-soak        REL_SOAK_SHORT (300) random commands on sim in checking mode (0 mismatches)
#   make test-rel-soak-asan   the soak program built with ASan+UBSan, 2000 commands on the model backend
#   make test-rel-valgrind    the soak program under valgrind (memcheck), 300 commands on the model backend
#   make test-rel-axi-iso     the TC's AXI isolation stage (hw/rtl/soc/tsl_axi_iso.sv), directed, in Icarus
#   make test-rel-x           4-state Icarus run of tsl_soc (N=4) with cp.elf from reset: boot, two GEMMs
#                             (one with bias + ReLU) through the command ring, a host RESET; no X in
#                             architectural state, C exact
#   make test-rel-xrand       Verilated tsl_soc with --x-assign/--x-initial unique and random reset
#                             values (+verilator+rand+reset+2, a printed +verilator+seed) runs a program
#   make soak                 adds rel-soak-long: REL_SOAK_LONG (10000) random commands on sim
# SEED=... replays the randomised ones.

REL_OUT        := $(BUILD)/rel
REL_SOAK_SHORT ?= 300
REL_SOAK_LONG  ?= 10000
REL_HDRS       := tests/rel/rel_util.h tests/model/test_util.h host_driver/include/tessel.h \
                  host_driver/src/tessel_int.h host_driver/src/tessel_sim_fault.h $(wildcard hw/include/*.h) \
                  mk/rel.mk
REL_CFLAGS     := $(CFLAGS_COMMON) -D_POSIX_C_SOURCE=200809L -Ihost_driver/include -Ihost_driver/src -Icommon \
                  -Itests/model -Ihw/include
REL_SAN        := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

$(REL_OUT)/test_faults: tests/rel/test_faults.c $(REL_HDRS) $(LIBTESSEL)
	@mkdir -p $(@D)
	$(CC) $(REL_CFLAGS) $< $(LIBTESSEL) $(HOST_LIBS) -o $@

$(REL_OUT)/soak: tests/rel/soak.c $(REL_HDRS) $(LIBTESSEL)
	@mkdir -p $(@D)
	$(CC) $(REL_CFLAGS) $< $(LIBTESSEL) $(HOST_LIBS) -o $@

# Model backend only: every host source (driver, native firmware, model) built into the program,
# plainly (for valgrind) and with the sanitizers.
REL_HOST_SRC := $(TSL_HOST_ALL_C) $(TSL_HOST_ALL_H)
$(REL_OUT)/soak_model: tests/rel/soak.c $(REL_HDRS) $(REL_HOST_SRC)
	@mkdir -p $(@D)
	$(CC) $(REL_CFLAGS) -DTESSEL_NO_SIM -Ifirmware/cp -Ihw/model $< $(TSL_HOST_ALL_C) -lm -o $@

$(REL_OUT)/soak_asan: tests/rel/soak.c $(REL_HDRS) $(REL_HOST_SRC)
	@mkdir -p $(@D)
	$(CC) $(REL_CFLAGS) -O1 $(REL_SAN) -DTESSEL_NO_SIM -Ifirmware/cp -Ihw/model $< $(TSL_HOST_ALL_C) -lm -o $@

TESTS += rel-faults rel-soak rel-soak-asan rel-valgrind
SOAKS += rel-soak-long
.PHONY: test-rel-faults test-rel-soak test-rel-soak-long test-rel-soak-asan test-rel-valgrind

test-rel-faults: $(REL_OUT)/test_faults $(FW_ELF)
	@$<

test-rel-soak: $(REL_OUT)/soak $(FW_ELF)
	@$< sim $(REL_SOAK_SHORT)

test-rel-soak-long: $(REL_OUT)/soak $(FW_ELF)
	@$< sim $(REL_SOAK_LONG)

test-rel-soak-asan: $(REL_OUT)/soak_asan
	@ASAN_OPTIONS=detect_leaks=1 $< model 2000

test-rel-valgrind: $(REL_OUT)/soak_model
	@valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
	  $< model 300 >$(REL_OUT)/valgrind.log 2>&1; rc=$$?; grep -v '^==' $(REL_OUT)/valgrind.log | tail -3; \
	if [ $$rc -eq 0 ]; then echo "rel_valgrind: 1 passed, 0 failed"; \
	else grep '^==' $(REL_OUT)/valgrind.log | head -30; echo "rel_valgrind: exit $$rc"; \
	  echo "rel_valgrind: 0 passed, 1 failed"; exit 1; fi

# --- RTL robustness --------------------------------------------------------------------------------
# 4-state: Icarus runs tsl_soc (N=4, small memories) with cp.elf in its RAM ($readmemh of a hex image).
# Icarus 11 compiles always_comb with an extra time-0 trigger that can keep a set of blocks waking
# one another without end at one time step, so it gets a copy of the RTL in which always_comb is
# always @* (the same sensitivity, without that trigger); Verilator and Yosys read the sources.
REL_X_DIR := $(REL_OUT)/x_rtl
REL_X_RTL  := $(addprefix $(REL_X_DIR)/,$(TSL_RTL_SOC) hw/rtl/fpga/tsl_fpga_hbm.sv)
$(REL_X_DIR)/%.sv: %.sv
	@mkdir -p $(@D)
	@sed 's/\balways_comb\b/always @*/' $< >$@
REL_X_TIMEOUT ?= 120
$(REL_OUT)/cp.hex: $(BUILD)/fw/cp.bin
	@mkdir -p $(@D)
	@$(PYTHON) -c 'import struct,sys; b=open(sys.argv[1],"rb").read(); b+=bytes(-len(b)%4); \
	  open(sys.argv[2],"w").write("".join("%08x\n"%w for w in struct.unpack("<%dI"%(len(b)//4),b)))' \
	  $< $@

$(REL_OUT)/x.vvp: tests/rel/tsl_soc_x_tb.sv $(REL_X_RTL) mk/rel.mk
	@mkdir -p $(@D)
	@rm -f $@
	@iverilog -g2012 -o $@ -s tsl_soc_x_tb $(REL_X_RTL) $< 2>&1 | grep -v 'sorry:' || true
	@test -s $@

# The AXI isolation stage alone (directed, 4-state): pass-through, a reset mid write burst, a reset
# with an AR waiting.
$(REL_OUT)/axi_iso.vvp: tests/rel/tsl_axi_iso_tb.sv $(TSL_RTL_SOC) mk/rel.mk
	@mkdir -p $(@D)
	@rm -f $@
	@iverilog -g2012 -o $@ -s tsl_axi_iso_tb $(TSL_RTL_SOC) $< 2>&1 | grep -v 'sorry:' || true
	@test -s $@

TESTS += rel-axi-iso rel-x
.PHONY: test-rel-axi-iso test-rel-x
test-rel-axi-iso: $(REL_OUT)/axi_iso.vvp
	@vvp -n $< | tee $(REL_OUT)/axi_iso.log | grep '^axi_iso'; grep -q '^axi_iso: [0-9]* passed, 0 failed' $(REL_OUT)/axi_iso.log

# The testbench's GEMMs (as it runs them) compiled by the host's compiler: tests/rel/x_progs.c.
REL_X_GEMMS := 5x6x7 9x8x12r 8x8x8 8x12x8r
$(REL_OUT)/x_progs: tests/rel/x_progs.c $(TSL_FW_CP_COMPILE) $(TSL_FW_CP_HDRS) mk/rel.mk
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -Ifirmware/cp -Ihw/include -Ihw/model $< $(TSL_FW_CP_COMPILE) -o $@

$(REL_OUT)/x_progs.hex: $(REL_OUT)/x_progs
	@$< $(REL_X_GEMMS) >$@

test-rel-x: $(REL_OUT)/x.vvp $(REL_OUT)/cp.hex $(REL_OUT)/x_progs.hex
	@timeout $(REL_X_TIMEOUT) vvp -n $< +prog=$(REL_OUT)/cp.hex +progs=$(REL_OUT)/x_progs.hex >$(REL_OUT)/x.log 2>&1; \
	grep '^rel_x' $(REL_OUT)/x.log; \
	grep -q '^rel_x: [0-9]* passed, 0 failed' $(REL_OUT)/x.log || \
	  { echo "rel_x: a check failed, or no result within $(REL_X_TIMEOUT) s ($(REL_OUT)/x.log)"; \
	    echo "rel_x: 0 passed, 1 failed"; exit 1; }

# Verilator with unknowns made random: the SoC and its simulator (the sources of $(SOC_SIM), with the
# SoC's test harness tests/soc/soc_host_test.cpp) built with --x-assign unique --x-initial unique, run
# with random reset values ($TSL_VERILATOR_ARGS, read by TslSocSim) on the MXU example (`run`, as
# `tessel run`) and the host-port test.
REL_XR_DIR   := $(REL_OUT)/xrand
REL_XR_BIN   := $(REL_XR_DIR)/soc_host_test
# The reset logic is the same at every N: N=4 builds faster than the default SoC.
# The build: mk/verilate.mk (soc-xrand, at N=4).

TESTS += rel-xrand
.PHONY: test-rel-xrand
test-rel-xrand: $(REL_XR_BIN) $(BUILD)/soc/mxu/mxu.elf $(BUILD)/soc/host_fw/host_fw.elf
	@seed=$${SEED:-$$(( $$(od -An -N2 -tu2 /dev/urandom) + 1 ))}; p=0; f=0; \
	echo "rel_xrand: +verilator+seed+$$seed +verilator+rand+reset+2 (SEED=$$seed replays)"; \
	export TSL_VERILATOR_ARGS="+verilator+seed+$$seed +verilator+rand+reset+2"; \
	if $(REL_XR_BIN) run $(BUILD)/soc/mxu/mxu.elf | grep -qx "mxu: C matches the reference"; then p=$$((p+1)); \
	else f=$$((f+1)); echo "FAIL: mxu.elf with random reset values"; fi; \
	if $(REL_XR_BIN) $(BUILD)/soc/host_fw/host_fw.elf >$(REL_XR_DIR)/host.log 2>&1; then p=$$((p+1)); \
	else f=$$((f+1)); echo "FAIL: the host-port test with random reset values"; tail -5 $(REL_XR_DIR)/host.log; fi; \
	echo "rel_xrand: $$p passed, $$f failed"; test $$f -eq 0
