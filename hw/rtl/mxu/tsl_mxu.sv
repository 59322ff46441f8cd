// Tessel MXU: an N x N weight-stationary systolic array (int8 x int8 -> int32 and
// bf16 x bf16 -> fp32 per instruction) with double-buffered weights, producing a result stream
// toward ACC. Commands (LOADW, MATMUL) arrive in program order; the weight rows of each LOADW and
// the activation rows of each MATMUL arrive, in the same order, on their own streams as raw VMEM
// rows (bf16: lane j = bytes 2j..2j+1; int8: lane j = byte j, upper half ignored). A transposed
// LOADW (cmd_trans_i) takes its N rows as the tile's columns: row j's lane k is W[k][j].
// Throughput: one activation row per cycle, back to back across MATMULs and weight swaps.
// Latency: 2N+2 cycles from an activation handshake to its result on r_*. The result stream
// carries the ACC row address and the accumulate flag; tsl_mxu_acc performs the ACC update.
// Back-pressure on r_ready_i stalls the whole array (no data is lost); the stall is computed from
// registers only, so no input's ready depends combinationally on r_ready_i.
module tsl_mxu #(
  parameter int N            = tsl_pkg::PARAM_N,  // array size: a power of two, 4..128
  parameter bit EnableBf16   = 1'b1,              // 1: int8 and bf16; 0: int8 only (no float logic)
  parameter int AccAddrWidth = 16                 // ACC row-address width on the result stream
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,
  // commands
  input  logic                    cmd_valid_i,
  output logic                    cmd_ready_o,
  input  tsl_pkg::mxu_op_e        cmd_op_i,
  input  logic                    cmd_wbuf_i,
  input  tsl_pkg::dtype_e         cmd_dtype_i,      // DTYPE_INT8 or DTYPE_BF16
  input  logic                    cmd_acc_i,        // MATMUL: accumulate into ACC
  input  logic                    cmd_trans_i,      // LOADW: transposed (row j of the stream = column j)
  input  logic [15:0]             cmd_rows_i,       // MATMUL: rows (>= 1)
  input  logic [AccAddrWidth-1:0] cmd_acc_addr_i,   // MATMUL: ACC row of result row 0
  input  logic [AccAddrWidth-1:0] cmd_acc_stride_i, // MATMUL: ACC rows between result rows
  // weight rows, k = 0..N-1 per LOADW
  input  logic                    w_valid_i,
  output logic                    w_ready_o,
  input  logic [N*16-1:0]         w_data_i,
  // activation rows, M per MATMUL
  input  logic                    a_valid_i,
  output logic                    a_ready_o,
  input  logic [N*16-1:0]         a_data_i,
  // result rows toward ACC
  output logic                    r_valid_o,
  input  logic                    r_ready_i,
  output logic [N*32-1:0]         r_data_o,         // lane j = y[j], int32 or fp32
  output logic [AccAddrWidth-1:0] r_addr_o,
  output logic                    r_acc_o,          // accumulate (else overwrite)
  output logic                    r_bf16_o,         // fp32 result (else int32)
  output logic                    r_last_o,         // last row of its MATMUL
  // status
  output logic                    wload_done_o,     // pulse: a LOADW finished
  output logic                    idle_o            // nothing queued, running or in flight
);
  `include "hw/rtl/tsl_assert.svh"
  localparam int Lat = 2 * N + 1;  // pipeline stages from the issue register to the deskew output

  typedef struct packed {
    logic                    bf16;
    logic                    acc;
    logic                    last;
    logic [AccAddrWidth-1:0] addr;
  } meta_t;

  logic                    adv, pipe_en, issue, issue_buf, issue_bf16, issue_acc, issue_last, busy;
  logic [AccAddrWidth-1:0] issue_addr;
  logic [N-1:0]            wr_row;
  logic                    wr_buf, wr_bf16, wr_trans;
  logic [N*16-1:0]         w_lanes, a_lanes, row_q, x_skewed;
  logic [N*32-1:0]         psum, y_aligned;
  logic [N-1:0]            x_buf;
  logic                    obuf_full, obuf_push;
  // Row metadata travels beside the data: stage s holds the row that entered s advances ago.
  logic [Lat-1:0]          mv_q;                 // valid, reset
  logic [N-1:0]            mb_q;                 // weight buffer (stages 0..N-1), not reset
  meta_t                   md_end;
  localparam int MetaW = AccAddrWidth + 3;  // bits of meta_t
  logic [Lat*MetaW-1:0]    md_q;                 // payload (stage s at bits s*MetaW), not reset

  tsl_mxu_ctrl #(
    .N           (N),
    .AccAddrWidth(AccAddrWidth)
  ) u_ctrl (
    .clk_i,
    .rst_ni,
    .cmd_valid_i,
    .cmd_ready_o,
    .cmd_op_i,
    .cmd_wbuf_i,
    .cmd_bf16_i      (EnableBf16 && cmd_dtype_i == tsl_pkg::DTYPE_BF16),
    .cmd_trans_i,
    .cmd_acc_i,
    .cmd_rows_i,
    .cmd_acc_addr_i,
    .cmd_acc_stride_i,
    .w_valid_i,
    .w_ready_o,
    .wr_row_o        (wr_row),
    .wr_buf_o        (wr_buf),
    .wr_bf16_o       (wr_bf16),
    .wr_trans_o      (wr_trans),
    .wload_done_o,
    .a_valid_i,
    .a_ready_o,
    .adv_i           (adv),
    .issue_o         (issue),
    .issue_buf_o     (issue_buf),
    .issue_bf16_o    (issue_bf16),
    .issue_acc_o     (issue_acc),
    .issue_last_o    (issue_last),
    .issue_addr_o    (issue_addr),
    .busy_o          (busy)
  );

  // Raw VMEM rows -> 16-bit lanes (int8: byte j; bf16: bytes 2j, 2j+1).
  for (genvar j = 0; j < N; j++) begin : g_unpack
    assign w_lanes[16*j +: 16] = wr_bf16 ? w_data_i[16*j +: 16] : {8'h00, w_data_i[8*j +: 8]};
    assign a_lanes[16*j +: 16] = issue_bf16 ? a_data_i[16*j +: 16] : {8'h00, a_data_i[8*j +: 8]};
  end

  // Issue register (stage 0) and metadata line; everything moves only when the array advances,
  // and only while a row is issued or in flight (pipe_en): an idle pipeline holds still, which
  // changes nothing visible (every stage is invalid) and costs a Verilated model nothing.
  assign pipe_en = adv && (issue || mv_q != '0);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mv_q <= '0;
    end else if (pipe_en) begin
      mv_q <= {mv_q[Lat-2:0], issue};
    end
  end

  always_ff @(posedge clk_i) begin
    if (adv && issue) row_q <= a_lanes;
    if (pipe_en) begin
      mb_q <= {mb_q[N-2:0], issue_buf};
      md_q <= {md_q[(Lat-1)*MetaW-1:0], issue_bf16, issue_acc, issue_last, issue_addr};
    end
  end

  // Lane k enters row k of the array k cycles after lane 0; its buffer bit is stage k's.
  assign x_buf  = mb_q;
  assign md_end = md_q[(Lat-1)*MetaW +: MetaW];

  tsl_mxu_skew #(
    .N    (N),
    .Width(16)
  ) u_skew (
    .clk_i,
    .en_i(pipe_en),
    .x_i (row_q),
    .x_o (x_skewed)
  );

  tsl_mxu_array #(
    .N         (N),
    .EnableBf16(EnableBf16)
  ) u_array (
    .clk_i,
    .en_i     (adv),
    .stage_v_i(mv_q[2*N-1:0]),
    .x_i      (x_skewed),
    .xbuf_i   (x_buf),
    .wr_row_i (wr_row),
    .wr_buf_i (wr_buf),
    .wr_bf16_i(wr_bf16),
    .wr_trans_i(wr_trans),
    .wr_data_i(w_lanes),
    .psum_o   (psum)
  );

  tsl_mxu_deskew #(
    .N    (N),
    .Width(32)
  ) u_deskew (
    .clk_i,
    .en_i(pipe_en),
    .y_i (psum),
    .y_o (y_aligned)
  );

  // Global stall: hold everything while a finished row is due and the output buffer is full.
  assign adv       = !(obuf_full && mv_q[Lat-1]);
  assign obuf_push = adv && mv_q[Lat-1];

  tsl_mxu_obuf #(
    .Width(N * 32 + AccAddrWidth + 3)
  ) u_obuf (
    .clk_i,
    .rst_ni,
    .push_i (obuf_push),
    .data_i ({y_aligned, md_end.addr, md_end.acc, md_end.bf16, md_end.last}),
    .full_o (obuf_full),
    .valid_o(r_valid_o),
    .ready_i(r_ready_i),
    .data_o ({r_data_o, r_addr_o, r_acc_o, r_bf16_o, r_last_o})
  );

  assign idle_o = !busy && mv_q == '0 && !r_valid_o;

  // Assertions
  `TSL_ASSERT_INIT(NRange, N >= 4 && N <= 128 && (N > 0 && (N & (N - 1)) == 0), "N must be a power of two from 4 to 128")
  `TSL_ASSERT(WeightRowOneHot, $onehot0(wr_row), "more than one weight row written in a cycle")
  `TSL_ASSERT(CmdHeld, cmd_valid_i && !cmd_ready_o |=> cmd_valid_i && $stable(cmd_op_i)
              && $stable(cmd_rows_i) && $stable(cmd_acc_addr_i), "a command changed before cmd_ready_o")
endmodule
