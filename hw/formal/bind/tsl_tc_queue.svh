// Bound into tsl_tc_queue: entries are numbered in push order and the environment pushes an
// entry's number as its data (the queue never looks at data, so this shows order for any data).
// The control invariants are proved by k-induction. The order of the data (FvOrder, under
// `FV_ORDER) passes through the RAM tsl_prim_ram_1r1w, whose contents the bound code cannot name
// (Yosys 0.23 has no hierarchical references), so it is checked to a bound instead.
  logic [Width-1:0] fv_pushed_q, fv_popped_q, fv_pushed_d, fv_popped_d;
  always_comb begin
    fv_pushed_d = fv_pushed_q + Width'(push);
    fv_popped_d = fv_popped_q + Width'(pop);
    if (clr_i) fv_popped_d = fv_pushed_d;  // a clear drops every entry
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fv_pushed_q <= '0;
      fv_popped_q <= '0;
    end else begin
      fv_pushed_q <= fv_pushed_d;
      fv_popped_q <= fv_popped_d;
    end
  end
  always @* if (valid_i) FvNumbered: assume (data_i == fv_pushed_q);
  function automatic logic [Aw:0] fv_slot(input logic [Aw-1:0] p, input logic [Aw:0] i);
    fv_slot = {1'b0, p} + i;
    if (fv_slot >= (Aw+1)'(Depth)) fv_slot = fv_slot - (Aw+1)'(Depth);
  endfunction

  always @* if (rst_ni) begin
    if (pop) FvNoUnderflow: assert (level_q != '0);
    if (push) FvNoOverflow: assert (level_q < Lw'(Depth));
    FvLevel: assert (Width'(level_q) == fv_pushed_q - fv_popped_q);
    FvReady: assert (ready_o == (level_q != Lw'(Depth)));
    FvPtrRange: assert ((Aw+1)'(rd_q) < (Aw+1)'(Depth) && (Aw+1)'(wr_q) < (Aw+1)'(Depth));
    FvWrPtr: assert ((Aw+1)'(wr_q) == fv_slot(rd_q, (Aw+1)'(level_q)));
`ifdef FV_ORDER
    // Order kept: the head is the oldest entry not yet popped (no loss, duplicate or reorder).
    if (valid_o) FvOrder: assert (data_o == fv_popped_q);
`endif
  end
  // Latency of the header comment: an entry pushed into an empty queue is at the head two cycles
  // later unless a clear came between.
  logic fv_lat_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) fv_lat_q <= 1'b0;
    else         fv_lat_q <= push && level_q == '0 && !clr_i;
  end
  always @(posedge clk_i) if (rst_ni && $past(rst_ni) && !tsl_fv_first && $past(fv_lat_q) && !$past(clr_i))
    FvHeadLatency: assert (valid_o);
