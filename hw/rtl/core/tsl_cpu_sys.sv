// Control subsystem: tsl_core + local RAM + SYS MMIO block + an external bus port for the rest of
// the SoC. Address decode (tsl_pkg MMAP_*): RAM at RamBase (RamBytes), SYS registers at
// MMAP_SYS_BASE (0x1000_0000, 8 words); the host interface (MMAP_HOSTIF_*), tensor-core registers
// (MMAP_TC_*) and HBM window (MMAP_HBM_*) go out on ext_*, which follows the core's bus contract. Every
// other address answers after one cycle with read data 0, writes ignored and bus error set, which
// the core turns into an access-fault trap. RAM and SYS answer one cycle after valid; ext latency
// is whatever the attached slave takes. The core's instruction port shares the single RAM port:
// it is granted in any cycle that the data bus and hram_* leave free, and its word comes the cycle
// after the grant. The reset PC is RamBase. The hram_* port reaches the RAM
// directly, for a host that loads it while the core is held in reset (tsl_soc BOOT.HOLD); it
// wins over the core, whose accesses it would corrupt otherwise. Read data: the cycle after.
module tsl_cpu_sys #(
  parameter logic [31:0] RamBase  = tsl_pkg::MMAP_RAM_BASE,    // RAM base and reset PC
  parameter int          RamBytes = tsl_pkg::PARAM_RAM_BYTES,  // RAM size in bytes (power of two)
  parameter int          NumIrq   = 2,              // external interrupt sources (IRQ_STATUS bits)
  parameter bit          IterMul  = 1'b0            // core multiplier: 0 one-cycle, 1 iterative
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // external bus port (host interface, tensor-core registers, HBM window)
  output logic              ext_valid_o,
  input  logic              ext_ready_i,
  output logic [31:0]       ext_addr_o,
  output logic [31:0]       ext_wdata_o,
  output logic [3:0]        ext_wstrb_o,
  input  logic [31:0]       ext_rdata_i,
  input  logic              ext_err_i,
  // interrupt sources (level): bit 0 doorbell, bit 1 tensor core
  input  logic [NumIrq-1:0] irq_i,
  // RAM port for the host while the core is held in reset (byte offset in the RAM, word aligned)
  input  logic              hram_req_i,
  input  logic              hram_we_i,
  input  logic [31:0]       hram_addr_i,
  input  logic [31:0]       hram_wdata_i,
  output logic [31:0]       hram_rdata_o,
  // simulation/console side band from the SYS block
  output logic              console_valid_o,
  output logic [7:0]        console_data_o,
  output logic              exit_valid_o,
  output logic [31:0]       exit_code_o,
  output logic              retire_o,        // debug/statistics: instruction retired
  output logic              trap_o,          // debug: trap entry, with its mcause and mepc
  output logic [31:0]       trap_cause_o,
  output logic [31:0]       trap_pc_o
);
  localparam int          RamAw   = $clog2(RamBytes / 4);

  logic        bus_valid, bus_ready, bus_instr, bus_err;
  logic [31:0] bus_addr, bus_wdata, bus_rdata;
  logic [3:0]  bus_wstrb;
  logic        irq_timer, irq_ext;
  logic        instr_req, instr_gnt, instr_rvalid_q;
  logic [31:0] instr_addr, ram_rdata, sys_rdata;
  logic        sys_err, sel_ram_q, sel_sys_q;

  tsl_core #(.BootAddr(RamBase), .RamBase(RamBase), .RamBytes(RamBytes), .IterMul(IterMul)) u_core (
    .clk_i,
    .rst_ni,
    .bus_valid_o (bus_valid),
    .bus_ready_i (bus_ready),
    .bus_addr_o  (bus_addr),
    .bus_wdata_o (bus_wdata),
    .bus_wstrb_o (bus_wstrb),
    .bus_instr_o (bus_instr),
    .bus_rdata_i (bus_rdata),
    .bus_err_i   (bus_err),
    .instr_req_o    (instr_req),
    .instr_addr_o   (instr_addr),
    .instr_gnt_i    (instr_gnt),
    .instr_rvalid_i (instr_rvalid_q),
    .instr_rdata_i  (ram_rdata),
    .irq_timer_i (irq_timer),
    .irq_ext_i   (irq_ext),
    .retire_o,
    .trap_o,
    .trap_cause_o,
    .trap_pc_o
  );

  // Decode. The address is stable while bus_valid is high, so the select needs no register.
  logic sel_ram, sel_sys, sel_ext;
  assign sel_ram = (bus_addr - RamBase) < 32'(RamBytes);
  assign sel_sys = (bus_addr[31:5] == tsl_pkg::MMAP_SYS_BASE[31:5]);  // 8 registers; rest of page faults
  assign sel_ext = ((bus_addr - tsl_pkg::MMAP_HOSTIF_BASE) < tsl_pkg::MMAP_HOSTIF_BYTES) ||
                   ((bus_addr - tsl_pkg::MMAP_TC_BASE) < tsl_pkg::MMAP_TC_BYTES) ||
                   ((bus_addr - tsl_pkg::MMAP_HBM_BASE) < tsl_pkg::MMAP_HBM_BYTES);

  // Local targets (RAM, SYS, error) answer one cycle after the request.
  logic local_req, local_ack_q, local_ack_d;
  assign local_req   = bus_valid && !sel_ext && !local_ack_q;
  assign local_ack_d = local_req;

  // RAM port priority: hram_*, then the data bus, then instruction fetch.
  logic        data_ram;
  logic [31:0] ram_addr;
  assign data_ram  = local_req && sel_ram;
  assign instr_gnt = instr_req && !hram_req_i && !data_ram;
  always_comb begin
    if (hram_req_i)    ram_addr = hram_addr_i;
    else if (data_ram) ram_addr = bus_addr;   // RamBase is aligned to RamBytes
    else               ram_addr = instr_addr;
  end
  tsl_prim_ram #(.Depth(RamBytes / 4), .Width(32)) u_ram (
    .clk_i,
    .req_i   (hram_req_i || data_ram || instr_gnt),
    .we_i    (hram_req_i ? hram_we_i : data_ram && bus_wstrb != 4'd0),
    .addr_i  (ram_addr[RamAw+1:2]),
    .wdata_i (hram_req_i ? hram_wdata_i : bus_wdata),
    .be_i    (hram_req_i ? 4'hF : bus_wstrb),
    .rdata_o (ram_rdata)
  );
  assign hram_rdata_o = ram_rdata;

  tsl_cpu_sys_regs #(.NumIrq(NumIrq)) u_sys_regs (
    .clk_i,
    .rst_ni,
    .req_i           (local_req && sel_sys),
    .addr_i          ({bus_addr[4:2], 2'b00}),
    .wdata_i         (bus_wdata),
    .wstrb_i         (bus_wstrb),
    .rdata_o         (sys_rdata),
    .err_o           (sys_err),
    .console_valid_o,
    .console_data_o,
    .exit_valid_o,
    .exit_code_o,
    .irq_i,
    .irq_timer_o     (irq_timer),
    .irq_ext_o       (irq_ext)
  );

  assign ext_valid_o = bus_valid && sel_ext;
  assign ext_addr_o  = bus_addr;
  assign ext_wdata_o = bus_wdata;
  assign ext_wstrb_o = bus_wstrb;

  always_comb begin
    if (sel_ext) begin
      bus_ready = ext_ready_i;
      bus_rdata = ext_rdata_i;
      bus_err   = ext_err_i;
    end else begin
      bus_ready = local_ack_q;
      bus_rdata = sel_ram_q ? ram_rdata : (sel_sys_q ? sys_rdata : 32'd0);
      bus_err   = sel_sys_q ? sys_err : !sel_ram_q;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      instr_rvalid_q <= 1'b0;
      local_ack_q <= 1'b0;
      sel_ram_q   <= 1'b0;
      sel_sys_q   <= 1'b0;
    end else begin
      instr_rvalid_q <= instr_gnt;
      local_ack_q <= local_ack_d;
      sel_ram_q   <= sel_ram;
      sel_sys_q   <= sel_sys;
    end
  end

  logic unused_instr;
  assign unused_instr = ^{bus_instr, ram_addr[31:RamAw+2], ram_addr[1:0]};
endmodule
