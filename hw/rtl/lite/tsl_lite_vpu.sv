// VPU unit of the lite tensor core (tsl_lite_tc), integer types (INT8, INT32): every VPU_VEC op,
// one element at a time. A row is read and computed element by element into a row buffer, then
// written, so a destination may overlap its sources as in the model. MUL and REQUANT use the
// iterative tsl_lite_mul, which also shifts REQUANT's product; rounding, ZERO_POINT and saturation
// follow in its last cycle. Latency per element: 3-4 cycles, MUL about 36, REQUANT about 36+SHIFT;
// plus one cycle per element written.
module tsl_lite_vpu #(
  parameter int N   = 4,   // lanes: elements per row
  parameter int LAw = 14   // local offset bits; local port addresses are {ACC select, offset}
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic         ex_valid_i,
  output logic         ex_ready_o,
  input  logic [255:0] ex_insn_i,
  output logic         done_o,
  output logic         busy_o,
  // local port (tsl_lite_tc): byte addresses, 32-bit words, read data one cycle after lrd_o
  output logic         lrd_o,
  output logic [LAw:0] lraddr_o,
  input  logic [31:0]  lrdata_i,
  output logic         lwr_o,
  output logic [LAw:0] lwaddr_o,
  output logic [31:0]  lwdata_o,
  output logic [3:0]   lbe_o
);
  localparam int Jw = $clog2(N);
  localparam logic [2:0] StIdle = 3'd0, StRd = 3'd1, StA = 3'd2, StB = 3'd3, StOp = 3'd4, StMul = 3'd5,
                         StWr = 3'd6;

  logic [2:0]  state_q, state_d;

  logic [LAw:0] p1_q, p1_d, p2_q, p2_d, pd_q, pd_d;   // {ACC select (bit 24), offset}: rows stay inside
  logic [15:0] row_q, row_d;

  // Fields of the running instruction (ex_insn_i holds from the handshake until done_o).
  logic [3:0]  op_q;
  logic [1:0]  dd_q, d1_q, d2_q, mode_q;
  logic [31:0] s2_q, scale_q, zp_q;
  logic [5:0]  shift_q;
  logic [15:0] rows_q;
  assign op_q    = ex_insn_i[tsl_pkg::INSN_HDR_OP_LSB +: 4];
  assign dd_q    = ex_insn_i[tsl_pkg::INSN_VPU_VEC_DST_DTYPE_LSB +: 2];
  assign d1_q    = ex_insn_i[tsl_pkg::INSN_VPU_VEC_SRC1_DTYPE_LSB +: 2];
  assign d2_q    = ex_insn_i[tsl_pkg::INSN_VPU_VEC_SRC2_DTYPE_LSB +: 2];
  assign mode_q  = ex_insn_i[tsl_pkg::INSN_VPU_VEC_SRC2_MODE_LSB +: 2];
  assign s2_q    = ex_insn_i[tsl_pkg::INSN_VPU_VEC_SRC2_ADDR_LSB +: 32];
  assign scale_q = ex_insn_i[tsl_pkg::INSN_VPU_VEC_SCALE_LSB +: 32];
  assign shift_q = ex_insn_i[tsl_pkg::INSN_VPU_VEC_SHIFT_LSB +: 6];
  assign zp_q    = ex_insn_i[tsl_pkg::INSN_VPU_VEC_ZERO_POINT_LSB +: 32];
  assign rows_q  = ex_insn_i[tsl_pkg::INSN_VPU_VEC_ROWS_LSB +: 16];
  logic [Jw-1:0] j_q, j_d;
  logic [31:0] a_q, a_d, b_q, b_d, r_q, r_d;
  logic [32*N-1:0] row_buf_q, row_buf_d;

  // Element of dtype dt at byte address addr in the word rd (INT8 sign-extended).
  function automatic logic [31:0] elem(input logic [31:0] rd, input logic [1:0] dt, input logic [1:0] lane);
    logic [7:0] b8;
    b8 = rd[8*lane +: 8];
    elem = dt == tsl_pkg::DTYPE_INT8 ? {{24{b8[7]}}, b8} : rd;
  endfunction
  function automatic logic [LAw:0] size(input logic [1:0] dt);
    size = dt == tsl_pkg::DTYPE_INT8 ? (LAw+1)'(1) : (LAw+1)'(4);
  endfunction

  logic        unary, reduce, use_b, mul_start, mul_done;
  logic [63:0] prod;
  logic [35:0] rq_half;
  logic [37:0] rq_sum;
  logic        rq_big;
  logic [31:0] res, wval, sat32, sum_ab, cmp_b, max_ab;
  logic [7:0]  sat8;
  logic        res_valid;
  assign unary  = op_q == 4'(tsl_pkg::VPU_OP_RELU) || op_q == 4'(tsl_pkg::VPU_OP_MOV) ||
                  op_q == 4'(tsl_pkg::VPU_OP_REQUANT) || reduce;
  assign reduce = op_q == 4'(tsl_pkg::VPU_OP_RSUM) || op_q == 4'(tsl_pkg::VPU_OP_RMAX);
  assign use_b  = !unary && mode_q != 2'(tsl_pkg::SRC2_IMM);

  tsl_lite_mul u_mul (
    .clk_i,
    .rst_ni,
    .start_i(mul_start),
    .a_i    (a_q),
    .b_i    (op_q == 4'(tsl_pkg::VPU_OP_MUL) ? b_q : scale_q),
    .shift_i(op_q == 4'(tsl_pkg::VPU_OP_REQUANT) && shift_q != 6'd0 ? shift_q - 6'd1 : 6'd0),
    .done_o (mul_done),
    .p_o    (prod)
  );

  // One adder and one comparator: ADD and RSUM, MAX, RELU and RMAX.
  assign sum_ab = a_q + (reduce ? r_q : b_q);
  assign cmp_b  = reduce ? r_q : op_q == 4'(tsl_pkg::VPU_OP_RELU) ? 32'd0 : b_q;
  assign max_ab = $signed(a_q) > $signed(cmp_b) ? a_q : cmp_b;

  // REQUANT: prod is x*SCALE shifted right by SHIFT-1; then (prod + 1) >> 1 rounds half up, and
  // ZERO_POINT is added. A prod outside 36 bits saturates whatever the rest (|ZERO_POINT| < 2^31).
  assign rq_big  = !(prod[63:35] == '0 || prod[63:35] == '1);
  assign rq_half = shift_q == 6'd0 ? prod[35:0] : {prod[35], prod[35:1]} + 36'(prod[0]);   // (p+1)>>1
  assign rq_sum  = {{2{rq_half[35]}}, rq_half} + {{6{zp_q[31]}}, zp_q};
  assign sat32   = rq_big ? (prod[63] ? 32'h8000_0000 : 32'h7FFF_FFFF) :
                   rq_sum[37:31] == '0 || rq_sum[37:31] == '1 ? rq_sum[31:0] :
                   rq_sum[37] ? 32'h8000_0000 : 32'h7FFF_FFFF;
  assign wval  = reduce ? r_q : row_buf_q[32*j_q +: 32];
  assign sat8  = wval[31:7] == '0 || wval[31:7] == '1 ? wval[7:0] : wval[31] ? 8'h80 : 8'h7F;

  assign ex_ready_o = state_q == StIdle;
  assign busy_o     = state_q != StIdle;
  assign lwaddr_o   = pd_q;
  assign lwdata_o   = dd_q == tsl_pkg::DTYPE_INT8 ? {4{sat8}} : wval;
  assign lbe_o      = dd_q == tsl_pkg::DTYPE_INT8 ? 4'b0001 << pd_q[1:0] : 4'hF;

  always_comb begin
    state_d   = state_q;
    p1_d      = p1_q;
    p2_d      = p2_q;
    pd_d      = pd_q;
    row_d     = row_q;
    j_d       = j_q;
    a_d       = a_q;
    b_d       = b_q;
    r_d       = r_q;
    row_buf_d = row_buf_q;
    done_o    = 1'b0;
    lrd_o     = 1'b0;
    lraddr_o  = p1_q;
    lwr_o     = 1'b0;
    mul_start = 1'b0;
    res       = a_q;
    res_valid = 1'b0;
    unique case (state_q)
      StIdle: if (ex_valid_i) begin
        pd_d    = {ex_insn_i[tsl_pkg::INSN_VPU_VEC_DST_ADDR_LSB + 24], ex_insn_i[tsl_pkg::INSN_VPU_VEC_DST_ADDR_LSB +: LAw]};
        p1_d    = {ex_insn_i[tsl_pkg::INSN_VPU_VEC_SRC1_ADDR_LSB + 24], ex_insn_i[tsl_pkg::INSN_VPU_VEC_SRC1_ADDR_LSB +: LAw]};
        p2_d    = {s2_q[24], s2_q[LAw-1:0]};
        row_d   = '0;
        j_d     = '0;
        state_d = StRd;
      end
      StRd: begin
        lrd_o   = 1'b1;
        state_d = StA;
      end
      StA: begin     // src1 element arrives; src2 is read, or is the immediate
        a_d      = elem(lrdata_i, d1_q, p1_q[1:0]);
        p1_d     = p1_q + size(d1_q);
        b_d      = s2_q;
        lrd_o    = use_b;
        lraddr_o = p2_q;
        state_d  = use_b ? StB : StOp;
      end
      StB: begin
        b_d     = elem(lrdata_i, d2_q, p2_q[1:0]);
        p2_d    = p2_q + size(d2_q);
        state_d = StOp;
      end
      StOp: begin
        res_valid = 1'b1;
        unique case (op_q)
          4'(tsl_pkg::VPU_OP_ADD):  res = sum_ab;
          4'(tsl_pkg::VPU_OP_MAX), 4'(tsl_pkg::VPU_OP_RELU): res = max_ab;
          4'(tsl_pkg::VPU_OP_RSUM): r_d = j_q == '0 ? a_q : sum_ab;
          4'(tsl_pkg::VPU_OP_RMAX): r_d = j_q == '0 ? a_q : max_ab;
          4'(tsl_pkg::VPU_OP_MUL), 4'(tsl_pkg::VPU_OP_REQUANT): begin
            mul_start = 1'b1;
            res_valid = 1'b0;
            state_d   = StMul;
          end
          default: res = a_q;   // MOV
        endcase
      end
      StMul: if (mul_done) begin
        res       = op_q == 4'(tsl_pkg::VPU_OP_MUL) ? prod[31:0] : sat32;
        res_valid = 1'b1;
      end
      StWr: begin
        lwr_o = 1'b1;
        pd_d  = pd_q + size(dd_q);
        j_d   = j_q + Jw'(1);
        if (j_q == Jw'(N - 1)) begin
          row_d   = row_q + 16'd1;
          state_d = StRd;
          if (mode_q == 2'(tsl_pkg::SRC2_BCAST)) p2_d = {s2_q[24], s2_q[LAw-1:0]};
          if (row_q == rows_q - 16'd1) begin
            done_o  = 1'b1;
            state_d = StIdle;
          end
        end
      end
      default: state_d = StIdle;
    endcase
    // An element is computed: keep it, then read the next one or write the row.
    if (res_valid) begin
      for (int c = 0; c < N; c++) begin
        if (j_q == Jw'(c)) row_buf_d[32*c +: 32] = res;
      end
      j_d     = j_q + Jw'(1);
      state_d = j_q == Jw'(N - 1) ? StWr : StRd;
    end
  end

  logic unused_insn;
  assign unused_insn = ^ex_insn_i;   // header, tokens and reserved bits are the controller's

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q   <= StIdle;
      p1_q      <= '0;
      p2_q      <= '0;
      pd_q      <= '0;
      row_q     <= '0;
      j_q       <= '0;
      a_q       <= '0;
      b_q       <= '0;
      r_q       <= '0;
      row_buf_q <= '0;
    end else begin
      state_q   <= state_d;
      p1_q      <= p1_d;
      p2_q      <= p2_d;
      pd_q      <= pd_d;
      row_q     <= row_d;
      j_q       <= j_d;
      a_q       <= a_d;
      b_q       <= b_d;
      r_q       <= r_d;
      row_buf_q <= row_buf_d;
    end
  end
endmodule
