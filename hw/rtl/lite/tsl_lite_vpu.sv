// VPU unit of the lite tensor core (tsl_lite_core), integer types (INT8, INT32): every VPU_VEC op,
// one element at a time. A row is computed into an N-word row buffer (block RAM), then written, so
// a destination may overlap its sources as in the model. A reduction keeps its running value in
// the src2 register (RSUM from 0, RMAX from the row's first element). Unary ops have SRC2 0 (a
// dispatch check), so MOV is a + 0 and RELU is max(a, 0). MUL and REQUANT use the iterative
// tsl_lite_mul, which also shifts REQUANT's product by SHIFT-1; one adder then rounds (carry in),
// adds ZERO_POINT and saturates. Latency per element: 3-4 cycles to compute (MUL about 36,
// REQUANT about 36+SHIFT), one to write, plus one per row.
module tsl_lite_vpu #(
  parameter int N   = 4,   // lanes: elements per row
  parameter int LAw = 14   // local offset bits; local port addresses are {ACC select, offset}
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic         ex_valid_i,
  output logic         ex_ready_o,
  input  logic [255:0] ex_insn_i,     // holds from the handshake until done_o
  output logic         done_o,
  output logic         busy_o,
  // local port: one address; read data one cycle after lrd_o
  output logic         lrd_o,
  output logic         lwr_o,
  output logic [LAw:0] laddr_o,
  input  logic [31:0]  lrdata_i,
  output logic [31:0]  lwdata_o,
  output logic [3:0]   lbe_o
);
  localparam int Jw = $clog2(N);
  localparam logic [2:0] StIdle = 3'd0, StRd = 3'd1, StA = 3'd2, StB = 3'd3, StOp = 3'd4, StMul = 3'd5,
                         StWrRd = 3'd6, StWr = 3'd7;

  logic [2:0]    state_q, state_d;
  logic [LAw:0]  p1_q, p1_d, p2_q, p2_d, pd_q, pd_d;   // {ACC select (bit 24), offset}: rows stay inside
  logic [15:0]   row_q, row_d;       // rows left
  logic [Jw-1:0] j_q, j_d;
  logic [31:0]   a_q, a_d, b_q, b_d;

`include "hw/rtl/tsl_insn.svh"
  /* verilator lint_off UNUSEDSIGNAL */
  insn_vpu_vec_t insn;   // header, tokens and reserved bits are the controller's
  /* verilator lint_on UNUSEDSIGNAL */
  assign insn = ex_insn_i;

  // Fields of the running instruction.
  logic [3:0]  op;
  logic [1:0]  dd, d1, d2;
  logic [31:0] s2, zp;
  logic [5:0]  shift;
  logic        unary, reduce, mul, use_b;
  assign op     = insn.op;
  assign dd     = insn.dst_dtype;
  assign d1     = insn.src1_dtype;
  assign d2     = insn.src2_dtype;
  assign s2     = insn.src2_addr;
  assign zp     = insn.zero_point;
  assign shift  = insn.shift;
  assign reduce = op == 4'(tsl_pkg::VPU_OP_RSUM) || op == 4'(tsl_pkg::VPU_OP_RMAX);
  assign mul    = op == 4'(tsl_pkg::VPU_OP_MUL) || op == 4'(tsl_pkg::VPU_OP_REQUANT);
  assign unary  = reduce || op == 4'(tsl_pkg::VPU_OP_RELU) || op == 4'(tsl_pkg::VPU_OP_MOV) ||
                  op == 4'(tsl_pkg::VPU_OP_REQUANT);
  assign use_b  = !unary && insn.src2_mode != 2'(tsl_pkg::SRC2_IMM);

  function automatic logic [LAw:0] size(input logic [1:0] dt);
    size = dt == tsl_pkg::DTYPE_INT8 ? (LAw+1)'(1) : (LAw+1)'(4);
  endfunction

  // The element read last cycle: src1 in StA, src2 in StB (INT8 sign-extended).
  logic [1:0]  el_dt, el_lane;
  logic [7:0]  el_b;
  logic [31:0] el;
  assign el_dt   = state_q == StB ? d2 : d1;
  assign el_lane = state_q == StB ? p2_q[1:0] : p1_q[1:0];
  assign el_b    = lrdata_i[8*el_lane +: 8];
  assign el      = el_dt == tsl_pkg::DTYPE_INT8 ? {{24{el_b[7]}}, el_b} : lrdata_i;

  // ALU: one adder (ADD, RSUM, MOV) and one signed maximum (MAX, RELU, RMAX).
  logic [31:0] sum, max, alu;
  assign sum = a_q + b_q;
  assign max = $signed(a_q) > $signed(b_q) ? a_q : b_q;
  assign alu = op == 4'(tsl_pkg::VPU_OP_ADD) || op == 4'(tsl_pkg::VPU_OP_RSUM) ||
               op == 4'(tsl_pkg::VPU_OP_MOV) ? sum : max;

  // MUL and REQUANT: prod = a*b, or a*SCALE >>> SHIFT-1. REQUANT = (prod >>> 1) + prod[0] +
  // ZERO_POINT (just prod + ZERO_POINT when SHIFT is 0), saturated; a prod outside 37 bits
  // saturates whatever the rest.
  logic        mul_start, mul_done, rq_big;
  logic [63:0] prod;
  logic [36:0] rq_op;
  logic [37:0] rq_sum;
  logic [31:0] rq;
  tsl_lite_mul u_mul (
    .clk_i,
    .rst_ni,
    .start_i(mul_start),
    .a_i    (a_q),
    .b_i    (op == 4'(tsl_pkg::VPU_OP_MUL) ? b_q : insn.scale),
    .shift_i(op == 4'(tsl_pkg::VPU_OP_REQUANT) && shift != 6'd0 ? shift - 6'd1 : 6'd0),
    .done_o (mul_done),
    .p_o    (prod)
  );
  assign rq_big = !(prod[63:36] == '0 || prod[63:36] == '1);
  assign rq_op  = shift == 6'd0 ? prod[36:0] : {prod[36], prod[36:1]};
  assign rq_sum = {rq_op[36], rq_op} + {{6{zp[31]}}, zp} + 38'(shift != 6'd0 && prod[0]);
  assign rq     = rq_big ? (prod[63] ? 32'h8000_0000 : 32'h7FFF_FFFF) :
                  rq_sum[37:31] == '0 || rq_sum[37:31] == '1 ? rq_sum[31:0] :
                  rq_sum[37] ? 32'h8000_0000 : 32'h7FFF_FFFF;

  // Row buffer: results in, then out to the destination.
  logic          rb_req, rb_we;
  logic [31:0]   res, rb_rdata, wval;
  logic [Jw-1:0] rb_addr;
  tsl_prim_ram #(.Depth(N), .Width(32)) u_row (
    .clk_i,
    .req_i  (rb_req),
    .we_i   (rb_we),
    .addr_i (rb_addr),
    .wdata_i(res),
    .be_i   (4'hF),
    .rdata_o(rb_rdata)
  );

  // The destination element: INT8 saturates.
  logic [7:0] sat8;
  assign wval     = reduce ? b_q : rb_rdata;
  assign sat8     = wval[31:7] == '0 || wval[31:7] == '1 ? wval[7:0] : wval[31] ? 8'h80 : 8'h7F;
  assign lwdata_o = dd == tsl_pkg::DTYPE_INT8 ? {4{sat8}} : wval;
  assign lbe_o    = dd == tsl_pkg::DTYPE_INT8 ? 4'b0001 << pd_q[1:0] : 4'hF;

  assign ex_ready_o = state_q == StIdle;
  assign busy_o     = state_q != StIdle;

  always_comb begin
    state_d   = state_q;
    p1_d      = p1_q;
    p2_d      = p2_q;
    pd_d      = pd_q;
    row_d     = row_q;
    j_d       = j_q;
    a_d       = a_q;
    b_d       = b_q;
    done_o    = 1'b0;
    lrd_o     = 1'b0;
    lwr_o     = 1'b0;
    laddr_o   = p1_q;
    mul_start = 1'b0;
    res       = op == 4'(tsl_pkg::VPU_OP_MUL) ? prod[31:0] : mul ? rq : alu;
    rb_req    = 1'b0;
    rb_we     = 1'b0;
    rb_addr   = j_q;
    unique case (state_q)
      StIdle: if (ex_valid_i) begin
        pd_d    = {insn.dst_addr[24],
                   insn.dst_addr[LAw-1:0]};
        p1_d    = {insn.src1_addr[24],
                   insn.src1_addr[LAw-1:0]};
        p2_d    = {s2[24], s2[LAw-1:0]};
        row_d   = insn.rows;
        j_d     = '0;
        state_d = StRd;
      end
      StRd: begin
        lrd_o   = 1'b1;
        state_d = StA;
      end
      StA: begin     // src1 arrives; src2 is read, or is the immediate, or the running reduction
        a_d     = el;
        p1_d    = p1_q + size(d1);
        lrd_o   = use_b;
        laddr_o = p2_q;
        if (!reduce || (j_q == '0 && op == 4'(tsl_pkg::VPU_OP_RSUM))) b_d = s2;
        else if (j_q == '0) b_d = el;   // RMAX
        state_d = use_b ? StB : StOp;
      end
      StB: begin
        b_d     = el;
        p2_d    = p2_q + size(d2);
        state_d = StOp;
      end
      StOp: begin
        mul_start = mul;
        state_d   = StMul;
      end
      StMul: if (!mul || mul_done) begin   // the result of element j
        rb_req  = 1'b1;
        rb_we   = 1'b1;
        if (reduce) b_d = alu;
        j_d     = j_q + Jw'(1);
        state_d = j_q == Jw'(N - 1) ? (reduce ? StWr : StWrRd) : StRd;
      end
      StWrRd: begin  // the first buffered result
        rb_req  = 1'b1;
        state_d = StWr;
      end
      StWr: begin    // element j out; the next one is read from the buffer
        lwr_o   = 1'b1;
        laddr_o = pd_q;
        pd_d    = pd_q + size(dd);
        j_d     = j_q + Jw'(1);
        rb_req  = 1'b1;
        rb_addr = j_q + Jw'(1);
        if (j_q == Jw'(N - 1)) begin
          row_d   = row_q - 16'd1;
          state_d = StRd;
          if (insn.src2_mode == 2'(tsl_pkg::SRC2_BCAST))
            p2_d = {s2[24], s2[LAw-1:0]};
          if (row_q == 16'd1) begin
            done_o  = 1'b1;
            state_d = StIdle;
          end
        end
      end
      default: state_d = StIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      p1_q    <= '0;
      p2_q    <= '0;
      pd_q    <= '0;
      row_q   <= '0;
      j_q     <= '0;
      a_q     <= '0;
      b_q     <= '0;
    end else begin
      state_q <= state_d;
      p1_q    <= p1_d;
      p2_q    <= p2_d;
      pd_q    <= pd_d;
      row_q   <= row_d;
      j_q     <= j_d;
      a_q     <= a_d;
      b_q     <= b_d;
    end
  end

endmodule
