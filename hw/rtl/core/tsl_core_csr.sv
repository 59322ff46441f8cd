// Machine-mode CSR file and trap state of the RV32IM core (Zicsr subset, M-mode only).
// Holds mstatus.MIE/MPIE, mie, mtvec (direct), mscratch, mepc, mcause, mtval and the 64-bit
// mcycle/minstret counters; mip is the live MTIP/MEIP inputs. Reads are combinational; a write, a
// trap entry (trap_i) or mret_i takes effect at the next clock edge. The core asserts at most one of
// csr_we_i, trap_i and mret_i per cycle. csr_illegal_o flags unknown CSRs and writes to read-only
// ones so the core can raise an illegal-instruction trap instead of committing.
module tsl_core_csr (
  input  logic        clk_i,
  input  logic        rst_ni,
  // CSR instruction access
  input  logic [11:0] csr_addr_i,
  input  logic        csr_write_i,   // the instruction would write (used for the read-only check)
  input  logic        csr_we_i,      // commit the write this cycle
  input  logic [31:0] csr_wdata_i,   // new value (already combined for CSRRS/CSRRC)
  output logic [31:0] csr_rdata_o,
  output logic        csr_illegal_o,
  // trap and return
  input  logic        trap_i,        // enter the trap handler at the next edge
  input  logic [31:0] trap_cause_i,
  input  logic [31:0] trap_tval_i,
  input  logic [31:0] trap_epc_i,
  input  logic        mret_i,
  input  logic        retire_i,      // one instruction retired this cycle (minstret)
  output logic [31:0] mtvec_o,
  output logic [31:0] mepc_o,
  // interrupts
  input  logic        irq_timer_i,   // MTIP
  input  logic        irq_ext_i,     // MEIP
  output logic        irq_pending_o, // an enabled interrupt is pending and MIE is set
  output logic [31:0] irq_cause_o    // its mcause value (MEI before MTI)
);
  localparam logic [31:0] MISA = 32'h4000_1100;  // MXL=1 (RV32), I and M

  logic        mie_bit_q, mie_bit_d, mpie_q, mpie_d;   // mstatus.MIE, mstatus.MPIE
  logic        meie_q, meie_d, mtie_q, mtie_d;         // mie.MEIE, mie.MTIE
  logic [31:0] mtvec_q, mtvec_d, mscratch_q, mscratch_d, mepc_q, mepc_d;
  logic [31:0] mcause_q, mcause_d, mtval_q, mtval_d;
  logic [63:0] mcycle_q, mcycle_d, minstret_q, minstret_d;
  logic [31:0] mstatus, mie, mip;

  assign mstatus = {19'd0, 2'b11, 3'd0, mpie_q, 3'd0, mie_bit_q, 3'd0};  // MPP reads as M
  assign mie     = {20'd0, meie_q, 3'd0, mtie_q, 7'd0};
  assign mip     = {20'd0, irq_ext_i, 3'd0, irq_timer_i, 7'd0};
  assign mtvec_o = mtvec_q;
  assign mepc_o  = mepc_q;

  assign irq_pending_o = mie_bit_q && ((meie_q && irq_ext_i) || (mtie_q && irq_timer_i));
  assign irq_cause_o   = (meie_q && irq_ext_i) ? 32'h8000_000b : 32'h8000_0007;

  logic        known;

  // Read mux and existence check.
  always_comb begin
    known       = 1'b1;
    csr_rdata_o = 32'd0;
    unique case (csr_addr_i)
      12'h300: csr_rdata_o = mstatus;
      12'h301: csr_rdata_o = MISA;
      12'h304: csr_rdata_o = mie;
      12'h305: csr_rdata_o = mtvec_q;
      12'h310: csr_rdata_o = 32'd0;           // mstatush
      12'h340: csr_rdata_o = mscratch_q;
      12'h341: csr_rdata_o = mepc_q;
      12'h342: csr_rdata_o = mcause_q;
      12'h343: csr_rdata_o = mtval_q;
      12'h344: csr_rdata_o = mip;
      12'hb00, 12'hc00: csr_rdata_o = mcycle_q[31:0];
      12'hb02, 12'hc02: csr_rdata_o = minstret_q[31:0];
      12'hb80, 12'hc80: csr_rdata_o = mcycle_q[63:32];
      12'hb82, 12'hc82: csr_rdata_o = minstret_q[63:32];
      12'hf11, 12'hf12, 12'hf13, 12'hf14: csr_rdata_o = 32'd0;  // vendor, arch, impl, hart ids
      default: known = 1'b0;
    endcase
    csr_illegal_o = !known || (csr_write_i && csr_addr_i[11:10] == 2'b11);
  end

  // Next state: counters first, then an instruction write, trap entry or mret.
  always_comb begin
    mie_bit_d  = mie_bit_q;
    mpie_d     = mpie_q;
    meie_d     = meie_q;
    mtie_d     = mtie_q;
    mtvec_d    = mtvec_q;
    mscratch_d = mscratch_q;
    mepc_d     = mepc_q;
    mcause_d   = mcause_q;
    mtval_d    = mtval_q;
    mcycle_d   = mcycle_q + 64'd1;
    minstret_d = minstret_q + {63'd0, retire_i};

    if (csr_we_i) begin
      unique case (csr_addr_i)
        12'h300: begin
          mie_bit_d = csr_wdata_i[3];
          mpie_d    = csr_wdata_i[7];
        end
        12'h304: begin
          mtie_d = csr_wdata_i[7];
          meie_d = csr_wdata_i[11];
        end
        12'h305: mtvec_d    = {csr_wdata_i[31:2], 2'b00};
        12'h340: mscratch_d = csr_wdata_i;
        12'h341: mepc_d     = {csr_wdata_i[31:2], 2'b00};
        12'h342: mcause_d   = csr_wdata_i;
        12'h343: mtval_d    = csr_wdata_i;
        12'hb00: mcycle_d   = {mcycle_q[63:32], csr_wdata_i};
        12'hb80: mcycle_d   = {csr_wdata_i, mcycle_q[31:0]};
        12'hb02: minstret_d = {minstret_q[63:32], csr_wdata_i};
        12'hb82: minstret_d = {csr_wdata_i, minstret_q[31:0]};
        default: ;
      endcase
    end else if (trap_i) begin
      mepc_d    = trap_epc_i;
      mcause_d  = trap_cause_i;
      mtval_d   = trap_tval_i;
      mpie_d    = mie_bit_q;
      mie_bit_d = 1'b0;
    end else if (mret_i) begin
      mie_bit_d = mpie_q;
      mpie_d    = 1'b1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mie_bit_q  <= 1'b0;
      mpie_q     <= 1'b0;
      meie_q     <= 1'b0;
      mtie_q     <= 1'b0;
      mtvec_q    <= 32'd0;
      mscratch_q <= 32'd0;
      mepc_q     <= 32'd0;
      mcause_q   <= 32'd0;
      mtval_q    <= 32'd0;
      mcycle_q   <= 64'd0;
      minstret_q <= 64'd0;
    end else begin
      mie_bit_q  <= mie_bit_d;
      mpie_q     <= mpie_d;
      meie_q     <= meie_d;
      mtie_q     <= mtie_d;
      mtvec_q    <= mtvec_d;
      mscratch_q <= mscratch_d;
      mepc_q     <= mepc_d;
      mcause_q   <= mcause_d;
      mtval_q    <= mtval_d;
      mcycle_q   <= mcycle_d;
      minstret_q <= minstret_d;
    end
  end
endmodule
