// Performance counters of the lite tensor core: the PERF_COUNT 64-bit counters of isa.md, kept in a
// 16 x 64-bit single-port RAM instead of flip-flops. Events add into small per-counter pending
// registers; a pointer visits the counters in turn, two cycles each (read the RAM word, then write
// it plus the pending count and clear that), so every pending register is flushed once every
// 2 * PERF_COUNT cycles. A read of a counter waits for the pointer and returns the value it writes:
// at most 2 * PERF_COUNT + 1 cycles after rd_i.
// clr_i (CTRL.CLEAR_PERF) zeroes every counter (that cycle's events are dropped).
// Events: inc_i[k] adds 1 to counter k (PERF_MXU_MACS adds N*N).
module tsl_lite_perf #(
  parameter int N = 4   // PERF_MXU_MACS counts N*N per inc_i pulse
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,
  input  logic                          clr_i,
  input  logic [tsl_pkg::PERF_COUNT-1:0] inc_i,
  input  logic                          rd_i,        // read 32-bit word rd_word_i (LO 2k, HI 2k+1)
  input  logic [4:0]                    rd_word_i,
  output logic                          rvalid_o,    // pulse: rdata_o holds the word
  output logic [31:0]                   rdata_o
);
  localparam int K  = tsl_pkg::PERF_COUNT;
  localparam int Pn = 5;    // pending bits: a round of 2K cycles sees at most 2K events
  localparam int MacSh = 2 * $clog2(N);

  logic [3:0]    ptr_q, ptr_d;           // the counter being flushed
  logic          wv_q, wv_d;             // 0: its RAM word is read; 1: it is written
  logic [K-1:0]  zero_q, zero_d;         // counter cleared: ignore its RAM word
  logic [K*Pn-1:0] pend_q, pend_d;     // counter k at [k*Pn +: Pn]
  logic [63:0]   ram_rdata, sum, add;
  logic          pend_rd_q, pend_rd_d, rvalid_q, rvalid_d;
  logic [4:0]    word_q, word_d;
  logic [31:0]   rdata_q, rdata_d;

  tsl_prim_ram #(.Depth(16), .Width(64)) u_ram (
    .clk_i,
    .req_i  (1'b1),
    .we_i   (wv_q),
    .addr_i (ptr_q),
    .wdata_i(sum),
    .be_i   (8'hFF),
    .rdata_o(ram_rdata)
  );

  always_comb begin
    add = 64'd0;
    for (int k = 0; k < K; k++) begin
      if (ptr_q == 4'(k)) add = k == tsl_pkg::PERF_MXU_MACS ? 64'(pend_q[k * Pn +: Pn]) << MacSh
                                                             : 64'(pend_q[k * Pn +: Pn]);
    end
  end
  assign sum = (zero_q[ptr_q] ? 64'd0 : ram_rdata) + add;

  always_comb begin
    wv_d      = !wv_q;
    ptr_d     = !wv_q ? ptr_q : ptr_q == 4'(K - 1) ? 4'd0 : ptr_q + 4'd1;
    zero_d    = zero_q;
    pend_d    = pend_q;
    pend_rd_d = pend_rd_q || rd_i;
    word_d    = rd_i ? rd_word_i : word_q;
    rvalid_d  = 1'b0;
    rdata_d   = rdata_q;
    for (int k = 0; k < K; k++) begin
      if (wv_q && ptr_q == 4'(k)) begin
        zero_d[k]            = 1'b0;
        pend_d[k * Pn +: Pn] = '0;
      end
    end
    if (wv_q) begin
      if (pend_rd_q && word_q[4:1] == ptr_q) begin
        rdata_d   = word_q[0] ? sum[63:32] : sum[31:0];
        rvalid_d  = 1'b1;
        pend_rd_d = 1'b0;
      end
    end
    for (int k = 0; k < K; k++) pend_d[k * Pn +: Pn] = pend_d[k * Pn +: Pn] + Pn'(inc_i[k]);
    if (clr_i) begin
      zero_d = '1;
      pend_d = '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ptr_q     <= 4'd0;
      wv_q      <= 1'b0;
      zero_q    <= '1;
      pend_q    <= '0;
      pend_rd_q <= 1'b0;
      word_q    <= '0;
      rvalid_q  <= 1'b0;
      rdata_q   <= '0;
    end else begin
      ptr_q     <= ptr_d;
      wv_q      <= wv_d;
      zero_q    <= zero_d;
      pend_q    <= pend_d;
      pend_rd_q <= pend_rd_d;
      word_q    <= word_d;
      rvalid_q  <= rvalid_d;
      rdata_q   <= rdata_d;
    end
  end
  assign rvalid_o = rvalid_q;
  assign rdata_o  = rdata_q;
endmodule
