// On-chip HBM for a board with the lite core (the iCEBreaker's SPRAM): one tsl_prim_ram of Bytes
// bytes behind two ports, the core's HBM word port (tsl_lite_core) and a host bus port (the UART
// bridge's BAR1 contract: request held until a one-cycle ready with rdata). One access per cycle,
// the core's first; each is answered the next cycle (rsp_o with OKAY, or bus_ready_o). A host
// request waits while the core asks every cycle, which it never does for two cycles running.
module tsl_lite_hbm #(
  parameter int Bytes = 65536,   // memory size (power of two)
  localparam int Aw = $clog2(Bytes)
) (
  input  logic          clk_i,
  input  logic          rst_ni,
  // core word port
  input  logic          req_i,
  input  logic          we_i,
  input  logic [Aw-1:2] addr_i,       // word address
  input  logic [31:0]   wdata_i,
  input  logic [3:0]    be_i,
  output logic          gnt_o,
  output logic          rsp_o,
  output logic [31:0]   rdata_o,
  output logic [1:0]    resp_o,
  // host bus (offsets below Bytes; the board decodes)
  input  logic          bus_valid_i,
  input  logic [Aw-1:2] bus_addr_i,
  input  logic [31:0]   bus_wdata_i,
  input  logic [3:0]    bus_wstrb_i,
  output logic          bus_ready_o,
  output logic [31:0]   bus_rdata_o
);
  logic rsp_q, bus_q, bus_go;
  assign gnt_o  = req_i;
  assign bus_go = bus_valid_i && !req_i && !bus_q;   // not again in the cycle it is answered

  tsl_prim_ram #(.Depth(Bytes / 4), .Width(32)) u_ram (
    .clk_i,
    .req_i  (req_i || bus_go),
    .we_i   (req_i ? we_i : bus_wstrb_i != 4'd0),
    .addr_i (req_i ? addr_i : bus_addr_i),
    .wdata_i(req_i ? wdata_i : bus_wdata_i),
    .be_i   (req_i ? be_i : bus_wstrb_i),
    .rdata_o(rdata_o)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rsp_q <= 1'b0;
      bus_q <= 1'b0;
    end else begin
      rsp_q <= req_i;
      bus_q <= bus_go;
    end
  end
  assign rsp_o       = rsp_q;
  assign resp_o      = 2'b00;
  assign bus_ready_o = bus_q;
  assign bus_rdata_o = rdata_o;
endmodule
