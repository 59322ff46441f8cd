// Formal top of tsl_tc_tokens (the dependency-token counters), at its real widths (TOKEN_MAX
// 65535, QueueDepth 16: 17-bit counters). Environment (assumed): a take only from a channel that
// holds a token (tsl_tc_issue takes only when every WAIT channel shows avail_o), and a give only
// below TOKEN_MAX + QueueDepth (the bound the controller's push-order rule keeps; not proved here).
// Proved by induction against a ghost count of gives minus takes, one bit wider than the counter:
// no underflow, no overflow, the exact count, avail_o, clear, and the absent diagonal.
module tsl_fv_tokens #(
  parameter int QueueDepth = 16  // entries per queue, as tsl_tc_tokens's
) (
  input logic       clk_i,
  input logic       rst_ni,
  input logic       clr_i,
  input logic [8:0] give_i,
  input logic [8:0] take_i
);
`include "hw/formal/tsl_fv_reset.svh"
  localparam int Cap  = tsl_pkg::PARAM_TOKEN_MAX + QueueDepth;  // most tokens a channel holds
  localparam int TokW = $clog2(Cap + 1);
  logic [8:0]        avail_o;
  logic [9*TokW-1:0] count_o;
  tsl_tc_tokens #(.QueueDepth(QueueDepth)) u_dut (.*);

  for (genvar c = 0; c < 9; c++) begin : g_c
    logic [TokW:0] ghost_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni)    ghost_q <= '0;
      else if (clr_i) ghost_q <= '0;
      else            ghost_q <= ghost_q + (TokW+1)'(give_i[c]) - (TokW+1)'(take_i[c]);
    end
    always @* if (rst_ni) begin
      if (take_i[c]) assume (avail_o[c]);
      if (give_i[c]) assume (32'(count_o[c*TokW +: TokW]) < Cap);
    end
    always @* if (rst_ni) begin
      if (c % 4 == 0) assert (count_o[c*TokW +: TokW] == '0 && !avail_o[c]);  // no channel u->u
      else begin
        assert ((TokW+1)'(count_o[c*TokW +: TokW]) == ghost_q);  // exact: no wrap either way
        assert (32'(ghost_q) <= Cap);
        assert (avail_o[c] == (ghost_q != '0));
      end
    end
  end
endmodule
