// Round-robin grant with lock for one AXI request channel (AW or AR) of tsl_axi_arb. The master
// after the last granted one wins among the valid ones; once its request is shown on the slave
// side (valid_o) the choice is locked until the handshake, so the payload stays stable.
// Latency: combinational (valid_i -> valid_o/sel_o); valid_o never depends on ready_i.
// enable_i (room in the order FIFOs) may only fall through a handshake of this channel.
module tsl_axi_arb_rr #(
  parameter int Masters = 3,                                // requesters (>= 1)
  localparam int IdxW   = (Masters > 1) ? $clog2(Masters) : 1
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic [Masters-1:0] valid_i,   // per-master request valid
  input  logic               enable_i,  // a grant may be shown on the slave side
  input  logic               ready_i,   // slave-side ready
  output logic               valid_o,   // slave-side valid
  output logic [IdxW-1:0]    sel_o,     // granted master (payload mux select)
  output logic               go_o       // slave-side handshake this cycle
);
  `include "hw/rtl/tsl_assert.svh"
  logic            lock_q, lock_d, found;
  localparam int CandW = IdxW + 1;  // holds last + k < 2 * Masters
  logic [IdxW-1:0]  sel_q, sel_d, last_q, last_d, pick;
  logic [CandW-1:0] cand;

  always_comb begin
    pick  = last_q;
    found = 1'b0;
    cand  = '0;
    for (int k = 1; k <= Masters; k++) begin
      cand = {1'b0, last_q} + CandW'(k);
      if (cand >= CandW'(Masters)) cand = cand - CandW'(Masters);
      if (!found && valid_i[cand[IdxW-1:0]]) begin
        found = 1'b1;
        pick  = cand[IdxW-1:0];
      end
    end
  end

  assign sel_o   = lock_q ? sel_q : pick;
  assign valid_o = valid_i[sel_o] && enable_i;
  assign go_o    = valid_o && ready_i;

  always_comb begin
    lock_d = lock_q;
    sel_d  = sel_q;
    last_d = last_q;
    if (go_o) begin
      lock_d = 1'b0;
      last_d = sel_o;
    end else if (valid_o) begin
      lock_d = 1'b1;
      sel_d  = sel_o;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      lock_q <= 1'b0;
      sel_q  <= '0;
      last_q <= IdxW'(Masters - 1);  // master 0 wins first
    end else begin
      lock_q <= lock_d;
      sel_q  <= sel_d;
      last_q <= last_d;
    end
  end

  // Assertions
  `TSL_ASSERT_INIT(MastersRange, Masters >= 1, "Masters must be at least 1")
  `TSL_ASSERT(EnableHeld, $fell(enable_i) |-> $past(go_o) || !$past(valid_o),
              "enable_i fell while a shown request waited for its handshake")
  `TSL_ASSERT(SelInRange, valid_o |-> 32'(sel_o) < Masters, "grant to a master that does not exist")
endmodule
