// Synchronous FIFO with valid/ready on both sides (AXI-Stream rules: data_o holds until popped).
// Latency: an entry pushed in cycle t can be popped in cycle t+1 (no fall-through). Full
// throughput: one push and one pop per cycle. ready_o depends only on the fill level (no
// combinational path from ready_i). level_o counts entries. Data registers are not reset.
module tsl_prim_fifo #(
  parameter int Width = 32,  // payload bits
  parameter int Depth = 4    // entries, >= 2 (need not be a power of two)
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  input  logic                   clr_i,    // synchronous clear: drop every entry
  input  logic                   valid_i,
  output logic                   ready_o,
  input  logic [Width-1:0]       data_i,
  output logic                   valid_o,
  input  logic                   ready_i,
  output logic [Width-1:0]       data_o,
  output logic [$clog2(Depth+1)-1:0] level_o
);
  `include "hw/rtl/tsl_assert.svh"

  localparam int Aw = $clog2(Depth);
  localparam int Lw = $clog2(Depth + 1);

  logic [Width-1:0] mem_q [Depth];
  logic [Aw-1:0]    wr_q, wr_d, rd_q, rd_d;
  logic [Lw-1:0]    level_q, level_d;
  logic             push, pop;

  assign ready_o = level_q != Lw'(Depth);
  assign valid_o = level_q != '0;
  assign data_o  = mem_q[rd_q];
  assign level_o = level_q;
  assign push    = valid_i && ready_o;
  assign pop     = valid_o && ready_i;

  always_comb begin
    wr_d    = wr_q;
    rd_d    = rd_q;
    level_d = level_q;
    if (push) wr_d = (wr_q == Aw'(Depth - 1)) ? '0 : wr_q + 1'b1;
    if (pop)  rd_d = (rd_q == Aw'(Depth - 1)) ? '0 : rd_q + 1'b1;
    level_d = level_q + Lw'(push) - Lw'(pop);
    if (clr_i) begin
      wr_d    = '0;
      rd_d    = '0;
      level_d = '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_q    <= '0;
      rd_q    <= '0;
      level_q <= '0;
    end else begin
      wr_q    <= wr_d;
      rd_q    <= rd_d;
      level_q <= level_d;
    end
  end

  always_ff @(posedge clk_i) begin
    if (push) mem_q[wr_q] <= data_i;
  end

  // Assertions
  `TSL_ASSERT_INIT(DepthRange, Depth >= 2 && Width >= 1, "Depth must be at least 2")
  `TSL_ASSERT(InValidHeld, valid_i && !ready_o && !clr_i |=> valid_i || clr_i,
              "valid_i fell before ready_o (a push into a full FIFO is lost)")
  `TSL_ASSERT(InDataStable, valid_i && !ready_o && !clr_i |=> clr_i || $stable(data_i),
              "data_i changed while valid_i waited for ready_o")
  `TSL_ASSERT(LevelBound, level_q <= Lw'(Depth), "level above Depth (overflow)")
endmodule
