// Lab 5: the host link of fpga/ice40/tsl_ice40_top on a second iCE40UP5K board (docs/labs/5-fpga-port.md;
// pins in tests/labs/5/board.txt). Keep these port names: the check maps them to the board's pins.
// The board has no user button, so reset is power-on only; its RGB LED has a third, blue, channel.
//
// YOUR TASK: fill in the body (reuse tsl_ice40_top: do not copy it), and write labs/5/lab5.pcf.
module tsl_lab5_top (
  input  logic clk_i,      // 12 MHz oscillator
  input  logic uart_rx_i,  // from the USB bridge (host TX)
  output logic uart_tx_o,  // to the USB bridge (host RX)
  output logic led_r_no,   // RGB LED, active low
  output logic led_g_no,
  output logic led_b_no
);
  // TODO
  assign uart_tx_o = 1'b1;
  assign led_r_no  = 1'b1;
  assign led_g_no  = 1'b1;
  assign led_b_no  = 1'b1;
  logic unused_ok;
  assign unused_ok = ^{clk_i, uart_rx_i};
endmodule
