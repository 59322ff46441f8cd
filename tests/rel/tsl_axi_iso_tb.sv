// Directed 4-state test of tsl_axi_iso (Icarus): the testbench is both the resettable master and
// the slave, and records every slave-side handshake.
//   1. pass-through: a 4-beat write and a 4-beat read reach the other side unchanged, same cycle;
//   2. reset in the middle of a write burst with a beat waiting for WREADY: that beat is sent as it
//      was, the two still owed go with WSTRB 0 and WLAST on the fourth, the B is taken here;
//   3. reset with an AR waiting for ARREADY: the AR stays valid with its payload until accepted,
//      and its R beats, which arrive after the reset, are taken here;
//   4. afterwards a new write and read pass through again.
// The master never sees a ready, an R beat or a B during the drain. Prints "axi_iso: N passed, M failed".
`timescale 1ns/1ps
module tsl_axi_iso_tb;
  localparam int Dw = 64, Sw = Dw / 8;
  logic clk = 1'b0, rst_n = 1'b0, iso = 1'b0;
  // master side
  logic s_awvalid = 0, s_wvalid = 0, s_bready = 0, s_arvalid = 0, s_rready = 0, s_wlast = 0;
  logic [31:0] s_awaddr = 0, s_araddr = 0;
  logic [7:0]  s_awlen = 0, s_arlen = 0;
  logic [Dw-1:0] s_wdata = 0;
  logic [Sw-1:0] s_wstrb = 0;
  logic s_awready, s_wready, s_bvalid, s_arready, s_rvalid, s_rlast;
  logic [1:0] s_bresp, s_rresp;
  logic [Dw-1:0] s_rdata;
  // slave side
  logic m_awready = 0, m_wready = 0, m_bvalid = 0, m_arready = 0, m_rvalid = 0, m_rlast = 0;
  logic [Dw-1:0] m_rdata = 0;
  logic m_awvalid, m_wvalid, m_wlast, m_bready, m_arvalid, m_rready;
  logic [31:0] m_awaddr, m_araddr;
  logic [7:0]  m_awlen, m_arlen;
  logic [2:0]  m_awsize, m_arsize;
  logic [1:0]  m_awburst, m_arburst;
  logic [Dw-1:0] m_wdata;
  logic [Sw-1:0] m_wstrb;
  int passed = 0, failed = 0, master_saw = 0;

  tsl_axi_iso #(.DataW(Dw)) dut (
    .clk_i(clk), .rst_ni(rst_n), .iso_i(iso),
    .s_awvalid, .s_awready, .s_awaddr, .s_awlen, .s_awsize(3'd3), .s_awburst(2'b01),
    .s_wvalid, .s_wready, .s_wdata, .s_wstrb, .s_wlast, .s_bvalid, .s_bready, .s_bresp,
    .s_arvalid, .s_arready, .s_araddr, .s_arlen, .s_arsize(3'd3), .s_arburst(2'b01),
    .s_rvalid, .s_rready, .s_rdata, .s_rresp, .s_rlast,
    .m_awvalid, .m_awready, .m_awaddr, .m_awlen, .m_awsize, .m_awburst,
    .m_wvalid, .m_wready, .m_wdata, .m_wstrb, .m_wlast, .m_bvalid, .m_bready, .m_bresp(2'b00),
    .m_arvalid, .m_arready, .m_araddr, .m_arlen, .m_arsize, .m_arburst,
    .m_rvalid, .m_rready, .m_rdata, .m_rresp(2'b00), .m_rlast
  );

  always #5 clk = ~clk;

  // Slave-side log of W beats: data, strobes, last.
  logic [Dw-1:0] w_data [$];
  logic [Sw-1:0] w_strb [$];
  logic          w_last [$];
  int aw_seen = 0, ar_seen = 0, b_taken = 0, r_taken = 0;
  logic [31:0] ar_addr_seen;
  always @(posedge clk) begin
    if (m_wvalid && m_wready) begin w_data.push_back(m_wdata); w_strb.push_back(m_wstrb); w_last.push_back(m_wlast); end
    if (m_awvalid && m_awready) aw_seen++;
    if (m_arvalid && m_arready) begin ar_seen++; ar_addr_seen = m_araddr; end
    if (m_bvalid && m_bready) b_taken++;
    if (m_rvalid && m_rready) r_taken++;
    if (iso || dut.drain_q) if (s_awready || s_wready || s_bvalid || s_arready || s_rvalid) master_saw++;
    if ((^{m_awvalid, m_wvalid, m_bready, m_arvalid, m_rready}) === 1'bx && rst_n) begin
      failed++; $display("axi_iso: FAIL: X on a slave-side control signal");
    end
  end

  task automatic check(input bit ok, input string what);
    if (ok) passed++;
    else begin failed++; $display("axi_iso: FAIL: %s", what); end
  endtask

  task automatic tick; @(posedge clk); #1; endtask

  task automatic clear_log; w_data = {}; w_strb = {}; w_last = {}; endtask

  initial begin
    repeat (3) tick();
    rst_n = 1'b1;
    tick();

    // 1. pass-through
    s_awvalid = 1; s_awaddr = 32'h100; s_awlen = 8'd3; m_awready = 1;
    #0 check(m_awvalid && m_awaddr == 32'h100, "pass-through: AW reaches the slave side in the same cycle");
    tick(); s_awvalid = 0; m_awready = 0;
    m_wready = 1; s_wvalid = 1; s_wstrb = '1;
    for (int i = 0; i < 4; i++) begin s_wdata = 64'(i + 1); s_wlast = i == 3; tick(); end
    s_wvalid = 0; s_wlast = 0; m_wready = 0;
    m_bvalid = 1; s_bready = 1; #0 check(s_bvalid, "pass-through: B reaches the master"); tick();
    m_bvalid = 0; s_bready = 0;
    check(w_data.size() == 4 && w_data[3] == 64'd4 && w_last[3] && !w_last[2] && w_strb[0] == '1,
          "pass-through: 4 W beats unchanged, WLAST on the fourth");
    s_arvalid = 1; s_araddr = 32'h200; s_arlen = 8'd3; m_arready = 1; tick(); s_arvalid = 0; m_arready = 0;
    s_rready = 1; m_rvalid = 1;
    for (int i = 0; i < 4; i++) begin m_rdata = 64'(i + 10); m_rlast = i == 3; #0 check(s_rvalid && s_rdata == 64'(i + 10), "pass-through: R beat"); tick(); end
    m_rvalid = 0; m_rlast = 0; s_rready = 0;
    check(dut.rd_cnt_q == 0 && dut.b_cnt_q == 0 && !dut.drain_q, "pass-through: nothing outstanding");

    // 2. reset in the middle of a write burst, the second beat waiting for WREADY
    clear_log();
    s_awvalid = 1; s_awaddr = 32'h300; s_awlen = 8'd3; m_awready = 1; tick(); s_awvalid = 0; m_awready = 0;
    s_wvalid = 1; s_wstrb = 8'h0F; s_wdata = 64'hA1; m_wready = 1; tick();
    s_wdata = 64'hA2; m_wready = 0; tick(); tick();     // beat 2 waits
    iso = 1; s_wvalid = 0; s_wdata = 'x;                  // the master is reset
    #0 check(m_wvalid && m_wdata == 64'hA2 && m_wstrb == 8'h0F, "reset mid-burst: the waiting beat is still offered as it was");
    repeat (4) tick();
    iso = 0;
    m_wready = 1; repeat (4) tick(); m_wready = 0;
    check(w_data.size() == 4 && w_data[1] == 64'hA2 && w_strb[1] == 8'h0F && w_strb[2] == '0 && w_strb[3] == '0 &&
          !w_last[2] && w_last[3], "reset mid-burst: beat 2 as it was, beats 3 and 4 with no strobes, WLAST on 4");
    check(dut.drain_q, "reset mid-burst: still draining until the B");
    m_bvalid = 1; tick(); m_bvalid = 0; tick();
    check(b_taken == 2 && !dut.drain_q, "reset mid-burst: the B is taken here and the drain ends");

    // 3. reset with an AR waiting, R beats after the reset
    s_arvalid = 1; s_araddr = 32'h400; s_arlen = 8'd1; tick(); tick();
    iso = 1; s_arvalid = 0; s_araddr = 'x;
    tick(); #0 check(m_arvalid && m_araddr == 32'h400 && m_arlen == 8'd1, "reset with AR waiting: AR held with its payload");
    iso = 0; m_arready = 1; tick(); m_arready = 0;
    check(ar_seen == 2 && ar_addr_seen == 32'h400, "reset with AR waiting: accepted once");
    repeat (3) tick();
    m_rvalid = 1; m_rdata = 64'hBAD; tick(); m_rlast = 1; tick(); m_rvalid = 0; m_rlast = 0; tick();
    check(r_taken == 6 && !dut.drain_q, "reset with AR waiting: both R beats taken here, drain over");

    // 4. normal again
    clear_log();
    s_awvalid = 1; s_awaddr = 32'h500; s_awlen = 8'd0; m_awready = 1; tick(); s_awvalid = 0; m_awready = 0;
    s_wvalid = 1; s_wdata = 64'h55; s_wstrb = '1; s_wlast = 1; m_wready = 1; tick(); s_wvalid = 0; s_wlast = 0; m_wready = 0;
    m_bvalid = 1; s_bready = 1; #0 check(s_bvalid, "after the drain: B reaches the master again"); tick(); m_bvalid = 0; s_bready = 0;
    check(w_data.size() == 1 && w_data[0] == 64'h55 && w_last[0], "after the drain: a write passes through");
    check(master_saw == 0, "the master saw no ready and no response during the drains");
    $display("axi_iso: %0d passed, %0d failed", passed, failed);
    $finish;
  end
endmodule
