// Controller of the lite tensor core: the TC register block of isa.md section 6, every dispatch check
// (tsl_tc_check), and no queues. INSN7 checks the staged instruction and hands it to its unit (a SYNC
// retires there); INSN writes wait while it runs, so the staging registers are the running
// instruction (ex_insn_o holds until its done) and instructions run one at a time in push order
// (CFG_QUEUE_DEPTH reads 1). In push order every WAIT finds its token: an instruction takes its
// WAIT tokens when it starts and gives its SIGNAL tokens when it finishes (none if it failed on
// AXI), and as checks run only while nothing runs, those counts are also the push-order credits.
// Register bus: reads (rdata combinational from the held address) and plain writes answer in the
// next cycle, PERF_* reads within 28 cycles (tsl_lite_perf), INSN7 in 3-8 cycles; INSN writes and
// CTRL.RESET wait until nothing runs.
module tsl_lite_ctrl #(
  parameter int N         = 4,
  parameter int VmemBytes = 16384,
  parameter int AccBytes  = 4096,
  parameter int HbmBytes  = tsl_pkg::PARAM_HBM_BYTES
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  // register bus (request held until the one-cycle ready; rdata with ready; writes when wstrb != 0)
  input  logic         reg_valid_i,
  output logic         reg_ready_o,
  input  logic [11:0]  reg_addr_i,
  input  logic [31:0]  reg_wdata_i,
  input  logic [3:0]   reg_wstrb_i,
  output logic [31:0]  reg_rdata_o,
  output logic         reg_err_o,     // always 0 (unknown offsets read 0)
  output logic         irq_o,         // (IRQ_STATUS & IRQ_ENABLE) != 0
  // units [0] DMA, [1] MXU, [2] VPU (unit execution interface of docs/hardware.md)
  output logic [2:0]   ex_valid_o,
  input  logic [2:0]   ex_ready_i,
  output logic [255:0] ex_insn_o,
  input  logic [2:0]   done_i,
  input  logic [2:0]   busy_i,        // DMA, VPU: executing; MXU: an activation row (N*N MACs)
  input  logic         dma_err_i,
  input  logic [3:0]   dma_err_code_i,
  input  logic [31:0]  dma_err_addr_i,
  input  logic         dma_byte_i     // the DMA moved a byte (PERF_HBM_RD/WR_BYTES)
);
  localparam int CreditW = $clog2(tsl_pkg::PARAM_TOKEN_MAX + 1);
  localparam logic [2:0] StIdle = 3'd0, StCheck = 3'd1, StPush = 3'd2, StReset = 3'd3, StPerf = 3'd4;

  logic [2:0]           state_q, state_d;
  logic                 ready_q, ready_d;
  logic [255:0]         stage_q, stage_d;    // INSN0..INSN7 (INSNk in bits 32k+31:32k)
  logic [9*CreditW-1:0] credit_q, credit_d;  // channel f->t at 3f+t: tokens (= credits, see above)
  logic [31:0]          push_count_q, push_count_d, notify_count_q, notify_count_d;
  logic [3:0]           err_code_q, err_code_d;
  logic [1:0]           err_unit_q, err_unit_d;
  logic [31:0]          err_addr_q, err_addr_d;
  logic                 err_axi_q, err_axi_d;   // the error is an AXI error (ERR_SEQ = PUSH_COUNT - 1)
  logic [1:0]           irq_en_q, irq_en_d, irq_st_q, irq_st_d;
  // the running instruction: its unit, SIGNAL and NOTIFY bits, and whether it is a STORE
  logic                 run_q, run_d, run_store_q, run_store_d, run_notify_q, run_notify_d;
  logic [1:0]           run_unit_q, run_unit_d;
  logic                 fail_q, fail_d;      // the running DMA reported an AXI error

  logic        acc, we, is_insn, is_perf, perf_rd, perf_rvalid, hand, retire, ret_ok, sync, units_idle;
  logic        reset_done, rec_disp, perf_clr;
  logic [31:0] wmask, rd_val, perf_rdata;
  logic [1:0]  p_unit;
  logic [2:0]  p_wait, p_signal;
  logic        chk_done;
  logic [3:0]  chk_err;
  logic [31:0] chk_addr;
  logic [tsl_pkg::PERF_COUNT-1:0] perf_inc;

`include "hw/rtl/tsl_insn.svh"
  /* verilator lint_off UNUSEDSIGNAL */
  insn_hdr_t   stage_hdr;   // the header of the staged instruction
  /* verilator lint_on UNUSEDSIGNAL */
  assign stage_hdr  = stage_q;
  assign p_unit     = stage_hdr.unit;
  assign p_wait     = stage_hdr.wait_f;
  assign p_signal   = stage_hdr.signal;
  assign sync       = stage_hdr.op == 4'd0;   // op 0 of every unit
  assign units_idle = &ex_ready_i && !run_q;
  assign ex_insn_o  = stage_q;

  tsl_tc_check #(
    .N         (N),
    .VmemBytes (VmemBytes),
    .AccBytes  (AccBytes),
    .HbmBytes  (HbmBytes),
    .EnableBf16(1'b0),
    .EnableTranspose(1'b0),          // no transposed weight load (CFG_FEATURES.TRANSPOSE = 0)
    .Ops       (tsl_pkg::OPS_LITE),   // the lite units' ops; the others are ERR_BAD_OPCODE
    .CreditW   (CreditW)
  ) u_check (
    .clk_i,
    .rst_ni,
    .active_i    (state_q == StCheck),
    .insn_i      (stage_q),
    .credit_i    (credit_q),
    .wbuf_dtype_i({tsl_pkg::DTYPE_INT8, tsl_pkg::DTYPE_INT8}),   // int8 is the only MXU dtype
    .hbm_base_i  (32'd0),            // no HBM window (CFG_FEATURES.WINDOW = 0; HBM_BASE and
    .hbm_limit_i (32'(HbmBytes)),    // HBM_LIMIT read 0): HBM_BYTES alone bounds the DMA
    .chip_x_i    (4'd0),             // no ICI: a chip alone
    .chip_y_i    (4'd0),
    .pod_x_i     (5'd1),
    .pod_y_i     (5'd1),
    .done_o      (chk_done),
    .err_o       (chk_err),
    .err_addr_o  (chk_addr)
  );

  // Hand the staged instruction over (or retire a SYNC) once nothing runs; its unit is idle then.
  assign hand   = state_q == StPush && err_code_q == tsl_pkg::ERR_NONE && units_idle;
  always_comb begin
    ex_valid_o         = '0;
    ex_valid_o[p_unit] = hand && !sync;
  end
  assign retire = run_q && done_i[run_unit_q];
  assign ret_ok = retire && !(fail_q || dma_err_i);   // a DMA that failed on AXI counts nowhere

  // --------------------------------------------------------------------------- counters
  always_comb begin
    perf_inc = '0;
    perf_inc[tsl_pkg::PERF_CYCLES]   = 1'b1;
    perf_inc[tsl_pkg::PERF_DMA_BUSY] = busy_i[tsl_pkg::UNIT_DMA];
    perf_inc[tsl_pkg::PERF_MXU_BUSY] = busy_i[tsl_pkg::UNIT_MXU];
    perf_inc[tsl_pkg::PERF_VPU_BUSY] = busy_i[tsl_pkg::UNIT_VPU];
    perf_inc[tsl_pkg::PERF_MXU_MACS] = busy_i[tsl_pkg::UNIT_MXU];   // N*N each
    for (int u = 0; u < 3; u++) begin   // the STALL counters stay 0: a head never waits for a token
      perf_inc[tsl_pkg::PERF_DMA_INSNS + u] = (hand && sync && p_unit == 2'(u)) ||
                                              (ret_ok && run_unit_q == 2'(u));
    end
    perf_inc[tsl_pkg::PERF_HBM_RD_BYTES] = dma_byte_i && !run_store_q;
    perf_inc[tsl_pkg::PERF_HBM_WR_BYTES] = dma_byte_i && run_store_q;
  end

  tsl_lite_perf #(.N(N)) u_perf (
    .clk_i,
    .rst_ni,
    .clr_i     (perf_clr),
    .inc_i     (perf_inc),
    .rd_i      (perf_rd),
    .rd_word_i (5'((reg_addr_i - tsl_pkg::TC_PERF_BASE) >> 2)),
    .rvalid_o  (perf_rvalid),
    .rdata_o   (perf_rdata)
  );

  // ------------------------------------------------------------------------------ read values
  // The register values; tc_rd_mux (generated from the spec) decodes the offset.
`include "hw/rtl/tsl_regs.svh"
  tc_rd_t rd;
  always_comb begin
    rd                 = '0;   // QUEUE_LEVEL: one instruction at a time, never queued
    rd.id              = tsl_pkg::ID_VALUE;
    rd.cfg_n           = 32'(N);
    rd.cfg_vmem_bytes  = 32'(VmemBytes);
    rd.cfg_acc_bytes   = 32'(AccBytes);
    rd.cfg_hbm_bytes   = 32'(HbmBytes);
    rd.cfg_features    = 32'd1;   // INT8
    rd.cfg_queue_depth = 32'd1;
    rd.status          = {30'd0, err_code_q != tsl_pkg::ERR_NONE, !run_q};
    rd.err_code        = 32'(err_code_q);
    rd.err_unit        = 32'(err_unit_q);
    // later pushes are dropped, so PUSH_COUNT stands still
    rd.err_seq         = err_code_q == tsl_pkg::ERR_NONE ? 32'd0 : push_count_q - 32'(err_axi_q);
    rd.err_addr        = err_addr_q;
    rd.push_count      = push_count_q;
    rd.notify_count    = notify_count_q;
    rd.irq_enable      = 32'(irq_en_q);
    rd.irq_status      = 32'(irq_st_q);
    rd.tokens_dma_mxu  = 32'(credit_q[1 * CreditW +: CreditW]);
    rd.tokens_dma_vpu  = 32'(credit_q[2 * CreditW +: CreditW]);
    rd.tokens_mxu_dma  = 32'(credit_q[3 * CreditW +: CreditW]);
    rd.tokens_mxu_vpu  = 32'(credit_q[5 * CreditW +: CreditW]);
    rd.tokens_vpu_dma  = 32'(credit_q[6 * CreditW +: CreditW]);
    rd.tokens_vpu_mxu  = 32'(credit_q[7 * CreditW +: CreditW]);
    rd.seq_status      = 32'd0;   // no tile sequencer (CFG_FEATURES.SEQ = 0)
  end
  assign rd_val = tc_rd_mux(rd, reg_addr_i);
  // The rw and w1c registers, and their values after this cycle's bus write (tc_wr_apply, generated
  // from the spec, decodes the offset). No HBM window and no fetch unit: HBM_BASE, HBM_LIMIT,
  // PROG_ADDR and PROG_BYTES read 0 and ignore writes.
  tc_wr_t wr;
  /* verilator lint_off UNUSEDSIGNAL */
  tc_wr_t wr_next;
  /* verilator lint_on UNUSEDSIGNAL */
  always_comb begin
    wr            = '0;
    wr.irq_enable = 32'(irq_en_q);
    wr.irq_status = 32'(irq_st_q);
  end
  assign wr_next = tc_wr_apply(wr, reg_addr_i, reg_wdata_i, wmask);

  // ------------------------------------------------------------------- bus and dispatch FSM
  // INSN writes wait while an instruction runs: the units read their fields from the staging registers.
  assign acc     = reg_valid_i && !ready_q && state_q == StIdle && !(is_insn && we && run_q);
  assign we      = reg_wstrb_i != 4'd0;
  assign wmask   = {{8{reg_wstrb_i[3]}}, {8{reg_wstrb_i[2]}}, {8{reg_wstrb_i[1]}}, {8{reg_wstrb_i[0]}}};
  assign is_insn = reg_addr_i >= tsl_pkg::TC_INSN0_OFFSET && reg_addr_i <= tsl_pkg::TC_INSN7_OFFSET &&
                   reg_addr_i[1:0] == 2'b00;
  assign is_perf = reg_addr_i >= tsl_pkg::TC_PERF_BASE && reg_addr_i[1:0] == 2'b00 &&
                   reg_addr_i < tsl_pkg::TC_PERF_BASE + 12'(8 * tsl_pkg::PERF_COUNT);
  assign perf_rd = acc && !we && is_perf;

  always_comb begin
    state_d    = state_q;
    ready_d    = 1'b0;
    stage_d    = stage_q;
    irq_en_d   = irq_en_q;
    reset_done = 1'b0;
    rec_disp   = 1'b0;
    perf_clr   = 1'b0;
    unique case (state_q)
      StIdle: begin
        if (perf_rd) begin
          state_d = StPerf;
        end else if (acc && !we) begin
          ready_d = 1'b1;
        end else if (acc) begin
          ready_d = 1'b1;
          if (is_insn) begin
            for (int w = 0; w < 8; w++) begin
              if (reg_addr_i[4:2] == 3'(w))
                stage_d[32 * w +: 32] = (stage_q[32 * w +: 32] & ~wmask) | (reg_wdata_i & wmask);
            end
            if (reg_addr_i == tsl_pkg::TC_INSN7_OFFSET && err_code_q == tsl_pkg::ERR_NONE) begin
              ready_d = 1'b0;
              state_d = StCheck;
            end
          end else if (reg_addr_i == tsl_pkg::TC_CTRL_OFFSET) begin
            if (reg_wdata_i[tsl_pkg::TC_CTRL_RESET_LSB] && wmask[tsl_pkg::TC_CTRL_RESET_LSB]) begin
              ready_d = 1'b0;
              state_d = StReset;
            end else begin
              perf_clr = reg_wdata_i[tsl_pkg::TC_CTRL_CLEAR_PERF_LSB] &&
                         wmask[tsl_pkg::TC_CTRL_CLEAR_PERF_LSB];
            end
          end else begin   // IRQ_ENABLE, or no rw register (IRQ_STATUS: below)
            irq_en_d = wr_next.irq_enable[1:0];
          end
        end
      end
      StCheck: begin
        if (chk_done) begin
          rec_disp = chk_err != tsl_pkg::ERR_NONE;
          ready_d  = rec_disp;
          state_d  = rec_disp ? StIdle : StPush;
        end
      end
      StPush: begin
        // An AXI error while waiting drops the push like any push after an error.
        if (err_code_q != tsl_pkg::ERR_NONE || units_idle) begin
          ready_d = 1'b1;
          state_d = StIdle;
        end
      end
      StPerf: begin    // the counter's value comes with its next flush
        if (perf_rvalid) begin
          ready_d = 1'b1;
          state_d = StIdle;
        end
      end
      default: begin   // StReset: wait for the running instruction
        if (units_idle) begin
          reset_done = 1'b1;
          perf_clr   = reg_wdata_i[tsl_pkg::TC_CTRL_CLEAR_PERF_LSB] &&
                       wmask[tsl_pkg::TC_CTRL_CLEAR_PERF_LSB];
          ready_d    = 1'b1;
          state_d    = StIdle;
          stage_d    = '0;
        end
      end
    endcase
  end

  // --------------------------------------------------------------- dispatch state and errors
  always_comb begin
    credit_d       = credit_q;
    push_count_d   = push_count_q;
    notify_count_d = notify_count_q;
    err_code_d     = err_code_q;
    err_unit_d     = err_unit_q;
    err_axi_d      = err_axi_q;
    err_addr_d     = err_addr_q;
    irq_st_d       = irq_st_q;
    run_d          = run_q;
    run_unit_d     = run_unit_q;
    run_store_d    = run_store_q;
    run_notify_d   = run_notify_q;
    fail_d         = retire ? 1'b0 : fail_q || dma_err_i;

    // Tokens: WAITs are taken when an instruction starts, SIGNALs given when it finishes (a SYNC does
    // both at once). The staging registers still hold a running instruction when it retires.
    for (int f = 0; f < 3; f++) begin   // channel f->t; the checker has rejected f == t
      for (int t = 0; t < 3; t++) begin
        if (f != t)
          credit_d[(3 * f + t) * CreditW +: CreditW] = credit_q[(3 * f + t) * CreditW +: CreditW] +
              CreditW'((hand && sync || ret_ok) && p_unit == 2'(f) && p_signal[t]) -
              CreditW'(hand && p_unit == 2'(t) && p_wait[f]);
      end
    end
    if (hand) begin
      push_count_d = push_count_q + 32'd1;
      run_d        = !sync;
      run_unit_d   = p_unit;
      run_store_d  = stage_hdr.op == 4'(tsl_pkg::DMA_OP_STORE);
      run_notify_d = stage_hdr.notify;
    end
    if (retire) run_d = 1'b0;
    if ((hand && sync && stage_hdr.notify) || (ret_ok && run_notify_q)) begin
      notify_count_d = notify_count_q + 32'd1;
      irq_st_d[tsl_pkg::TC_IRQ_STATUS_NOTIFY_LSB] = 1'b1;
    end

    if (err_code_q == tsl_pkg::ERR_NONE && rec_disp) begin
      err_code_d = chk_err;
      err_unit_d = p_unit;
      err_axi_d  = 1'b0;
      err_addr_d = chk_addr;
      irq_st_d[tsl_pkg::TC_IRQ_STATUS_ERROR_LSB] = 1'b1;
    end else if (err_code_q == tsl_pkg::ERR_NONE && dma_err_i) begin
      err_code_d = dma_err_code_i;
      err_unit_d = tsl_pkg::UNIT_DMA;
      err_axi_d  = 1'b1;   // the running instruction was the last one pushed
      err_addr_d = dma_err_addr_i;
      irq_st_d[tsl_pkg::TC_IRQ_STATUS_ERROR_LSB] = 1'b1;
    end

    // IRQ_STATUS is write-1-to-clear; a cause raised in the same cycle stays.
    if (acc && we && reg_addr_i == tsl_pkg::TC_IRQ_STATUS_OFFSET)
      irq_st_d = wr_next.irq_status[1:0] | (irq_st_d & ~irq_st_q);

    if (reset_done) begin
      credit_d       = '0;
      push_count_d   = 32'd0;
      notify_count_d = 32'd0;
      err_code_d     = tsl_pkg::ERR_NONE;
      err_unit_d     = 2'd0;
      err_axi_d      = 1'b0;
      err_addr_d     = 32'd0;
      irq_st_d       = 2'd0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q        <= StIdle;
      ready_q        <= 1'b0;
      stage_q        <= '0;
      credit_q       <= '0;
      push_count_q   <= 32'd0;
      notify_count_q <= 32'd0;
      err_code_q     <= tsl_pkg::ERR_NONE;
      err_unit_q     <= 2'd0;
      err_axi_q      <= 1'b0;
      err_addr_q     <= 32'd0;
      irq_en_q       <= 2'd0;
      irq_st_q       <= 2'd0;
      run_q          <= 1'b0;
      run_unit_q     <= 2'd0;
      run_store_q    <= 1'b0;
      run_notify_q   <= 1'b0;
      fail_q         <= 1'b0;
    end else begin
      state_q        <= state_d;
      ready_q        <= ready_d;
      stage_q        <= stage_d;
      credit_q       <= credit_d;
      push_count_q   <= push_count_d;
      notify_count_q <= notify_count_d;
      err_code_q     <= err_code_d;
      err_unit_q     <= err_unit_d;
      err_axi_q      <= err_axi_d;
      err_addr_q     <= err_addr_d;
      irq_en_q       <= irq_en_d;
      irq_st_q       <= irq_st_d;
      run_q          <= run_d;
      run_unit_q     <= run_unit_d;
      run_store_q    <= run_store_d;
      run_notify_q   <= run_notify_d;
      fail_q         <= fail_d;
    end
  end

  assign reg_ready_o = ready_q;
  assign reg_rdata_o = is_perf ? perf_rdata : rd_val;   // the request holds its address until ready
  assign reg_err_o   = 1'b0;
  assign irq_o       = (irq_st_q & irq_en_q) != 2'd0;
endmodule
