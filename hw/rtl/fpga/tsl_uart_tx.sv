// UART transmitter, 8N1, LSB first. A byte accepted on valid_i/ready_o is sent as start bit, eight
// data bits and a stop bit, ClksPerBit cycles each; tx_o idles high. Latency: the start bit begins
// the cycle after the handshake; throughput one byte per 10 bit times (ready_o is high only while
// the line is idle, no combinational path from valid_i to ready_o).
module tsl_uart_tx #(
  parameter int ClksPerBit = 12  // clk_i cycles per bit (>= 2): clock Hz / baud
) (
  input  logic       clk_i,
  input  logic       rst_ni,
  input  logic       valid_i,
  output logic       ready_o,
  input  logic [7:0] data_i,
  output logic       tx_o     // serial line
);
  `include "hw/rtl/tsl_assert.svh"
  localparam int Cw = $clog2(ClksPerBit);

  logic [Cw-1:0] cnt_q, cnt_d;
  logic [3:0]    bits_q, bits_d;   // bits left to send including the current one; 0 = idle
  logic [9:0]    shift_q, shift_d; // {stop, data, start}, sent from bit 0; all ones when idle

  assign ready_o = bits_q == 4'd0;
  assign tx_o    = shift_q[0];       // straight from a flop: no glitch on the line

  always_comb begin
    cnt_d   = cnt_q;
    bits_d  = bits_q;
    shift_d = shift_q;
    if (bits_q == 4'd0) begin
      if (valid_i) begin
        shift_d = {1'b1, data_i, 1'b0};
        bits_d  = 4'd10;
        cnt_d   = Cw'(ClksPerBit - 1);
      end
    end else if (cnt_q == '0) begin
      shift_d = {1'b1, shift_q[9:1]};
      bits_d  = bits_q - 4'd1;
      cnt_d   = Cw'(ClksPerBit - 1);
    end else begin
      cnt_d = cnt_q - Cw'(1);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cnt_q   <= '0;
      bits_q  <= '0;
      shift_q <= '1;
    end else begin
      cnt_q   <= cnt_d;
      bits_q  <= bits_d;
      shift_q <= shift_d;
    end
  end

  // Assertions
  `TSL_ASSERT_INIT(ClksPerBitRange, ClksPerBit >= 2, "ClksPerBit must be at least 2")
  `TSL_ASSERT(InHeld, valid_i && !ready_o |=> valid_i && $stable(data_i), "data_i changed before ready_o")
endmodule
