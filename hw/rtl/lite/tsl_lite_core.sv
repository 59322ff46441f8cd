// Lite tensor core: the tensor core's register block and instruction set, int8 only, for small
// FPGAs, with a 32-bit word port toward HBM (tsl_lite_tc adds an AXI4 master; the iCEBreaker wires
// the port to its SPRAM). tsl_lite_ctrl (registers, every dispatch check, no queues) hands one
// instruction at a time, in push order, to one of three small serial units (tsl_lite_dma,
// tsl_lite_mxu, tsl_lite_vpu); they share one 32-bit port into VMEM and one into ACC, each a
// single-port tsl_prim_ram. Push order is a legal schedule of isa.md section 3, so results equal
// the model's.
module tsl_lite_core #(
  parameter int N         = 4,                          // MXU size and VPU lanes
  parameter int VmemBytes = 16384,                      // power of two
  parameter int AccBytes  = 4096,                       // power of two
  parameter int HbmBytes  = tsl_pkg::PARAM_HBM_BYTES,   // power of two; DMA range checks
  localparam int HAw = $clog2(HbmBytes) > 2 ? $clog2(HbmBytes) : 2
) (
  input  logic           clk_i,
  input  logic           rst_ni,
  // register bus (TC block offsets)
  input  logic           reg_valid_i,
  output logic           reg_ready_o,
  input  logic [11:0]    reg_addr_i,
  input  logic [31:0]    reg_wdata_i,
  input  logic [3:0]     reg_wstrb_i,
  output logic [31:0]    reg_rdata_o,
  output logic           reg_err_o,
  output logic           irq_o,
  // HBM word port: a request holds until hbm_gnt_i; one hbm_rsp_i per request, in order
  output logic           hbm_req_o,
  output logic           hbm_we_o,
  output logic [HAw-1:2] hbm_addr_o,    // word address
  output logic [31:0]    hbm_wdata_o,
  output logic [3:0]     hbm_be_o,
  input  logic           hbm_gnt_i,
  input  logic           hbm_rsp_i,
  input  logic [31:0]    hbm_rdata_i,
  input  logic [1:0]     hbm_resp_i     // with hbm_rsp_i: AXI RESP encoding (bit 1: error)
);
  localparam int VAw = $clog2(VmemBytes / 4);
  localparam int AAw = $clog2(AccBytes / 4);
  localparam int LAw = VAw > AAw ? VAw + 2 : AAw + 2;   // local offset bits of the units

  // --- controller --------------------------------------------------------------------------------
  logic [2:0]   u_valid, u_ready, done, busy;   // [0] DMA, [1] MXU, [2] VPU
  logic [255:0] insn;
  logic         dma_err;
  logic [3:0]   dma_err_code;
  logic [31:0]  dma_err_addr;
  logic         dma_byte;

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
    .dma_byte_i    (dma_byte)
  );

  // --- units and their local ports ------------------------------------------------------------------
  logic [2:0]       lrd, lwr;
  logic [3*LAw+2:0] laddr;     // unit u at [(LAw+1)u +: LAw+1]: {ACC select, offset}
  logic [95:0]      lwdata;    // unit u at [32u +: 32]
  logic [11:0]      lbe;
  logic [31:0]      lrdata;

  tsl_lite_dma #(.HAw(HAw), .LAw(LAw)) u_dma (
    .clk_i,
    .rst_ni,
    .ex_valid_i(u_valid[0]),
    .ex_ready_o(u_ready[0]),
    .ex_insn_i (insn),
    .done_o    (done[0]),
    .busy_o    (busy[0]),
    .byte_o    (dma_byte),
    .err_o     (dma_err),
    .err_code_o(dma_err_code),
    .err_addr_o(dma_err_addr),
    .lrd_o     (lrd[0]),
    .lwr_o     (lwr[0]),
    .laddr_o   (laddr[0 +: LAw+1]),
    .lrdata_i  (lrdata),
    .lwdata_o  (lwdata[0 +: 32]),
    .lbe_o     (lbe[0 +: 4]),
    .hbm_req_o,
    .hbm_we_o,
    .hbm_addr_o,
    .hbm_wdata_o,
    .hbm_be_o,
    .hbm_gnt_i,
    .hbm_rsp_i,
    .hbm_rdata_i,
    .hbm_resp_i
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
    .lwr_o     (lwr[1]),
    .laddr_o   (laddr[LAw+1 +: LAw+1]),
    .lrdata_i  (lrdata),
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
    .lwr_o     (lwr[2]),
    .laddr_o   (laddr[2*(LAw+1) +: LAw+1]),
    .lrdata_i  (lrdata),
    .lwdata_o  (lwdata[64 +: 32]),
    .lbe_o     (lbe[8 +: 4])
  );

  // Only the running unit accesses its memories, and never reads and writes in the same cycle:
  // AND-OR the three ports.
  logic         rd, wr, rsel_q;
  logic [LAw:0] addr;
  logic [31:0]  wdata;
  logic [3:0]   be;
  always_comb begin
    addr  = '0;
    wdata = '0;
    be    = '0;
    for (int u = 0; u < 3; u++) begin
      if (lrd[u] || lwr[u]) addr = addr | laddr[(LAw+1)*u +: LAw+1];
      if (lwr[u]) begin
        wdata = wdata | lwdata[32*u +: 32];
        be    = be | lbe[4*u +: 4];
      end
    end
  end
  assign rd = |lrd;
  assign wr = |lwr;

  // VMEM and ACC are single-port RAMs (SPRAM and block RAM on an iCE40): no unit reads and writes
  // the same memory in one cycle.
  logic [31:0] v_rdata, a_rdata;
  tsl_prim_ram #(.Depth(VmemBytes / 4), .Width(32)) u_vmem (
    .clk_i,
    .req_i  ((rd || wr) && !addr[LAw]),
    .we_i   (wr),
    .addr_i (addr[VAw+1:2]),
    .wdata_i(wdata),
    .be_i   (be),
    .rdata_o(v_rdata)
  );
  tsl_prim_ram #(.Depth(AccBytes / 4), .Width(32)) u_acc (
    .clk_i,
    .req_i  ((rd || wr) && addr[LAw]),
    .we_i   (wr),
    .addr_i (addr[AAw+1:2]),
    .wdata_i(wdata),
    .be_i   (be),
    .rdata_o(a_rdata)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rsel_q <= 1'b0;
    end else if (rd) begin
      rsel_q <= addr[LAw];
    end
  end
  assign lrdata = rsel_q ? a_rdata : v_rdata;
endmodule
