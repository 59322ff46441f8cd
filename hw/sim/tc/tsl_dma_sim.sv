// Simulation top for the DMA tests: tsl_dma with a VMEM and an ACC memory that follow the memory
// port contract (combinational grant, read data one cycle after the grant). vmem_deny_i and
// acc_deny_i refuse this cycle's grant, so the harness can deny at random. Read data is garbage
// except in the cycle after a granted read, to catch a DMA that samples it at the wrong time.
// The harness loads and reads both memories through DPI exports (byte granular, between cycles).
// mem_wr_o shows a granted local write, so the harness can check that none follows an AXI error.
`include "hw/rtl/tsl_axi.svh"
module tsl_dma_sim #(
  parameter int N         = 4,         // lanes: AXI data 16N bits
  parameter int VmemBytes = 65536,     // VMEM bytes (room for ROW_BYTES = 65535)
  parameter int AccBytes  = 16384,     // ACC bytes
  parameter int HbmBytes  = 1 << 20,   // HBM bytes (TslHbm size)
  parameter int MaxBurst  = 16,        // tsl_dma: beats per AXI burst
  parameter int MaxReads  = 8          // tsl_dma: read bursts outstanding
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            ex_valid_i,
  output logic            ex_ready_o,
  input  logic [255:0]    ex_insn_i,
  output logic            done_o,
  output logic            busy_o,
  output logic            err_o,
  output logic [3:0]      err_code_o,
  output logic [31:0]     err_addr_o,
  input  logic            vmem_deny_i,
  input  logic            acc_deny_i,
  output logic            mem_wr_o,
  `TSL_AXI_M_PORTS(m_axi_, 16 * N)
);
  localparam int VW  = 2 * N;  // VMEM line bytes
  localparam int AW  = 4 * N;  // ACC line bytes
  localparam int VAW = $clog2(VmemBytes / VW);
  localparam int AAW = $clog2(AccBytes / AW);

  logic           vmem_req, vmem_gnt, vmem_we, acc_req, acc_gnt, acc_we;
  logic [VAW-1:0] vmem_addr;
  logic [AAW-1:0] acc_addr;
  logic [8*VW-1:0] vmem_wdata, vmem_rdata;
  logic [VW-1:0]   vmem_be;
  logic [8*AW-1:0] acc_wdata, acc_rdata;
  logic [AW-1:0]   acc_be;

  tsl_dma #(
    .N(N), .VmemBytes(VmemBytes), .AccBytes(AccBytes), .HbmBytes(HbmBytes),
    .MaxBurst(MaxBurst), .MaxReads(MaxReads)
  ) u_dma (
    .clk_i, .rst_ni,
    .ex_valid_i, .ex_ready_o, .ex_insn_i, .done_o, .busy_o, .err_o, .err_code_o, .err_addr_o,
    .vmem_req_o(vmem_req), .vmem_gnt_i(vmem_gnt), .vmem_we_o(vmem_we), .vmem_addr_o(vmem_addr),
    .vmem_wdata_o(vmem_wdata), .vmem_be_o(vmem_be), .vmem_rdata_i(vmem_rdata),
    .acc_req_o(acc_req), .acc_gnt_i(acc_gnt), .acc_we_o(acc_we), .acc_addr_o(acc_addr),
    .acc_wdata_o(acc_wdata), .acc_be_o(acc_be), .acc_rdata_i(acc_rdata),
    // no ICI (EnableIci 0): SEND and SEMWAIT never reach it
    /* verilator lint_off PINCONNECTEMPTY */
    .ici_aw_valid_o(), .ici_aw_ready_i(1'b0), .ici_aw_addr_o(), .ici_aw_len_o(), .ici_aw_incr_o(),
    .ici_dest_x_o(), .ici_dest_y_o(), .ici_sem_o(), .ici_local_o(), .ici_w_valid_o(), .ici_w_ready_i(1'b0), .ici_w_data_o(),
    .ici_w_strb_o(), .ici_w_last_o(), .ici_b_valid_i(1'b0),
    .sem_wait_valid_o(), .sem_wait_sem_o(), .sem_wait_count_o(), .sem_done_i(1'b0), .sem_timeout_i(1'b0),
    .abort_i(1'b0),
    /* verilator lint_on PINCONNECTEMPTY */
    `TSL_AXI_CONNECT(m_axi_, m_axi_)
  );

  assign vmem_gnt = vmem_req && !vmem_deny_i;
  assign acc_gnt  = acc_req && !acc_deny_i;
  assign mem_wr_o = (vmem_gnt && vmem_we) || (acc_gnt && acc_we);

  logic [7:0] vmem [VmemBytes];
  logic [7:0] acc [AccBytes];

  always_ff @(posedge clk_i) begin
    vmem_rdata <= {VW{8'hA5}};
    if (vmem_gnt) begin
      for (int b = 0; b < VW; b++) begin
        if (vmem_we && vmem_be[b]) vmem[VW * 32'(vmem_addr) + b] <= vmem_wdata[8*b +: 8];
        if (!vmem_we) vmem_rdata[8*b +: 8] <= vmem[VW * 32'(vmem_addr) + b];
      end
    end
    acc_rdata <= {AW{8'h5A}};
    if (acc_gnt) begin
      for (int b = 0; b < AW; b++) begin
        if (acc_we && acc_be[b]) acc[AW * 32'(acc_addr) + b] <= acc_wdata[8*b +: 8];
        if (!acc_we) acc_rdata[8*b +: 8] <= acc[AW * 32'(acc_addr) + b];
      end
    end
  end

  // Back door: space 0 = VMEM, 1 = ACC; byte addresses inside the memory.
  export "DPI-C" function tsl_dma_sim_wr;
  export "DPI-C" function tsl_dma_sim_rd;
  function automatic void tsl_dma_sim_wr(input int space, input int addr, input int val);
    if (space == 0) vmem[addr] = val[7:0];
    else acc[addr] = val[7:0];
  endfunction
  function automatic int tsl_dma_sim_rd(input int space, input int addr);
    return space == 0 ? {24'h0, vmem[addr]} : {24'h0, acc[addr]};
  endfunction
endmodule
