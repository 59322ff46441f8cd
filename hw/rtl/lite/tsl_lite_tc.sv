// Lite tensor core: the tsl_tc interface (register bus, interrupt, AXI4 master toward HBM) and
// instruction set, int8 only, for small FPGAs. tsl_lite_ctrl (registers, every dispatch check, no
// queues) hands one instruction at a time, in push order, to one of three small serial units
// (tsl_lite_dma, tsl_lite_mxu, tsl_lite_vpu); they share one 32-bit port into VMEM and one into
// ACC, each a single-port tsl_prim_ram. Push order is a legal schedule of isa.md section 3, so results
// equal the model's.
module tsl_lite_tc #(
  parameter int N          = 4,                            // MXU size and VPU lanes; AXI is 16N bits
  parameter int VmemBytes  = 16384,                        // power of two
  parameter int AccBytes   = 4096,                         // power of two
  parameter int HbmBytes   = tsl_pkg::PARAM_HBM_BYTES,     // power of two; DMA range checks
  parameter int AxiBits    = 16 * N                        // AXI data bits: 32 to 1024, a power of two
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  // register bus (TC block offsets)
  input  logic            reg_valid_i,
  output logic            reg_ready_o,
  input  logic [11:0]     reg_addr_i,
  input  logic [31:0]     reg_wdata_i,
  input  logic [3:0]      reg_wstrb_i,
  output logic [31:0]     reg_rdata_o,
  output logic            reg_err_o,
  output logic            irq_o,
  // AXI4 master toward HBM (ID 0 only)
  output logic            m_axi_awvalid,
  input  logic            m_axi_awready,
  output logic [31:0]     m_axi_awaddr,
  output logic [7:0]      m_axi_awlen,
  output logic [2:0]      m_axi_awsize,
  output logic [1:0]      m_axi_awburst,
  output logic            m_axi_wvalid,
  input  logic            m_axi_wready,
  output logic [AxiBits-1:0]   m_axi_wdata,
  output logic [AxiBits/8-1:0] m_axi_wstrb,
  output logic            m_axi_wlast,
  input  logic            m_axi_bvalid,
  output logic            m_axi_bready,
  input  logic [1:0]      m_axi_bresp,
  output logic            m_axi_arvalid,
  input  logic            m_axi_arready,
  output logic [31:0]     m_axi_araddr,
  output logic [7:0]      m_axi_arlen,
  output logic [2:0]      m_axi_arsize,
  output logic [1:0]      m_axi_arburst,
  input  logic            m_axi_rvalid,
  output logic            m_axi_rready,
  input  logic [AxiBits-1:0]   m_axi_rdata,
  input  logic [1:0]      m_axi_rresp,
  input  logic            m_axi_rlast
);
  localparam int VAw = $clog2(VmemBytes / 4);
  localparam int AAw = $clog2(AccBytes / 4);
  localparam int LAw = VAw > AAw ? VAw + 2 : AAw + 2;   // local offset bits of the units
  localparam int HAw = $clog2(HbmBytes) > 12 ? $clog2(HbmBytes) : 12;

  // --- controller --------------------------------------------------------------------------------
  logic [2:0]   u_valid, u_ready, done, busy;   // [0] DMA, [1] MXU, [2] VPU
  logic [255:0] insn;
  logic         dma_err;
  logic [3:0]   dma_err_code;
  logic [31:0]  dma_err_addr, dma_bytes;

  tsl_lite_ctrl #(
    .N        (N),
    .VmemBytes(VmemBytes),
    .AccBytes (AccBytes),
    .HbmBytes (HbmBytes)
  ) u_ctrl (
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
    .ex_valid_o    (u_valid),
    .ex_ready_i    (u_ready),
    .ex_insn_o     (insn),
    .done_i        (done),
    .busy_i        (busy),
    .dma_err_i     (dma_err),
    .dma_err_code_i(dma_err_code),
    .dma_err_addr_i(dma_err_addr),
    .dma_bytes_i   (dma_bytes)
  );

  // --- units and their local ports ------------------------------------------------------------------
  logic [2:0]  lrd, lwr;
  logic [3*LAw+2:0] lraddr, lwaddr;       // unit u at [(LAw+1)u +: LAw+1]: {ACC select, offset}
  logic [95:0] lwdata;                    // unit u at [32u +: 32]
  logic [11:0] lbe;
  logic [31:0] lrdata;

  tsl_lite_dma #(.AxiBits(AxiBits), .HAw(HAw), .LAw(LAw)) u_dma (
    .clk_i,
    .rst_ni,
    .ex_valid_i(u_valid[0]),
    .ex_ready_o(u_ready[0]),
    .ex_insn_i (insn),
    .done_o    (done[0]),
    .busy_o    (busy[0]),
    .err_o     (dma_err),
    .err_code_o(dma_err_code),
    .err_addr_o(dma_err_addr),
    .bytes_o   (dma_bytes),
    .lrd_o     (lrd[0]),
    .lraddr_o  (lraddr[0*(LAw+1) +: LAw+1]),
    .lrdata_i  (lrdata),
    .lwr_o     (lwr[0]),
    .lwaddr_o  (lwaddr[0*(LAw+1) +: LAw+1]),
    .lwdata_o  (lwdata[0 +: 32]),
    .lbe_o     (lbe[0 +: 4]),
    .m_axi_awvalid,
    .m_axi_awready,
    .m_axi_awaddr,
    .m_axi_awlen,
    .m_axi_awsize,
    .m_axi_awburst,
    .m_axi_wvalid,
    .m_axi_wready,
    .m_axi_wdata,
    .m_axi_wstrb,
    .m_axi_wlast,
    .m_axi_bvalid,
    .m_axi_bready,
    .m_axi_bresp,
    .m_axi_arvalid,
    .m_axi_arready,
    .m_axi_araddr,
    .m_axi_arlen,
    .m_axi_arsize,
    .m_axi_arburst,
    .m_axi_rvalid,
    .m_axi_rready,
    .m_axi_rdata,
    .m_axi_rresp,
    .m_axi_rlast
  );

  tsl_lite_mxu #(.N(N), .LAw(LAw)) u_mxu (
    .clk_i,
    .rst_ni,
    .ex_valid_i(u_valid[1]),
    .ex_ready_o(u_ready[1]),
    .ex_insn_i (insn),
    .done_o    (done[1]),
    .busy_o    (busy[1]),
    .lrd_o     (lrd[1]),
    .lraddr_o  (lraddr[1*(LAw+1) +: LAw+1]),
    .lrdata_i  (lrdata),
    .lwr_o     (lwr[1]),
    .lwaddr_o  (lwaddr[1*(LAw+1) +: LAw+1]),
    .lwdata_o  (lwdata[32 +: 32]),
    .lbe_o     (lbe[4 +: 4])
  );

  tsl_lite_vpu #(.N(N), .LAw(LAw)) u_vpu (
    .clk_i,
    .rst_ni,
    .ex_valid_i(u_valid[2]),
    .ex_ready_o(u_ready[2]),
    .ex_insn_i (insn),
    .done_o    (done[2]),
    .busy_o    (busy[2]),
    .lrd_o     (lrd[2]),
    .lraddr_o  (lraddr[2*(LAw+1) +: LAw+1]),
    .lrdata_i  (lrdata),
    .lwr_o     (lwr[2]),
    .lwaddr_o  (lwaddr[2*(LAw+1) +: LAw+1]),
    .lwdata_o  (lwdata[64 +: 32]),
    .lbe_o     (lbe[8 +: 4])
  );

  // Only the running unit drives its port: AND-OR the three.
  logic         rd, wr, rsel_q;
  logic [LAw:0] raddr, waddr;
  logic [31:0]  wdata;
  logic [3:0]  be;
  always_comb begin
    rd    = |lrd;
    wr    = |lwr;
    raddr = '0;
    waddr = '0;
    wdata = '0;
    be    = '0;
    for (int u = 0; u < 3; u++) begin
      if (lrd[u]) raddr = raddr | lraddr[(LAw+1)*u +: LAw+1];
      if (lwr[u]) begin
        waddr = waddr | lwaddr[(LAw+1)*u +: LAw+1];
        wdata = wdata | lwdata[32*u +: 32];
        be    = be | lbe[4*u +: 4];
      end
    end
  end

  logic [31:0] v_rdata, a_rdata;
  // VMEM and ACC are single-port RAMs (SPRAM and block RAM on an iCE40): no unit reads and writes
  // the same memory in one cycle.
  logic v_rd, v_wr, a_rd, a_wr;
  assign v_rd = rd && !raddr[LAw];
  assign v_wr = wr && !waddr[LAw];
  assign a_rd = rd && raddr[LAw];
  assign a_wr = wr && waddr[LAw];
  tsl_prim_ram #(.Depth(VmemBytes / 4), .Width(32)) u_vmem (
    .clk_i,
    .req_i  (v_rd || v_wr),
    .we_i   (v_wr),
    .addr_i (v_wr ? waddr[VAw+1:2] : raddr[VAw+1:2]),
    .wdata_i(wdata),
    .be_i   (be),
    .rdata_o(v_rdata)
  );
  tsl_prim_ram #(.Depth(AccBytes / 4), .Width(32)) u_acc (
    .clk_i,
    .req_i  (a_rd || a_wr),
    .we_i   (a_wr),
    .addr_i (a_wr ? waddr[AAw+1:2] : raddr[AAw+1:2]),
    .wdata_i(wdata),
    .be_i   (be),
    .rdata_o(a_rdata)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rsel_q <= 1'b0;
    end else if (rd) begin
      rsel_q <= raddr[LAw];
    end
  end
  assign lrdata = rsel_q ? a_rdata : v_rdata;
endmodule
