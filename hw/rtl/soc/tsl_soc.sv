// Tessel product SoC: control subsystem (tsl_cpu_sys), tensor core (tsl_tc), host interface
// (tsl_hostif) and the AXI4 path to HBM. Masters on the one m_axi_* port (tsl_axi_arb,
// round-robin): 0 the TC DMA, 1 the core's HBM window (tsl_axi_from_bus), 2 the host's BAR1, 3
// (EnableIci) the ICI unit's writes of packets from other chips.
// The pod (EnableIci, docs/pod.md): the chip's coordinates and the pod's extents are straps
// (ici_pod_x_i 0: a chip alone, CFG_FEATURES.ICI 0); ici_* are its IciPorts links (+X, -X, +Y,
// -Y), each a flit kind and data out and in, and credits back, with a link model or a neighbour's
// wires between them. The ICI unit (tsl_ici) is reset by rst_ni only.
// Core ext decode: MMAP_HOSTIF_* -> HOSTIF core port; MMAP_TC_* -> tsl_tc registers; the first
// HbmBytes of MMAP_HBM_* -> core bridge (AXI address = addr - MMAP_HBM_BASE); the rest of the
// window answers err (access fault) after one cycle. Host port (core bus contract: request held
// until a one-cycle h_ready_o with h_rdata_o/h_err_o): h_bar_i 0 = BAR0, the HOSTIF registers
// (h_addr_i < MMAP_HOSTIF_BYTES) and, while BOOT.HOLD is set, the core's RAM (full words from
// PARAM_BAR0_RAM_OFFSET); 1 = BAR1, HBM offset h_addr_i < HbmBytes; other addresses err.
// Latency: HOSTIF and the RAM window 1 cycle; an HBM word access 3 cycles plus the HBM's own latency.
// Reset: rst_ni resets everything; a HOSTIF RESET pulse (or the watchdog), and BOOT.HOLD for as
// long as it is set, reset the control core and the tensor core only. HOSTIF, the bridges and the
// arbiter keep running, so an HBM access the core had in flight completes on AXI and is dropped,
// and tsl_axi_iso finishes the TC DMA's bursts.
`include "hw/rtl/tsl_axi.svh"
module tsl_soc #(
  parameter int N          = tsl_pkg::PARAM_N,           // MXU size and VPU lanes; AXI data is 16N bits
  parameter bit EnableBf16 = 1'b1,                       // 1: int8 and bf16/fp32; 0: int8 only
  parameter bit EnableSeq  = 1'b1,                       // 1: the tensor core's tile sequencer
  parameter int VmemBytes  = tsl_pkg::PARAM_VMEM_BYTES,  // VMEM bytes (power of two)
  parameter int AccBytes   = tsl_pkg::PARAM_ACC_BYTES,   // ACC bytes (power of two)
  parameter int HbmBytes   = tsl_pkg::PARAM_HBM_BYTES,   // HBM bytes (power of two, <= MMAP_HBM_BYTES)
  parameter bit BootHold   = 1'b0,                       // HOSTIF BOOT.HOLD after power-on (1: boards
                                                         // whose core RAM the host must load first)
  parameter bit EnableIci  = 1'b1,                       // 1: the ICI unit (a chip of a pod); 0: none,
                                                         // the ici_* outputs idle
  localparam int Dw        = 16 * N,                     // AXI data bits
  localparam int IciPorts  = 4,                          // links: +X, -X, +Y, -Y (a ring uses the X pair)
  localparam int IciFw     = 8 * tsl_pkg::PARAM_ICI_LINK_BYTES_PER_CYCLE,   // flit bits
  localparam int IciCw     = $clog2(tsl_pkg::PARAM_ICI_RX_FLITS + 1)      // credit count bits
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  // host port: BAR0 (HOSTIF registers) and BAR1 (HBM)
  input  logic            h_valid_i,
  output logic            h_ready_o,
  input  logic            h_bar_i,
  input  logic [31:0]     h_addr_i,
  input  logic [31:0]     h_wdata_i,
  input  logic [3:0]      h_wstrb_i,
  output logic [31:0]     h_rdata_o,
  output logic            h_err_o,
  output logic            host_irq_o,
  // AXI4 master toward HBM (no IDs)
  `TSL_AXI_M_PORTS(m_axi_, Dw),
  // simulation/debug side band (tsl_cpu_sys): leave unconnected in a product build
  output logic            console_valid_o,
  output logic [7:0]      console_data_o,
  output logic            exit_valid_o,
  output logic [31:0]     exit_code_o,
  output logic            retire_o,
  output logic            trap_o,
  output logic [31:0]     trap_cause_o,
  output logic [31:0]     trap_pc_o,
  output logic            core_rst_o,  // the cores are in reset: HOSTIF RESET pulse or BOOT.HOLD
  // the pod: straps and links
  input  logic [3:0]                  ici_chip_x_i,
  input  logic [3:0]                  ici_chip_y_i,
  input  logic [4:0]                  ici_pod_x_i,
  input  logic [4:0]                  ici_pod_y_i,
  output logic [2*IciPorts-1:0]       ici_tx_kind_o,
  output logic [IciPorts*IciFw-1:0]   ici_tx_data_o,
  input  logic [IciPorts*IciCw-1:0]   ici_tx_credit_i,
  input  logic [2*IciPorts-1:0]       ici_rx_kind_i,
  input  logic [IciPorts*IciFw-1:0]   ici_rx_data_i,
  output logic [IciPorts*IciCw-1:0]   ici_rx_credit_o,
  output logic                        ici_crc_err_o   // a packet was dropped for its CRC (a cycle)
);
  localparam int Masters = EnableIci ? 4 : 3;  // 0 TC DMA, 1 core window, 2 host BAR1, 3 ICI
  `include "hw/rtl/tsl_assert.svh"

  // --- resets ---------------------------------------------------------------------------------
  logic soc_rst, boot_hold, cores_rst, sys_rst_n;
  assign cores_rst  = soc_rst || boot_hold;
  assign sys_rst_n  = rst_ni && !cores_rst;
  assign core_rst_o = cores_rst;

  // --- control subsystem and its ext decode -----------------------------------------------------
  logic        ext_valid /* verilator public_flat_rd */, ext_ready /* verilator public_flat_rd */, ext_err;
  logic [31:0] ext_addr /* verilator public_flat_rd */, ext_wdata, ext_rdata;
  logic [3:0]  ext_wstrb /* verilator public_flat_rd */;
  logic        tc_irq, doorbell;
  logic        hram_req, hram_ack_q;
  logic [31:0] hram_rdata, h_ram_off;

  tsl_cpu_sys u_sys (
    .clk_i,
    .rst_ni      (sys_rst_n),
    .ext_valid_o (ext_valid),
    .ext_ready_i (ext_ready),
    .ext_addr_o  (ext_addr),
    .ext_wdata_o (ext_wdata),
    .ext_wstrb_o (ext_wstrb),
    .ext_rdata_i (ext_rdata),
    .ext_err_i   (ext_err),
    .irq_i       ({tc_irq, doorbell}),
    .hram_req_i  (hram_req),
    .hram_we_i   (h_wstrb_i != 4'd0),
    .hram_addr_i (h_ram_off),
    .hram_wdata_i(h_wdata_i),
    .hram_rdata_o(hram_rdata),
    .console_valid_o,
    .console_data_o,
    .exit_valid_o,
    .exit_code_o,
    .retire_o,
    .trap_o,
    .trap_cause_o,
    .trap_pc_o
  );

  // The address is held while ext_valid is high, so the selects need no register.
  logic [31:0] hbm_off;
  logic        sel_hostif, sel_tc, sel_hbm, sel_err;
  assign hbm_off    = ext_addr - tsl_pkg::MMAP_HBM_BASE;
  assign sel_hostif = (ext_addr - tsl_pkg::MMAP_HOSTIF_BASE) < tsl_pkg::MMAP_HOSTIF_BYTES;
  assign sel_tc     = (ext_addr - tsl_pkg::MMAP_TC_BASE) < tsl_pkg::MMAP_TC_BYTES;
  assign sel_hbm    = hbm_off < 32'(HbmBytes);
  assign sel_err    = !sel_hostif && !sel_tc && !sel_hbm;

  logic        hif_c_ready, hif_c_err, tc_ready, tc_err, cb_ready, cb_err;
  logic [31:0] hif_c_rdata, tc_rdata, cb_rdata;
  logic        cerr_ack_q, cerr_ack_d;
  assign cerr_ack_d = ext_valid && sel_err && !cerr_ack_q;

  always_comb begin
    ext_ready = cerr_ack_q;
    ext_rdata = '0;
    ext_err   = 1'b1;
    if (sel_hostif) begin
      ext_ready = hif_c_ready;
      ext_rdata = hif_c_rdata;
      ext_err   = hif_c_err;
    end else if (sel_tc) begin
      ext_ready = tc_ready;
      ext_rdata = tc_rdata;
      ext_err   = tc_err;
    end else if (sel_hbm) begin
      ext_ready = cb_ready;
      ext_rdata = cb_rdata;
      ext_err   = cb_err;
    end
  end

  // --- host port decode -------------------------------------------------------------------------
  logic        h_sel_regs, h_sel_hbm, h_sel_ram, h_sel_err;
  logic        hif_h_ready, hif_h_err, hb_ready, hb_err;
  logic [31:0] hif_h_rdata, hb_rdata;
  logic        herr_ack_q, herr_ack_d;
  assign h_sel_regs = !h_bar_i && (h_addr_i < tsl_pkg::MMAP_HOSTIF_BYTES);
  assign h_sel_hbm  = h_bar_i && (h_addr_i < 32'(HbmBytes));
  // The core's RAM through BAR0, only while BOOT.HOLD keeps the core in reset (else: err). Full words.
  assign h_ram_off  = h_addr_i - tsl_pkg::PARAM_BAR0_RAM_OFFSET;
  assign h_sel_ram  = !h_bar_i && boot_hold && (h_wstrb_i == 4'h0 || h_wstrb_i == 4'hF) &&
                      h_ram_off < tsl_pkg::PARAM_RAM_BYTES;
  assign h_sel_err  = !h_sel_regs && !h_sel_hbm && !h_sel_ram;
  assign hram_req   = h_valid_i && h_sel_ram && !hram_ack_q;
  assign herr_ack_d = h_valid_i && h_sel_err && !herr_ack_q;

  always_comb begin
    h_ready_o = herr_ack_q;
    h_rdata_o = '0;
    h_err_o   = 1'b1;
    if (h_sel_regs) begin
      h_ready_o = hif_h_ready;
      h_rdata_o = hif_h_rdata;
      h_err_o   = hif_h_err;
    end else if (h_sel_hbm) begin
      h_ready_o = hb_ready;
      h_rdata_o = hb_rdata;
      h_err_o   = hb_err;
    end else if (h_sel_ram) begin
      h_ready_o = hram_ack_q;
      h_rdata_o = hram_rdata;
      h_err_o   = 1'b0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cerr_ack_q <= 1'b0;
      herr_ack_q <= 1'b0;
      hram_ack_q <= 1'b0;
    end else begin
      cerr_ack_q <= cerr_ack_d;
      herr_ack_q <= herr_ack_d;
      hram_ack_q <= hram_req;
    end
  end

  // --- host interface -------------------------------------------------------------------------
  logic        cmd_pf;        // the doorbell's hint to the core's HBM bridge: the command it announces
  logic [31:0] cmd_pf_addr;
  logic in_pod;
  logic [31:0] ici_wait;   // HOSTIF ICI_WAIT: the bound on a SEMWAIT and on a link without credits
  logic [IciPorts-1:0] ici_link_down;
  assign in_pod = EnableIci && ici_pod_x_i != 5'd0;
  tsl_hostif #(
    .BootHold   (BootHold),
    .N          (N),
    .VmemBytes  (VmemBytes),
    .AccBytes   (AccBytes),
    .HbmBytes   (HbmBytes),
    .EnableBf16 (EnableBf16),
    .EnableSeq  (EnableSeq)
  ) u_hostif (
    .clk_i,
    .rst_ni,
    .ici_i        (in_pod),
    .ici_crc_err_i(ici_crc_err_o),
    .ici_link_down_i(4'(ici_link_down)),
    .ici_wait_o   (ici_wait),
    .core_valid_i (ext_valid && sel_hostif),
    .core_ready_o (hif_c_ready),
    .core_addr_i  (ext_addr[11:0]),
    .core_wdata_i (ext_wdata),
    .core_wstrb_i (ext_wstrb),
    .core_rdata_o (hif_c_rdata),
    .core_err_o   (hif_c_err),
    .host_valid_i (h_valid_i && h_sel_regs),
    .host_ready_o (hif_h_ready),
    .host_addr_i  (h_addr_i[11:0]),
    .host_wdata_i (h_wdata_i),
    .host_wstrb_i (h_wstrb_i),
    .host_rdata_o (hif_h_rdata),
    .host_err_o   (hif_h_err),
    .doorbell_o   (doorbell),
    .host_irq_o,
    .soc_rst_o    (soc_rst),
    .boot_hold_o  (boot_hold),
    .prefetch_o   (cmd_pf),
    .prefetch_addr_o (cmd_pf_addr)
  );

  // --- AXI masters: per-master fields concatenated, master i at [i*W +: W] ------------------------
  `TSL_AXI_WIRES_ARRAY(s_, Dw, Masters)
  // the TC DMA's own port, before its isolation stage
  `TSL_AXI_WIRES(tc_axi_, Dw)
  // the TC DMA's SENDs and SEMWAITs, to the ICI unit
  logic [IciPorts-1:0]      ici_aw_valid, ici_aw_ready, ici_aw_incr, ici_w_valid, ici_w_ready, ici_w_last,
                            ici_b_valid;
  logic [IciPorts*32-1:0]   ici_aw_addr;
  logic [IciPorts*8-1:0]    ici_aw_len;
  logic [IciPorts*4-1:0]    ici_dest_x, ici_dest_y, ici_sem, ici_done_sem;
  logic [IciPorts-1:0]      ici_local, ici_done_inc;
  logic [IciPorts*Dw-1:0]   ici_w_data;
  logic [IciPorts*Dw/8-1:0] ici_w_strb;
  logic [3:0]               sem_wait_sem;
  logic            sem_clear, sem_wait_valid, sem_done, sem_timeout;
  logic            ici_axi_err;   // a remote write answered with an error: cannot happen, the ejector's
                                  // addresses lie inside HBM (asserted)
  logic            unused_ici_err;
  assign unused_ici_err = ici_axi_err;
  logic [15:0]     sem_wait_count;
  // the ICI unit's writes into local memory
  logic                                 ici_lm_req, ici_lm_gnt, ici_lm_acc;
  logic [$clog2((VmemBytes > AccBytes ? VmemBytes : AccBytes)/(2*N))-1:0] ici_lm_addr;
  logic [Dw-1:0]                        ici_lm_wdata;
  logic [Dw/8-1:0]                      ici_lm_be;

  tsl_tc #(
    .N          (N),
    .EnableBf16 (EnableBf16),
    .EnableSeq  (EnableSeq),
    .VmemBytes  (VmemBytes),
    .AccBytes   (AccBytes),
    .HbmBytes   (HbmBytes),
    .EnableIci  (EnableIci),
    .IciPorts   (IciPorts)
  ) u_tc (
    .clk_i,
    .rst_ni        (sys_rst_n),
    .reg_valid_i   (ext_valid && sel_tc),
    .reg_ready_o   (tc_ready),
    .reg_addr_i    (ext_addr[11:0]),
    .reg_wdata_i   (ext_wdata),
    .reg_wstrb_i   (ext_wstrb),
    .reg_rdata_o   (tc_rdata),
    .reg_err_o     (tc_err),
    .irq_o         (tc_irq),
    .chip_x_i      (ici_chip_x_i),
    .chip_y_i      (ici_chip_y_i),
    .pod_x_i       (in_pod ? ici_pod_x_i : 5'd0),
    .pod_y_i       (ici_pod_y_i),
    .ici_aw_valid_o(ici_aw_valid),
    .ici_aw_ready_i(ici_aw_ready),
    .ici_aw_addr_o (ici_aw_addr),
    .ici_aw_len_o  (ici_aw_len),
    .ici_aw_incr_o (ici_aw_incr),
    .ici_dest_x_o  (ici_dest_x),
    .ici_dest_y_o  (ici_dest_y),
    .ici_sem_o     (ici_sem),
    .ici_local_o    (ici_local),
    .ici_w_valid_o (ici_w_valid),
    .ici_w_ready_i (ici_w_ready),
    .ici_w_data_o  (ici_w_data),
    .ici_w_strb_o  (ici_w_strb),
    .ici_w_last_o  (ici_w_last),
    .ici_b_valid_i (ici_b_valid),
    .ici_done_inc_o(ici_done_inc),
    .ici_done_sem_o(ici_done_sem),
    .ici_lm_req_i  (ici_lm_req),
    .ici_lm_gnt_o  (ici_lm_gnt),
    .ici_lm_acc_i  (ici_lm_acc),
    .ici_lm_addr_i (ici_lm_addr),
    .ici_lm_wdata_i(ici_lm_wdata),
    .ici_lm_be_i   (ici_lm_be),
    .sem_clear_o   (sem_clear),
    .sem_wait_valid_o(sem_wait_valid),
    .sem_wait_sem_o  (sem_wait_sem),
    .sem_wait_count_o(sem_wait_count),
    .sem_done_i    (sem_done),
    .sem_timeout_i (sem_timeout),
    `TSL_AXI_CONNECT(m_axi_, tc_axi_)
  );

  // Master 3: the ICI unit's writes of packets from other chips.
  if (EnableIci) begin : g_ici
    tsl_ici #(.N(N), .HbmBytes(HbmBytes), .VmemBytes(VmemBytes), .AccBytes(AccBytes),
              .Ports(IciPorts)) u_ici (
      .clk_i,
      .rst_ni,
      .chip_x_i      (ici_chip_x_i),
      .chip_y_i      (ici_chip_y_i),
      .pod_x_i       (ici_pod_x_i),
      .pod_y_i       (ici_pod_y_i),
      .aw_valid_i    (ici_aw_valid),
      .aw_ready_o    (ici_aw_ready),
      .aw_addr_i     (ici_aw_addr),
      .aw_len_i      (ici_aw_len),
      .aw_incr_i     (ici_aw_incr),
      .dest_x_i      (ici_dest_x),
      .dest_y_i      (ici_dest_y),
      .sem_i         (ici_sem),
      .local_i       (ici_local),
      .w_valid_i     (ici_w_valid),
      .w_ready_o     (ici_w_ready),
      .w_data_i      (ici_w_data),
      .w_strb_i      (ici_w_strb),
      .w_last_i      (ici_w_last),
      .b_valid_o     (ici_b_valid),
      .done_inc_i    (ici_done_inc),
      .done_sem_i    (ici_done_sem),
      .wait_limit_i  (ici_wait),
      .sem_clear_i   (sem_clear || cores_rst),
      .wait_valid_i  (sem_wait_valid),
      .wait_sem_i    (sem_wait_sem),
      .wait_count_i  (sem_wait_count),
      .wait_done_o   (sem_done),
      .wait_timeout_o(sem_timeout),
      `TSL_AXI_CONNECT_SLICE(m_axi_, s_, Dw, 3),
      .lm_req_o      (ici_lm_req),
      .lm_gnt_i      (ici_lm_gnt),
      .lm_acc_o      (ici_lm_acc),
      .lm_addr_o     (ici_lm_addr),
      .lm_wdata_o    (ici_lm_wdata),
      .lm_be_o       (ici_lm_be),
      .tx_kind_o     (ici_tx_kind_o),
      .tx_data_o     (ici_tx_data_o),
      .tx_credit_i   (ici_tx_credit_i),
      .rx_kind_i     (ici_rx_kind_i),
      .rx_data_i     (ici_rx_data_i),
      .rx_credit_o   (ici_rx_credit_o),
      .crc_err_o     (ici_crc_err_o),
      .link_down_o   (ici_link_down),
      .axi_err_o     (ici_axi_err)
    );
    `TSL_ASSERT(IciWritesOk, !ici_axi_err, "a remote write was answered with an AXI error")
  end else begin : g_no_ici
    assign {ici_aw_ready, ici_w_ready, ici_b_valid, sem_done, sem_timeout, ici_axi_err} = '0;
    assign {ici_lm_req, ici_lm_acc, ici_lm_addr, ici_lm_wdata, ici_lm_be} = '0;
    assign {ici_tx_kind_o, ici_tx_data_o, ici_rx_credit_o, ici_crc_err_o, ici_link_down} = '0;
    logic unused_ici;
    assign unused_ici = ^{ici_aw_valid, ici_aw_addr, ici_aw_len, ici_aw_incr, ici_dest_x, ici_dest_y, ici_sem,
                          ici_w_valid, ici_w_data, ici_w_strb, ici_w_last, sem_clear, sem_wait_valid,
                          sem_wait_sem, sem_wait_count, ici_tx_credit_i, ici_rx_kind_i, ici_rx_data_i, ici_wait,
                          ici_local, ici_done_inc, ici_done_sem, ici_lm_gnt};
  end

  // Master 0 goes through an isolation stage: when the cores are reset, what the DMA had started on
  // AXI is finished there (late R beats and B responses dropped, owed W beats sent with no strobes),
  // so the interconnect and HBM never see a half-done burst and the reset DMA never sees a stale one.
  tsl_axi_iso #(.DataW(Dw)) u_tc_iso (
    .clk_i,
    .rst_ni,
    .iso_i     (cores_rst),
    `TSL_AXI_CONNECT(s_, tc_axi_),
    `TSL_AXI_CONNECT_SLICE(m_, s_, Dw, 0)
  );

  // Master 1: the core's HBM window. Its access is abandoned (not answered) when the core resets.
  // Reads fetch 64-byte lines (a command ring entry); the line is dropped when another master
  // starts a write, when the host touches a register (it rings the doorbell after writing a command,
  // possibly behind the SoC's back in a simulator) and on a reset. The doorbell's hint (cmd_pf) has
  // the bridge fetch the announced entry's line at once, so the firmware's read of it hits.
  localparam int CoreLineBeats = (Dw >= 512) ? 1 : 512 / Dw;
  logic core_line_inval;
  assign core_line_inval = s_awvalid[0] || s_awvalid[2] || (EnableIci && s_awvalid[Masters-1]) ||
                           (h_valid_i && !h_sel_hbm) || soc_rst;
  tsl_axi_from_bus #(.DataW(Dw), .LineBeats(CoreLineBeats)) u_core_axi (
    .clk_i,
    .rst_ni,
    .clr_i         (soc_rst),
    .inval_i       (core_line_inval),
    .pf_i          (cmd_pf),
    .pf_addr_i     (cmd_pf_addr),
    .bus_valid_i   (ext_valid && sel_hbm),
    .bus_ready_o   (cb_ready),
    .bus_addr_i    (hbm_off),
    .bus_wdata_i   (ext_wdata),
    .bus_wstrb_i   (ext_wstrb),
    .bus_rdata_o   (cb_rdata),
    .bus_err_o     (cb_err),
    `TSL_AXI_CONNECT_SLICE(m_axi_, s_, Dw, 1)
  );

  // Master 2: the host's BAR1.
  tsl_axi_from_bus #(.DataW(Dw)) u_host_axi (
    .clk_i,
    .rst_ni,
    .clr_i         (1'b0),
    .inval_i       (1'b0),
    .pf_i          (1'b0),
    .pf_addr_i     (32'd0),
    .bus_valid_i   (h_valid_i && h_sel_hbm),
    .bus_ready_o   (hb_ready),
    .bus_addr_i    (h_addr_i),
    .bus_wdata_i   (h_wdata_i),
    .bus_wstrb_i   (h_wstrb_i),
    .bus_rdata_o   (hb_rdata),
    .bus_err_o     (hb_err),
    `TSL_AXI_CONNECT_SLICE(m_axi_, s_, Dw, 2)
  );

  // 32 bursts in flight per direction (the TC DMA's DmaMaxReads): rows of 4 beats and more (the
  // sequencer's B panels and tile rows) still stream at the HBM's rate through its 100-cycle latency.
  tsl_axi_arb #(.Masters(Masters), .DataW(Dw), .Depth(32)) u_arb (
    .clk_i,
    .rst_ni,
    `TSL_AXI_CONNECT(s_axi_, s_),
    `TSL_AXI_CONNECT(m_axi_, m_axi_)
  );
endmodule
