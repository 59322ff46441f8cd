// On-chip stand-in for HBM on the FPGA boards: an AXI4 slave (no IDs, INCR bursts of full-width
// beats, AxSIZE = log2(DataW/8)) on one tsl_prim_ram of Bytes bytes (block RAM / SPRAM). Addresses
// wrap modulo Bytes (tsl_soc range-checks every master against HbmBytes); responses are OKAY.
// One transaction at a time, writes first when AW and AR arrive together. Latency: AWREADY is high
// while idle, ARREADY while idle without AWVALID (its only combinational input); a write takes one
// beat per cycle then B; a read returns one beat every two cycles (RAM read, then R held until
// RREADY). No valid depends on a ready.
`include "hw/rtl/tsl_axi.svh"
module tsl_fpga_hbm #(
  parameter int DataW = 64,     // AXI data bits (the SoC uses 16N), a multiple of 32
  parameter int Bytes = 65536   // memory size in bytes (power of two)
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  `TSL_AXI_S_PORTS(s_axi_, DataW)
);
  localparam int Depth = Bytes / (DataW / 8);
  localparam int Aw    = $clog2(Depth);
  localparam int Ow    = $clog2(DataW / 8);  // byte-offset bits of one beat

  // FSM states (plain constants: Icarus 11 mis-types enum assignments from ?:).
  localparam logic [2:0] StIdle = 3'd0, StW = 3'd1, StB = 3'd2, StRdReq = 3'd3, StR = 3'd4;
  logic [2:0]    state_q, state_d;
  logic [Aw-1:0] addr_q, addr_d;
  logic [7:0]    len_q, len_d;     // beats left after the current one

  logic          ram_req, ram_we;
  tsl_prim_ram #(.Depth(Depth), .Width(DataW)) u_ram (
    .clk_i,
    .req_i   (ram_req),
    .we_i    (ram_we),
    .addr_i  (addr_q),
    .wdata_i (s_axi_wdata),
    .be_i    (s_axi_wstrb),
    .rdata_o (s_axi_rdata)
  );

  assign s_axi_awready = state_q == StIdle;
  assign s_axi_arready = state_q == StIdle && s_axi_arvalid && !s_axi_awvalid;
  assign s_axi_wready  = state_q == StW;
  assign s_axi_bvalid  = state_q == StB;
  assign s_axi_bresp   = 2'b00;
  assign s_axi_rvalid  = state_q == StR;
  assign s_axi_rresp   = 2'b00;
  assign s_axi_rlast   = len_q == 8'd0;
  assign ram_we        = state_q == StW;
  assign ram_req       = (state_q == StW && s_axi_wvalid) || state_q == StRdReq;

  always_comb begin
    state_d = state_q;
    addr_d  = addr_q;
    len_d   = len_q;
    unique case (state_q)
      StIdle: begin
        if (s_axi_awvalid) begin
          addr_d  = s_axi_awaddr[Ow +: Aw];
          len_d   = s_axi_awlen;
          state_d = StW;
        end else if (s_axi_arvalid) begin
          addr_d  = s_axi_araddr[Ow +: Aw];
          len_d   = s_axi_arlen;
          state_d = StRdReq;
        end
      end
      StW: if (s_axi_wvalid) begin
        addr_d = addr_q + Aw'(1);
        len_d  = len_q - 8'd1;
        if (s_axi_wlast) state_d = StB;
      end
      StB: if (s_axi_bready) state_d = StIdle;
      StRdReq: state_d = StR;
      StR: if (s_axi_rready) begin
        addr_d  = addr_q + Aw'(1);
        len_d   = len_q - 8'd1;
        state_d = (len_q == 8'd0) ? StIdle : StRdReq;
      end
      default: state_d = StIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      addr_q  <= '0;
      len_q   <= '0;
    end else begin
      state_q <= state_d;
      addr_q  <= addr_d;
      len_q   <= len_d;
    end
  end

  // AxSIZE is always the full width and AxBURST INCR in the SoC; the sizes and bursts are not checked.
  logic unused;
  assign unused = ^{s_axi_awaddr, s_axi_awsize, s_axi_awburst, s_axi_araddr, s_axi_arsize, s_axi_arburst};
endmodule
