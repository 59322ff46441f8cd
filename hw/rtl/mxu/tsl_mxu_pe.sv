// One cell of the weight-stationary systolic array: two weight registers (double buffer), a shared
// 9x9 signed multiplier and a partial-sum adder (wrapping int32 add; for bf16, tsl_mxu_fadd_pkg's
// bf16_mul and fp32_add_cell). Pipeline: the activation x_i is multiplied in the cycle it arrives
// (product registered) and passed right one cycle later (x_o); the product is added to psum_i in
// the next cycle and the sum leaves downward as psum_o. So psum_i must arrive one cycle after x_i;
// the array wires it that way. Every register advances only when en_i is high (the array's global
// stall), and only for a valid slot: v_i marks x_i as carrying a row, pv_i the product register
// (v_i one advance later). Invalid slots leave x_o, prod and psum_o stale; no consumer reads them
// (their valid bits are 0). The arithmetic is evaluated only under v_i/pv_i, so a Verilated model
// spends nothing on idle cells (docs/performance.md, "Simulator speed").
// The weight registers are written by wr_en_i/wr_buf_i independently of en_i. No reset: datapath only.
module tsl_mxu_pe #(
  parameter bit EnableBf16 = 1'b1  // 1: int8 and bf16 per row; 0: int8 only (no float logic)
) (
  input  logic        clk_i,
  input  logic        en_i,          // array advances this cycle
  input  logic        v_i,           // x_i carries a row: multiply and pass it on
  input  logic        pv_i,          // the product register holds a row: accumulate it
  // activation from the left, with the weight buffer it uses
  input  logic [15:0] x_i,           // int8 in [7:0], or bf16
  input  logic        xbuf_i,
  output logic [15:0] x_o,
  output logic        xbuf_o,
  // dtype of this row's weight buffers (1: bf16), indexed by buffer
  input  logic [1:0]  row_bf16_i,
  // weight write
  input  logic        wr_en_i,
  input  logic        wr_buf_i,
  input  logic [15:0] wr_data_i,
  // partial sums
  input  logic [31:0] psum_i,
  output logic [31:0] psum_o
);
  logic [15:0] w0_q, w1_q;
  logic [15:0] x_q;
  logic        xbuf_q;
  logic [31:0] prod_q, psum_q;

  // Product: int8 x int8 -> int32 (sign-extended), or bf16 x bf16 -> fp32. One 9x9 signed
  // multiplier serves both: int8 operands sign-extended, bf16 significands (hidden bit) zero-extended.
  function automatic logic [31:0] pe_mul(input logic [15:0] x, input logic [15:0] w, input logic bf16);
    logic [8:0]  ma, mb;
    logic [17:0] mprod;
    ma    = bf16 ? {1'b0, x[14:7] != 8'd0, x[6:0]} : {x[7], x[7:0]};
    mb    = bf16 ? {1'b0, w[14:7] != 8'd0, w[6:0]} : {w[7], w[7:0]};
    mprod = $signed(ma) * $signed(mb);
    pe_mul = {{14{mprod[17]}}, mprod};
    if (bf16) pe_mul = tsl_mxu_fadd_pkg::bf16_mul(x, w, mprod[15:0]);
  endfunction

  // Partial sum: wrapping int32 add, or the MXU's fp32 add. (Both functions assign the int result
  // first and override it under if: Verilator turns an if/else of two assignments, or a ?:, into a
  // select that evaluates an inlined float function whichever side it picks.)
  function automatic logic [31:0] pe_add(input logic [31:0] psum, input logic [31:0] prod, input logic bf16);
    pe_add = psum + prod;
    if (bf16) pe_add = tsl_mxu_fadd_pkg::fp32_add_cell(psum, prod);
  endfunction

  // Deliberately not the usual always_comb + "q <= d": the next-state functions are called here,
  // under the valid bits, so that a Verilated model evaluates them only in cells that carry data
  // (an always_comb would run, or at least assign its defaults, in all N^2 cells every cycle).
  always_ff @(posedge clk_i) begin
    if (en_i && v_i) begin
      x_q    <= x_i;
      xbuf_q <= xbuf_i;
      prod_q <= pe_mul(x_i, xbuf_i ? w1_q : w0_q, EnableBf16 && row_bf16_i[xbuf_i]);
    end
    if (en_i && pv_i) psum_q <= pe_add(psum_i, prod_q, EnableBf16 && row_bf16_i[xbuf_q]);
    if (wr_en_i && !wr_buf_i) w0_q <= wr_data_i;
    if (wr_en_i &&  wr_buf_i) w1_q <= wr_data_i;
  end

  assign x_o    = x_q;
  assign xbuf_o = xbuf_q;
  assign psum_o = psum_q;
endmodule
