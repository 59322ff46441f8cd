// Row reader: turns jobs (base address, stride, row count, element width) into a stream of VMEM
// vectors, for the MXU's weight and activation streams. Row r is the vector at addr + r*stride;
// an INT8 vector is half a VMEM line and leaves in the low half of data_o. Reads go out on one
// memory port (req/gnt, data one cycle after the grant) and land in a 4-entry FIFO; a read is
// issued only when the FIFO is sure to have room. Throughput: one row per cycle while granted.
// Jobs are queued (2 entries) and run back to back: a job's first read may be issued in the
// cycle after the previous job's last grant. Assumes aligned, in-range operands.
module tsl_tc_rowrd #(
  parameter int N     = 16,  // lanes: a VMEM line is 2N bytes
  parameter int LineAw = 13  // VMEM line-index bits
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // jobs
  input  logic              job_valid_i,
  output logic              job_ready_o,
  input  logic [31:0]       job_addr_i,    // VMEM byte address of row 0
  input  logic [31:0]       job_stride_i,  // bytes between rows
  input  logic [15:0]       job_rows_i,    // rows, >= 1
  input  logic              job_bf16_i,    // 1: 2N-byte vectors; 0: N-byte (INT8) vectors
  // memory read port
  output logic              mem_req_o,
  input  logic              mem_gnt_i,
  output logic [LineAw-1:0] mem_addr_o,
  input  logic [16*N-1:0]   mem_rdata_i,
  // rows
  output logic              valid_o,
  input  logic              ready_i,
  output logic [16*N-1:0]   data_o
);
  localparam int HalfBit = $clog2(N);   // address bit that selects the half line of an INT8 vector
  localparam int LineSh  = $clog2(2 * N);
  localparam int JobW    = 32 + 32 + 16 + 1;
  localparam int Depth   = 4;

  logic            jv, jpop, gnt, active_q, active_d, half_d, half_q, pend_q, pend_d;
  logic [31:0]     j_addr, j_stride, cur_q, cur_d, stride_q, stride_d;
  logic [15:0]     j_rows, left_q, left_d;
  logic            j_bf16, bf16_q, bf16_d;
  logic [2:0]      level;
  logic [16*N-1:0] row;
  logic [1:0]      jobs_level;
  logic            rows_ready;

  tsl_prim_fifo #(
    .Width(JobW),
    .Depth(2)
  ) u_jobs (
    .clk_i,
    .rst_ni,
    .clr_i  (1'b0),
    .valid_i(job_valid_i),
    .ready_o(job_ready_o),
    .data_i ({job_addr_i, job_stride_i, job_rows_i, job_bf16_i}),
    .valid_o(jv),
    .ready_i(jpop),
    .data_o ({j_addr, j_stride, j_rows, j_bf16}),
    .level_o(jobs_level)
  );

  // Issue while the FIFO has room for everything already asked for.
  assign mem_req_o  = active_q && (32'(level) + 32'(pend_q) < Depth);
  assign mem_addr_o = cur_q[LineSh +: LineAw];
  assign gnt        = mem_req_o && mem_gnt_i;
  assign jpop       = jv && (!active_q || (gnt && left_q == 16'd1));

  always_comb begin
    active_d = active_q;
    cur_d    = cur_q;
    stride_d = stride_q;
    left_d   = left_q;
    bf16_d   = bf16_q;
    pend_d   = gnt;
    half_d   = half_q;
    if (pend_d) half_d = !bf16_q && cur_q[HalfBit];
    if (jpop) begin
      active_d = 1'b1;
      cur_d    = j_addr;
      stride_d = j_stride;
      left_d   = j_rows;
      bf16_d   = j_bf16;
    end else if (gnt) begin
      cur_d    = cur_q + stride_q;
      left_d   = left_q - 16'd1;
      if (left_q == 16'd1) active_d = 1'b0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      active_q <= 1'b0;
      pend_q   <= 1'b0;
    end else begin
      active_q <= active_d;
      pend_q   <= pend_d;
    end
  end

  always_ff @(posedge clk_i) begin
    cur_q    <= cur_d;
    stride_q <= stride_d;
    left_q   <= left_d;
    bf16_q   <= bf16_d;
    half_q   <= half_d;
  end

  assign row = half_q ? {{8 * N{1'b0}}, mem_rdata_i[16*N-1:8*N]} : mem_rdata_i;

  tsl_prim_fifo #(
    .Width(16 * N),
    .Depth(Depth)
  ) u_rows (
    .clk_i,
    .rst_ni,
    .clr_i  (1'b0),
    .valid_i(pend_q),
    .ready_o(rows_ready),  // always 1 when pend_q, by the issue rule
    .data_i (row),
    .valid_o,
    .ready_i,
    .data_o,
    .level_o(level)
  );

  logic unused;
  assign unused = ^{jobs_level, rows_ready, cur_q};  // only the line-index bits of cur_q address VMEM
endmodule
