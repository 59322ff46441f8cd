// Iterative RV32M unit: DIV/DIVU/REM/REMU by restoring division and, when IterMul = 1, also
// MUL/MULH/MULHSU/MULHU by shift-and-add (for FPGAs without spare DSPs, e.g. iCE40).
// Latency: start_i for one cycle, then done_o is high for one cycle with result_o valid: 33 cycles
// after start for divides and 35 for multiplies; one operation at a time (start_i is ignored while
// busy). Operands are sampled at start_i. Division by zero and INT_MIN/-1 give the ISA-defined
// results. A single 33-bit adder serves every step, including the signed-multiply corrections.
module tsl_core_muldiv #(
  parameter bit IterMul = 1'b0  // 1: this unit multiplies too; 0: multiplies are done in the ALU
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        start_i,
  input  logic        is_div_i,   // 1: divide/remainder (funct3[2] = 1), 0: multiply
  input  logic [31:0] a_i,        // rs1
  input  logic [31:0] b_i,        // rs2
  input  logic [1:0]  funct3_i,   // funct3[1:0] (DIV, DIVU, REM, REMU / MUL, MULH, MULHSU, MULHU)
  output logic        done_o,
  output logic [31:0] result_o
);
  // Phases after the 32 iteration steps: two multiply corrections, then the result cycle.
  localparam logic [5:0] StepCorrA = 6'd34, StepCorrB = 6'd33, StepDone = 6'd0;

  logic        busy_q, busy_d;
  logic [5:0]  count_q, count_d;      // counts down; 32 iteration steps end at 1
  logic [31:0] hi_q, hi_d;            // remainder / high product
  logic [31:0] lo_q, lo_d;            // quotient (shifting dividend) / low product (multiplier)
  logic [31:0] opa_q, opa_d, opb_q, opb_d;
  logic        div_q, div_d, neg_q, neg_d, want_hi_q, want_hi_d, div0_q, div0_d;
  logic        corr_a_q, corr_a_d, corr_b_q, corr_b_d;
  logic        sgn;
  logic [32:0] add_x, add_y, add_sum;
  logic        add_sub;
  logic [31:0] res_raw;

  assign sgn = ~funct3_i[0];

  // Shared adder: x + y (or x - y).
  assign add_sum = add_x + (add_sub ? ~add_y : add_y) + {32'd0, add_sub};

  always_comb begin
    add_x   = {hi_q, lo_q[31]};        // division: shifted partial remainder
    add_y   = {1'b0, opb_q};           // divisor
    add_sub = 1'b1;
    if (!div_q) begin
      if (count_q == StepCorrA || count_q == StepCorrB) begin
        // MULH/MULHSU: hi -= a31 ? b : 0, then MULH: hi -= b31 ? a : 0.
        add_x = {1'b0, hi_q};
        add_y = (count_q == StepCorrA) ? {1'b0, opb_q} : {1'b0, opa_q};
      end else begin
        add_x   = {1'b0, hi_q};
        add_y   = lo_q[0] ? {1'b0, opa_q} : 33'd0;
        add_sub = 1'b0;
      end
    end
  end

  always_comb begin
    busy_d    = busy_q;
    count_d   = count_q;
    hi_d      = hi_q;
    lo_d      = lo_q;
    opa_d     = opa_q;
    opb_d     = opb_q;
    div_d     = div_q;
    neg_d     = neg_q;
    want_hi_d = want_hi_q;
    div0_d    = div0_q;
    corr_a_d  = corr_a_q;
    corr_b_d  = corr_b_q;
    done_o    = 1'b0;
    if (!busy_q) begin
      if (start_i) begin
        busy_d  = 1'b1;
        count_d = 6'd32;
        hi_d    = 32'd0;
        div_d   = is_div_i;
        if (is_div_i) begin
          lo_d      = (sgn && a_i[31]) ? -a_i : a_i;
          opb_d     = (sgn && b_i[31]) ? -b_i : b_i;
          opa_d     = a_i;                        // kept for the division-by-zero remainder
          neg_d     = funct3_i[1] ? (sgn && a_i[31]) : (sgn && (a_i[31] ^ b_i[31]));
          want_hi_d = funct3_i[1];
          div0_d    = (b_i == 32'd0);
        end else begin
          lo_d      = b_i;
          opa_d     = a_i;
          opb_d     = b_i;
          neg_d     = 1'b0;
          want_hi_d = (funct3_i != 2'd0);
          div0_d    = 1'b0;
          corr_a_d  = (funct3_i == 2'd1 || funct3_i == 2'd2) && a_i[31];  // MULH, MULHSU
          corr_b_d  = (funct3_i == 2'd1) && b_i[31];                      // MULH
        end
      end
    end else if (count_q == StepDone) begin
      busy_d = 1'b0;
      done_o = 1'b1;
    end else if (count_q > 6'd32) begin
      // Multiply corrections (only reached for multiplies).
      if (count_q == StepCorrA ? corr_a_q : corr_b_q) hi_d = add_sum[31:0];
      count_d = (count_q == StepCorrA) ? StepCorrB : StepDone;
    end else begin
      if (div_q) begin
        if (!add_sum[32]) begin
          hi_d = add_sum[31:0];
          lo_d = {lo_q[30:0], 1'b1};
        end else begin
          hi_d = add_x[31:0];
          lo_d = {lo_q[30:0], 1'b0};
        end
      end else begin
        hi_d = add_sum[32:1];
        lo_d = {add_sum[0], lo_q[31:1]};
      end
      count_d = count_q - 6'd1;
      if (count_q == 6'd1) count_d = div_q ? StepDone : StepCorrA;
    end
  end

  // Result: one shared negation for signed division; division by zero bypasses it.
  assign res_raw = want_hi_q ? hi_q : lo_q;
  always_comb begin
    if (div0_q)     result_o = want_hi_q ? opa_q : 32'hffff_ffff;
    else if (neg_q) result_o = -res_raw;
    else            result_o = res_raw;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) busy_q <= 1'b0;
    else         busy_q <= busy_d;
  end

  // Datapath registers are not reset.
  always_ff @(posedge clk_i) begin
    count_q   <= count_d;
    hi_q      <= hi_d;
    lo_q      <= lo_d;
    opa_q     <= opa_d;
    opb_q     <= opb_d;
    div_q     <= div_d;
    neg_q     <= neg_d;
    want_hi_q <= want_hi_d;
    div0_q    <= div0_d;
    corr_a_q  <= corr_a_d;
    corr_b_q  <= corr_b_d;
  end

  // IterMul only changes which instructions the core sends here.
  logic unused_param;
  assign unused_param = IterMul;
endmodule
