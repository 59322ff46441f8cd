// Bound into tsl_axi_arb: the slave's outstanding work, counted from slave-side handshakes, and
// the properties of the arbiter beyond its own assertions.
  logic [Lw:0] fv_bp_q, fv_bp_d, fv_ro_q, fv_ro_d;  // B owed (W last taken, no B yet); reads out
  always_comb begin
    fv_bp_d = fv_bp_q + (Lw+1)'(w_pop) - (Lw+1)'(b_pop);
    fv_ro_d = fv_ro_q + (Lw+1)'(ar_go) - (Lw+1)'(r_pop);
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fv_bp_q <= '0;
      fv_ro_q <= '0;
    end else begin
      fv_bp_q <= fv_bp_d;
      fv_ro_q <= fv_ro_d;
    end
  end
  // The slave answers only what it was asked (AXI: B after the burst's last W, R after AR).
  always @* if (rst_ni) begin
    if (m_axi_bvalid) FvSlaveB: assume (fv_bp_q != '0);
    if (m_axi_rvalid) FvSlaveR: assume (fv_ro_q != '0);
  end

  always @* if (rst_ni) begin
    // Bookkeeping: each order FIFO holds exactly the bursts still owed something.
    FvReadsOut: assert ((Lw+1)'(unused_rl) == fv_ro_q);
    FvOwedBound: assert (fv_bp_q <= (Lw+1)'(Depth) && fv_ro_q <= (Lw+1)'(Depth));
    FvWritesOut: assert ((Lw+1)'(unused_bl) == (Lw+1)'(unused_wl) + fv_bp_q);
    // Handshakes: at most one master sees each ready/valid, and only one that asked.
    FvAwReadyOne: assert ($onehot0(s_axi_awready) && (s_axi_awready & ~s_axi_awvalid) == '0);
    FvArReadyOne: assert ($onehot0(s_axi_arready) && (s_axi_arready & ~s_axi_arvalid) == '0);
    FvWReadyOne: assert ($onehot0(s_axi_wready));
    FvBValidOne: assert ($onehot0(s_axi_bvalid));
    FvRValidOne: assert ($onehot0(s_axi_rvalid));
    // A granted request is the selected master's, passed unchanged; no W before its AW.
    if (m_axi_awvalid) FvAwPayload: assert (s_axi_awvalid[aw_sel] && m_axi_awaddr == s_axi_awaddr[aw_sel*32 +: 32]
                                            && m_axi_awlen == s_axi_awlen[aw_sel*8 +: 8]);
    if (m_axi_arvalid) FvArPayload: assert (s_axi_arvalid[ar_sel] && m_axi_araddr == s_axi_araddr[ar_sel*32 +: 32]
                                            && m_axi_arlen == s_axi_arlen[ar_sel*8 +: 8]);
    if (m_axi_wvalid) FvWAfterAw: assert (wq_valid && 32'(w_idx) < Masters);
    // Depth bounds the outstanding bursts: no AW/AR shown while its order FIFO is full.
    if (m_axi_awvalid) FvAwRoom: assert (wq_ready && bq_ready);
    if (m_axi_arvalid) FvArRoom: assert (rq_ready);
  end
