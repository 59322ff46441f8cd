// Launch checks and VMEM/ACC layout of the tile sequencer (docs/isa.md section 8): the checks
// 1-4 in their order on the descriptor held stable on desc_i, and the addresses and products the
// expansion walks with (hw/model/tslm_seq.c tslm_seq_check is the reference, including ERR_ADDR).
// Latency: done_o is a one-cycle pulse 27 cycles (a GEMM: 18) after start_i (one 16x32 product per cycle
// through one shared multiplier, meanwhile NCB mod NBW bit-serially for the panels' bias columns;
// then the layout chain, then the checks); every output is valid with done_o and holds until the
// next start_i. Extents are computed in 64 bits, without wrap-around. credit_i and the HBM window
// [hbm_base_i, hbm_limit_i) are sampled in the cycle of done_o (the controller holds the window
// while the sequencer is busy).
module tsl_tc_seq_chk #(
  parameter int N          = tsl_pkg::PARAM_N,           // array size (power of two, 4..128)
  parameter int VmemBytes  = tsl_pkg::PARAM_VMEM_BYTES,  // VMEM size (power of two, <= 16 MiB)
  parameter int AccBytes   = tsl_pkg::PARAM_ACC_BYTES,   // ACC size (power of two, <= 16 MiB)
  parameter int HbmBytes   = tsl_pkg::PARAM_HBM_BYTES,   // HBM size (power of two, <= 1 GiB)
  parameter bit EnableBf16 = 1'b1,                       // 0: a BF16 descriptor is ERR_BAD_FIELD
  parameter int CreditW    = 16                          // bits of a credit count
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 start_i,
  input  logic [32*tsl_pkg::PARAM_SEQ_WORDS-1:0] desc_i,
  input  logic [9*CreditW-1:0] credit_i,
  input  logic [31:0]          hbm_base_i,   // HBM window (TC HBM_BASE, HBM_LIMIT): every HBM operand
  input  logic [31:0]          hbm_limit_i,  // lies in [hbm_base_i, hbm_limit_i) and in HbmBytes
  output logic                 done_o,
  output logic [3:0]           err_o,        // ERR enum (ERR_NONE: the descriptor is good)
  output logic [31:0]          err_addr_o,
  // layout (VMEM and ACC local addresses) and walk increments, valid when err_o is ERR_NONE
  output logic [31:0]          a0_o, a1_o, b0_o, b1_o, o0_o, o1_o, bias_o, acc1_o,
  output logic [31:0]          pad_vecs_o,   // N-byte vectors from a0 to the end of B slot 1
  output logic [31:0]          mc_lda_o, mc_ldc_o, kc_ldb_o,
  // CONV (section 8): the im2col walk's increments (bytes; a product with PAD is subtracted)
  output logic [31:0]          cv_rows_o,     // BATCH*OUT_H output rows
  output logic [15:0]          cv_fill_o,     // INT32 vectors of an A slot's fill
  output logic [31:0]          cv_sh_row_o, cv_pt_row_o, cv_dh_row_o,   // SH, PT, DH times ROW_STRIDE
  output logic [31:0]          cv_sw_lda_o, cv_pl_lda_o, cv_dw_lda_o,   // SW, PL, DW times LDA
  output logic [31:0]          cv_owm1_sw_o,  // (OUT_W-1)*SW
  output logic [31:0]          cv_row_loc_o,  // OUT_W*KC*es: an output row of the A slot
  output logic [31:0]          cv_kh_loc_o    // KW*CG*es: a tap row within an A row
);
  localparam int NSh = $clog2(N);
  localparam int NProd = 25;
  localparam logic [4:0] StepLayout = 5'd25, StepCheck = 5'd26;

`include "hw/rtl/tsl_insn.svh"
  /* verilator lint_off UNUSEDSIGNAL */
  seq_desc_t d;   // reserved bits (checked through desc_i) and RELU are not checked here
  /* verilator lint_on UNUSEDSIGNAL */
  assign d = desc_i;

  logic        run_q, run_d;
  logic [4:0]  step_q, step_d;
  logic [7:0]  rem_q, rem_d;   // NCB mod NBW, bit-serially over steps 0..15 (restoring division)
  logic [8:0]  rem_sh;
  logic [NProd*48-1:0] prod;   // the products, in step order (below): product k at [48k +: 48]
  logic [47:0] prod_d;
  logic [15:0] mul_a;
  logic [31:0] mul_b;
  logic [8*40-1:0] lay_q, lay_d;   // a0 a1 b0 b1 o0 o1 bias end (VMEM); relative to VMEM_ADDR

  // Sizes of the descriptor's types: es = size(DTYPE), ces = size(C_DTYPE) as shifts.
  logic        es_sh, fl;
  logic [1:0]  ces_sh;
  logic [15:0] ncb;   // column blocks of C
  logic [16:0] kp;    // K rounded up to N
  assign es_sh  = d.dtype == tsl_pkg::DTYPE_BF16;
  assign ces_sh = d.c_dtype == tsl_pkg::DTYPE_INT8 ? 2'd0 : d.c_dtype == tsl_pkg::DTYPE_BF16 ? 2'd1 : 2'd2;
  assign fl     = d.dtype == tsl_pkg::DTYPE_BF16;
  assign ncb    = 16'((17'(d.n) + 17'(N - 1)) >> NSh);
  assign kp     = (17'(d.k) + 17'(N - 1)) & ~(17'(N - 1));

  // One product per step: 0 (M-1)*LDA, 1 (K-1)*LDB, 2 (M-1)*LDC, 3 MC*KC, 4 KC*NBW, 5 MC*NBW,
  // 6 MC*LDA, 7 MC*LDC, 8 KC*LDB; CONV: 9 KW*CG, 10 KH*(9), 11 BATCH*OUT_H, 12 OUT_W*(11),
  // 13 TILE_ROWS*OUT_W, 14 (BATCH-1)*IMG_STRIDE, 15 (IN_H-1)*ROW_STRIDE, 16 (IN_W-1)*LDA,
  // 17 SH*ROW_STRIDE, 18 PT*ROW_STRIDE, 19 DH*ROW_STRIDE, 20 SW*LDA, 21 PL*LDA, 22 DW*LDA,
  // 23 (OUT_W-1)*SW, 24 OUT_W*KC; step 25 chains the layout; step 26 checks.
  function automatic logic [31:0] p32(input int k);
    p32 = prod[48 * k +: 32];
  endfunction
  always_comb begin
    unique case (step_q)
      5'd0:    begin mul_a = d.m - 16'd1; mul_b = d.lda; end
      5'd1:    begin mul_a = d.k - 16'd1; mul_b = d.ldb; end
      5'd2:    begin mul_a = d.m - 16'd1; mul_b = d.ldc; end
      5'd3:    begin mul_a = d.mc;        mul_b = 32'(d.kc); end
      5'd4:    begin mul_a = d.kc;        mul_b = 32'(d.nbw); end
      5'd5:    begin mul_a = d.mc;        mul_b = 32'(d.nbw); end
      5'd6:    begin mul_a = d.mc;        mul_b = d.lda; end
      5'd7:    begin mul_a = d.mc;        mul_b = d.ldc; end
      5'd8:    begin mul_a = d.kc;        mul_b = d.ldb; end
      5'd9:    begin mul_a = 16'(d.kw);   mul_b = 32'(d.cg); end
      5'd10:   begin mul_a = 16'(d.kh);   mul_b = p32(9); end
      5'd11:   begin mul_a = d.batch;     mul_b = 32'(d.out_h); end
      5'd12:   begin mul_a = d.out_w;     mul_b = p32(11); end
      5'd13:   begin mul_a = d.tile_rows; mul_b = 32'(d.out_w); end
      5'd14:   begin mul_a = d.batch - 16'd1; mul_b = d.img_stride; end
      5'd15:   begin mul_a = d.in_h - 16'd1;  mul_b = d.row_stride; end
      5'd16:   begin mul_a = d.in_w - 16'd1;  mul_b = d.lda; end
      5'd17:   begin mul_a = 16'(d.stride_h); mul_b = d.row_stride; end
      5'd18:   begin mul_a = 16'(d.pad_t);    mul_b = d.row_stride; end
      5'd19:   begin mul_a = 16'(d.dil_h);    mul_b = d.row_stride; end
      5'd20:   begin mul_a = 16'(d.stride_w); mul_b = d.lda; end
      5'd21:   begin mul_a = 16'(d.pad_l);    mul_b = d.lda; end
      5'd22:   begin mul_a = 16'(d.dil_w);    mul_b = d.lda; end
      5'd23:   begin mul_a = d.out_w - 16'd1; mul_b = 32'(d.stride_w); end
      default: begin mul_a = d.out_w;     mul_b = 32'(d.kc); end
    endcase
    prod_d = 48'(mul_a) * 48'(mul_b);
  end

  // NCB mod NBW, one quotient bit per step from the top (NBW = 0 is refused by check 1).
  always_comb begin
    rem_sh = {rem_q, ncb[4'd15 - step_q[3:0]]};
    rem_d  = rem_sh >= 9'(d.nbw) ? 8'(rem_sh - 9'(d.nbw)) : rem_sh[7:0];
    if (start_i) rem_d = 8'd0;
  end
  logic [16:0] ncb_pan;   // NCB rounded up to whole panels (NPAN*NBW)
  assign ncb_pan = 17'(ncb) + (rem_q == 8'd0 ? 17'd0 : 17'(d.nbw) - 17'(rem_q));

  // The VMEM layout: each region starts at the previous one's end rounded up to 4N.
  function automatic logic [39:0] al(input logic [39:0] x);
    al = (x + 40'(4 * N - 1)) & ~(40'(4 * N - 1));
  endfunction
  logic [39:0] sz_a, sz_b, sz_o, sz_bias, sz_acc;
  assign sz_a    = 40'(prod[144 +: 48]) << es_sh;
  assign sz_b    = 40'(prod[192 +: 48]) << (NSh + 32'(es_sh));
  assign sz_o    = 40'(prod[240 +: 48]) << (NSh + 32'(ces_sh));
  assign sz_acc  = 40'(prod[240 +: 48]) << (NSh + 2);
  assign sz_bias = 40'(ncb_pan) << (NSh + 2);
  always_comb begin
    lay_d    = lay_q;
    lay_d[0 +: 40] = 40'(d.vmem_addr);
    lay_d[40 +: 40] = al(lay_d[0 +: 40] + sz_a);
    lay_d[80 +: 40] = al(lay_d[40 +: 40] + sz_a);
    lay_d[120 +: 40] = al(lay_d[80 +: 40] + sz_b);
    lay_d[160 +: 40] = al(lay_d[120 +: 40] + sz_b);
    lay_d[200 +: 40] = al(lay_d[160 +: 40] + sz_o);
    lay_d[240 +: 40] = al(lay_d[200 +: 40] + sz_o);
    lay_d[280 +: 40] = d.bias ? lay_d[240 +: 40] + sz_bias : lay_d[240 +: 40];
  end

  // Check 1 of a CONV descriptor (the window fields; M, K, MC and KC as they follow from them), and
  // the CONV fields that a GEMM leaves 0.
  logic        conv_bad, conv_used;
  logic [39:0] fill_vecs;
  assign fill_vecs = (40'(p32(3)) << es_sh) + 40'(4 * N - 1) >> (NSh + 2);
  assign conv_used = desc_i[32*tsl_pkg::PARAM_SEQ_WORDS-1:512] != '0 || d.tile_rows != 16'd0;
  assign conv_bad  = d.in_h == 16'd0 || d.in_w == 16'd0 || d.out_h == 16'd0 || d.out_w == 16'd0 ||
                     d.kh == 8'd0 || d.kw == 8'd0 || d.stride_h == 8'd0 || d.stride_w == 8'd0 ||
                     d.dil_h == 8'd0 || d.dil_w == 8'd0 || d.cg == 16'd0 || d.batch == 16'd0 ||
                     d.tile_rows == 16'd0 || prod[480 +: 48] != 48'(d.k) || prod[576 +: 48] != 48'(d.m) ||
                     prod[624 +: 48] != 48'(d.mc) || 17'(d.kc) != kp || (fl && d.a_zp != 8'd0) ||
                     fill_vecs > 40'd65535 || (32'(d.cg) << es_sh) > 32'd65535;

  // Check 1: the fields.
  logic bad_field, int_c, used_scale, credit_nz;
  always_comb begin
    credit_nz = credit_i != '0;
    int_c      = d.c_dtype == tsl_pkg::DTYPE_INT32 || d.c_dtype == tsl_pkg::DTYPE_INT8;
    used_scale = d.c_dtype == tsl_pkg::DTYPE_INT8 || d.fscale;
    bad_field  =
        (desc_i & ~tsl_pkg::SEQ_USED) != '0 ||
        d.m == 16'd0 || d.n == 16'd0 || d.k == 16'd0 || d.mc == 16'd0 || d.kc == 16'd0 ||
        d.nbw == 8'd0 ||
        !(d.dtype == tsl_pkg::DTYPE_INT8 || (d.dtype == tsl_pkg::DTYPE_BF16 && EnableBf16)) ||
        int_c == fl ||
        (d.fscale && int_c) ||
        (!used_scale && d.scale != 32'd0) ||
        (d.c_dtype != tsl_pkg::DTYPE_INT8 && (d.shift != 6'd0 || d.zero_point != 32'd0)) ||
        d.shift > 6'd62 ||
        (!d.bias && d.bias_addr != 32'd0) ||
        (d.post != '0 && (!fl || !tsl_pkg::GEMM_POST_OPS[d.post] || (d.relu && !tsl_pkg::GEMM_POST_RELU[d.post]) ||
                          (d.conv && !tsl_pkg::GEMM_POST_CONV[d.post]))) ||
        d.kc[NSh-1:0] != '0 || (32'(d.kc) << es_sh) > 32'd65535 || (d.kc >> NSh) > 16'd4095 ||
        ((32'(d.nbw) << (NSh + 32'(es_sh))) > 32'd65535) || prod[240 +: 48] > 48'd65535 ||
        (d.bias && 32'(d.n) * 4 > 32'd65535) ||
        (d.k[NSh-1:0] != '0 && 17'(d.kc) < kp) ||
        (d.conv ? conv_bad : conv_used) ||
        credit_nz;
  end

  // Checks 2-4 on the registered products and layout.
  logic [63:0] end_a, end_b, end_c, end_bias, end_acc;
  assign end_a    = d.conv ? 64'(d.a_addr) + 64'(prod[672 +: 48]) + 64'(prod[720 +: 48]) + 64'(prod[768 +: 48]) +
                             (64'(d.cg) << es_sh)
                           : 64'(d.a_addr) + 64'(prod[0 +: 48]) + (64'(d.k) << es_sh);
  assign end_b    = 64'(d.b_addr) + 64'(prod[48 +: 48]) + (64'(d.n) << es_sh);
  assign end_c    = 64'(d.c_addr) + 64'(prod[96 +: 48]) + (64'(d.n) << ces_sh);
  assign end_bias = 64'(d.bias_addr) + 64'(d.n) * 64'd4;
  assign end_acc  = 64'(d.acc_addr) + 2 * 64'(sz_acc);

  // An HBM operand [addr, end) outside HBM or outside the window.
  function automatic logic hbm_out(input logic [31:0] addr, input logic [63:0] e,
                                   input logic [31:0] base, input logic [31:0] limit);
    hbm_out = e > 64'(HbmBytes) || addr < base || e > 64'(limit);
  endfunction

  logic [3:0]  err_d;
  logic [31:0] eaddr_d;
  always_comb begin
    err_d   = tsl_pkg::ERR_NONE;
    eaddr_d = 32'd0;
    if (bad_field) begin
      err_d = tsl_pkg::ERR_BAD_FIELD;
    end else if (hbm_out(d.a_addr, end_a, hbm_base_i, hbm_limit_i)) begin
      err_d = tsl_pkg::ERR_HBM_RANGE; eaddr_d = d.a_addr;
    end else if (hbm_out(d.b_addr, end_b, hbm_base_i, hbm_limit_i)) begin
      err_d = tsl_pkg::ERR_HBM_RANGE; eaddr_d = d.b_addr;
    end else if (hbm_out(d.c_addr, end_c, hbm_base_i, hbm_limit_i)) begin
      err_d = tsl_pkg::ERR_HBM_RANGE; eaddr_d = d.c_addr;
    end else if (d.bias && hbm_out(d.bias_addr, end_bias, hbm_base_i, hbm_limit_i)) begin
      err_d = tsl_pkg::ERR_HBM_RANGE; eaddr_d = d.bias_addr;
    end else if (d.vmem_addr[NSh+1:0] != '0) begin
      err_d = tsl_pkg::ERR_MISALIGNED; eaddr_d = d.vmem_addr;
    end else if (d.acc_addr[NSh+1:0] != '0) begin
      err_d = tsl_pkg::ERR_MISALIGNED; eaddr_d = d.acc_addr;
    end else if (64'(lay_q[280 +: 40]) > 64'(VmemBytes)) begin
      err_d = tsl_pkg::ERR_LOCAL_RANGE; eaddr_d = d.vmem_addr;
    end else if (d.acc_addr < tsl_pkg::LOCAL_ACC_BASE ||
                 end_acc > 64'(tsl_pkg::LOCAL_ACC_BASE) + 64'(AccBytes)) begin
      err_d = tsl_pkg::ERR_LOCAL_RANGE; eaddr_d = d.acc_addr;
    end
  end

  assign run_d  = start_i || (run_q && step_q != StepCheck);
  // a GEMM skips the CONV products (NCB mod NBW ends with step 15)
  assign step_d = start_i ? 5'd0 : !run_q ? step_q : step_q == 5'd15 && !d.conv ? StepLayout : step_q + 5'd1;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      run_q  <= 1'b0;
      step_q <= 5'd0;
    end else begin
      run_q  <= run_d;
      step_q <= step_d;
    end
  end

  // Datapath registers (no reset).
  always_ff @(posedge clk_i) begin
    if (run_q && step_q < 5'(NProd)) prod[48 * step_q +: 48] <= prod_d;
    if ((run_q && step_q < 5'd16) || start_i) rem_q <= rem_d;
    if (run_q && step_q == StepLayout) lay_q <= lay_d;
  end

  assign done_o     = run_q && step_q == StepCheck;
  assign err_o      = err_d;
  assign err_addr_o = eaddr_d;

  assign a0_o       = lay_q[0 +: 32];
  assign a1_o       = lay_q[40 +: 32];
  assign b0_o       = lay_q[80 +: 32];
  assign b1_o       = lay_q[120 +: 32];
  assign o0_o       = lay_q[160 +: 32];
  assign o1_o       = lay_q[200 +: 32];
  assign bias_o     = lay_q[240 +: 32];
  assign acc1_o     = d.acc_addr + sz_acc[31:0];
  assign pad_vecs_o = 32'((lay_q[160 +: 40] - lay_q[0 +: 40]) >> NSh);   // A and B slots, to OUT slot 0
  assign mc_lda_o   = prod[288 +: 32];
  assign mc_ldc_o   = prod[336 +: 32];
  assign kc_ldb_o   = prod[384 +: 32];
  assign cv_rows_o    = p32(11);
  assign cv_fill_o    = 16'(fill_vecs);
  assign cv_sh_row_o  = p32(17);
  assign cv_pt_row_o  = p32(18);
  assign cv_dh_row_o  = p32(19);
  assign cv_sw_lda_o  = p32(20);
  assign cv_pl_lda_o  = p32(21);
  assign cv_dw_lda_o  = p32(22);
  assign cv_owm1_sw_o = p32(23);
  assign cv_row_loc_o = p32(24) << es_sh;
  assign cv_kh_loc_o  = p32(9) << es_sh;
  logic unused_prod;   // the walk increments wrap at 32 bits, as the addresses do
  assign unused_prod = ^{prod[320 +: 16], prod[368 +: 16], prod[416 +: 16], prod[464 +: 16], prod[560 +: 16],
                         prod[848 +: 16], prod[896 +: 16], prod[944 +: 16], prod[992 +: 16], prod[1040 +: 16],
                         prod[1088 +: 16], prod[1136 +: 16], prod[1184 +: 16]};
endmodule
