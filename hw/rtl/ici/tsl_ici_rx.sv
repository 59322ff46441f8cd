// The receiving end of an ICI link (docs/pod.md, The link): flits in, checked packets out. DATA and
// LAST flits go into a buffer of Depth flits (the sender's credits); at the CRC flit the packet's
// CRC-32 is compared, and the packet is released to pkt_* whole if it matches, or dropped (its
// flits freed at once, crc_err_o high for a cycle) if not. So nothing of a corrupted packet leaves.
// credit_o returns, each cycle, one credit per flit that left the buffer (popped or dropped).
// Latency: a packet's first flit can leave the cycle after its CRC flit arrived.
module tsl_ici_rx #(
  parameter int Bytes = tsl_pkg::PARAM_ICI_LINK_BYTES_PER_CYCLE,
  parameter int Depth = tsl_pkg::PARAM_ICI_RX_FLITS     // a power of two
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,
  input  logic [1:0]                 link_kind_i,       // tsl_pkg::ici_flit_e
  input  logic [8*Bytes-1:0]         link_data_i,
  output logic                       pkt_valid_o,
  input  logic                       pkt_ready_i,
  output logic [8*Bytes-1:0]         pkt_data_o,
  output logic                       pkt_last_o,
  output logic [$clog2(Depth+1)-1:0] credit_o,
  output logic                       crc_err_o
);
  `include "hw/rtl/tsl_assert.svh"

  localparam int Aw = $clog2(Depth);
  localparam int Cw = $clog2(Depth + 1);

  logic [8*Bytes:0]   mem_q [Depth];       // {last, data}
  logic [Aw:0]        wr_q, commit_q, rd_q; // one bit more than the address: full and empty differ
  logic [31:0]        crc_q, crc_next, crc_sent;
  logic               body, check, good, pop;

  tsl_ici_crc #(.Bytes(Bytes)) u_crc (.crc_i(crc_q), .data_i(link_data_i), .crc_o(crc_next));

  assign body        = link_kind_i == tsl_pkg::ICI_FLIT_DATA || link_kind_i == tsl_pkg::ICI_FLIT_LAST;
  assign check       = link_kind_i == tsl_pkg::ICI_FLIT_CRC;
  assign crc_sent    = ~crc_q;   // what the sender puts in the CRC flit
  assign good        = link_data_i == (8 * Bytes)'(crc_sent);
  assign pkt_valid_o = rd_q != commit_q;
  assign {pkt_last_o, pkt_data_o} = mem_q[rd_q[Aw-1:0]];
  assign pop         = pkt_valid_o && pkt_ready_i;
  assign credit_o    = Cw'(pop) + (check && !good ? Cw'(wr_q - commit_q) : '0);

  always_ff @(posedge clk_i) begin
    if (body)
      mem_q[wr_q[Aw-1:0]] <= {link_kind_i == tsl_pkg::ICI_FLIT_LAST, link_data_i};
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_q      <= '0;
      commit_q  <= '0;
      rd_q      <= '0;
      crc_q     <= '1;
      crc_err_o <= 1'b0;
    end else begin
      crc_err_o <= check && !good;
      rd_q      <= rd_q + (Aw + 1)'(pop);
      if (body) begin
        wr_q  <= wr_q + 1'b1;
        crc_q <= crc_next;
      end else if (check) begin
        crc_q <= '1;
        if (good)
          commit_q <= wr_q;
        else
          wr_q <= commit_q;
      end
    end
  end

  `TSL_ASSERT_INIT(DepthPow2, Depth >= 2 && (Depth & (Depth - 1)) == 0, "Depth must be a power of two")
  `TSL_ASSERT(NoOverflow, !body || (Aw + 1)'(wr_q - rd_q) < (Aw + 1)'(Depth),
              "a flit arrived without a credit: the buffer is full")
  `TSL_ASSERT(PacketBound, (Aw + 1)'(wr_q - commit_q) <= (Aw + 1)'(tsl_pkg::PARAM_ICI_PACKET_FLITS),
              "a packet longer than ICI_PACKET_FLITS")
endmodule
