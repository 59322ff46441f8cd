// Bound into tsl_prim_ram_1r1w: one word at an address the solver picks (anyconst) stands for
// every word. fv_word holds what was written to it, byte by byte (fv_known: bytes written since
// the start; contents are not reset). A read returns the word as it was before a write in the
// same cycle (read-first), and rdata_o holds between reads.
  (* anyconst *) logic [$clog2(Depth)-1:0] fv_addr;
  logic [Width-1:0]   fv_word_q, fv_exp_q;
  logic [Width/8-1:0] fv_known_q, fv_kexp_q;
  logic               fv_rd_q, fv_re_q, fv_started_q = 1'b0;
  logic [Width-1:0]   fv_rdata_q;
  always_ff @(posedge clk_i) begin
    fv_started_q <= 1'b1;
    for (int b = 0; b < Width / 8; b++) begin
      if (!fv_started_q) fv_known_q[b] <= 1'b0;
      else if (we_i && waddr_i == fv_addr && be_i[b]) begin
        fv_word_q[8*b +: 8] <= wdata_i[8*b +: 8];
        fv_known_q[b]       <= 1'b1;
      end
    end
    fv_rd_q    <= re_i && raddr_i == fv_addr;
    fv_exp_q   <= fv_word_q;
    fv_kexp_q  <= fv_started_q ? fv_known_q : '0;
    fv_re_q    <= re_i;
    fv_rdata_q <= rdata_o;
  end
  always @* if (fv_started_q) begin
    for (int b = 0; b < Width / 8; b++) begin
      // Invariant for the induction: the chosen word holds what was written to it.
      if (fv_known_q[b]) assert (mem[fv_addr][8*b +: 8] == fv_word_q[8*b +: 8]);
      // A read returns it, as before a write in the same cycle.
      if (fv_rd_q && fv_kexp_q[b]) assert (rdata_o[8*b +: 8] == fv_exp_q[8*b +: 8]);
    end
  end
  always @(posedge clk_i) if (fv_started_q && $past(fv_started_q) && !fv_re_q) FvHold: assert (rdata_o == fv_rdata_q);
