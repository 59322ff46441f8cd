// DMA row generator: walks the ROWS rows of one DMA_XFER and emits, per row, where it lies in
// beats of W bytes on both sides: first beat index, byte offset in the first beat, byte offset of
// the last byte in the last beat, and the beat count. HBM addresses are byte offsets; local
// addresses are offsets inside the selected memory (VMEM, or ACC seen as W-byte half lines).
// Latency: start_i in cycle t, row 0 valid in t+1; then one row per cycle while ready_i.
// Assumes the dispatcher range-checked the instruction (no address wraps).
module tsl_dma_rows #(
  parameter int W   = 32,  // beat bytes (one AXI beat = one VMEM line), a power of two
  parameter int LBW = 13   // local beat index bits
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  start_i,         // pulse: latch the fields below and begin
  input  logic                  stop_i,          // abandon the remaining rows
  input  logic [31:0]           hbm_addr_i,
  input  logic [31:0]           local_off_i,     // offset inside the selected memory
  input  logic [15:0]           rows_i,          // 1..65535
  input  logic [15:0]           row_bytes_i,     // 1..65535
  input  logic [31:0]           hbm_stride_i,
  input  logic [31:0]           local_stride_i,
  output logic                  valid_o,
  input  logic                  ready_i,
  output logic [31-$clog2(W):0] hbeat_o,         // HBM beat index of the row's first byte
  output logic [$clog2(W)-1:0]  hoff_o,          // its byte offset in that beat
  output logic [$clog2(W)-1:0]  hend_o,          // byte offset of the row's last byte in its beat
  output logic [16:0]           nh_o,            // HBM beats the row touches
  output logic [LBW-1:0]        lbeat_o,         // local beat index of the row's first byte
  output logic [$clog2(W)-1:0]  loff_o,
  output logic [$clog2(W)-1:0]  lend_o,
  output logic [16:0]           nl_o,            // local beats the row touches
  output logic                  last_o           // the instruction's last row
);
  localparam int LW = $clog2(W);

  logic        active_q, active_d;
  logic [15:0] left_q, left_d;         // rows still to emit, including the current one
  logic [31:0] haddr_q, haddr_d, laddr_q, laddr_d;
  logic [31:0] hlast, llast;           // byte address of the row's last byte
  logic [15:0] rb_q;                   // fields latched at start_i
  logic [31:0] hs_q, ls_q;

  assign valid_o = active_q;
  assign last_o  = left_q == 16'd1;
  assign hlast   = haddr_q + 32'(rb_q) - 32'd1;
  assign llast   = laddr_q + 32'(rb_q) - 32'd1;
  assign hbeat_o = haddr_q[31:LW];
  assign hoff_o  = haddr_q[LW-1:0];
  assign hend_o  = hlast[LW-1:0];
  assign nh_o    = 17'(hlast[31:LW] - haddr_q[31:LW]) + 17'd1;
  assign lbeat_o = LBW'(laddr_q[31:LW]);
  assign loff_o  = laddr_q[LW-1:0];
  assign lend_o  = llast[LW-1:0];
  assign nl_o    = 17'(llast[31:LW] - laddr_q[31:LW]) + 17'd1;

  always_comb begin
    active_d = active_q;
    left_d   = left_q;
    haddr_d  = haddr_q;
    laddr_d  = laddr_q;
    if (start_i) begin
      active_d = 1'b1;
      left_d   = rows_i;
      haddr_d  = hbm_addr_i;
      laddr_d  = local_off_i;
    end else if (stop_i) begin
      active_d = 1'b0;
    end else if (active_q && ready_i) begin
      left_d   = left_q - 16'd1;
      haddr_d  = haddr_q + hs_q;
      laddr_d  = laddr_q + ls_q;
      active_d = !last_o;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      active_q <= 1'b0;
      left_q   <= '0;
      haddr_q  <= '0;
      laddr_q  <= '0;
    end else begin
      active_q <= active_d;
      left_q   <= left_d;
      haddr_q  <= haddr_d;
      laddr_q  <= laddr_d;
    end
  end

  // Instruction fields: datapath registers, not reset.
  always_ff @(posedge clk_i) begin
    if (start_i) begin
      rb_q <= row_bytes_i;
      hs_q <= hbm_stride_i;
      ls_q <= local_stride_i;
    end
  end

  logic unused_ok;
  assign unused_ok = ^{laddr_q[31:LW], llast[31:LW]};
endmodule
