# The RTL's assertions can fire (tests/asrt/README.md).
#   make test-asrt   tsl_prim_fifo and tsl_axi_arb built with --assert, driven by harnesses that keep
#                    their contracts (must run clean) and that break them on purpose (must stop with the
#                    assertion's message); modules built with parameters out of range stop at time 0.

ASRT_OUT    := $(BUILD)/asrt
ASRT_VFLAGS := -Wall --assert -O1 -CFLAGS "-O1 -I$(abspath hw/sim/common)"

# asrt_build(name, top, params, harness): $(ASRT_OUT)/<name>/<name>
define asrt_build
$(ASRT_OUT)/$(1)/$(1): $(2) $(4) hw/rtl/tsl_assert.svh mk/asrt.mk
	@mkdir -p $$(@D)
	@$$(VERILATOR) --cc --exe --build -j 2 $(ASRT_VFLAGS) $(3) -Mdir $$(@D) -o $(1) $(2) $$(abspath $(4)) \
	  >$$(@D)/build.log 2>&1 || { tail -30 $$(@D)/build.log; exit 1; }
endef
ASRT_FIFO_RTL := hw/rtl/prim/tsl_prim_fifo.sv
ASRT_ARB_RTL  := hw/rtl/prim/tsl_prim_fifo.sv hw/rtl/soc/tsl_axi_arb_rr.sv hw/rtl/soc/tsl_axi_arb.sv
$(eval $(call asrt_build,fifo,$(ASRT_FIFO_RTL),--top-module tsl_prim_fifo -GWidth=8 -GDepth=4,tests/asrt/fifo_main.cpp))
$(eval $(call asrt_build,ram_w16,hw/rtl/prim/tsl_prim_ram_1r1w.sv,--prefix Vtop -GWidth=16,tests/asrt/init_main.cpp))
$(eval $(call asrt_build,ram_w12,hw/rtl/prim/tsl_prim_ram_1r1w.sv,--prefix Vtop -GWidth=12,tests/asrt/init_main.cpp))
$(eval $(call asrt_build,burst_512,hw/rtl/tc/tsl_dma_burst.sv,--prefix Vtop -GMaxBurst=512,tests/asrt/init_main.cpp))
$(eval $(call asrt_build,arb,$(ASRT_ARB_RTL),--top-module tsl_axi_arb -GMasters=2 -GDataW=32 -GDepth=2,tests/asrt/arb_main.cpp))

TESTS += asrt
.PHONY: test-asrt
test-asrt: $(addprefix $(ASRT_OUT)/,fifo/fifo arb/arb ram_w16/ram_w16 ram_w12/ram_w12 burst_512/burst_512)
	@$(PYTHON) tests/asrt/run.py $(ASRT_OUT)
