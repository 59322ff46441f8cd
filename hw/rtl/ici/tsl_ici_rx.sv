// The receiving end of an ICI link (docs/pod.md, The link): flits in, checked packets out. DATA and
// LAST flits go into a buffer of Depth flits (the sender's credits); at the CRC flit the packet's
// CRC-32 is compared, and the packet is released to pkt_* whole if it matches, or dropped (its
// flits freed at once, crc_err_o high for a cycle) if not. So nothing of a corrupted packet leaves.
// The buffer is a block RAM with a registered read; credit_o returns, each cycle, one credit per
// flit that left it (read towards the output, or dropped).
// Latency: a packet's first flit can leave 3 cycles after its CRC flit arrived.
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
  localparam int Ww = 8 * Bytes + 8;     // a stored flit: its data, and a byte whose bit 0 is `last`

  logic [Aw:0]        wr_q, commit_q, rd_q; // one bit more than the address: full and empty differ
  logic [31:0]        crc_q, crc_next, crc_sent;
  logic               body, check, good, pop, fetch, advance;
  logic               ram_v_q, out_v_q;     // the RAM's read register, then the output register, hold a flit
  logic [Ww-1:0]      ram_rdata, out_q;

  tsl_ici_crc #(.Bytes(Bytes)) u_crc (.crc_i(crc_q), .data_i(link_data_i), .crc_o(crc_next));

  // The buffer: a block RAM (registered read); a flit goes to the output register through its read
  // register, so the buffer's slot is free (its credit returned) once it has been read.
  tsl_prim_ram_1r1w #(.Depth(Depth), .Width(Ww)) u_buf (
    .clk_i, .we_i(body), .waddr_i(wr_q[Aw-1:0]),
    .wdata_i({7'd0, link_kind_i == tsl_pkg::ICI_FLIT_LAST, link_data_i}), .be_i({(Ww / 8){1'b1}}),
    .re_i(fetch), .raddr_i(rd_q[Aw-1:0]), .rdata_o(ram_rdata));

  assign body        = link_kind_i == tsl_pkg::ICI_FLIT_DATA || link_kind_i == tsl_pkg::ICI_FLIT_LAST;
  assign check       = link_kind_i == tsl_pkg::ICI_FLIT_CRC;
  assign crc_sent    = ~crc_q;   // what the sender puts in the CRC flit
  assign good        = link_data_i == (8 * Bytes)'(crc_sent);
  assign pkt_valid_o = out_v_q;
  assign pkt_data_o  = out_q[8*Bytes-1:0];
  assign pkt_last_o  = out_q[8*Bytes];
  assign pop         = out_v_q && pkt_ready_i;
  assign advance     = ram_v_q && (!out_v_q || pop);                   // read register -> output
  assign fetch       = rd_q != commit_q && (!ram_v_q || advance);      // buffer -> read register
  assign credit_o    = Cw'(fetch) + (check && !good ? Cw'(wr_q - commit_q) : '0);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_q      <= '0;
      commit_q  <= '0;
      rd_q      <= '0;
      crc_q     <= '1;
      crc_err_o <= 1'b0;
      ram_v_q   <= 1'b0;
      out_v_q   <= 1'b0;
      out_q     <= '0;
    end else begin
      crc_err_o <= check && !good;
      rd_q      <= rd_q + (Aw + 1)'(fetch);
      ram_v_q   <= fetch || (ram_v_q && !advance);
      if (advance)
        out_q <= ram_rdata;
      out_v_q   <= advance || (out_v_q && !pop);
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
