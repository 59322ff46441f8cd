// 4-state X check of tsl_soc (Icarus): the firmware (cp.elf, +prog=HEX) runs from reset on a small
// SoC (N=4) and every cycle after reset the architectural state must be free of X/Z:
//   control core: PC, FSM state, every register-file write (the registers are datapath and start
//   unknown; none may ever be written with an unknown value), the CSRs (mstatus, mie, mtvec,
//   mscratch, mepc, mcause, mtval, mcycle, minstret);
//   tensor core: the controller's state, push/notify counts, error registers, tokens/credits;
//   HOSTIF: every register; the SoC's outputs: the host port, host_irq_o and every AXI valid/ready.
// The host port reads ID and FW_STATUS (until ready), arms the watchdog, then writes RESET and
// waits for the firmware to be ready again, so the core-reset path is checked too. The AXI slave
// is idle (ready low; the firmware does not touch HBM without commands).
// Prints "rel_x: N passed, M failed" (one check per phase) and the first X seen.
`timescale 1ns/1ps
module tsl_soc_x_tb;
  localparam int N = 4;
  localparam int Dw = 16 * N;
  logic clk = 1'b0, rst_n = 1'b0;
  logic h_valid = 1'b0, h_bar = 1'b0, h_ready, h_err, host_irq;
  logic [31:0] h_addr = '0, h_wdata = '0, h_rdata;
  logic [3:0]  h_wstrb = '0;
  logic awvalid, wvalid, bready, arvalid, rready, wlast;
  logic [31:0] awaddr, araddr, exit_code, trap_cause, trap_pc;
  logic [7:0] awlen, arlen, console_data;
  logic [2:0] awsize, arsize;
  logic [1:0] awburst, arburst;
  logic [Dw-1:0] wdata;
  logic [Dw/8-1:0] wstrb;
  logic console_valid, exit_valid, retire, trap, core_rst;
  int unsigned cycle = 0, xs = 0, passed = 0, failed = 0;

  tsl_soc #(.N(N), .EnableBf16(1'b0), .VmemBytes(16384), .AccBytes(4096), .HbmBytes(1 << 20)) dut (
    .clk_i(clk), .rst_ni(rst_n),
    .h_valid_i(h_valid), .h_ready_o(h_ready), .h_bar_i(h_bar), .h_addr_i(h_addr),
    .h_wdata_i(h_wdata), .h_wstrb_i(h_wstrb), .h_rdata_o(h_rdata), .h_err_o(h_err),
    .host_irq_o(host_irq),
    .m_axi_awvalid(awvalid), .m_axi_awready(1'b0), .m_axi_awaddr(awaddr), .m_axi_awlen(awlen),
    .m_axi_awsize(awsize), .m_axi_awburst(awburst), .m_axi_wvalid(wvalid), .m_axi_wready(1'b0),
    .m_axi_wdata(wdata), .m_axi_wstrb(wstrb), .m_axi_wlast(wlast), .m_axi_bvalid(1'b0),
    .m_axi_bready(bready), .m_axi_bresp(2'b00), .m_axi_arvalid(arvalid), .m_axi_arready(1'b0),
    .m_axi_araddr(araddr), .m_axi_arlen(arlen), .m_axi_arsize(arsize), .m_axi_arburst(arburst),
    .m_axi_rvalid(1'b0), .m_axi_rready(rready), .m_axi_rdata({Dw{1'b0}}), .m_axi_rresp(2'b00),
    .m_axi_rlast(1'b0),
    .console_valid_o(console_valid), .console_data_o(console_data), .exit_valid_o(exit_valid),
    .exit_code_o(exit_code), .retire_o(retire), .trap_o(trap), .trap_cause_o(trap_cause),
    .trap_pc_o(trap_pc), .core_rst_o(core_rst)
  );

  always #5 clk = ~clk;

  // A bound on the whole run: a hung test fails instead of running forever.
  always @(posedge clk) if (cycle >= 200000) begin
    $display("rel_x: FAIL: still running after %0d cycles", cycle);
    $display("rel_x: %0d passed, %0d failed", passed, failed + 1);
    $finish;
  end

  task automatic x_seen(input string what);
    if (xs == 0) $display("rel_x: X in %s at cycle %0d", what, cycle);
    xs++;
  endtask

  // Architectural state, checked on every falling edge after reset.
  always @(negedge clk) if (rst_n) begin
    cycle++;
    if ($isunknown({h_ready, h_err, host_irq, awvalid, wvalid, bready, arvalid, rready})) x_seen("SoC outputs");
    if ($isunknown({dut.u_sys.u_core.pc_q, dut.u_sys.u_core.state_q})) x_seen("core PC/state");
    if (dut.u_sys.u_core.u_regfile.we_i &&
        $isunknown({dut.u_sys.u_core.u_regfile.waddr_i, dut.u_sys.u_core.u_regfile.wdata_i}))
      x_seen("a register-file write");
    if ($isunknown({dut.u_sys.u_core.u_csr.mie_bit_q, dut.u_sys.u_core.u_csr.mpie_q,
                    dut.u_sys.u_core.u_csr.meie_q, dut.u_sys.u_core.u_csr.mtie_q,
                    dut.u_sys.u_core.u_csr.mtvec_q, dut.u_sys.u_core.u_csr.mscratch_q,
                    dut.u_sys.u_core.u_csr.mepc_q, dut.u_sys.u_core.u_csr.mcause_q,
                    dut.u_sys.u_core.u_csr.mtval_q, dut.u_sys.u_core.u_csr.mcycle_q,
                    dut.u_sys.u_core.u_csr.minstret_q})) x_seen("core CSRs");
    if ($isunknown({dut.u_tc.u_ctrl.state_q, dut.u_tc.u_ctrl.credit_q, dut.u_tc.u_ctrl.push_count_q,
                    dut.u_tc.u_ctrl.notify_count_q, dut.u_tc.u_ctrl.err_code_q, dut.u_tc.u_ctrl.err_unit_q,
                    dut.u_tc.u_ctrl.err_seq_q, dut.u_tc.u_ctrl.err_addr_q, dut.u_tc.u_ctrl.wbuf_push_q,
                    dut.u_tc.u_ctrl.wbuf_exec_q})) x_seen("tensor-core control registers");
    if ($isunknown({dut.u_hostif.cmd_base_q, dut.u_hostif.cmd_size_q, dut.u_hostif.cmd_head_q,
                    dut.u_hostif.cmd_tail_q, dut.u_hostif.cpl_base_q, dut.u_hostif.cpl_size_q,
                    dut.u_hostif.cpl_head_q, dut.u_hostif.cpl_tail_q, dut.u_hostif.fw_status_q,
                    dut.u_hostif.heartbeat_q, dut.u_hostif.irq_status_q, dut.u_hostif.irq_enable_q,
                    dut.u_hostif.db_q, dut.u_hostif.wdt_timeout_q, dut.u_hostif.wdt_count_q,
                    dut.u_hostif.wdt_expired_q})) x_seen("HOSTIF registers");
    if (trap && !$isunknown(trap_cause)) begin
      $display("rel_x: trap cause %0d at pc 0x%08x (cycle %0d)", trap_cause, trap_pc, cycle);
    end
  end

  // One host-port access (BAR0).
  task automatic host(input logic [31:0] addr, input logic [31:0] data, input logic [3:0] strb,
                      output logic [31:0] rdata);
    @(posedge clk);
    h_valid <= 1'b1; h_addr <= addr; h_wdata <= data; h_wstrb <= strb;
    do @(posedge clk); while (!h_ready);
    rdata = h_rdata;
    h_valid <= 1'b0; h_wstrb <= '0;
  endtask

  task automatic check(input bit ok, input string what);
    if (ok && xs == 0) passed++;
    else begin
      failed++;
      $display("rel_x: FAIL: %s (%0d X cycles so far)", what, xs);
    end
  endtask

  // Poll FW_STATUS until STATE = ready or `limit` cycles.
  task automatic wait_ready(input int unsigned limit, output bit ok);
    logic [31:0] v;
    int unsigned start = cycle;
    ok = 1'b0;
    while (!ok && cycle - start < limit) begin
      host(32'h038, '0, 4'h0, v);
      ok = v[7:0] == 8'd1;
      repeat (50) @(posedge clk);
    end
  endtask

  initial begin
    string prog;
    logic [31:0] v;
    bit ok;
    if (!$value$plusargs("prog=%s", prog)) begin
      $display("rel_x: usage: +prog=FILE.hex");
      $finish;
    end
    $readmemh(prog, dut.u_sys.u_ram.mem);
    repeat (5) @(posedge clk);
    rst_n <= 1'b1;
    host(32'h000, '0, 4'h0, v);
    check(v == tsl_pkg::ID_VALUE, "HOSTIF ID");
    wait_ready(40000, ok);
    check(ok, "the firmware became ready from power-on reset");
    host(32'h044, 32'd100000, 4'hF, v);   // arm the watchdog: the firmware must keep kicking it
    repeat (3000) @(posedge clk);
    host(32'h04C, '0, 4'h0, v);
    check(v == 32'd0, "the watchdog did not expire while the firmware ran");
    host(32'h03C, 32'd1, 4'hF, v);        // RESET: core and tensor core
    wait_ready(40000, ok);
    check(ok, "the firmware became ready after a HOSTIF RESET");
    $display("rel_x: %0d cycles checked, %0d with X", cycle, xs);
    $display("rel_x: %0d passed, %0d failed", passed, failed);
    $finish;
  end
endmodule
