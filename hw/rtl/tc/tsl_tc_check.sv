// Dispatch checker of the tensor-core controller: every check of docs/isa.md section 5, in its
// order, on the instruction held stable on insn_i while active_i is high (hw/model/tslm.c
// validate() is the reference, including ERR_ADDR: the operand's address for range and alignment
// errors, else 0). An HBM operand must lie inside HBM_BYTES and inside the window
// [hbm_base_i, hbm_limit_i) (TC HBM_BASE, HBM_LIMIT; a core without them ties [0, HbmBytes)).
// Latency: done_o is high 1 to 5 cycles after active_i rises: cycle 0 runs checks 1-4 (opcode,
// reserved bits, own-unit tokens, field values), then one cycle per operand (extents through one
// shared 24x32 multiplier, computed in 64 bits without wrap-around), then the WBUF_DTYPE and token
// checks. err_o/err_addr_o are valid while done_o is high (ERR_NONE: accept). The caller drops
// active_i in the cycle after done_o; dropping it earlier abandons the check.
module tsl_tc_check #(
  parameter int N          = tsl_pkg::PARAM_N,           // array size: vector operand bytes
  parameter int VmemBytes  = tsl_pkg::PARAM_VMEM_BYTES,  // VMEM size (power of two, <= 16 MiB)
  parameter int AccBytes   = tsl_pkg::PARAM_ACC_BYTES,   // ACC size (power of two, <= 16 MiB)
  parameter int HbmBytes   = tsl_pkg::PARAM_HBM_BYTES,   // HBM size (power of two, <= 1 GiB)
  parameter bit EnableBf16 = 1'b1,                       // 0: BF16/FP32 operands are tsl_pkg::ERR_BAD_FIELD
  parameter bit EnableTranspose = 1'b1,                  // CFG_FEATURES.TRANSPOSE; 0: a LOADW or MATMULK
                                                         // with TRANSPOSE is tsl_pkg::ERR_BAD_OPCODE
  parameter logic [63:0] Ops = tsl_pkg::OPS_TC,          // ops the core implements (bit 16*unit + op:
                                                         // tsl_pkg::OPS_TC or OPS_LITE); others are
                                                         // tsl_pkg::ERR_BAD_OPCODE
  parameter bit EnableIci  = 1'b0,                       // the ICI unit: with it and pod_x_i != 0,
                                                         // CFG_FEATURES.ICI (DMA SEND and SEMWAIT);
                                                         // else tsl_pkg::OPS_NEED_ICI are
                                                         // tsl_pkg::ERR_BAD_OPCODE
  parameter int CreditW    = 16                          // bits of a credit count (TOKEN_MAX fits)
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 active_i,
  input  logic [255:0]         insn_i,
  input  logic [9*CreditW-1:0] credit_i,      // channel f->t at index 3f+t: signals minus waits pushed
  input  logic [3:0]           wbuf_dtype_i,  // [2b+1:2b]: dtype of the last LOADW pushed to buffer b
  input  logic [31:0]          hbm_base_i,    // HBM window: lowest address an HBM operand may touch
  input  logic [31:0]          hbm_limit_i,   // HBM window: an HBM operand ends at or below it
  input  logic [3:0]           chip_x_i,      // this chip's coordinates and its pod's extents (a SEND's
  input  logic [3:0]           chip_y_i,      // destination; pod_x_i 0: not in a pod)
  input  logic [4:0]           pod_x_i,
  input  logic [4:0]           pod_y_i,
  output logic                 done_o,
  output logic [3:0]           err_o,
  output logic [31:0]          err_addr_o
);
  localparam logic [2:0] FmtSync = 3'd0, FmtDma = 3'd1, FmtLoadw = 3'd2, FmtMatmul = 3'd3,
                         FmtVpu = 3'd4, FmtMatmulk = 3'd5, FmtEpi = 3'd6, FmtBad = 3'd7;
  localparam int NSh = $clog2(N);
  localparam logic [2:0] StepHdr = 3'd0, StepOp0 = 3'd1, StepFinal = 3'd4;
  localparam logic [63:0] VMEM_END = 64'(VmemBytes);
  localparam logic [63:0] ACC_END  = 64'(tsl_pkg::LOCAL_ACC_BASE) + 64'(AccBytes);
  localparam logic [63:0] HBM_END  = 64'(HbmBytes);
  localparam logic [CreditW-1:0] CREDIT_MAX = CreditW'(tsl_pkg::PARAM_TOKEN_MAX);
  localparam int Ew = $clog2(ACC_END > HBM_END ? (ACC_END > VMEM_END ? ACC_END : VMEM_END)
                                               : (HBM_END > VMEM_END ? HBM_END : VMEM_END)) + 1;

  // Bytes of an N-element vector of a dtype.
  function automatic logic [31:0] vec_bytes(input logic [1:0] dt);
    vec_bytes = dt == tsl_pkg::DTYPE_INT8 ? 32'(N) : dt == tsl_pkg::DTYPE_BF16 ? 32'(2 * N) : 32'(4 * N);
  endfunction
  function automatic logic is_float(input logic [1:0] dt);
    is_float = dt == tsl_pkg::DTYPE_BF16 || dt == tsl_pkg::DTYPE_FP32;
  endfunction

  logic [2:0]  step_q, step_d, step, nops;
  logic [1:0]  unit;
  logic [3:0]  op;
  logic [2:0]  wait_m, signal_m, fmt;
  logic [3:0]  hdr_err, op_err, fin_err;
  logic        ici, known, unary, cls_ok, fl, is_send, is_semwait, row_fn;
  logic [1:0]  dd, d1, d2, mode;
  logic [15:0] rows;
  logic [11:0] kblocks;

  // The operand under check.
  logic        o_hbm, o_vmem_ok, o_acc_ok, o_dma_local, in_vmem, in_acc;
  logic [31:0] o_addr, o_stride, o_rb, o_align;
  logic [23:0] o_rows_m1;
  logic [55:0] o_prod;
  logic        o_big;
  logic [Ew+1:0] o_end;

  // Views of the instruction, one per format (the header is the same in all).
`include "hw/rtl/tsl_insn.svh"
  /* verilator lint_off UNUSEDSIGNAL */
  insn_hdr_t         hdr;
  insn_dma_xfer_t    dma;
  insn_dma_send_t    send;
  insn_dma_semwait_t semw;
  insn_mxu_loadw_t   lw;
  insn_mxu_matmul_t  mm;
  insn_mxu_matmulk_t mk;
  insn_vpu_vec_t     vpu;
  insn_vpu_epi_t     epi;
  /* verilator lint_on UNUSEDSIGNAL */
  assign hdr = insn_i;
  assign dma = insn_i;
  assign send = insn_i;
  assign semw = insn_i;
  assign lw  = insn_i;
  assign mm  = insn_i;
  assign mk  = insn_i;
  assign vpu = insn_i;
  assign epi = insn_i;

  assign unit     = hdr.unit;
  assign op       = hdr.op;
  assign wait_m   = hdr.wait_f;
  assign signal_m = hdr.signal;
  assign dd       = vpu.dst_dtype;   // also LOADW/MATMUL DTYPE
  assign d1       = vpu.src1_dtype;
  assign d2       = vpu.src2_dtype;
  assign mode     = vpu.src2_mode;
  assign ici      = EnableIci && pod_x_i != 5'd0;
  assign known    = Ops[{unit, op}] && (ici || !tsl_pkg::OPS_NEED_ICI[{unit, op}]);
  assign unary    = tsl_pkg::OPS_UNARY[{2'(tsl_pkg::UNIT_VPU), op}];
  assign cls_ok   = fl ? tsl_pkg::OPS_FLOAT[{2'(tsl_pkg::UNIT_VPU), op}]
                       : tsl_pkg::OPS_INT[{2'(tsl_pkg::UNIT_VPU), op}];
  assign fl       = is_float(d1);
  assign kblocks  = mk.kblocks;
  assign is_send    = ici && unit == tsl_pkg::UNIT_DMA && op == 4'(tsl_pkg::DMA_OP_SEND);
  assign is_semwait = ici && unit == tsl_pkg::UNIT_DMA && op == 4'(tsl_pkg::DMA_OP_SEMWAIT);
  // An EPI with a ROW function, on a core with EPI and floats (a constant 0 on the lite core, whose
  // logic for it is then none).
  localparam bit HasRowFn = Ops[{2'(tsl_pkg::UNIT_VPU), 4'(tsl_pkg::VPU_OP_EPI)}] && EnableBf16;
  assign row_fn = HasRowFn && fmt == FmtEpi && epi.row != '0;

  // Format and row count (FmtBad: an op the spec does not define). An op this core lacks
  // (!known) has its format here and is refused at the end of the header checks, so that the
  // format, which steers the operand muxes, does not depend on the core's op mask. A SEND has a
  // DMA transfer's operands (FmtDma) and a SEMWAIT none (FmtSync); their reserved bits are their own.
  always_comb begin
    fmt  = FmtBad;
    rows = 16'd0;
    if (unit != 2'd3 && op == 4'd0) begin
      fmt = FmtSync;
    end else if (unit == tsl_pkg::UNIT_DMA && (op == 4'(tsl_pkg::DMA_OP_LOAD) ||
                 op == 4'(tsl_pkg::DMA_OP_STORE) || op == 4'(tsl_pkg::DMA_OP_SEND))) begin
      fmt  = FmtDma;
      rows = dma.rows;
    end else if (unit == tsl_pkg::UNIT_DMA && op == 4'(tsl_pkg::DMA_OP_SEMWAIT)) begin
      fmt = FmtSync;
    end else if (unit == tsl_pkg::UNIT_MXU && op == 4'(tsl_pkg::MXU_OP_LOADW)) begin
      fmt  = FmtLoadw;
      rows = 16'(N);
    end else if (unit == tsl_pkg::UNIT_MXU && op == 4'(tsl_pkg::MXU_OP_MATMUL)) begin
      fmt  = FmtMatmul;
      rows = mm.rows;
    end else if (unit == tsl_pkg::UNIT_MXU && op == 4'(tsl_pkg::MXU_OP_MATMULK)) begin
      fmt  = FmtMatmulk;
      rows = mk.rows;
    end else if (unit == tsl_pkg::UNIT_VPU && op == 4'(tsl_pkg::VPU_OP_EPI)) begin
      fmt  = FmtEpi;
      rows = epi.rows;
    end else if (unit == tsl_pkg::UNIT_VPU && tsl_pkg::OPS_ALL[{2'(tsl_pkg::UNIT_VPU), op}]) begin
      fmt  = FmtVpu;
      rows = vpu.rows;
    end
  end

  // Reserved bits. Bit b's pattern is which formats use it (bit f: format f, Fmt* order); the
  // bits of one pattern are OR-ed together first, so the format selects among a few groups instead
  // of masking all 256 bits.
  // VPU_EPI takes VPU_VEC's pattern bit: the bits only VPU_VEC uses are one more group, and the
  // bits VPU_EPI uses beyond VPU_VEC's (BVECS) are left out of the groups and checked on their own
  // (each other format uses all of them or none, asserted below), so the group count stays 64.
  localparam logic [255:0] EPI_NOT_USED = tsl_pkg::INSN_VPU_VEC_USED & ~tsl_pkg::INSN_VPU_EPI_USED;
  localparam logic [255:0] EPI_ONLY     = tsl_pkg::INSN_VPU_EPI_USED & ~tsl_pkg::INSN_VPU_VEC_USED;
  function automatic logic [5:0] pattern(input logic [7:0] b);
    pattern = {tsl_pkg::INSN_MXU_MATMULK_USED[b], tsl_pkg::INSN_VPU_VEC_USED[b], tsl_pkg::INSN_MXU_MATMUL_USED[b],
               tsl_pkg::INSN_MXU_LOADW_USED[b], tsl_pkg::INSN_DMA_XFER_USED[b], tsl_pkg::INSN_SYNC_USED[b]};
  endfunction
  // Bit f (Fmt* order, as pattern()): format f uses the EPI_ONLY bits.
  localparam logic [5:0] EPI_ONLY_FMTS = {
      (EPI_ONLY & ~tsl_pkg::INSN_MXU_MATMULK_USED) == '0, (EPI_ONLY & ~tsl_pkg::INSN_VPU_VEC_USED) == '0,
      (EPI_ONLY & ~tsl_pkg::INSN_MXU_MATMUL_USED) == '0, (EPI_ONLY & ~tsl_pkg::INSN_MXU_LOADW_USED) == '0,
      (EPI_ONLY & ~tsl_pkg::INSN_DMA_XFER_USED) == '0, (EPI_ONLY & ~tsl_pkg::INSN_SYNC_USED) == '0};
  // Each format uses all of the EPI_ONLY bits or none of them (asserted below).
  localparam logic [5:0] EPI_ONLY_NONE = {
      (EPI_ONLY & tsl_pkg::INSN_MXU_MATMULK_USED) == '0, (EPI_ONLY & tsl_pkg::INSN_VPU_VEC_USED) == '0,
      (EPI_ONLY & tsl_pkg::INSN_MXU_MATMUL_USED) == '0, (EPI_ONLY & tsl_pkg::INSN_MXU_LOADW_USED) == '0,
      (EPI_ONLY & tsl_pkg::INSN_DMA_XFER_USED) == '0, (EPI_ONLY & tsl_pkg::INSN_SYNC_USED) == '0};
  function automatic logic [255:0] group_mask(input logic [5:0] p);
    for (int b = 0; b < 256; b++) group_mask[b] = pattern(8'(b)) == p && !EPI_ONLY[b];
  endfunction
  logic [63:0] grp;        // grp[p]: some bit of pattern p is set
  logic        reserved;   // a bit the format does not use is set
  for (genvar p = 0; p < 64; p++) begin : g_grp
`ifdef __ICARUS__   // Icarus 11 takes no constant function that calls another
    assign grp[p] = (insn_i & group_mask(6'(p))) != '0;
`else               // a constant, or Verilator runs the 256-bit loop at every evaluation
    localparam logic [255:0] Mask = group_mask(6'(p));
    assign grp[p] = (insn_i & Mask) != '0;
`endif
  end
  always_comb begin
    logic [5:0] fbit;   // the format's pattern bit (none for FmtBad)
    fbit     = fmt == FmtEpi ? 6'd1 << FmtVpu : fmt < 3'd6 ? 6'd1 << fmt : 6'd0;
    reserved = fmt == FmtEpi ? (insn_i & EPI_NOT_USED) != '0
                             : (insn_i & EPI_ONLY) != '0 && !(fmt < 3'd6 && EPI_ONLY_FMTS[fmt]);
    for (int p = 0; p < 64; p++) begin
      if (grp[p] && (6'(p) & fbit) == 6'd0) reserved = 1'b1;
    end
    if (is_send)    reserved = (insn_i & ~tsl_pkg::INSN_DMA_SEND_USED) != '0;
    if (is_semwait) reserved = (insn_i & ~tsl_pkg::INSN_DMA_SEMWAIT_USED) != '0;
  end

  // Checks 1-4: opcode, reserved bits, tokens on the own unit, field values.
  always_comb begin
    hdr_err = tsl_pkg::ERR_NONE;
    if (fmt == FmtBad || !known ||
        ((fmt == FmtLoadw || fmt == FmtMatmulk) && lw.transpose && !EnableTranspose)) begin
      hdr_err = tsl_pkg::ERR_BAD_OPCODE;
    end else if (reserved || ((wait_m | signal_m) & (3'd1 << unit)) != 3'd0) begin
      hdr_err = tsl_pkg::ERR_BAD_FIELD;
    end else begin
      unique case (fmt)
        FmtDma: begin   // a SEND's destination: in the pod, and not this chip; ASYNC without tokens out;
                        // DONE_SEM only with DONE
          if (rows == 16'd0 || dma.row_bytes == 16'd0 ||
              (is_send && (5'(send.dest_x) >= pod_x_i || 5'(send.dest_y) >= pod_y_i ||
                           (send.dest_x == chip_x_i && send.dest_y == chip_y_i) ||
                           (send.async && (signal_m != 3'd0 || send.notify)) ||
                           (!send.done && send.done_sem != '0))))
            hdr_err = tsl_pkg::ERR_BAD_FIELD;
        end
        FmtSync: begin
          if (is_semwait && semw.count == 16'd0)
            hdr_err = tsl_pkg::ERR_BAD_FIELD;
        end
        FmtLoadw, FmtMatmul, FmtMatmulk: begin
          if (!(dd == tsl_pkg::DTYPE_INT8 || (dd == tsl_pkg::DTYPE_BF16 && EnableBf16)) ||
              (fmt != FmtLoadw && rows == 16'd0) || (fmt == FmtMatmulk && kblocks == 12'd0))
            hdr_err = tsl_pkg::ERR_BAD_FIELD;
        end
        FmtVpu: begin
          if (rows == 16'd0 ||
              (unary ? (mode != 2'd0 || d2 != 2'd0 || vpu.src2_addr != '0)
                     : (mode > tsl_pkg::SRC2_IMM ||
                        (mode == tsl_pkg::SRC2_IMM && vec_bytes(d2) != 32'(4 * N)))) ||
              !cls_ok ||
              (op == 4'(tsl_pkg::VPU_OP_REQUANT)
                 ? vpu.shift > 6'd62
                 : (vpu.scale != '0 ||
                    vpu.shift != '0 ||
                    vpu.zero_point != '0)) ||
              (op == 4'(tsl_pkg::VPU_OP_ACT) ? vpu.act > 2'(tsl_pkg::VPU_ACT_SILU) : vpu.act != '0) ||
              is_float(dd) != fl || (!unary && is_float(d2) != fl) || (fl && !EnableBf16))
            hdr_err = tsl_pkg::ERR_BAD_FIELD;
        end
        FmtEpi: begin
          // isa.md "VPU EPI": SRC1 INT32 or FP32, DST of its class, bf16 built for floats, FSCALE
          // on floats only; SCALE, SHIFT, ZERO_POINT and SRC2_ADDR zero where unused. A ROW
          // function: floats (BF16 or FP32) in and out, no RELU, BVECS vectors a row, PAD below N;
          // SOFTMAX: no BIAS or SRC2_ADDR, SCALE only with FSCALE (ZERO_POINT: a causal mask);
          // the norms: no FSCALE, BIAS for LAYERNORM only.
          if (row_fn) begin
            if (rows == 16'd0 || !is_float(d1) || !is_float(dd) || epi.relu || epi.shift != '0 ||
                epi.bvecs == '0 || 32'(epi.pad) >= 32'(N) ||
                (epi.row == 2'(tsl_pkg::VPU_ROW_SOFTMAX)
                   ? epi.bias || epi.src2_addr != '0 || (epi.scale != '0 && !epi.fscale)
                   : epi.fscale || (epi.bias && epi.row != 2'(tsl_pkg::VPU_ROW_LAYERNORM))))
              hdr_err = tsl_pkg::ERR_BAD_FIELD;
          end else if (rows == 16'd0 || epi.row != '0 || epi.pad != '0 || epi.blocked ||   // (ROW without floats)
              !(d1 == tsl_pkg::DTYPE_INT32 || d1 == tsl_pkg::DTYPE_FP32) ||
              (fl ? !(dd == tsl_pkg::DTYPE_FP32 || dd == tsl_pkg::DTYPE_BF16)
                  : !(dd == tsl_pkg::DTYPE_INT32 || dd == tsl_pkg::DTYPE_INT8)) ||
              (fl && !EnableBf16) || (epi.fscale && !fl) ||
              (epi.scale != '0 && !(dd == tsl_pkg::DTYPE_INT8 || epi.fscale)) ||
              (dd == tsl_pkg::DTYPE_INT8 ? epi.shift > 6'd62 : epi.shift != '0) ||
              (epi.zero_point != '0 && dd != tsl_pkg::DTYPE_INT8) ||
              (epi.src2_addr != '0 && !epi.bias) || (epi.bias ? epi.bvecs == '0 : epi.bvecs != '0))
            hdr_err = tsl_pkg::ERR_BAD_FIELD;
        end
        default: ;
      endcase
    end
  end

  // Operands in field order: DMA hbm, local; LOADW weights; MATMUL act, acc; MATMULK act, acc,
  // weights; VPU dst, src1, src2.
  always_comb begin
    nops = 3'd0;
    unique case (fmt)
      FmtDma, FmtMatmul: nops = 3'd2;
      FmtMatmulk:        nops = 3'd3;
      FmtLoadw:          nops = 3'd1;
      FmtVpu:            nops = (unary || mode == tsl_pkg::SRC2_IMM) ? 3'd2 : 3'd3;
      FmtEpi:            nops = (epi.row != '0 ? epi.row != 2'(tsl_pkg::VPU_ROW_SOFTMAX) : epi.bias) ? 3'd3 : 3'd2;
      default:           nops = 3'd0;
    endcase
  end

  always_comb begin
    o_hbm       = 1'b0;
    o_dma_local = 1'b0;
    o_vmem_ok   = 1'b1;
    o_acc_ok    = 1'b0;
    o_addr      = lw.addr;     // FmtLoadw's operand
    o_stride    = lw.stride;
    o_rb        = vec_bytes(dd);
    o_align     = vec_bytes(dd);
    o_rows_m1   = 24'(rows) - 24'd1;
    unique case (fmt)
      FmtDma: begin
        o_rb     = 32'(dma.row_bytes);
        o_align  = 32'd1;
        if (step == StepOp0 && !(is_send && send.to_local)) begin
          o_hbm    = 1'b1;
          o_addr   = dma.hbm_addr;
          o_stride = dma.hbm_stride;
        end else if (step == StepOp0) begin   // a SEND's TO_LOCAL rows: local at the destination
          o_dma_local = 1'b1;
          o_acc_ok    = 1'b1;
          o_addr      = dma.hbm_addr;
          o_stride    = dma.hbm_stride;
        end else begin
          o_dma_local = 1'b1;
          o_acc_ok    = 1'b1;
          o_addr      = dma.local_addr;
          o_stride    = dma.local_stride;
        end
      end
      FmtMatmul: begin
        if (step == StepOp0) begin
          o_addr   = mm.act_addr;
          o_stride = mm.act_stride;
        end else begin
          o_vmem_ok = 1'b0;
          o_acc_ok  = 1'b1;
          o_addr    = mm.acc_addr;
          o_stride  = mm.acc_stride;
          o_rb      = 32'(4 * N);
          o_align   = 32'(4 * N);
        end
      end
      FmtMatmulk: begin
        if (step == StepOp0) begin   // activations: rows of KBLOCKS vectors
          o_addr   = mk.act_addr;
          o_stride = mk.act_stride;
          o_rb     = 32'(kblocks) << (dd == tsl_pkg::DTYPE_INT8 ? NSh : NSh + 1);
        end else if (step == StepOp0 + 3'd1) begin
          o_vmem_ok = 1'b0;
          o_acc_ok  = 1'b1;
          o_addr    = mk.acc_addr;
          o_stride  = mk.acc_stride;
          o_rb      = 32'(4 * N);
          o_align   = 32'(4 * N);
        end else begin               // weights: KBLOCKS*N rows of one vector (TRANSPOSE:
          o_addr    = mk.w_addr;       // N columns of KBLOCKS vectors)
          o_stride  = mk.w_stride;
          o_rows_m1 = mk.transpose ? 24'(N - 1) : (24'(kblocks) << NSh) - 24'd1;
          if (mk.transpose) o_rb = 32'(kblocks) << (dd == tsl_pkg::DTYPE_INT8 ? NSh : NSh + 1);
        end
      end
      FmtVpu, FmtEpi: begin   // EPI: the bias is BVECS rows of SRC1_DTYPE
        if (step == StepOp0) begin
          o_addr = vpu.dst_addr;
          o_rb   = vec_bytes(dd);
        end else if (step == StepOp0 + 3'd1) begin
          o_addr = vpu.src1_addr;
          o_rb   = vec_bytes(d1);
        end else begin
          o_addr = vpu.src2_addr;   // EPI: the bias; a norm's gamma (and beta), FP32
          o_rb   = vec_bytes(fmt != FmtEpi ? d2 : epi.row != '0 ? tsl_pkg::DTYPE_FP32 : d1);
          if (fmt == FmtEpi) o_rows_m1 = (24'(epi.bvecs) << (epi.row != '0 && epi.bias)) - 24'd1;
          else if (mode == tsl_pkg::SRC2_BCAST) o_rows_m1 = 24'd0;
        end
        o_stride = o_rb;
        o_align  = o_rb;
        o_acc_ok = o_rb == 32'(4 * N);   // ACC holds 32-bit elements only
        if (row_fn && step != StepOp0 + 3'd2) begin   // ROWS rows of BVECS vectors each (a vector is 2N or 4N bytes)
          o_rb     = 32'(epi.bvecs) << (NSh + (o_align == 32'(4 * N) ? 2 : 1));
          o_stride = o_rb;
        end
      end
      default: ;   // FmtLoadw: ADDR, STRIDE, N rows of one vector
    endcase
  end

  // Extents without wrap-around, in Ew + 2 bits: every end is below 2^Ew, so an address or a
  // product at or above 2^Ew puts the extent past it (o_big); otherwise the narrow sum is exact.
  assign in_vmem = 64'(o_addr) < VMEM_END;
  assign in_acc  = o_addr >= tsl_pkg::LOCAL_ACC_BASE && 64'(o_addr) < ACC_END;
  assign o_prod  = 56'(o_rows_m1) * 56'(o_stride);
  assign o_big   = (o_prod >> Ew) != '0 || (o_addr >> Ew) != '0;
  assign o_end   = (Ew+2)'(o_addr[Ew-1:0]) + (Ew+2)'(o_prod[Ew-1:0]) + (Ew+2)'(o_rb[Ew-1:0]);

  // A ROW function's dst (operand 0, its extent kept here) must overlap neither source.
  logic [Ew+1:0] ovl_lo_q, ovl_hi_q;
  logic          ovl;
  always_ff @(posedge clk_i) begin
    if (step == StepOp0) begin
      ovl_lo_q <= (Ew+2)'(o_addr[Ew-1:0]);
      ovl_hi_q <= o_end;
    end
  end
  assign ovl = row_fn && step > StepOp0 && step < StepFinal &&
               ovl_lo_q < o_end && (Ew+2)'(o_addr[Ew-1:0]) < ovl_hi_q;

  always_comb begin
    logic [31:0] amask;
    amask  = (o_dma_local && in_acc) ? 32'd3 : o_align - 32'd1;
    op_err = tsl_pkg::ERR_NONE;
    if (o_hbm) begin
      if (o_big || 64'(o_end) > HBM_END || o_addr < hbm_base_i || 64'(o_end) > 64'(hbm_limit_i))
        op_err = tsl_pkg::ERR_HBM_RANGE;
    end else if (!((in_vmem && o_vmem_ok) || (in_acc && o_acc_ok))) begin
      op_err = tsl_pkg::ERR_LOCAL_RANGE;
    end else if (((o_addr | o_stride | o_rb) & amask) != '0) begin
      op_err = tsl_pkg::ERR_MISALIGNED;
    end else if (o_big || 64'(o_end) > (in_acc ? ACC_END : VMEM_END)) begin
      op_err = tsl_pkg::ERR_LOCAL_RANGE;
    end else if (ovl) begin
      op_err = tsl_pkg::ERR_BAD_FIELD;
    end
  end

  // Checks 6 and 7: weight-buffer dtype, then per channel (u = 0, 1, 2) underflow and overflow.
  // Per channel first (constant indices), so the unit only selects among nine flags.
  logic [8:0] cr_zero, cr_full;
  always_comb begin
    for (int c = 0; c < 9; c++) begin
      cr_zero[c] = credit_i[c * CreditW +: CreditW] == '0;
      cr_full[c] = credit_i[c * CreditW +: CreditW] >= CREDIT_MAX;
    end
  end

  always_comb begin
    fin_err = tsl_pkg::ERR_NONE;
    if (fmt == FmtMatmul &&
        wbuf_dtype_i[2 * mm.wbuf +: 2] != dd) begin
      fin_err = tsl_pkg::ERR_WBUF_DTYPE;
    end else begin
      for (int u = 2; u >= 0; u = u - 1) begin
        if (signal_m[u] && cr_full[3 * 32'(unit) + u]) fin_err = tsl_pkg::ERR_TOKEN_OVERFLOW;
        if (wait_m[u] && cr_zero[3 * u + 32'(unit)])   fin_err = tsl_pkg::ERR_TOKEN_UNDERFLOW;
      end
    end
  end

  // Sequencing.
  assign step = active_i ? step_q : StepHdr;

  always_comb begin
    step_d     = StepHdr;
    done_o     = 1'b0;
    err_o      = tsl_pkg::ERR_NONE;
    err_addr_o = 32'd0;
    if (active_i) begin
      if (step == StepHdr) begin
        err_o  = hdr_err;
        step_d = nops != 3'd0 ? StepOp0 : StepFinal;
        done_o = hdr_err != tsl_pkg::ERR_NONE;
      end else if (step == StepFinal) begin
        err_o  = fin_err;
        done_o = 1'b1;
      end else begin
        err_o      = op_err;
        err_addr_o = op_err != tsl_pkg::ERR_NONE && op_err != tsl_pkg::ERR_BAD_FIELD ? o_addr : 32'd0;   // an overlap: 0
        step_d     = (step - StepOp0 + 3'd1 < nops) ? step + 3'd1 : StepFinal;
        done_o     = op_err != tsl_pkg::ERR_NONE;
      end
      if (done_o) step_d = StepHdr;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) step_q <= StepHdr;
    else         step_q <= step_d;
  end

  // Assertions
  `include "hw/rtl/tsl_assert.svh"
  `TSL_ASSERT_INIT(EpiOnlyWhole, (EPI_ONLY_FMTS ^ EPI_ONLY_NONE) == 6'h3F,
                   "each format uses all of the bits VPU_EPI adds to VPU_VEC's or none (the reserved-bit check relies on it)")
endmodule
