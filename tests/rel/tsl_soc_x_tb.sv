// 4-state X check of tsl_soc (Icarus): the firmware (cp.elf, +prog=HEX) runs from reset on a small
// SoC (N=4) and every cycle after reset the architectural state must be free of X/Z:
//   control core: PC, FSM state, every register-file write (the registers are datapath and start
//   unknown; none may ever be written with an unknown value), the CSRs (mstatus, mie, mtvec,
//   mscratch, mepc, mcause, mtval, mcycle, minstret);
//   tensor core: the controller's state, push/notify counts, error registers, tokens/credits; the
//   tile sequencer's state, its descriptor, and the launch check's verdict when it ends;
//   HOSTIF: every register; the SoC's outputs: the host port, host_irq_o and every AXI valid/ready.
// The host port reads ID and FW_STATUS (until ready) and arms the watchdog; then int8 GEMMs run
// through the command ring, each as the PROGRAM the host's compiler made of it (tests/rel/x_progs.c,
// +progs=HEX: a PROG_SLOT-word slot per GEMM, its length and its records), run by the tile
// sequencer (each GEMM must pass at least one launch check) (HBM is tsl_fpga_hbm, loaded and read
// back through its RAM) and C is compared with exact integer products; an AXI write of an unknown
// data byte is an X too. Then two
// more GEMMs each have a DMA burst held in HBM while the host writes RESET (tsl_axi_iso finishes the
// burst; the rebooted firmware reruns the command, exactly). Last, a RESET with nothing in flight.
// Prints "rel_x: N passed, M failed" (one check per phase and GEMM) and the first X seen.
// Icarus 11's $isunknown can report X on a concatenation of known nets, so the checks use a
// reduction XOR, which is X exactly when some bit is X or Z.
`define UNKNOWN(v) ((^(v)) === 1'bx)
`timescale 1ns/1ps
module tsl_soc_x_tb;
  localparam int N = 4;
  localparam int Dw = 16 * N, VmemBytes = 16384, AccBytes = 4096, HbmBytes = 1 << 20, Wb = Dw / 8;
  logic clk = 1'b0, rst_n = 1'b0;
  logic h_valid = 1'b0, h_bar = 1'b0, h_ready, h_err, host_irq;
  logic [31:0] h_addr = '0, h_wdata = '0, h_rdata;
  logic [3:0]  h_wstrb = '0;
  logic awvalid, wvalid, bready, arvalid, rready, wlast;
  logic awready, wready, bvalid, arready, rvalid, rlast;
  logic [Dw-1:0] rdata;
  logic [31:0] awaddr, araddr, exit_code, trap_cause, trap_pc;
  logic [7:0] awlen, arlen, console_data;
  logic [2:0] awsize, arsize;
  logic [1:0] awburst, arburst;
  logic [Dw-1:0] wdata;
  logic [Dw/8-1:0] wstrb;
  logic console_valid, exit_valid, retire, trap, core_rst;
  int unsigned cycle = 0, xs = 0, passed = 0, failed = 0, seq_runs = 0;
  // A chip alone (pod extents 0): its ICI unit idle, links quiet.
  localparam int IciCw = $clog2(tsl_pkg::PARAM_ICI_RX_FLITS + 1);
  localparam int IciFw = 8 * tsl_pkg::PARAM_ICI_LINK_BYTES_PER_CYCLE;
  logic [4*IciCw-1:0] ici_credit0 = '0, ici_rx_credit;
  logic [7:0]         ici_kind0 = '0, ici_tx_kind;
  logic [4*IciFw-1:0] ici_data0 = '0, ici_tx_data;
  logic               ici_crc_err;

  tsl_soc #(.N(N), .EnableBf16(1'b0), .EnableSeq(1'b1), .VmemBytes(VmemBytes), .AccBytes(AccBytes),
            .HbmBytes(HbmBytes)) dut (
    .clk_i(clk), .rst_ni(rst_n),
    .h_valid_i(h_valid), .h_ready_o(h_ready), .h_bar_i(h_bar), .h_addr_i(h_addr),
    .h_wdata_i(h_wdata), .h_wstrb_i(h_wstrb), .h_rdata_o(h_rdata), .h_err_o(h_err),
    .host_irq_o(host_irq),
    .m_axi_awvalid(awvalid), .m_axi_awready(awready), .m_axi_awaddr(awaddr), .m_axi_awlen(awlen),
    .m_axi_awsize(awsize), .m_axi_awburst(awburst), .m_axi_wvalid(wvalid), .m_axi_wready(wready),
    .m_axi_wdata(wdata), .m_axi_wstrb(wstrb), .m_axi_wlast(wlast), .m_axi_bvalid(bvalid),
    .m_axi_bready(bready), .m_axi_bresp(2'b00), .m_axi_arvalid(arvalid), .m_axi_arready(arready),
    .m_axi_araddr(araddr), .m_axi_arlen(arlen), .m_axi_arsize(arsize), .m_axi_arburst(arburst),
    .m_axi_rvalid(rvalid), .m_axi_rready(rready), .m_axi_rdata(rdata), .m_axi_rresp(2'b00),
    .m_axi_rlast(rlast),
    .console_valid_o(console_valid), .console_data_o(console_data), .exit_valid_o(exit_valid),
    .exit_code_o(exit_code), .retire_o(retire), .trap_o(trap), .trap_cause_o(trap_cause),
    .trap_pc_o(trap_pc), .core_rst_o(core_rst),
    .ici_chip_x_i(4'd0), .ici_chip_y_i(4'd0), .ici_pod_x_i(5'd0), .ici_pod_y_i(5'd0),
    .ici_tx_kind_o(ici_tx_kind), .ici_tx_data_o(ici_tx_data), .ici_tx_credit_i(ici_credit0),
    .ici_rx_kind_i(ici_kind0), .ici_rx_data_i(ici_data0), .ici_rx_credit_o(ici_rx_credit),
    .ici_crc_err_o(ici_crc_err)
  );

  always #5 clk = ~clk;

  // HBM: the FPGA boards' on-chip AXI memory (tsl_fpga_hbm), read and written directly by the
  // checks through its RAM. Fault injection between it and the SoC: the next read (write) burst
  // that starts in [stall_lo, stall_hi) is held stall_cycles, a read before its first R beat, a
  // write after its first W beat (so a beat waits).
  logic        h_rvalid, h_rready, h_wvalid, h_wready;
  logic        rd_arm = 1'b0, wr_arm = 1'b0, wr_hold = 1'b0;
  int unsigned rd_wait = 0, wr_wait = 0, stall_cycles = 0;
  logic [31:0] stall_lo = '0, stall_hi = '0;
  assign rvalid   = h_rvalid && rd_wait == 0;
  assign h_rready = rready && rd_wait == 0;
  assign h_wvalid = wvalid && wr_wait == 0;
  assign wready   = h_wready && wr_wait == 0;

  tsl_fpga_hbm #(.DataW(Dw), .Bytes(HbmBytes)) u_hbm (
    .clk_i(clk), .rst_ni(rst_n),
    .s_axi_awvalid(awvalid), .s_axi_awready(awready), .s_axi_awaddr(awaddr), .s_axi_awlen(awlen),
    .s_axi_awsize(awsize), .s_axi_awburst(awburst), .s_axi_wvalid(h_wvalid), .s_axi_wready(h_wready),
    .s_axi_wdata(wdata), .s_axi_wstrb(wstrb), .s_axi_wlast(wlast), .s_axi_bvalid(bvalid),
    .s_axi_bready(bready), .s_axi_bresp(), .s_axi_arvalid(arvalid), .s_axi_arready(arready),
    .s_axi_araddr(araddr), .s_axi_arlen(arlen), .s_axi_arsize(arsize), .s_axi_arburst(arburst),
    .s_axi_rvalid(h_rvalid), .s_axi_rready(h_rready), .s_axi_rdata(rdata), .s_axi_rresp(),
    .s_axi_rlast(rlast)
  );

  always @(posedge clk) begin
    if (arvalid && arready && rd_arm && araddr >= stall_lo && araddr < stall_hi) begin
      rd_wait <= stall_cycles; rd_arm <= 1'b0;
    end else if (rd_wait != 0) begin
      rd_wait <= rd_wait - 1;
    end
    if (awvalid && awready && wr_arm && awaddr >= stall_lo && awaddr < stall_hi) begin
      wr_hold <= 1'b1; wr_arm <= 1'b0;
    end else if (wr_wait != 0) begin
      wr_wait <= wr_wait - 1;
    end else if (wvalid && wready) begin
      for (int i = 0; i < Wb; i++)
        if (wstrb[i] && `UNKNOWN(wdata[8 * i +: 8])) x_seen("AXI write data");
      if (wr_hold) begin wr_wait <= stall_cycles; wr_hold <= 1'b0; end
    end
  end

  // Byte access to the HBM's RAM.
  function automatic logic [7:0] hbm_rd8(input logic [31:0] a);
    return u_hbm.u_ram.mem[a / Wb][8 * (a % Wb) +: 8];
  endfunction
  task automatic hbm_wr8(input logic [31:0] a, input logic [7:0] v);
    u_hbm.u_ram.mem[a / Wb][8 * (a % Wb) +: 8] = v;
  endtask

  // A bound on the whole run: a hung test fails instead of running forever.
  always @(posedge clk) if (cycle >= 400000) begin
    $display("rel_x: FAIL: still running after %0d cycles", cycle);
    $display("rel_x: %0d passed, %0d failed", passed, failed + 1);
    $finish;
  end

  task automatic x_seen(input string what);
    if (xs == 0)
      $display("rel_x: X in %s at cycle %0d (core pc 0x%08x)", what, cycle, dut.u_sys.u_core.pc_q);
    xs++;
  endtask

  // Architectural state, checked on every falling edge after reset.
  always @(negedge clk) if (rst_n) begin
    cycle++;
    if (`UNKNOWN({h_ready, h_err, host_irq, awvalid, wvalid, bready, arvalid, rready}))
      x_seen("SoC outputs");
    if (`UNKNOWN({dut.u_sys.u_core.pc_q, dut.u_sys.u_core.state_q})) x_seen("core PC/state");
    if (dut.u_sys.u_core.u_regfile.we_i &&
        `UNKNOWN({dut.u_sys.u_core.u_regfile.waddr_i, dut.u_sys.u_core.u_regfile.wdata_i}))
      x_seen("a register-file write");
    if (`UNKNOWN({dut.u_sys.u_core.u_csr.mie_bit_q, dut.u_sys.u_core.u_csr.mpie_q,
                    dut.u_sys.u_core.u_csr.meie_q, dut.u_sys.u_core.u_csr.mtie_q,
                    dut.u_sys.u_core.u_csr.mtvec_q, dut.u_sys.u_core.u_csr.mscratch_q,
                    dut.u_sys.u_core.u_csr.mepc_q, dut.u_sys.u_core.u_csr.mcause_q,
                    dut.u_sys.u_core.u_csr.mtval_q, dut.u_sys.u_core.u_csr.mcycle_q,
                    dut.u_sys.u_core.u_csr.minstret_q})) x_seen("core CSRs");
    if (`UNKNOWN({dut.u_tc.u_ctrl.state_q, dut.u_tc.u_ctrl.credit_q, dut.u_tc.u_ctrl.push_count_q,
                    dut.u_tc.u_ctrl.notify_count_q, dut.u_tc.u_ctrl.err_code_q, dut.u_tc.u_ctrl.err_unit_q,
                    dut.u_tc.u_ctrl.err_seq_q, dut.u_tc.u_ctrl.err_addr_q, dut.u_tc.u_ctrl.wbuf_push_q,
                    dut.u_tc.u_ctrl.wbuf_exec_q})) x_seen("tensor-core control registers");
    if (`UNKNOWN({dut.u_tc.u_ctrl.g_seq.u_seq.st_q, dut.u_tc.u_ctrl.g_seq.u_seq.desc_q,
                    dut.u_tc.u_ctrl.g_seq.u_seq.u_chk.run_q, dut.u_tc.u_ctrl.g_seq.u_seq.u_chk.step_q}))
      x_seen("tile sequencer state");
    if (dut.u_tc.u_ctrl.g_seq.u_seq.u_chk.done_o) begin
      if (`UNKNOWN({dut.u_tc.u_ctrl.g_seq.u_seq.u_chk.err_o, dut.u_tc.u_ctrl.g_seq.u_seq.u_chk.err_addr_o}))
        x_seen("the launch check's verdict");
      if (dut.u_tc.u_ctrl.g_seq.u_seq.u_chk.err_o == tsl_pkg::ERR_NONE) seq_runs++;
    end
    if (`UNKNOWN({dut.u_hostif.cmd_base_q, dut.u_hostif.cmd_size_q, dut.u_hostif.cmd_head_q,
                    dut.u_hostif.cmd_tail_q, dut.u_hostif.cpl_base_q, dut.u_hostif.cpl_size_q,
                    dut.u_hostif.cpl_head_q, dut.u_hostif.cpl_tail_q, dut.u_hostif.fw_status_q,
                    dut.u_hostif.heartbeat_q, dut.u_hostif.irq_status_q, dut.u_hostif.irq_enable_q,
                    dut.u_hostif.db_q, dut.u_hostif.wdt_timeout_q, dut.u_hostif.wdt_count_q,
                    dut.u_hostif.wdt_expired_q})) x_seen("HOSTIF registers");
    if (trap && !`UNKNOWN(trap_cause)) begin
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
    if (ok && xs == 0) begin
      passed++;
      $display("rel_x: ok: %s", what);
    end else begin
      failed++;
      $display("rel_x: FAIL: %s (%0d X cycles so far)", what, xs);
    end
  endtask

  // Poll FW_STATUS until STATE = ready or `limit` cycles.
  task automatic wait_ready(input int unsigned limit, output bit ok);
    logic [31:0] v;
    int unsigned start = cycle, runs = seq_runs;
    ok = 1'b0;
    while (!ok && cycle - start < limit) begin
      host(32'h038, '0, 4'h0, v);
      ok = v[7:0] == 8'd1;
      repeat (50) @(posedge clk);
    end
  endtask

  // SRAMs power up holding arbitrary values, so VMEM and ACC start with random words rather than X;
  // flip-flops that are not reset keep their X, and those are what this test is about.
  localparam int VBanks = 4, ABanks = 2;   // tsl_tc defaults
  for (genvar b = 0; b < VBanks; b++) begin : g_vmem_init
    initial for (int i = 0; i < VmemBytes / (2 * N) / VBanks; i++)
      dut.u_tc.u_vmem.g_bank[b].u_ram.mem[i] = {$urandom, $urandom};
  end
  for (genvar b = 0; b < ABanks; b++) begin : g_acc_init
    initial for (int i = 0; i < AccBytes / (4 * N) / ABanks; i++)
      dut.u_tc.u_acc.g_bank[b].u_ram.mem[i] = {$urandom, $urandom, $urandom, $urandom};
  end

  // HBM backdoor and one GEMM through the command ring: int8 A (M x K) and B (K x N) with values
  // from a fixed LCG, int32 C, optionally + an int32 bias row and ReLU (the VPU epilogue), checked
  // element by element against exact integer results.
  localparam logic [31:0] CmdBase = 32'h0, CplBase = 32'h1000, ABase = 32'h2000, BBase = 32'h3000,
                          CBase = 32'h4000, BiasBase = 32'h5000, ProgBase = 32'h8000;
  localparam int RingSize = 4, ProgSlot = 4096, Progs = 4;
  logic [31:0] progs [Progs * ProgSlot];
  int unsigned lcg = 32'd12345, cmds = 0;
  function automatic logic [7:0] next_byte();
    lcg = lcg * 32'd1103515245 + 32'd12345;
    return lcg[23:16];
  endfunction
  function automatic logic [31:0] rd32(input logic [31:0] a);
    return {hbm_rd8(a + 3), hbm_rd8(a + 2), hbm_rd8(a + 1), hbm_rd8(a)};
  endfunction
  task automatic wr32(input logic [31:0] a, input logic [31:0] v);
    for (int i = 0; i < 4; i++) hbm_wr8(a + 32'(i), v[8 * i +: 8]);
  endtask

  // fault: 0 none; 1 (2) the first burst reading A (writing C) is held 20 000 cycles and the host
  // RESETs the cores meanwhile. The interrupted command has no completion, so the rebooted firmware
  // runs it again; the held burst then ends in tsl_axi_iso, and the rerun must still be exact.
  task automatic gemm(input int m, input int n, input int k, input bit bias_relu, input int fault);
    logic [31:0] w [16];
    logic [31:0] v, slot;
    int bad = 0, acc, drained = 0;
    bit done = 1'b0, held = 1'b0;
    string name = $sformatf("GEMM %0dx%0dx%0d", m, n, k);
    int unsigned start = cycle, runs = seq_runs;
    if (bias_relu) name = {name, " +bias ReLU"};   // (?: would pad strings to one width in Icarus)
    if (fault == 1) name = {name, ", A read held over a RESET"};
    if (fault == 2) name = {name, ", C write held over a RESET"};
    for (int i = 0; i < m * k; i++) hbm_wr8(ABase + 32'(i), next_byte());
    for (int i = 0; i < k * n; i++) hbm_wr8(BBase + 32'(i), next_byte());
    for (int i = 0; i < n; i++) wr32(BiasBase + 32'(4 * i), {{20{next_byte() > 8'd127}}, next_byte(), 4'd0});
    // the GEMM's program (compiled for these operands), and a PROGRAM whose window holds them
    for (int i = 0; i < int'(progs[cmds * ProgSlot]); i++)
      wr32(ProgBase + 32'(4 * i), progs[cmds * ProgSlot + 1 + i]);
    foreach (w[i]) w[i] = '0;
    w[0]  = 32'(tsl_pkg::CMD_OP_PROGRAM);
    w[1]  = 32'hA000 + 32'(cmds);
    w[4]  = 4 * progs[cmds * ProgSlot];
    w[6]  = ProgBase;
    w[8]  = ABase;   w[10] = BiasBase + 32'h1000;   // WIN_BASE, WIN_LIMIT
    slot = CmdBase + 32'((cmds % RingSize) * 64);
    foreach (w[i]) wr32(slot + 32'(4 * i), w[i]);
    cmds++;
    stall_lo = fault == 1 ? ABase : CBase;
    stall_hi = stall_lo + 32'h1000;
    stall_cycles = 20000;
    rd_arm = fault == 1;
    wr_arm = fault == 2;
    host(32'h010, 32'(cmds), 4'hF, v);    // CMD_HEAD: the doorbell
    if (fault != 0) begin
      while (!held && cycle - start < 100000) begin
        @(posedge clk);
        held = rd_wait != 0 || wr_wait != 0;
      end
      check(held, $sformatf("%s: the burst was held", name));
      host(32'h03C, 32'd1, 4'hF, v);      // RESET with the burst outstanding
      while (!dut.u_tc_iso.drain_q && drained < 1000) begin @(posedge clk); drained++; end
      drained = 0;
      while (dut.u_tc_iso.drain_q) begin @(posedge clk); drained++; end
      check(drained > 0 && rd_wait == 0 && wr_wait == 0,
            $sformatf("%s: tsl_axi_iso drained the burst for %0d cycles", name, drained));
    end
    while (!done && cycle - start < 400000) begin
      repeat (100) @(posedge clk);
      host(32'h020, '0, 4'h0, v);           // CPL_HEAD
      done = v == 32'(cmds);
    end
    slot = CplBase + 32'(((cmds - 1) % RingSize) * 16);
    v = rd32(slot + 4);
    check(done && rd32(slot) == w[1] && v[15:0] == 16'(tsl_pkg::CMD_ERR_OK),
          $sformatf("%s completes with status OK", name));
    for (int i = 0; i < m; i++)
      for (int j = 0; j < n; j++) begin
        acc = 0;
        for (int x = 0; x < k; x++)
          acc += $signed(hbm_rd8(ABase + 32'(i * k + x))) * $signed(hbm_rd8(BBase + 32'(x * n + j)));
        if (bias_relu) begin
          acc += $signed(rd32(BiasBase + 32'(4 * j)));
          if (acc < 0) acc = 0;
        end
        if (rd32(CBase + 32'(4 * (i * n + j))) !== 32'(acc)) bad++;
      end
    host(32'h024, 32'(cmds), 4'hF, v);    // CPL_TAIL
    check(done && bad == 0, $sformatf("%s: C is exact (%0d wrong, %0d cycles)", name, bad, cycle - start));
    check(seq_runs > runs, $sformatf("%s: the tile sequencer ran it (%0d launches)", name, seq_runs - runs));
  endtask

  initial begin
    string prog, pfile;
    logic [31:0] v;
    bit ok;
    if (!$value$plusargs("prog=%s", prog) || !$value$plusargs("progs=%s", pfile)) begin
      $display("rel_x: usage: +prog=FILE.hex +progs=PROGS.hex");
      $finish;
    end
    $readmemh(pfile, progs);
    $readmemh(prog, dut.u_sys.u_ram.mem);
    for (int i = 0; i < HbmBytes / Wb; i++)   // HBM holds some value, as on a board
      u_hbm.u_ram.mem[i] = {$urandom, $urandom};
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
    host(32'h008, CmdBase, 4'hF, v);   host(32'h00C, RingSize, 4'hF, v);
    host(32'h018, CplBase, 4'hF, v);   host(32'h01C, RingSize, 4'hF, v);
    gemm(5, 6, 7, 1'b0, 0);
    gemm(9, 8, 12, 1'b1, 0);
    gemm(8, 8, 8, 1'b0, 1);
    gemm(8, 12, 8, 1'b1, 2);
    host(32'h03C, 32'd1, 4'hF, v);        // RESET: core and tensor core
    wait_ready(40000, ok);
    check(ok, "the firmware became ready after a HOSTIF RESET");
    $display("rel_x: %0d cycles checked, %0d with X", cycle, xs);
    $display("rel_x: %0d passed, %0d failed", passed, failed);
    $finish;
  end
endmodule
