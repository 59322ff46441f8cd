// ACC update stage: writes MXU result rows into the ACC memory, overwriting or accumulating
// (int32 wrapping add, or fp32 add with tsl_mxu_fadd_pkg::fp32_add: ACC = ACC_old + y), one row
// per cycle.
// It owns one read and one write port of a synchronous ACC memory (tsl_prim_ram_1r1w, one row of
// N 32-bit words per address). Latency: a row accepted in cycle t is read at t and written at
// t+1; a row that accumulates into the row written in the same cycle gets the new value
// forwarded, so rows complete in order with no hazard. ready_o is always 1.
// done_o pulses when the last row of a MATMUL is written.
module tsl_mxu_acc #(
  parameter int N            = 16,    // lanes per row
  parameter bit EnableBf16   = 1'b1,  // 1: fp32 accumulation built in; 0: int32 only
  parameter int AccAddrWidth = 8      // ACC row-address width (= $clog2 of the memory depth)
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,
  input  logic                    valid_i,
  output logic                    ready_o,
  input  logic [N*32-1:0]         data_i,
  input  logic [AccAddrWidth-1:0] addr_i,
  input  logic                    acc_i,
  input  logic                    bf16_i,
  input  logic                    last_i,
  // ACC memory ports
  output logic                    mem_re_o,
  output logic [AccAddrWidth-1:0] mem_raddr_o,
  input  logic [N*32-1:0]         mem_rdata_i,   // one cycle after mem_re_o
  output logic                    mem_we_o,
  output logic [AccAddrWidth-1:0] mem_waddr_o,
  output logic [N*32-1:0]         mem_wdata_o,
  output logic                    done_o
);
  logic                    s1_valid_q, s1_acc_q, s1_bf16_q, s1_last_q, fwd_q;
  logic [AccAddrWidth-1:0] s1_addr_q;
  logic [N*32-1:0]         s1_data_q, wdata_last_q, old_row;

  assign ready_o     = 1'b1;
  assign mem_re_o    = valid_i && acc_i;
  assign mem_raddr_o = addr_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s1_valid_q <= 1'b0;
      fwd_q      <= 1'b0;
    end else begin
      s1_valid_q <= valid_i;
      fwd_q      <= mem_re_o && mem_we_o && mem_waddr_o == addr_i;
    end
  end

  always_ff @(posedge clk_i) begin
    if (valid_i) begin
      s1_data_q <= data_i;
      s1_addr_q <= addr_i;
      s1_acc_q  <= acc_i;
      s1_bf16_q <= bf16_i;
      s1_last_q <= last_i;
    end
    if (mem_we_o) wdata_last_q <= mem_wdata_o;
  end

  assign old_row = fwd_q ? wdata_last_q : mem_rdata_i;

  // The sums are computed only in a cycle that writes an accumulating row, by calling the adder
  // function (a Verilated module instance would be evaluated in every cycle): the integer sum
  // first, overridden by the fp32 one for a bf16 row, so that an int8 row does not evaluate it.
  always_comb begin
    mem_we_o    = s1_valid_q;
    mem_waddr_o = s1_addr_q;
    mem_wdata_o = s1_data_q;
    if (s1_valid_q && s1_acc_q) begin
      for (int j = 0; j < N; j++) begin
        mem_wdata_o[32*j +: 32] = old_row[32*j +: 32] + s1_data_q[32*j +: 32];
        if (EnableBf16 && s1_bf16_q)
          mem_wdata_o[32*j +: 32] = tsl_mxu_fadd_pkg::fp32_add(old_row[32*j +: 32], s1_data_q[32*j +: 32]);
      end
    end
    done_o      = s1_valid_q && s1_last_q;
  end
endmodule
