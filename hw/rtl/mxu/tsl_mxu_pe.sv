// One cell of the weight-stationary systolic array: two weight registers (double buffer), a shared
// 9x9 signed multiplier and a partial-sum adder (wrapping int32 add, or tsl_mxu_fadd for bf16).
// Pipeline: the activation x_i is multiplied in the cycle it arrives (product registered) and
// passed right one cycle later (x_o); the product is added to psum_i in the next cycle and the sum
// leaves downward as psum_o. So psum_i must arrive one cycle after x_i; the array wires it that way.
// Every register advances only when en_i is high (the array's global stall). The weight registers
// are written by wr_en_i/wr_buf_i independently of en_i. No reset: datapath only.
module tsl_mxu_pe #(
  parameter bit EnableBf16 = 1'b1  // 1: int8 and bf16 per row; 0: int8 only (no float logic)
) (
  input  logic        clk_i,
  input  logic        en_i,          // array advances this cycle
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
  /* verilator no_inline_module */
  logic [15:0] w0_q, w1_q, w_cur;
  logic [15:0] x_q;
  logic        xbuf_q;
  logic [31:0] prod_d, prod_q, psum_d, psum_q;
  logic [31:0] sum_int;

  assign w_cur   = xbuf_i ? w1_q : w0_q;
  assign sum_int = psum_i + prod_q;

  if (EnableBf16) begin : g_bf16
    logic        bf16_mul, bf16_add;
    logic [8:0]  ma, mb;
    logic [17:0] mprod;
    logic        xs, ws, x_zero, w_zero, x_inf, w_inf, x_nan, w_nan;
    logic [9:0]  e_p;
    logic [31:0] fprod, sum_fp;

    assign bf16_mul = row_bf16_i[xbuf_i];
    assign bf16_add = row_bf16_i[xbuf_q];

    always_comb begin
      // Shared multiplier: int8 operands sign-extended, bf16 significands (hidden bit) zero-extended.
      ma    = bf16_mul ? {1'b0, x_i[14:7] != 8'd0, x_i[6:0]} : {x_i[7], x_i[7:0]};
      mb    = bf16_mul ? {1'b0, w_cur[14:7] != 8'd0, w_cur[6:0]} : {w_cur[7], w_cur[7:0]};
      mprod = $signed(ma) * $signed(mb);

      // bf16 x bf16 -> fp32, exact except overflow (Inf) and underflow (FTZ), as tslm_f32_mul.
      xs     = x_i[15];
      ws     = w_cur[15];
      x_zero = x_i[14:7] == 8'd0;
      w_zero = w_cur[14:7] == 8'd0;
      x_inf  = x_i[14:7] == 8'hFF && x_i[6:0] == 7'd0;
      w_inf  = w_cur[14:7] == 8'hFF && w_cur[6:0] == 7'd0;
      x_nan  = x_i[14:7] == 8'hFF && x_i[6:0] != 7'd0;
      w_nan  = w_cur[14:7] == 8'hFF && w_cur[6:0] != 7'd0;
      e_p    = {2'b00, x_i[14:7]} + {2'b00, w_cur[14:7]} - 10'd127 + {9'd0, mprod[15]};
      if (x_nan || w_nan || (x_inf && w_zero) || (x_zero && w_inf)) begin
        fprod = 32'h7FC0_0000;
      end else if (x_inf || w_inf || (!e_p[9] && e_p >= 10'd255)) begin
        fprod = {xs ^ ws, 8'hFF, 23'd0};
      end else if (x_zero || w_zero || e_p[9] || e_p == 10'd0) begin
        fprod = {xs ^ ws, 31'd0};
      end else begin
        fprod = {xs ^ ws, e_p[7:0], mprod[15] ? {mprod[14:0], 8'd0} : {mprod[13:0], 9'd0}};
      end
      prod_d = bf16_mul ? fprod : {{14{mprod[17]}}, mprod};
    end

    tsl_mxu_fadd u_fadd (
      .a_i(psum_i),
      .b_i(prod_q),
      .y_o(sum_fp)
    );

    assign psum_d = bf16_add ? sum_fp : sum_int;
  end else begin : g_int8
    logic [15:0] mprod;
    assign mprod  = $signed(x_i[7:0]) * $signed(w_cur[7:0]);
    assign prod_d = {{16{mprod[15]}}, mprod};
    assign psum_d = sum_int;
    logic unused_ok;
    assign unused_ok = ^{row_bf16_i, x_i[15:8], w_cur[15:8]};
  end

  always_ff @(posedge clk_i) begin
    if (en_i) begin
      x_q    <= x_i;
      xbuf_q <= xbuf_i;
      prod_q <= prod_d;
      psum_q <= psum_d;
    end
    if (wr_en_i && !wr_buf_i) w0_q <= wr_data_i;
    if (wr_en_i &&  wr_buf_i) w1_q <= wr_data_i;
  end

  assign x_o    = x_q;
  assign xbuf_o = xbuf_q;
  assign psum_o = psum_q;
endmodule
