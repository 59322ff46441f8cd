// DMA byte aligner: turns the source beats of each row (the row's bytes start at byte soff of
// its first beat) into destination beats (starting at byte doff), with byte enables that select
// exactly the row's bytes. Destination beat k is a W-byte window of {source beat, previous source
// beat}, at a byte shift fixed per row; a row may need one extra (flush) output after its last
// input. Used in both directions: LOAD (HBM -> local) and STORE (local -> HBM).
// Throughput: one input or one flush per cycle, so a row costs max(ns, nd) cycles, plus one when
// the source starts at a larger offset and ns = nd. Latency: output registered (1 cycle).
module tsl_dma_align #(
  parameter int W  = 32,  // beat bytes, a power of two
  parameter int IW = 13   // destination beat index bits
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 clr_i,       // drop the current row and the output register
  // row descriptors
  input  logic                 d_valid_i,
  output logic                 d_ready_o,   // pops the descriptor in the row's last step
  input  logic [$clog2(W)-1:0] d_soff_i,    // byte offset of the row in its first source beat
  input  logic [16:0]          d_ns_i,      // source beats
  input  logic [$clog2(W)-1:0] d_doff_i,    // byte offset of the row in its first destination beat
  input  logic [$clog2(W)-1:0] d_dend_i,    // byte offset of the row's last byte in its last beat
  input  logic [16:0]          d_nd_i,      // destination beats
  input  logic [IW-1:0]        d_dbase_i,   // destination beat index of the first beat
  input  logic                 d_last_i,    // the instruction's last row
  // source beats
  input  logic                 s_valid_i,
  output logic                 s_ready_o,
  input  logic [8*W-1:0]       s_data_i,
  // destination beats
  output logic                 o_valid_o,
  input  logic                 o_ready_i,
  output logic [8*W-1:0]       o_data_o,
  output logic [W-1:0]         o_be_o,
  output logic [IW-1:0]        o_idx_o,
  output logic                 o_last_o     // the instruction's last destination beat
);
  localparam int LW = $clog2(W);

  logic [8*W-1:0]  prev_q, win;
  logic [16*W-1:0] cat, shifted;
  logic [16:0]     icnt_q, icnt_d, ocnt_q, ocnt_d;
  logic            lead;                    // source offset larger: destination beat k needs source k+1
  logic [LW:0]     shift;                   // 1..W bytes
  logic            need_in, produce, step, oready;
  logic [W-1:0]    be;
  logic            o_valid_q, o_valid_d, o_last_q, o_last_d;
  logic [8*W-1:0]  o_data_q;
  logic [W-1:0]    o_be_q;
  logic [IW-1:0]   o_idx_q;

  assign lead  = d_soff_i > d_doff_i;
  assign shift = lead ? (LW + 1)'(d_soff_i) - (LW + 1)'(d_doff_i)
                      : (LW + 1)'(W) + (LW + 1)'(d_soff_i) - (LW + 1)'(d_doff_i);
  assign cat   = {s_data_i, prev_q};
  assign shifted = cat >> {shift, 3'b000};
  assign win     = shifted[8*W-1:0];
  logic unused_ok;
  assign unused_ok = ^shifted[16*W-1:8*W];

  assign need_in = icnt_q != d_ns_i;
  assign produce = need_in ? !(lead && icnt_q == '0) : 1'b1;
  assign oready  = !o_valid_q || o_ready_i;
  assign step    = d_valid_i && (!need_in || s_valid_i) && (!produce || oready) && !clr_i;
  assign s_ready_o = d_valid_i && need_in && (!produce || oready) && !clr_i;

  // Byte enables of destination beat ocnt: from doff in the first beat, up to dend in the last.
  always_comb begin
    for (int b = 0; b < W; b++) begin
      be[b] = 1'b1;
      if (ocnt_q == '0 && LW'(b) < d_doff_i) be[b] = 1'b0;
      if (ocnt_q == d_nd_i - 17'd1 && LW'(b) > d_dend_i) be[b] = 1'b0;
    end
  end

  always_comb begin
    icnt_d    = icnt_q;
    ocnt_d    = ocnt_q;
    o_valid_d = o_valid_q && !o_ready_i;
    o_last_d  = o_last_q;
    d_ready_o = 1'b0;
    if (step) begin
      if (need_in) icnt_d = icnt_q + 17'd1;
      if (produce) begin
        ocnt_d    = ocnt_q + 17'd1;
        o_valid_d = 1'b1;
        o_last_d  = d_last_i && ocnt_q == d_nd_i - 17'd1;
      end
      if (icnt_d == d_ns_i && ocnt_d == d_nd_i) begin
        d_ready_o = 1'b1;
        icnt_d    = '0;
        ocnt_d    = '0;
      end
    end
    if (clr_i) begin
      icnt_d    = '0;
      ocnt_d    = '0;
      o_valid_d = 1'b0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      icnt_q    <= '0;
      ocnt_q    <= '0;
      o_valid_q <= 1'b0;
      o_last_q  <= 1'b0;
    end else begin
      icnt_q    <= icnt_d;
      ocnt_q    <= ocnt_d;
      o_valid_q <= o_valid_d;
      o_last_q  <= o_last_d;
    end
  end

  // Datapath registers: not reset.
  always_ff @(posedge clk_i) begin
    if (step && need_in) prev_q <= s_data_i;
    if (step && produce) begin
      o_data_q <= win;
      o_be_q   <= be;
      o_idx_q  <= d_dbase_i + IW'(ocnt_q);
    end
  end

  assign o_valid_o = o_valid_q;
  assign o_data_o  = o_data_q;
  assign o_be_o    = o_be_q;
  assign o_idx_o   = o_idx_q;
  assign o_last_o  = o_last_q;
endmodule
