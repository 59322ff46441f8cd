# Primitives (hw/rtl/prim), which the units reuse: FIFO, single-port RAM, 1R1W RAM.
TSL_RTL_PRIM = hw/rtl/prim/tsl_prim_fifo.sv hw/rtl/prim/tsl_prim_ram.sv hw/rtl/prim/tsl_prim_ram_1r1w.sv
