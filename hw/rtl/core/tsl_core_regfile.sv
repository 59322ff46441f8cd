// RV32 integer register file: 31 x 32-bit registers, two synchronous read ports, one write port.
// Latency: both read ports register their address when re_i is high and show the data the next
// cycle (and hold it until the next re_i). x0 reads as zero and ignores writes. A read in the same
// cycle as a write to the same register returns the new value: the write data is forwarded by a
// register beside the array, so the array itself never needs read-during-write behaviour and FPGA
// tools map it to block or distributed RAM.
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
  logic [31:0] rdata_a_q, rdata_b_q, fwd_data_q;
  logic        zero_a_q, zero_b_q, fwd_a_q, fwd_b_q;

  always_ff @(posedge clk_i) begin
    if (we_i && waddr_i != 5'd0) regs[waddr_i] <= wdata_i;
  end

  always_ff @(posedge clk_i) begin
    if (re_i) begin
      rdata_a_q  <= regs[raddr_a_i];
      rdata_b_q  <= regs[raddr_b_i];
      zero_a_q   <= (raddr_a_i == 5'd0);
      zero_b_q   <= (raddr_b_i == 5'd0);
      fwd_a_q    <= we_i && (waddr_i == raddr_a_i);
      fwd_b_q    <= we_i && (waddr_i == raddr_b_i);
      fwd_data_q <= wdata_i;
    end
  end

  assign rdata_a_o = zero_a_q ? 32'd0 : (fwd_a_q ? fwd_data_q : rdata_a_q);
  assign rdata_b_o = zero_b_q ? 32'd0 : (fwd_b_q ? fwd_data_q : rdata_b_q);
endmodule
