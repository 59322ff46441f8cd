// Combinational RV32IM arithmetic: the OP/OP-IMM functions and the three high/low multiplies.
// Zero latency, no state. funct3 selects the operation as in the ISA; alt_i is instruction bit 30
// (SUB/SRA) and mul_i selects the M-extension multiplies (funct3 0..3). Division lives in
// tsl_core_div. The signed high products are derived from one 32x32 unsigned multiplier by
// subtracting the sign corrections, so only a single 64-bit product is built, and the three shifts
// share one 33-bit arithmetic right shifter (left shifts bit-reverse its input and output).
module tsl_core_alu #(
  parameter bit MulEnable = 1'b1  // 1: single-cycle multiplier here; 0: none (mul_i must stay low)
) (
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  input  logic [2:0]  funct3_i,
  input  logic        alt_i,     // 1: SUB instead of ADD, SRA instead of SRL
  input  logic        mul_i,     // 1: MUL/MULH/MULHSU/MULHU selected by funct3_i[1:0]
  output logic [31:0] result_o
);
  logic [63:0] prod_uu;
  logic [31:0] hi_su, hi_ss;
  logic [4:0]  shamt;
  logic        shift_left;
  logic [31:0] sh_in, sh_right, sh_left;
  logic [32:0] sh_ext;

  if (MulEnable) begin : g_mul
    assign prod_uu = {32'd0, a_i} * {32'd0, b_i};
    // (a - 2^32*a31) * b = a*b - 2^32*a31*b: subtract b from the high word when a is negative.
    assign hi_su   = prod_uu[63:32] - (a_i[31] ? b_i : 32'd0);
    assign hi_ss   = hi_su - (b_i[31] ? a_i : 32'd0);
  end else begin : g_no_mul
    assign prod_uu = 64'd0;
    assign hi_su   = 32'd0;
    assign hi_ss   = 32'd0;
  end
  assign shamt   = b_i[4:0];

  // One right shifter: SLL = reverse(reverse(a) >> n); SRA fills with the sign via bit 32.
  assign shift_left = (funct3_i == 3'd1);
  always_comb begin
    for (int i = 0; i < 32; i++) sh_in[i] = shift_left ? a_i[31 - i] : a_i[i];
  end
  assign sh_ext   = {alt_i && !shift_left && a_i[31], sh_in};
  assign sh_right = 32'($signed(sh_ext) >>> shamt);
  always_comb begin
    for (int i = 0; i < 32; i++) sh_left[i] = sh_right[31 - i];
  end

  always_comb begin
    result_o = 32'd0;
    if (mul_i) begin
      unique case (funct3_i[1:0])
        2'd0: result_o = prod_uu[31:0];   // MUL
        2'd1: result_o = hi_ss;           // MULH
        2'd2: result_o = hi_su;           // MULHSU
        default: result_o = prod_uu[63:32];  // MULHU
      endcase
    end else begin
      unique case (funct3_i)
        3'd0: result_o = alt_i ? a_i - b_i : a_i + b_i;
        3'd1: result_o = sh_left;
        3'd2: result_o = {31'd0, $signed(a_i) < $signed(b_i)};
        3'd3: result_o = {31'd0, a_i < b_i};
        3'd4: result_o = a_i ^ b_i;
        3'd5: result_o = sh_right;
        3'd6: result_o = a_i | b_i;
        default: result_o = a_i & b_i;
      endcase
    end
  end
endmodule
