// Watchdog counter (HOSTIF WDT_*): counts down from timeout_i once loaded and pulses expire_o for
// one cycle when it reaches zero; it then stays stopped until the next load. load_i (a firmware
// kick, a host write of WDT_TIMEOUT, a host RESET) reloads it with timeout_i; timeout_i = 0
// disables it (a load with 0 stops it). Latency: expire_o is registered and rises exactly
// timeout_i cycles after the last load. Throughput: one load per cycle.
module tsl_wdt (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic [31:0] timeout_i,  // cycles from a load to expiry; 0 = disabled
  input  logic        load_i,     // reload the counter with timeout_i
  output logic        expire_o    // one-cycle pulse: the counter ran out
);
  logic [31:0] cnt_q, cnt_d;
  logic        expire_q, expire_d;

  always_comb begin
    cnt_d    = cnt_q;
    expire_d = 1'b0;
    if (load_i) begin
      cnt_d = timeout_i;
    end else if (cnt_q != 32'd0) begin
      cnt_d    = cnt_q - 32'd1;
      expire_d = cnt_q == 32'd1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cnt_q    <= '0;
      expire_q <= 1'b0;
    end else begin
      cnt_q    <= cnt_d;
      expire_q <= expire_d;
    end
  end

  assign expire_o = expire_q;
endmodule
