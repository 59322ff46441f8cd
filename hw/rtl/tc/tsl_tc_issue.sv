// Issue stage of one unit: its instruction queue, the token take at the head, the unit execution
// interface (docs/hardware.md) and the in-flight FIFO of what retiring needs (SIGNAL, NOTIFY, the
// exact HBM byte count of a DMA, the push sequence number).
// A head whose WAIT channels all hold a token (tok_avail_i) takes them all in one cycle
// (tok_take_o) once the unit has room (fewer than InflightMax unfinished), and is then offered on
// ex_valid_o with ex_insn_o steady until ex_ready_i. A SYNC head instead takes its tokens and
// retires here in one cycle, once the unit has nothing in flight and no fence_i (the DMA's ASYNC
// SENDs still leaving); it never reaches the unit.
// retire_* describe an instruction finished this cycle (done_i pops the in-flight FIFO).
// ex_valid_o drops without a handshake only on halt_i or clr_i. No combinational input-to-output
// paths except tok_avail_i -> tok_take_o/retire_* and done_i -> retire_*.
module tsl_tc_issue #(
  parameter int Unit        = 0,   // tsl_pkg::unit_e of the unit fed: DMA 0, MXU 1, VPU 2
  parameter int QueueDepth  = 16,  // queue entries, 2..255
  parameter int InflightMax = 4,   // instructions the unit may hold between ex handshake and done
  parameter bit KeepSeq     = 1'b0 // 1: keep push sequence numbers (the DMA's, for ERR_SEQ)
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic         clr_i,            // drop every queued instruction (in-flight ones finish)
  input  logic         halt_i,           // start nothing (an AXI error halted the queues)
  input  logic         push_valid_i,
  output logic         push_ready_o,     // the queue has room
  input  logic [255:0] push_insn_i,
  input  logic [31:0]  push_seq_i,
  output logic [7:0]   level_o,          // queued instructions (not yet handed to the unit)
  input  logic [2:0]   tok_avail_i,      // bit u: channel u->Unit holds a token
  output logic [2:0]   tok_take_o,       // bit u: take one token from channel u->Unit
  output logic         ex_valid_o,
  input  logic         ex_ready_i,
  output logic [255:0] ex_insn_o,
  input  logic         done_i,
  input  logic         fence_i,          // the unit still works for instructions it reported done (a SYNC waits)
  output logic         retire_o,         // an instruction finished this cycle
  output logic [2:0]   retire_signal_o,
  output logic         retire_notify_o,
  output logic [1:0]   retire_kind_o,    // KIND_*: which exact counter retire_amount_o adds to
  output logic [31:0]  retire_amount_o,
  output logic [31:0]  inflight_seq_o,   // sequence number of the oldest unfinished instruction
  output logic         idle_o,           // queue empty and nothing in flight
  output logic         stall_o           // the head waits for a token
);
  localparam logic [1:0] KIND_NONE = 2'd0, KIND_RD = 2'd1, KIND_WR = 2'd2;
  localparam int SeqW   = KeepSeq ? 32 : 1;
  localparam int QW     = 256 + SeqW;
  localparam int FifoD  = InflightMax < 2 ? 2 : InflightMax;
  localparam int FifoLw = $clog2(FifoD + 1);
  localparam int FW     = SeqW + 3 + 1 + 2 + 32;   // {seq, signal, notify, kind, amount}

  logic [QW-1:0]     q_in, q_out;
  logic              head_valid, head_sync, tokens_ok, can_go, arm, sync_retire, ex_fire, pop;
  logic              armed_q, armed_d, room;
  logic [2:0]        head_wait;
  logic [$clog2(QueueDepth+1)-1:0] q_level;
  logic [FW-1:0]     f_in, f_out;
  logic              f_valid;
  logic [FifoLw-1:0] f_level;
  logic [1:0]        kind;
  logic [31:0]       amount;
  logic [SeqW-1:0]   seq_in;
  logic              unused_f_ready;   // room is checked against InflightMax instead

`include "hw/rtl/tsl_insn.svh"
  /* verilator lint_off UNUSEDSIGNAL */
  insn_hdr_t      head;       // the queue head's header
  insn_dma_xfer_t head_dma;   // the same as a DMA transfer (its ROWS and ROW_BYTES)
  /* verilator lint_on UNUSEDSIGNAL */

  // Queue of validated instructions (with the sequence number when kept).
  if (KeepSeq) begin : g_seq
    assign seq_in = push_seq_i;
  end else begin : g_no_seq
    logic unused_seq;
    assign unused_seq = ^push_seq_i;
    assign seq_in     = 1'b0;
  end
  assign q_in   = {seq_in, push_insn_i};

  tsl_tc_queue #(
    .Width(QW),
    .Depth(QueueDepth)
  ) u_queue (
    .clk_i,
    .rst_ni,
    .clr_i,
    .drop_i (halt_i),   // a DMA error: the controller drops the push it was offering (tsl_tc_ctrl)
    .valid_i(push_valid_i),
    .ready_o(push_ready_o),
    .data_i (q_in),
    .valid_o(head_valid),
    .ready_i(pop),
    .data_o (q_out),
    .level_o(q_level)
  );

  assign level_o   = 8'(q_level);
  assign ex_insn_o = q_out[255:0];
  assign head      = q_out[255:0];
  assign head_dma  = q_out[255:0];
  assign head_wait = head.wait_f;
  assign head_sync = head.op == 4'd0;
  assign tokens_ok = (head_wait & ~tok_avail_i) == 3'd0;
  assign room      = f_level < FifoLw'(InflightMax);

  always_comb begin
    can_go      = head_valid && !armed_q && !halt_i && !clr_i && tokens_ok;
    arm         = can_go && !head_sync && room;
    sync_retire = can_go && head_sync && !f_valid && !fence_i;
    tok_take_o  = (arm || sync_retire) ? head_wait : 3'd0;
    ex_valid_o  = armed_q && !halt_i && !clr_i;
    ex_fire     = ex_valid_o && ex_ready_i;
    pop         = ex_fire || sync_retire;
    stall_o     = head_valid && !armed_q && !tokens_ok;
    armed_d     = clr_i ? 1'b0 : arm ? 1'b1 : ex_fire ? 1'b0 : armed_q;
  end

  // Exact HBM byte count of a DMA instruction handed to the unit (other units: KIND_NONE).
  always_comb begin
    kind   = KIND_NONE;
    amount = 32'(head_dma.rows) * 32'(head_dma.row_bytes);
    if (Unit == 32'(tsl_pkg::UNIT_DMA) && head.op == 4'(tsl_pkg::DMA_OP_LOAD))
      kind = KIND_RD;
    if (Unit == 32'(tsl_pkg::UNIT_DMA) && head.op == 4'(tsl_pkg::DMA_OP_STORE))
      kind = KIND_WR;
  end

  // In-flight FIFO: one entry per instruction between its ex handshake and its done.
  assign f_in = {q_out[256 +: SeqW], head.signal, head.notify, kind, amount};

  tsl_prim_fifo #(
    .Width(FW),
    .Depth(FifoD)
  ) u_inflight (
    .clk_i,
    .rst_ni,
    .clr_i  (1'b0),
    .valid_i(ex_fire),
    .ready_o(unused_f_ready),
    .data_i (f_in),
    .valid_o(f_valid),
    .ready_i(done_i),
    .data_o (f_out),
    .level_o(f_level)
  );

  always_comb begin
    retire_o        = sync_retire || (done_i && f_valid);
    retire_signal_o = f_out[32 + 2 + 1 +: 3];
    retire_notify_o = f_out[32 + 2];
    retire_kind_o   = f_out[32 +: 2];
    retire_amount_o = f_out[31:0];
    if (sync_retire) begin
      retire_signal_o = head.signal;
      retire_notify_o = head.notify;
      retire_kind_o   = KIND_NONE;
      retire_amount_o = 32'd0;
    end
  end

  assign inflight_seq_o   = 32'(f_out[FW-1 -: SeqW]);
  assign idle_o           = q_level == '0 && !f_valid;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) armed_q <= 1'b0;
    else         armed_q <= armed_d;
  end
endmodule
