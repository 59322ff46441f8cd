// Dependency-token counters: one counting semaphore per ordered pair of distinct units (docs/isa.md
// section 3), channel f->t at index 3f+t (the diagonal does not exist and reads 0). A channel may
// be given and taken in the same cycle. Counters are wide enough for TOKEN_MAX plus the waits a
// queue can hold: the push-order rule bounds credits, not tokens, by TOKEN_MAX.
// Latency: count_o/avail_o show a give or take from the next cycle. No combinational paths.
module tsl_tc_tokens #(
  parameter int QueueDepth = 16,  // entries per queue: pending waits on top of TOKEN_MAX
  parameter int TokW = $clog2(tsl_pkg::PARAM_TOKEN_MAX + QueueDepth + 1)  // counter bits
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              clr_i,    // zero every channel (CTRL.RESET)
  input  logic [8:0]        give_i,   // one token onto each channel whose bit is set
  input  logic [8:0]        take_i,   // one token off each channel whose bit is set (must be > 0)
  output logic [8:0]        avail_o,  // channel holds at least one token
  output logic [9*TokW-1:0] count_o
);
  for (genvar f = 0; f < 3; f++) begin : g_from
    for (genvar t = 0; t < 3; t++) begin : g_to
      localparam int C = 3 * f + t;
      if (f != t) begin : g_chan
        logic [TokW-1:0] cnt_q, cnt_d;
        always_comb begin
          cnt_d = cnt_q + TokW'(give_i[C]) - TokW'(take_i[C]);
          if (clr_i) cnt_d = '0;
        end
        always_ff @(posedge clk_i or negedge rst_ni) begin
          if (!rst_ni) cnt_q <= '0;
          else         cnt_q <= cnt_d;
        end
        assign avail_o[C]                = cnt_q != '0;
        assign count_o[C * TokW +: TokW] = cnt_q;
      end else begin : g_none
        logic unused_diag;
        assign unused_diag               = give_i[C] ^ take_i[C];
        assign avail_o[C]                = 1'b0;
        assign count_o[C * TokW +: TokW] = '0;
      end
    end
  end
endmodule
