// One lane's transcendental unit: EXP, RECIP and RSQRT of an FP32 value in fixed-point arithmetic
// (docs/isa.md "VPU functions"), bit-exact with tslm_f32_exp/recip/rsqrt. Fully pipelined: an
// input every cycle it is enabled (en_i), its result 5 enabled cycles later (tsl_vpu_fn_pkg::LAT,
// which make test-vpu-eup checks), whatever the function; without en_i every stage holds.
//   stage 0  the specials; EXP: |x| log2 e = M LOG2E; RECIP, RSQRT: the table's chord y0
//   stage 1  EXP: t = a log2 e in fixed point, its parts k, i, g, and C3 g;
//            RECIP: r = 1 - m y0; RSQRT: s = y0^2
//   stage 2  EXP: (C2 + .) g; RECIP: y1 = y0 + y0 r; RSQRT: r = 1 - m' s
//   stage 3  EXP: (C1 + .) g = 2^g - 1; RSQRT: y1 = y0 + y0 r / 2
//   stage 4  EXP: y1 = EXP[i] (1 + 2^g - 1); each: the significand rounded, the exponent, the result
// x_i must be canonical (DAZ'd, the canonical NaN). fn_i other than the three gives an unspecified
// result. The widths below hold every value the model computes (its int64 arithmetic): |t| < 2^40,
// q < 2^26, r within +-2^19 (the chord lies above the function, so r is mostly negative).
module tsl_vpu_eup (
  input  logic        clk_i,
  input  logic        en_i,   // the pipeline moves (else every stage holds)
  input  logic [3:0]  fn_i,   // vpu_op_e: EXP, RECIP or RSQRT
  input  logic [31:0] x_i,
  output logic [31:0] y_o     // fn(x) of the input 5 cycles before
);
  localparam int TB = tsl_pkg::VPU_FN_TABLE_BITS;
  localparam int DB = 23 - TB;   // fraction bits below a table index
  localparam int GB = 32 - TB;   // EXP: fraction bits of t below the index
  localparam logic [31:0] QNAN = 32'h7FC0_0000;
  localparam logic [31:0] INF  = 32'h7F80_0000;
  localparam logic [31:0] ONE  = 32'h3F80_0000;

  // The pipeline registers (no reset: datapath), named by the stage that reads them.
  logic [3:0]  fn1, fn2, fn3, fn4;
  logic        sp1, sp2, sp3, sp4;         // the result is a special value
  logic [31:0] spy1, spy2, spy3, spy4;
  logic        sg1, sg2, sg3, sg4;         // the result's sign (EXP: x's, for t)
  logic        ex1, ex2, ex3, ex4;         // RECIP, RSQRT: the result is a power of two, exactly
  logic signed [9:0] be1, be2, be3, be4;   // RECIP, RSQRT: the biased exponent before rounding
  logic [63:0] p1;                         // EXP: M LOG2E
  logic [7:0]  sh1;                        // EXP: its shift to 2^-32
  logic [31:0] y01, y02, y03;              // RECIP, RSQRT: the chord
  logic [23:0] m1, m2;                     // RECIP, RSQRT: the significand 1.f
  logic        odd1, odd2;                 // RSQRT: the unbiased exponent is odd
  logic signed [9:0] k2, k3, k4;           // EXP: floor(t)
  logic [TB-1:0] i2, i3, i4;               // EXP: the table index of t's fraction
  logic [GB-1:0] g2, g3;                   // EXP: the rest of the fraction
  logic [25:0] q2, q3, q4;                 // EXP: the polynomial so far, at 2^-32
  logic signed [20:0] r2, r3;              // RECIP (2), RSQRT (3): 1 - m y0 or 1 - m' y0^2, at 2^-32
  logic [31:0] s2;                         // RSQRT: y0^2 at 2^-32
  logic [31:0] yr3, yr4;                   // RECIP (3), RSQRT (4): y1, the Newton-Raphson step's result

  // ---- stage 0 ---------------------------------------------------------------------------------
  logic [7:0]  e0;
  logic [22:0] f0;
  logic        s0, nan0, zero0, inf0, rs0, odd0, sp0;
  logic [31:0] spy0;
  logic [TB:0] idx0;
  logic [20:0] a0;
  logic [19:0] b0;
  logic [36:0] bd0;
  always_comb begin
    e0    = x_i[30:23];
    f0    = x_i[22:0];
    s0    = x_i[31];
    nan0  = x_i == QNAN;
    zero0 = e0 == 8'd0;
    inf0  = e0 == 8'hFF && !nan0;
    rs0   = fn_i == tsl_pkg::VPU_OP_RSQRT;
    odd0  = !e0[0];
    sp0   = nan0 || zero0 || inf0;
    spy0  = QNAN;
    case (fn_i)
      tsl_pkg::VPU_OP_EXP: begin
        sp0 = sp0 || e0 >= 8'd134;   // |x| >= 128: e^x over- or underflows
        if (zero0)        spy0 = ONE;
        else if (!nan0)   spy0 = s0 ? 32'd0 : INF;
      end
      tsl_pkg::VPU_OP_RECIP: begin
        if (zero0)        spy0 = {s0, INF[30:0]};
        else if (inf0)    spy0 = {s0, 31'd0};
      end
      default: begin   // RSQRT: x < 0 is NaN, -0 is -inf
        sp0 = sp0 || s0;
        if (zero0)        spy0 = {s0, INF[30:0]};
        else if (inf0 && !s0) spy0 = 32'd0;
      end
    endcase
    idx0 = {rs0 && odd0, f0[22 -: TB]};
    a0   = rs0 ? tsl_pkg::VPU_FN_RSQRT_A[21 * idx0 +: 21] : tsl_pkg::VPU_FN_RECIP_A[21 * idx0[TB-1:0] +: 21];
    b0   = rs0 ? tsl_pkg::VPU_FN_RSQRT_B[20 * idx0 +: 20] : tsl_pkg::VPU_FN_RECIP_B[20 * idx0[TB-1:0] +: 20];
    bd0  = 37'(b0) * 37'(f0[DB-1:0]);
  end

  always_ff @(posedge clk_i) if (en_i) begin
    fn1  <= fn_i;
    sp1  <= sp0;
    spy1 <= spy0;
    sg1  <= s0;   // EXP: the sign of t; RECIP: the result's
    ex1  <= f0 == 23'd0 && !(rs0 && odd0);
    // RECIP: 253 - e; RSQRT: 126 - q, q = (e - 127 - odd) / 2
    be1  <= rs0 ? 10'sd126 - ($signed(10'(e0) - 10'd127 - 10'(odd0)) >>> 1) : 10'sd253 - $signed(10'(e0));
    p1   <= 64'({1'b1, f0}) * 64'(tsl_pkg::VPU_FN_LOG2E);
    sh1  <= 8'd157 - e0;
    y01  <= 32'({a0, 12'd0} - 33'(bd0 >> (11 - TB)));
    m1   <= {1'b1, f0};
    odd1 <= odd0;
  end

  // ---- stage 1 ---------------------------------------------------------------------------------
  logic [41:0] tm1;
  logic signed [41:0] t1;
  logic [57:0] q31, ps1;
  logic signed [57:0] rd1;
  always_comb begin
    tm1 = sh1 >= 8'd64 ? 42'd0 : 42'(p1 >> sh1);   // |t| < 2^40
    t1  = sg1 ? 42'd0 - tm1 : tm1;
    q31 = 58'(tsl_pkg::VPU_FN_EXP_C3) * 58'(t1[GB-1:0]);
    ps1 = 58'(m1) * 58'(y01);                       // m y0 at 2^-55
    rd1 = $signed(58'(1) << 55) - $signed(ps1);     // 1 - m y0 at 2^-55
  end

  always_ff @(posedge clk_i) if (en_i) begin
    {fn2, sp2, spy2, sg2, ex2, be2} <= {fn1, sp1, spy1, sg1, ex1, be1};
    k2   <= t1[41:32];
    i2   <= t1[31 -: TB];
    g2   <= t1[GB-1:0];
    q2   <= 26'(q31 >> 32);
    r2   <= 21'(rd1 >>> 23);
    s2   <= 32'((64'(y01) * 64'(y01)) >> 32);
    y02  <= y01;
    m2   <= m1;
    odd2 <= odd1;
  end

  // ---- stage 2 ---------------------------------------------------------------------------------
  logic [57:0] q22, ps2;
  logic signed [53:0] yr2;
  logic signed [57:0] rd2;
  always_comb begin
    q22 = (58'(tsl_pkg::VPU_FN_EXP_C2) + 58'(q2)) * 58'(g2);
    yr2 = $signed({22'd0, y02}) * 54'(r2);
    ps2 = 58'(m2) * 58'(s2);                                              // m' y0^2 at 2^(odd - 55)
    rd2 = ($signed(58'(1) << (55 - 32'(odd2))) - $signed(ps2)) <<< odd2;  // 1 - m' y0^2 at 2^-55
  end

  always_ff @(posedge clk_i) if (en_i) begin
    {fn3, sp3, spy3, sg3, ex3, be3, k3, i3, g3} <= {fn2, sp2, spy2, sg2, ex2, be2, k2, i2, g2};
    q3  <= 26'(q22 >> 32);
    yr3 <= 32'($signed({1'b0, y02}) + 33'(yr2 >>> 32));
    r3  <= 21'(rd2 >>> 23);
    y03 <= y02;
  end

  // ---- stage 3 ---------------------------------------------------------------------------------
  logic [57:0] q13;
  logic signed [53:0] ys3;
  always_comb begin
    q13 = (58'(tsl_pkg::VPU_FN_EXP_C1) + 58'(q3)) * 58'(g3);
    ys3 = $signed({22'd0, y03}) * 54'(r3);
  end

  always_ff @(posedge clk_i) if (en_i) begin
    {fn4, sp4, spy4, sg4, ex4, be4, k4, i4} <= {fn3, sp3, spy3, sg3, ex3, be3, k3, i3};
    q4  <= 26'(q13 >> 32);
    yr4 <= fn3 == tsl_pkg::VPU_OP_RSQRT ? 32'($signed({1'b0, y03}) + 33'(ys3 >>> 33)) : yr3;
  end

  // ---- stage 4 ---------------------------------------------------------------------------------
  logic [31:0] et4, y4;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [24:0] sig4;   // {carry, 1, fraction}
  /* verilator lint_on UNUSEDSIGNAL */
  logic        exp4, carry4, neg4;
  logic signed [10:0] bx4;
  logic [31:0] res4;
  always_comb begin
    exp4   = fn4 == tsl_pkg::VPU_OP_EXP;
    neg4   = sg4 && fn4 == tsl_pkg::VPU_OP_RECIP;
    et4    = tsl_pkg::VPU_FN_EXP[32 * i4 +: 32];
    y4     = exp4 ? 32'(64'(et4) + ((64'(et4) * 64'(q4)) >> 32)) : yr4;
    sig4   = 25'((33'(y4) + 33'd128) >> 8);
    carry4 = sig4[24] || (!exp4 && ex4);
    bx4    = (exp4 ? 11'(k4) + 11'sd127 : 11'(be4)) + 11'(carry4);
    if (sp4)             res4 = spy4;
    else if (bx4 <= 0)   res4 = {neg4, 31'd0};
    else if (bx4 >= 255) res4 = {neg4, INF[30:0]};
    else                 res4 = {neg4, bx4[7:0], carry4 ? 23'd0 : sig4[22:0]};
  end

  always_ff @(posedge clk_i) if (en_i) y_o <= res4;
endmodule
