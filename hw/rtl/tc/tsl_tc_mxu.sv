// MXU unit of the tensor core: executes LOADW, MATMUL and MATMULK instructions on tsl_mxu. A
// MATMULK is issued as its KBLOCKS LOADW/MATMUL pairs (micro-ops, one per cycle when there is room,
// exactly the instructions isa.md defines it as), and ex_ready_o rises with its last one. Two row readers
// (tsl_tc_rowrd) fetch weight rows and activation rows from VMEM on their own ports, so a LOADW
// streams while a MATMUL runs; tsl_mxu_acc writes result rows into ACC through a read and a write
// port that always win arbitration. Several instructions may be in flight (it accepts while its
// FIFOs have room); done_o retires them strictly in acceptance order, although a LOADW can finish
// before an earlier MATMUL's last row lands. busy_o is high in cycles an activation row enters the
// array. Assumes validated instructions (isa.md §5): aligned, in range, dtype built in. TRANSPOSE
// (LOADW, MATMULK) goes to the array with each LOADW; a transposed MATMULK's K-block k reads its
// tile at W_ADDR + k*N*size(DTYPE) (the next N elements of each weight column).
module tsl_tc_mxu #(
  parameter int N          = tsl_pkg::PARAM_N,          // array size
  parameter int VmemBytes  = tsl_pkg::PARAM_VMEM_BYTES,
  parameter int AccBytes   = tsl_pkg::PARAM_ACC_BYTES,
  parameter bit EnableBf16 = 1'b1,                      // 1: int8 and bf16; 0: int8 only
  localparam int VAw = $clog2(VmemBytes / (2 * N)),    // VMEM line-index bits
  localparam int AAw = $clog2(AccBytes / (4 * N))      // ACC line-index bits
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  // unit execution interface
  input  logic             ex_valid_i,
  output logic             ex_ready_o,
  input  logic [255:0]     ex_insn_i,
  output logic             done_o,
  output logic             busy_o,
  // VMEM read ports: activations and weights
  output logic             va_req_o,
  input  logic             va_gnt_i,
  output logic [VAw-1:0]   va_addr_o,
  input  logic [16*N-1:0]  va_rdata_i,
  output logic             vw_req_o,
  input  logic             vw_gnt_i,
  output logic [VAw-1:0]   vw_addr_o,
  input  logic [16*N-1:0]  vw_rdata_i,
  // ACC read and write ports (never refused)
  output logic             acc_re_o,
  output logic [AAw-1:0]   acc_raddr_o,
  input  logic [32*N-1:0]  acc_rdata_i,
  output logic             acc_we_o,
  output logic [AAw-1:0]   acc_waddr_o,
  output logic [32*N-1:0]  acc_wdata_o
);
  localparam int AccSh = $clog2(4 * N);
  localparam int CmdW  = 2 + 1 + 2 + 1 + 1 + 16 + 2 * AAw;
  // Micro-ops accepted and not yet retired. A MATMUL retires more than 2N cycles after its first
  // row enters the array, so a 1-row MATMULK (a GEMV) needs about 8 in flight for the next LOADWs
  // to be accepted, and their weight rows read, before the running LOADW ends.
  localparam int RetDepth = 8;
  localparam int RetW     = $clog2(RetDepth + 1);

  // --- decode: the instruction, or the current micro-op of a MATMULK ---------------------------------
  logic        is_k, k_mm_q, k_last, is_mm, bf16, wbuf, accum, trans;
  logic [11:0] k_blk_q, kblocks;
  logic [31:0] k_aaddr_q, k_waddr_q, a_addr, w_addr, stride_w;
  logic [1:0]  op;
  logic [31:0] addr, stride, acc_addr, acc_stride;
  logic [15:0] rows;

  // MATMUL and MATMULK share DTYPE, WBUF, ACCUMULATE, ACT_*, ACC_* and ROWS; LOADW's DTYPE, WBUF,
  // ADDR and STRIDE sit where DTYPE, WBUF, ACT_ADDR and ACT_STRIDE are: one view serves all three.
`include "hw/rtl/tsl_insn.svh"
  /* verilator lint_off UNUSEDSIGNAL */
  insn_mxu_matmulk_t insn;
  /* verilator lint_on UNUSEDSIGNAL */
  assign insn       = ex_insn_i;
  assign is_k       = insn.op[1:0] == 2'(tsl_pkg::MXU_OP_MATMULK);
  assign kblocks    = insn.kblocks;
  assign a_addr     = k_blk_q == '0 ? insn.act_addr : k_aaddr_q;
  assign w_addr     = k_blk_q == '0 ? insn.w_addr : k_waddr_q;
  assign k_last     = k_mm_q && k_blk_q == kblocks - 12'd1;
  assign is_mm      = is_k ? k_mm_q : insn.op[1:0] == 2'(tsl_pkg::MXU_OP_MATMUL);
  assign op         = is_mm ? 2'(tsl_pkg::MXU_OP_MATMUL) : 2'(tsl_pkg::MXU_OP_LOADW);
  assign bf16       = insn.dtype == 2'(tsl_pkg::DTYPE_BF16);
  assign wbuf       = insn.wbuf ^ (is_k && k_blk_q[0]);
  assign accum      = insn.accumulate || (is_k && k_blk_q != '0);
  assign trans      = insn.transpose && !is_mm;   // bit 22 in LOADW and MATMULK alike
  assign addr       = !is_k ? insn.act_addr : k_mm_q ? a_addr : w_addr;
  assign stride_w   = insn.w_stride;
  assign stride     = is_k && !k_mm_q ? stride_w : insn.act_stride;
  assign acc_addr   = insn.acc_addr - tsl_pkg::LOCAL_ACC_BASE;
  assign acc_stride = insn.acc_stride;
  assign rows       = is_mm ? insn.rows : 16'(N);

  // --- acceptance: one entry each into the command FIFO, a reader and the retire FIFO ----------
  logic cmd_rdy, wjob_rdy, ajob_rdy, ret_rdy, uop_rdy, accept;
  assign uop_rdy    = cmd_rdy && ret_rdy && (is_mm ? ajob_rdy : wjob_rdy);
  assign accept     = ex_valid_i && uop_rdy;   // one micro-op (a whole LOADW or MATMUL) enters
  assign ex_ready_o = uop_rdy && (!is_k || k_last);

  // MATMULK progress: the next micro-op is K-block k_blk_q's LOADW, then its MATMUL. Cleared when
  // the instruction leaves (or the issue stage withdraws it: halt, CTRL.RESET).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      k_mm_q    <= 1'b0;
      k_blk_q   <= '0;
      k_aaddr_q <= '0;
      k_waddr_q <= '0;
    end else if (!ex_valid_i || !is_k || (accept && k_last)) begin
      k_mm_q  <= 1'b0;
      k_blk_q <= '0;
    end else if (accept) begin
      k_mm_q <= !k_mm_q;
      if (k_mm_q) begin
        k_blk_q   <= k_blk_q + 12'd1;
        k_aaddr_q <= a_addr + (bf16 ? 32'(2 * N) : 32'(N));
        k_waddr_q <= w_addr + (insn.transpose ? (bf16 ? 32'(2 * N) : 32'(N)) : (stride_w << $clog2(N)));
      end
    end
  end

  logic            cmd_valid, cmd_ready, c_wbuf, c_acc, c_trans;
  logic [1:0]      c_op, c_dtype;
  logic [15:0]     c_rows;
  logic [AAw-1:0]  c_acc_addr, c_acc_stride;
  logic [1:0]      cmd_level;

  tsl_prim_fifo #(
    .Width(CmdW),
    .Depth(2)
  ) u_cmds (
    .clk_i,
    .rst_ni,
    .clr_i  (1'b0),
    .valid_i(accept),
    .ready_o(cmd_rdy),
    .data_i ({op, wbuf, insn.dtype, accum, trans, rows,
              acc_addr[AccSh +: AAw], acc_stride[AccSh +: AAw]}),
    .valid_o(cmd_valid),
    .ready_i(cmd_ready),
    .data_o ({c_op, c_wbuf, c_dtype, c_acc, c_trans, c_rows, c_acc_addr, c_acc_stride}),
    .level_o(cmd_level)
  );

  logic            w_valid, w_ready, a_valid, a_ready;
  logic [16*N-1:0] w_data, a_data;

  tsl_tc_rowrd #(
    .N     (N),
    .LineAw(VAw)
  ) u_wrd (
    .clk_i,
    .rst_ni,
    .job_valid_i (accept && !is_mm),
    .job_ready_o (wjob_rdy),
    .job_addr_i  (addr),
    .job_stride_i(stride),
    .job_rows_i  (rows),
    .job_bf16_i  (bf16),
    .mem_req_o   (vw_req_o),
    .mem_gnt_i   (vw_gnt_i),
    .mem_addr_o  (vw_addr_o),
    .mem_rdata_i (vw_rdata_i),
    .valid_o     (w_valid),
    .ready_i     (w_ready),
    .data_o      (w_data)
  );

  tsl_tc_rowrd #(
    .N     (N),
    .LineAw(VAw)
  ) u_ard (
    .clk_i,
    .rst_ni,
    .job_valid_i (accept && is_mm),
    .job_ready_o (ajob_rdy),
    .job_addr_i  (addr),
    .job_stride_i(stride),
    .job_rows_i  (rows),
    .job_bf16_i  (bf16),
    .mem_req_o   (va_req_o),
    .mem_gnt_i   (va_gnt_i),
    .mem_addr_o  (va_addr_o),
    .mem_rdata_i (va_rdata_i),
    .valid_o     (a_valid),
    .ready_i     (a_ready),
    .data_o      (a_data)
  );

  // --- the array and the ACC update --------------------------------------------------------------
  logic            r_valid, r_ready, r_acc, r_bf16, r_last, acc_done, wload_done, mxu_idle;
  logic [32*N-1:0] r_data;
  logic [AAw-1:0]  r_addr;

  tsl_mxu #(
    .N           (N),
    .EnableBf16  (EnableBf16),
    .AccAddrWidth(AAw)
  ) u_mxu (
    .clk_i,
    .rst_ni,
    .cmd_valid_i     (cmd_valid),
    .cmd_ready_o     (cmd_ready),
    .cmd_op_i        (c_op),
    .cmd_wbuf_i      (c_wbuf),
    .cmd_dtype_i     (c_dtype),
    .cmd_acc_i       (c_acc),
    .cmd_trans_i     (c_trans),
    .cmd_rows_i      (c_rows),
    .cmd_acc_addr_i  (c_acc_addr),
    .cmd_acc_stride_i(c_acc_stride),
    .w_valid_i       (w_valid),
    .w_ready_o       (w_ready),
    .w_data_i        (w_data),
    .a_valid_i       (a_valid),
    .a_ready_o       (a_ready),
    .a_data_i        (a_data),
    .r_valid_o       (r_valid),
    .r_ready_i       (r_ready),
    .r_data_o        (r_data),
    .r_addr_o        (r_addr),
    .r_acc_o         (r_acc),
    .r_bf16_o        (r_bf16),
    .r_last_o        (r_last),
    .wload_done_o    (wload_done),
    .idle_o          (mxu_idle)
  );

  tsl_mxu_acc #(
    .N           (N),
    .EnableBf16  (EnableBf16),
    .AccAddrWidth(AAw)
  ) u_acc (
    .clk_i,
    .rst_ni,
    .valid_i    (r_valid),
    .ready_o    (r_ready),
    .data_i     (r_data),
    .addr_i     (r_addr),
    .acc_i      (r_acc),
    .bf16_i     (r_bf16),
    .last_i     (r_last),
    .mem_re_o   (acc_re_o),
    .mem_raddr_o(acc_raddr_o),
    .mem_rdata_i(acc_rdata_i),
    .mem_we_o   (acc_we_o),
    .mem_waddr_o(acc_waddr_o),
    .mem_wdata_o(acc_wdata_o),
    .done_o     (acc_done)
  );

  assign busy_o = a_valid && a_ready;

  // --- in-order retirement -------------------------------------------------------------------------
  // LOADWs finish in order among themselves, and so do MATMULs; count each kind's finishes and
  // retire the oldest micro-op once a finish of its kind is available. An instruction is done with
  // its last micro-op.
  logic            ret_valid, ret_mm, ret_last, ret_pop;
  logic [RetW-1:0] ret_level, wdone_q, wdone_d, mdone_q, mdone_d;
  logic [RetW:0]   w_avail, m_avail;

  tsl_prim_fifo #(
    .Width(2),
    .Depth(RetDepth)
  ) u_retire (
    .clk_i,
    .rst_ni,
    .clr_i  (1'b0),
    .valid_i(accept),
    .ready_o(ret_rdy),
    .data_i ({is_mm, !is_k || k_last}),
    .valid_o(ret_valid),
    .ready_i(ret_pop),
    .data_o ({ret_mm, ret_last}),
    .level_o(ret_level)
  );

  assign w_avail = (RetW+1)'(wdone_q) + (RetW+1)'(wload_done);
  assign m_avail = (RetW+1)'(mdone_q) + (RetW+1)'(acc_done);
  assign ret_pop = ret_valid && (ret_mm ? m_avail != '0 : w_avail != '0);
  assign done_o  = ret_pop && ret_last;

  always_comb begin
    wdone_d = RetW'(w_avail - (RetW+1)'(ret_pop && !ret_mm));
    mdone_d = RetW'(m_avail - (RetW+1)'(ret_pop && ret_mm));
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wdone_q <= '0;
      mdone_q <= '0;
    end else begin
      wdone_q <= wdone_d;
      mdone_q <= mdone_d;
    end
  end

  logic unused;
  assign unused = ^{acc_addr, acc_stride, cmd_level, ret_level, mxu_idle};
endmodule
