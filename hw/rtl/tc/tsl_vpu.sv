// Vector unit: executes validated VPU_VEC and VPU_EPI instructions (docs/isa.md section 4) row by
// row, exactly as hw/model/tslm.c: widen (int8 sign-extended, bf16/fp32 DAZ'd with canonical NaN),
// compute in N tsl_vpu_lane lanes, narrow (int8 saturation, bf16 round-to-nearest-even) and write.
// Per row: read src1 (and src2 for VEC; BCAST reads row 0 once, again only if dst overwrote it),
// then write dst; a 32-bit vector in VMEM takes two line accesses. The last read's data feeds the
// lanes directly (the write goes out in the cycle the data returns), so a row takes 2 cycles
// (unary), 3 (binary VEC; 1 and 2 with the early read, below) or log2(N) + 2 (RSUM/RMAX: the lane
// adders reduce pairs, one tree level per cycle), +1 per extra line of a 32-bit VMEM operand and
// per refused grant. EPI reads its bias
// row like a BCAST src2 and takes 2 cycles a row, 3 with FSCALE: the fmul runs in a cycle of its
// own (StScale, its result re-widened from raw1_q), the lanes then add, clamp and round or requant.
// The functions EXP, RECIP, RSQRT and ACT (StFunc) run their step program (tsl_vpu_fn_seq) on
// the lanes' fmul, a second fmul, the fadd and the transcendental unit (tsl_vpu_eup) in each lane's
// tsl_vpu_fn register sets, one per row in flight, up to FnRows: a row is read into a free set,
// whose program starts at once (in a cycle the sets take different units), and written when it
// ends, in order. The memory port does one access a cycle, the oldest row's write first, else the
// next row's read, where the destinations of the rows in flight do not overlap its source. A row
// takes 2 cycles of the port (3 for an FP32 destination in VMEM); the steps of the rows in flight
// overlap, so the functions stream at close to that when enough sets are free, ACT GELU at no less
// than its 5 fmul steps over two fmuls a row (docs/isa.md).
// Every read of row i precedes its writes, and row i+1 is read after row i is written (but for a
// function's rows in flight, whose rows do not overlap that way), so any overlap of the operands
// (in place or shifted) gives the model's result. An elementwise row (no BCAST, bias, FSCALE or
// reduction) reads its first src1 line on a second, read-only port (vmem_e_* / acc_e_*) in the
// cycle its previous row's last write is granted, unless that write's line is the one it reads:
// a binary row then takes 2 cycles, a unary one 1. One instruction at a time: ex_ready_o only
// when idle; done_o pulses the cycle after the last write is granted.
module tsl_vpu #(
  parameter int N          = tsl_pkg::PARAM_N,     // lanes; a power of two, 4..128
  parameter int VmemBytes  = tsl_pkg::PARAM_VMEM_BYTES,  // VMEM size in bytes (power of two)
  parameter int AccBytes   = tsl_pkg::PARAM_ACC_BYTES,   // ACC size in bytes (power of two)
  parameter bit EnableBf16 = 1'b1,  // 0: float ops are never dispatched (CFG_FEATURES), remove float logic
  parameter int FnRows     = tsl_pkg::PARAM_VPU_FN_ROWS  // rows a function runs at once (register sets), 2..8
) (
  input  logic clk_i, rst_ni,
  input  logic ex_valid_i, output logic ex_ready_o, input logic [255:0] ex_insn_i,
  output logic done_o, output logic busy_o,
  // VMEM port: W = 2N bytes, VAW = $clog2(VmemBytes/(2N))
  output logic vmem_req_o, input logic vmem_gnt_i, output logic vmem_we_o,
  output logic [$clog2(VmemBytes/(2*N))-1:0] vmem_addr_o,
  output logic [16*N-1:0] vmem_wdata_o, output logic [2*N-1:0] vmem_be_o,
  input  logic [16*N-1:0] vmem_rdata_i,
  // ACC port: W = 4N bytes, AAW = $clog2(AccBytes/(4N))
  output logic acc_req_o, input logic acc_gnt_i, output logic acc_we_o,
  output logic [$clog2(AccBytes/(4*N))-1:0] acc_addr_o,
  output logic [32*N-1:0] acc_wdata_o, output logic [4*N-1:0] acc_be_o,
  input  logic [32*N-1:0] acc_rdata_i,
  // the early read port (read-only): a row's first src1 line, beside its previous row's last write
  output logic vmem_e_req_o, input logic vmem_e_gnt_i,
  output logic [$clog2(VmemBytes/(2*N))-1:0] vmem_e_addr_o, input logic [16*N-1:0] vmem_e_rdata_i,
  output logic acc_e_req_o, input logic acc_e_gnt_i,
  output logic [$clog2(AccBytes/(4*N))-1:0] acc_e_addr_o, input logic [32*N-1:0] acc_e_rdata_i
);
  localparam int VAW = $clog2(VmemBytes / (2 * N));
  localparam int AAW = $clog2(AccBytes / (4 * N));
  localparam int LN  = $clog2(N);                 // reduction tree levels
  // Operand pointers count N-byte chunks: a VMEM line is 2 chunks, an ACC line 4.
  localparam int PW  = (VAW + 1 > AAW + 2) ? VAW + 1 : AAW + 2;
  localparam int LW  = $clog2(LN + 1);           // reduction level counter width
  localparam int GB  = $clog2(FnRows + 1);       // a function's rows in flight: 0..FnRows
  localparam int GW  = $clog2(FnRows);           // a register set's index

  typedef enum logic [2:0] {StIdle, StRead, StReduce, StScale, StFunc, StWrite, StRow} state_e;

  // ---- instruction fields ---------------------------------------------------------------------
`include "hw/rtl/tsl_insn.svh"
  /* verilator lint_off UNUSEDSIGNAL */
  insn_vpu_vec_t insn;   // header, tokens and reserved bits are the controller's
  insn_vpu_epi_t insn_e; // the same bits as an EPI
  /* verilator lint_on UNUSEDSIGNAL */
  assign insn   = ex_insn_i;
  assign insn_e = ex_insn_i;

  state_e      state_q, state_d;
  // Enum-valued fields are kept as plain vectors (Icarus 11 cannot cast to an enum).
  logic [3:0]  op_q;                            // vpu_op_e
  /* verilator lint_off UNUSEDSIGNAL */
  logic [1:0]  act_q;                           // ACT: vpu_act_e (the step program's; none without bf16)
  /* verilator lint_on UNUSEDSIGNAL */
  logic [1:0]  dd_q, d1_q, d2_q;                // dtype_e
  logic [1:0]  mode_q;                          // src2_e
  logic        fl_q;
  logic        e_bias_q, e_relu_q, e_fscale_q;  // EPI flags (0 for VPU_VEC)
  logic [15:0] bv_q, bidx_q, bidx_d;            // EPI: BVECS, and the bias vector row i reads (i mod BVECS)
  logic [PW-1:0] s2_base_q;                     // EPI: the first bias vector
  logic        row_end, bias_next;              // a row's last write; with it, a new bias vector
  logic [31:0] imm_q, scale_q, zp_q;
  logic [5:0]  shift_q;
  logic [15:0] rows_q, rows_d;
  logic [PW-1:0] d_ptr_q, d_ptr_d, s1_ptr_q, s1_ptr_d, s2_ptr_q;
  // A function's rows in flight (read, not yet written): rows i .. i+nf-1, row i the next to write
  // (d_ptr_q, s1_ptr_q), in register sets wk, wk+1, ... (mod FnRows); the next row to read is
  // src1's at s1_ptr_q + fo_q, into set rk.
  logic [GB-1:0] nf_q, nf_d;
  logic [GW-1:0] rk_q, rk_d, wk_q, wk_d;
  logic [PW-1:0] fo_q, fo_d;
  logic        ld_q;                            // a function's row was read whole last cycle: ...
  logic [GW-1:0] ld_k_q;                        // ... register set ld_k_q takes it (raw1_view) now
  logic [FnRows-1:0] fn_ld, fn_done;            // set k takes its row (ld_q), has ended its program
  logic        d_acc_q, s1_acc_q, s2_acc_q;
  logic        b_valid_q, b_valid_d;            // BCAST: src2 row 0 is in raw2_q and still current
  logic [3:0]  rdone_q, rdone_d;                // reads of this row done: s1 lo/hi, s2 lo/hi
  logic [1:0]  wdone_q, wdone_d;                // writes of this row done: lo/hi line
  logic [LW-1:0] lvl_q, lvl_d;                  // reduction tree level
  logic        done_q, done_d;

  logic unary, red, fn, s1_two, s2_two, d_two;
  logic [3:0] rneed, rcur;
  logic [1:0] wneed, wcur;
  logic       bcast_hit, acc_line_hit, vmem_line_hit;

  // The row engine (tsl_vpu_row): an EPI with a ROW function runs there (StRow), on the early ports
  // for its reads, the main ports for its writes and the lanes' transcendental units.
  logic            row_start, row_done;
  logic            row_vmem_req, row_acc_req, row_vmem_e_req, row_acc_e_req;
  logic [VAW-1:0]  row_vmem_addr, row_vmem_e_addr;
  logic [AAW-1:0]  row_acc_addr, row_acc_e_addr;
  logic [16*N-1:0] row_vmem_wdata;
  logic [32*N-1:0] row_acc_wdata;
  /* verilator lint_off UNUSEDSIGNAL */   // (no transcendental units without float support)
  logic            row_eup_en;
  logic [32*N-1:0] row_eup_x, eup_y_all;
  logic [3:0]      row_eup_fn;
  /* verilator lint_on UNUSEDSIGNAL */
  assign row_start = state_q == StIdle && ex_valid_i && insn.op == tsl_pkg::VPU_OP_EPI && insn_e.row != '0;

  function automatic logic is_fn(input logic [3:0] op);
    is_fn = op == tsl_pkg::VPU_OP_EXP || op == tsl_pkg::VPU_OP_RECIP || op == tsl_pkg::VPU_OP_RSQRT ||
            op == tsl_pkg::VPU_OP_ACT;
  endfunction
  assign fn = is_fn(op_q);

  // Which reads a row needs: src1 (two VMEM lines when 32-bit), src2 unless IMM / BCAST loaded.
  always_comb begin
    red    = op_q == tsl_pkg::VPU_OP_RSUM || op_q == tsl_pkg::VPU_OP_RMAX;
    unary  = tsl_pkg::OPS_UNARY[{2'(tsl_pkg::UNIT_VPU), op_q}];
    s1_two = d1_q[1] && !s1_acc_q;
    s2_two = d2_q[1] && !s2_acc_q;
    d_two  = dd_q[1] && !d_acc_q;
    rneed[0] = 1'b1;
    rneed[1] = s1_two;
    rneed[2] = !unary && mode_q != tsl_pkg::SRC2_IMM && (mode_q == tsl_pkg::SRC2_VEC || !b_valid_q);
    rneed[3] = rneed[2] && s2_two;
    rneed    = rneed & ~rdone_q;
    rcur     = rneed & (~rneed + 4'd1);             // lowest pending read, one-hot
    wneed    = {d_two, 1'b1} & ~wdone_q;
    wcur     = wneed[0] ? 2'b01 : 2'b10;
  end

  // ---- a function's reads and writes (StFunc) ------------------------------------------------------
  // One access a cycle: the write of row i once its set is done (the whole row, once begun), else
  // the read of the next row (the whole row, once begun) while a set is free, rows remain to read
  // and the destinations of the rows in flight miss its source (then it reads what the model does
  // after their writes), else none.
  logic           f_wr, f_rd, f_clear;
  logic [PW+3:0]  f_dlo, f_dhi, f_slo, f_shi;   // in chunks, wide enough not to wrap
  always_comb begin
    f_dlo   = (PW+4)'(d_ptr_q);
    f_dhi   = f_dlo + (PW+4)'(nf_q) * (PW+4)'(d_step);
    f_slo   = (PW+4)'(s1_ptr_q) + (PW+4)'(fo_q);
    f_shi   = f_slo + (PW+4)'(s1_step);
    f_clear = nf_q == '0 || d_acc_q != s1_acc_q || f_dhi <= f_slo || f_shi <= f_dlo;
    f_wr    = wdone_q != '0 || (rdone_q == '0 && nf_q != '0 && fn_done[wk_q] && !fn_ld[wk_q]);
    f_rd    = !f_wr && (rdone_q != '0 || (32'(nf_q) < FnRows && 16'(nf_q) < rows_q && f_clear));
  end

  // ---- memory requests ------------------------------------------------------------------------
  logic          rd_src2, rd_part, rd_acc, rd_int8;
  logic [PW-1:0] rd_ptr;
  logic          rd_gnt, wr_gnt;
  logic [VAW-1:0] s2_vline;
  logic [AAW-1:0] s2_aline;
  logic [16*N-1:0] vmem_line_data;
  logic [32*N-1:0] dst_row;                     // narrowed result row (lanes in order)
  logic [8*N-1:0]  dst_i8;
  logic [16*N-1:0] dst_bf16;

  always_comb begin
    rd_src2 = rcur[2] || rcur[3];
    rd_part = rcur[1] || rcur[3];
    rd_acc  = rd_src2 ? s2_acc_q : s1_acc_q;
    rd_int8 = (rd_src2 ? d2_q : d1_q) == tsl_pkg::DTYPE_INT8;
    rd_ptr  = rd_src2 ? s2_ptr_q : s1_ptr_q + fo_q;

    // Destination line: INT8 is one half of a VMEM line, BF16 one line, 32-bit two (or one ACC line).
    case (dd_q)
      tsl_pkg::DTYPE_INT8:  vmem_line_data = {dst_i8, dst_i8};
      tsl_pkg::DTYPE_BF16:  vmem_line_data = dst_bf16;
      default:     vmem_line_data = wcur[1] ? dst_row[32*N-1:16*N] : dst_row[16*N-1:0];
    endcase

    vmem_req_o   = 1'b0;
    vmem_we_o    = 1'b0;
    vmem_addr_o  = '0;
    vmem_wdata_o = vmem_line_data;
    vmem_be_o    = '1;
    acc_req_o    = 1'b0;
    acc_we_o     = 1'b0;
    acc_addr_o   = '0;
    acc_wdata_o  = dst_row;
    acc_be_o     = '1;
    if (state_q == StRead || (state_q == StFunc && f_rd)) begin
      vmem_req_o  = !rd_acc;
      acc_req_o   = rd_acc;
      vmem_addr_o = rd_ptr[VAW:1] + {{(VAW-1){1'b0}}, rd_part};
      acc_addr_o  = rd_ptr[AAW+1:2];
    end else if (state_q == StWrite || (state_q == StFunc && f_wr)) begin
      vmem_req_o  = !d_acc_q;
      acc_req_o   = d_acc_q;
      vmem_we_o   = 1'b1;
      acc_we_o    = 1'b1;
      vmem_addr_o = d_ptr_q[VAW:1] + {{(VAW-1){1'b0}}, wcur[1]};
      acc_addr_o  = d_ptr_q[AAW+1:2];
      if (dd_q == tsl_pkg::DTYPE_INT8) begin
        vmem_be_o = d_ptr_q[0] ? {{N{1'b1}}, {N{1'b0}}} : {{N{1'b0}}, {N{1'b1}}};
      end
    end
    if (state_q == StRow) begin   // the row engine's writes
      vmem_req_o   = row_vmem_req;
      vmem_we_o    = 1'b1;
      vmem_addr_o  = row_vmem_addr;
      vmem_wdata_o = row_vmem_wdata;
      acc_req_o    = row_acc_req;
      acc_we_o     = 1'b1;
      acc_addr_o   = row_acc_addr;
      acc_wdata_o  = row_acc_wdata;
    end
  end

  // Kept apart from the request logic, so that no combinational loop through the grant exists.
  assign rd_gnt = (state_q == StRead || (state_q == StFunc && f_rd)) && (rd_acc ? acc_gnt_i : vmem_gnt_i);
  assign wr_gnt = (state_q == StWrite || (state_q == StFunc && f_wr)) && (d_acc_q ? acc_gnt_i : vmem_gnt_i);

  // The early read: the next row's first src1 line (its pointer s1_next), asked for during the
  // current row's last write and taken only if both are granted (er_take); its data then returns
  // after that write, so the lanes never see it early. A read of the line written in the same
  // cycle would miss the write: it waits for the ordinary read.
  logic          er_req, er_take, w_last, er_hit;   // w_last: the write asked for is its row's last
  logic [PW-1:0] s1_next;
  assign s1_next = s1_ptr_q + s1_step;
  assign w_last  = (wneed & ~wcur) == 2'd0;
  assign er_hit  = d_acc_q == s1_acc_q &&
                   (d_acc_q ? acc_addr_o == s1_next[AAW+1:2] : vmem_addr_o == s1_next[VAW:1]);
  assign er_req  = state_q == StWrite && w_last && rows_q > 16'd1 && !red && !e_fscale_q && !e_bias_q &&
                   mode_q != tsl_pkg::SRC2_BCAST && !er_hit;
  assign er_take = er_req && wr_gnt && (s1_acc_q ? acc_e_gnt_i : vmem_e_gnt_i);
  assign vmem_e_req_o  = state_q == StRow ? row_vmem_e_req : er_req && !s1_acc_q;
  assign acc_e_req_o   = state_q == StRow ? row_acc_e_req : er_req && s1_acc_q;
  assign vmem_e_addr_o = state_q == StRow ? row_vmem_e_addr : s1_next[VAW:1];
  assign acc_e_addr_o  = state_q == StRow ? row_acc_e_addr : s1_next[AAW+1:2];

  // A write over the lines of the broadcast row makes the row stale (the model re-reads it).
  always_comb begin
    s2_vline      = s2_ptr_q[VAW:1];
    s2_aline      = s2_ptr_q[AAW+1:2];
    vmem_line_hit = vmem_addr_o == s2_vline || (s2_two && vmem_addr_o == s2_vline + {{(VAW-1){1'b0}}, 1'b1});
    acc_line_hit  = acc_addr_o == s2_aline;
    bcast_hit     = (d_acc_q == s2_acc_q) && (d_acc_q ? acc_line_hit : vmem_line_hit);
  end

  // ---- read data capture ------------------------------------------------------------------------
  // raw*_q hold the operands' bytes as stored (INT8 in the low N bytes, BF16 in the low 2N, 32-bit
  // in all 4N). The data of a read granted last cycle is merged in combinationally (raw*_view).
  logic            rd_valid_q, rd_src2_q, rd_part_q, rd_acc_q, rd_int8_q, rd_half_q, rd_e_q;
  logic [32*N-1:0] raw1_q, raw2_q, raw1_view, raw2_view, fill, a_rd;
  logic [16*N-1:0] v_rd;

  always_comb begin
    a_rd      = rd_e_q ? acc_e_rdata_i : acc_rdata_i;   // the port the read went on
    v_rd      = rd_e_q ? vmem_e_rdata_i : vmem_rdata_i;
    raw1_view = raw1_q;
    raw2_view = raw2_q;
    fill      = rd_src2_q ? raw2_q : raw1_q;
    if (rd_acc_q) begin
      fill = a_rd;
    end else if (rd_int8_q) begin
      fill[8*N-1:0] = rd_half_q ? v_rd[16*N-1:8*N] : v_rd[8*N-1:0];
    end else if (rd_part_q) begin
      fill[32*N-1:16*N] = v_rd;
    end else begin
      fill[16*N-1:0] = v_rd;
    end
    if (rd_valid_q && rd_src2_q) raw2_view = fill;
    if (rd_valid_q && !rd_src2_q) raw1_view = fill;
  end

  // ---- lanes ----------------------------------------------------------------------------------------
  logic [31:0] wa [N];        // widened src1
  logic [31:0] wb [N];        // widened src2 (or the immediate)
  logic [31:0] ly [N];        // lane results
  logic [31:0] tree_q [N/2];  // reduction partial results
  logic [3:0]  lane_op;       // vpu_op_e given to the lanes

  always_comb begin
    if (state_q == StFunc) begin
      lane_op = tsl_pkg::VPU_OP_MUL;   // the steps of the function: fmul in y_o, fadd in fs
    end else if (op_q == tsl_pkg::VPU_OP_RSUM) begin
      lane_op = tsl_pkg::VPU_OP_ADD;
    end else if (op_q == tsl_pkg::VPU_OP_RMAX || op_q == tsl_pkg::VPU_OP_RELU) begin
      lane_op = tsl_pkg::VPU_OP_MAX;   // RELU = MAX(a, 0): b is forced to 0 below
    end else if (state_q == StScale) begin
      lane_op = tsl_pkg::VPU_OP_MUL;   // EPI FSCALE: fmul(a, SCALE)
    end else begin
      lane_op = op_q;
    end
  end

  logic d1_int8, d2_int8, imm;
  assign d1_int8 = d1_q == tsl_pkg::DTYPE_INT8;
  assign d2_int8 = d2_q == tsl_pkg::DTYPE_INT8;
  assign imm     = mode_q == tsl_pkg::SRC2_IMM || state_q == StScale;   // EPI FSCALE: b = SCALE

  // The lanes' results are used while a row is written or reduced; in other cycles the lanes and
  // the widening give 0 and cost the simulation nothing (the VPU is idle most of a GEMM).
  logic lane_en;
  assign lane_en = state_q == StWrite || state_q == StReduce || state_q == StScale || state_q == StFunc;

  // The functions' step program, the same for every lane, for the register sets of the rows in
  // flight; a set starts as its row is read whole (ld_q), from the widened row (wa).
  /* verilator lint_off UNUSEDSIGNAL */
  logic [FnRows-1:0]    fn_we, fn_mul, fn_dst, fn_eup_we;
  logic [2*FnRows-1:0]  fn_a_sel, fn_b_sel;
  logic [32*FnRows-1:0] fn_c;
  logic [GW-1:0]        fn_mul_set, fn_mul2_set, fn_add_set, fn_eup_set;
  logic [3:0]           fn_eup_fn;
  logic                 fn_mul2_go, fn_eup_go, fn_eup_dst;
  /* verilator lint_on UNUSEDSIGNAL */
  for (genvar k = 0; k < FnRows; k++) begin : g_set_ld
    assign fn_ld[k] = ld_q && ld_k_q == GW'(k);
  end
  if (EnableBf16) begin : g_fn_seq
    tsl_vpu_fn_seq #(
      .G(FnRows)
    ) u_fn_seq (
      .clk_i    (clk_i),
      .rst_ni   (rst_ni),
      .start_i  (fn_ld),
      .oldest_i (wk_q),
      .op_i     (op_q),
      .act_i    (act_q),
      .done_o   (fn_done),
      .we_o     (fn_we),
      .mul_o    (fn_mul),
      .a_sel_o  (fn_a_sel),
      .b_sel_o  (fn_b_sel),
      .dst_o    (fn_dst),
      .c_o      (fn_c),
      .mul_set_o(fn_mul_set),
      .mul2_go_o(fn_mul2_go),
      .mul2_set_o(fn_mul2_set),
      .add_set_o(fn_add_set),
      .eup_go_o (fn_eup_go),
      .eup_set_o(fn_eup_set),
      .eup_fn_o (fn_eup_fn),
      .eup_we_o (fn_eup_we),
      .eup_dst_o(fn_eup_dst)
    );
  end else begin : g_no_fn_seq
    assign fn_we      = '0;
    assign fn_mul     = '0;
    assign fn_a_sel   = '0;
    assign fn_b_sel   = '0;
    assign fn_dst     = '0;
    assign fn_c       = '0;
    assign fn_mul_set = '0;
    assign fn_mul2_go = 1'b0;
    assign fn_mul2_set = '0;
    assign fn_add_set = '0;
    assign fn_eup_go  = 1'b0;
    assign fn_eup_set = '0;
    assign fn_eup_fn  = '0;
    assign fn_eup_we  = '0;
    assign fn_eup_dst = 1'b0;
    assign fn_done    = '0;
  end

  if (EnableBf16) begin : g_row
    tsl_vpu_row #(
      .N(N), .VmemBytes(VmemBytes), .AccBytes(AccBytes), .G(FnRows < N ? FnRows : N)
    ) u_row (
      .clk_i        (clk_i),
      .rst_ni       (rst_ni),
      .start_i      (row_start),
      .insn_i       (ex_insn_i),
      .done_o       (row_done),
      .vmem_req_o   (row_vmem_req),
      .vmem_gnt_i   (vmem_gnt_i),
      .vmem_addr_o  (row_vmem_addr),
      .vmem_wdata_o (row_vmem_wdata),
      .acc_req_o    (row_acc_req),
      .acc_gnt_i    (acc_gnt_i),
      .acc_addr_o   (row_acc_addr),
      .acc_wdata_o  (row_acc_wdata),
      .vmem_e_req_o (row_vmem_e_req),
      .vmem_e_gnt_i (vmem_e_gnt_i),
      .vmem_e_addr_o(row_vmem_e_addr),
      .vmem_e_rdata_i(vmem_e_rdata_i),
      .acc_e_req_o  (row_acc_e_req),
      .acc_e_gnt_i  (acc_e_gnt_i),
      .acc_e_addr_o (row_acc_e_addr),
      .acc_e_rdata_i(acc_e_rdata_i),
      .eup_fn_o     (row_eup_fn),
      .eup_en_o     (row_eup_en),
      .eup_x_o      (row_eup_x),
      .eup_y_i      (eup_y_all)
    );
  end else begin : g_no_row
    assign row_done       = 1'b0;
    assign row_eup_en     = 1'b0;
    assign row_vmem_req   = 1'b0;
    assign row_acc_req    = 1'b0;
    assign row_vmem_e_req = 1'b0;
    assign row_acc_e_req  = 1'b0;
    assign row_vmem_addr  = '0;
    assign row_vmem_e_addr = '0;
    assign row_acc_addr   = '0;
    assign row_acc_e_addr = '0;
    assign row_vmem_wdata = '0;
    assign row_acc_wdata  = '0;
    assign row_eup_x      = '0;
    assign row_eup_fn     = '0;
  end

  localparam logic [31:0] QNAN = 32'h7FC0_0000;
  for (genvar j = 0; j < N; j++) begin : g_lane
    logic [31:0] w1, w2, la0, lb0, la, lb, res;
    /* verilator lint_off UNUSEDSIGNAL */
    logic [31:0] fs;   // the lane's fadd in a function step (unread without float support)
    /* verilator lint_on UNUSEDSIGNAL */
    // Register set k's step operands and result at [32k +: 32]: one vector, not a packed 2-D
    // array, which Yosys does not take inside a generate loop.
    logic [32*FnRows-1:0] fa, fb, fy;

    // Widening: INT8 sign-extends, INT32 is taken as is; BF16 / FP32 are DAZ'd and NaNs become
    // canonical. Only while the lanes' results are used (lane_en), as the lanes themselves.
    always_comb begin
      w1 = '0;
      w2 = '0;
      if (lane_en && EnableBf16 && fl_q) begin
        // In the float class bit 1 of a dtype tells FP32 from BF16.
        w1 = d1_q[1] ? raw1_view[32*j +: 32] : {raw1_view[16*j +: 16], 16'd0};
        w2 = imm ? imm_q : d2_q[1] ? raw2_view[32*j +: 32] : {raw2_view[16*j +: 16], 16'd0};
        if (w1[30:23] == 8'hFF && w1[22:0] != 23'd0) w1 = QNAN;
        else if (w1[30:23] == 8'd0) w1 = {w1[31], 31'd0};
        if (w2[30:23] == 8'hFF && w2[22:0] != 23'd0) w2 = QNAN;
        else if (w2[30:23] == 8'd0) w2 = {w2[31], 31'd0};
      end else if (lane_en) begin
        w1 = d1_int8 ? {{24{raw1_view[8*j+7]}}, raw1_view[8*j +: 8]} : raw1_view[32*j +: 32];
        w2 = imm ? imm_q : d2_int8 ? {{24{raw2_view[8*j+7]}}, raw2_view[8*j +: 8]} : raw2_view[32*j +: 32];
      end
    end
    assign wa[j] = w1;
    assign wb[j] = w2;

    // Lane inputs: elementwise (RELU against 0), or one pair of the reduction tree.
    // A function's step takes the operands of this lane's tsl_vpu_fn instead.
    if (j < N / 4) begin : g_tree_in
      assign la0 = !red ? wa[j] : (lvl_q == '0) ? wa[2*j] : tree_q[2*j];
      assign lb0 = !red ? ((op_q == tsl_pkg::VPU_OP_RELU) ? 32'd0 : wb[j]) :
                   (lvl_q == '0) ? wa[2*j+1] : tree_q[2*j+1];
    end else if (j < N / 2) begin : g_tree_first
      assign la0 = !red ? wa[j] : wa[2*j];
      assign lb0 = !red ? ((op_q == tsl_pkg::VPU_OP_RELU) ? 32'd0 : wb[j]) : wa[2*j+1];
    end else begin : g_no_tree
      assign la0 = wa[j];
      assign lb0 = (op_q == tsl_pkg::VPU_OP_RELU) ? 32'd0 : wb[j];
    end
    // A function's step: the fmul takes the operands of the oldest set whose step is an fmul (the
    // second fmul, m2, the next one's), the fadd those of the set whose step is an fadd.
    assign la = (state_q == StFunc) ? fa[32*fn_mul_set +: 32] : la0;
    assign lb = (state_q == StFunc) ? fb[32*fn_mul_set +: 32] : lb0;

    if (EnableBf16) begin : g_fn
      // Register set k runs a row in flight, taken from wa as it is read; the sets share the
      // lane's transcendental unit, which takes the operand a of the set that issues to it, and a
      // second fmul beside the lane's (m2), for the set that takes it.
      logic [31:0] ey, m2;
      always_comb begin
        m2 = '0;
        if (state_q == StFunc && fn_mul2_go)
          m2 = tsl_vpu_fmul_pkg::fp32_mul(fa[32*fn_mul2_set +: 32], fb[32*fn_mul2_set +: 32]);
      end
      tsl_vpu_eup u_eup (
        .clk_i(clk_i),
        .en_i (state_q != StRow || row_eup_en),
        .fn_i (state_q == StRow ? row_eup_fn : fn_eup_fn),
        .x_i  (state_q == StRow ? row_eup_x[32*j +: 32] : fa[32*fn_eup_set +: 32]),
        .y_o  (ey)
      );
      assign eup_y_all[32*j +: 32] = ey;
      for (genvar k = 0; k < FnRows; k++) begin : g_set
        tsl_vpu_fn u_fn (
          .clk_i    (clk_i),
          .ld_i     (fn_ld[k]),
          .x_i      (wa[j]),
          .we_i     (fn_we[k]),
          .a_sel_i  (fn_a_sel[2*k +: 2]),
          .b_sel_i  (fn_b_sel[2*k +: 2]),
          .dst_i    (fn_dst[k]),
          .c_i      (fn_c[32*k +: 32]),
          .a_o      (fa[32*k +: 32]),
          .b_o      (fb[32*k +: 32]),
          .y_i      (!fn_mul[k] ? fs : fn_mul2_go && fn_mul2_set == GW'(k) ? m2 : ly[j]),
          .eup_we_i (fn_eup_we[k]),
          .eup_dst_i(fn_eup_dst),
          .eup_y_i  (ey),
          .res_o    (fy[32*k +: 32])
        );
      end
    end else begin : g_no_fn
      assign eup_y_all[32*j +: 32] = '0;
      assign fa = '0;
      assign fb = '0;
      assign fy = '0;
    end

    tsl_vpu_lane #(
      .EnableBf16(EnableBf16)
    ) u_lane (
      .en_i   (lane_en),
      .op_i   (lane_op),
      .float_i(fl_q),
      .a_i    (la),
      .b_i    (lb),
      .scale_i(scale_q),
      .shift_i(shift_q),
      .zp_i   (zp_q),
      .bias_i (e_bias_q),
      .relu_i (e_relu_q),
      .rq_i   (dd_q == tsl_pkg::DTYPE_INT8),
      .fn_i   (state_q == StFunc),
      .fa_i   (fa[32*fn_add_set +: 32]),
      .fb_i   (fb[32*fn_add_set +: 32]),
      .y_o    (ly[j]),
      .fs_o   (fs)
    );

    // Narrowing: int8 saturates, bf16 rounds to nearest even on bit 16 (values are canonical).
    assign res = red ? tree_q[0] : fn ? fy[32*wk_q +: 32] : ly[j];
    assign dst_row[32*j +: 32] = res;
    assign dst_i8[8*j +: 8] = ($signed(res) > 32'sd127)  ? 8'h7F :
                              ($signed(res) < -32'sd128) ? 8'h80 : res[7:0];
    if (EnableBf16) begin : g_bf16_out
      logic rnd_up;   // round up: above the half, or a tie with an odd bit 16
      assign rnd_up = res[15] && (res[14:0] != 15'd0 || res[16]);
      assign dst_bf16[16*j +: 16] = (res == QNAN) ? 16'h7FC0 : res[31:16] + {15'd0, rnd_up};
    end else begin : g_no_bf16_out
      assign dst_bf16[16*j +: 16] = res[15:0];
    end
  end

  // ---- control --------------------------------------------------------------------------------------
  // Row step of each operand in N-byte chunks: 1 (INT8), 2 (BF16) or 4 (INT32, FP32).
  logic [PW-1:0] d_step, s1_step, s2_step;
  assign d_step  = {{(PW-3){1'b0}}, dd_q[1], dd_q == tsl_pkg::DTYPE_BF16, dd_q == tsl_pkg::DTYPE_INT8};
  assign s1_step = {{(PW-3){1'b0}}, d1_q[1], d1_q == tsl_pkg::DTYPE_BF16, d1_q == tsl_pkg::DTYPE_INT8};
  assign s2_step = {{(PW-3){1'b0}}, d2_q[1], d2_q == tsl_pkg::DTYPE_BF16, d2_q == tsl_pkg::DTYPE_INT8};

  always_comb begin
    state_d   = state_q;
    rows_d    = rows_q;
    nf_d      = nf_q;
    rk_d      = rk_q;
    wk_d      = wk_q;
    fo_d      = fo_q;
    d_ptr_d   = d_ptr_q;
    s1_ptr_d  = s1_ptr_q;
    b_valid_d = b_valid_q;
    rdone_d   = rdone_q;
    wdone_d   = wdone_q;
    lvl_d     = lvl_q;
    done_d    = 1'b0;
    case (state_q)
      StIdle: begin
        if (ex_valid_i) begin
          state_d   = StRead;
          if (is_fn(insn.op)) state_d = StFunc;
          if (row_start) state_d = StRow;
          rows_d    = insn.rows;
          d_ptr_d   = insn.dst_addr[LN +: PW];
          s1_ptr_d  = insn.src1_addr[LN +: PW];
          b_valid_d = 1'b0;
          rdone_d   = '0;
          nf_d      = '0;
          rk_d      = '0;
          wk_d      = '0;
          fo_d      = '0;
        end
      end
      StRead: begin
        if (rd_gnt) begin
          rdone_d = rdone_q | rcur;
          if ((rneed & ~rcur) == 4'd0) begin
            state_d   = StWrite;
            if (red) state_d = StReduce;
            if (e_fscale_q) state_d = StScale;
            rdone_d   = '0;
            wdone_d   = '0;
            lvl_d     = '0;
            b_valid_d = mode_q == tsl_pkg::SRC2_BCAST;
          end
        end
      end
      StScale: state_d = StWrite;   // the lanes' products go to raw1_q
      StFunc: begin
        // a row read whole goes in flight (its set starts next cycle); a row written leaves it
        if (rd_gnt) begin
          rdone_d = rdone_q | rcur;
          if ((rneed & ~rcur) == 4'd0) begin
            rdone_d = '0;
            nf_d    = nf_q + 1'b1;
            fo_d    = fo_q + s1_step;
            rk_d    = 32'(rk_q) == FnRows - 1 ? '0 : rk_q + 1'b1;
          end
        end
        if (row_end) begin
          nf_d = nf_q - 1'b1;
          fo_d = fo_q - s1_step;
          wk_d = 32'(wk_q) == FnRows - 1 ? '0 : wk_q + 1'b1;
        end
      end
      StRow: begin   // the row engine's instruction (its writes are not row_end's)
        if (row_done) begin
          state_d = StIdle;
          done_d  = 1'b1;
        end
      end
      StReduce: begin
        lvl_d = lvl_q + 1'b1;
        if ({{(32-LW){1'b0}}, lvl_q} == LN - 1) state_d = StWrite;   // last level
      end
      StWrite: begin
        if (wr_gnt && mode_q == tsl_pkg::SRC2_BCAST && bcast_hit) b_valid_d = 1'b0;
        if (bias_next) b_valid_d = 1'b0;
        if (row_end) state_d = StRead;
        if (er_take) begin   // the next row's first read is done: its others, or its write if none
          rdone_d = 4'b0001;
          if (rneed == 4'b0001) begin
            state_d = StWrite;
            rdone_d = '0;
          end
        end
      end
      default: state_d = StIdle;
    endcase
    // A write (StWrite, or a function's in StFunc); a row's last one advances the row pointers by
    // one vector (1, 2 or 4 chunks), and the instruction's last row ends it.
    if (wr_gnt) wdone_d = wdone_q | wcur;
    if (row_end) begin
      rows_d   = rows_q - 16'd1;
      d_ptr_d  = d_ptr_q + d_step;
      s1_ptr_d = s1_ptr_q + s1_step;
      wdone_d  = '0;
      if (rows_q == 16'd1) begin
        state_d = StIdle;
        done_d  = 1'b1;
      end
    end
  end

  // src2 advances for VEC only (BCAST stays on row 0; IMM has no pointer, and a function reads
  // none); an EPI's bias cycles through its BVECS vectors, row i reading vector i mod BVECS
  // (re-read when it changes).
  logic [PW-1:0] s2_ptr_d;
  assign row_end   = wr_gnt && w_last;
  assign bias_next = row_end && e_bias_q && bv_q != 16'd1;
  always_comb begin
    s2_ptr_d = s2_ptr_q;
    bidx_d   = bidx_q;
    if (state_q == StIdle && ex_valid_i) begin
      s2_ptr_d = insn.src2_addr[LN +: PW];
      bidx_d   = '0;
    end else if (row_end && mode_q == tsl_pkg::SRC2_VEC) begin
      s2_ptr_d = s2_ptr_q + s2_step;
    end else if (bias_next) begin
      bidx_d   = bidx_q + 16'd1 == bv_q ? 16'd0 : bidx_q + 16'd1;
      s2_ptr_d = bidx_q + 16'd1 == bv_q ? s2_base_q : s2_ptr_q + s2_step;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q    <= StIdle;
      done_q     <= 1'b0;
      rd_valid_q <= 1'b0;
      b_valid_q  <= 1'b0;
      rdone_q    <= '0;
      wdone_q    <= '0;
      lvl_q      <= '0;
      rows_q     <= '0;
      nf_q       <= '0;
      rk_q       <= '0;
      wk_q       <= '0;
      fo_q       <= '0;
      ld_q       <= 1'b0;
    end else begin
      state_q    <= state_d;
      done_q     <= done_d;
      rd_valid_q <= rd_gnt || er_take;
      b_valid_q  <= b_valid_d;
      rdone_q    <= rdone_d;
      wdone_q    <= wdone_d;
      lvl_q      <= lvl_d;
      rows_q     <= rows_d;
      nf_q       <= nf_d;
      rk_q       <= rk_d;
      wk_q       <= wk_d;
      fo_q       <= fo_d;
      ld_q       <= state_q == StFunc && rd_gnt && (rneed & ~rcur) == 4'd0;
    end
  end

  // Datapath and instruction registers (no reset); the fields are captured on acceptance.
  always_ff @(posedge clk_i) begin
    d_ptr_q  <= d_ptr_d;
    s1_ptr_q <= s1_ptr_d;
    s2_ptr_q <= s2_ptr_d;
    bidx_q   <= bidx_d;
    if (state_q == StIdle && ex_valid_i) s2_base_q <= insn.src2_addr[LN +: PW];
    if (state_q == StIdle && ex_valid_i) begin
      op_q     <= insn.op;
      act_q    <= insn.act;
      dd_q     <= insn.dst_dtype;
      d1_q     <= insn.src1_dtype;
      d2_q     <= insn.src2_dtype;
      mode_q   <= insn.src2_mode;
      // Float class: BF16 or FP32 (bit 0 of the dtype); constant 0 without float support.
      fl_q     <= EnableBf16 && insn.src1_dtype[0];
      imm_q    <= insn.src2_addr;
      e_bias_q   <= 1'b0;
      e_relu_q   <= 1'b0;
      e_fscale_q <= 1'b0;
      bv_q       <= 16'd1;
      if (insn.op == tsl_pkg::VPU_OP_EPI) begin
        // The bias is a BCAST src2 of SRC1's type; without it src2 is an unread IMM. FSCALE's
        // multiplier is the immediate of the StScale cycle.
        d2_q       <= insn_e.src1_dtype;
        mode_q     <= insn_e.bias ? tsl_pkg::SRC2_BCAST : tsl_pkg::SRC2_IMM;
        imm_q      <= insn_e.scale;
        e_bias_q   <= insn_e.bias;
        bv_q       <= insn_e.bias ? insn_e.bvecs : 16'd1;
        e_relu_q   <= insn_e.relu;
        e_fscale_q <= EnableBf16 && insn_e.fscale;
      end
      scale_q  <= insn.scale;
      shift_q  <= insn.shift;
      zp_q     <= insn.zero_point;
      d_acc_q  <= insn.dst_addr[24];
      s1_acc_q <= insn.src1_addr[24];
      s2_acc_q <= insn.src2_addr[24];
    end
    ld_k_q <= rk_q;
    if (rd_gnt) begin
      rd_src2_q <= rd_src2;
      rd_part_q <= rd_part;
      rd_acc_q  <= rd_acc;
      rd_int8_q <= rd_int8;
      rd_half_q <= rd_ptr[0];
      rd_e_q    <= 1'b0;
    end else if (er_take) begin
      rd_src2_q <= 1'b0;
      rd_part_q <= 1'b0;
      rd_acc_q  <= s1_acc_q;
      rd_int8_q <= d1_int8;
      rd_half_q <= s1_next[0];
      rd_e_q    <= 1'b1;
    end
    for (int j = 0; j < N; j++) begin
      raw1_q[32*j +: 32] <= (state_q == StScale) ? ly[j] : raw1_view[32*j +: 32];
    end
    raw2_q <= raw2_view;
    if (state_q == StReduce) begin
      for (int j = 0; j < N / 2; j++) tree_q[j] <= ly[j];
    end
  end

  assign ex_ready_o = state_q == StIdle;
  assign done_o     = done_q;
  assign busy_o     = state_q != StIdle;

  // Assertions
  `include "hw/rtl/tsl_assert.svh"
  `TSL_ASSERT(FnOnlyFloat, state_q == StFunc |-> fl_q && EnableBf16,
              "the VPU functions run on floats only (the dispatch check refuses integer dtypes)")
  `TSL_ASSERT(ScaleOnlyFloatEpi, state_q == StScale |-> fl_q && op_q == tsl_pkg::VPU_OP_EPI,
              "the FSCALE cycle runs only for a float EPI (the dispatch check refuses FSCALE on integers)")
endmodule
