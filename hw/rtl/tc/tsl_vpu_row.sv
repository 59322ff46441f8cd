// The VPU's row engine: VPU EPI with a ROW function (docs/isa.md "VPU EPI"), ROW SOFTMAX, bit-exact
// with hw/model/tslm.c (exec_row_softmax). The rows are taken G at a time (a group), their state kept
// here between three passes over the group's vectors, read in the order vector 0 of each row, then
// vector 1 of each, ...:
//   pass 0  a = src1 widened (x SCALE with FSCALE, -inf in the PAD lanes); each lane keeps the MAX
//           of its elements of each row; then a tree of the lanes per row gives -M (its max negated)
//   pass 1  e = EXP(a + -M), each lane's running fadd of e per row; a tree per row gives S, and the
//           lanes' transcendental units R = RECIP(S) of the group's rows at once
//   pass 2  dst = fmul(EXP(a + -M), R), narrowed and written in the order read
// Reads go out on the VPU's early (read-only) ports, a line a cycle, and writes on its main port, so
// that pass 2 reads a vector and writes one in the same cycle. A read's data is kept in a 3-line
// buffer: a read is asked for only while the buffer has room for it and the read before it, so
// that no request depends on a grant. The vector pipeline (assembly, the fadd, the lanes'
// tsl_vpu_eup, the output) advances while its output is written or empty (adv): a refused write
// holds all of it, the transcendental units included (eup_en_o). The trees are one level a cycle;
// the arithmetic is evaluated only in the phases that use it.
module tsl_vpu_row #(
  parameter int N         = tsl_pkg::PARAM_N,
  parameter int VmemBytes = tsl_pkg::PARAM_VMEM_BYTES,
  parameter int AccBytes  = tsl_pkg::PARAM_ACC_BYTES,
  parameter int G         = tsl_pkg::PARAM_VPU_FN_ROWS   // rows at once, 2..N
) (
  input  logic clk_i, rst_ni,
  input  logic start_i,                 // the VPU accepts the EPI in insn_i (it is idle)
  input  logic [255:0] insn_i,
  output logic done_o,                  // the instruction's last write was granted (pulse)
  // the VPU's main ports: writes of dst
  output logic vmem_req_o, input logic vmem_gnt_i,
  output logic [$clog2(VmemBytes/(2*N))-1:0] vmem_addr_o, output logic [16*N-1:0] vmem_wdata_o,
  output logic acc_req_o, input logic acc_gnt_i,
  output logic [$clog2(AccBytes/(4*N))-1:0] acc_addr_o, output logic [32*N-1:0] acc_wdata_o,
  // the VPU's early ports: reads of src1
  output logic vmem_e_req_o, input logic vmem_e_gnt_i,
  output logic [$clog2(VmemBytes/(2*N))-1:0] vmem_e_addr_o, input logic [16*N-1:0] vmem_e_rdata_i,
  output logic acc_e_req_o, input logic acc_e_gnt_i,
  output logic [$clog2(AccBytes/(4*N))-1:0] acc_e_addr_o, input logic [32*N-1:0] acc_e_rdata_i,
  // the lanes' transcendental units: lane j's operand at [32j +: 32], its result LAT cycles later
  output logic [3:0]      eup_fn_o,
  output logic            eup_en_o,
  output logic [32*N-1:0] eup_x_o,
  input  logic [32*N-1:0] eup_y_i
);
  localparam int VAW = $clog2(VmemBytes / (2 * N));
  localparam int AAW = $clog2(AccBytes / (4 * N));
  localparam int LN  = $clog2(N);
  localparam int PW  = (VAW + 1 > AAW + 2) ? VAW + 1 : AAW + 2;   // pointers in N-byte chunks
  localparam int GW  = $clog2(G);
  localparam int LAT = tsl_vpu_fn_pkg::LAT;
  localparam logic [31:0] QNAN    = 32'h7FC0_0000;
  localparam logic [31:0] NEG_INF = 32'hFF80_0000;

`include "hw/rtl/tsl_insn.svh"
  /* verilator lint_off UNUSEDSIGNAL */
  insn_vpu_epi_t insn;   // header, tokens, BIAS, RELU, SHIFT and ZERO_POINT are the checker's
  /* verilator lint_on UNUSEDSIGNAL */
  assign insn = insn_i;

  typedef enum logic [1:0] {RIdle, RPass, RTree, RRecip} state_e;
  state_e state_q;
  logic [1:0] pass_q;                    // 0 max, 1 sum, 2 out

  function automatic logic [31:0] fmax(input logic [31:0] a, input logic [31:0] b);
    logic [31:0] ka, kb;   // sign-magnitude to an order-preserving key (-0 just below +0)
    ka = a[31] ? ~a : {1'b1, a[30:0]};
    kb = b[31] ? ~b : {1'b1, b[30:0]};
    fmax = (a == QNAN || b == QNAN) ? QNAN : (ka >= kb) ? a : b;
  endfunction

  function automatic logic [15:0] bf16(input logic [31:0] y);   // round to nearest even (y canonical)
    bf16 = (y == QNAN) ? 16'h7FC0 : y[31:16] + {15'd0, y[15] && (y[14:0] != 15'd0 || y[16])};
  endfunction

  function automatic logic [31:0] widen(input logic [31:0] w);   // DAZ, canonical NaN
    widen = w;
    if (w[30:23] == 8'hFF && w[22:0] != 23'd0) widen = QNAN;
    else if (w[30:23] == 8'd0) widen = {w[31], 31'd0};
  endfunction

  // ---- the instruction ----------------------------------------------------------------------------
  logic          s_acc_q, d_acc_q, s_f32_q, d_f32_q, fscale_q;
  logic [31:0]   scale_q;
  logic [15:0]   v_q;                    // vectors a row (BVECS)
  logic [15:0]   rows_q;                 // rows after this group
  logic [9:0]    pad_q;
  logic [PW-1:0] s_base_q, d_base_q;     // the group's row 0
  logic [PW-1:0] s_rs_q, d_rs_q;         // a row's chunks
  logic [GW:0]   gn_q;                   // rows in the group, 1..G
  logic          s_two, d_two;           // a vector is two lines (FP32 in VMEM)
  logic [PW-1:0] s_step, d_step;
  assign s_two  = s_f32_q && !s_acc_q;
  assign d_two  = d_f32_q && !d_acc_q;
  assign s_step = s_f32_q ? PW'(4) : PW'(2);
  assign d_step = d_f32_q ? PW'(4) : PW'(2);

  // Three walks over the group's vectors (tsl_vpu_row_walk): the reads, the vectors assembled, the
  // writes. Each starts at a pass's first vector (s_go / d_go, at s_base / d_base).
  logic          rpart_q, wpart_q;       // the line of a two-line vector being read / written
  logic          s_go, d_go, rw_next, aw_next, ww_next, rw_done, aw_done, ww_done;
  logic [PW-1:0] s_base, d_base;
  logic [15:0]   aw_j;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [GW:0]   aw_g;                   // (a row of the group: below G, its top bit 0)
  logic [PW-1:0] rw_ptr, ww_ptr, aw_ptr;   // (a vector is whole lines: bit 0 is 0)
  logic [GW:0]   rw_g, ww_g;
  logic [15:0]   rw_j, ww_j;
  /* verilator lint_on UNUSEDSIGNAL */
  tsl_vpu_row_walk #(.PW(PW), .GW(GW)) u_rw (
    .clk_i, .rst_ni, .start_i(s_go), .base_i(s_base), .next_i(rw_next), .gn_i(gn_q), .v_i(v_q), .rs_i(s_rs_q),
    .step_i(s_step), .ptr_o(rw_ptr), .g_o(rw_g), .j_o(rw_j), .done_o(rw_done));
  tsl_vpu_row_walk #(.PW(PW), .GW(GW)) u_aw (
    .clk_i, .rst_ni, .start_i(s_go), .base_i(s_base), .next_i(aw_next), .gn_i(gn_q), .v_i(v_q), .rs_i(s_rs_q),
    .step_i(s_step), .ptr_o(aw_ptr), .g_o(aw_g), .j_o(aw_j), .done_o(aw_done));
  tsl_vpu_row_walk #(.PW(PW), .GW(GW)) u_ww (
    .clk_i, .rst_ni, .start_i(d_go), .base_i(d_base), .next_i(ww_next), .gn_i(gn_q), .v_i(v_q), .rs_i(d_rs_q),
    .step_i(d_step), .ptr_o(ww_ptr), .g_o(ww_g), .j_o(ww_j), .done_o(ww_done));

  // ---- reads (early ports) and the line buffer ---------------------------------------------------------
  logic            rreq, rgnt, rdv_q, racc_q, pop;
  logic [1:0]      ib_cnt_q;
  logic [32*N-1:0] ib_q [3];
  logic [32*N-1:0] rline;
  assign rreq = state_q == RPass && !rw_done && 3'(ib_cnt_q) + 3'(rdv_q) < 3'd3;
  assign vmem_e_req_o  = rreq && !s_acc_q;
  assign acc_e_req_o   = rreq && s_acc_q;
  assign vmem_e_addr_o = rw_ptr[VAW:1] + {{(VAW-1){1'b0}}, rpart_q};
  assign acc_e_addr_o  = rw_ptr[AAW+1:2];
  assign rgnt  = rreq && (s_acc_q ? acc_e_gnt_i : vmem_e_gnt_i);
  assign rline = racc_q ? acc_e_rdata_i : {{(16*N){1'b0}}, vmem_e_rdata_i};

  // ---- the vector pipeline ------------------------------------------------------------------------------
  logic            adv;                  // the pipeline moves this cycle
  logic            av_q, af_q;           // stage A: a vector assembled (its row's first vector)
  logic [GW-1:0]   ag_q;                 // rows of the group: a stage's row
  logic [32*N-1:0] a_q;                  // lane l at [32l +: 32], as every vector here
  logic            tv_q, tf_q;           // stage T: a + -M
  logic [GW-1:0]   tg_q;
  logic [32*N-1:0] t_q;                  // (RRecip: the group's sums, row l mod G in lane l)
  logic [LAT-1:0]  ev_q, ef_q;           // the transcendental units' stages (the oldest at LAT-1)
  logic [LAT*GW-1:0] eg_q;
  logic            ov_q;                 // stage O: a result vector to write (pass 2)
  logic [32*N-1:0] o_q;                  // in dst's dtype: BF16 in the low 16N bits
  logic            wreq, wgnt, wlast;
  logic [31:0]     negm_q [G];           // -M of each row of the group
  logic [31:0]     r_q [G];              // S, then R = RECIP(S)
  logic [32*N*G-1:0] acc_q;              // each row's lanes' running MAX or sum: row g at [32Ng +: 32N]
                                         // (flip-flops: a memory's read-modify-write made Yosys a loop)
  logic [GW-1:0]   eg_out;
  assign eg_out = eg_q[(LAT-1)*GW +: GW];

  assign wreq  = ov_q;
  assign wlast = !d_two || wpart_q;
  assign wgnt  = wreq && (d_acc_q ? acc_gnt_i : vmem_gnt_i);
  assign adv   = !ov_q || (wgnt && wlast);
  assign pop   = adv && state_q == RPass && !aw_done && ib_cnt_q >= (s_two ? 2'd2 : 2'd1);

  assign vmem_req_o   = wreq && !d_acc_q;
  assign acc_req_o    = wreq && d_acc_q;
  assign vmem_addr_o  = ww_ptr[VAW:1] + {{(VAW-1){1'b0}}, wpart_q};
  assign acc_addr_o   = ww_ptr[AAW+1:2];
  assign vmem_wdata_o = (d_two && wpart_q) ? o_q[32*N-1:16*N] : o_q[16*N-1:0];
  assign acc_wdata_o  = o_q;

  // The arithmetic, evaluated only in the clocked block's cycles that use it (a Verilated
  // always_comb would run every cycle of every simulation). Stage A's vector from the line buffer:
  // widened, scaled, -inf in the PAD lanes of a row's last vector.
  function automatic logic [32*N-1:0] assemble(input logic [32*N-1:0] l0, input logic [32*N-1:0] l1,
                                               input logic last);
    logic [31:0] x;
    for (int l = 0; l < N; l++) begin
      if (s_f32_q && s_acc_q) x = l0[32*l +: 32];
      else if (s_f32_q)       x = l < N / 2 ? l0[32*l +: 32] : l1[32*(l - N/2) +: 32];
      else                    x = {l0[16*l +: 16], 16'd0};
      x = widen(x);
      if (fscale_q) x = tsl_vpu_fmul_pkg::fp32_mul(x, scale_q);
      if (last && 32'(l) >= N - 32'(pad_q)) x = NEG_INF;
      assemble[32*l +: 32] = x;
    end
  endfunction

  // Each lane's op with one value (c, all lanes) or lane by lane (b): fadd, fmul, MAX.
  function automatic logic [32*N-1:0] lanes(input logic [1:0] op, input logic [32*N-1:0] a,
                                            input logic [32*N-1:0] b);
    for (int l = 0; l < N; l++)
      lanes[32*l +: 32] = op == 2'd0 ? tsl_mxu_fadd_pkg::fp32_add(a[32*l +: 32], b[32*l +: 32])
                        : op == 2'd1 ? tsl_vpu_fmul_pkg::fp32_mul(a[32*l +: 32], b[32*l +: 32])
                                     : fmax(a[32*l +: 32], b[32*l +: 32]);
  endfunction

  // Stage O's line(s): in dst's dtype, BF16 rounded to nearest even into the low 16N bits.
  function automatic logic [32*N-1:0] narrow(input logic [32*N-1:0] y);
    narrow = y;
    if (!d_f32_q) begin
      narrow = '0;
      for (int l = 0; l < N; l++) narrow[16*l +: 16] = bf16(y[32*l +: 32]);
    end
  endfunction

  // One level of a tree over the lanes: pairs (2i, 2i+1) of v into i, for i below `pairs`.
  function automatic logic [31:0] pair(input logic is_max, input logic [31:0] x, input logic [31:0] y);
    pair = is_max ? fmax(x, y) : tsl_mxu_fadd_pkg::fp32_add(x, y);
  endfunction
  function automatic logic [16*N-1:0] tree(input logic [32*N-1:0] v, input logic is_max, input int pairs);
    tree = v[16*N-1:0];
    for (int i = 0; i < N / 2; i++)
      if (i < pairs) tree[32*i +: 32] = pair(is_max, v[64*i +: 32], v[64*i+32 +: 32]);
  endfunction

  // The transcendental units: EXP of stage T in the passes, RECIP of the group's sums (lane g's
  // of row g) in RRecip.
  logic [3:0] rc_q;                      // RRecip's cycles
  assign eup_fn_o = state_q == RRecip ? 4'(tsl_pkg::VPU_OP_RECIP) : 4'(tsl_pkg::VPU_OP_EXP);
  assign eup_en_o = state_q == RRecip || adv;
  assign eup_x_o  = t_q;

  // ---- the trees: one level a cycle, row trow_q of the group ------------------------------------------
  logic [GW:0]   trow_q;
  logic [$clog2(LN+1)-1:0] lvl_q;
  logic [16*N-1:0] tr_q;                 // a level's results, pair i at [32i +: 32]

  // ---- control ---------------------------------------------------------------------------------------
  // The walks start with the instruction, each pass over the group (pass 1 after the max's trees,
  // pass 2 after the reciprocals) and the next group (its rows after this group's).
  logic go_first, go_p1, go_p2, go_next;
  assign go_first = state_q == RIdle && start_i;
  assign go_p1    = state_q == RTree && 32'(lvl_q) == LN - 1 && trow_q + 1'b1 == gn_q && pass_q == 2'd0;
  assign go_p2    = state_q == RRecip && 32'(rc_q) == LAT + 1;
  assign go_next  = state_q == RPass && drained && pass_q == 2'd2 && rows_q != '0;
  assign s_go     = go_first || go_p1 || go_p2 || go_next;
  assign d_go     = go_first || go_p2 || go_next;
  assign s_base   = go_first ? insn.src1_addr[LN +: PW] : go_next ? s_base_q + PW'(gn_q) * s_rs_q : s_base_q;
  assign d_base   = go_first ? insn.dst_addr[LN +: PW] : go_next ? d_base_q + PW'(gn_q) * d_rs_q : d_base_q;
  assign rw_next  = rgnt && (!s_two || rpart_q);
  assign aw_next  = pop;
  assign ww_next  = wgnt && wlast;

  logic drained;                         // the pass's vectors have all gone through
  assign drained = rw_done && aw_done && ib_cnt_q == 2'd0 && !rdv_q && !av_q && !tv_q && ev_q == '0 && !ov_q &&
                   (pass_q != 2'd2 || ww_done);
  logic [GW:0] gn_next;                  // the next group's rows
  assign gn_next = rows_q >= 16'(G) ? (GW+1)'(G) : (GW+1)'(rows_q);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q  <= RIdle;
      done_o   <= 1'b0;
      rdv_q    <= 1'b0;
      ib_cnt_q <= '0;
      av_q     <= 1'b0;
      tv_q     <= 1'b0;
      ev_q     <= '0;
      ov_q     <= 1'b0;
    end else begin
      done_o <= 1'b0;
      rdv_q  <= rgnt;
      ib_cnt_q <= ib_cnt_q + (rdv_q ? 2'd1 : 2'd0) - (pop ? (s_two ? 2'd2 : 2'd1) : 2'd0);
      if (adv) begin
        av_q <= pop;
        tv_q <= av_q && pass_q != 2'd0;
        ev_q <= {ev_q[LAT-2:0], tv_q};
        ov_q <= ev_q[LAT-1] && pass_q == 2'd2;
      end
      unique case (state_q)
        RIdle: if (start_i) state_q <= RPass;
        RPass: if (drained) begin
          if (pass_q == 2'd2) begin
            if (rows_q == '0) begin
              state_q <= RIdle;
              done_o  <= 1'b1;
            end
          end else begin
            state_q <= RTree;
          end
        end
        RTree: if (32'(lvl_q) == LN - 1 && trow_q + 1'b1 == gn_q) state_q <= pass_q == 2'd0 ? RPass : RRecip;
        RRecip: if (32'(rc_q) == LAT + 1) state_q <= RPass;
        default: state_q <= RIdle;
      endcase
    end
  end

  // Datapath and walk registers (no reset); set on start.
  always_ff @(posedge clk_i) begin
    if (state_q == RIdle && start_i) begin
      s_acc_q  <= insn.src1_addr[24];
      d_acc_q  <= insn.dst_addr[24];
      s_f32_q  <= insn.src1_dtype == tsl_pkg::DTYPE_FP32;
      d_f32_q  <= insn.dst_dtype == tsl_pkg::DTYPE_FP32;
      fscale_q <= insn.fscale;
      scale_q  <= widen(insn.scale);
      v_q      <= insn.bvecs;
      pad_q    <= insn.pad;
      s_rs_q   <= PW'(insn.bvecs) << (insn.src1_dtype == tsl_pkg::DTYPE_FP32 ? 2 : 1);
      d_rs_q   <= PW'(insn.bvecs) << (insn.dst_dtype == tsl_pkg::DTYPE_FP32 ? 2 : 1);
      s_base_q <= insn.src1_addr[LN +: PW];
      d_base_q <= insn.dst_addr[LN +: PW];
      gn_q     <= insn.rows >= 16'(G) ? (GW+1)'(G) : (GW+1)'(insn.rows);
      rows_q   <= insn.rows - (insn.rows >= 16'(G) ? 16'(G) : insn.rows);
      pass_q   <= 2'd0;
      rpart_q  <= 1'b0;
      wpart_q  <= 1'b0;
    end
    // reads: a line each grant; the walk moves on after a vector's last line
    if (rgnt) begin
      rpart_q <= s_two && !rpart_q;
    end
    racc_q <= s_acc_q;
    // the line buffer: the lines left after a pop, then last cycle's grant's data behind them
    if (pop && s_two) begin
      ib_q[0] <= ib_q[2];
    end else if (pop) begin
      ib_q[0] <= ib_q[1];
      ib_q[1] <= ib_q[2];
    end
    if (rdv_q) ib_q[ib_cnt_q - (pop ? (s_two ? 2'd2 : 2'd1) : 2'd0)] <= rline;
    // the pipeline
    if (adv && pop) begin
      a_q  <= assemble(ib_q[0], ib_q[1], aw_j + 16'd1 == v_q);
      ag_q <= GW'(aw_g);
      af_q <= aw_j == '0;
    end
    if (adv && av_q && pass_q != 2'd0) begin
      t_q  <= lanes(2'd0, a_q, {N{negm_q[ag_q]}});
      tg_q <= ag_q;
      tf_q <= af_q;
    end
    if (adv && state_q == RPass) begin
      eg_q <= {eg_q[(LAT-1)*GW-1:0], tg_q};
      ef_q <= {ef_q[LAT-2:0], tf_q};
    end
    if (adv && ev_q[LAT-1] && pass_q == 2'd2) o_q <= narrow(lanes(2'd1, eup_y_i, {N{r_q[eg_out]}}));
    // the lanes' running MAX of each row (pass 0, from stage A) and sum (pass 1, from the EUP)
    if (adv && state_q == RPass) begin
      for (int k = 0; k < G; k++) begin
        if (av_q && pass_q == 2'd0 && ag_q == GW'(k))
          acc_q[32*N*k +: 32*N] <= af_q ? a_q : lanes(2'd2, acc_q[32*N*k +: 32*N], a_q);
        if (ev_q[LAT-1] && pass_q == 2'd1 && eg_out == GW'(k))
          acc_q[32*N*k +: 32*N] <= ef_q[LAT-1] ? eup_y_i : lanes(2'd0, acc_q[32*N*k +: 32*N], eup_y_i);
      end
    end
    // writes: a line each grant; the walk moves on after a vector's last line
    if (wgnt) begin
      wpart_q <= !wlast;
    end
    // the trees, then the next pass
    if (state_q == RPass && drained && pass_q != 2'd2) begin
      trow_q <= '0;
      lvl_q  <= '0;
    end
    if (state_q == RTree) begin   // level 0 from the row's lanes, the others from tr_q
      tr_q  <= tree(lvl_q == '0 ? acc_q[32*N*GW'(trow_q) +: 32*N] : {{(16*N){1'b0}}, tr_q}, pass_q == 2'd0,
                    N >> (32'(lvl_q) + 1));
      lvl_q <= lvl_q + 1'b1;
      if (32'(lvl_q) == LN - 1) begin   // one pair left: the row's max (negated) or sum
        lvl_q  <= '0;
        trow_q <= trow_q + 1'b1;
        if (pass_q == 2'd0) negm_q[GW'(trow_q)] <= pair(1'b1, tr_q[31:0], tr_q[63:32]) ^ 32'h8000_0000;
        else                r_q[GW'(trow_q)]    <= pair(1'b0, tr_q[31:0], tr_q[63:32]);
      end
    end
    if (state_q == RTree && 32'(lvl_q) == LN - 1 && trow_q + 1'b1 == gn_q) begin
      rc_q <= '0;
      if (pass_q == 2'd0) pass_q <= 2'd1;   // pass 1 over the same vectors
    end
    if (state_q == RRecip) begin   // the sums into the transcendental units, then their RECIPs
      rc_q <= rc_q + 4'd1;
      if (rc_q == '0)
        for (int l = 0; l < N; l++) t_q[32*l +: 32] <= r_q[l % G];
      if (32'(rc_q) == LAT + 1) begin
        for (int k = 0; k < G; k++) r_q[k] <= eup_y_i[32*k +: 32];
        pass_q <= 2'd2;
      end
    end
    if (state_q == RPass && drained && pass_q == 2'd2 && rows_q != '0) begin   // the next group
      s_base_q <= s_base;
      d_base_q <= d_base;
      gn_q     <= gn_next;
      rows_q   <= rows_q - 16'(gn_next);
      pass_q   <= 2'd0;
    end
  end

  // Assertions
  `include "hw/rtl/tsl_assert.svh"
  `TSL_ASSERT_INIT(RowGroup, G >= 2 && G <= N, "a group is 2 rows or more, and at most the lanes (RECIP of row g in lane g)")
endmodule

/* verilator lint_off DECLFILENAME */
// A walk over a row engine group's vectors in its order: vector 0 of each of the GN rows, then vector
// 1 of each, ...: row g, vector j, and its chunk pointer (rows RS chunks apart, vectors STEP).
module tsl_vpu_row_walk #(
  parameter int PW = 16,   // pointer bits
  parameter int GW = 3     // row index bits - 1 (rows 0..2^GW)
) (
  input  logic          clk_i, rst_ni,
  input  logic          start_i,   // at row 0, vector 0, at base_i
  input  logic [PW-1:0] base_i,
  input  logic          next_i,    // on to the next vector
  input  logic [GW:0]   gn_i,      // rows
  input  logic [15:0]   v_i,       // vectors a row
  input  logic [PW-1:0] rs_i,      // chunks a row
  input  logic [PW-1:0] step_i,    // chunks a vector
  output logic [PW-1:0] ptr_o,
  output logic [GW:0]   g_o,
  output logic [15:0]   j_o,
  output logic          done_o     // every vector walked
);
  logic [PW-1:0] col_q;   // vector j of row 0
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      done_o <= 1'b1;
    end else if (start_i) begin
      done_o <= 1'b0;
    end else if (next_i && g_o + 1'b1 == gn_i) begin
      done_o <= j_o + 16'd1 == v_i;
    end
  end
  always_ff @(posedge clk_i) begin
    if (start_i) begin
      g_o   <= '0;
      j_o   <= '0;
      ptr_o <= base_i;
      col_q <= base_i;
    end else if (next_i && g_o + 1'b1 == gn_i) begin
      g_o   <= '0;
      j_o   <= j_o + 16'd1;
      col_q <= col_q + step_i;
      ptr_o <= col_q + step_i;
    end else if (next_i) begin
      g_o   <= g_o + 1'b1;
      ptr_o <= ptr_o + rs_i;
    end
  end
endmodule
/* verilator lint_on DECLFILENAME */
