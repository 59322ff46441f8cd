// Test top of the ICI packetizer and ejector (hw/sim/ici/pe_main.cpp): tsl_ici_pkt's packets go
// straight into stream 0 of tsl_ici_eject (the flits shown on pkt_*_o as they pass), stream 1 is the
// harness's own packets (in1_*), the other streams are idle, and the ejector's AXI port is the
// harness's HBM, its local port the harness's VMEM (both of HbmBytes; ACC of as much, unused).
`include "hw/rtl/tsl_axi.svh"
module tsl_ici_pe #(
  parameter int N        = tsl_pkg::PARAM_N,  // beats of W = 2N bytes
  parameter int Ports    = 4,                 // the ejector's streams, >= 2
  parameter int HbmBytes = 65536              // the harness's memory
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  aw_valid_i,
  output logic                  aw_ready_o,
  input  logic [31:0]           aw_addr_i,
  input  logic [7:0]            aw_len_i,
  input  logic                  aw_incr_i,
  input  logic [3:0]            aw_dest_x_i,
  input  logic [3:0]            aw_dest_y_i,
  input  logic [3:0]            aw_sem_i,
  input  logic                  aw_local_i,
  input  logic                  w_valid_i,
  output logic                  w_ready_o,
  input  logic [16*N-1:0]       w_data_i,
  input  logic [2*N-1:0]        w_strb_i,
  input  logic                  w_last_i,
  output logic                  b_valid_o,
  output logic                  pkt_valid_o,   // the packetizer's output, stream 0
  output logic                  pkt_ready_o,
  output logic [63:0]           pkt_data_o,
  output logic                  pkt_last_o,
  input  logic                  in1_valid_i,   // stream 1
  output logic                  in1_ready_o,
  input  logic [63:0]           in1_data_i,
  input  logic                  in1_last_i,
  `TSL_AXI_M_PORTS(m_axi_, 16 * N),
  output logic                  lm_req_o,
  input  logic                  lm_gnt_i,
  output logic                  lm_acc_o,
  output logic [$clog2(HbmBytes/(2*N))-1:0] lm_addr_o,
  output logic [16*N-1:0]       lm_wdata_o,
  output logic [2*N-1:0]        lm_be_o,
  output logic                  inc_o,
  output logic [$clog2(tsl_pkg::PARAM_ICI_SEMS)-1:0] inc_sem_o,
  output logic                  err_o
);
  logic [Ports-1:0]    in_valid, in_ready, in_last;
  logic [Ports*64-1:0] in_data;
  logic                unused_ready;   // the idle streams'

  tsl_ici_pkt #(.N(N)) u_pkt (
    .clk_i, .rst_ni, .aw_valid_i, .aw_ready_o, .aw_addr_i, .aw_len_i, .aw_incr_i, .aw_dest_x_i,
    .aw_dest_y_i, .aw_sem_i, .aw_local_i, .w_valid_i, .w_ready_o, .w_data_i, .w_strb_i, .w_last_i, .b_valid_o,
    .pkt_valid_o, .pkt_ready_i(pkt_ready_o), .pkt_data_o, .pkt_last_o);

  always_comb begin
    in_valid = '0;
    in_data  = '0;
    in_last  = '0;
    in_valid[1:0]   = {in1_valid_i, pkt_valid_o};
    in_data[127:0]  = {in1_data_i, pkt_data_o};
    in_last[1:0]    = {in1_last_i, pkt_last_o};
  end
  assign pkt_ready_o = in_ready[0];
  assign in1_ready_o = in_ready[1];
  assign unused_ready = ^in_ready;

  tsl_ici_eject #(.N(N), .Ports(Ports), .HbmBytes(HbmBytes), .VmemBytes(HbmBytes), .AccBytes(HbmBytes)) u_eject (
    .clk_i, .rst_ni, .in_valid_i(in_valid), .in_ready_o(in_ready), .in_data_i(in_data),
    .in_last_i(in_last), `TSL_AXI_CONNECT(m_axi_, m_axi_), .lm_req_o, .lm_gnt_i, .lm_acc_o, .lm_addr_o,
    .lm_wdata_o, .lm_be_o, .inc_o, .inc_sem_o, .err_o);
endmodule
