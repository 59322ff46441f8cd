// Instruction queue of one unit: a FIFO of Depth entries held in a 1R1W RAM (tsl_prim_ram_1r1w),
// so a 256-bit x 16 queue maps to block RAM instead of flops. data_o is the RAM's read register.
// Latency: an entry pushed in cycle t is at the head (valid_o) in cycle t+2; after a pop the next
// entry is at the head in the following cycle. Throughput: one push per cycle, one pop every
// cycle while more than one entry is queued. data_o holds steady while valid_o is high and no pop
// happens. ready_o and valid_o depend only on state (no combinational path). Depth >= 2.
module tsl_tc_queue #(
  parameter int Width = 256,  // entry bits
  parameter int Depth = 16    // entries, >= 2 (need not be a power of two)
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,
  input  logic                       clr_i,    // synchronous clear: drop every entry
  input  logic                       drop_i,   // the writer may withdraw valid_i (the push is dropped)
  input  logic                       valid_i,
  output logic                       ready_o,
  input  logic [Width-1:0]           data_i,
  output logic                       valid_o,
  input  logic                       ready_i,
  output logic [Width-1:0]           data_o,
  output logic [$clog2(Depth+1)-1:0] level_o
);
  `include "hw/rtl/tsl_assert.svh"

  localparam int Aw = $clog2(Depth);
  localparam int Lw = $clog2(Depth + 1);
  localparam int Rw = (Width + 7) / 8 * 8;  // RAM word: whole bytes (tsl_prim_ram_1r1w)

  logic [Aw-1:0] wr_q, wr_d, rd_q, rd_d, rd_next, raddr;
  logic [Lw-1:0] level_q, level_d;
  logic          head_q, head_d, push, pop, re;
  logic [Rw-1:0] ram_rdata;

  assign ready_o = level_q != Lw'(Depth);
  assign valid_o = head_q;
  assign level_o = level_q;
  assign push    = valid_i && ready_o;
  assign pop     = valid_o && ready_i;
  assign rd_next = (rd_q == Aw'(Depth - 1)) ? '0 : rd_q + 1'b1;

  always_comb begin
    wr_d    = push ? ((wr_q == Aw'(Depth - 1)) ? '0 : wr_q + 1'b1) : wr_q;
    rd_d    = rd_q;
    level_d = level_q + Lw'(push) - Lw'(pop);
    head_d  = head_q;
    re      = 1'b0;
    raddr   = rd_q;
    if (pop) begin
      // The next entry was written in an earlier cycle when at least two are queued.
      rd_d   = rd_next;
      raddr  = rd_next;
      re     = level_q >= Lw'(2);
      head_d = re;
    end else if (!head_q && level_q != '0) begin
      re     = 1'b1;
      head_d = 1'b1;
    end
    if (clr_i) begin
      wr_d    = '0;
      rd_d    = '0;
      level_d = '0;
      head_d  = 1'b0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_q    <= '0;
      rd_q    <= '0;
      level_q <= '0;
      head_q  <= 1'b0;
    end else begin
      wr_q    <= wr_d;
      rd_q    <= rd_d;
      level_q <= level_d;
      head_q  <= head_d;
    end
  end

  tsl_prim_ram_1r1w #(
    .Depth(1 << Aw),
    .Width(Rw)
  ) u_ram (
    .clk_i,
    .we_i   (push),
    .waddr_i(wr_q),
    .wdata_i(Rw'(data_i)),
    .be_i   ({(Rw / 8){1'b1}}),
    .re_i   (re),
    .raddr_i(raddr),
    .rdata_o(ram_rdata)
  );
  assign data_o = ram_rdata[Width-1:0];
  if (Rw > Width) begin : g_pad
    logic unused_pad;
    assign unused_pad = ^ram_rdata[Rw-1:Width];
  end

  // Assertions
  `TSL_ASSERT_INIT(DepthRange, Depth >= 2 && Width >= 1, "Depth must be at least 2")
  `TSL_ASSERT(InValidHeld, valid_i && !ready_o && !clr_i |=> valid_i || clr_i || drop_i,
              "valid_i fell before ready_o (a push into a full queue is lost)")
  `TSL_ASSERT(InDataStable, valid_i && !ready_o && !clr_i |=> clr_i || drop_i || $stable(data_i),
              "data_i changed while valid_i waited for ready_o")
  `TSL_ASSERT(OutDataStable, valid_o && !ready_i && !clr_i |=> clr_i || (valid_o && $stable(data_o)),
              "the head entry changed or vanished before it was popped")
  `TSL_ASSERT(HeadOnlyWhenQueued, valid_o |-> level_q != '0, "head valid with an empty queue (underflow)")
  `TSL_ASSERT(LevelBound, level_q <= Lw'(Depth), "level above Depth (overflow)")
endmodule
