// Test responder for the control subsystem's external bus port (stands in for the tensor core,
// host interface and HBM until the SoC attaches them). 15 scratch words plus an IRQ register at
// word 15 (offset 0x3C, reset 0), aliased over the whole window; the IRQ register drives irq_o, so
// firmware can raise its own external interrupts. Scratch words are not reset. Latency: ready comes 1 to 4 cycles after valid, the extra wait states drawn from a
// free-running LFSR so the core sees back-pressure. Never signals an error.
module tsl_cpu_sys_stub #(
  parameter int NumIrq = 2  // width of irq_o (low bits of word 15)
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              valid_i,
  output logic              ready_o,
  input  logic [31:0]       addr_i,
  input  logic [31:0]       wdata_i,
  input  logic [3:0]        wstrb_i,
  output logic [31:0]       rdata_o,
  output logic              err_o,
  output logic [NumIrq-1:0] irq_o
);
  logic [31:0]       words_q [15];
  logic [NumIrq-1:0] irq_q, irq_d;
  logic              wr;
  logic [15:0] lfsr_q, lfsr_d;
  logic [1:0]  wait_q, wait_d;
  logic        busy_q, busy_d, ready_q, ready_d;
  logic [31:0] rdata_q, rdata_d;
  logic [3:0]  idx;

  assign idx   = addr_i[5:2];

  always_comb begin
    irq_d   = irq_q;
    wr      = 1'b0;
    lfsr_d  = {lfsr_q[14:0], lfsr_q[15] ^ lfsr_q[13] ^ lfsr_q[12] ^ lfsr_q[10]};
    wait_d  = wait_q;
    busy_d  = busy_q;
    ready_d = 1'b0;
    rdata_d = rdata_q;
    if (valid_i && !ready_q) begin
      if (!busy_q) begin
        busy_d = 1'b1;
        wait_d = lfsr_q[1:0];
      end else if (wait_q != 2'd0) begin
        wait_d = wait_q - 2'd1;
      end else begin
        busy_d  = 1'b0;
        ready_d = 1'b1;
        wr      = 1'b1;
        rdata_d = (idx == 4'd15) ? 32'(irq_q) : words_q[idx];
        if (idx == 4'd15 && wstrb_i[0]) irq_d = wdata_i[NumIrq-1:0];  // NumIrq <= 8
      end
    end
  end

  assign ready_o = ready_q;
  assign rdata_o = rdata_q;
  assign err_o   = 1'b0;
  assign irq_o   = irq_q;

  logic unused_addr;
  assign unused_addr = ^{addr_i[31:6], addr_i[1:0]};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      irq_q   <= '0;
      lfsr_q  <= 16'hace1;
      wait_q  <= 2'd0;
      busy_q  <= 1'b0;
      ready_q <= 1'b0;
    end else begin
      irq_q   <= irq_d;
      lfsr_q  <= lfsr_d;
      wait_q  <= wait_d;
      busy_q  <= busy_d;
      ready_q <= ready_d;
    end
  end

  always_ff @(posedge clk_i) begin
    rdata_q <= rdata_d;
    if (wr && idx != 4'd15) begin
      for (int b = 0; b < 4; b++) begin
        if (wstrb_i[b]) words_q[idx][8*b +: 8] <= wdata_i[8*b +: 8];
      end
    end
  end
endmodule
