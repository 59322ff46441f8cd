# Program the Arty A7-100T over its USB-JTAG with Vivado's hardware manager (volatile, lost on
# power-off):  vivado -mode batch -nojournal -source fpga/xilinx/program.tcl -tclargs BITFILE
set bit [lindex $argv 0]
open_hw_manager
connect_hw_server
open_hw_target
set dev [lindex [get_hw_devices xc7a100t*] 0]
current_hw_device $dev
set_property PROGRAM.FILE $bit $dev
program_hw_devices $dev
close_hw_manager
