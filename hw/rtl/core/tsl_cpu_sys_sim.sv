// Simulation top of the control subsystem: tsl_cpu_sys with its external port tied to
// tsl_cpu_sys_stub, whose interrupt outputs feed IRQ_STATUS. This is what hw/sim/core/ Verilates;
// the harness watches console/exit and loads the RAM through the tsl_prim_ram back door.
// Same latency and contracts as the two submodules.
module tsl_cpu_sys_sim #(
  parameter int RamBytes = tsl_pkg::PARAM_RAM_BYTES,  // local RAM size in bytes
  parameter bit IterMul  = 1'b0                      // core multiplier: 0 one-cycle, 1 iterative
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  output logic        console_valid_o,
  output logic [7:0]  console_data_o,
  output logic        exit_valid_o,
  output logic [31:0] exit_code_o,
  output logic        retire_o,
  output logic        trap_o,
  output logic [31:0] trap_cause_o,
  output logic [31:0] trap_pc_o
);
  logic        ext_valid, ext_ready, ext_err;
  logic [31:0] ext_addr, ext_wdata, ext_rdata;
  logic [3:0]  ext_wstrb;
  logic [1:0]  irq;
  logic [31:0] hram_rdata;  // no host port in this top

  tsl_cpu_sys #(.RamBytes(RamBytes), .IterMul(IterMul)) u_sys (
    .clk_i,
    .rst_ni,
    .ext_valid_o (ext_valid),
    .ext_ready_i (ext_ready),
    .ext_addr_o  (ext_addr),
    .ext_wdata_o (ext_wdata),
    .ext_wstrb_o (ext_wstrb),
    .ext_rdata_i (ext_rdata),
    .ext_err_i   (ext_err),
    .irq_i       (irq),
    .hram_req_i  (1'b0),
    .hram_we_i   (1'b0),
    .hram_addr_i (32'd0),
    .hram_wdata_i(32'd0),
    .hram_rdata_o(hram_rdata),
    .console_valid_o,
    .console_data_o,
    .exit_valid_o,
    .exit_code_o,
    .retire_o,
    .trap_o,
    .trap_cause_o,
    .trap_pc_o
  );

  tsl_cpu_sys_stub u_stub (
    .clk_i,
    .rst_ni,
    .valid_i (ext_valid),
    .ready_o (ext_ready),
    .addr_i  (ext_addr),
    .wdata_i (ext_wdata),
    .wstrb_i (ext_wstrb),
    .rdata_o (ext_rdata),
    .err_o   (ext_err),
    .irq_o   (irq)
  );

  logic unused_hram;
  assign unused_hram = ^hram_rdata;
endmodule
