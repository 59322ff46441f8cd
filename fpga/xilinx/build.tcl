# Vivado non-project batch flow for the Arty A7-100T (tsl_arty_top). Run from the repository root:
#   vivado -mode batch -nojournal -source fpga/xilinx/build.tcl -tclargs OUT_DIR [N] [BF16]
# (make -C fpga arty). Reads OUT_DIR/files.f (one RTL path per line, written by fpga/Makefile from
# ARTY_RTL in fpga/board.mk), synthesises with N (default 16) and EnableBf16 (default 0), places,
# routes, writes reports and OUT_DIR/tsl_arty_top.bit (+ .bin for the SPI flash) and fails when
# the 100 MHz clock has negative setup or hold slack.
set out  [lindex $argv 0]
set n    [expr {[llength $argv] > 1 ? [lindex $argv 1] : 16}]
set bf16 [expr {[llength $argv] > 2 ? [lindex $argv 2] : 0}]
set part xc7a100tcsg324-1
file mkdir $out

set fh [open [file join $out files.f] r]
set rtl [split [string trim [read $fh]] "\n"]
close $fh
read_verilog -sv $rtl
read_xdc fpga/xilinx/arty_a7_100t.xdc

# The RTL `includes generated files by their path from the repository root (the working directory).
synth_design -top tsl_arty_top -part $part -generic N=$n -generic EnableBf16=$bf16 -include_dirs [pwd]
write_checkpoint -force [file join $out post_synth.dcp]
report_utilization -file [file join $out utilization_synth.rpt]

opt_design
place_design
phys_opt_design
route_design
write_checkpoint -force [file join $out post_route.dcp]
report_utilization -file [file join $out utilization.rpt]
report_timing_summary -max_paths 10 -file [file join $out timing_summary.rpt]

set wns [get_property SLACK [get_timing_paths -delay_type max -max_paths 1]]
set whs [get_property SLACK [get_timing_paths -delay_type min -max_paths 1]]
puts "tsl_arty_top N=$n EnableBf16=$bf16: WNS $wns ns, WHS $whs ns"
if {$wns < 0 || $whs < 0} {
  error "timing not met (WNS $wns ns, WHS $whs ns): see [file join $out timing_summary.rpt]"
}

write_bitstream -force -bin_file [file join $out tsl_arty_top.bit]
