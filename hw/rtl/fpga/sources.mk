# FPGA building blocks (hw/rtl/fpga); the board tops themselves are in fpga/board.mk.
#   TSL_RTL_UART_BRIDGE  the UART host bridge tsl_uart_bridge
#   TSL_RTL_FPGA_TOP     tsl_fpga_top: the bridge, tsl_soc and an on-chip HBM
TSL_RTL_UART_BRIDGE = $(call tsl_uniq,$(TSL_RTL_PRIM) \
                      hw/rtl/fpga/tsl_uart_rx.sv hw/rtl/fpga/tsl_uart_tx.sv hw/rtl/fpga/tsl_uart_bridge.sv)
TSL_RTL_FPGA_TOP    = $(call tsl_uniq,$(TSL_RTL_SOC) $(TSL_RTL_UART_BRIDGE) \
                      hw/rtl/fpga/tsl_fpga_hbm.sv hw/rtl/fpga/tsl_fpga_top.sv)
