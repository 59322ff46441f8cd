// Simulation top of the Tessel SoC: the control subsystem (tsl_cpu_sys: core, RAM, SYS) and the
// tensor core (tsl_tc). This is a simulation top, not the product SoC: the real AXI interconnect
// and host interface come with a later issue. Here the core's ext bus is decoded in two: the TC
// block (MMAP_TC_*) goes to tsl_tc's register port (addr[11:0]); every other ext address (HBM
// window, HOSTIF) goes out on the side bus sb_* to the C++ harness, which serves the HBM window on
// the same memory as the HBM model on m_axi_* and answers the rest with sb_err_i (access fault).
// sb_* follows the core's bus contract: request held until a one-cycle sb_ready_i, with sb_rdata_i
// and sb_err_i valid in that cycle. Latency: TC registers as tsl_tc, side bus as the harness.
module tsl_soc_sim #(
  parameter int N          = tsl_pkg::PARAM_N,           // MXU size and VPU lanes; AXI is 16N bits
  parameter bit EnableBf16 = 1'b1,                       // 1: int8 and bf16/fp32; 0: int8 only
  parameter int VmemBytes  = tsl_pkg::PARAM_VMEM_BYTES,  // VMEM bytes (power of two)
  parameter int AccBytes   = tsl_pkg::PARAM_ACC_BYTES,   // ACC bytes (power of two)
  parameter int HbmBytes   = tsl_pkg::PARAM_HBM_BYTES,   // HBM bytes (power of two)
  localparam int Dw        = 16 * N                      // AXI data bits
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  // side bus to the harness: HBM window and HOSTIF (everything on ext_* except the TC block)
  output logic            sb_valid_o,
  input  logic            sb_ready_i,
  output logic [31:0]     sb_addr_o,
  output logic [31:0]     sb_wdata_o,
  output logic [3:0]      sb_wstrb_o,
  input  logic [31:0]     sb_rdata_i,
  input  logic            sb_err_i,
  // tensor core AXI4 master toward the HBM model
  output logic            m_axi_awvalid,
  input  logic            m_axi_awready,
  output logic [31:0]     m_axi_awaddr,
  output logic [7:0]      m_axi_awlen,
  output logic [2:0]      m_axi_awsize,
  output logic [1:0]      m_axi_awburst,
  output logic            m_axi_wvalid,
  input  logic            m_axi_wready,
  output logic [Dw-1:0]   m_axi_wdata,
  output logic [Dw/8-1:0] m_axi_wstrb,
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
  input  logic [Dw-1:0]   m_axi_rdata,
  input  logic [1:0]      m_axi_rresp,
  input  logic            m_axi_rlast,
  // simulation side band, as tsl_cpu_sys_sim
  output logic            console_valid_o,
  output logic [7:0]      console_data_o,
  output logic            exit_valid_o,
  output logic [31:0]     exit_code_o,
  output logic            retire_o,
  output logic            trap_o,
  output logic [31:0]     trap_cause_o,
  output logic [31:0]     trap_pc_o,
  output logic            tc_irq_o
);
  import tsl_pkg::*;

  logic        ext_valid, ext_ready, ext_err;
  logic [31:0] ext_addr, ext_wdata, ext_rdata;
  logic [3:0]  ext_wstrb;
  logic        tc_ready, tc_err, tc_irq;
  logic [31:0] tc_rdata;

  tsl_cpu_sys u_sys (
    .clk_i,
    .rst_ni,
    .ext_valid_o (ext_valid),
    .ext_ready_i (ext_ready),
    .ext_addr_o  (ext_addr),
    .ext_wdata_o (ext_wdata),
    .ext_wstrb_o (ext_wstrb),
    .ext_rdata_i (ext_rdata),
    .ext_err_i   (ext_err),
    .irq_i       ({tc_irq, 1'b0}),  // bit 0 (HOSTIF doorbell) unused in this top
    .console_valid_o,
    .console_data_o,
    .exit_valid_o,
    .exit_code_o,
    .retire_o,
    .trap_o,
    .trap_cause_o,
    .trap_pc_o
  );

  // Decode: the address is held while ext_valid is high, so the select needs no register.
  logic sel_tc;
  assign sel_tc = (ext_addr - MMAP_TC_BASE) < MMAP_TC_BYTES;

  assign sb_valid_o = ext_valid && !sel_tc;
  assign sb_addr_o  = ext_addr;
  assign sb_wdata_o = ext_wdata;
  assign sb_wstrb_o = ext_wstrb;

  always_comb begin
    if (sel_tc) begin
      ext_ready = tc_ready;
      ext_rdata = tc_rdata;
      ext_err   = tc_err;
    end else begin
      ext_ready = sb_ready_i;
      ext_rdata = sb_rdata_i;
      ext_err   = sb_err_i;
    end
  end

  tsl_tc #(
    .N          (N),
    .EnableBf16 (EnableBf16),
    .VmemBytes  (VmemBytes),
    .AccBytes   (AccBytes),
    .HbmBytes   (HbmBytes)
  ) u_tc (
    .clk_i,
    .rst_ni,
    .reg_valid_i (ext_valid && sel_tc),
    .reg_ready_o (tc_ready),
    .reg_addr_i  (ext_addr[11:0]),
    .reg_wdata_i (ext_wdata),
    .reg_wstrb_i (ext_wstrb),
    .reg_rdata_o (tc_rdata),
    .reg_err_o   (tc_err),
    .irq_o       (tc_irq),
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

  assign tc_irq_o = tc_irq;
endmodule
