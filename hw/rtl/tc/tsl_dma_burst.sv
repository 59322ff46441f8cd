// DMA burst splitter for one AXI address channel (AR or AW). Takes rows as (first HBM beat, beat
// count) and cuts each into INCR bursts of full-width beats: at most MaxBurst beats, never across
// a 4 KiB boundary, covering only the beats that hold row bytes. The address channel is driven
// from a register (valid never waits for ready, payload stable until the handshake).
// Throughput: one burst per cycle; a row is popped in the cycle its last burst is loaded.
// issue_o pulses when a burst is loaded (the caller counts outstanding bursts and gates allow_i).
module tsl_dma_burst #(
  parameter int W        = 32,  // beat bytes, a power of two, at most 4096
  parameter int MaxBurst = 16   // beats per burst, 1..256
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  clr_i,      // forget the current row (the loaded burst still goes out)
  input  logic                  allow_i,    // may load a new burst this cycle
  input  logic                  row_valid_i,
  output logic                  row_ready_o,
  input  logic [31-$clog2(W):0] row_hbeat_i,
  input  logic [16:0]           row_nh_i,
  input  logic                  row_last_i,
  output logic                  issue_o,
  output logic                  ax_valid_o,
  input  logic                  ax_ready_i,
  output logic [31:0]           ax_addr_o,
  output logic [7:0]            ax_len_o,
  output logic                  ax_last_o   // the burst in the register is the instruction's last
);
  `include "hw/rtl/tsl_assert.svh"
  localparam int LW  = $clog2(W);
  localparam int PB  = 4096 / W;            // beats per 4 KiB page
  localparam int PBW = $clog2(PB) + 1;

  logic                 ax_valid_q, ax_valid_d, ax_last_q, ax_last_d;
  logic [31:0]          ax_addr_q, ax_addr_d;
  logic [7:0]           ax_len_q, ax_len_d;
  logic [16:0]          done_q, done_d;     // beats of the current row already issued
  logic [31-LW:0]       beat;
  logic [16:0]          rem, len, to_page;
  logic                 load, row_end;

  assign beat    = row_hbeat_i + (32 - LW)'(done_q);
  assign rem     = row_nh_i - done_q;
  assign to_page = 17'(PB) - 17'(beat[PBW-2:0]);

  always_comb begin
    len = rem;
    if (len > 17'(MaxBurst)) len = 17'(MaxBurst);
    if (len > to_page) len = to_page;
  end

  assign row_end     = len == rem;
  assign load        = row_valid_i && allow_i && !clr_i && (!ax_valid_q || ax_ready_i);
  assign row_ready_o = load && row_end;
  assign issue_o     = load;
  assign ax_valid_o  = ax_valid_q;
  assign ax_addr_o   = ax_addr_q;
  assign ax_len_o    = ax_len_q;
  assign ax_last_o   = ax_last_q;

  always_comb begin
    ax_valid_d = ax_valid_q;
    ax_addr_d  = ax_addr_q;
    ax_len_d   = ax_len_q;
    ax_last_d  = ax_last_q;
    done_d     = done_q;
    if (ax_ready_i) ax_valid_d = 1'b0;
    if (load) begin
      ax_valid_d = 1'b1;
      ax_addr_d  = {beat, {LW{1'b0}}};
      ax_len_d   = 8'(len - 17'd1);
      ax_last_d  = row_last_i && row_end;
      done_d     = row_end ? '0 : done_q + len;
    end
    if (clr_i) done_d = '0;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ax_valid_q <= 1'b0;
      ax_last_q  <= 1'b0;
      done_q     <= '0;
    end else begin
      ax_valid_q <= ax_valid_d;
      ax_last_q  <= ax_last_d;
      done_q     <= done_d;
    end
  end

  // Payload registers: not reset (only meaningful while ax_valid_q).
  always_ff @(posedge clk_i) begin
    ax_addr_q <= ax_addr_d;
    ax_len_q  <= ax_len_d;
  end

  // Assertions
  `TSL_ASSERT_INIT(ParamRange, (W > 0 && (W & (W - 1)) == 0) && W <= 4096 && MaxBurst >= 1 && MaxBurst <= 256,
                   "W a power of two up to 4096, MaxBurst 1..256")
  `TSL_ASSERT(AxHeld, ax_valid_o && !ax_ready_i |=> ax_valid_o && $stable(ax_addr_o) && $stable(ax_len_o),
              "the address request changed before its handshake")
  `TSL_ASSERT(AxBurstLen, ax_valid_o |-> 32'(ax_len_o) < MaxBurst, "a burst longer than MaxBurst beats")
  `TSL_ASSERT(Ax4KiB, ax_valid_o |-> 32'(ax_addr_o[11:LW]) + 32'(ax_len_o) < PB,
              "a burst crosses a 4 KiB boundary")
endmodule
