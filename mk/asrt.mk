# The RTL's assertions can fire (tests/asrt/README.md).
#   make test-asrt   tsl_prim_fifo and tsl_axi_arb built with --assert, driven by harnesses that keep
#                    their contracts (must run clean) and that break them on purpose (must stop with the
#                    assertion's message); modules built with parameters out of range stop at time 0.
#   make test-asrt-sim libtessel's sim backend on a SoC whose assertion fails (a Verilated tsl_soc at
#                    N=4 with tests/asrt/tsl_asrt_trip.sv bound in, linked with libtessel's objects
#                    into tests/asrt/sim_test.c and a copy of the Python package): the failing call
#                    returns TESSEL_EDEVICE (Python: raises tessel.Error) with the assertion's message,
#                    the process lives on, the device answers EDEVICE until tessel_reset, after which
#                    (or after a new open) commands run again (tests/asrt/sim_run.py; ~3 min to build)

ASRT_OUT    := $(BUILD)/asrt
ASRT_VFLAGS := -Wall --assert -O1 -CFLAGS "-O1 -I$(abspath hw/sim/common)"

# asrt_build(name, top, params, harness): $(ASRT_OUT)/<name>/<name>
define asrt_build
$(ASRT_OUT)/$(1)/$(1): $(2) $(4) $(TSL_RTL_INCLUDES) mk/asrt.mk
	@mkdir -p $$(@D)
	@$$(VERILATOR) --cc --exe --build -j 2 $(ASRT_VFLAGS) $(3) -Mdir $$(@D) -o $(1) $(2) $$(abspath $(4)) \
	  >$$(@D)/build.log 2>&1 || { tail -30 $$(@D)/build.log; exit 1; }
endef
ASRT_RAM := --top-module tsl_prim_ram_1r1w --prefix Vtop
$(eval $(call asrt_build,fifo,$(TSL_RTL_PRIM),--top-module tsl_prim_fifo -GWidth=8 -GDepth=4,tests/asrt/fifo_main.cpp))
$(eval $(call asrt_build,ram_w16,$(TSL_RTL_PRIM),$(ASRT_RAM) -GWidth=16,tests/asrt/init_main.cpp))
$(eval $(call asrt_build,ram_w12,$(TSL_RTL_PRIM),$(ASRT_RAM) -GWidth=12,tests/asrt/init_main.cpp))
$(eval $(call asrt_build,burst_512,$(TSL_RTL_DMA),--top-module tsl_dma_burst --prefix Vtop -GMaxBurst=512,tests/asrt/init_main.cpp))
$(eval $(call asrt_build,arb,$(TSL_RTL_SOC),--top-module tsl_axi_arb -GMasters=2 -GDataW=32 -GDepth=2,tests/asrt/arb_main.cpp))

TESTS += asrt
.PHONY: test-asrt
test-asrt: $(addprefix $(ASRT_OUT)/,fifo/fifo arb/arb ram_w16/ram_w16 ram_w12/ram_w12 burst_512/burst_512)
	@$(PYTHON) tests/asrt/run.py $(ASRT_OUT)

# --- libtessel's sim backend on a SoC whose assertion can fail (test-asrt-sim) -------------------
# tsl_soc as mk/soc.mk Verilates it (flags, Verilator hooks), at N=4 with tsl_asrt_trip bound in;
# the archive plus the runtime, TslSocSim, the HBM model and transport_sim.o, position independent.
# The C test and the Python extension link them with libtessel's other objects (HOST_OBJS, made
# with $(LIBTESSEL)); the SOC_* and HOST_* variables are read when the recipes run (mk/soc.mk and
# mk/host.mk come later).
ASRT_SIM     := $(ASRT_OUT)/sim
ASRT_SIM_V   := $(ASRT_SIM)/verilator
# The build $(ASRT_SIM_V)/objs.stamp: mk/verilate.mk (soc-asrt, at N=4).
ASRT_SIM_OBJN = $(VL.soc-asrt.objs)
ASRT_SIM_OBJS = $(addprefix $(ASRT_SIM_V)/,$(ASRT_SIM_OBJN)) $(ASRT_SIM_V)/Vtsl_soc__ALL.a
ASRT_PY      := $(ASRT_SIM)/python/tessel

$(ASRT_SIM)/sim_test: tests/asrt/sim_test.c host_driver/include/tessel.h $(ASRT_SIM_V)/objs.stamp $(LIBTESSEL)
	$(CC) $(CFLAGS_COMMON) -Ihost_driver/include $< $(HOST_OBJS) $(ASRT_SIM_OBJS) $(HOST_LIBS) -o $@

# The package's .py files and its extension on this SoC (as mk/python.mk builds $(PY_EXT)).
$(ASRT_PY)/stamp: $(BUILD)/python/_tessel.o $(ASRT_SIM_V)/objs.stamp $(LIBTESSEL) $(wildcard host_driver/python/tessel/*.py)
	@mkdir -p $(@D) && cp host_driver/python/tessel/*.py $(@D)/
	$(CXX) -shared -Wl,--exclude-libs,ALL -o $(@D)/$(notdir $(PY_EXT)) $< $(HOST_OBJS) $(ASRT_SIM_OBJS) $(HOST_LIBS) -lpthread
	@touch $@

TESTS += asrt-sim
.PHONY: test-asrt-sim
test-asrt-sim: $(ASRT_SIM)/sim_test $(ASRT_PY)/stamp $(FW_ELF) tests/asrt/sim_run.py tests/asrt/sim_test.py
	@TESSEL_FIRMWARE=$(abspath $(FW_ELF)) PYTHONPATH=$(abspath $(ASRT_SIM)/python) $(PYTHON) tests/asrt/sim_run.py \
	  $(ASRT_SIM)/sim_test
