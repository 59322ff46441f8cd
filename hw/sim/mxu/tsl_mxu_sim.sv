// Simulation top for the MXU tests: tsl_mxu -> (injected back-pressure) -> tsl_mxu_acc -> ACC RAM.
// bp_i blocks the result stream for a cycle (valid hidden from ACC, ready hidden from the MXU),
// so the harness can stall the consumer at random. The dbg_* port reads and writes whole ACC rows
// while the MXU is idle (loading initial contents and checking results); it has priority.
module tsl_mxu_sim #(
  parameter int N           = 16,    // array size
  parameter bit EnableBf16  = 1'b1,  // 1: int8 and bf16; 0: int8 only
  parameter int AccRowsLog2 = 8      // ACC rows (of N words) = 2**AccRowsLog2
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  input  logic                   cmd_valid_i,
  output logic                   cmd_ready_o,
  input  logic [1:0]             cmd_op_i,
  input  logic                   cmd_wbuf_i,
  input  logic [1:0]             cmd_dtype_i,
  input  logic                   cmd_acc_i,
  input  logic                   cmd_trans_i,
  input  logic [15:0]            cmd_rows_i,
  input  logic [AccRowsLog2-1:0] cmd_acc_addr_i,
  input  logic [AccRowsLog2-1:0] cmd_acc_stride_i,
  input  logic                   w_valid_i,
  output logic                   w_ready_o,
  input  logic [N*16-1:0]        w_data_i,
  input  logic                   a_valid_i,
  output logic                   a_ready_o,
  input  logic [N*16-1:0]        a_data_i,
  input  logic                   bp_i,
  output logic                   done_o,
  output logic                   wload_done_o,
  output logic                   idle_o,
  input  logic                   dbg_we_i,
  input  logic                   dbg_re_i,
  input  logic [AccRowsLog2-1:0] dbg_addr_i,
  input  logic [N*32-1:0]        dbg_wdata_i,
  output logic [N*32-1:0]        dbg_rdata_o
);
  logic                   r_valid, r_ready, r_acc, r_bf16, r_last, acc_ready, mxu_idle;
  logic [N*32-1:0]        r_data, mem_rdata, mem_wdata;
  logic [AccRowsLog2-1:0] r_addr, mem_raddr, mem_waddr;
  logic                   mem_re, mem_we;

  tsl_mxu #(
    .N           (N),
    .EnableBf16  (EnableBf16),
    .AccAddrWidth(AccRowsLog2)
  ) u_mxu (
    .clk_i,
    .rst_ni,
    .cmd_valid_i,
    .cmd_ready_o,
    .cmd_op_i        (tsl_pkg::mxu_op_e'(cmd_op_i)),
    .cmd_wbuf_i,
    .cmd_dtype_i     (tsl_pkg::dtype_e'(cmd_dtype_i)),
    .cmd_acc_i,
    .cmd_trans_i,
    .cmd_rows_i,
    .cmd_acc_addr_i,
    .cmd_acc_stride_i,
    .w_valid_i,
    .w_ready_o,
    .w_data_i,
    .a_valid_i,
    .a_ready_o,
    .a_data_i,
    .r_valid_o       (r_valid),
    .r_ready_i       (r_ready),
    .r_data_o        (r_data),
    .r_addr_o        (r_addr),
    .r_acc_o         (r_acc),
    .r_bf16_o        (r_bf16),
    .r_last_o        (r_last),
    .wload_done_o,
    .idle_o          (mxu_idle)
  );

  assign r_ready = acc_ready && !bp_i;

  tsl_mxu_acc #(
    .N           (N),
    .EnableBf16  (EnableBf16),
    .AccAddrWidth(AccRowsLog2)
  ) u_acc (
    .clk_i,
    .rst_ni,
    .valid_i    (r_valid && !bp_i),
    .ready_o    (acc_ready),
    .data_i     (r_data),
    .addr_i     (r_addr),
    .acc_i      (r_acc),
    .bf16_i     (r_bf16),
    .last_i     (r_last),
    .mem_re_o   (mem_re),
    .mem_raddr_o(mem_raddr),
    .mem_rdata_i(mem_rdata),
    .mem_we_o   (mem_we),
    .mem_waddr_o(mem_waddr),
    .mem_wdata_o(mem_wdata),
    .done_o
  );

  tsl_prim_ram_1r1w #(
    .Depth(2 ** AccRowsLog2),
    .Width(N * 32)
  ) u_acc_ram (
    .clk_i,
    .we_i   (dbg_we_i || mem_we),
    .waddr_i(dbg_we_i ? dbg_addr_i : mem_waddr),
    .wdata_i(dbg_we_i ? dbg_wdata_i : mem_wdata),
    .be_i   ('1),
    .re_i   (dbg_re_i || mem_re),
    .raddr_i(dbg_re_i ? dbg_addr_i : mem_raddr),
    .rdata_o(mem_rdata)
  );

  assign dbg_rdata_o = mem_rdata;
  assign idle_o      = mxu_idle && !mem_we;
endmodule
