// Bound into tsl_mxu_ctrl: the hazard rules in program order, from a ghost model kept apart from
// the controller's own bookkeeping (wait_n, since_q, row_ok).
//  - fv_lw: the accepted LOADWs not yet finished, oldest first, each with its buffer, whether it
//    is transposed, the rows it has written and mmp: the MATMULs on its buffer accepted before it
//    and not yet finished.
//  - fv_mm: the accepted MATMULs not yet finished, oldest first, each with its buffer, rows left
//    and lwp: the LOADWs on its buffer accepted before it and not yet finished.
//  - fv_since: advancing cycles since a row that used each buffer entered the array.
// RAW: a MATMUL's first row enters only when every earlier LOADW of its buffer has written its
// last row (at the earliest in that cycle). WAR: a LOADW writes row k of its buffer only when every
// earlier MATMUL on it has finished and since >= N+1+k (the row's last read was N+k cycles after
// its last row entered); a transposed LOADW's write k is column k of every row, so it needs
// since >= 2N (row N-1's bound) for every k. Rows (columns) are written in order 0..N-1, one at a
// time, into the LOADW's buffer, flagged transposed exactly for a transposed LOADW. RAW needs no
// change for a transposed load: its last write completes the whole tile.
  typedef struct packed {logic v; logic b; logic t; logic [1:0] mmp; logic [RowW-1:0] row;} fv_lw_t;
  typedef struct packed {logic v; logic b; logic [1:0] lwp; logic [15:0] rows;} fv_mm_t;
  // (separate registers, not arrays: Yosys 0.23 takes no arrays of structs)
  fv_lw_t fv_lw0_q, fv_lw1_q, fv_lw0_d, fv_lw1_d;
  fv_mm_t fv_mm0_q, fv_mm1_q, fv_mm0_d, fv_mm1_d;
  logic [SinceW-1:0] fv_s0_q, fv_s1_q, fv_s0_d, fv_s1_d, fv_since_w;
  logic fv_lw_end, fv_mm_end;
  logic [1:0] fv_cnt;

  always_comb begin
    fv_lw_end = w_fire && fv_lw0_q.row == RowW'(N - 1);  // the oldest LOADW writes its last row
    fv_mm_end = issue_o && fv_mm0_q.rows == 16'd1;       // the oldest MATMUL's last row enters
    fv_lw0_d = fv_lw0_q;
    fv_mm0_d = fv_mm0_q;
    if (w_fire) fv_lw0_d.row = fv_lw0_q.row + 1'b1;
    if (issue_o) fv_mm0_d.rows = fv_mm0_q.rows - 16'd1;
    fv_lw1_d = fv_lw1_q;
    fv_mm1_d = fv_mm1_q;
    // A finishing MATMUL (LOADW) is one fewer earlier command for the LOADWs (MATMULs) on its buffer.
    if (fv_mm_end && fv_lw0_d.v && fv_lw0_d.b == fv_mm0_q.b && fv_lw0_d.mmp != 2'd0) fv_lw0_d.mmp = fv_lw0_d.mmp - 2'd1;
    if (fv_mm_end && fv_lw1_d.v && fv_lw1_d.b == fv_mm0_q.b && fv_lw1_d.mmp != 2'd0) fv_lw1_d.mmp = fv_lw1_d.mmp - 2'd1;
    if (fv_lw_end && fv_mm0_d.v && fv_mm0_d.b == fv_lw0_q.b && fv_mm0_d.lwp != 2'd0) fv_mm0_d.lwp = fv_mm0_d.lwp - 2'd1;
    if (fv_lw_end && fv_mm1_d.v && fv_mm1_d.b == fv_lw0_q.b && fv_mm1_d.lwp != 2'd0) fv_mm1_d.lwp = fv_mm1_d.lwp - 2'd1;
    if (fv_lw_end) begin
      fv_lw0_d = fv_lw1_d;
      fv_lw1_d = '0;
    end
    if (fv_mm_end) begin
      fv_mm0_d = fv_mm1_d;
      fv_mm1_d = '0;
    end
    fv_cnt = '0;
    if (loadw_go) begin
      fv_cnt = 2'(fv_mm0_d.v && fv_mm0_d.b == cmd_wbuf_i) + 2'(fv_mm1_d.v && fv_mm1_d.b == cmd_wbuf_i);
      if (!fv_lw0_d.v) fv_lw0_d = {1'b1, cmd_wbuf_i, cmd_trans_i, fv_cnt, RowW'(0)};
      else             fv_lw1_d = {1'b1, cmd_wbuf_i, cmd_trans_i, fv_cnt, RowW'(0)};
    end
    if (mm_go) begin
      fv_cnt = 2'(fv_lw0_d.v && fv_lw0_d.b == cmd_wbuf_i) + 2'(fv_lw1_d.v && fv_lw1_d.b == cmd_wbuf_i);
      if (!fv_mm0_d.v) fv_mm0_d = {1'b1, cmd_wbuf_i, fv_cnt, cmd_rows_i};
      else             fv_mm1_d = {1'b1, cmd_wbuf_i, fv_cnt, cmd_rows_i};
    end
    fv_s0_d = fv_s0_q;
    fv_s1_d = fv_s1_q;
    if (issue_o && !issue_buf_o) fv_s0_d = '0;
    else if (adv_i && fv_s0_q != SINCE_MAX) fv_s0_d = fv_s0_q + 1'b1;
    if (issue_o && issue_buf_o) fv_s1_d = '0;
    else if (adv_i && fv_s1_q != SINCE_MAX) fv_s1_d = fv_s1_q + 1'b1;
    fv_since_w = fv_lw0_q.b ? fv_s1_q : fv_s0_q;
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fv_lw0_q <= '0;
      fv_lw1_q <= '0;
      fv_mm0_q <= '0;
      fv_mm1_q <= '0;
      fv_s0_q  <= SINCE_MAX;
      fv_s1_q  <= SINCE_MAX;
    end else begin
      fv_lw0_q <= fv_lw0_d;
      fv_lw1_q <= fv_lw1_d;
      fv_mm0_q <= fv_mm0_d;
      fv_mm1_q <= fv_mm1_d;
      fv_s0_q  <= fv_s0_d;
      fv_s1_q  <= fv_s1_d;
    end
  end

  // The LOADWs to finish (of either buffer, in order) until the last one a MATMUL waits for: the
  // LOADWs it waits for are the oldest held ones of its buffer.
  function automatic logic [1:0] fv_wait(input logic [1:0] lwp, input logic b);
    if (lwp == 2'd0)      fv_wait = 2'd0;
    else if (lwp == 2'd2) fv_wait = 2'd2;
    else                  fv_wait = (fv_lw0_q.v && fv_lw0_q.b == b) ? 2'd1 : 2'd2;
  endfunction

  always @* if (rst_ni) begin
    // No ghost queue overflows: the controller takes at most two LOADWs and two MATMULs.
    if (loadw_go) FvLwRoom: assert (!fv_lw1_q.v || fv_lw_end);
    if (mm_go) FvMmRoom: assert (!fv_mm1_q.v || fv_mm_end);
    // RAW.
    if (issue_o) FvRaw: assert (fv_mm0_q.v && issue_buf_o == fv_mm0_q.b && issue_last_o == (fv_mm0_q.rows == 16'd1)
                                && (fv_mm0_q.lwp == 2'd0 || (fv_mm0_q.lwp == 2'd1 && fv_lw_end && fv_lw0_q.b == fv_mm0_q.b)));
    // WAR, row order and buffer.
    if (w_fire) FvWar: assert (fv_lw0_q.v && wr_buf_o == fv_lw0_q.b && fv_lw0_q.mmp == 2'd0
                               && wr_row_o == N'(1) << fv_lw0_q.row && wr_trans_o == fv_lw0_q.t
                               && 32'(fv_since_w) >= N + 1 + (fv_lw0_q.t ? N - 1 : 32'(fv_lw0_q.row)));
    FvRowOneHot: assert ($onehot0(wr_row_o) && (wr_row_o == '0) == !w_fire);
    FvLoadDone: assert (wload_done_o == fv_lw_end);
    // The ghost and the controller agree on what is held (invariants for the induction). wait_n
    // counts LOADW completions of either buffer up to the last one of its own (they finish in
    // order): fv_wait.
    FvLwHeld: assert (fv_lw0_q.v == wl_busy_q && fv_lw1_q.v == wq_valid_q
                      && (!wl_busy_q || (fv_lw0_q.b == wl_buf_q && fv_lw0_q.t == wl_trans_q && fv_lw0_q.row == wl_row_q))
                      && (!wq_valid_q || (fv_lw1_q.b == wq_buf_q && fv_lw1_q.t == wq_trans_q && fv_lw1_q.row == '0)));
    FvMmHeld: assert (fv_mm0_q.v == cur_valid_q && fv_mm1_q.v == nxt_valid_q
                      && (!cur_valid_q || (fv_mm0_q.b == cur_q.buf_sel && fv_mm0_q.rows == cur_q.rows
                                           && cur_q.wait_n == fv_wait(fv_mm0_q.lwp, fv_mm0_q.b) && cur_q.rows != 16'd0))
                      && (!nxt_valid_q || (fv_mm1_q.b == nxt_q.buf_sel && fv_mm1_q.rows == nxt_q.rows
                                           && nxt_q.wait_n == fv_wait(fv_mm1_q.lwp, fv_mm1_q.b) && nxt_q.rows != 16'd0)));
    // mmp and lwp name the same order: the MATMULs before the oldest LOADW on its buffer are those
    // that wait for no LOADW; before the queued one, those that wait for at most the oldest.
    FvOrderHead: assert (!fv_lw0_q.v || fv_lw0_q.mmp == 2'(fv_mm0_q.v && fv_mm0_q.b == fv_lw0_q.b && fv_mm0_q.lwp == 2'd0)
                                                      + 2'(fv_mm1_q.v && fv_mm1_q.b == fv_lw0_q.b && fv_mm1_q.lwp == 2'd0));
    FvOrderQueued: assert (!fv_lw1_q.v || fv_lw1_q.mmp ==
                           2'(fv_mm0_q.v && fv_mm0_q.b == fv_lw1_q.b && fv_mm0_q.lwp <= 2'(fv_lw0_q.b == fv_lw1_q.b))
                         + 2'(fv_mm1_q.v && fv_mm1_q.b == fv_lw1_q.b && fv_mm1_q.lwp <= 2'(fv_lw0_q.b == fv_lw1_q.b)));
    FvLwpBound: assert ((!fv_mm0_q.v || fv_mm0_q.lwp <= 2'(fv_lw0_q.v && fv_lw0_q.b == fv_mm0_q.b)
                                                       + 2'(fv_lw1_q.v && fv_lw1_q.b == fv_mm0_q.b))
                        && (!fv_mm1_q.v || fv_mm1_q.lwp <= 2'(fv_lw0_q.v && fv_lw0_q.b == fv_mm1_q.b)
                                                         + 2'(fv_lw1_q.v && fv_lw1_q.b == fv_mm1_q.b))
                        && (!fv_mm1_q.v || fv_mm1_q.b != fv_mm0_q.b || fv_mm1_q.lwp >= fv_mm0_q.lwp)
                        && (!fv_lw1_q.v || fv_lw1_q.b != fv_lw0_q.b || fv_lw1_q.mmp >= fv_lw0_q.mmp));
    FvSince: assert (fv_s0_q == since_q[0] && fv_s1_q == since_q[1]);
  end
