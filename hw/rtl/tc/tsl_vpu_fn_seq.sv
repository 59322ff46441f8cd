// Step program of the VPU functions EXP, RECIP, RSQRT and ACT (docs/isa.md "VPU functions"), one
// for all lanes. In each step every lane runs one fp32 multiply or add (on its fmul or fadd) of the
// operands that a_sel_o and b_sel_o pick (OPD_*; c_o is the constant), issues one operand to its
// transcendental unit tsl_vpu_eup (EXP, RECIP or RSQRT: eup_fn_o), or waits; the result goes to the
// step's register dst_o (DST_*) in tsl_vpu_fn, an EUP result LAT cycles after its issue
// (eup_we_o, eup_dst_o), while the set waits. EXP, RECIP and RSQRT are one issue and LAT
// waits; ACT GELU is u = K2 (x^3 C3 + x) into U, U = EXP(U), U = U + 1, U = RECIP(U), then x * U,
// and ACT SILU the same with u = SILU_K x (fmul and fadd steps in docs/isa.md's order). A set's
// steps run in order from step 0 in the cycle its row is read (start_i) to the last (EXP, RECIP,
// RSQRT 1 + LAT steps, GELU 9 + 2 LAT, SILU 5 + 2 LAT),
// after which it is done until its next start. Up to G rows run at once, each in a register set of
// its own: in a cycle the sets run steps on different units (one of the two fmuls, the fadd, the
// EUP, or a wait, which needs none); when more want a kind of unit than there are, the oldest rows
// go first.
// Package and module share this file, the package first, as tsl_vpu_fmul.sv does.
/* verilator lint_off DECLFILENAME */
package tsl_vpu_fn_pkg;
  // Operands of a step
  localparam logic [1:0] OPD_X     = 2'd0;  // the source element x
  localparam logic [1:0] OPD_P     = 2'd1;  // register P
  localparam logic [1:0] OPD_U     = 2'd2;  // register U
  localparam logic [1:0] OPD_CONST = 2'd3;  // c_o
  // Destination register of a step
  localparam logic DST_P = 1'b0;
  localparam logic DST_U = 1'b1;
  // What a step runs
  localparam logic [1:0] K_ADD  = 2'd0;   // the lanes' fadd
  localparam logic [1:0] K_MUL  = 2'd1;   // the lanes' fmul
  localparam logic [1:0] K_EUP  = 2'd2;   // the transcendental unit (a_sel's operand)
  localparam logic [1:0] K_WAIT = 2'd3;   // nothing: an EUP result is on its way
  localparam logic [31:0] ONE = 32'h3F80_0000;
  localparam int LAT = 5;   // tsl_vpu_eup's latency: its pipeline's depth (make test-vpu-eup checks it)

  // A step: {kind, fn (K_EUP), a, b, dst, c}
  function automatic logic [42:0] st(input logic [1:0] kind, input logic [3:0] fn, input logic [1:0] a,
                                     input logic [1:0] b, input logic dst, input logic [31:0] c);
    st = {kind, fn, a, b, dst, c};
  endfunction

  // Step `step` of op `op` (ACT: of function `act`): {last step, step} (see tsl_vpu_fn_seq's ports).
  function automatic logic [43:0] program_step(input logic [3:0] op, input logic [1:0] act, input logic [4:0] step);
    logic [42:0] s;
    logic        last;
    if (op == tsl_pkg::VPU_OP_ACT && act == 2'(tsl_pkg::VPU_ACT_SILU)) begin   // x * RECIP(EXP(u) + 1), u = K x
      last = step == 5'(2 * LAT + 4);
      if (step == 5'd0)                s = st(K_MUL, 4'd0, OPD_X, OPD_CONST, DST_U, tsl_pkg::VPU_FN_SILU_K);
      else if (step == 5'd1)           s = st(K_EUP, tsl_pkg::VPU_OP_EXP, OPD_U, OPD_U, DST_U, 32'd0);
      else if (step == 5'(LAT + 2))    s = st(K_ADD, 4'd0, OPD_U, OPD_CONST, DST_U, ONE);
      else if (step == 5'(LAT + 3))    s = st(K_EUP, tsl_pkg::VPU_OP_RECIP, OPD_U, OPD_U, DST_U, 32'd0);
      else if (step == 5'(2 * LAT + 4)) s = st(K_MUL, 4'd0, OPD_X, OPD_U, DST_P, 32'd0);
      else                             s = st(K_WAIT, 4'd0, OPD_P, OPD_P, DST_P, 32'd0);
    end else if (op == tsl_pkg::VPU_OP_ACT) begin   // GELU: x * RECIP(EXP(u) + 1), u = K2 (x^3 C3 + x)
      last = step == 5'(2 * LAT + 8);
      if (step == 5'd0)                s = st(K_MUL, 4'd0, OPD_X, OPD_X, DST_P, 32'd0);
      else if (step == 5'd1)           s = st(K_MUL, 4'd0, OPD_P, OPD_X, DST_P, 32'd0);
      else if (step == 5'd2)           s = st(K_MUL, 4'd0, OPD_P, OPD_CONST, DST_P, tsl_pkg::VPU_FN_GELU_C3);
      else if (step == 5'd3)           s = st(K_ADD, 4'd0, OPD_P, OPD_X, DST_P, 32'd0);
      else if (step == 5'd4)           s = st(K_MUL, 4'd0, OPD_P, OPD_CONST, DST_U, tsl_pkg::VPU_FN_GELU_K2);
      else if (step == 5'd5)           s = st(K_EUP, tsl_pkg::VPU_OP_EXP, OPD_U, OPD_U, DST_U, 32'd0);
      else if (step == 5'(LAT + 6))    s = st(K_ADD, 4'd0, OPD_U, OPD_CONST, DST_U, ONE);
      else if (step == 5'(LAT + 7))    s = st(K_EUP, tsl_pkg::VPU_OP_RECIP, OPD_U, OPD_U, DST_U, 32'd0);
      else if (step == 5'(2 * LAT + 8)) s = st(K_MUL, 4'd0, OPD_X, OPD_U, DST_P, 32'd0);
      else                             s = st(K_WAIT, 4'd0, OPD_P, OPD_P, DST_P, 32'd0);
    end else begin   // EXP, RECIP, RSQRT of x into P
      last = step == 5'(LAT);
      s    = step == 5'd0 ? st(K_EUP, op, OPD_X, OPD_X, DST_P, 32'd0) : st(K_WAIT, 4'd0, OPD_P, OPD_P, DST_P, 32'd0);
    end
    program_step = {last, s};
  endfunction
endpackage
/* verilator lint_on DECLFILENAME */

module tsl_vpu_fn_seq #(
  parameter int G = tsl_pkg::PARAM_VPU_FN_ROWS   // register sets: rows in flight, 2..8
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic [G-1:0] start_i, // set k's row is read: its program starts (step 0 may run this cycle)
  input  logic [$clog2(G)-1:0] oldest_i,   // the set of the oldest row (sets hold rows in ring order)
  input  logic [3:0]  op_i,     // vpu_op_e: EXP, RECIP, RSQRT or ACT (held during an instruction)
  input  logic [1:0]  act_i,    // ACT: its function, vpu_act_e (held likewise)
  output logic [G-1:0] done_o,  // set k's program has ended: P holds its result (until its next start)
  // Per register set k (bits of set k at [k], [2k +: 2], ...):
  output logic [G-1:0]    we_o,     // set k's fmul or fadd step runs in this cycle: write its result
  output logic [G-1:0]    mul_o,    // 1: that step is an fmul, 0: an fadd
  output logic [2*G-1:0]  a_sel_o,  // OPD_*
  output logic [2*G-1:0]  b_sel_o,  // OPD_*
  output logic [G-1:0]    dst_o,    // DST_*
  output logic [32*G-1:0] c_o,      // the step's FP32 constant (OPD_CONST)
  // The set whose step takes the lanes' fmul, their second fmul (with mul2_go_o), and their fadd,
  // in this cycle (when one does)
  output logic [$clog2(G)-1:0] mul_set_o,
  output logic        mul2_go_o,
  output logic [$clog2(G)-1:0] mul2_set_o,
  output logic [$clog2(G)-1:0] add_set_o,
  // The lanes' transcendental unit: an issue from set eup_set_o, and a result for a set
  output logic        eup_go_o,   // issue set eup_set_o's operand a to the EUP in this cycle
  output logic [$clog2(G)-1:0] eup_set_o,
  output logic [3:0]  eup_fn_o,   // EXP, RECIP or RSQRT
  output logic [G-1:0] eup_we_o,  // set k: write the EUP's result (issued LAT cycles ago) ...
  output logic        eup_dst_o   // ... to this register
);
  localparam int LAT = tsl_vpu_fn_pkg::LAT;
  localparam int GW  = $clog2(G);

  logic [4:0]   step_q [G];
  logic [4:0]   step [G];           // this cycle's step of each set (0 as it starts)
  logic [GW-1:0] age [G];           // set k's row's place after the oldest row's (0: the oldest)
  logic [1:0]   older [G];          // sets of older rows that want the same kind of unit (at most 2)
  logic [G-1:0] run_q, done_q, last, go, want;
  logic [2*G-1:0] kind;   // set k's at [2k +: 2]: K_*
  logic [4*G-1:0] fn;     // set k's at [4k +: 4]
  logic [LAT-1:0] tv_q, td_q;       // EUP results on their way: valid, destination (oldest at LAT-1)
  logic [LAT*GW-1:0] ts_q;          // and set (oldest at the top)

  always_comb begin
    for (int k = 0; k < G; k++) begin
      step[k] = start_i[k] ? 5'd0 : step_q[k];
      {last[k], kind[2*k +: 2], fn[4*k +: 4], a_sel_o[2*k +: 2], b_sel_o[2*k +: 2], dst_o[k], c_o[32*k +: 32]} =
          tsl_vpu_fn_pkg::program_step(op_i, act_i, step[k]);
      mul_o[k] = kind[2*k +: 2] == tsl_vpu_fn_pkg::K_MUL;
      want[k]  = start_i[k] || run_q[k];
    end
    // The sets share the lanes' two fmuls, fadd and EUP: when more want a kind than there are, the
    // sets of the oldest rows take them, so that rows end in the order they are written. A wait
    // needs no unit.
    for (int k = 0; k < G; k++)
      age[k] = 32'(k) >= 32'(oldest_i) ? GW'(32'(k) - 32'(oldest_i)) : GW'(32'(k) + G - 32'(oldest_i));
    for (int k = 0; k < G; k++) begin
      older[k] = '0;
      for (int j = 0; j < G; j++)
        if (j != k && want[j] && kind[2*j +: 2] == kind[2*k +: 2] && age[j] < age[k] && older[k] != 2'd2)
          older[k] = older[k] + 2'd1;
      go[k] = want[k] && (kind[2*k +: 2] == tsl_vpu_fn_pkg::K_WAIT || older[k] == 2'd0 ||
                          (kind[2*k +: 2] == tsl_vpu_fn_pkg::K_MUL && older[k] == 2'd1));
    end
    mul_set_o  = '0;
    mul2_set_o = '0;
    mul2_go_o  = 1'b0;
    add_set_o  = '0;
    eup_set_o  = '0;
    eup_go_o   = 1'b0;
    for (int k = 0; k < G; k++) begin
      we_o[k] = go[k] && (kind[2*k +: 2] == tsl_vpu_fn_pkg::K_ADD || kind[2*k +: 2] == tsl_vpu_fn_pkg::K_MUL);
      if (go[k] && kind[2*k +: 2] == tsl_vpu_fn_pkg::K_MUL && older[k] == 2'd0) mul_set_o = GW'(k);
      if (go[k] && kind[2*k +: 2] == tsl_vpu_fn_pkg::K_MUL && older[k] == 2'd1) begin
        mul2_set_o = GW'(k);
        mul2_go_o  = 1'b1;
      end
      if (go[k] && kind[2*k +: 2] == tsl_vpu_fn_pkg::K_ADD) add_set_o = GW'(k);
      if (go[k] && kind[2*k +: 2] == tsl_vpu_fn_pkg::K_EUP) begin
        eup_set_o = GW'(k);
        eup_go_o  = 1'b1;
      end
    end
    eup_fn_o  = fn[4*eup_set_o +: 4];
    for (int k = 0; k < G; k++) eup_we_o[k] = tv_q[LAT-1] && ts_q[(LAT-1)*GW +: GW] == GW'(k);
    eup_dst_o = td_q[LAT-1];
  end
  assign done_o = done_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int k = 0; k < G; k++) step_q[k] <= '0;
      run_q  <= '0;
      done_q <= '0;
      tv_q   <= '0;
    end else begin
      for (int k = 0; k < G; k++) step_q[k] <= step[k] + {4'd0, go[k]};
      run_q  <= want & ~(go & last);
      done_q <= (done_q & ~start_i) | (go & last);
      tv_q   <= {tv_q[LAT-2:0], eup_go_o};
    end
  end

  always_ff @(posedge clk_i) begin
    ts_q <= {ts_q[(LAT-1)*GW-1:0], eup_set_o};
    td_q <= {td_q[LAT-2:0], dst_o[eup_set_o]};
  end

  // Assertions
  `include "hw/rtl/tsl_assert.svh"
  `TSL_ASSERT_INIT(FnRowsRange, G >= 2 && G <= 8, "G (VPU_FN_ROWS) is 2 to 8")
  `TSL_ASSERT(FnOp, want != '0 |-> op_i == tsl_pkg::VPU_OP_EXP || op_i == tsl_pkg::VPU_OP_RECIP ||
                                   op_i == tsl_pkg::VPU_OP_RSQRT || op_i == tsl_pkg::VPU_OP_ACT,
              "the step program runs the VPU functions only")
  `TSL_ASSERT(FnStartFree, (start_i & run_q) == '0, "a set starts a row only when it runs none")
  `TSL_ASSERT(FnOneUnitEach, $countones(we_o & mul_o) <= 2 && $countones(we_o & ~mul_o) <= 1,
              "no three sets take the two fmuls, nor two the fadd, in one cycle")
  `TSL_ASSERT(FnEupInTime, (eup_we_o & ~run_q) == '0, "every EUP result is written while its set runs")
endmodule
