// SYS MMIO block of the control subsystem: console, exit, 64-bit mtime/mtimecmp, interrupt status
// and enable. Word registers at the tsl_pkg SYS_*_OFFSET offsets (0x00..0x1C); byte enables apply.
// Latency: req_i is a one-cycle access strobe; rdata_o and err_o are registered and valid the next
// cycle. err_o flags an offset with no register. mtime counts every cycle; irq_timer_o is
// mtime >= mtimecmp (mtimecmp resets to all ones) and irq_ext_o = |(irq_i & IRQ_ENABLE).
module tsl_cpu_sys_regs #(
  parameter int NumIrq = 2  // external interrupt sources: bit 0 doorbell, bit 1 tensor core
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              req_i,
  input  logic [4:0]        addr_i,     // byte offset within the block (word aligned)
  input  logic [31:0]       wdata_i,
  input  logic [3:0]        wstrb_i,    // 0: read
  output logic [31:0]       rdata_o,
  output logic              err_o,
  output logic              console_valid_o,  // one-cycle pulse per CONSOLE write
  output logic [7:0]        console_data_o,
  output logic              exit_valid_o,     // one-cycle pulse per EXIT write
  output logic [31:0]       exit_code_o,
  input  logic [NumIrq-1:0] irq_i,
  output logic              irq_timer_o,
  output logic              irq_ext_o
);
  localparam logic [4:0] RegConsole   = tsl_pkg::SYS_CONSOLE_OFFSET[4:0],
                         RegExit      = tsl_pkg::SYS_EXIT_OFFSET[4:0],
                         RegMtimeLo   = tsl_pkg::SYS_MTIME_LO_OFFSET[4:0],
                         RegMtimeHi   = tsl_pkg::SYS_MTIME_HI_OFFSET[4:0],
                         RegCmpLo     = tsl_pkg::SYS_MTIMECMP_LO_OFFSET[4:0],
                         RegCmpHi     = tsl_pkg::SYS_MTIMECMP_HI_OFFSET[4:0],
                         RegIrqStatus = tsl_pkg::SYS_IRQ_STATUS_OFFSET[4:0],
                         RegIrqEnable = tsl_pkg::SYS_IRQ_ENABLE_OFFSET[4:0];

  logic [63:0]       mtime_q, mtime_d, mtimecmp_q, mtimecmp_d;
  logic [NumIrq-1:0] irq_en_q, irq_en_d;
  logic [31:0]       rdata_q, rdata_d, wmask;
  logic              err_q, err_d, we;

  assign we    = req_i && (wstrb_i != 4'd0);
  assign wmask = {{8{wstrb_i[3]}}, {8{wstrb_i[2]}}, {8{wstrb_i[1]}}, {8{wstrb_i[0]}}};

  always_comb begin
    mtime_d         = mtime_q + 64'd1;
    mtimecmp_d      = mtimecmp_q;
    irq_en_d        = irq_en_q;
    rdata_d         = 32'd0;
    err_d           = 1'b0;
    console_valid_o = 1'b0;
    exit_valid_o    = 1'b0;
    if (req_i) begin
      unique case (addr_i)
        RegConsole:   console_valid_o = we && wstrb_i[0];
        RegExit:      exit_valid_o = we;
        RegMtimeLo: begin
          rdata_d = mtime_q[31:0];
          if (we) mtime_d[31:0] = (mtime_q[31:0] & ~wmask) | (wdata_i & wmask);
        end
        RegMtimeHi: begin
          rdata_d = mtime_q[63:32];
          if (we) mtime_d[63:32] = (mtime_q[63:32] & ~wmask) | (wdata_i & wmask);
        end
        RegCmpLo: begin
          rdata_d = mtimecmp_q[31:0];
          if (we) mtimecmp_d[31:0] = (mtimecmp_q[31:0] & ~wmask) | (wdata_i & wmask);
        end
        RegCmpHi: begin
          rdata_d = mtimecmp_q[63:32];
          if (we) mtimecmp_d[63:32] = (mtimecmp_q[63:32] & ~wmask) | (wdata_i & wmask);
        end
        RegIrqStatus: rdata_d = 32'(irq_i);
        RegIrqEnable: begin
          rdata_d = 32'(irq_en_q);
          if (we) irq_en_d = (irq_en_q & ~wmask[NumIrq-1:0]) | (wdata_i[NumIrq-1:0] & wmask[NumIrq-1:0]);
        end
        default: err_d = 1'b1;
      endcase
    end
  end

  assign console_data_o = wdata_i[7:0];
  assign exit_code_o    = wdata_i;
  assign rdata_o        = rdata_q;
  assign err_o          = err_q;
  assign irq_timer_o    = (mtime_q >= mtimecmp_q);
  assign irq_ext_o      = |(irq_i & irq_en_q);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mtime_q    <= 64'd0;
      mtimecmp_q <= '1;
      irq_en_q   <= '0;
      err_q      <= 1'b0;
    end else begin
      mtime_q    <= mtime_d;
      mtimecmp_q <= mtimecmp_d;
      irq_en_q   <= irq_en_d;
      err_q      <= err_d;
    end
  end

  always_ff @(posedge clk_i) begin
    rdata_q <= rdata_d;
  end
endmodule
