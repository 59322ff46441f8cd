// Two-entry output FIFO between the array and the result stream. full_o is a register output, so
// the array's global stall (advance unless full and a result is due) has no combinational path
// from ready_i. With ready_i held high it never fills: one result per cycle, latency one cycle.
// valid_o/data_o follow AXI-Stream rules (data holds until the handshake).
module tsl_mxu_obuf #(
  parameter int Width = 32  // payload bits
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             push_i,   // only when !full_o
  input  logic [Width-1:0] data_i,
  output logic             full_o,
  output logic             valid_o,
  input  logic             ready_i,
  output logic [Width-1:0] data_o
);
  logic [Width-1:0] mem_q [2];
  logic             wr_ptr_d, wr_ptr_q, rd_ptr_d, rd_ptr_q;
  logic [1:0]       count_d, count_q;
  logic             pop;

  always_comb begin
    pop      = valid_o && ready_i;
    wr_ptr_d = wr_ptr_q ^ push_i;
    rd_ptr_d = rd_ptr_q ^ pop;
    count_d  = count_q + {1'b0, push_i} - {1'b0, pop};
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_ptr_q <= 1'b0;
      rd_ptr_q <= 1'b0;
      count_q  <= 2'd0;
    end else begin
      wr_ptr_q <= wr_ptr_d;
      rd_ptr_q <= rd_ptr_d;
      count_q  <= count_d;
    end
  end

  always_ff @(posedge clk_i) begin
    if (push_i) mem_q[wr_ptr_q] <= data_i;
  end

  assign full_o  = count_q == 2'd2;
  assign valid_o = count_q != 2'd0;
  assign data_o  = mem_q[rd_ptr_q];
endmodule
