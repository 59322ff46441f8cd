# Tensor core (hw/rtl/tc) and the parts of it that have harnesses of their own.
#   TSL_RTL_TC_CHECK  the instruction check tsl_tc_check, which the lite tensor core shares
#   TSL_RTL_TCCTRL    the controller tsl_tc_ctrl: queues, issue, dependency tokens, counters, the
#                     tile sequencer tsl_tc_seq
#   TSL_RTL_DMA       the DMA unit tsl_dma, and tsl_dma_ici: the DMA of a chip in a pod (with a send
#                     engine per ICI link)
#   TSL_RTL_VPU       the vector unit tsl_vpu (its fp32 adder is the MXU's tsl_mxu_fadd)
#   TSL_RTL_TC        the whole tensor core tsl_tc (with the program fetch unit tsl_tc_fetch, which
#                     shares the DMA's AXI read channel through the SoC's arbiter tsl_axi_arb)
TSL_RTL_TC_CHECK = $(TSL_RTL_PKG) hw/rtl/tc/tsl_tc_check.sv
TSL_RTL_TCCTRL   = $(call tsl_uniq,$(TSL_RTL_TC_CHECK) $(TSL_RTL_PRIM) \
                   hw/rtl/tc/tsl_tc_ctrl.sv hw/rtl/tc/tsl_tc_issue.sv hw/rtl/tc/tsl_tc_perf.sv \
                   hw/rtl/tc/tsl_tc_queue.sv hw/rtl/tc/tsl_tc_seq.sv hw/rtl/tc/tsl_tc_seq_chk.sv \
                   hw/rtl/tc/tsl_tc_tokens.sv)
TSL_RTL_DMA      = $(call tsl_uniq,$(TSL_RTL_PKG) $(TSL_RTL_PRIM) \
                   hw/rtl/tc/tsl_dma.sv hw/rtl/tc/tsl_dma_align.sv hw/rtl/tc/tsl_dma_burst.sv \
                   hw/rtl/tc/tsl_dma_rows.sv hw/rtl/tc/tsl_dma_ici.sv)
TSL_RTL_VPU      = $(call tsl_uniq,$(TSL_RTL_MXU) \
                   hw/rtl/tc/tsl_vpu_eup.sv hw/rtl/tc/tsl_vpu_fmul.sv \
                   hw/rtl/tc/tsl_vpu_fn_seq.sv hw/rtl/tc/tsl_vpu_fn.sv hw/rtl/tc/tsl_vpu_lane.sv \
                   hw/rtl/tc/tsl_vpu_row.sv \
                   hw/rtl/tc/tsl_vpu.sv)
TSL_RTL_TC       = $(call tsl_uniq,$(TSL_RTL_MXU) $(TSL_RTL_VPU) $(TSL_RTL_DMA) $(TSL_RTL_TCCTRL) \
                   hw/rtl/soc/tsl_axi_arb_rr.sv hw/rtl/soc/tsl_axi_arb.sv hw/rtl/tc/tsl_tc_fetch.sv \
                   hw/rtl/tc/tsl_tc.sv hw/rtl/tc/tsl_tc_mem.sv hw/rtl/tc/tsl_tc_mxu.sv \
                   hw/rtl/tc/tsl_tc_rowrd.sv)
