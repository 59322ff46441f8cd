// iCEBreaker (iCE40UP5K-SG48) board top, 12 MHz, no PLL: the UART host bridge (1 Mbaud, 12 clocks
// per bit) on the FTDI channel B and the lite tensor core (tsl_lite_core: N=4, int8, VMEM 64 KiB on
// two SPRAMs, ACC 4 KiB in block RAM). BAR0 is the TC register block (offsets below 4 KiB), BAR1 is
// HBM: 64 KiB on the other two SPRAMs (tsl_lite_hbm), shared by the host's bridge and the core's DMA.
// There is no control core: the host runs the command processor and pushes instructions itself
// (docs/fpga.md). Reset: power-on (iCE40 flops configure to 0) and the user
// button BTN_N. LEDs: green lit while the TC interrupt line is up and during each host-port access (a
// flicker per word); red = the last host access answered err.
module tsl_ice40_top #(
  parameter int ClksPerBit = 12,      // 12 MHz / 1 Mbaud
  parameter int N          = 4,       // MXU size and VPU lanes
  parameter int VmemBytes  = 65536,   // two SPRAMs
  parameter int AccBytes   = 4096,    // eight EBRs
  parameter int HbmBytes   = 65536    // BAR1 bytes: two SPRAMs
) (
  input  logic clk_i,      // pin 35, 12 MHz
  input  logic btn_ni,     // pin 10, user button (active low)
  input  logic uart_rx_i,  // pin 6, from the FTDI (host TX)
  output logic uart_tx_o,  // pin 9, to the FTDI (host RX)
  output logic led_r_no,   // pin 11, red LED (active low)
  output logic led_g_no    // pin 37, green LED (active low)
);
  // --- reset: flops configure to 0; released (synchronously) 16 cycles after configuration or
  // after the button, which is synchronised first --------------------------------------------
  logic [1:0] btn_q;
  logic [3:0] por_q, por_d;
  logic       rst_n;
  assign por_d = !btn_q[1] ? 4'd0 : (por_q == 4'hF) ? por_q : por_q + 4'd1;
  always_ff @(posedge clk_i) begin
    btn_q <= {btn_q[0], btn_ni};
    por_q <= por_d;
    rst_n <= por_q == 4'hF;
  end

  // --- bridge and BAR decode: BAR0 offsets below 4 KiB -> TC registers, BAR1 below HbmBytes -> HBM
  logic        h_valid, h_ready, h_bar, h_err, sel_tc, sel_hbm, hb_ready, hb_err, tc_ready, tc_err, tc_irq;
  logic [31:0] h_addr, h_wdata, h_rdata, hb_rdata, tc_rdata;
  logic [3:0]  h_wstrb;
  logic        err_ack_q, err_ack_d, led_err_q, led_err_d;

  tsl_uart_bridge #(.ClksPerBit(ClksPerBit)) u_bridge (
    .clk_i,
    .rst_ni    (rst_n),
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

  assign sel_tc    = !h_bar && h_addr < 32'd4096;
  assign sel_hbm   = h_bar && h_addr < 32'(HbmBytes);
  assign err_ack_d = h_valid && !sel_tc && !sel_hbm && !err_ack_q;
  assign h_ready   = sel_tc ? tc_ready : sel_hbm ? hb_ready : err_ack_q;
  assign h_rdata   = sel_tc ? tc_rdata : sel_hbm ? hb_rdata : 32'd0;
  assign h_err     = sel_tc ? tc_err : sel_hbm ? hb_err : 1'b1;
  assign led_err_d = h_valid && h_ready ? h_err : led_err_q;

  always_ff @(posedge clk_i or negedge rst_n) begin
    if (!rst_n) begin
      err_ack_q <= 1'b0;
      led_err_q <= 1'b0;
    end else begin
      err_ack_q <= err_ack_d;
      led_err_q <= led_err_d;
    end
  end

  // --- the lite tensor core and BAR1: HBM shared by its word port and the host ------------------
  localparam int HAw = $clog2(HbmBytes);
  logic           req, we, gnt, rsp;
  logic [HAw-1:2] addr;
  logic [31:0]    wdata, rdata;
  logic [3:0]     be;
  logic [1:0]     resp;

  tsl_lite_core #(
    .N        (N),
    .VmemBytes(VmemBytes),
    .AccBytes (AccBytes),
    .HbmBytes (HbmBytes)
  ) u_tc (
    .clk_i,
    .rst_ni     (rst_n),
    .reg_valid_i(h_valid && sel_tc),
    .reg_ready_o(tc_ready),
    .reg_addr_i (h_addr[11:0]),
    .reg_wdata_i(h_wdata),
    .reg_wstrb_i(h_wstrb),
    .reg_rdata_o(tc_rdata),
    .reg_err_o  (tc_err),
    .irq_o      (tc_irq),
    .hbm_req_o  (req),
    .hbm_we_o   (we),
    .hbm_addr_o (addr),
    .hbm_wdata_o(wdata),
    .hbm_be_o   (be),
    .hbm_gnt_i  (gnt),
    .hbm_rsp_i  (rsp),
    .hbm_rdata_i(rdata),
    .hbm_resp_i (resp)
  );

  tsl_lite_hbm #(.Bytes(HbmBytes)) u_hbm (
    .clk_i,
    .rst_ni     (rst_n),
    .req_i      (req),
    .we_i       (we),
    .addr_i     (addr),
    .wdata_i    (wdata),
    .be_i       (be),
    .gnt_o      (gnt),
    .rsp_o      (rsp),
    .rdata_o    (rdata),
    .resp_o     (resp),
    .bus_valid_i(h_valid && sel_hbm),
    .bus_addr_i (h_addr[HAw-1:2]),
    .bus_wdata_i(h_wdata),
    .bus_wstrb_i(h_wstrb),
    .bus_ready_o(hb_ready),
    .bus_rdata_o(hb_rdata)
  );
  assign hb_err = 1'b0;

  assign led_r_no = !led_err_q;
  assign led_g_no = !(h_valid || tc_irq);
endmodule
