// UART receiver, 8N1, LSB first. The line is synchronised with two flops; a falling edge starts a
// frame, each bit is sampled at its middle (ClksPerBit/2 after its edge) and a byte whose stop bit
// reads 0 is dropped (framing error). Latency: valid_o pulses for one cycle about half a bit time
// after the middle of the stop bit; at most one byte per 10 bit times, no back-pressure (a consumer
// that is busy loses the byte). The idle line is high; rx_i may be asynchronous to clk_i.
module tsl_uart_rx #(
  parameter int ClksPerBit = 12  // clk_i cycles per bit (>= 4): clock Hz / baud
) (
  input  logic       clk_i,
  input  logic       rst_ni,
  input  logic       rx_i,     // serial line (asynchronous)
  output logic       valid_o,  // one-cycle pulse: data_o holds a received byte
  output logic [7:0] data_o
);
  `include "hw/rtl/tsl_assert.svh"
  localparam int Cw = $clog2(ClksPerBit);

  // FSM states (plain constants: Icarus 11 mis-types enum assignments from ?:).
  localparam logic [1:0] StIdle = 2'd0, StStart = 2'd1, StData = 2'd2, StStop = 2'd3;
  logic [1:0]    state_q, state_d;
  logic [1:0]    sync_q;
  logic [Cw-1:0] cnt_q, cnt_d;
  logic [2:0]    bit_q, bit_d;
  logic [7:0]    shift_q, shift_d;
  logic          valid_q, valid_d, rx;

  assign rx      = sync_q[1];
  assign valid_o = valid_q;
  assign data_o  = shift_q;

  always_comb begin
    state_d = state_q;
    cnt_d   = cnt_q - Cw'(1);
    bit_d   = bit_q;
    shift_d = shift_q;
    valid_d = 1'b0;
    unique case (state_q)
      StIdle: begin
        cnt_d = Cw'(ClksPerBit / 2 - 1);
        if (!rx) state_d = StStart;
      end
      StStart: if (cnt_q == '0) begin  // middle of the start bit: a glitch returns to idle
        cnt_d   = Cw'(ClksPerBit - 1);
        bit_d   = '0;
        state_d = rx ? StIdle : StData;
      end
      StData: if (cnt_q == '0) begin
        cnt_d   = Cw'(ClksPerBit - 1);
        shift_d = {rx, shift_q[7:1]};
        bit_d   = bit_q + 3'd1;
        if (bit_q == 3'd7) state_d = StStop;
      end
      StStop: if (cnt_q == '0) begin
        valid_d = rx;
        state_d = StIdle;
      end
      default: state_d = StIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      sync_q  <= 2'b11;
      cnt_q   <= '0;
      bit_q   <= '0;
      valid_q <= 1'b0;
    end else begin
      state_q <= state_d;
      sync_q  <= {sync_q[0], rx_i};
      cnt_q   <= cnt_d;
      bit_q   <= bit_d;
      valid_q <= valid_d;
    end
  end

  always_ff @(posedge clk_i) shift_q <= shift_d;

  // Assertions
  `TSL_ASSERT_INIT(ClksPerBitRange, ClksPerBit >= 4, "ClksPerBit must be at least 4")
endmodule
