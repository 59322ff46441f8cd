// The sending end of an ICI link (docs/pod.md, The link): packets in, flits out, one a cycle.
// A packet is 1..ICI_PACKET_FLITS flits of Bytes bytes (pkt_last_i on its last); the link carries
// each as DATA or LAST, then the packet's CRC-32 as a CRC flit. Flow control is credit-based: the
// sender starts with Credits (the receiver's buffer, in flits), spends one per DATA or LAST flit and
// gets back what the receiver returns on credit_i (a count a cycle, from tsl_ici_rx's credit_o,
// after the link's latency). A flit leaves only with a credit in hand, so the receiver's buffer never
// overflows. Latency: a flit accepted in cycle t is on the link in cycle t+1.
// A link that returns no credit while a flit waits for one for limit_i cycles (1 if 0; HOSTIF
// ICI_WAIT) is down (down_o) until rst_ni: from then on the sender takes every flit offered and
// puts nothing on the link, so that what was sent that way is lost, but no send engine, and no
// packet passing through, waits for it forever (docs/pod.md, Faults).
module tsl_ici_tx #(
  parameter int Bytes   = tsl_pkg::PARAM_ICI_LINK_BYTES_PER_CYCLE,
  parameter int Credits = tsl_pkg::PARAM_ICI_RX_FLITS
) (
  input  logic                         clk_i,
  input  logic                         rst_ni,
  input  logic                         pkt_valid_i,
  output logic                         pkt_ready_o,
  input  logic [8*Bytes-1:0]           pkt_data_i,
  input  logic                         pkt_last_i,
  input  logic [$clog2(Credits+1)-1:0] credit_i,
  input  logic [31:0]                  limit_i,       // cycles without a credit before the link is down
  output logic                         down_o,
  output logic [1:0]                   link_kind_o,   // tsl_pkg::ici_flit_e
  output logic [8*Bytes-1:0]           link_data_o
);
  `include "hw/rtl/tsl_assert.svh"

  localparam int Cw = $clog2(Credits + 1);

  logic [Cw-1:0]        credits_q;
  logic [31:0]          crc_q, crc_next, crc_sent;
  logic                 crc_due_q;     // the packet's last flit went: its CRC goes next
  logic [1:0]           kind_q;
  logic [8*Bytes-1:0]   data_q;
  logic                 take;
  logic                 down_q, starved;
  logic [31:0]          starve_q, limit;   // cycles a flit has waited for a credit; the bound

  tsl_ici_crc #(.Bytes(Bytes)) u_crc (.crc_i(crc_q), .data_i(pkt_data_i), .crc_o(crc_next));

  assign crc_sent    = ~crc_q;
  assign pkt_ready_o = down_q || (!crc_due_q && credits_q != '0);
  assign take        = pkt_valid_i && pkt_ready_o && !down_q;
  assign starved     = pkt_valid_i && !crc_due_q && credits_q == '0 && credit_i == '0;
  assign limit       = limit_i == '0 ? 32'd1 : limit_i;
  assign down_o      = down_q;
  assign link_kind_o = kind_q;
  assign link_data_o = data_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      credits_q <= Cw'(Credits);
      crc_q     <= '1;
      crc_due_q <= 1'b0;
      kind_q    <= tsl_pkg::ICI_FLIT_IDLE;
      data_q    <= '0;
      down_q    <= 1'b0;
      starve_q  <= '0;
    end else begin
      credits_q <= credits_q - Cw'(take) + credit_i;
      starve_q  <= starved && !down_q ? starve_q + 32'(starve_q < limit) : '0;
      if (starve_q >= limit) down_q <= 1'b1;
      if (down_q) begin
        kind_q    <= tsl_pkg::ICI_FLIT_IDLE;
        data_q    <= '0;
      end else if (crc_due_q) begin
        kind_q    <= tsl_pkg::ICI_FLIT_CRC;
        data_q    <= (8 * Bytes)'(crc_sent);
        crc_q     <= '1;
        crc_due_q <= 1'b0;
      end else if (take) begin
        kind_q    <= pkt_last_i ? tsl_pkg::ICI_FLIT_LAST : tsl_pkg::ICI_FLIT_DATA;
        data_q    <= pkt_data_i;
        crc_q     <= crc_next;
        crc_due_q <= pkt_last_i;
      end else begin
        kind_q    <= tsl_pkg::ICI_FLIT_IDLE;
        data_q    <= '0;
      end
    end
  end

  `TSL_ASSERT_INIT(BytesRange, Bytes >= 4 && Credits >= tsl_pkg::PARAM_ICI_PACKET_FLITS,
                   "Bytes must hold the CRC, Credits a whole packet")
  `TSL_ASSERT(CreditBound, down_q || 33'(credits_q) + 33'(credit_i) <= 33'(Credits), "more credits returned than given")
  `TSL_ASSERT(PacketHeld, pkt_valid_i && !pkt_ready_o |=> pkt_valid_i, "a packet's flit withdrawn before it was taken")
endmodule
