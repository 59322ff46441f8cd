# The inter-chip interconnect (hw/rtl/ici, docs/pod.md): a link's two ends, the router, the semaphores,
# the packetizer and the ejector.
#   make test-ici-lint   verilator --lint-only -Wall of tsl_ici_tx and tsl_ici_rx at two widths, of
#                        tsl_ici_router at 2 and 4 ports, and of tsl_ici_pkt and tsl_ici_eject at N=16
#                        and N=4; and Yosys 0.23 synthesis of each at the spec's width (the router at 4
#                        ports, the packetizer and ejector at N=16)
#   make test-ici        the link at two settings, each a build of its own (mk/verilate.mk: ici):
#                        8 bytes a flit, 512 credits, latency 200 (the spec's), and 4 bytes, 64 credits,
#                        latency 20 (fewer credits than a round trip: the credit bound shows); random
#                        packets, flipped bits and back-pressure, then the rate (hw/sim/ici/ici_main.cpp);
#                        and the router at 2 and 4 ports (hw/sim/ici/router_main.cpp): random pods and
#                        packets against docs/pod.md's dimension order, then a flit a cycle; and the
#                        semaphores (hw/sim/ici/sem_main.cpp) at 16 with a wait bound of 37 cycles and
#                        at 4 with 5, cycle by cycle against docs/pod.md's rules; and the packetizer
#                        joined to the ejector (hw/sim/ici/pe_main.cpp, ici-pe) at N=16 and N=4: random
#                        SENDs' bursts and a second stream of packets into an HBM that stalls, delays B
#                        and answers some writes with SLVERR, checked on the wire against the packet
#                        format, on AXI, in memory and at each semaphore increment; then the rate
#                        (a flit a cycle out of the packetizer, neither stream held by the ejector)
ICI_OUT := $(BUILD)/ici

TESTS += ici-lint ici
.PHONY: test-ici-lint test-ici

test-ici-lint:
	@mkdir -p $(ICI_OUT)
	@p=0; f=0; for cfg in "8 512" "4 64"; do set -- $$cfg; for top in tsl_ici_tx tsl_ici_rx; do \
	  g=$$([ $$top = tsl_ici_tx ] && echo Credits || echo Depth); \
	  if $(VERILATOR) --lint-only -Wall --top-module $$top -GBytes=$$1 -G$$g=$$2 $(TSL_RTL_ICI); \
	  then p=$$((p+1)); else f=$$((f+1)); echo "lint FAILED: $$top Bytes=$$1"; fi; done; done; \
	for ports in 2 4; do \
	  if $(VERILATOR) --lint-only -Wall --top-module tsl_ici_router -GPorts=$$ports $(TSL_RTL_ICI); \
	  then p=$$((p+1)); else f=$$((f+1)); echo "lint FAILED: tsl_ici_router Ports=$$ports"; fi; done; \
	if $(VERILATOR) --lint-only -Wall --top-module tsl_ici_sem $(TSL_RTL_ICI); \
	then p=$$((p+1)); else f=$$((f+1)); echo "lint FAILED: tsl_ici_sem"; fi; \
	for n in 16 4; do for top in tsl_ici_pkt tsl_ici_eject; do \
	  if $(VERILATOR) --lint-only -Wall --top-module $$top -GN=$$n $(TSL_RTL_ICI); \
	  then p=$$((p+1)); else f=$$((f+1)); echo "lint FAILED: $$top N=$$n"; fi; done; done; \
	for top in tsl_ici_tx tsl_ici_rx tsl_ici_router tsl_ici_sem tsl_ici_pkt tsl_ici_eject; do \
	  if yosys -q -l $(ICI_OUT)/$$top.synth.log -p "read_verilog -sv $(TSL_RTL_ICI); synth -top $$top; stat" \
	       >/dev/null 2>&1; then p=$$((p+1)); \
	  else f=$$((f+1)); echo "yosys FAILED: $$top ($(ICI_OUT)/$$top.synth.log)"; fi; done; \
	echo "ici_lint: $$p passed, $$f failed"; test $$f -eq 0

test-ici: $(ICI_OUT)/b8/ici_sim $(ICI_OUT)/b4/ici_sim $(ICI_OUT)/router2/router_sim $(ICI_OUT)/router4/router_sim \
          $(ICI_OUT)/sem16/sem_sim $(ICI_OUT)/sem4/sem_sim $(ICI_OUT)/pe16/pe_sim $(ICI_OUT)/pe4/pe_sim
	@$(ICI_OUT)/b8/ici_sim 200 4000 && $(ICI_OUT)/b4/ici_sim 20 4000 && \
	  $(ICI_OUT)/router2/router_sim 40 && $(ICI_OUT)/router4/router_sim 40 && \
	  $(ICI_OUT)/sem16/sem_sim 200000 && $(ICI_OUT)/sem4/sem_sim 200000 && \
	  $(ICI_OUT)/pe16/pe_sim 2000 && $(ICI_OUT)/pe4/pe_sim 2000
