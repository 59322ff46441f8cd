// Performance counters of the tensor core: PERF_COUNT 64-bit counters (tsl_pkg PERF_*), each
// adding its 32-bit increment every cycle; clr_i (CTRL.CLEAR_PERF) zeroes them all and wins over
// that cycle's increments. Read port: 32-bit word rd_word_i counted from TC_PERF_BASE (LO of
// counter k at word 2k, HI at 2k+1), 0 past the last counter.
// Latency: an increment shows on rdata_o from the next cycle; rdata_o is combinational from
// rd_word_i.
module tsl_tc_perf (
  input  logic                             clk_i,
  input  logic                             rst_ni,
  input  logic                             clr_i,
  input  logic [32*tsl_pkg::PERF_COUNT-1:0] inc_i,   // counter k adds inc_i[32k +: 32]
  input  logic [5:0]                       rd_word_i,
  output logic [31:0]                      rdata_o
);
  logic [63:0] cnt_q [tsl_pkg::PERF_COUNT] /* verilator public_flat_rd */;
  logic [63:0] cnt_d [tsl_pkg::PERF_COUNT];
  logic [63:0] sel;

  always_comb begin
    for (int k = 0; k < tsl_pkg::PERF_COUNT; k++) begin
      cnt_d[k] = clr_i ? 64'd0 : cnt_q[k] + 64'(inc_i[32 * k +: 32]);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int k = 0; k < tsl_pkg::PERF_COUNT; k++) cnt_q[k] <= 64'd0;
    end else begin
      for (int k = 0; k < tsl_pkg::PERF_COUNT; k++) cnt_q[k] <= cnt_d[k];
    end
  end

  always_comb begin
    sel = 64'd0;
    for (int k = 0; k < tsl_pkg::PERF_COUNT; k++) begin
      if (rd_word_i[5:1] == 5'(k)) sel = cnt_q[k];
    end
    rdata_o = rd_word_i[0] ? sel[63:32] : sel[31:0];
  end
endmodule
