// Formal top of tsl_mxu_ctrl (the MXU's command controller) at N 4. Environment (assumed): the
// command stream holds a command until cmd_ready_o (tsl_mxu's CmdHeld), and a MATMUL has at
// least one row. The weight and activation streams and adv_i are free.
// bind/tsl_mxu_ctrl.svh has the hazard properties.
module tsl_fv_mxu_ctrl #(
  parameter int N            = 4,  // array size
  parameter int AccAddrWidth = 4   // ACC row-address bits
) (
  input logic                    clk_i,
  input logic                    rst_ni,
  input logic                    cmd_valid_i,
  input logic [1:0]              cmd_op,
  input logic                    cmd_wbuf_i,
  input logic                    cmd_bf16_i,
  input logic                    cmd_trans_i,
  input logic                    cmd_acc_i,
  input logic [15:0]             cmd_rows_i,
  input logic [AccAddrWidth-1:0] cmd_acc_addr_i,
  input logic [AccAddrWidth-1:0] cmd_acc_stride_i,
  input logic                    w_valid_i,
  input logic                    a_valid_i,
  input logic                    adv_i
);
`include "hw/formal/tsl_fv_reset.svh"
  tsl_pkg::mxu_op_e        cmd_op_i;
  logic                    cmd_ready_o, w_ready_o, wr_buf_o, wr_bf16_o, wr_trans_o, wload_done_o, a_ready_o;
  logic                    issue_o, issue_buf_o, issue_bf16_o, issue_acc_o, issue_last_o, busy_o;
  logic [N-1:0]            wr_row_o;
  logic [AccAddrWidth-1:0] issue_addr_o;
  assign cmd_op_i = cmd_op;
  tsl_mxu_ctrl #(.N(N), .AccAddrWidth(AccAddrWidth)) u_dut (.*);

  always @* if (cmd_valid_i && cmd_op_i == tsl_pkg::MXU_OP_MATMUL) assume (cmd_rows_i != 16'd0);
  always @(posedge clk_i) if (!fv_init && $past(rst_ni) && $past(cmd_valid_i && !cmd_ready_o))
    assume (cmd_valid_i && $stable(cmd_op) && $stable(cmd_wbuf_i) && $stable(cmd_rows_i)
            && $stable(cmd_bf16_i) && $stable(cmd_acc_i) && $stable(cmd_trans_i));
endmodule
