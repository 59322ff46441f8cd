// The VPU's row engine: VPU EPI with a ROW function (docs/isa.md "VPU EPI"), bit-exact with
// hw/model/tslm.c (exec_row_softmax, exec_row_norm). The rows are taken G at a time (a group), their
// state kept here between three passes over the group's vectors, read in the order vector 0 of each
// row, then vector 1 of each, ... (rows RS chunks apart and vectors STEP, row-major or BLOCKED block-
// major alike); a is src1 widened (x SCALE with FSCALE; in the PAD lanes -inf for
// SOFTMAX, +0 for the norms). SOFTMAX:
//   pass 0  each lane keeps the MAX of its a of each row; then a tree of the lanes per row gives -M
//   pass 1  e = EXP(a + -M), each lane's running fadd of e per row; a tree per row gives S, and the
//           lanes' transcendental units R = RECIP(S) of the group's rows at once
//   pass 2  dst = fmul(EXP(a + -M), R), narrowed and written in the order read
// LAYERNORM (RMSNORM starts at pass 1 with d = a; rn is ZERO_POINT, eps SCALE):
//   pass 0  each lane's running fadd of a per row; a tree per row, -mu = fmul(fmul(S, rn), -1)
//   pass 1  d = fadd(a, -mu) (fmul(d, +0) in the PAD lanes), each lane's running fadd of fmul(d, d);
//           a tree per row, fadd(fmul(S, rn), eps), and R = RSQRT of it on the transcendental units
//   pass 2  dst = fmul(fmul(d, R), gamma_j) (fadd beta_j with BIAS); gamma's and beta's vector j are
//           read into one of two slots (by j's parity) on the early port of SRC2_ADDR's memory, ahead
//           of the vectors that use them, taking that port from src1's reads where the two share it
// Reads go out on the VPU's early (read-only) ports, a line a cycle, and writes on its main port, so
// that pass 2 reads a vector and writes one in the same cycle. A read's data is kept in a 3-line
// buffer: a read is asked for only while the buffer has room for it and the read before it, so
// that no request depends on a grant. The vector pipeline (assembly, the fadd, the lanes'
// tsl_vpu_eup, the output) advances while its output is written or empty (adv): a refused write
// holds all of it, the transcendental units included (eup_en_o). The trees take a row a cycle,
// pipelined; the arithmetic is evaluated only in the phases that use it.
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
  logic [1:0] pass_q;                    // 0 max / sum, 1 sum of exps / squares, 2 out

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
  logic          norm_q, ln_q, bias_q, p_acc_q;   // a norm, LAYERNORM, beta, SRC2_ADDR in the ACC
  logic [31:0]   scale_q;                // SOFTMAX: SCALE; the norms: eps
  logic [31:0]   rn_q;                   // ZERO_POINT: the norms' 1/length; SOFTMAX's causal mask
  logic          causal_q;               // SOFTMAX, ZERO_POINT not 0: row r's elements from ZERO_POINT + r masked
  logic [15:0]   r0_q;                   // the group's row 0
  logic [15:0]   v_q;                    // vectors a row (BVECS)
  logic [15:0]   rows_q;                 // rows after this group
  logic [9:0]    pad_q;
  logic [PW-1:0] s_base_q, d_base_q;     // the group's row 0
  logic [PW-1:0] s_rs_q, d_rs_q;         // chunks from a row to the next: a row's, or BLOCKED a vector's
  logic [PW-1:0] s_step_q, d_step_q;     // chunks from a vector to the next: a vector's, or BLOCKED ROWS'
  logic [GW:0]   gn_q;                   // rows in the group, 1..G
  logic          s_two, d_two;           // a vector is two lines (FP32 in VMEM)
  assign s_two  = s_f32_q && !s_acc_q;
  assign d_two  = d_f32_q && !d_acc_q;

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
    .step_i(s_step_q), .ptr_o(rw_ptr), .g_o(rw_g), .j_o(rw_j), .done_o(rw_done));
  tsl_vpu_row_walk #(.PW(PW), .GW(GW)) u_aw (
    .clk_i, .rst_ni, .start_i(s_go), .base_i(s_base), .next_i(aw_next), .gn_i(gn_q), .v_i(v_q), .rs_i(s_rs_q),
    .step_i(s_step_q), .ptr_o(aw_ptr), .g_o(aw_g), .j_o(aw_j), .done_o(aw_done));
  tsl_vpu_row_walk #(.PW(PW), .GW(GW)) u_ww (
    .clk_i, .rst_ni, .start_i(d_go), .base_i(d_base), .next_i(ww_next), .gn_i(gn_q), .v_i(v_q), .rs_i(d_rs_q),
    .step_i(d_step_q), .ptr_o(ww_ptr), .g_o(ww_g), .j_o(ww_j), .done_o(ww_done));

  // ---- the norms' gamma and beta: vector j into slot j mod 2, lines k of a vector's (gamma's one or
  // two, then beta's), read once slot j's vector j - 2 has been used (cj_q) and ready once all have
  // come (fj_q); pass 2's vector j is assembled only then ----------------------------------------------
  logic            pon_q;                // the group's gamma and beta are being read (pass 1's trees on)
  logic [16:0]     pj_q, fj_q, cj_q;     // vectors read, arrived, used
  logic [1:0]      pk_q, pk_d_q;         // the line of vector pj_q (and of the line arriving)
  logic            pdv_q, pslot_q, pacc_d_q;
  logic [PW-1:0]   gp_q, bofs_q;         // gamma's vector pj_q; beta's vectors after gamma's
  logic [PW-1:0]   p_base_q;             // gamma's vector 0
  logic            preq, pgnt, p_two, pbeta, ppart, plast;
  logic [1:0]      pk_last;              // a vector's last line
  /* verilator lint_off UNUSEDSIGNAL */
  logic [PW-1:0]   pptr;                 // (a vector is whole lines: bit 0 is 0)
  /* verilator lint_on UNUSEDSIGNAL */
  logic [32*N-1:0] pline;
  logic [2*32*N-1:0] gam_q, bet_q;       // slot s at [32Ns +: 32N]
  assign p_two = !p_acc_q;               // an FP32 vector is two VMEM lines
  assign pbeta = p_two ? pk_q[1] : pk_q[0];
  assign ppart = p_two && pk_q[0];
  assign pk_last = {bias_q && p_two, bias_q || p_two};
  assign plast = pk_q == pk_last;
  assign pptr  = gp_q + (pbeta ? bofs_q : '0);
  assign preq  = pon_q && pj_q < 17'(v_q) && pj_q < cj_q + 17'd2;
  assign pgnt  = preq && (p_acc_q ? acc_e_gnt_i : vmem_e_gnt_i);
  assign pline = pacc_d_q ? acc_e_rdata_i : {{(16*N){1'b0}}, vmem_e_rdata_i};

  // ---- reads (early ports) and the line buffer ---------------------------------------------------------
  logic            rreq, rgnt, rdv_q, racc_q, pop;
  logic [1:0]      ib_cnt_q;
  logic [32*N-1:0] ib_q [3];
  logic [32*N-1:0] rline;
  assign rreq = state_q == RPass && !rw_done && 3'(ib_cnt_q) + 3'(rdv_q) < 3'd3 && !(preq && p_acc_q == s_acc_q);
  assign vmem_e_req_o  = (rreq && !s_acc_q) || (preq && !p_acc_q);
  assign acc_e_req_o   = (rreq && s_acc_q) || (preq && p_acc_q);
  assign vmem_e_addr_o = (preq && !p_acc_q) ? pptr[VAW:1] + {{(VAW-1){1'b0}}, ppart}
                                            : rw_ptr[VAW:1] + {{(VAW-1){1'b0}}, rpart_q};
  assign acc_e_addr_o  = (preq && p_acc_q) ? pptr[AAW+1:2] : rw_ptr[AAW+1:2];
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
  logic            ax_j_q, ax_l_q, ax_z_q;   // stage A's vector j's parity, its row the group's last,
  logic            tx_j_q, tx_l_q;           // its j the row's last; and stage T's
  logic [1:0]      px_j_q, px_l_q;       // the norms' stages P (0) and Q (1)
  logic [32*N-1:0] p_q, q_q;             // the norms: P = d x d or d x R; Q = P x gamma
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
  assign pop   = adv && state_q == RPass && !aw_done && ib_cnt_q >= (s_two ? 2'd2 : 2'd1) &&
                 !(norm_q && pass_q == 2'd2 && 17'(aw_j) >= fj_q);

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
                                               input logic last, input logic [33:0] lim);
    logic [31:0] x;
    for (int l = 0; l < N; l++) begin
      if (s_f32_q && s_acc_q) x = l0[32*l +: 32];
      else if (s_f32_q)       x = l < N / 2 ? l0[32*l +: 32] : l1[32*(l - N/2) +: 32];
      else                    x = {l0[16*l +: 16], 16'd0};
      x = widen(x);
      if (fscale_q) x = tsl_vpu_fmul_pkg::fp32_mul(x, scale_q);
      if (causal_q && $signed(34'(l)) >= $signed(lim)) x = tsl_mxu_fadd_pkg::fp32_add(x, NEG_INF);
      if (last && 32'(l) >= N - 32'(pad_q)) x = norm_q ? 32'd0 : NEG_INF;
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

  // A row's tree's last pair: pass 0's -M (SOFTMAX) or -mu (LAYERNORM), pass 1's S (SOFTMAX) or
  // fadd(S x rn, eps), the norms' RSQRT operand.
  function automatic logic [31:0] tree_end(input logic p1, input logic [31:0] x, input logic [31:0] y);
    logic [31:0] s;
    s = pair(!norm_q && !p1, x, y);
    if (!norm_q) tree_end = p1 ? s : s ^ 32'h8000_0000;
    else if (p1) tree_end = tsl_mxu_fadd_pkg::fp32_add(tsl_vpu_fmul_pkg::fp32_mul(s, rn_q), scale_q);
    else         tree_end = tsl_vpu_fmul_pkg::fp32_mul(tsl_vpu_fmul_pkg::fp32_mul(s, rn_q), 32'hBF80_0000);
  endfunction

  // The norms' stage T: d = a (RMSNORM), or fadd(a, -mu) and fmul(d, +0) in the PAD lanes of a row's
  // last vector (LAYERNORM).
  function automatic logic [32*N-1:0] tstage(input logic [32*N-1:0] a, input logic [31:0] negmu, input logic last);
    tstage = a;
    if (ln_q)
      for (int l = 0; l < N; l++) begin
        tstage[32*l +: 32] = tsl_mxu_fadd_pkg::fp32_add(a[32*l +: 32], negmu);
        if (last && 32'(l) >= N - 32'(pad_q)) tstage[32*l +: 32] = tsl_vpu_fmul_pkg::fp32_mul(tstage[32*l +: 32], 32'd0);
      end
  endfunction

  // Half a line of FP32 values (N/2), widened.
  function automatic logic [16*N-1:0] widen_h(input logic [16*N-1:0] x);
    for (int l = 0; l < N / 2; l++) widen_h[32*l +: 32] = widen(x[32*l +: 32]);
  endfunction

  // The transcendental units: EXP of stage T in the passes, RECIP of the group's sums (lane g's
  // of row g) in RRecip.
  logic [3:0] rc_q;                      // RRecip's cycles
  assign eup_fn_o = state_q != RRecip ? 4'(tsl_pkg::VPU_OP_EXP) :
                    norm_q ? 4'(tsl_pkg::VPU_OP_RSQRT) : 4'(tsl_pkg::VPU_OP_RECIP);
  assign eup_en_o = state_q == RRecip || adv;
  assign eup_x_o  = t_q;

  // ---- the trees: pipelined, a row a cycle; level k's registers hold the row fed k cycles before
  // (N/2, N/4, ..., 2 values), the last pair goes to tree_end ---------------------------------------------
  localparam int TL = LN - 1;            // levels in registers
  logic [GW:0]        trow_q;            // the next row to feed
  logic [TL-1:0]      lv_q;              // level k holds a row,
  logic [TL*GW-1:0]   lr_q;              // row lr_q[GW k +: GW],
  logic [TL*16*N-1:0] lp_q;              // its values at [16N k +: 16N], pair i at [32i +: 32]
  logic               tree_done;         // the group's last row leaves the tree
  assign tree_done = state_q == RTree && lv_q[TL-1] && lr_q[(TL-1)*GW +: GW] == GW'(gn_q - 1'b1);

  // ---- control ---------------------------------------------------------------------------------------
  // The walks start with the instruction, each pass over the group (pass 1 after the max's trees,
  // pass 2 after the reciprocals) and the next group (its rows after this group's).
  logic go_first, go_p1, go_p2, go_next;
  assign go_first = state_q == RIdle && start_i;
  assign go_p1    = tree_done && pass_q == 2'd0;
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
      pon_q    <= 1'b0;
      pdv_q    <= 1'b0;
    end else begin
      done_o <= 1'b0;
      rdv_q  <= rgnt;
      pdv_q  <= pgnt;
      if (state_q == RPass && drained && pass_q == 2'd1 && norm_q) pon_q <= 1'b1;   // gamma's and beta's reads
      if (state_q == RPass && drained && pass_q == 2'd2) pon_q <= 1'b0;
      ib_cnt_q <= ib_cnt_q + (rdv_q ? 2'd1 : 2'd0) - (pop ? (s_two ? 2'd2 : 2'd1) : 2'd0);
      if (adv) begin
        av_q <= pop;
        tv_q <= av_q && pass_q != 2'd0;
        ev_q <= {ev_q[LAT-2:0], tv_q};   // the norms: P and Q are its first two
        ov_q <= (norm_q ? ev_q[1] : ev_q[LAT-1]) && pass_q == 2'd2;
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
        RTree: if (tree_done) state_q <= pass_q == 2'd0 ? RPass : RRecip;
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
      rn_q     <= insn.row == 2'(tsl_pkg::VPU_ROW_SOFTMAX) ? insn.zero_point : widen(insn.zero_point);
      causal_q <= insn.row == 2'(tsl_pkg::VPU_ROW_SOFTMAX) && insn.zero_point != '0;
      r0_q     <= '0;
      norm_q   <= insn.row != 2'(tsl_pkg::VPU_ROW_SOFTMAX);
      ln_q     <= insn.row == 2'(tsl_pkg::VPU_ROW_LAYERNORM);
      bias_q   <= insn.bias;
      p_acc_q  <= insn.src2_addr[24];
      p_base_q <= insn.src2_addr[LN +: PW];
      bofs_q   <= PW'(insn.bvecs) << 2;
      v_q      <= insn.bvecs;
      pad_q    <= insn.pad;
      s_rs_q   <= PW'(insn.blocked ? 16'd1 : insn.bvecs) << (insn.src1_dtype == tsl_pkg::DTYPE_FP32 ? 2 : 1);
      d_rs_q   <= PW'(insn.blocked ? 16'd1 : insn.bvecs) << (insn.dst_dtype == tsl_pkg::DTYPE_FP32 ? 2 : 1);
      s_step_q <= PW'(insn.blocked ? insn.rows : 16'd1) << (insn.src1_dtype == tsl_pkg::DTYPE_FP32 ? 2 : 1);
      d_step_q <= PW'(insn.blocked ? insn.rows : 16'd1) << (insn.dst_dtype == tsl_pkg::DTYPE_FP32 ? 2 : 1);
      s_base_q <= insn.src1_addr[LN +: PW];
      d_base_q <= insn.dst_addr[LN +: PW];
      gn_q     <= insn.rows >= 16'(G) ? (GW+1)'(G) : (GW+1)'(insn.rows);
      rows_q   <= insn.rows - (insn.rows >= 16'(G) ? 16'(G) : insn.rows);
      pass_q   <= insn.row == 2'(tsl_pkg::VPU_ROW_RMSNORM) ? 2'd1 : 2'd0;
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
      a_q    <= assemble(ib_q[0], ib_q[1], aw_j + 16'd1 == v_q,   // CAUSAL: lanes from ZERO_POINT + r - jN
                         34'(rn_q) + 34'(r0_q) + 34'(aw_g) - (34'(aw_j) << LN));
      ag_q   <= GW'(aw_g);
      af_q   <= aw_j == '0;
      ax_j_q <= aw_j[0];
      ax_l_q <= aw_g + 1'b1 == gn_q;
      ax_z_q <= aw_j + 16'd1 == v_q;
    end
    if (adv && av_q && pass_q != 2'd0) begin
      t_q    <= norm_q ? tstage(a_q, negm_q[ag_q], ax_z_q) : lanes(2'd0, a_q, {N{negm_q[ag_q]}});
      tg_q   <= ag_q;
      tf_q   <= af_q;
      tx_j_q <= ax_j_q;
      tx_l_q <= ax_l_q;
    end
    if (adv && state_q == RPass) begin
      eg_q <= {eg_q[(LAT-1)*GW-1:0], tg_q};
      ef_q <= {ef_q[LAT-2:0], tf_q};
      px_j_q <= {px_j_q[0], tx_j_q};
      px_l_q <= {px_l_q[0], tx_l_q};
    end
    if (adv && ev_q[LAT-1] && pass_q == 2'd2 && !norm_q) o_q <= narrow(lanes(2'd1, eup_y_i, {N{r_q[eg_out]}}));
    // the norms' stages: P (d x d, or d x R), Q (x gamma), O (+ beta)
    if (adv && tv_q && norm_q) p_q <= lanes(2'd1, t_q, pass_q == 2'd1 ? t_q : {N{r_q[tg_q]}});
    if (adv && ev_q[0] && pass_q == 2'd2 && norm_q) q_q <= lanes(2'd1, p_q, gam_q[32*N*px_j_q[0] +: 32*N]);
    if (adv && ev_q[1] && pass_q == 2'd2 && norm_q)
      o_q <= narrow(bias_q ? lanes(2'd0, q_q, bet_q[32*N*px_j_q[1] +: 32*N]) : q_q);
    // the lanes' running MAX (SOFTMAX) or sum (LAYERNORM) of each row in pass 0, from stage A; in
    // pass 1 their sum, of the EUP's exps (SOFTMAX) or of stage P's squares (the norms)
    if (adv && state_q == RPass) begin
      for (int k = 0; k < G; k++) begin
        if (av_q && pass_q == 2'd0 && ag_q == GW'(k))
          acc_q[32*N*k +: 32*N] <= af_q ? a_q : lanes(norm_q ? 2'd0 : 2'd2, acc_q[32*N*k +: 32*N], a_q);
        if (ev_q[LAT-1] && pass_q == 2'd1 && !norm_q && eg_out == GW'(k))
          acc_q[32*N*k +: 32*N] <= ef_q[LAT-1] ? eup_y_i : lanes(2'd0, acc_q[32*N*k +: 32*N], eup_y_i);
        if (ev_q[0] && pass_q == 2'd1 && norm_q && eg_q[0 +: GW] == GW'(k))
          acc_q[32*N*k +: 32*N] <= ef_q[0] ? p_q : lanes(2'd0, acc_q[32*N*k +: 32*N], p_q);
      end
    end
    // gamma and beta (the norms' pass 2): from pass 1's trees on, a line each grant
    if (state_q == RPass && drained && pass_q == 2'd1 && norm_q) begin
      pj_q  <= '0;
      fj_q  <= '0;
      cj_q  <= '0;
      pk_q  <= '0;
      gp_q  <= p_base_q;
    end
    if (pgnt) begin
      pk_q <= plast ? '0 : pk_q + 2'd1;
      if (plast) begin
        pj_q <= pj_q + 17'd1;
        gp_q <= gp_q + PW'(4);
      end
    end
    pk_d_q   <= pk_q;
    pslot_q  <= pj_q[0];
    pacc_d_q <= p_acc_q;
    if (pdv_q) begin
      for (int k = 0; k < 2; k++) begin
        if (pslot_q == 1'(k)) begin
          if (!p_two && !pk_d_q[0]) gam_q[32*N*k +: 32*N] <= {widen_h(pline[32*N-1:16*N]), widen_h(pline[16*N-1:0])};
          if (!p_two && pk_d_q[0])  bet_q[32*N*k +: 32*N] <= {widen_h(pline[32*N-1:16*N]), widen_h(pline[16*N-1:0])};
          if (p_two && pk_d_q == 2'd0) gam_q[32*N*k +: 16*N]        <= widen_h(pline[16*N-1:0]);
          if (p_two && pk_d_q == 2'd1) gam_q[32*N*k + 16*N +: 16*N] <= widen_h(pline[16*N-1:0]);
          if (p_two && pk_d_q == 2'd2) bet_q[32*N*k +: 16*N]        <= widen_h(pline[16*N-1:0]);
          if (p_two && pk_d_q == 2'd3) bet_q[32*N*k + 16*N +: 16*N] <= widen_h(pline[16*N-1:0]);
        end
      end
      if (pk_d_q == pk_last) fj_q <= fj_q + 17'd1;
    end
    if (adv && ev_q[1] && pass_q == 2'd2 && norm_q && px_l_q[1]) cj_q <= cj_q + 17'd1;
    // writes: a line each grant; the walk moves on after a vector's last line
    if (wgnt) begin
      wpart_q <= !wlast;
    end
    // the trees, then the next pass
    if (state_q == RPass && drained && pass_q != 2'd2) begin
      trow_q <= '0;
      lv_q   <= '0;
    end
    if (state_q == RTree) begin   // level 0 from the next row's lanes, level k from level k - 1
      lv_q[0]      <= trow_q != gn_q;
      lr_q[0 +: GW] <= GW'(trow_q);
      if (trow_q != gn_q) begin
        lp_q[0 +: 16*N] <= tree(acc_q[32*N*GW'(trow_q) +: 32*N], pass_q == 2'd0 && !norm_q, N / 2);
        trow_q          <= trow_q + 1'b1;
      end
      for (int k = 1; k < TL; k++) begin
        lv_q[k]           <= lv_q[k-1];
        lr_q[GW*k +: GW]  <= lr_q[GW*(k-1) +: GW];
        if (lv_q[k-1])
          lp_q[16*N*k +: 16*N] <= tree({{(16*N){1'b0}}, lp_q[16*N*(k-1) +: 16*N]}, pass_q == 2'd0 && !norm_q,
                                       N >> (k + 1));
      end
      if (lv_q[TL-1]) begin   // one pair left: the row's max (negated), sum, or the norms' values
        if (pass_q == 2'd0) negm_q[lr_q[(TL-1)*GW +: GW]] <= tree_end(1'b0, lp_q[16*N*(TL-1) +: 32],
                                                                     lp_q[16*N*(TL-1) + 32 +: 32]);
        else                r_q[lr_q[(TL-1)*GW +: GW]]    <= tree_end(1'b1, lp_q[16*N*(TL-1) +: 32],
                                                                     lp_q[16*N*(TL-1) + 32 +: 32]);
      end
    end
    if (tree_done) begin
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
      r0_q     <= r0_q + 16'(gn_q);
      pass_q   <= (norm_q && !ln_q) ? 2'd1 : 2'd0;
    end
  end

  // Assertions
  `include "hw/rtl/tsl_assert.svh"
  `TSL_ASSERT_INIT(RowGroup, G >= 2 && G <= N, "a group is 2 rows or more, and at most the lanes (RECIP of row g in lane g)")
  `TSL_ASSERT_INIT(RowTree, N >= 4, "a tree of one level in registers at least (N/2 values)")
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
