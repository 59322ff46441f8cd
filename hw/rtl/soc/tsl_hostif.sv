// HOSTIF register block (docs/isa.md §6): command/completion ring registers, doorbell, host
// interrupt, firmware status, host-driven reset of the control and tensor cores, heartbeat,
// watchdog, boot hold, configuration.
// Two register ports with the core's bus contract (request held until a one-cycle ready, rdata/err
// valid with ready): core_* (the core's ext bus, MMAP_HOSTIF_BASE) and host_* (the host's BAR0).
// Latency: each port answers one cycle after its request (registered ready/rdata/err); both ports
// may access in the same cycle. Unmapped offsets answer err; writes to ro registers are ignored.
// Who may write what (same-cycle writes of one register: the host port wins, byte by byte):
//   rw registers (CMD_*, CPL_*, HOST_IRQ_ENABLE, FW_STATUS, HEARTBEAT): both ports, byte strobes.
//   DB_PENDING: set by a host write of CMD_HEAD; w1c from the core port only (host writes ignored).
//   HOST_IRQ_STATUS: set by a core write of HOST_IRQ_SET; w1c from the host port only. Set wins
//   over a same-cycle clear, for both registers, so no doorbell or completion is lost.
//   RESET (host port only; core writes ignored): bit 0 starts a ResetCycles-long pulse on
//   soc_rst_o. HOSTIF registers keep their values, except FW_STATUS, which reads 0 (reset) from
//   the pulse on: it describes the firmware, which restarts. Unimplemented bits read as 0.
//   Watchdog (tsl_wdt): WDT_TIMEOUT is written by the host port only (the firmware cannot disable
//   its own watchdog); a core write of WDT_KICK, a host write of WDT_TIMEOUT or of RESET reloads
//   the counter. On expiry: the same reset pulse as RESET, HOST_IRQ_STATUS.WDT, and
//   WDT_STATUS.EXPIRED (until the next host RESET) and COUNT (saturating); the counter then stays
//   stopped until the rebooted firmware kicks it.
//   BOOT (host port only): HOLD (power-on value BootHold) drives boot_hold_o, which holds the
//   control and tensor cores in reset while the host loads the core's RAM; FW_STATUS reads 0 and
//   the watchdog is reloaded while it is set.
//   CFG_* (read-only): the build parameters, as the TC's CFG_* registers give them to the core.
//   ICI_WAIT (host port only; power-on value ICI_WAIT_CYCLES) drives ici_wait_o, the bound on a
//   SEMWAIT; ICI_CRC_ERRORS counts ici_crc_err_i's pulses (saturating); ICI_LINK_DOWN reads
//   ici_link_down_i. None is touched by RESET.
// The doorbell's prefetch: a host write of CMD_HEAD also names, on prefetch_o / prefetch_addr_o
// (one cycle, registered), the HBM address of the ring entry at CMD_HEAD's old value, the first
// command it announces, so that the core's HBM bridge can fetch that line before the firmware
// asks for it (tsl_axi_from_bus). It is a hint: the firmware reads the entry as before.
module tsl_hostif #(
  parameter int ResetCycles = 4,     // length of the soc_rst_o pulse in cycles (1..7)
  parameter bit BootHold    = 1'b0,  // BOOT.HOLD after power-on
  parameter int N           = tsl_pkg::PARAM_N,           // CFG_* values
  parameter int VmemBytes   = tsl_pkg::PARAM_VMEM_BYTES,
  parameter int AccBytes    = tsl_pkg::PARAM_ACC_BYTES,
  parameter int HbmBytes    = tsl_pkg::PARAM_HBM_BYTES,
  parameter bit EnableBf16  = 1'b1,
  parameter bit EnableSeq   = 1'b1                        // the tensor core's tile sequencer
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        ici_i,      // CFG_FEATURES.ICI: the chip is in a pod (tsl_soc)
  input  logic        ici_crc_err_i,  // the ICI unit dropped a packet for its CRC (a cycle)
  output logic [31:0] ici_wait_o,     // ICI_WAIT
  input  logic [3:0]  ici_link_down_i,  // ICI_LINK_DOWN: the links found down, port p at bit p
  // core side (offset within the block)
  input  logic        core_valid_i,
  output logic        core_ready_o,
  input  logic [11:0] core_addr_i,
  input  logic [31:0] core_wdata_i,
  input  logic [3:0]  core_wstrb_i,
  output logic [31:0] core_rdata_o,
  output logic        core_err_o,
  // host side: BAR0 (offset within the block)
  input  logic        host_valid_i,
  output logic        host_ready_o,
  input  logic [11:0] host_addr_i,
  input  logic [31:0] host_wdata_i,
  input  logic [3:0]  host_wstrb_i,
  output logic [31:0] host_rdata_o,
  output logic        host_err_o,
  // outputs
  output logic        doorbell_o,   // level: DB_PENDING (core irq bit 0)
  output logic        host_irq_o,   // level: |(HOST_IRQ_STATUS & HOST_IRQ_ENABLE)
  output logic        soc_rst_o,    // registered, active high: reset the control and tensor core
  output logic        boot_hold_o,  // registered BOOT.HOLD: hold the control and tensor core in reset
  output logic        prefetch_o,       // one cycle after a doorbell: prefetch_addr_o is worth a read
  output logic [31:0] prefetch_addr_o   // HBM address of the ring entry at CMD_HEAD's old value
);
  `include "hw/rtl/tsl_assert.svh"
  localparam int IrqW = 3;  // HOST_IRQ_STATUS bits: CPL, FAULT, WDT
  localparam logic [IrqW-1:0] FwIrqMask = 3'b011;  // the bits HOST_IRQ_SET may set (not WDT)
  localparam logic [31:0] FwStatusMask = 32'hFFFF_00FF;  // STATE [7:0], CODE [31:16]

  // Port p = 0 core, 1 host, flattened (p*W +: W).
  logic [1:0]  req, ack_q, is_wr;
  logic [23:0] off;
  logic [63:0] wdata, bmask;
  logic [63:0] rdata_q, rdata_d;
  logic [1:0]  err_q, err_d;

  assign req   = {host_valid_i && !ack_q[1], core_valid_i && !ack_q[0]};
  assign off   = {host_addr_i[11:2], 2'b00, core_addr_i[11:2], 2'b00};
  assign wdata = {host_wdata_i, core_wdata_i};
  assign bmask = {{8{host_wstrb_i[3]}}, {8{host_wstrb_i[2]}}, {8{host_wstrb_i[1]}}, {8{host_wstrb_i[0]}},
                  {8{core_wstrb_i[3]}}, {8{core_wstrb_i[2]}}, {8{core_wstrb_i[1]}}, {8{core_wstrb_i[0]}}};
  assign is_wr = {host_wstrb_i != 4'd0, core_wstrb_i != 4'd0};

  logic [31:0] cmd_base_q, cmd_size_q, cmd_head_q, cmd_tail_q;
  logic [31:0] cpl_base_q, cpl_size_q, cpl_head_q, cpl_tail_q;
  logic [31:0] cmd_base_d, cmd_size_d, cmd_head_d, cmd_tail_d;
  logic [31:0] cpl_base_d, cpl_size_d, cpl_head_d, cpl_tail_d;
  logic [31:0] fw_status_q, fw_status_d, heartbeat_q, heartbeat_d;
  logic [IrqW-1:0] irq_status_q, irq_status_d, irq_enable_q, irq_enable_d, irq_set, irq_clr;
  logic        db_q, db_d, db_set, db_clr;
  logic [2:0]  rst_cnt_q, rst_cnt_d;
  logic        rst_start;
  logic [31:0] wdt_timeout_q, wdt_timeout_d;
  logic [15:0] wdt_count_q, wdt_count_d;
  logic        wdt_expired_q, wdt_expired_d, wdt_load, wdt_expire;
  logic        hold_q, hold_d;
  logic [31:0] ici_wait_q, ici_wait_d, crc_errs_q;

  // Byte-strobed update of an rw register.
  function automatic logic [31:0] wr_bytes(input logic [31:0] old, input logic [31:0] val,
                                           input logic [31:0] m);
    wr_bytes = (old & ~m) | (val & m);
  endfunction

  always_comb begin
    cmd_base_d   = cmd_base_q;
    cmd_size_d   = cmd_size_q;
    cmd_head_d   = cmd_head_q;
    cmd_tail_d   = cmd_tail_q;
    cpl_base_d   = cpl_base_q;
    cpl_size_d   = cpl_size_q;
    cpl_head_d   = cpl_head_q;
    cpl_tail_d   = cpl_tail_q;
    fw_status_d  = fw_status_q;
    heartbeat_d  = heartbeat_q;
    irq_enable_d = irq_enable_q;
    irq_set      = '0;
    irq_clr      = '0;
    db_set       = 1'b0;
    db_clr       = 1'b0;
    rst_start    = 1'b0;
    wdt_timeout_d = wdt_timeout_q;
    wdt_load     = 1'b0;
    hold_d       = hold_q;
    ici_wait_d   = ici_wait_q;
    rdata_d      = '0;
    err_d        = '0;
    // Core port first, host port second: the host wins a same-cycle write of one register.
    for (int p = 0; p < 2; p++) begin
      if (req[p]) begin
        unique case (off[p*12 +: 12])
          tsl_pkg::HOSTIF_ID_OFFSET:              rdata_d[p*32 +: 32] = tsl_pkg::ID_VALUE;
          tsl_pkg::HOSTIF_CMD_BASE_OFFSET: begin
            rdata_d[p*32 +: 32] = cmd_base_q;
            if (is_wr[p]) cmd_base_d = wr_bytes(cmd_base_d, wdata[p*32 +: 32], bmask[p*32 +: 32]);
          end
          tsl_pkg::HOSTIF_CMD_SIZE_OFFSET: begin
            rdata_d[p*32 +: 32] = cmd_size_q;
            if (is_wr[p]) cmd_size_d = wr_bytes(cmd_size_d, wdata[p*32 +: 32], bmask[p*32 +: 32]);
          end
          tsl_pkg::HOSTIF_CMD_HEAD_OFFSET: begin
            rdata_d[p*32 +: 32] = cmd_head_q;
            if (is_wr[p]) begin
              cmd_head_d = wr_bytes(cmd_head_d, wdata[p*32 +: 32], bmask[p*32 +: 32]);
              if (p == 1) db_set = 1'b1;  // the host rings the doorbell
            end
          end
          tsl_pkg::HOSTIF_CMD_TAIL_OFFSET: begin
            rdata_d[p*32 +: 32] = cmd_tail_q;
            if (is_wr[p]) cmd_tail_d = wr_bytes(cmd_tail_d, wdata[p*32 +: 32], bmask[p*32 +: 32]);
          end
          tsl_pkg::HOSTIF_CPL_BASE_OFFSET: begin
            rdata_d[p*32 +: 32] = cpl_base_q;
            if (is_wr[p]) cpl_base_d = wr_bytes(cpl_base_d, wdata[p*32 +: 32], bmask[p*32 +: 32]);
          end
          tsl_pkg::HOSTIF_CPL_SIZE_OFFSET: begin
            rdata_d[p*32 +: 32] = cpl_size_q;
            if (is_wr[p]) cpl_size_d = wr_bytes(cpl_size_d, wdata[p*32 +: 32], bmask[p*32 +: 32]);
          end
          tsl_pkg::HOSTIF_CPL_HEAD_OFFSET: begin
            rdata_d[p*32 +: 32] = cpl_head_q;
            if (is_wr[p]) cpl_head_d = wr_bytes(cpl_head_d, wdata[p*32 +: 32], bmask[p*32 +: 32]);
          end
          tsl_pkg::HOSTIF_CPL_TAIL_OFFSET: begin
            rdata_d[p*32 +: 32] = cpl_tail_q;
            if (is_wr[p]) cpl_tail_d = wr_bytes(cpl_tail_d, wdata[p*32 +: 32], bmask[p*32 +: 32]);
          end
          tsl_pkg::HOSTIF_DB_PENDING_OFFSET: begin
            rdata_d[p*32 +: 32] = {31'd0, db_q};
            if (p == 0 && bmask[p*32] && wdata[p*32]) db_clr = 1'b1;  // core: w1c
          end
          tsl_pkg::HOSTIF_HOST_IRQ_STATUS_OFFSET: begin
            rdata_d[p*32 +: 32] = 32'(irq_status_q);
            if (p == 1) irq_clr = wdata[p*32 +: IrqW] & bmask[p*32 +: IrqW];  // host: w1c
          end
          tsl_pkg::HOSTIF_HOST_IRQ_SET_OFFSET: begin
            if (p == 0) irq_set = wdata[p*32 +: IrqW] & bmask[p*32 +: IrqW] & FwIrqMask;  // core: set
          end
          tsl_pkg::HOSTIF_HOST_IRQ_ENABLE_OFFSET: begin
            rdata_d[p*32 +: 32] = 32'(irq_enable_q);
            if (is_wr[p]) begin
              irq_enable_d = (irq_enable_d & ~bmask[p*32 +: IrqW]) |
                             (wdata[p*32 +: IrqW] & bmask[p*32 +: IrqW]);
            end
          end
          tsl_pkg::HOSTIF_FW_STATUS_OFFSET: begin
            rdata_d[p*32 +: 32] = fw_status_q;
            if (is_wr[p]) begin
              fw_status_d = wr_bytes(fw_status_d, wdata[p*32 +: 32], bmask[p*32 +: 32]) &
                            FwStatusMask;
            end
          end
          tsl_pkg::HOSTIF_RESET_OFFSET: begin
            if (p == 1 && bmask[p*32] && wdata[p*32]) rst_start = 1'b1;  // host only
          end
          tsl_pkg::HOSTIF_HEARTBEAT_OFFSET: begin
            rdata_d[p*32 +: 32] = heartbeat_q;
            if (is_wr[p]) heartbeat_d = wr_bytes(heartbeat_d, wdata[p*32 +: 32], bmask[p*32 +: 32]);
          end
          tsl_pkg::HOSTIF_WDT_TIMEOUT_OFFSET: begin
            rdata_d[p*32 +: 32] = wdt_timeout_q;
            if (p == 1 && is_wr[p]) begin  // host only
              wdt_timeout_d = wr_bytes(wdt_timeout_d, wdata[p*32 +: 32], bmask[p*32 +: 32]);
              wdt_load      = 1'b1;
            end
          end
          tsl_pkg::HOSTIF_WDT_KICK_OFFSET: begin
            if (p == 0 && is_wr[p]) wdt_load = 1'b1;  // core only
          end
          tsl_pkg::HOSTIF_WDT_STATUS_OFFSET: begin
            rdata_d[p*32 +: 32] = {wdt_count_q, 15'd0, wdt_expired_q};
          end
          tsl_pkg::HOSTIF_CFG_N_OFFSET:           rdata_d[p*32 +: 32] = 32'(N);
          tsl_pkg::HOSTIF_CFG_VMEM_BYTES_OFFSET:  rdata_d[p*32 +: 32] = 32'(VmemBytes);
          tsl_pkg::HOSTIF_CFG_ACC_BYTES_OFFSET:   rdata_d[p*32 +: 32] = 32'(AccBytes);
          tsl_pkg::HOSTIF_CFG_HBM_BYTES_OFFSET:   rdata_d[p*32 +: 32] = 32'(HbmBytes);
          tsl_pkg::HOSTIF_CFG_FEATURES_OFFSET:    rdata_d[p*32 +: 32] = {25'd0, ici_i, 3'b111, EnableSeq, EnableBf16, 1'b1};  // TRANSPOSE, FETCH, WINDOW: tsl_tc has them
          tsl_pkg::HOSTIF_ICI_WAIT_OFFSET: begin
            rdata_d[p*32 +: 32] = ici_wait_q;
            if (p == 1 && is_wr[p]) ici_wait_d = wr_bytes(ici_wait_d, wdata[p*32 +: 32], bmask[p*32 +: 32]);
          end
          tsl_pkg::HOSTIF_ICI_CRC_ERRORS_OFFSET:  rdata_d[p*32 +: 32] = crc_errs_q;
          tsl_pkg::HOSTIF_ICI_LINK_DOWN_OFFSET:   rdata_d[p*32 +: 32] = 32'(ici_link_down_i);
          tsl_pkg::HOSTIF_BOOT_OFFSET: begin
            rdata_d[p*32 +: 32] = {31'd0, hold_q};
            if (p == 1 && bmask[p*32]) hold_d = wdata[p*32];  // host only
          end
          default: err_d[p] = 1'b1;
        endcase
      end
    end
    // w1c and set: set wins.
    db_d         = (db_q && !db_clr) || db_set;
    irq_status_d = (irq_status_q & ~irq_clr) | irq_set |
                   (IrqW'(wdt_expire) << tsl_pkg::HOSTIF_HOST_IRQ_STATUS_WDT_LSB);
    // Watchdog: a host RESET reloads it and clears EXPIRED; an expiry sets EXPIRED, counts.
    if (rst_start || hold_q) wdt_load = 1'b1;
    wdt_expired_d = (wdt_expired_q && !rst_start) || wdt_expire;
    wdt_count_d   = wdt_count_q + 16'(wdt_expire && wdt_count_q != 16'hFFFF);
    // Reset pulse: (re)started by a host write of RESET bit 0 or a watchdog expiry; FW_STATUS
    // reads "reset" from then on.
    rst_cnt_d = rst_cnt_q;
    if (rst_start || wdt_expire) begin
      rst_cnt_d = 3'(ResetCycles);
    end else if (rst_cnt_q != 3'd0) begin
      rst_cnt_d = rst_cnt_q - 3'd1;
    end
    if (rst_start || wdt_expire || rst_cnt_q != 3'd0 || hold_q) fw_status_d = '0;
  end

  tsl_wdt u_wdt (
    .clk_i,
    .rst_ni,
    .timeout_i (wdt_timeout_d),
    .load_i    (wdt_load),
    .expire_o  (wdt_expire)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cmd_base_q   <= '0;
      cmd_size_q   <= '0;
      cmd_head_q   <= '0;
      cmd_tail_q   <= '0;
      cpl_base_q   <= '0;
      cpl_size_q   <= '0;
      cpl_head_q   <= '0;
      cpl_tail_q   <= '0;
      fw_status_q  <= '0;
      heartbeat_q  <= '0;
      irq_status_q <= '0;
      irq_enable_q <= '0;
      db_q         <= 1'b0;
      rst_cnt_q    <= '0;
      wdt_timeout_q <= '0;
      wdt_count_q  <= '0;
      wdt_expired_q <= 1'b0;
      hold_q       <= BootHold;
      ici_wait_q   <= 32'(tsl_pkg::PARAM_ICI_WAIT_CYCLES);
      crc_errs_q   <= '0;
      ack_q        <= '0;
      err_q        <= '0;
      rdata_q      <= '0;
    end else begin
      cmd_base_q   <= cmd_base_d;
      cmd_size_q   <= cmd_size_d;
      cmd_head_q   <= cmd_head_d;
      cmd_tail_q   <= cmd_tail_d;
      cpl_base_q   <= cpl_base_d;
      cpl_size_q   <= cpl_size_d;
      cpl_head_q   <= cpl_head_d;
      cpl_tail_q   <= cpl_tail_d;
      fw_status_q  <= fw_status_d;
      heartbeat_q  <= heartbeat_d;
      irq_status_q <= irq_status_d;
      irq_enable_q <= irq_enable_d;
      db_q         <= db_d;
      rst_cnt_q    <= rst_cnt_d;
      wdt_timeout_q <= wdt_timeout_d;
      wdt_count_q  <= wdt_count_d;
      wdt_expired_q <= wdt_expired_d;
      hold_q       <= hold_d;
      ici_wait_q   <= ici_wait_d;
      crc_errs_q   <= crc_errs_q + 32'(ici_crc_err_i && crc_errs_q != '1);
      ack_q        <= req;
      err_q        <= err_d;
      rdata_q      <= rdata_d;
    end
  end

  assign ici_wait_o   = ici_wait_q;
  assign core_ready_o = ack_q[0];
  assign core_rdata_o = rdata_q[31:0];
  assign core_err_o   = err_q[0];
  assign host_ready_o = ack_q[1];
  assign host_rdata_o = rdata_q[63:32];
  assign host_err_o   = err_q[1];
  assign doorbell_o   = db_q;
  assign host_irq_o   = |(irq_status_q & irq_enable_q);
  assign soc_rst_o    = rst_cnt_q != 3'd0;
  assign boot_hold_o  = hold_q;

  // The doorbell's prefetch: the entry at the old CMD_HEAD (CMD_SIZE is a power of two; the firmware
  // checks it, and a wrong hint only costs a read).
  localparam int EntryShift = $clog2(tsl_pkg::PARAM_CMD_WORDS * 4);
  logic        pf_q;
  logic [31:0] pf_addr_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) pf_q <= 1'b0;
    else         pf_q <= db_set;
  end
  always_ff @(posedge clk_i) begin
    if (db_set) pf_addr_q <= cmd_base_q + ((cmd_head_q & (cmd_size_q - 32'd1)) << EntryShift);
  end
  assign prefetch_o      = pf_q;
  assign prefetch_addr_o = pf_addr_q;

  logic unused_addr;
  assign unused_addr = ^{core_addr_i[1:0], host_addr_i[1:0]};

  // Assertions
  `TSL_ASSERT_INIT(ResetCyclesRange, ResetCycles >= 1 && ResetCycles <= 7, "ResetCycles must be 1..7")
endmodule
