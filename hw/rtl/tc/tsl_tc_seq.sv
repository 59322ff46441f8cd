// Tile sequencer of the tensor core (docs/isa.md section 8): holds the descriptor (TC SEQ0..SEQ23),
// runs the launch checks (tsl_tc_seq_chk) on launch_i, then expands the GEMM into instructions in
// push order, one at a time on a valid/ready stream to the dispatcher. A step walks nested
// counters (i, p, c) without division; the loads of step s + 1 are walked by a load cursor one
// step ahead of the step being computed. Latency: chk_done_o 18 cycles after launch_i (27 for a CONV); after each
// handshake the next instruction is valid in the next cycle (one more at a step boundary).
// abort_i (CTRL.RESET) and halt_i (an error, sampled between handshakes) stop it at once.
module tsl_tc_seq #(
  parameter int N          = tsl_pkg::PARAM_N,           // array size (power of two, 4..128)
  parameter int VmemBytes  = tsl_pkg::PARAM_VMEM_BYTES,  // VMEM size (power of two, <= 16 MiB)
  parameter int AccBytes   = tsl_pkg::PARAM_ACC_BYTES,   // ACC size (power of two, <= 16 MiB)
  parameter int HbmBytes   = tsl_pkg::PARAM_HBM_BYTES,   // HBM size (power of two, <= 1 GiB)
  parameter bit EnableBf16 = 1'b1,                       // 0: a BF16 descriptor is ERR_BAD_FIELD
  parameter int CreditW    = 16                          // bits of a credit count
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 wr_i,          // descriptor word write (SEQ0..SEQ23)
  input  logic [4:0]           wr_word_i,
  input  logic [31:0]          wr_data_i,
  input  logic [31:0]          wr_mask_i,     // bit mask of the write strobes
  input  logic                 launch_i,      // SEQ23 written (with wr_i); only while !busy_o
  input  logic                 abort_i,
  input  logic                 halt_i,
  input  logic [9*CreditW-1:0] credit_i,      // the dispatcher's credits, for the launch check
  input  logic [31:0]          hbm_base_i,    // TC HBM_BASE, HBM_LIMIT: the launch check's HBM window
  input  logic [31:0]          hbm_limit_i,   // (held by the controller while busy_o)
  output logic                 busy_o,
  output logic                 chk_done_o,    // one-cycle pulse: the launch check ended
  output logic [3:0]           chk_err_o,     // with chk_done_o: ERR enum
  output logic [31:0]          chk_addr_o,    // with chk_done_o: ERR_ADDR
  output logic                 valid_o,
  input  logic                 ready_i,
  output logic [255:0]         insn_o
);
  localparam int NSh = $clog2(N);
  localparam logic [4:0] StIdle = 5'd0, StChk = 5'd1, StPad = 5'd2, StBias = 5'd3, StLoadA = 5'd4,
                         StLoadB = 5'd5, StStep = 5'd6, StMatk = 5'd7, StEpi = 5'd8,
                         StStore = 5'd9, StSync = 5'd10, StLast = 5'd11,
                         // CONV: an A tile's implicit im2col (fill, SYNC, per tap: column range, LOAD)
                         StCEnter = 5'd12, StCFill0 = 5'd13, StCFill1 = 5'd14, StCSync = 5'd15,
                         StCTap = 5'd16, StCLo = 5'd17, StCHi = 5'd18, StCLoad = 5'd19, StCSig = 5'd20,
                         // POST: the VPU op after the EPI; an old-C POST (ADD): the load of the old C
                         StPost = 5'd21, StLoadR = 5'd22;
  localparam logic [2:0] W_DMA = 3'b001, W_MXU = 3'b010, W_VPU = 3'b100;

`include "hw/rtl/tsl_insn.svh"
`include "hw/rtl/tsl_assert.svh"

  logic [32*tsl_pkg::PARAM_SEQ_WORDS-1:0] desc_q, desc_d;
  /* verilator lint_off UNUSEDSIGNAL */
  seq_desc_t    d;   // reserved bits and VMEM_ADDR are the launch check's
  /* verilator lint_on UNUSEDSIGNAL */
  assign d = desc_q;

  // ------------------------------------------------------------------------ launch checks
  logic        chk_done;
  logic [3:0]  chk_err;
  logic [31:0] chk_addr, a0, a1, b0, b1, o0, o1, vbias, acc1, pad_vecs, mc_lda, mc_ldc, kc_ldb;
  logic [31:0] cv_rows, cv_sh_row, cv_pt_row, cv_dh_row, cv_sw_lda, cv_pl_lda, cv_dw_lda, cv_owm1_sw,
               cv_row_loc, cv_kh_loc;
  logic [15:0] cv_fill_vecs;
  tsl_tc_seq_chk #(
    .N(N), .VmemBytes(VmemBytes), .AccBytes(AccBytes), .HbmBytes(HbmBytes),
    .EnableBf16(EnableBf16), .CreditW(CreditW)
  ) u_chk (
    .clk_i, .rst_ni,
    .start_i   (launch_i),
    .desc_i    (desc_d),
    .credit_i,
    .hbm_base_i,
    .hbm_limit_i,
    .done_o    (chk_done),
    .err_o     (chk_err),
    .err_addr_o(chk_addr),
    .a0_o(a0), .a1_o(a1), .b0_o(b0), .b1_o(b1), .o0_o(o0), .o1_o(o1), .bias_o(vbias),
    .acc1_o(acc1), .pad_vecs_o(pad_vecs), .mc_lda_o(mc_lda), .mc_ldc_o(mc_ldc), .kc_ldb_o(kc_ldb),
    .cv_rows_o(cv_rows), .cv_fill_o(cv_fill_vecs), .cv_sh_row_o(cv_sh_row), .cv_pt_row_o(cv_pt_row),
    .cv_dh_row_o(cv_dh_row), .cv_sw_lda_o(cv_sw_lda), .cv_pl_lda_o(cv_pl_lda), .cv_dw_lda_o(cv_dw_lda),
    .cv_owm1_sw_o(cv_owm1_sw), .cv_row_loc_o(cv_row_loc), .cv_kh_loc_o(cv_kh_loc)
  );
  assign chk_done_o = chk_done && st_q == StChk && !abort_i;
  assign chk_err_o  = chk_err;
  assign chk_addr_o = chk_addr;

  // ------------------------------------------------------------------- descriptor constants
  logic        es_sh;
  logic [1:0]  ces_sh;
  logic [16:0] kp;        // K rounded up to N
  logic [15:0] ncb;       // column blocks of C
  logic [16:0] nbw_n;     // NBW*N: columns of a panel
  logic        nch_gt1, npan_gt1, pad, plain, post, old_c;
  assign es_sh    = d.dtype == tsl_pkg::DTYPE_BF16;
  assign ces_sh   = d.c_dtype == tsl_pkg::DTYPE_INT8 ? 2'd0 : d.c_dtype == tsl_pkg::DTYPE_BF16 ? 2'd1 : 2'd2;
  assign kp       = (17'(d.k) + 17'(N - 1)) & ~(17'(N - 1));
  assign ncb      = 16'((17'(d.n) + 17'(N - 1)) >> NSh);
  assign nbw_n    = 17'(d.nbw) << NSh;
  assign nch_gt1  = kp > 17'(d.kc);
  assign npan_gt1 = ncb > 16'(d.nbw);
  assign pad      = d.k[NSh-1:0] != '0;
  // A 32-bit C with no epilogue is stored straight from its ACC tile: no EPI, and the STORE waits
  // for the MXU in place of the next loads but one.
  assign plain    = ces_sh == 2'd2 && !d.bias && !d.relu && !d.fscale && !d.conv && d.post == '0;
  // POST: the EPI's FP32 stays in the ACC tile for the POST VPU op, which ends in the OUT slot; an
  // old-C one (tsl_pkg::GEMM_POST_OLD_C: ADD) adds the old C loaded into the OUT slot first.
  assign post     = d.post != '0;
  assign old_c    = tsl_pkg::GEMM_POST_OLD_C[d.post];

  // ------------------------------------------------------------------------------- state
  logic [4:0]  st_q, st_d;
  // load cursor: the step whose loads are emitted next (l_*), p/c remainders and offsets
  logic [15:0] l_rem_m_q, l_rem_m_d, l_rem_ncb_q, l_rem_ncb_d;
  logic [16:0] l_rem_nc_q, l_rem_nc_d, l_rem_kp_q, l_rem_kp_d, l_rem_k_q, l_rem_k_d;
  logic [31:0] l_a_row_q, l_a_row_d, l_c_row_q, l_c_row_d, l_a_koff_q, l_a_koff_d;
  logic [31:0] l_b_krow_q, l_b_krow_d, l_poff_q, l_poff_d;   // l_poff: p*NBW*N (columns)
  logic        need_a_q, need_a_d, need_b_q, need_b_d, a_next_q, a_next_d, b_next_q, b_next_d;
  logic        a_cur_q, a_cur_d, b_cur_q, b_cur_d;   // slots of the load cursor's step
  logic [1:0]  l_s_q, l_s_d;                         // load cursor's step index, saturating at 2
  // compute step (a snapshot of the load cursor)
  logic [15:0] c_mr_q, c_mr_d, c_kw_q, c_kw_d, c_erows_q, c_erows_d;   // c_erows: mr*NBW
  logic [7:0]  c_nb_q, c_nb_d;
  logic [16:0] c_cols_q, c_cols_d;
  logic [31:0] c_c_row_q, c_c_row_d, c_poff_q, c_poff_d;
  logic        c_first_q, c_first_d, c_last_q, c_last_d, c_final_q, c_final_d;
  logic        c_aslot_q, c_aslot_d, c_bslot_q, c_bslot_d, started_q, started_d;
  logic        prev_last_q, prev_last_d;   // the step before the compute step ended a tile
  // column-block loop and tile/step counts
  logic [7:0]  j_q, j_d;
  logic [31:0] off_acc_q, off_acc_d, off_col_q, off_col_d;
  logic        tpar_q, tpar_d, wbuf_q, wbuf_d, dma_first_q, dma_first_d;
  logic [1:0]  t_q, t_d, s_q, s_d;                   // tiles / steps done, saturating at 2
  logic [1:0]  sync_u_q, sync_u_d, sync_k_q, sync_k_d;
  logic [31:0] pad_addr_q, pad_addr_d, pad_rem_q, pad_rem_d;
  // CONV walk of the load cursor's A tile: output row (q) and its image row (oh), tap row (kh),
  // tap column (kw), the tap's output column range [lo, hi]; signed values are input coordinates
  logic [1:0]  cv_la_q, cv_la_d;                     // A tiles loaded, saturating at 2
  logic [31:0] cv_rrem_q, cv_rrem_d;                 // output rows from the cursor's tile on
  logic [15:0] cv_q_q, cv_q_d, cv_oh_q, cv_oh_d;
  logic [31:0] cv_img_q, cv_img_d, cv_loc_q, cv_loc_d;   // image offset (HBM), row offset (A slot)
  logic signed [31:0] cv_ihb_q, cv_ihb_d, cv_ih_q, cv_ih_d, cv_x0_q, cv_x0_d, cv_iwl_q, cv_iwl_d;
  logic signed [31:0] cv_iwh_q, cv_iwh_d;
  logic [31:0] cv_ihba_q, cv_ihba_d, cv_iha_q, cv_iha_d, cv_x0a_q, cv_x0a_d, cv_iwla_q, cv_iwla_d;
  logic [31:0] cv_khl_q, cv_khl_d, cv_kwl_q, cv_kwl_d, cv_lofs_q, cv_lofs_d;
  logic [7:0]  cv_kh_q, cv_kh_d, cv_kw_q, cv_kw_d;
  logic signed [17:0] cv_lo_q, cv_lo_d, cv_hi_q, cv_hi_d;

  // --------------------------------------------------------------------- load cursor values
  logic [15:0] l_mr, l_kw, l_kv;
  logic [16:0] l_cols;
  logic [7:0]  l_nb;
  logic        l_clast, l_plast, l_ilast;
  assign l_mr    = l_rem_m_q < d.mc ? l_rem_m_q : d.mc;
  assign l_kw    = l_rem_kp_q < 17'(d.kc) ? 16'(l_rem_kp_q) : d.kc;
  assign l_kv    = l_rem_k_q < 17'(l_kw) ? 16'(l_rem_k_q) : l_kw;
  assign l_cols  = l_rem_nc_q < nbw_n ? l_rem_nc_q : nbw_n;
  assign l_nb    = l_rem_ncb_q < 16'(d.nbw) ? 8'(l_rem_ncb_q) : d.nbw;
  assign l_clast = l_rem_kp_q <= 17'(d.kc);
  assign l_plast = l_rem_ncb_q <= 16'(d.nbw);
  assign l_ilast = l_rem_m_q <= d.mc;

  // ------------------------------------------------------------------------ CONV walk values
  logic [15:0] cv_tr;        // output rows of the cursor's tile
  logic        cv_need_fill, cv_wrap, cv_ihok, cv_span, cv_lostep, cv_histep;
  logic [31:0] cv_pat;
  assign cv_tr     = cv_rrem_q < 32'(d.tile_rows) ? 16'(cv_rrem_q) : d.tile_rows;
  assign cv_wrap   = 32'(cv_oh_q) + 32'(cv_tr) > 32'(d.out_h);
  // the slot is filled when it is new or the tile reaches into the padding above or below
  assign cv_need_fill = cv_la_q != 2'd2 ||
                     (cv_wrap ? d.vpad_top != 8'd0 || d.vpad_end < d.out_h
                              : cv_oh_q < 16'(d.vpad_top) || 32'(cv_oh_q) + 32'(cv_tr) > 32'(d.vpad_end));
  assign cv_pat    = {4{d.a_zp}};
  assign cv_ihok   = cv_ih_q >= 0 && cv_ih_q < $signed(32'(d.in_h));
  assign cv_lostep = cv_iwl_q < 0 && cv_lo_q < $signed(18'(d.out_w));
  assign cv_histep = cv_hi_q >= cv_lo_q && cv_iwh_q >= $signed(32'(d.in_w));
  assign cv_span   = cv_hi_q >= cv_lo_q;

  // ------------------------------------------------------------------- the instruction out
  insn_dma_xfer_t    o_dma;
  insn_mxu_matmulk_t o_mk;
  insn_vpu_vec_t     o_vec;
  insn_vpu_epi_t     o_epi;
  insn_sync_t        o_sync;
  logic [2:0]        o_wait, o_signal;
  logic              j_last;
  logic [31:0]       acc_tile, out_tile, merged_bytes;
  insn_dma_xfer_t    o_xfer;   // a LOAD or STORE before its rows are merged
  assign j_last     = j_q == c_nb_q - 8'd1;
  assign acc_tile   = tpar_q ? acc1 : d.acc_addr;
  // A 32-bit C stays in its ACC tile (the EPI runs in place); a narrow one goes to the OUT slot.
  assign out_tile   = ces_sh == 2'd2 && !post ? acc_tile : tpar_q ? o1 : o0;

  always_comb begin
    o_wait   = 3'b000;
    o_signal = 3'b000;
    unique case (st_q)
      StPad: o_signal = pad_rem_q <= 32'd65535 && !d.conv ? W_DMA : 3'b000;
      StCFill0: o_signal = cv_pat == 32'd0 ? W_DMA : 3'b000;
      StCFill1: o_signal = W_DMA;
      StCSync: o_wait = (dma_first_q ? W_VPU : 3'b000) | (l_s_q == 2'd2 ? W_MXU : 3'b000);
      StCSig: o_signal = W_MXU;
      StBias: o_wait = dma_first_q ? W_VPU : 3'b000;
      StLoadA, StLoadB: begin
        if (st_q == StLoadA || !need_a_q)
          o_wait = (dma_first_q ? W_VPU : 3'b000) |
                   (l_s_q == 2'd2 && !(plain && prev_last_q) ? W_MXU : 3'b000);
        if (st_q == StLoadB || !need_b_q) o_signal = W_MXU;
      end
      StMatk: begin
        if (j_q == 8'd0) o_wait = W_DMA | (c_first_q && t_q == 2'd2 && !plain ? W_VPU : 3'b000);
        if (j_last) o_signal = W_DMA | (c_last_q && !plain ? W_VPU : 3'b000);
      end
      StEpi: begin
        o_wait   = W_MXU | (t_q == 2'd2 ? W_DMA : 3'b000);
        o_signal = post ? 3'b000 : W_DMA | W_MXU;
      end
      StPost: begin
        o_wait   = old_c ? W_DMA : 3'b000;   // the old C's load
        o_signal = W_DMA | W_MXU;
      end
      StLoadR: o_signal = W_VPU;
      StStore: begin
        o_wait   = plain ? W_MXU : W_VPU;
        o_signal = plain ? 3'b000 : W_VPU;
      end
      StSync, StLast: o_wait = sync_u_q == 2'd0 ? W_MXU : sync_u_q == 2'd1 ? W_VPU : W_DMA;
      default: ;
    endcase
  end

  always_comb begin
    o_xfer            = '0;
    o_xfer.unit       = tsl_pkg::UNIT_DMA;
    o_xfer.op         = 4'(tsl_pkg::DMA_OP_LOAD);
    o_xfer.wait_f     = o_wait;
    o_xfer.signal     = o_signal;
    unique case (st_q)
      StBias: begin
        o_xfer.hbm_addr   = d.bias_addr;
        o_xfer.local_addr = vbias;
        o_xfer.rows       = 16'd1;
        o_xfer.row_bytes  = 16'(32'(d.n) << 2);
      end
      StLoadA: begin
        o_xfer.hbm_addr     = l_a_row_q + l_a_koff_q;
        o_xfer.local_addr   = a_next_q ? a1 : a0;
        o_xfer.rows         = l_mr;
        o_xfer.row_bytes    = l_kv << es_sh;
        o_xfer.hbm_stride   = d.lda;
        o_xfer.local_stride = 32'(l_kw) << es_sh;
      end
      StLoadB: begin
        o_xfer.hbm_addr     = l_b_krow_q + (l_poff_q << es_sh);
        o_xfer.local_addr   = b_next_q ? b1 : b0;
        o_xfer.rows         = l_kv;
        o_xfer.row_bytes    = 16'(l_cols << es_sh);
        o_xfer.hbm_stride   = d.ldb;
        o_xfer.local_stride = 32'(nbw_n) << es_sh;
      end
      StLoadR: begin   // old-C POST: the old C of the load cursor's tile, into its OUT slot
        o_xfer.hbm_addr     = l_c_row_q + (l_poff_q << ces_sh);
        o_xfer.local_addr   = tpar_q ^ started_q ? o1 : o0;   // the tile after the compute step's
        o_xfer.rows         = l_mr;
        o_xfer.row_bytes    = 16'(l_cols << ces_sh);
        o_xfer.hbm_stride   = d.ldc;
        o_xfer.local_stride = 32'(nbw_n) << ces_sh;
      end
      StCLoad: begin   // CONV: a tap of one output row, its columns [lo, hi]
        o_xfer.hbm_addr     = d.a_addr + cv_img_q + cv_iha_q + cv_iwla_q;
        o_xfer.local_addr   = (a_next_q ? a1 : a0) + cv_loc_q + cv_lofs_q + cv_khl_q + cv_kwl_q;
        o_xfer.rows         = 16'(cv_hi_q - cv_lo_q + 18'sd1);
        o_xfer.row_bytes    = 16'(32'(d.cg) << es_sh);
        o_xfer.hbm_stride   = cv_sw_lda;
        o_xfer.local_stride = 32'(d.kc) << es_sh;
      end
      default: begin   // StStore: the tile, row by row
        o_xfer.op           = 4'(tsl_pkg::DMA_OP_STORE);
        o_xfer.hbm_addr     = c_c_row_q + (c_poff_q << ces_sh);
        o_xfer.local_addr   = out_tile;
        o_xfer.rows         = c_mr_q;
        o_xfer.row_bytes    = 16'(c_cols_q << ces_sh);
        o_xfer.hbm_stride   = d.ldc;
        o_xfer.local_stride = 32'(nbw_n) << ces_sh;
      end
    endcase
    // Rows that follow each other in HBM and locally (both strides = the row) go out as one row
    // when it fits ROW_BYTES: one long burst instead of many short ones.
    merged_bytes = 32'(o_xfer.rows) * 32'(o_xfer.row_bytes);
    o_dma        = o_xfer;
    if (o_xfer.hbm_stride == 32'(o_xfer.row_bytes) && o_xfer.local_stride == 32'(o_xfer.row_bytes) &&
        merged_bytes <= 32'd65535) begin
      o_dma.rows      = 16'd1;
      o_dma.row_bytes = merged_bytes[15:0];
    end

    o_mk            = '0;
    o_mk.unit       = tsl_pkg::UNIT_MXU;
    o_mk.op         = 4'(tsl_pkg::MXU_OP_MATMULK);
    o_mk.wait_f     = o_wait;
    o_mk.signal     = o_signal;
    o_mk.dtype      = d.dtype;
    o_mk.wbuf       = wbuf_q;
    o_mk.accumulate = !c_first_q;
    o_mk.act_addr   = c_aslot_q ? a1 : a0;
    o_mk.act_stride = 32'(c_kw_q) << es_sh;
    o_mk.acc_addr   = acc_tile + off_acc_q;
    o_mk.acc_stride = 32'(nbw_n) << 2;
    o_mk.rows       = c_mr_q;
    o_mk.kblocks    = 12'(c_kw_q >> NSh);
    o_mk.w_addr     = (c_bslot_q ? b1 : b0) + (off_col_q << es_sh);
    o_mk.w_stride   = 32'(nbw_n) << es_sh;

    o_epi            = '0;
    o_epi.unit       = tsl_pkg::UNIT_VPU;
    o_epi.op         = 4'(tsl_pkg::VPU_OP_EPI);
    o_epi.wait_f     = o_wait;
    o_epi.signal     = o_signal;
    o_epi.dst_dtype  = post ? tsl_pkg::DTYPE_FP32 : d.c_dtype;
    o_epi.src1_dtype = es_sh ? tsl_pkg::DTYPE_FP32 : tsl_pkg::DTYPE_INT32;
    o_epi.bias       = d.bias;
    o_epi.relu       = d.relu;
    o_epi.fscale     = d.fscale;
    o_epi.dst_addr   = post ? acc_tile : out_tile;
    o_epi.src1_addr  = acc_tile;
    o_epi.src2_addr  = d.bias ? vbias + (c_poff_q << 2) : 32'd0;
    o_epi.rows       = c_erows_q;
    o_epi.scale      = d.scale;
    o_epi.shift      = d.shift;
    o_epi.bvecs      = d.bias ? 16'(d.nbw) : 16'd0;
    o_epi.zero_point = d.zero_point;

    o_vec            = '0;   // the K padding: INT8 MUL by the immediate 0
    o_vec.unit       = tsl_pkg::UNIT_VPU;
    o_vec.op         = 4'(tsl_pkg::VPU_OP_MUL);
    o_vec.signal     = o_signal;
    o_vec.dst_dtype  = tsl_pkg::DTYPE_INT8;
    o_vec.src1_dtype = tsl_pkg::DTYPE_INT8;
    o_vec.src2_dtype = tsl_pkg::DTYPE_INT32;
    o_vec.src2_mode  = tsl_pkg::SRC2_IMM;
    o_vec.dst_addr   = pad_addr_q;
    o_vec.src1_addr  = pad_addr_q;
    o_vec.rows       = pad_rem_q > 32'd65535 ? 16'd65535 : 16'(pad_rem_q);
    if (st_q == StCFill0 || st_q == StCFill1) begin   // CONV: INT32 MUL by 0, then ADD of the pattern
      o_vec.op         = st_q == StCFill0 ? 4'(tsl_pkg::VPU_OP_MUL) : 4'(tsl_pkg::VPU_OP_ADD);
      o_vec.dst_dtype  = tsl_pkg::DTYPE_INT32;
      o_vec.src1_dtype = tsl_pkg::DTYPE_INT32;
      o_vec.dst_addr   = a_next_q ? a1 : a0;
      o_vec.src1_addr  = a_next_q ? a1 : a0;
      o_vec.src2_addr  = st_q == StCFill0 ? 32'd0 : cv_pat;
      o_vec.rows       = cv_fill_vecs;
    end
    if (st_q == StPost) begin   // from the ACC tile (FP32) into the OUT slot
      o_vec            = '0;
      o_vec.unit       = tsl_pkg::UNIT_VPU;
      o_vec.op         = tsl_pkg::gemm_post_op(d.post);
      o_vec.act        = tsl_pkg::gemm_post_act(d.post);
      o_vec.wait_f     = o_wait;
      o_vec.signal     = o_signal;
      o_vec.dst_dtype  = d.c_dtype;
      o_vec.src1_dtype = tsl_pkg::DTYPE_FP32;
      o_vec.dst_addr   = out_tile;
      o_vec.src1_addr  = acc_tile;
      o_vec.rows       = c_erows_q;
      if (old_c) begin   // plus the old C in the OUT slot
        o_vec.src2_dtype = d.c_dtype;
        o_vec.src2_addr  = out_tile;
      end
    end

    o_sync        = '0;
    o_sync.unit   = st_q == StCSync || st_q == StCSig ? 2'(tsl_pkg::UNIT_DMA) : sync_u_q;
    o_sync.wait_f = o_wait;
    o_sync.signal = o_signal;

    unique case (st_q)
      StPad, StCFill0, StCFill1, StPost:  insn_o = o_vec;
      StBias, StLoadA, StLoadB, StLoadR, StStore, StCLoad: insn_o = o_dma;
      StMatk:                           insn_o = o_mk;
      StEpi:                            insn_o = o_epi;
      default:                          insn_o = o_sync;
    endcase
  end

  assign valid_o = st_q == StPad || st_q == StBias || st_q == StLoadA || st_q == StLoadB ||
                   st_q == StLoadR || st_q == StMatk || st_q == StEpi || st_q == StPost ||
                   st_q == StStore || st_q == StSync || st_q == StLast ||
                   st_q == StCFill0 || st_q == StCFill1 || st_q == StCSync || st_q == StCLoad || st_q == StCSig;
  assign busy_o  = st_q != StIdle;

  // ------------------------------------------------------------------------------ the walk
  logic hs;
  assign hs = valid_o && ready_i;
  logic [4:0] st_a;   // where the loads of A start
  logic       cv_adv;   // CONV: the walk moves past the current tap
  assign st_a = d.conv ? StCEnter : StLoadA;

  // The descriptor's next value has a block of its own: it feeds the launch checks, whose outputs
  // the walk's block reads (in one block, a simulator that wakes a block on any write to what it
  // reads, as Icarus does, would run the two without end).
  always_comb begin
    desc_d = desc_q;
    if (wr_i) desc_d[32 * wr_word_i +: 32] = (desc_q[32 * wr_word_i +: 32] & ~wr_mask_i) |
                                             (wr_data_i & wr_mask_i);
    if (abort_i) desc_d = '0;   // CTRL.RESET clears SEQ0..SEQ23
  end

  always_comb begin
    st_d = st_q;
    {l_rem_m_d, l_rem_ncb_d, l_rem_nc_d, l_rem_kp_d, l_rem_k_d} =
        {l_rem_m_q, l_rem_ncb_q, l_rem_nc_q, l_rem_kp_q, l_rem_k_q};
    {l_a_row_d, l_c_row_d, l_a_koff_d, l_b_krow_d, l_poff_d} =
        {l_a_row_q, l_c_row_q, l_a_koff_q, l_b_krow_q, l_poff_q};
    {need_a_d, need_b_d, a_next_d, b_next_d, a_cur_d, b_cur_d, l_s_d} =
        {need_a_q, need_b_q, a_next_q, b_next_q, a_cur_q, b_cur_q, l_s_q};
    {c_mr_d, c_kw_d, c_erows_d, c_nb_d, c_cols_d, c_c_row_d, c_poff_d} =
        {c_mr_q, c_kw_q, c_erows_q, c_nb_q, c_cols_q, c_c_row_q, c_poff_q};
    {c_first_d, c_last_d, c_final_d, c_aslot_d, c_bslot_d, started_d, prev_last_d} =
        {c_first_q, c_last_q, c_final_q, c_aslot_q, c_bslot_q, started_q, prev_last_q};
    {j_d, off_acc_d, off_col_d} = {j_q, off_acc_q, off_col_q};
    {tpar_d, wbuf_d, dma_first_d, t_d, s_d, sync_u_d, sync_k_d, pad_addr_d, pad_rem_d} =
        {tpar_q, wbuf_q, dma_first_q, t_q, s_q, sync_u_q, sync_k_q, pad_addr_q, pad_rem_q};
    {cv_la_d, cv_rrem_d, cv_q_d, cv_oh_d, cv_img_d, cv_loc_d, cv_ihb_d, cv_ih_d, cv_x0_d, cv_iwl_d, cv_iwh_d} =
        {cv_la_q, cv_rrem_q, cv_q_q, cv_oh_q, cv_img_q, cv_loc_q, cv_ihb_q, cv_ih_q, cv_x0_q, cv_iwl_q, cv_iwh_q};
    {cv_ihba_d, cv_iha_d, cv_x0a_d, cv_iwla_d, cv_khl_d, cv_kwl_d, cv_lofs_d, cv_kh_d, cv_kw_d, cv_lo_d, cv_hi_d} =
        {cv_ihba_q, cv_iha_q, cv_x0a_q, cv_iwla_q, cv_khl_q, cv_kwl_q, cv_lofs_q, cv_kh_q, cv_kw_q, cv_lo_q, cv_hi_q};
    cv_adv = 1'b0;

    unique case (st_q)
      StIdle: if (launch_i) st_d = StChk;
      StChk: begin
        if (chk_done) begin
          st_d = chk_err != tsl_pkg::ERR_NONE ? StIdle : pad ? StPad : d.bias ? StBias : st_a;
          l_rem_m_d   = d.m;
          l_rem_ncb_d = ncb;
          l_rem_nc_d  = 17'(d.n);
          l_rem_kp_d  = kp;
          l_rem_k_d   = 17'(d.k);
          l_a_row_d   = d.a_addr;
          l_c_row_d   = d.c_addr;
          l_a_koff_d  = 32'd0;
          l_b_krow_d  = d.b_addr;
          l_poff_d    = 32'd0;
          {need_a_d, need_b_d, a_next_d, b_next_d, l_s_d} = {1'b1, 1'b1, 1'b0, 1'b0, 2'd0};
          {started_d, tpar_d, wbuf_d, t_d, s_d} = {1'b0, 1'b0, 1'b0, 2'd0, 2'd0};
          dma_first_d = pad && !d.conv;
          pad_addr_d  = a0;
          pad_rem_d   = pad_vecs;
          {cv_la_d, cv_q_d, cv_oh_d, cv_img_d, cv_loc_d} = '0;
          cv_rrem_d = cv_rows;
          cv_ihb_d  = -$signed(32'(d.pad_t));
          cv_ihba_d = -cv_pt_row;
        end
      end
      StPad: if (hs) begin
        pad_addr_d = pad_addr_q + (32'(o_vec.rows) << NSh);
        pad_rem_d  = pad_rem_q - 32'(o_vec.rows);
        if (pad_rem_q <= 32'd65535) st_d = d.bias ? StBias : st_a;
      end
      StBias: if (hs) begin
        dma_first_d = 1'b0;
        st_d = st_a;
      end
      StLoadA, StLoadB: begin
        if (hs) begin
          dma_first_d = 1'b0;
          if (st_q == StLoadA) begin
            a_cur_d  = a_next_q;
            a_next_d = !a_next_q;
          end else begin
            b_cur_d  = b_next_q;
            b_next_d = !b_next_q;
          end
          if (st_q == StLoadA && need_b_q) st_d = StLoadB;
          else if (old_c && l_rem_kp_q == kp) st_d = StLoadR;   // the cursor's step starts a tile
          else st_d = started_q ? StMatk : StStep;
        end
      end
      StStep: begin
        // The compute step takes the load cursor's step; the cursor moves on to the next step.
        started_d  = 1'b1;
        prev_last_d = c_last_q;
        s_d        = s_q == 2'd2 ? 2'd2 : s_q + 2'd1;
        c_mr_d     = l_mr;
        c_kw_d     = l_kw;
        c_erows_d  = 16'(l_mr * 16'(d.nbw));   // <= MC*NBW <= 65535 (check 1)
        c_nb_d     = l_nb;
        c_cols_d   = l_cols;
        c_c_row_d  = l_c_row_q;
        c_poff_d   = l_poff_q;
        c_first_d  = l_rem_kp_q == kp;
        c_last_d   = l_clast;
        c_final_d  = l_clast && l_plast && l_ilast;
        c_aslot_d  = a_cur_q;
        c_bslot_d  = b_cur_q;
        j_d        = 8'd0;
        {off_acc_d, off_col_d} = '0;
        if (l_clast && l_plast && l_ilast) begin
          // plain: the last STORE must not take the token of the step before, which no load took
          st_d     = plain && started_q && !c_last_q ? StLast : StMatk;
          sync_u_d = 2'd0;
        end else begin
          l_s_d  = l_s_q == 2'd2 ? 2'd2 : l_s_q + 2'd1;
          need_a_d = 1'b1;
          need_b_d = 1'b1;
          if (!l_clast) begin
            l_rem_kp_d = l_rem_kp_q - 17'(d.kc);
            l_rem_k_d  = l_rem_k_q - 17'(d.kc);
            l_a_koff_d = l_a_koff_q + (32'(d.kc) << es_sh);
            l_b_krow_d = l_b_krow_q + kc_ldb;
          end else begin
            l_rem_kp_d = kp;
            l_rem_k_d  = 17'(d.k);
            l_a_koff_d = 32'd0;
            l_b_krow_d = d.b_addr;
            need_b_d   = nch_gt1 || npan_gt1;
            need_a_d   = nch_gt1 || l_plast;
            if (!l_plast) begin
              l_rem_ncb_d = l_rem_ncb_q - 16'(d.nbw);
              l_rem_nc_d  = l_rem_nc_q - nbw_n;
              l_poff_d    = l_poff_q + 32'(nbw_n);
            end else begin
              l_rem_ncb_d = ncb;
              l_rem_nc_d  = 17'(d.n);
              l_poff_d    = 32'd0;
              l_rem_m_d   = l_rem_m_q - d.mc;
              l_a_row_d   = l_a_row_q + mc_lda;
              l_c_row_d   = l_c_row_q + mc_ldc;
            end
          end
          st_d = need_a_d ? st_a : StLoadB;
        end
      end
      StLoadR: if (hs) st_d = started_q ? StMatk : StStep;
      StMatk, StEpi, StPost, StStore: if (hs) begin
        j_d       = j_q + 8'd1;
        off_acc_d = off_acc_q + 32'(4 * N);
        off_col_d = off_col_q + 32'(N);
        if (st_q == StMatk) wbuf_d = wbuf_q ^ o_mk.kblocks[0];
        if (st_q != StMatk || j_last) begin   // one EPI and one STORE per tile
          j_d = 8'd0;
          {off_acc_d, off_col_d} = '0;
          if (st_q == StMatk && c_last_q) begin
            st_d = plain ? StStore : StEpi;
          end else if (st_q == StEpi || st_q == StPost) begin
            st_d = st_q == StEpi && post ? StPost : StStore;
          end else begin
            if (st_q == StStore) begin
              tpar_d = !tpar_q;
              t_d    = t_q == 2'd2 ? 2'd2 : t_q + 2'd1;
            end
            st_d     = !c_final_q ? StStep : plain ? StIdle : StSync;
            sync_u_d = 2'd0;
            sync_k_d = 2'd0;
          end
        end
      end
      StLast: if (hs) st_d = StMatk;
      // CONV: the A tile of the load cursor (section 8)
      StCEnter: st_d = cv_need_fill ? StCFill0 : StCSync;
      StCFill0, StCFill1: if (hs) begin
        dma_first_d = 1'b1;   // the SYNC waits for the fill
        st_d = st_q == StCFill0 && cv_pat != 32'd0 ? StCFill1 : StCSync;
      end
      StCSync: if (hs) begin
        dma_first_d = 1'b0;
        {cv_q_d, cv_kh_d, cv_khl_d} = '0;
        cv_ih_d  = cv_ihb_q;
        cv_iha_d = cv_ihba_q;
        st_d     = StCTap;
      end
      StCTap: begin   // tap row kh of output row q: its columns from tap column 0, or none
        if (cv_ihok) begin
          {cv_kw_d, cv_kwl_d, cv_lo_d, cv_lofs_d} = '0;
          cv_x0_d   = -$signed(32'(d.pad_l));
          cv_x0a_d  = -cv_pl_lda;
          cv_iwl_d  = -$signed(32'(d.pad_l));
          cv_iwla_d = -cv_pl_lda;
          st_d      = StCLo;
        end else begin
          cv_adv = 1'b1;
        end
      end
      StCLo: begin   // the first output column whose tap is right of the padding
        if (cv_lostep) begin
          cv_lo_d   = cv_lo_q + 18'sd1;
          cv_iwl_d  = cv_iwl_q + $signed(32'(d.stride_w));
          cv_iwla_d = cv_iwla_q + cv_sw_lda;
          cv_lofs_d = cv_lofs_q + (32'(d.kc) << es_sh);
        end else begin
          cv_hi_d  = $signed(18'(d.out_w)) - 18'sd1;
          cv_iwh_d = cv_x0_q + $signed(cv_owm1_sw);
          st_d     = StCHi;
        end
      end
      StCHi: begin   // the last one left of the padding
        if (cv_histep) begin
          cv_hi_d  = cv_hi_q - 18'sd1;
          cv_iwh_d = cv_iwh_q - $signed(32'(d.stride_w));
        end else if (cv_span) begin
          st_d = StCLoad;
        end else begin
          cv_adv = 1'b1;
        end
      end
      StCLoad: if (hs) cv_adv = 1'b1;
      StCSig: if (hs) st_d = started_q ? StMatk : StStep;
      StSync: if (hs) begin
        sync_k_d = sync_k_q + 2'd1;
        if (sync_k_q + 2'd1 == (sync_u_q == 2'd0 ? s_q : t_q)) begin
          sync_k_d = 2'd0;
          sync_u_d = sync_u_q + 2'd1;
          if (sync_u_q == 2'd2) st_d = StIdle;
        end
      end
      default: st_d = StIdle;
    endcase
    // CONV: the next tap column, tap row or output row; after the tile's last, the B load or a
    // SYNC that signals MXU
    if (cv_adv) begin
      if (st_q != StCTap && cv_kw_q != d.kw - 8'd1) begin
        cv_kw_d   = cv_kw_q + 8'd1;
        cv_x0_d   = cv_x0_q + $signed(32'(d.dil_w));
        cv_x0a_d  = cv_x0a_q + cv_dw_lda;
        cv_kwl_d  = cv_kwl_q + (32'(d.cg) << es_sh);
        cv_lo_d   = '0;
        cv_lofs_d = '0;
        cv_iwl_d  = cv_x0_q + $signed(32'(d.dil_w));
        cv_iwla_d = cv_x0a_q + cv_dw_lda;
        st_d      = StCLo;
      end else if (cv_kh_q != d.kh - 8'd1) begin
        cv_kh_d  = cv_kh_q + 8'd1;
        cv_ih_d  = cv_ih_q + $signed(32'(d.dil_h));
        cv_iha_d = cv_iha_q + cv_dh_row;
        cv_khl_d = cv_khl_q + cv_kh_loc;
        st_d     = StCTap;
      end else begin
        cv_kh_d  = 8'd0;
        cv_khl_d = '0;
        cv_q_d   = cv_q_q + 16'd1;
        cv_loc_d = cv_loc_q + cv_row_loc;
        if (cv_oh_q == d.out_h - 16'd1) begin
          cv_oh_d   = 16'd0;
          cv_img_d  = cv_img_q + d.img_stride;
          cv_ihb_d  = -$signed(32'(d.pad_t));
          cv_ihba_d = -cv_pt_row;
        end else begin
          cv_oh_d   = cv_oh_q + 16'd1;
          cv_ihb_d  = cv_ihb_q + $signed(32'(d.stride_h));
          cv_ihba_d = cv_ihba_q + cv_sh_row;
        end
        cv_ih_d  = cv_ihb_d;
        cv_iha_d = cv_ihba_d;
        st_d     = StCTap;
        if (cv_q_q == cv_tr - 16'd1) begin   // the tile's A is complete
          cv_q_d    = 16'd0;
          cv_loc_d  = '0;
          cv_rrem_d = cv_rrem_q - 32'(cv_tr);
          cv_la_d   = cv_la_q == 2'd2 ? 2'd2 : cv_la_q + 2'd1;
          a_cur_d   = a_next_q;
          a_next_d  = !a_next_q;
          st_d      = need_b_q ? StLoadB : StCSig;
        end
      end
    end
    if (abort_i || halt_i) st_d = StIdle;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q   <= StIdle;
      desc_q <= '0;
    end else begin
      st_q   <= st_d;
      desc_q <= desc_d;
    end
  end

  // Walk registers: meaningful only while busy, set at the launch check's end (no reset).
  always_ff @(posedge clk_i) begin
    {l_rem_m_q, l_rem_ncb_q, l_rem_nc_q, l_rem_kp_q, l_rem_k_q} <=
        {l_rem_m_d, l_rem_ncb_d, l_rem_nc_d, l_rem_kp_d, l_rem_k_d};
    {l_a_row_q, l_c_row_q, l_a_koff_q, l_b_krow_q, l_poff_q} <=
        {l_a_row_d, l_c_row_d, l_a_koff_d, l_b_krow_d, l_poff_d};
    {need_a_q, need_b_q, a_next_q, b_next_q, a_cur_q, b_cur_q, l_s_q} <=
        {need_a_d, need_b_d, a_next_d, b_next_d, a_cur_d, b_cur_d, l_s_d};
    {c_mr_q, c_kw_q, c_erows_q, c_nb_q, c_cols_q, c_c_row_q, c_poff_q} <=
        {c_mr_d, c_kw_d, c_erows_d, c_nb_d, c_cols_d, c_c_row_d, c_poff_d};
    {c_first_q, c_last_q, c_final_q, c_aslot_q, c_bslot_q, started_q, prev_last_q} <=
        {c_first_d, c_last_d, c_final_d, c_aslot_d, c_bslot_d, started_d, prev_last_d};
    {j_q, off_acc_q, off_col_q} <= {j_d, off_acc_d, off_col_d};
    {tpar_q, wbuf_q, dma_first_q, t_q, s_q, sync_u_q, sync_k_q, pad_addr_q, pad_rem_q} <=
        {tpar_d, wbuf_d, dma_first_d, t_d, s_d, sync_u_d, sync_k_d, pad_addr_d, pad_rem_d};
    {cv_la_q, cv_rrem_q, cv_q_q, cv_oh_q, cv_img_q, cv_loc_q, cv_ihb_q, cv_ih_q, cv_x0_q, cv_iwl_q, cv_iwh_q} <=
        {cv_la_d, cv_rrem_d, cv_q_d, cv_oh_d, cv_img_d, cv_loc_d, cv_ihb_d, cv_ih_d, cv_x0_d, cv_iwl_d, cv_iwh_d};
    {cv_ihba_q, cv_iha_q, cv_x0a_q, cv_iwla_q, cv_khl_q, cv_kwl_q, cv_lofs_q, cv_kh_q, cv_kw_q, cv_lo_q, cv_hi_q} <=
        {cv_ihba_d, cv_iha_d, cv_x0a_d, cv_iwla_d, cv_khl_d, cv_kwl_d, cv_lofs_d, cv_kh_d, cv_kw_d, cv_lo_d, cv_hi_d};
  end

  // ------------------------------------------------------------------------------ assertions
  `TSL_ASSERT_INIT(NRange, N >= 4 && N <= 128 && (N & (N - 1)) == 0, "N must be a power of two in 4..128")
  `TSL_ASSERT(LaunchIdle, launch_i |-> !busy_o, "a launch while the sequencer is busy")
  `TSL_ASSERT(WriteIdle, wr_i |-> !busy_o, "a descriptor write while the sequencer is busy")
  `TSL_ASSERT(StepLoads, st_q == StStep && !(l_clast && l_plast && l_ilast) |->
              (nch_gt1 || npan_gt1 || l_plast), "a step without loads")
  `TSL_ASSERT(ReadyValid, ready_i |-> valid_o, "ready without an instruction offered")
  `TSL_ASSERT(InsnStable, valid_o && !ready_i && !abort_i && !halt_i |=> valid_o && $stable(insn_o),
              "the offered instruction changed or was withdrawn before its handshake")
  `TSL_ASSERT(NbNonZero, st_q == StMatk |-> c_nb_q != 8'd0 && c_mr_q != 16'd0 && c_kw_q != 16'd0,
              "an empty tile or chunk")
endmodule
