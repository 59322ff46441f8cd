// Bound into tsl_prim_fifo (tsl_fv_prep.py --bind): entries are numbered in push order and the
// environment pushes an entry's number as its data (the FIFO never looks at data, so this shows
// order for any data). Proved by k-induction with the invariants below.
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

  // Slot i after the read pointer (i < Depth; no 32-bit modulo, which the solver finds costly).
  function automatic logic [Aw:0] fv_slot(input logic [Aw-1:0] p, input logic [Aw:0] i);
    fv_slot = {1'b0, p} + i;
    if (fv_slot >= (Aw+1)'(Depth)) fv_slot = fv_slot - (Aw+1)'(Depth);
  endfunction
  always @* if (rst_ni) begin
    // Order kept: the head is the oldest entry not yet popped (no loss, no duplicate, no reorder).
    if (valid_o) FvOrder: assert (data_o == fv_popped_q);
    // No underflow / overflow: a pop only with an entry, a push only with room.
    if (pop) FvNoUnderflow: assert (level_q != '0);
    if (push) FvNoOverflow: assert (level_q < Lw'(Depth));
    FvLevel: assert (Width'(level_q) == fv_pushed_q - fv_popped_q);
    FvReadyFull: assert (ready_o == (level_q != Lw'(Depth)));
    // Invariants for the induction: pointers in range, and the queued entries in their slots.
    FvPtrRange: assert ((Aw+1)'(rd_q) < (Aw+1)'(Depth) && (Aw+1)'(wr_q) < (Aw+1)'(Depth));
    FvWrPtr: assert ((Aw+1)'(wr_q) == fv_slot(rd_q, (Aw+1)'(level_q)));
  end
  for (genvar i = 0; i < Depth; i++) begin : g_fv_slot
    always @* if (rst_ni && Lw'(i) < level_q)
      assert (mem_q[fv_slot(rd_q, (Aw+1)'(i))] == fv_popped_q + Width'(i));
  end
