// The ICI router of a chip (docs/pod.md, Routing): Ports link ports (2 for a ring: +X, -X; 4 for a
// torus: +X, -X, +Y, -Y) and the chip's own port (index Ports) on both sides: packets in from the
// links' receivers and from the chip, out to the links' senders and to the chip. A packet goes
// where its header's destination says, by dimension order: along X until DEST_X is this chip's,
// the shorter way round (+X on a tie), then along Y the same way, then to the chip.
// An output takes one packet at a time, from its first flit to its last (pkt_last); a free output
// goes to the inputs whose packet starts there in round-robin order, in the cycle they ask, so
// packets flow back to back. Data and valid are combinational from input to output.
module tsl_ici_router #(
  parameter int Bytes = tsl_pkg::PARAM_ICI_LINK_BYTES_PER_CYCLE,
  parameter int Ports = 4,                      // 2 (a ring) or 4 (a torus)
  localparam int Io   = Ports + 1               // with the chip's own port
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,
  input  logic [3:0]              my_x_i,       // this chip's coordinates and the pod's extents
  input  logic [3:0]              my_y_i,
  input  logic [4:0]              dim_x_i,
  input  logic [4:0]              dim_y_i,
  input  logic [Io-1:0]           in_valid_i,
  output logic [Io-1:0]           in_ready_o,
  input  logic [Io*8*Bytes-1:0]   in_data_i,
  input  logic [Io-1:0]           in_last_i,
  output logic [Io-1:0]           out_valid_o,
  input  logic [Io-1:0]           out_ready_i,
  output logic [Io*8*Bytes-1:0]   out_data_o,
  output logic [Io-1:0]           out_last_o
);
  `include "hw/rtl/tsl_assert.svh"

  localparam int Iw = $clog2(Io);
  localparam int Xlsb = tsl_pkg::ICI_HDR_DEST_X_LSB, Ylsb = tsl_pkg::ICI_HDR_DEST_Y_LSB;

  logic [Io-1:0]          head_q;            // the input's next flit starts a packet
  logic [Io-1:0]          busy_q;            // the output carries a packet
  logic [Iw-1:0]          owner_q [Io];      // ... of this input
  logic [Iw-1:0]          last_q  [Io];      // the input it took last (round robin)
  logic [Iw-1:0]          route   [Io];      // where the packet starting at the input goes
  logic [Iw-1:0]          grant   [Io];
  logic [Io-1:0]          active, moved;
  logic [Iw:0]            c;                 // a candidate input, round robin

  // The output port of a packet for (x, y) from here.
`include "hw/rtl/ici/tsl_ici_route.svh"
  function automatic logic [Iw-1:0] route_of(input logic [3:0] x, input logic [3:0] y);
    route_of = Iw'(tsl_ici_route(x, y, my_x_i, my_y_i, dim_x_i, dim_y_i, 1'b0, Ports));
  endfunction

  always_comb begin
    out_valid_o = '0;
    out_data_o  = '0;
    out_last_o  = '0;
    c           = '0;
    for (int i = 0; i < Io; i++)
      route[i] = route_of(in_data_i[i*8*Bytes+Xlsb +: 4], in_data_i[i*8*Bytes+Ylsb +: 4]);
    for (int o = 0; o < Io; o++) begin
      grant[o]  = owner_q[o];
      active[o] = busy_q[o];
      if (!busy_q[o])   // the first asking input after the last one taken
        for (int k = Io; k >= 1; k--) begin
          c = (Iw + 1)'(last_q[o]) + (Iw + 1)'(k);
          if (c >= (Iw + 1)'(Io))
            c = c - (Iw + 1)'(Io);
          if (in_valid_i[c[Iw-1:0]] && head_q[c[Iw-1:0]] && route[c[Iw-1:0]] == Iw'(o)) begin
            grant[o]  = c[Iw-1:0];
            active[o] = 1'b1;
          end
        end
      out_valid_o[o] = active[o] && in_valid_i[grant[o]];
      out_data_o[o*8*Bytes +: 8*Bytes] = in_data_i[grant[o]*8*Bytes +: 8*Bytes];
      out_last_o[o]  = in_last_i[grant[o]];
    end
  end

  // The handshakes, apart: an output's valid never depends on its ready.
  always_comb begin
    in_ready_o = '0;
    moved      = '0;
    for (int o = 0; o < Io; o++) begin
      moved[o] = out_valid_o[o] && out_ready_i[o];
      if (active[o] && out_ready_i[o])
        in_ready_o[grant[o]] = 1'b1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      head_q <= '1;
      busy_q <= '0;
      for (int o = 0; o < Io; o++) begin
        owner_q[o] <= '0;
        last_q[o]  <= Iw'(Io - 1);
      end
    end else begin
      for (int o = 0; o < Io; o++)
        if (moved[o]) begin
          head_q[grant[o]] <= out_last_o[o];
          busy_q[o]        <= !out_last_o[o];
          owner_q[o]       <= grant[o];
          if (!busy_q[o])
            last_q[o] <= grant[o];
        end
    end
  end

  `TSL_ASSERT_INIT(PortsValid, Ports == 2 || Ports == 4, "Ports must be 2 (a ring) or 4 (a torus)")
  `TSL_ASSERT(InHeld, in_valid_i[0] && !in_ready_o[0] |=> in_valid_i[0], "a flit withdrawn before it was taken")
  `TSL_ASSERT(OnTheRing, Ports == 4 || dim_y_i == 5'd1, "a ring's pod is one row")
endmodule
