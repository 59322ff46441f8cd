// MXU controller: takes LOADW/MATMUL commands in program order and runs them on two engines at
// once, so the next weight tile loads while the current tile computes (double buffering).
//  - Weight engine: the running LOADW plus one queued, so loads stream back to back; accepts the N
//    rows (k = 0..N-1) from the weight stream and writes row k of the buffer only when the last
//    activation that used the buffer has passed row k (since_q >= N+1+k: the row's last cell reads
//    the weight at since_q = N-1+k and the row's dtype at N+k, to accumulate), so a load may start
//    while earlier rows still drain through the array. A transposed LOADW (wr_trans_o) writes
//    column j of every row at its step j, so each of its writes waits as row N-1 would
//    (since_q >= 2N).
//  - Activation engine: the running MATMUL plus one prefetched; issues one row per advancing
//    cycle, back to back across commands, with its ACC address and flags.
// Hazards (in program order): a MATMUL is accepted even while a LOADW of its buffer runs or is
// queued, and counts those LOADWs (wait_n); its first row enters at the earliest in the cycle the
// last of them writes its last row, as row k of the array is read k+1 cycles after a row enters.
// This holds for a transposed LOADW unchanged: its last write completes every row at once, in the
// cycle the MATMUL's first row may enter, and row 0 is read one cycle later.
// A LOADW writes no row while an earlier MATMUL on its buffer (wait_n = 0) is queued or running.
// Other ops are accepted and dropped. ROWS must be >= 1. cmd_ready_o depends combinationally on
// cmd_op_i only, a_ready_o on adv_i and w_valid_i; no other comb paths.
module tsl_mxu_ctrl #(
  parameter int N            = 16,  // array size
  parameter int AccAddrWidth = 16   // width of ACC row addresses carried to the result stream
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,
  // command stream
  input  logic                    cmd_valid_i,
  output logic                    cmd_ready_o,
  input  tsl_pkg::mxu_op_e        cmd_op_i,
  input  logic                    cmd_wbuf_i,
  input  logic                    cmd_bf16_i,       // 1: bf16 (LOADW and MATMUL), 0: int8
  input  logic                    cmd_trans_i,      // LOADW: 1 transposed (VMEM row j = column j)
  input  logic                    cmd_acc_i,        // MATMUL: 1 accumulate, 0 overwrite
  input  logic [15:0]             cmd_rows_i,       // MATMUL: rows M >= 1
  input  logic [AccAddrWidth-1:0] cmd_acc_addr_i,   // MATMUL: ACC row of result row 0
  input  logic [AccAddrWidth-1:0] cmd_acc_stride_i, // MATMUL: ACC rows between result rows
  // weight row stream (handshake only; the data goes straight to the array)
  input  logic                    w_valid_i,
  output logic                    w_ready_o,
  output logic [N-1:0]            wr_row_o,         // one-hot row written this cycle
  output logic                    wr_buf_o,
  output logic                    wr_bf16_o,
  output logic                    wr_trans_o,       // wr_row_o names a column (transposed LOADW)
  output logic                    wload_done_o,     // pulse: a LOADW wrote its last row
  // activation row stream (handshake only)
  input  logic                    a_valid_i,
  output logic                    a_ready_o,
  input  logic                    adv_i,            // the array advances this cycle
  output logic                    issue_o,          // a row enters the array this cycle
  output logic                    issue_buf_o,
  output logic                    issue_bf16_o,
  output logic                    issue_acc_o,
  output logic                    issue_last_o,     // last row of its MATMUL
  output logic [AccAddrWidth-1:0] issue_addr_o,
  output logic                    busy_o            // a command is held or running
);
  `include "hw/rtl/tsl_assert.svh"
  localparam int RowW   = N > 1 ? $clog2(N) : 1;
  localparam int SinceW = $clog2(2 * N + 2) + 1;
  localparam logic [SinceW-1:0] SINCE_MAX = SinceW'(2 * N + 1);

  typedef struct packed {
    logic [1:0]              wait_n;   // earlier LOADWs of buf_sel to finish before the first row
    logic                    buf_sel;
    logic                    bf16;
    logic                    acc;
    logic [15:0]             rows;     // rows still to issue
    logic [AccAddrWidth-1:0] addr;
    logic [AccAddrWidth-1:0] stride;
  } mm_t;

  // Weight engine: the running LOADW (wl_*) and the queued one (wq_*).
  logic            wl_busy_d, wl_busy_q, wl_buf_d, wl_buf_q, wl_bf16_d, wl_bf16_q, wl_trans_d, wl_trans_q;
  logic [RowW-1:0] wl_row_d, wl_row_q, wl_war_row;
  logic            wq_valid_d, wq_valid_q, wq_buf_d, wq_buf_q, wq_bf16_d, wq_bf16_q, wq_trans_d, wq_trans_q;
  // Activation engine.
  mm_t             cur_d, cur_q, nxt_d, nxt_q, cmd_mm;
  logic            cur_valid_d, cur_valid_q, nxt_valid_d, nxt_valid_q;
  // Advancing cycles since the last row that used each buffer entered the array (saturating).
  logic [SinceW-1:0] since_d [2];
  logic [SinceW-1:0] since_q [2];

  logic is_loadw, is_mm, loadw_ok, mm_ok, loadw_go, mm_go, w_fire, row_ok, cur_free;

  // The wait count after this cycle's LOADW finish, if any.
  function automatic logic [1:0] wait_next(input logic [1:0] wait_n, input logic done);
    wait_next = wait_n - 2'(done && wait_n != 2'd0);
  endfunction

  always_comb begin
    is_loadw = cmd_op_i == tsl_pkg::MXU_OP_LOADW;
    is_mm    = cmd_op_i == tsl_pkg::MXU_OP_MATMUL;
    loadw_ok = !wq_valid_q;
    mm_ok    = !nxt_valid_q;
    cmd_ready_o = is_loadw ? loadw_ok : is_mm ? mm_ok : 1'b1;
    loadw_go = cmd_valid_i && is_loadw && loadw_ok;
    mm_go    = cmd_valid_i && is_mm && mm_ok;

    // Weight engine: row k may be written once since_q of its buffer reaches N+1+k (a transposed
    // write touches every row: as row N-1).
    // MATMULs queued before this LOADW (in cur/nxt with nothing left to wait for) may use the
    // buffer until they finish; later ones wait for this LOADW.
    wl_war_row = wl_trans_q ? RowW'(N - 1) : wl_row_q;
    row_ok    = since_q[wl_buf_q] >= SINCE_MAX - SinceW'(N) + SinceW'(wl_war_row)
                && !(cur_valid_q && cur_q.buf_sel == wl_buf_q && cur_q.wait_n == 2'd0)
                && !(nxt_valid_q && nxt_q.buf_sel == wl_buf_q && nxt_q.wait_n == 2'd0);
    w_ready_o = wl_busy_q && row_ok;
    w_fire    = w_valid_i && w_ready_o;
    wr_row_o  = N'(w_fire) << wl_row_q;
    wr_buf_o  = wl_buf_q;
    wr_bf16_o = wl_bf16_q;
    wr_trans_o = wl_trans_q;
    wload_done_o = w_fire && wl_row_q == RowW'(N - 1);
    wl_busy_d = wl_busy_q;
    wl_buf_d  = wl_buf_q;
    wl_bf16_d = wl_bf16_q;
    wl_trans_d = wl_trans_q;
    wl_row_d  = wl_row_q;
    wq_valid_d = wq_valid_q;
    wq_buf_d   = wq_buf_q;
    wq_bf16_d  = wq_bf16_q;
    wq_trans_d = wq_trans_q;
    if (w_fire) wl_row_d = wl_row_q + 1'b1;
    if (wload_done_o) begin  // the queued LOADW, if any, starts
      wl_busy_d  = wq_valid_q;
      wl_buf_d   = wq_buf_q;
      wl_bf16_d  = wq_bf16_q;
      wl_trans_d = wq_trans_q;
      wl_row_d   = '0;
      wq_valid_d = 1'b0;
    end
    if (loadw_go) begin
      if (wl_busy_d) begin
        wq_valid_d = 1'b1;
        wq_buf_d   = cmd_wbuf_i;
        wq_bf16_d  = cmd_bf16_i;
        wq_trans_d = cmd_trans_i;
      end else begin
        wl_busy_d = 1'b1;
        wl_buf_d  = cmd_wbuf_i;
        wl_bf16_d = cmd_bf16_i;
        wl_trans_d = cmd_trans_i;
        wl_row_d  = '0;
      end
    end

    // Activation engine. A new MATMUL waits for the LOADWs of its buffer held now, less one
    // finishing in this cycle.
    cmd_mm.wait_n  = wait_next((wq_valid_q && wq_buf_q == cmd_wbuf_i) ? 2'd2 :
                               (wl_busy_q && wl_buf_q == cmd_wbuf_i)  ? 2'd1 : 2'd0, wload_done_o);
    cmd_mm.buf_sel = cmd_wbuf_i;
    cmd_mm.bf16    = cmd_bf16_i;
    cmd_mm.acc     = cmd_acc_i;
    cmd_mm.rows    = cmd_rows_i;
    cmd_mm.addr    = cmd_acc_addr_i;
    cmd_mm.stride  = cmd_acc_stride_i;
    a_ready_o    = cur_valid_q && adv_i && wait_next(cur_q.wait_n, wload_done_o) == 2'd0;
    issue_o      = a_valid_i && a_ready_o;
    issue_buf_o  = cur_q.buf_sel;
    issue_bf16_o = cur_q.bf16;
    issue_acc_o  = cur_q.acc;
    issue_last_o = cur_q.rows == 16'd1;
    issue_addr_o = cur_q.addr;
    cur_free = !cur_valid_q || (issue_o && issue_last_o);
    cur_d = cur_q;
    nxt_d = nxt_q;
    cur_valid_d = cur_valid_q;
    nxt_valid_d = nxt_valid_q;
    cur_d.wait_n = wait_next(cur_q.wait_n, wload_done_o);
    nxt_d.wait_n = wait_next(nxt_q.wait_n, wload_done_o);
    if (issue_o) begin
      cur_d.rows = cur_q.rows - 16'd1;
      cur_d.addr = cur_q.addr + cur_q.stride;
    end
    if (cur_free) begin
      if (nxt_valid_q) begin
        cur_d       = nxt_d;
        cur_valid_d = 1'b1;
        nxt_valid_d = 1'b0;
      end else begin
        cur_d       = cmd_mm;
        cur_valid_d = mm_go;
      end
    end else if (mm_go) begin
      nxt_d       = cmd_mm;
      nxt_valid_d = 1'b1;
    end

    for (int b = 0; b < 2; b++) begin
      since_d[b] = since_q[b];
      if (issue_o && cur_q.buf_sel == b[0]) since_d[b] = '0;
      else if (adv_i && since_q[b] != SINCE_MAX) since_d[b] = since_q[b] + 1'b1;
    end

    busy_o = wl_busy_q || wq_valid_q || cur_valid_q || nxt_valid_q;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wl_busy_q   <= 1'b0;
      wq_valid_q  <= 1'b0;
      cur_valid_q <= 1'b0;
      nxt_valid_q <= 1'b0;
      since_q[0]  <= SINCE_MAX;
      since_q[1]  <= SINCE_MAX;
    end else begin
      wl_busy_q   <= wl_busy_d;
      wq_valid_q  <= wq_valid_d;
      cur_valid_q <= cur_valid_d;
      nxt_valid_q <= nxt_valid_d;
      since_q[0]  <= since_d[0];
      since_q[1]  <= since_d[1];
    end
  end

  // Payload registers, not reset.
  always_ff @(posedge clk_i) begin
    wl_buf_q  <= wl_buf_d;
    wl_bf16_q <= wl_bf16_d;
    wl_trans_q <= wl_trans_d;
    wl_row_q  <= wl_row_d;
    wq_buf_q  <= wq_buf_d;
    wq_bf16_q <= wq_bf16_d;
    wq_trans_q <= wq_trans_d;
    cur_q     <= cur_d;
    nxt_q     <= nxt_d;
  end

  // Assertions
  `TSL_ASSERT(QueuedLoadwBehindRunning, !wq_valid_q || wl_busy_q,
              "a LOADW is queued while none runs")
  `TSL_ASSERT(CurWaitHeld, !cur_valid_q || cur_q.wait_n <= 2'(wl_busy_q) + 2'(wq_valid_q),
              "the running MATMUL waits for more LOADWs than are held")
  `TSL_ASSERT(NxtWaitHeld, !nxt_valid_q || nxt_q.wait_n <= 2'(wl_busy_q) + 2'(wq_valid_q),
              "the prefetched MATMUL waits for more LOADWs than are held")
endmodule
