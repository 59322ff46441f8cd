// iCEBreaker (iCE40UP5K-SG48) board top, 12 MHz, no PLL: the UART host bridge (1 Mbaud, 12 clocks
// per bit) on the FTDI channel B, with BAR1 ("HBM") on the four SPRAMs (128 KiB, 32-bit AXI,
// tsl_fpga_hbm) and BAR0 answering err. The full tsl_soc needs about 30 000 LUT4 at N=4 int8
// (docs/fpga.md, "Why the UP5K holds only the link"), six times the UP5K, so this board carries
// the host link only; the SoC build is fpga/xilinx. Reset: power-on (iCE40 flops configure to 0)
// and the user button BTN_N. LEDs: green lit during each host-port access (a flicker per word),
// red = the last host access answered err.
module tsl_ice40_top #(
  parameter int ClksPerBit = 12,      // 12 MHz / 1 Mbaud
  parameter int HbmBytes   = 131072   // BAR1 bytes: 4 SPRAMs of 32 KiB
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

  // --- bridge and BAR decode --------------------------------------------------------------------
  logic        h_valid, h_ready, h_bar, h_err, sel_hbm, hb_ready, hb_err;
  logic [31:0] h_addr, h_wdata, h_rdata, hb_rdata;
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

  assign sel_hbm   = h_bar && h_addr < 32'(HbmBytes);
  assign err_ack_d = h_valid && !sel_hbm && !err_ack_q;
  assign h_ready   = sel_hbm ? hb_ready : err_ack_q;
  assign h_rdata   = sel_hbm ? hb_rdata : 32'd0;
  assign h_err     = sel_hbm ? hb_err : 1'b1;
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

  // --- BAR1: AXI bridge (tsl_soc's) and SPRAM --------------------------------------------------
  logic        awvalid, awready, wvalid, wready, wlast, bvalid, bready;
  logic        arvalid, arready, rvalid, rready, rlast;
  logic [31:0] awaddr, araddr, wdata, rdata;
  logic [7:0]  awlen, arlen;
  logic [2:0]  awsize, arsize;
  logic [1:0]  awburst, arburst, bresp, rresp;
  logic [3:0]  wstrb;

  tsl_axi_from_bus #(.DataW(32)) u_axi (
    .clk_i,
    .rst_ni        (rst_n),
    .clr_i         (1'b0),
    .bus_valid_i   (h_valid && sel_hbm),
    .bus_ready_o   (hb_ready),
    .bus_addr_i    (h_addr),
    .bus_wdata_i   (h_wdata),
    .bus_wstrb_i   (h_wstrb),
    .bus_rdata_o   (hb_rdata),
    .bus_err_o     (hb_err),
    .m_axi_awvalid (awvalid),
    .m_axi_awready (awready),
    .m_axi_awaddr  (awaddr),
    .m_axi_awlen   (awlen),
    .m_axi_awsize  (awsize),
    .m_axi_awburst (awburst),
    .m_axi_wvalid  (wvalid),
    .m_axi_wready  (wready),
    .m_axi_wdata   (wdata),
    .m_axi_wstrb   (wstrb),
    .m_axi_wlast   (wlast),
    .m_axi_bvalid  (bvalid),
    .m_axi_bready  (bready),
    .m_axi_bresp   (bresp),
    .m_axi_arvalid (arvalid),
    .m_axi_arready (arready),
    .m_axi_araddr  (araddr),
    .m_axi_arlen   (arlen),
    .m_axi_arsize  (arsize),
    .m_axi_arburst (arburst),
    .m_axi_rvalid  (rvalid),
    .m_axi_rready  (rready),
    .m_axi_rdata   (rdata),
    .m_axi_rresp   (rresp),
    .m_axi_rlast   (rlast)
  );

  tsl_fpga_hbm #(.DataW(32), .Bytes(HbmBytes)) u_hbm (
    .clk_i,
    .rst_ni        (rst_n),
    .s_axi_awvalid (awvalid),
    .s_axi_awready (awready),
    .s_axi_awaddr  (awaddr),
    .s_axi_awlen   (awlen),
    .s_axi_awsize  (awsize),
    .s_axi_awburst (awburst),
    .s_axi_wvalid  (wvalid),
    .s_axi_wready  (wready),
    .s_axi_wdata   (wdata),
    .s_axi_wstrb   (wstrb),
    .s_axi_wlast   (wlast),
    .s_axi_bvalid  (bvalid),
    .s_axi_bready  (bready),
    .s_axi_bresp   (bresp),
    .s_axi_arvalid (arvalid),
    .s_axi_arready (arready),
    .s_axi_araddr  (araddr),
    .s_axi_arlen   (arlen),
    .s_axi_arsize  (arsize),
    .s_axi_arburst (arburst),
    .s_axi_rvalid  (rvalid),
    .s_axi_rready  (rready),
    .s_axi_rdata   (rdata),
    .s_axi_rresp   (rresp),
    .s_axi_rlast   (rlast)
  );

  assign led_r_no = !led_err_q;
  assign led_g_no = !h_valid;
endmodule
