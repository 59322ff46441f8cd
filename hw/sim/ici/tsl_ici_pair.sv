// Test top of tests/ici: the two ends of one ICI link, the link between them left to the harness
// (hw/sim/ici/ici_main.cpp), which delays the flits one way and the credits the other.
module tsl_ici_pair #(
  parameter int Bytes = tsl_pkg::PARAM_ICI_LINK_BYTES_PER_CYCLE,
  parameter int Depth = tsl_pkg::PARAM_ICI_RX_FLITS
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,
  input  logic                       in_valid_i,
  output logic                       in_ready_o,
  input  logic [8*Bytes-1:0]         in_data_i,
  input  logic                       in_last_i,
  output logic [1:0]                 tx_kind_o,
  output logic [8*Bytes-1:0]         tx_data_o,
  input  logic [$clog2(Depth+1)-1:0] tx_credit_i,
  input  logic [31:0]                tx_limit_i,   // the sender's bound on a link without credits
  output logic                       tx_down_o,
  input  logic [1:0]                 rx_kind_i,
  input  logic [8*Bytes-1:0]         rx_data_i,
  output logic [$clog2(Depth+1)-1:0] rx_credit_o,
  output logic                       out_valid_o,
  input  logic                       out_ready_i,
  output logic [8*Bytes-1:0]         out_data_o,
  output logic                       out_last_o,
  output logic                       crc_err_o
);
  tsl_ici_tx #(.Bytes(Bytes), .Credits(Depth)) u_tx (
    .clk_i, .rst_ni, .pkt_valid_i(in_valid_i), .pkt_ready_o(in_ready_o), .pkt_data_i(in_data_i),
    .pkt_last_i(in_last_i), .credit_i(tx_credit_i), .limit_i(tx_limit_i), .down_o(tx_down_o), .link_kind_o(tx_kind_o),
    .link_data_o(tx_data_o));
  tsl_ici_rx #(.Bytes(Bytes), .Depth(Depth)) u_rx (
    .clk_i, .rst_ni, .link_kind_i(rx_kind_i), .link_data_i(rx_data_i), .pkt_valid_o(out_valid_o),
    .pkt_ready_i(out_ready_i), .pkt_data_o(out_data_o), .pkt_last_o(out_last_o), .credit_o(rx_credit_o),
    .crc_err_o);
endmodule
