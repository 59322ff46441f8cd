// Board-independent FPGA top: tsl_soc with its host port driven by the UART bridge
// (tsl_uart_bridge, docs/fpga.md "UART protocol") and its HBM AXI port on on-chip RAM
// (tsl_fpga_hbm). The board tops (fpga/xilinx, and the Verilated harness of the uart transport)
// add only the clock, the reset and the pins. After power-on HOSTIF BOOT.HOLD holds the cores in
// reset (BootHold): the host loads the firmware into the core RAM through the BAR0 RAM window and
// clears BOOT.HOLD (docs/fpga.md "Booting"). Latency of a host access: the UART frame time plus
// the SoC's host-port latency (docs/fpga.md).
`include "hw/rtl/tsl_axi.svh"
module tsl_fpga_top #(
  parameter int N          = 4,          // MXU size and VPU lanes (power of two, 4..128)
  parameter bit EnableBf16 = 1'b0,       // 1: int8 and bf16/fp32; 0: int8 only
  parameter int VmemBytes  = 16384,      // VMEM bytes (power of two)
  parameter int AccBytes   = 4096,       // ACC bytes (power of two)
  parameter int HbmBytes   = 262144,     // on-chip "HBM" bytes (power of two; the host library
                                         // reserves the first 64 KiB for its rings)
  parameter int ClksPerBit = 12,         // clk_i cycles per UART bit: clock Hz / 1 000 000
  parameter bit BootHold   = 1'b1        // 1: the cores wait for the host to load the RAM
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic uart_rx_i,   // from the host (asynchronous)
  output logic uart_tx_o,   // to the host
  output logic host_irq_o,  // HOSTIF host interrupt (level)
  output logic trap_o       // sticky: the control core took a trap since reset
);
  localparam int Dw = 16 * N;

  logic        h_valid, h_ready, h_bar, h_err;
  logic [31:0] h_addr, h_wdata, h_rdata;
  logic [3:0]  h_wstrb;

  tsl_uart_bridge #(.ClksPerBit(ClksPerBit)) u_bridge (
    .clk_i,
    .rst_ni,
    .uart_rx_i,
    .uart_tx_o,
    .h_valid_o (h_valid),
    .h_ready_i (h_ready),
    .h_bar_o   (h_bar),
    .h_addr_o  (h_addr),
    .h_wdata_o (h_wdata),
    .h_wstrb_o (h_wstrb),
    .h_rdata_i (h_rdata),
    .h_err_i   (h_err)
  );

  `TSL_AXI_WIRES(hbm_, Dw)
  logic            trap, trap_q, trap_d;

  // No ICI (EnableIci 0): the pod's straps and link inputs held at 0.
  localparam int IciCw = $clog2(tsl_pkg::PARAM_ICI_RX_FLITS + 1);
  localparam int IciFw = 8 * tsl_pkg::PARAM_ICI_LINK_BYTES_PER_CYCLE;
  logic [4*IciCw-1:0] ici_credit0;
  logic [7:0]         ici_kind0;
  logic [4*IciFw-1:0] ici_data0;
  assign {ici_credit0, ici_kind0, ici_data0} = '0;

  tsl_soc #(
    .N          (N),
    .EnableBf16 (EnableBf16),
    .VmemBytes  (VmemBytes),
    .AccBytes   (AccBytes),
    .HbmBytes   (HbmBytes),
    .BootHold   (BootHold),
    .EnableIci  (1'b0)
  ) u_soc (
    .clk_i,
    .rst_ni,
    .h_valid_i       (h_valid),
    .h_ready_o       (h_ready),
    .h_bar_i         (h_bar),
    .h_addr_i        (h_addr),
    .h_wdata_i       (h_wdata),
    .h_wstrb_i       (h_wstrb),
    .h_rdata_o       (h_rdata),
    .h_err_o         (h_err),
    .host_irq_o,
    /* verilator lint_off PINCONNECTEMPTY */
    `TSL_AXI_CONNECT(m_axi_, hbm_),
    .console_valid_o (),
    .console_data_o  (),
    .exit_valid_o    (),
    .exit_code_o     (),
    .retire_o        (),
    .trap_o          (trap),
    .trap_cause_o    (),
    .trap_pc_o       (),
    .core_rst_o      (),
    .ici_chip_x_i    (4'd0),
    .ici_chip_y_i    (4'd0),
    .ici_pod_x_i     (5'd0),
    .ici_pod_y_i     (5'd0),
    .ici_tx_kind_o   (),
    .ici_tx_data_o   (),
    .ici_tx_credit_i (ici_credit0),
    .ici_rx_kind_i   (ici_kind0),
    .ici_rx_data_i   (ici_data0),
    .ici_rx_credit_o (),
    .ici_crc_err_o   ()
    /* verilator lint_on PINCONNECTEMPTY */
  );

  tsl_fpga_hbm #(.DataW(Dw), .Bytes(HbmBytes)) u_hbm (
    .clk_i,
    .rst_ni,
    `TSL_AXI_CONNECT(s_axi_, hbm_)
  );

  assign trap_d = trap_q || trap;
  assign trap_o = trap_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) trap_q <= 1'b0;
    else         trap_q <= trap_d;
  end
endmodule
