// Lite tensor core with tsl_tc's ports: tsl_lite_core and tsl_lite_axi, which turns its HBM word
// port into an AXI4 master (single-beat bursts of AxiBits). A drop-in for tsl_tc (int8 only) that
// the tensor core's own harness co-simulates against the golden model (mk/tclite.mk).
`include "hw/rtl/tsl_axi.svh"
module tsl_lite_tc #(
  parameter int N         = 4,                          // MXU size and VPU lanes
  parameter int VmemBytes = 16384,                      // power of two
  parameter int AccBytes  = 4096,                       // power of two
  parameter int HbmBytes  = tsl_pkg::PARAM_HBM_BYTES,   // power of two; DMA range checks
  parameter int AxiBits   = 16 * N,                     // AXI data bits, a power of two from 32
  localparam int Dw = AxiBits
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            reg_valid_i,
  output logic            reg_ready_o,
  input  logic [11:0]     reg_addr_i,
  input  logic [31:0]     reg_wdata_i,
  input  logic [3:0]      reg_wstrb_i,
  output logic [31:0]     reg_rdata_o,
  output logic            reg_err_o,
  output logic            irq_o,
  `TSL_AXI_M_PORTS(m_axi_, Dw)
);
  localparam int HAw = $clog2(HbmBytes) > 2 ? $clog2(HbmBytes) : 2;

  logic           req, we, gnt, rsp;
  logic [HAw-1:2] addr;
  logic [31:0]    wdata, rdata;
  logic [3:0]     be;
  logic [1:0]     resp;

  tsl_lite_core #(
    .N        (N),
    .VmemBytes(VmemBytes),
    .AccBytes (AccBytes),
    .HbmBytes (HbmBytes)
  ) u_core (
    .clk_i,
    .rst_ni,
    .reg_valid_i,
    .reg_ready_o,
    .reg_addr_i,
    .reg_wdata_i,
    .reg_wstrb_i,
    .reg_rdata_o,
    .reg_err_o,
    .irq_o,
    .hbm_req_o  (req),
    .hbm_we_o   (we),
    .hbm_addr_o (addr),
    .hbm_wdata_o(wdata),
    .hbm_be_o   (be),
    .hbm_gnt_i  (gnt),
    .hbm_rsp_i  (rsp),
    .hbm_rdata_i(rdata),
    .hbm_resp_i (resp)
  );

  tsl_lite_axi #(.AxiBits(AxiBits), .HAw(HAw)) u_axi (
    .clk_i,
    .rst_ni,
    .hbm_req_i  (req),
    .hbm_we_i   (we),
    .hbm_addr_i (addr),
    .hbm_wdata_i(wdata),
    .hbm_be_i   (be),
    .hbm_gnt_o  (gnt),
    .hbm_rsp_o  (rsp),
    .hbm_rdata_o(rdata),
    .hbm_resp_o (resp),
    `TSL_AXI_CONNECT(m_axi_, m_axi_)
  );
endmodule
