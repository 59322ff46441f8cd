// RV32 integer register file: 31 x 32-bit registers, two synchronous read ports, one write port.
// Latency: both read ports register their address when re_i is high and show the data the next
// cycle (and hold it until the next re_i). x0 reads as zero and ignores writes. The core never
// reads and writes in the same cycle, so no bypass is needed; the synchronous read lets FPGA tools
// map the array to block or distributed RAM.
module tsl_core_regfile (
  input  logic        clk_i,
  input  logic        re_i,       // capture raddr_a_i/raddr_b_i this cycle
  input  logic [4:0]  raddr_a_i,
  input  logic [4:0]  raddr_b_i,
  output logic [31:0] rdata_a_o,
  output logic [31:0] rdata_b_o,
  input  logic        we_i,
  input  logic [4:0]  waddr_i,
  input  logic [31:0] wdata_i
);
  logic [31:0] regs [32];
  logic [31:0] rdata_a_q, rdata_b_q;
  logic        zero_a_q, zero_b_q;

  always_ff @(posedge clk_i) begin
    if (we_i && waddr_i != 5'd0) regs[waddr_i] <= wdata_i;
    if (re_i) begin
      rdata_a_q <= regs[raddr_a_i];
      rdata_b_q <= regs[raddr_b_i];
      zero_a_q  <= (raddr_a_i == 5'd0);
      zero_b_q  <= (raddr_b_i == 5'd0);
    end
  end

  assign rdata_a_o = zero_a_q ? 32'd0 : rdata_a_q;
  assign rdata_b_o = zero_b_q ? 32'd0 : rdata_b_q;
endmodule
