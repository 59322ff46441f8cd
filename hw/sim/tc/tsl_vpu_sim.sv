// Simulation top for the VPU tests: tsl_vpu with a VMEM RAM (lines of 2N bytes) and an ACC RAM
// (lines of 4N bytes) that follow the memory-port contract of docs/hardware.md: the grant is
// combinational, rdata is valid exactly one cycle after a granted read (and poisoned otherwise, so
// that a unit that samples it at any other time fails the test).
// gnt_deny_i[0] / [1] refuse the VMEM / ACC grant this cycle (random back-pressure from the harness),
// on both of the VPU's ports: the main one and the early read port, which reads beside a write of
// the main one (the RAMs read once and write once a cycle).
// The dbg_* back door reads and writes whole lines while the VPU is idle; it has priority (a VPU
// request in the same cycle is not granted). dbg read data appears one cycle after dbg_*_re_i.
module tsl_vpu_sim #(
  parameter int N          = 16,     // lanes
  parameter int VmemBytes  = 65536,  // VMEM size in bytes
  parameter int AccBytes   = 16384,  // ACC size in bytes
  parameter bit EnableBf16 = 1'b1,   // float ops built in
  parameter int FnRows     = tsl_pkg::PARAM_VPU_FN_ROWS   // rows a function runs at once
) (
  input  logic                                clk_i,
  input  logic                                rst_ni,
  input  logic                                ex_valid_i,
  output logic                                ex_ready_o,
  input  logic [255:0]                        ex_insn_i,
  output logic                                done_o,
  output logic                                busy_o,
  input  logic [1:0]                          gnt_deny_i,
  // back door
  input  logic                                dbg_vmem_we_i,
  input  logic                                dbg_vmem_re_i,
  input  logic [$clog2(VmemBytes/(2*N))-1:0]  dbg_vmem_addr_i,
  input  logic [16*N-1:0]                     dbg_vmem_wdata_i,
  output logic [16*N-1:0]                     dbg_vmem_rdata_o,
  input  logic                                dbg_acc_we_i,
  input  logic                                dbg_acc_re_i,
  input  logic [$clog2(AccBytes/(4*N))-1:0]   dbg_acc_addr_i,
  input  logic [32*N-1:0]                     dbg_acc_wdata_i,
  output logic [32*N-1:0]                     dbg_acc_rdata_o,
  // port activity, for the harness's statistics
  output logic                                vmem_gnt_o,
  output logic                                acc_gnt_o
);
  localparam int VAW = $clog2(VmemBytes / (2 * N));
  localparam int AAW = $clog2(AccBytes / (4 * N));

  logic            vmem_req, vmem_gnt, vmem_we, acc_req, acc_gnt, acc_we;
  logic [VAW-1:0]  vmem_addr;
  logic [AAW-1:0]  acc_addr;
  logic [16*N-1:0] vmem_wdata, vmem_rdata, vmem_ram_rdata;
  logic [2*N-1:0]  vmem_be;
  logic [32*N-1:0] acc_wdata, acc_rdata, acc_ram_rdata;
  logic [4*N-1:0]  acc_be;
  logic            vmem_rd_q, acc_rd_q;
  logic            vmem_e_req, vmem_e_gnt, acc_e_req, acc_e_gnt, vmem_e_rd_q, acc_e_rd_q;
  logic [VAW-1:0]  vmem_e_addr;
  logic [AAW-1:0]  acc_e_addr;
  logic [16*N-1:0] vmem_e_rdata;
  logic [32*N-1:0] acc_e_rdata;

  tsl_vpu #(
    .N         (N),
    .VmemBytes (VmemBytes),
    .AccBytes  (AccBytes),
    .FnRows    (FnRows),
    .EnableBf16(EnableBf16)
  ) u_vpu (
    .clk_i,
    .rst_ni,
    .ex_valid_i,
    .ex_ready_o,
    .ex_insn_i,
    .done_o,
    .busy_o,
    .vmem_req_o  (vmem_req),
    .vmem_gnt_i  (vmem_gnt),
    .vmem_we_o   (vmem_we),
    .vmem_addr_o (vmem_addr),
    .vmem_wdata_o(vmem_wdata),
    .vmem_be_o   (vmem_be),
    .vmem_rdata_i(vmem_rdata),
    .acc_req_o   (acc_req),
    .acc_gnt_i   (acc_gnt),
    .acc_we_o    (acc_we),
    .acc_addr_o  (acc_addr),
    .acc_wdata_o (acc_wdata),
    .acc_be_o    (acc_be),
    .acc_rdata_i (acc_rdata),
    .vmem_e_req_o  (vmem_e_req),
    .vmem_e_gnt_i  (vmem_e_gnt),
    .vmem_e_addr_o (vmem_e_addr),
    .vmem_e_rdata_i(vmem_e_rdata),
    .acc_e_req_o   (acc_e_req),
    .acc_e_gnt_i   (acc_e_gnt),
    .acc_e_addr_o  (acc_e_addr),
    .acc_e_rdata_i (acc_e_rdata)
  );

  assign vmem_gnt   = vmem_req && !gnt_deny_i[0] && !dbg_vmem_we_i && !dbg_vmem_re_i;
  assign acc_gnt    = acc_req && !gnt_deny_i[1] && !dbg_acc_we_i && !dbg_acc_re_i;
  // the early read port: only while the main port does not read (the RAM's one read a cycle)
  assign vmem_e_gnt = vmem_e_req && !gnt_deny_i[0] && !dbg_vmem_we_i && !dbg_vmem_re_i && !(vmem_gnt && !vmem_we);
  assign acc_e_gnt  = acc_e_req && !gnt_deny_i[1] && !dbg_acc_we_i && !dbg_acc_re_i && !(acc_gnt && !acc_we);
  assign vmem_gnt_o = vmem_gnt;
  assign acc_gnt_o  = acc_gnt;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      vmem_rd_q   <= 1'b0;
      acc_rd_q    <= 1'b0;
      vmem_e_rd_q <= 1'b0;
      acc_e_rd_q  <= 1'b0;
    end else begin
      vmem_rd_q   <= vmem_gnt && !vmem_we;
      acc_rd_q    <= acc_gnt && !acc_we;
      vmem_e_rd_q <= vmem_e_gnt;
      acc_e_rd_q  <= acc_e_gnt;
    end
  end

  // Outside the valid cycle the unit sees the inverted data.
  assign vmem_rdata = vmem_rd_q ? vmem_ram_rdata : ~vmem_ram_rdata;
  assign acc_rdata  = acc_rd_q ? acc_ram_rdata : ~acc_ram_rdata;
  assign vmem_e_rdata = vmem_e_rd_q ? vmem_ram_rdata : ~vmem_ram_rdata;
  assign acc_e_rdata  = acc_e_rd_q ? acc_ram_rdata : ~acc_ram_rdata;

  tsl_prim_ram_1r1w #(
    .Depth(2 ** VAW),
    .Width(16 * N)
  ) u_vmem (
    .clk_i,
    .we_i   (dbg_vmem_we_i || (vmem_gnt && vmem_we)),
    .waddr_i(dbg_vmem_we_i ? dbg_vmem_addr_i : vmem_addr),
    .wdata_i(dbg_vmem_we_i ? dbg_vmem_wdata_i : vmem_wdata),
    .be_i   (dbg_vmem_we_i ? '1 : vmem_be),
    .re_i   (dbg_vmem_re_i || (vmem_gnt && !vmem_we) || vmem_e_gnt),
    .raddr_i(dbg_vmem_re_i ? dbg_vmem_addr_i : vmem_e_gnt ? vmem_e_addr : vmem_addr),
    .rdata_o(vmem_ram_rdata)
  );

  tsl_prim_ram_1r1w #(
    .Depth(2 ** AAW),
    .Width(32 * N)
  ) u_acc (
    .clk_i,
    .we_i   (dbg_acc_we_i || (acc_gnt && acc_we)),
    .waddr_i(dbg_acc_we_i ? dbg_acc_addr_i : acc_addr),
    .wdata_i(dbg_acc_we_i ? dbg_acc_wdata_i : acc_wdata),
    .be_i   (dbg_acc_we_i ? '1 : acc_be),
    .re_i   (dbg_acc_re_i || (acc_gnt && !acc_we) || acc_e_gnt),
    .raddr_i(dbg_acc_re_i ? dbg_acc_addr_i : acc_e_gnt ? acc_e_addr : acc_addr),
    .rdata_o(acc_ram_rdata)
  );

  assign dbg_vmem_rdata_o = vmem_ram_rdata;
  assign dbg_acc_rdata_o  = acc_ram_rdata;
endmodule
