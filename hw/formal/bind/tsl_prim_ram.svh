// Bound into tsl_prim_ram (single port): as bind/tsl_prim_ram_1r1w.svh. A read (req_i, !we_i)
// returns the chosen word; a write changes only the enabled bytes; rdata_o holds otherwise.
  (* anyconst *) logic [$clog2(Depth)-1:0] fv_addr;
  logic [Width-1:0]   fv_word_q, fv_exp_q;
  logic [Width/8-1:0] fv_known_q, fv_kexp_q;
  logic               fv_rd_q, fv_re_q, fv_started_q = 1'b0;
  logic [Width-1:0]   fv_rdata_q;
  always_ff @(posedge clk_i) begin
    fv_started_q <= 1'b1;
    for (int b = 0; b < Width / 8; b++) begin
      if (!fv_started_q) fv_known_q[b] <= 1'b0;
      else if (req_i && we_i && addr_i == fv_addr && be_i[b]) begin
        fv_word_q[8*b +: 8] <= wdata_i[8*b +: 8];
        fv_known_q[b]       <= 1'b1;
      end
    end
    fv_rd_q    <= req_i && !we_i && addr_i == fv_addr;
    fv_exp_q   <= fv_word_q;
    fv_kexp_q  <= fv_started_q ? fv_known_q : '0;
    fv_re_q    <= req_i && !we_i;
    fv_rdata_q <= rdata_o;
  end
  always @* if (fv_started_q) begin
    for (int b = 0; b < Width / 8; b++) begin
      if (fv_known_q[b]) assert (mem[fv_addr][8*b +: 8] == fv_word_q[8*b +: 8]);
      if (fv_rd_q && fv_kexp_q[b]) assert (rdata_o[8*b +: 8] == fv_exp_q[8*b +: 8]);
    end
  end
  always @(posedge clk_i) if (fv_started_q && $past(fv_started_q) && !fv_re_q) FvHold: assert (rdata_o == fv_rdata_q);
