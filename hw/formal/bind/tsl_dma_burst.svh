// Bound into tsl_dma_burst: the bursts of a row cover its beats exactly, in order, each as long
// as the rules allow. fv_sum_q counts the beats of the row's bursts loaded so far, from the
// loaded lengths.
  logic [16:0] fv_sum_q, fv_sum_d, fv_len;
  assign fv_len = 17'(ax_len_d) + 17'd1;   // beats of the burst being loaded
  always_comb begin
    fv_sum_d = fv_sum_q;
    if (load) fv_sum_d = row_end ? '0 : fv_sum_q + fv_len;
    if (clr_i) fv_sum_d = '0;
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) fv_sum_q <= '0;
    else         fv_sum_q <= fv_sum_d;
  end
  always @* if (rst_ni) begin
    // A row in progress is still offered, and not yet covered.
    FvInRow: assert (fv_sum_q == done_q && (done_q == '0 || (row_valid_i && done_q < row_nh_i)));
    if (load) begin
      // Contiguous: each burst starts where the row's previous one ended.
      FvContiguous: assert (ax_addr_d == {row_hbeat_i + (32 - LW)'(fv_sum_q), {LW{1'b0}}});
      // Exact cover: the row's last burst ends at its last beat, the others before it.
      FvCover: assert (row_end ? fv_sum_q + fv_len == row_nh_i : fv_sum_q + fv_len < row_nh_i);
      // As long as allowed: a burst is cut short only at the row's end or a 4 KiB boundary.
      FvMaximal: assert (row_end || fv_len == 17'(MaxBurst)
                         || 32'(ax_addr_d[11:LW]) + 32'(fv_len) == PB);
      // Only the instruction's last row's last burst is marked last.
      FvLast: assert (ax_last_d == (row_last_i && row_end));
    end
  end
