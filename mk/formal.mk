# Formal proofs of the tensor core's small units (hw/formal, docs/reliability.md#formal-proofs):
# Debian's Yosys 0.23 writes SMT2 and yosys-smtbmc proves it with z3, by k-induction where the
# state space allows (every reachable state) and to a stated bound (BMC depth) where it does not.
# Each unit's `TSL_ASSERTs are proved as written (hw/formal/tsl_fv_prep.py rewrites the macro for
# Yosys), or assumed where they state the environment's contract; the wrappers in hw/formal add the
# environment's assumptions and the bound properties in hw/formal/bind.
#   make formal              every proof; each prints 'fv_NAME: P passed, F failed (how, time)'
#   make formal-NAME         one proof (NAME from FV_PROOFS); logs and a failing trace (trace.vcd or
#                            trace_induct.vcd) in build/formal/NAME
#   make test-formal         the same as make formal, in make test
FV_OUT := $(BUILD)/formal
FV_RUN := $(PYTHON) hw/formal/tsl_fv_run.py
FV_FIFO_ARGS  = --top tsl_fv_fifo --assume tsl_prim_fifo.InValidHeld --assume tsl_prim_fifo.InDataStable \
                --bind tsl_prim_fifo=hw/formal/bind/tsl_prim_fifo.svh --rtl hw/rtl/prim/tsl_prim_fifo.sv \
                --wrap hw/formal/tsl_fv_fifo.sv
FV_QUEUE_ARGS = --top tsl_fv_queue --assume tsl_tc_queue.InValidHeld --assume tsl_tc_queue.InDataStable \
                --bind tsl_tc_queue=hw/formal/bind/tsl_tc_queue.svh \
                --rtl hw/rtl/prim/tsl_prim_ram_1r1w.sv hw/rtl/tc/tsl_tc_queue.sv --wrap hw/formal/tsl_fv_queue.sv
FV_BURST_ARGS = --top tsl_fv_dma_burst --bind tsl_dma_burst=hw/formal/bind/tsl_dma_burst.svh \
                --rtl hw/rtl/tc/tsl_dma_burst.sv --wrap hw/formal/tsl_fv_dma_burst.sv

# One line per proof: NAME and the arguments of hw/formal/tsl_fv_run.py (mode, depth, parameters).
FV_fifo_d3         = --mode prove --depth 4 --set Depth=3 $(FV_FIFO_ARGS)
FV_fifo_d4         = --mode prove --depth 4 --set Depth=4 $(FV_FIFO_ARGS)
FV_queue_d3        = --mode prove --depth 4 --set Depth=3 $(FV_QUEUE_ARGS)
FV_queue_d4        = --mode prove --depth 4 --set Depth=4 $(FV_QUEUE_ARGS)
FV_queue_order_d3  = --mode bmc --depth 14 --set Depth=3 --define FV_ORDER $(FV_QUEUE_ARGS)
FV_queue_order_d4  = --mode bmc --depth 14 --set Depth=4 --define FV_ORDER $(FV_QUEUE_ARGS)
FV_axi_arb         = --mode prove --depth 4 --top tsl_fv_axi_arb --bind tsl_axi_arb=hw/formal/bind/tsl_axi_arb.svh \
                     --rtl hw/rtl/prim/tsl_prim_fifo.sv hw/rtl/soc/tsl_axi_arb_rr.sv hw/rtl/soc/tsl_axi_arb.sv \
                     --wrap hw/formal/tsl_fv_axi_arb.sv
FV_dma_burst_w8_b16 = --mode prove --depth 3 --set W=8 --set MaxBurst=16 $(FV_BURST_ARGS)
FV_dma_burst_w32_b3 = --mode prove --depth 3 --set W=32 --set MaxBurst=3 $(FV_BURST_ARGS)
FV_mxu_ctrl        = --mode prove --depth 6 --top tsl_fv_mxu_ctrl --bind tsl_mxu_ctrl=hw/formal/bind/tsl_mxu_ctrl.svh \
                     --rtl hw/rtl/tsl_pkg.sv hw/rtl/mxu/tsl_mxu_ctrl.sv --wrap hw/formal/tsl_fv_mxu_ctrl.sv
FV_tokens          = --mode prove --depth 2 --top tsl_fv_tokens --rtl hw/rtl/tsl_pkg.sv hw/rtl/tc/tsl_tc_tokens.sv \
                     --wrap hw/formal/tsl_fv_tokens.sv
FV_ram_1r1w        = --mode prove --depth 3 --top tsl_fv_ram_1r1w --bind tsl_prim_ram_1r1w=hw/formal/bind/tsl_prim_ram_1r1w.svh \
                     --rtl hw/rtl/prim/tsl_prim_ram_1r1w.sv --wrap hw/formal/tsl_fv_ram.sv
FV_ram_sp          = --mode prove --depth 3 --top tsl_fv_ram_sp --bind tsl_prim_ram=hw/formal/bind/tsl_prim_ram.svh \
                     --rtl hw/rtl/prim/tsl_prim_ram.sv --wrap hw/formal/tsl_fv_ram_sp.sv
FV_seq_chk_gemm    = --mode bmc --depth 20 --top tsl_fv_seq_chk --bind tsl_tc_seq_chk=hw/formal/bind/tsl_tc_seq_chk.svh \
                     --rtl hw/rtl/tsl_pkg.sv hw/rtl/tc/tsl_tc_seq_chk.sv --wrap hw/formal/tsl_fv_seq_chk.sv
FV_PROOFS := fifo_d3 fifo_d4 ram_sp ram_1r1w queue_d3 queue_d4 queue_order_d3 queue_order_d4 tokens \
             axi_arb dma_burst_w8_b16 dma_burst_w32_b3 mxu_ctrl seq_chk_gemm

TESTS += formal
.PHONY: formal test-formal $(addprefix formal-,$(FV_PROOFS))

$(addprefix formal-,$(FV_PROOFS)): formal-%:
	@$(FV_RUN) fv_$* $(FV_OUT)/$* $(FV_$*)

formal test-formal:
	@f=0; for p in $(FV_PROOFS); do $(MAKE) --no-print-directory -s formal-$$p || f=$$((f+1)); done; \
	test $$f -eq 0
