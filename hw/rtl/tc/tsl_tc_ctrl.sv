// Tensor-core controller: the TC register block (docs/isa.md section 6), the dispatcher (every
// check of section 5 through tsl_tc_check, the per-channel credits and the per-buffer dtype of the
// last LOADW pushed), one queue and issue stage per unit (tsl_tc_issue), the dependency tokens
// (tsl_tc_tokens), the error, the interrupt, the performance counters (tsl_tc_perf) and the tile
// sequencer (tsl_tc_seq, docs/isa.md section 8), whose instructions take the dispatcher's path as
// INSN7 pushes do; the bus goes first in StIdle, INSN7 and SEQ writes wait while it is busy. The
// program fetch unit (tsl_tc_fetch, PROG_ADDR/PROG_BYTES) hands its items in StIdle after the bus
// and while the sequencer is idle: an instruction takes the INSN7 path (staged in INSN0..INSN7), a
// descriptor word the SEQk write path (word 23 launches), an error sets ERR_* (ERR_UNIT FETCH).
// While PROG_HOLD.HOLD is 1 only descriptor words before the launching one are handed over (the
// control core checks the command while the program is read; it sets the window, then clears HOLD).
// Register bus: the request is held until reg_ready_o, a one-cycle pulse with reg_rdata_o; a
// write has reg_wstrb_i != 0. Reads and plain writes answer in the next cycle; an INSN7 write in
// 3-8 cycles (the checks), longer while its queue is full; a CTRL.RESET write once every started
// instruction has finished and the fetch unit has stopped; an INSN7, SEQ0..SEQ23, HBM_BASE,
// HBM_LIMIT, PROG_ADDR or PROG_BYTES write once the sequencer is idle (so the window stays fixed
// from a descriptor's launch check to its last instruction's dispatch check), and an INSN0..INSN7,
// SEQ0..SEQ23, PROG_ADDR or PROG_BYTES write, a PROG_HOLD write of 1, and an HBM_BASE or HBM_LIMIT
// write unless HOLD is 1, once no fetch runs. HBM_BASE, HBM_LIMIT, PROG_ADDR and PROG_BYTES reset
// with rst_ni only, not with CTRL.RESET; PROG_HOLD with either.
// hw/model/tslm.c defines every register value, docs/hardware.md the
// unit interface (ex_valid_o is withdrawn without a handshake only on an AXI error or CTRL.RESET).
module tsl_tc_ctrl #(
  parameter int N            = tsl_pkg::PARAM_N,
  parameter int VmemBytes    = tsl_pkg::PARAM_VMEM_BYTES,
  parameter int AccBytes     = tsl_pkg::PARAM_ACC_BYTES,
  parameter int HbmBytes     = tsl_pkg::PARAM_HBM_BYTES,
  parameter int QueueDepth   = tsl_pkg::PARAM_QUEUE_DEPTH,
  parameter bit EnableBf16   = 1'b1,  // CFG_FEATURES.BF16; INT8 is always present
  parameter bit EnableSeq    = 1'b1,  // CFG_FEATURES.SEQ: the tile sequencer (0: SEQ0..SEQ23 are
                                      // ignored and SEQ_STATUS reads 0, as on the lite core)
  parameter bit EnableIci    = 1'b0,  // the ICI unit: CFG_FEATURES.ICI (DMA SEND and SEMWAIT,
                                      // docs/pod.md) when pod_x_i != 0
  parameter int InflightMax  = 4,     // instructions a unit may hold between ex handshake and done
  parameter int DmaInflight  = InflightMax   // the same for the DMA
) (
  input  logic clk_i, rst_ni,
  // this chip's coordinates and its pod's extents (pod_x_i 0: not in a pod)
  input  logic [3:0] chip_x_i, input logic [3:0] chip_y_i, input logic [4:0] pod_x_i, input logic [4:0] pod_y_i,
  output logic resetting_o,    // a CTRL.RESET is emptying the queues (a SEMWAIT in flight gives up)
  output logic reset_done_o,   // a CTRL.RESET finished this cycle (the ICI semaphores are zeroed with it)
  // register bus (the control core's bus contract: request held until ready; ready is a one-cycle
  // pulse; rdata valid with ready; writes when wstrb != 0; offsets inside the 4 KiB TC block)
  input  logic reg_valid_i, output logic reg_ready_o, input logic [11:0] reg_addr_i,
  input  logic [31:0] reg_wdata_i, input logic [3:0] reg_wstrb_i,
  output logic [31:0] reg_rdata_o, output logic reg_err_o,   // err always 0 (unknown offsets read 0)
  output logic irq_o,                                        // (IRQ_STATUS & IRQ_ENABLE) != 0
  // units: DMA, MXU, VPU (unit execution interface of docs/hardware.md)
  output logic dma_ex_valid_o, input logic dma_ex_ready_i, output logic [255:0] dma_ex_insn_o,
  input  logic dma_done_i, input logic dma_busy_i,
  input  logic dma_fence_i,    // ASYNC SENDs reported done are still leaving: a DMA SYNC waits
  input  logic dma_err_i, input logic [3:0] dma_err_code_i, input logic [31:0] dma_err_addr_i,
  output logic mxu_ex_valid_o, input logic mxu_ex_ready_i, output logic [255:0] mxu_ex_insn_o,
  input  logic mxu_done_i, input logic mxu_busy_i,
  output logic vpu_ex_valid_o, input logic vpu_ex_ready_i, output logic [255:0] vpu_ex_insn_o,
  input  logic vpu_done_i, input logic vpu_busy_i,
  // program fetch unit (tsl_tc_fetch): the start, and its items (valid/ready)
  output logic fetch_start_o, output logic [31:0] fetch_addr_o, output logic [31:0] fetch_bytes_o,
  output logic fetch_abort_o, input logic fetch_busy_i,
  input  logic fetch_valid_i, output logic fetch_ready_o, input logic fetch_seq_i,
  input  logic [4:0] fetch_word_i, input logic [3:0] fetch_err_i, input logic [31:0] fetch_addr_i,
  input  logic [255:0] fetch_data_i
);
  localparam int CreditW = $clog2(tsl_pkg::PARAM_TOKEN_MAX + 1);
  localparam int TokW    = $clog2(tsl_pkg::PARAM_TOKEN_MAX + QueueDepth + 1);
  localparam logic [1:0] KIND_RD = 2'd1, KIND_WR = 2'd2;

`include "hw/rtl/tsl_insn.svh"

  // Weight-buffer dtypes ([2b+1:2b]: buffer b) after an MXU instruction (its OP, DTYPE, WBUF and
  // KBLOCKS): LOADW loads WBUF; MATMULK loads WBUF and, with two or more K-blocks, the other buffer
  // too (DTYPE and WBUF are the same fields in both formats).
  function automatic logic [3:0] wbuf_after(input logic [3:0] cur, input logic [3:0] op,
                                            input logic [1:0] dt, input logic b,
                                            input logic [11:0] kblocks);
    logic loads, both;
    loads = op == 4'(tsl_pkg::MXU_OP_LOADW) || op == 4'(tsl_pkg::MXU_OP_MATMULK);
    both  = op == 4'(tsl_pkg::MXU_OP_MATMULK) && kblocks > 12'd1;
    wbuf_after = cur;
    if (loads && (b || both)) wbuf_after[3:2] = dt;
    if (loads && (!b || both)) wbuf_after[1:0] = dt;
  endfunction

  localparam logic [1:0] StIdle = 2'd0, StCheck = 2'd1, StPush = 2'd2, StReset = 2'd3;

  // ---------------------------------------------------------------------------------- state
  logic [1:0]    state_q, state_d;
  logic          ready_q, ready_d;
  logic [31:0]   rdata_q, rdata_d;
  logic [255:0]         stage_q, stage_d;    // INSN0..INSN7 (INSNk in bits 32k+31:32k)
  logic [9*CreditW-1:0] credit_q, credit_d;  // channel f->t at 3f+t: signals minus waits pushed
  logic [3:0]    wbuf_push_q, wbuf_push_d, wbuf_exec_q, wbuf_exec_d;  // [2b+1:2b] dtype of buffer b
  logic [31:0]   push_count_q, push_count_d, notify_count_q, notify_count_d;
  logic [3:0]    err_code_q, err_code_d;
  logic [2:0]    err_unit_q, err_unit_d;
  logic [31:0]   err_seq_q, err_seq_d, err_addr_q, err_addr_d;
  logic [1:0]    irq_en_q, irq_en_d, irq_st_q, irq_st_d;
  logic          halt_q, halt_d, dma_fail_q, dma_fail_d;
  logic          from_seq_q, from_seq_d;   // the instruction in StCheck/StPush is the sequencer's
  logic [31:0]   hbm_base_q, hbm_base_d, hbm_limit_q, hbm_limit_d;   // the HBM window (HBM_BASE, HBM_LIMIT)
  logic          from_fetch_q, from_fetch_d;   // the instruction in StCheck/StPush is the fetch unit's
  logic [31:0]   prog_addr_q, prog_addr_d, prog_bytes_q, prog_bytes_d;  // PROG_ADDR, PROG_BYTES
  logic          hold_q, hold_d;                                        // PROG_HOLD.HOLD

  // --------------------------------------------------------------------------------- wiring
  logic          acc, we, is_insn, is_win, is_prog, is_hold, fetch_take, fetch_seqw, push_acc, reset_done, rec_disp, clr_q_all, perf_clr, all_idle;
  logic [31:0]   wmask, rd_val, perf_rdata;
  logic [1:0]    p_unit;
  logic [2:0]    p_wait, p_signal;
  logic          chk_done;
  logic [3:0]    chk_err;
  logic [31:0]   chk_addr;
  logic [8:0]    tok_avail, tok_take, tok_give;
  logic [9*TokW-1:0] tok_count;
  logic [2:0]    push_valid, push_ready, ex_valid, ex_ready, done, busy, fence, retire, ret_ok /* verilator public_flat_rd */, stall, idle;
  logic [2:0]    ret_notify;
  logic [255:0]  ex_insn [3];
  logic [2:0]    ret_signal [3];
  logic [2:0]    take [3];
  logic [1:0]    ret_kind [3];
  logic [31:0]   ret_amount [3];
  logic [31:0]   if_seq [3];
  logic [7:0]    level [3];
  logic [32*tsl_pkg::PERF_COUNT-1:0] perf_inc;
  logic          unused_seq;
  // tile sequencer
  logic          is_seq, seq_launch, seq_chk_done, seq_valid, seq_ready, seq_take;
  logic          seq_busy /* verilator public_flat_rd */;
  logic [3:0]    seq_chk_err;
  logic [31:0]   seq_chk_addr;
  logic [255:0]  seq_insn;
  // The instruction being dispatched, and the dispatcher's accepted pushes (a test tap).
  logic [255:0]  disp_insn /* verilator public_flat_rd */;
  logic          disp_push /* verilator public_flat_rd */;

  assign unused_seq = ^{if_seq[tsl_pkg::UNIT_MXU], if_seq[tsl_pkg::UNIT_VPU], tok_count[0 +: TokW],
                        tok_count[4 * TokW +: TokW], tok_count[8 * TokW +: TokW]};  // + diagonal

  // The staged instruction and the one handed to the MXU, as MXU instructions (LOADW's DTYPE and
  // WBUF sit where MATMULK's are; the header is the same in every format).
  /* verilator lint_off UNUSEDSIGNAL */
  insn_mxu_matmulk_t staged, mxu_ex;
  /* verilator lint_on UNUSEDSIGNAL */
  assign disp_insn = from_seq_q ? seq_insn : stage_q;
  assign disp_push = push_acc;
  assign staged   = disp_insn;
  assign mxu_ex   = ex_insn[tsl_pkg::UNIT_MXU];
  assign p_unit   = staged.unit;
  assign p_wait   = staged.wait_f;
  assign p_signal = staged.signal;

  // ------------------------------------------------------------------------------ dispatcher
  tsl_tc_check #(
    .N         (N),
    .VmemBytes (VmemBytes),
    .AccBytes  (AccBytes),
    .HbmBytes  (HbmBytes),
    .EnableBf16(EnableBf16),
    .EnableTranspose(1'b1),   // tsl_mxu's transposed weight load
    .Ops       (tsl_pkg::OPS_TC),
    .EnableIci (EnableIci),
    .CreditW   (CreditW)
  ) u_check (
    .clk_i,
    .rst_ni,
    .active_i    (state_q == StCheck),
    .insn_i      (disp_insn),
    .credit_i    (credit_q),
    .wbuf_dtype_i(wbuf_push_q),
    .hbm_base_i  (hbm_base_q),
    .hbm_limit_i (hbm_limit_q),
    .chip_x_i,
    .chip_y_i,
    .pod_x_i,
    .pod_y_i,
    .done_o      (chk_done),
    .err_o       (chk_err),
    .err_addr_o  (chk_addr)
  );

  // ------------------------------------------------------------------ queues and issue stages
  assign ex_ready = {vpu_ex_ready_i, mxu_ex_ready_i, dma_ex_ready_i};
  assign done     = {vpu_done_i, mxu_done_i, dma_done_i};
  assign busy     = {vpu_busy_i, mxu_busy_i, dma_busy_i};
  assign fence    = {1'b0, 1'b0, dma_fence_i};
  assign dma_ex_valid_o = ex_valid[tsl_pkg::UNIT_DMA];
  assign mxu_ex_valid_o = ex_valid[tsl_pkg::UNIT_MXU];
  assign vpu_ex_valid_o = ex_valid[tsl_pkg::UNIT_VPU];
  assign dma_ex_insn_o  = ex_insn[tsl_pkg::UNIT_DMA];
  assign mxu_ex_insn_o  = ex_insn[tsl_pkg::UNIT_MXU];
  assign vpu_ex_insn_o  = ex_insn[tsl_pkg::UNIT_VPU];
  assign clr_q_all      = state_q == StReset;
  assign reset_done_o   = reset_done;
  assign resetting_o    = clr_q_all;

  for (genvar u = 0; u < 3; u++) begin : g_unit
    assign push_valid[u] = state_q == StPush && err_code_q == tsl_pkg::ERR_NONE && p_unit == 2'(u);
    tsl_tc_issue #(
      .Unit       (u),
      .QueueDepth (QueueDepth),
      .InflightMax(u == 32'(tsl_pkg::UNIT_DMA) ? DmaInflight : InflightMax),
      .KeepSeq    (u == 32'(tsl_pkg::UNIT_DMA))
    ) u_issue (
      .clk_i,
      .rst_ni,
      .clr_i          (clr_q_all),
      .halt_i         (halt_q),
      .push_valid_i   (push_valid[u]),
      .push_ready_o   (push_ready[u]),
      .push_insn_i    (disp_insn),
      .push_seq_i     (push_count_q),
      .level_o        (level[u]),
      .tok_avail_i    ({tok_avail[6 + u], tok_avail[3 + u], tok_avail[u]}),
      .tok_take_o     (take[u]),
      .ex_valid_o     (ex_valid[u]),
      .ex_ready_i     (ex_ready[u]),
      .ex_insn_o      (ex_insn[u]),
      .done_i         (done[u]),
      .fence_i        (fence[u]),
      .retire_o       (retire[u]),
      .retire_signal_o(ret_signal[u]),
      .retire_notify_o(ret_notify[u]),
      .retire_kind_o  (ret_kind[u]),
      .retire_amount_o(ret_amount[u]),
      .inflight_seq_o (if_seq[u]),
      .idle_o         (idle[u]),
      .stall_o        (stall[u])
    );
    // Channel f->t is index 3f+t: this unit takes from column u and gives along row u.
    for (genvar v = 0; v < 3; v++) begin : g_chan
      assign tok_take[3 * v + u] = take[u][v];
      assign tok_give[3 * u + v] = ret_ok[u] && ret_signal[u][v];
    end
  end

  // The instruction that raised an AXI error gives no tokens and counts nowhere.
  assign ret_ok   = retire & ~{2'b00, dma_fail_q || dma_err_i};
  assign all_idle = &idle;

  tsl_tc_tokens #(
    .QueueDepth(QueueDepth),
    .TokW      (TokW)
  ) u_tokens (
    .clk_i,
    .rst_ni,
    .clr_i  (reset_done),
    .give_i (tok_give),
    .take_i (tok_take),
    .avail_o(tok_avail),
    .count_o(tok_count)
  );

  // -------------------------------------------------------------------- performance counters
  always_comb begin
    perf_inc = '0;
    perf_inc[32 * tsl_pkg::PERF_CYCLES +: 32]     = 32'd1;
    perf_inc[32 * tsl_pkg::PERF_DMA_BUSY +: 32]   = 32'(busy[tsl_pkg::UNIT_DMA]);
    perf_inc[32 * tsl_pkg::PERF_MXU_BUSY +: 32]   = 32'(busy[tsl_pkg::UNIT_MXU]);
    perf_inc[32 * tsl_pkg::PERF_VPU_BUSY +: 32]   = 32'(busy[tsl_pkg::UNIT_VPU]);
    perf_inc[32 * tsl_pkg::PERF_DMA_STALL +: 32]  = 32'(stall[tsl_pkg::UNIT_DMA]);
    perf_inc[32 * tsl_pkg::PERF_MXU_STALL +: 32]  = 32'(stall[tsl_pkg::UNIT_MXU]);
    perf_inc[32 * tsl_pkg::PERF_VPU_STALL +: 32]  = 32'(stall[tsl_pkg::UNIT_VPU]);
    perf_inc[32 * tsl_pkg::PERF_DMA_INSNS +: 32]  = 32'(ret_ok[tsl_pkg::UNIT_DMA]);
    perf_inc[32 * tsl_pkg::PERF_MXU_INSNS +: 32]  = 32'(ret_ok[tsl_pkg::UNIT_MXU]);
    perf_inc[32 * tsl_pkg::PERF_VPU_INSNS +: 32]  = 32'(ret_ok[tsl_pkg::UNIT_VPU]);
    for (int u = 0; u < 3; u++) begin
      if (ret_ok[u] && ret_kind[u] == KIND_RD)
        perf_inc[32 * tsl_pkg::PERF_HBM_RD_BYTES +: 32] = ret_amount[u];
      if (ret_ok[u] && ret_kind[u] == KIND_WR)
        perf_inc[32 * tsl_pkg::PERF_HBM_WR_BYTES +: 32] = ret_amount[u];
    end
    // N*N per activation row entering the array (busy): exact once the MXU is idle
    perf_inc[32 * tsl_pkg::PERF_MXU_MACS +: 32] = 32'(busy[tsl_pkg::UNIT_MXU]) << (2 * $clog2(N));
  end

  tsl_tc_perf u_perf (
    .clk_i,
    .rst_ni,
    .clr_i    (perf_clr),
    .inc_i    (perf_inc),
    .rd_word_i(6'((reg_addr_i - tsl_pkg::TC_PERF_BASE) >> 2)),
    .rdata_o  (perf_rdata)
  );

  // ------------------------------------------------------------------------------ read values
  // The register values; tc_rd_mux (generated from the spec) decodes the offset, the performance
  // counters answer above TC_PERF_BASE. Token channel f->t is tok_count[(3f+t)*TokW +: TokW]
  // (DMA 0, MXU 1, VPU 2).
`include "hw/rtl/tsl_regs.svh"
  tc_rd_t rd;
  // The rw and w1c registers, and their values after this cycle's bus write (tc_wr_apply, generated
  // from the spec, decodes the offset); only their implemented bits are kept.
  tc_wr_t wr;
  /* verilator lint_off UNUSEDSIGNAL */
  tc_wr_t wr_next;
  /* verilator lint_on UNUSEDSIGNAL */
  always_comb begin
    wr            = '0;
    wr.irq_enable = 32'(irq_en_q);
    wr.irq_status = 32'(irq_st_q);
    wr.hbm_base   = hbm_base_q;
    wr.hbm_limit  = hbm_limit_q;
    wr.prog_addr  = prog_addr_q;
    wr.prog_bytes = prog_bytes_q;
    wr.prog_hold  = 32'(hold_q);
  end
  assign wr_next = tc_wr_apply(wr, reg_addr_i, reg_wdata_i, wmask);
  always_comb begin
    rd.id              = tsl_pkg::ID_VALUE;
    rd.cfg_n           = 32'(N);
    rd.cfg_vmem_bytes  = 32'(VmemBytes);
    rd.cfg_acc_bytes   = 32'(AccBytes);
    rd.cfg_hbm_bytes   = 32'(HbmBytes);
    rd.cfg_features    = {25'd0, EnableIci && pod_x_i != 5'd0, 1'b1, 1'b1, 1'b1, EnableSeq, EnableBf16, 1'b1};   // ICI, TRANSPOSE, FETCH, WINDOW, SEQ, BF16, INT8
    rd.cfg_queue_depth = 32'(QueueDepth);
    rd.status          = {30'd0, err_code_q != tsl_pkg::ERR_NONE, all_idle && !seq_busy && !fetch_busy_i};
    rd.err_code        = 32'(err_code_q);
    rd.err_unit        = 32'(err_unit_q);
    rd.err_seq         = err_seq_q;
    rd.err_addr        = err_addr_q;
    rd.push_count      = push_count_q;
    rd.notify_count    = notify_count_q;
    rd.queue_level     = {8'd0, level[tsl_pkg::UNIT_VPU], level[tsl_pkg::UNIT_MXU], level[tsl_pkg::UNIT_DMA]};
    rd.irq_enable      = 32'(irq_en_q);
    rd.irq_status      = 32'(irq_st_q);
    rd.tokens_dma_mxu  = 32'(tok_count[1 * TokW +: TokW]);
    rd.tokens_dma_vpu  = 32'(tok_count[2 * TokW +: TokW]);
    rd.tokens_mxu_dma  = 32'(tok_count[3 * TokW +: TokW]);
    rd.tokens_mxu_vpu  = 32'(tok_count[5 * TokW +: TokW]);
    rd.tokens_vpu_dma  = 32'(tok_count[6 * TokW +: TokW]);
    rd.tokens_vpu_mxu  = 32'(tok_count[7 * TokW +: TokW]);
    rd.seq_status      = 32'(seq_busy);
    rd.hbm_base        = hbm_base_q;
    rd.hbm_limit       = hbm_limit_q;
    rd.prog_status     = 32'(fetch_busy_i);
    rd.prog_addr       = prog_addr_q;
    rd.prog_bytes      = prog_bytes_q;
    rd.prog_hold       = 32'(hold_q);
    rd_val = tc_rd_mux(rd, reg_addr_i);
    if (reg_addr_i >= tsl_pkg::TC_PERF_BASE &&
        reg_addr_i < tsl_pkg::TC_PERF_BASE + 12'(8 * tsl_pkg::PERF_COUNT) && reg_addr_i[1:0] == 2'b00)
      rd_val = perf_rdata;
  end

  // ------------------------------------------------------------------- bus and dispatch FSM
  assign acc     = reg_valid_i && !ready_q && state_q == StIdle &&
                   !(seq_busy && we && (is_seq || is_win || is_prog || reg_addr_i == tsl_pkg::TC_INSN7_OFFSET)) &&
                   !(fetch_busy_i && we && (is_insn || is_seq || (is_win && !hold_q) || is_prog ||
                                            (is_hold && reg_wdata_i[0] && wmask[0])));
  assign we      = reg_wstrb_i != 4'd0;
  assign wmask   = {{8{reg_wstrb_i[3]}}, {8{reg_wstrb_i[2]}}, {8{reg_wstrb_i[1]}}, {8{reg_wstrb_i[0]}}};
  assign is_insn = reg_addr_i >= tsl_pkg::TC_INSN0_OFFSET && reg_addr_i <= tsl_pkg::TC_INSN7_OFFSET &&
                   reg_addr_i[1:0] == 2'b00;
  assign is_seq  = reg_addr_i >= tsl_pkg::TC_SEQ0_OFFSET && reg_addr_i <= tsl_pkg::TC_SEQ23_OFFSET &&
                   reg_addr_i[1:0] == 2'b00;
  assign is_win  = reg_addr_i == tsl_pkg::TC_HBM_BASE_OFFSET || reg_addr_i == tsl_pkg::TC_HBM_LIMIT_OFFSET;
  assign is_prog = reg_addr_i == tsl_pkg::TC_PROG_ADDR_OFFSET || reg_addr_i == tsl_pkg::TC_PROG_BYTES_OFFSET;
  assign is_hold = reg_addr_i == tsl_pkg::TC_PROG_HOLD_OFFSET;
  // The sequencer's next instruction enters the check when the bus does not use this cycle.
  assign seq_take   = state_q == StIdle && !acc && seq_valid && err_code_q == tsl_pkg::ERR_NONE;
  // The fetch unit's next item, when neither the bus nor the sequencer uses this cycle (it waits
  // while the sequencer is busy, as INSN7 and SEQ writes do). Held: a descriptor word but the last.
  assign fetch_take = state_q == StIdle && !acc && !seq_busy && fetch_valid_i && err_code_q == tsl_pkg::ERR_NONE &&
                      (!hold_q || (fetch_seq_i && fetch_err_i == tsl_pkg::ERR_NONE &&
                                   fetch_word_i != 5'(tsl_pkg::PARAM_SEQ_WORDS - 1)));
  assign fetch_seqw = fetch_take && fetch_seq_i && fetch_err_i == tsl_pkg::ERR_NONE;
  assign fetch_ready_o = fetch_take;
  assign seq_launch = (acc && we && reg_addr_i == tsl_pkg::TC_SEQ23_OFFSET && err_code_q == tsl_pkg::ERR_NONE) ||
                      (fetch_seqw && fetch_word_i == 5'(tsl_pkg::PARAM_SEQ_WORDS - 1));
  // A PROG_BYTES write starts a fetch (none with an error pending, or of 0 bytes); CTRL.RESET and any
  // error stop it.
  assign fetch_start_o = acc && we && reg_addr_i == tsl_pkg::TC_PROG_BYTES_OFFSET &&
                         err_code_q == tsl_pkg::ERR_NONE && prog_bytes_d != 32'd0;
  assign fetch_addr_o  = prog_addr_q;
  assign fetch_bytes_o = prog_bytes_d;
  assign fetch_abort_o = state_q == StReset || err_code_q != tsl_pkg::ERR_NONE;

  // ------------------------------------------------------------------------- tile sequencer
  if (EnableSeq) begin : g_seq
    tsl_tc_seq #(
      .N         (N),
      .VmemBytes (VmemBytes),
      .AccBytes  (AccBytes),
      .HbmBytes  (HbmBytes),
      .EnableBf16(EnableBf16),
      .CreditW   (CreditW)
    ) u_seq (
      .clk_i,
      .rst_ni,
      .wr_i      ((acc && we && is_seq) || fetch_seqw),
      .wr_word_i (fetch_seqw ? fetch_word_i : 5'((reg_addr_i - tsl_pkg::TC_SEQ0_OFFSET) >> 2)),
      .wr_data_i (fetch_seqw ? fetch_data_i[31:0] : reg_wdata_i),
      .wr_mask_i (fetch_seqw ? 32'hFFFF_FFFF : wmask),
      .launch_i  (seq_launch),
      .abort_i   (state_q == StReset),
      .halt_i    (err_code_q != tsl_pkg::ERR_NONE && !from_seq_q),
      .credit_i  (credit_q),
      .hbm_base_i (hbm_base_q),
      .hbm_limit_i(hbm_limit_q),
      .busy_o    (seq_busy),
      .chk_done_o(seq_chk_done),
      .chk_err_o (seq_chk_err),
      .chk_addr_o(seq_chk_addr),
      .valid_o   (seq_valid),
      .ready_i   (seq_ready),
      .insn_o    (seq_insn)
    );
  end else begin : g_no_seq   // SEQ0..SEQ23 writes are accepted and ignored
    logic unused_seq_in;
    assign unused_seq_in = ^{seq_launch, seq_ready, fetch_word_i};
    assign seq_busy      = 1'b0;
    assign seq_chk_done  = 1'b0;
    assign seq_chk_err   = tsl_pkg::ERR_NONE;
    assign seq_chk_addr  = 32'd0;
    assign seq_valid     = 1'b0;
    assign seq_insn      = '0;
  end

  always_comb begin
    state_d    = state_q;
    ready_d    = 1'b0;
    rdata_d    = 32'd0;
    stage_d    = stage_q;
    irq_en_d   = irq_en_q;
    hbm_base_d  = hbm_base_q;
    hbm_limit_d = hbm_limit_q;
    prog_addr_d  = prog_addr_q;
    prog_bytes_d = prog_bytes_q;
    hold_d       = hold_q;
    from_fetch_d = from_fetch_q;
    push_acc   = 1'b0;
    reset_done = 1'b0;
    rec_disp   = 1'b0;
    perf_clr   = 1'b0;
    from_seq_d = from_seq_q;
    seq_ready  = 1'b0;
    unique case (state_q)
      StIdle: begin
        if (seq_take) begin
          from_seq_d = 1'b1;
          state_d    = StCheck;
        end else if (fetch_take) begin
          // an instruction goes through INSN0..INSN7 as the bus's would; a descriptor word and an
          // error take this cycle only (fetch_seqw, the error block)
          if (!fetch_seq_i && fetch_err_i == tsl_pkg::ERR_NONE) begin
            stage_d      = fetch_data_i;
            from_fetch_d = 1'b1;
            state_d      = StCheck;
          end
        end else if (acc && !we) begin
          rdata_d = rd_val;
          ready_d = 1'b1;
        end else if (acc) begin
          ready_d = 1'b1;
          if (is_insn) begin
            stage_d[32 * reg_addr_i[4:2] +: 32] =
                (stage_q[32 * reg_addr_i[4:2] +: 32] & ~wmask) | (reg_wdata_i & wmask);
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
          end else begin   // an rw register, or none (IRQ_STATUS: below)
            irq_en_d     = wr_next.irq_enable[1:0];
            hbm_base_d   = wr_next.hbm_base;
            hbm_limit_d  = wr_next.hbm_limit;
            prog_addr_d  = wr_next.prog_addr & ~32'd3;    // bits 1:0 read 0
            prog_bytes_d = wr_next.prog_bytes & ~32'd3;
            hold_d       = wr_next.prog_hold[0];
          end
        end
      end
      StCheck: begin
        if (chk_done) begin
          if (chk_err != tsl_pkg::ERR_NONE || err_code_q != tsl_pkg::ERR_NONE) begin
            rec_disp   = chk_err != tsl_pkg::ERR_NONE;
            ready_d    = !from_seq_q && !from_fetch_q;
            seq_ready  = from_seq_q;
            from_seq_d = 1'b0;
            from_fetch_d = 1'b0;
            state_d    = StIdle;
          end else begin
            state_d = StPush;
          end
        end
      end
      StPush: begin
        // An AXI error while waiting for room drops the push like any push after an error.
        if (err_code_q != tsl_pkg::ERR_NONE || push_ready[p_unit]) begin
          push_acc   = err_code_q == tsl_pkg::ERR_NONE;
          ready_d    = !from_seq_q && !from_fetch_q;
          seq_ready  = from_seq_q;
          from_seq_d = 1'b0;
          from_fetch_d = 1'b0;
          state_d    = StIdle;
        end
      end
      default: begin   // StReset: the queues are being cleared; wait for in-flight work
        if (all_idle && !fetch_busy_i) begin
          reset_done = 1'b1;
          perf_clr   = reg_wdata_i[tsl_pkg::TC_CTRL_CLEAR_PERF_LSB] && wmask[tsl_pkg::TC_CTRL_CLEAR_PERF_LSB];
          ready_d    = 1'b1;
          state_d    = StIdle;
          stage_d    = '0;
          hold_d     = 1'b0;
        end
      end
    endcase
  end

  // --------------------------------------------------------------- dispatch state and errors
  always_comb begin
    credit_d       = credit_q;
    wbuf_push_d    = wbuf_push_q;
    wbuf_exec_d    = wbuf_exec_q;
    push_count_d   = push_count_q;
    notify_count_d = notify_count_q;
    err_code_d     = err_code_q;
    err_unit_d     = err_unit_q;
    err_seq_d      = err_seq_q;
    err_addr_d     = err_addr_q;
    irq_st_d       = irq_st_q;
    halt_d         = halt_q || dma_err_i;
    dma_fail_d     = retire[tsl_pkg::UNIT_DMA] ? 1'b0 : (dma_fail_q || dma_err_i);

    if (push_acc) begin
      for (int u = 0; u < 3; u++) begin
        credit_d[(3 * u + 32'(p_unit)) * CreditW +: CreditW] =
            credit_d[(3 * u + 32'(p_unit)) * CreditW +: CreditW] - CreditW'(p_wait[u]);
        credit_d[(3 * 32'(p_unit) + u) * CreditW +: CreditW] =
            credit_d[(3 * 32'(p_unit) + u) * CreditW +: CreditW] + CreditW'(p_signal[u]);
      end
      if (p_unit == tsl_pkg::UNIT_MXU)
        wbuf_push_d = wbuf_after(wbuf_push_q, staged.op, staged.dtype, staged.wbuf, staged.kblocks);
      push_count_d = push_count_q + 32'd1;
    end
    // The weight buffers' dtype as executed: the last LOADW handed to the MXU.
    if (ex_valid[tsl_pkg::UNIT_MXU] && ex_ready[tsl_pkg::UNIT_MXU])
      wbuf_exec_d = wbuf_after(wbuf_exec_q, mxu_ex.op, mxu_ex.dtype, mxu_ex.wbuf,
                               mxu_ex.kblocks);

    notify_count_d = notify_count_q + 32'(ret_ok[0] && ret_notify[0]) +
                     32'(ret_ok[1] && ret_notify[1]) + 32'(ret_ok[2] && ret_notify[2]);
    if ((ret_ok & ret_notify) != 3'd0) irq_st_d[tsl_pkg::TC_IRQ_STATUS_NOTIFY_LSB] = 1'b1;

    if (err_code_q == tsl_pkg::ERR_NONE && rec_disp) begin
      err_code_d = chk_err;
      err_unit_d = 3'(p_unit);
      err_seq_d  = push_count_q;
      err_addr_d = chk_addr;
      irq_st_d[tsl_pkg::TC_IRQ_STATUS_ERROR_LSB] = 1'b1;
    end else if (err_code_q == tsl_pkg::ERR_NONE && seq_chk_done && seq_chk_err != tsl_pkg::ERR_NONE) begin
      err_code_d = seq_chk_err;   // a launch check: no unit, the next sequence number
      err_unit_d = 3'(tsl_pkg::ERR_UNIT_SEQ);
      err_seq_d  = push_count_q;
      err_addr_d = seq_chk_addr;
      irq_st_d[tsl_pkg::TC_IRQ_STATUS_ERROR_LSB] = 1'b1;
    end else if (fetch_take && fetch_err_i != tsl_pkg::ERR_NONE) begin
      err_code_d = fetch_err_i;   // the fetch unit: no unit, the next sequence number
      err_unit_d = 3'(tsl_pkg::ERR_UNIT_FETCH);
      err_seq_d  = push_count_q;
      err_addr_d = fetch_addr_i;
      irq_st_d[tsl_pkg::TC_IRQ_STATUS_ERROR_LSB] = 1'b1;
    end else if (err_code_q == tsl_pkg::ERR_NONE && dma_err_i && dma_err_code_i != tsl_pkg::ERR_NONE) begin
      err_code_d = dma_err_code_i;
      err_unit_d = 3'(tsl_pkg::UNIT_DMA);
      err_seq_d  = if_seq[tsl_pkg::UNIT_DMA];
      err_addr_d = dma_err_addr_i;
      irq_st_d[tsl_pkg::TC_IRQ_STATUS_ERROR_LSB] = 1'b1;
    end

    // IRQ_STATUS is write-1-to-clear; a cause raised in the same cycle stays.
    if (acc && we && reg_addr_i == tsl_pkg::TC_IRQ_STATUS_OFFSET)
      irq_st_d = wr_next.irq_status[1:0] | (irq_st_d & ~irq_st_q);

    if (reset_done) begin
      credit_d       = '0;
      wbuf_push_d    = wbuf_exec_q;
      push_count_d   = 32'd0;
      notify_count_d = 32'd0;
      err_code_d     = tsl_pkg::ERR_NONE;
      err_unit_d     = 3'd0;
      err_seq_d      = 32'd0;
      err_addr_d     = 32'd0;
      irq_st_d       = 2'd0;
      halt_d         = 1'b0;
      dma_fail_d     = 1'b0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q        <= StIdle;
      ready_q        <= 1'b0;
      rdata_q        <= 32'd0;
      stage_q        <= '0;
      credit_q       <= '0;
      wbuf_push_q    <= {tsl_pkg::DTYPE_INT8, tsl_pkg::DTYPE_INT8};
      wbuf_exec_q    <= {tsl_pkg::DTYPE_INT8, tsl_pkg::DTYPE_INT8};
      push_count_q   <= 32'd0;
      notify_count_q <= 32'd0;
      err_code_q     <= tsl_pkg::ERR_NONE;
      err_unit_q     <= 3'd0;
      err_seq_q      <= 32'd0;
      err_addr_q     <= 32'd0;
      irq_en_q       <= 2'd0;
      irq_st_q       <= 2'd0;
      halt_q         <= 1'b0;
      dma_fail_q     <= 1'b0;
      from_seq_q     <= 1'b0;
      hbm_base_q     <= 32'd0;
      hbm_limit_q    <= 32'(HbmBytes);
      from_fetch_q   <= 1'b0;
      prog_addr_q    <= 32'd0;
      prog_bytes_q   <= 32'd0;
      hold_q         <= 1'b0;
    end else begin
      state_q        <= state_d;
      ready_q        <= ready_d;
      rdata_q        <= rdata_d;
      stage_q        <= stage_d;
      credit_q       <= credit_d;
      wbuf_push_q    <= wbuf_push_d;
      wbuf_exec_q    <= wbuf_exec_d;
      push_count_q   <= push_count_d;
      notify_count_q <= notify_count_d;
      err_code_q     <= err_code_d;
      err_unit_q     <= err_unit_d;
      err_seq_q      <= err_seq_d;
      err_addr_q     <= err_addr_d;
      irq_en_q       <= irq_en_d;
      irq_st_q       <= irq_st_d;
      halt_q         <= halt_d;
      dma_fail_q     <= dma_fail_d;
      from_seq_q     <= from_seq_d;
      hbm_base_q     <= hbm_base_d;
      hbm_limit_q    <= hbm_limit_d;
      from_fetch_q   <= from_fetch_d;
      prog_addr_q    <= prog_addr_d;
      prog_bytes_q   <= prog_bytes_d;
      hold_q         <= hold_d;
    end
  end

  assign reg_ready_o = ready_q;
  assign reg_rdata_o = rdata_q;
  assign reg_err_o   = 1'b0;
  assign irq_o       = (irq_st_q & irq_en_q) != 2'd0;
endmodule
