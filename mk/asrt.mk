# The RTL's assertions can fire (tests/asrt/README.md).
#   make test-asrt   tsl_prim_fifo and tsl_axi_arb built with --assert, driven by harnesses that keep
#                    their contracts (must run clean) and that break them on purpose (must stop with the
#                    assertion's message); modules built with parameters out of range stop at time 0.

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
