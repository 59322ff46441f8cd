// Digilent Arty A7-100T board top, 100 MHz: tsl_fpga_top (UART bridge + tsl_soc + block-RAM HBM)
// at N=16 int8, the UART at 1 Mbaud (100 clocks per bit) on the FTDI's USB-UART. Reset:
// power-on (flops configure to 0) and the RESET button (ck_rst, active low). LEDs: LD4 host
// interrupt, LD5 the control core trapped, LD6 reset released, LD7 UART rx activity.
module tsl_arty_top #(
  parameter int N          = 16,      // MXU size and VPU lanes
  parameter bit EnableBf16 = 1'b0,    // 1: int8 and bf16/fp32 (see docs/fpga.md for the fit)
  parameter int VmemBytes  = 65536,   // VMEM bytes
  parameter int AccBytes   = 16384,   // ACC bytes
  parameter int HbmBytes   = 262144,  // block-RAM "HBM" bytes
  parameter int ClksPerBit = 100      // 100 MHz / 1 Mbaud
) (
  input  logic       clk_i,      // E3, 100 MHz
  input  logic       rst_ni,     // C2, ck_rst (RESET button, active low)
  input  logic       uart_rx_i,  // A9, uart_txd_in (host -> board)
  output logic       uart_tx_o,  // D10, uart_rxd_out (board -> host)
  output logic [3:0] led_o       // H5 J5 T9 T10 (LD4..LD7)
);
  // --- reset: flops configure to 0; released (synchronously) 16 cycles after configuration or
  // after the button, which is synchronised first --------------------------------------------
  logic [1:0] btn_q;
  logic [3:0] por_q, por_d;
  logic       rst_n, host_irq, trap;
  assign por_d = !btn_q[1] ? 4'd0 : (por_q == 4'hF) ? por_q : por_q + 4'd1;
  always_ff @(posedge clk_i) begin
    btn_q <= {btn_q[0], rst_ni};
    por_q <= por_d;
    rst_n <= por_q == 4'hF;
  end

  tsl_fpga_top #(
    .N          (N),
    .EnableBf16 (EnableBf16),
    .VmemBytes  (VmemBytes),
    .AccBytes   (AccBytes),
    .HbmBytes   (HbmBytes),
    .ClksPerBit (ClksPerBit)
  ) u_fpga (
    .clk_i,
    .rst_ni     (rst_n),
    .uart_rx_i,
    .uart_tx_o,
    .host_irq_o (host_irq),
    .trap_o     (trap)
  );

  assign led_o = {!uart_rx_i, rst_n, trap, host_irq};
endmodule
