// Tessel control core: a small pipelined RV32IM processor, machine mode only, with a Zicsr subset.
// Two stages overlap: tsl_core_fetch streams instruction words from the local RAM through the
// pipelined instr_* port while the execute stage runs the previous instruction (register file read,
// ALU, branch, CSR, load/store, writeback). CPI from the local RAM: 1 for ALU/CSR ops, JAL and
// branches that go the predicted way (backward taken, forward not taken), 2 for other branches,
// JALR, loads and stores, 34 for divides; multiplies take 1 (36 with IterMul). Code outside the RAM
// is fetched through the data bus, one instruction at a time and never speculatively. Interrupts
// (MTIP, MEIP) are taken between instructions.
// Bus contract (PicoRV32-like): the core raises bus_valid_o with bus_addr_o/bus_wdata_o/bus_wstrb_o
// (all-zero wstrb = read, bus_instr_o = fetch) and holds them steady until the slave answers with
// bus_ready_i for one cycle, in which bus_rdata_i and bus_err_i are sampled. bus_err_i with
// bus_ready_i ends the access as an access fault (mcause 1, 5 or 7; mtval = address). Data accesses
// are made only by the instruction that owns them, in program order, exactly once.
module tsl_core #(
  parameter logic [31:0] BootAddr = 32'h8000_0000,  // reset PC (default: RAM base)
  parameter logic [31:0] RamBase  = BootAddr,       // window fetched through instr_* (local RAM)
  parameter int          RamBytes = 65536,          // its size in bytes (0: fetch all on bus_*)
  parameter bit          IterMul  = 1'b0            // 0: 1-cycle multiplier (DSP-friendly);
                                                    // 1: 35-cycle shift-add multiplier (small)
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  output logic        bus_valid_o,
  input  logic        bus_ready_i,
  output logic [31:0] bus_addr_o,
  output logic [31:0] bus_wdata_o,
  output logic [3:0]  bus_wstrb_o,
  output logic        bus_instr_o,   // 1: instruction fetch
  input  logic [31:0] bus_rdata_i,
  input  logic        bus_err_i,     // with bus_ready_i: access fault
  // instruction port to the local RAM: a request granted in cycle t returns its word in t+1
  output logic        instr_req_o,
  output logic [31:0] instr_addr_o,
  input  logic        instr_gnt_i,
  input  logic        instr_rvalid_i,
  input  logic [31:0] instr_rdata_i,
  input  logic        irq_timer_i,   // MTIP, level
  input  logic        irq_ext_i,     // MEIP, level
  output logic        retire_o,      // pulses once per retired instruction (statistics)
  output logic        trap_o,        // pulses once per trap entry (debug; cause/pc below)
  output logic [31:0] trap_cause_o,  // mcause of that trap
  output logic [31:0] trap_pc_o      // mepc of that trap
);
  // Execute-stage states (plain constants rather than an enum: Icarus 11 mis-types enum assignments
  // here). StIdle: waiting for the fetch unit; StFetch: fetching through the data bus (outside the
  // RAM); StExec: an instruction is being executed; StMem: its load/store waits for bus_ready_i;
  // StDiv: the iterative unit runs.
  localparam logic [2:0] StIdle = 3'd0, StFetch = 3'd1, StExec = 3'd2, StMem = 3'd3, StDiv = 3'd4;

  localparam logic [6:0] OpLui = 7'b0110111, OpAuipc = 7'b0010111, OpJal = 7'b1101111,
                         OpJalr = 7'b1100111, OpBranch = 7'b1100011, OpLoad = 7'b0000011,
                         OpStore = 7'b0100011, OpImm = 7'b0010011, OpReg = 7'b0110011,
                         OpFence = 7'b0001111, OpSystem = 7'b1110011;

  logic [2:0]  state_q, state_d;
  logic [31:0] pc_q, pc_d, ir_q, ir_d;

  // Instruction fields.
  logic [6:0]  opcode, funct7;
  logic [2:0]  funct3;
  logic [4:0]  rd;
  logic [31:0] imm_i, imm_s, imm_b, imm_u, imm_j;
  assign opcode = ir_q[6:0];
  assign rd     = ir_q[11:7];
  assign funct3 = ir_q[14:12];
  assign funct7 = ir_q[31:25];
  assign imm_i  = {{20{ir_q[31]}}, ir_q[31:20]};
  assign imm_s  = {{20{ir_q[31]}}, ir_q[31:25], ir_q[11:7]};
  assign imm_b  = {{19{ir_q[31]}}, ir_q[31], ir_q[7], ir_q[30:25], ir_q[11:8], 1'b0};
  assign imm_u  = {ir_q[31:12], 12'd0};
  assign imm_j  = {{11{ir_q[31]}}, ir_q[31], ir_q[19:12], ir_q[20], ir_q[30:21], 1'b0};

  // Fetch unit: the next instruction word and its address, from the local RAM.
  logic        take, redirect, cand_valid;
  logic [31:0] cand_ir, cand_pc;
  tsl_core_fetch #(.BootAddr(BootAddr), .RamBase(RamBase), .RamBytes(RamBytes)) u_fetch (
    .clk_i,
    .rst_ni,
    .instr_req_o,
    .instr_addr_o,
    .instr_gnt_i,
    .instr_rvalid_i,
    .instr_rdata_i,
    .take_i        (take),
    .redirect_i    (redirect),
    .redirect_pc_i (pc_d),
    .cand_valid_o  (cand_valid),
    .cand_ir_o     (cand_ir),
    .cand_pc_o     (cand_pc)
  );

  // Register file: read when the next instruction enters execute (from the fetch unit, or from the
  // bus in StFetch), written when an instruction finishes; a read in the cycle of a write sees it.
  logic [31:0] rs1, rs2, rf_wdata;
  logic [24:15] rf_rword;   // rs2 and rs1 fields of the word entering execute
  logic        rf_we, rf_re;
  assign rf_rword = (state_q == StFetch) ? bus_rdata_i[24:15] : cand_ir[24:15];
  tsl_core_regfile u_regfile (
    .clk_i,
    .re_i      (rf_re),
    .raddr_a_i (rf_rword[19:15]),
    .raddr_b_i (rf_rword[24:20]),
    .rdata_a_o (rs1),
    .rdata_b_o (rs2),
    .we_i      (rf_we),
    .waddr_i   (rd),
    .wdata_i   (rf_wdata)
  );

  // ALU: register-register or register-immediate. SRAI/SUB use bit 30; ADDI never subtracts.
  // For loads, stores and JALR it computes the address rs1 + imm (funct3 forced to ADD).
  logic        is_op_reg, is_op_imm, is_muldiv;
  logic [31:0] alu_result;
  assign is_op_reg = (opcode == OpReg);
  assign is_op_imm = (opcode == OpImm);
  assign is_muldiv = is_op_reg && funct7 == 7'b0000001;
  tsl_core_alu #(.MulEnable(!IterMul)) u_alu (
    .a_i      (rs1),
    .b_i      (is_op_reg ? rs2 : ((opcode == OpStore) ? imm_s : imm_i)),
    .funct3_i ((is_op_reg || is_op_imm) ? funct3 : 3'd0),
    .alt_i    (ir_q[30] && (is_op_reg || (is_op_imm && funct3 == 3'd5))),
    .mul_i    (is_muldiv && !funct3[2] && !IterMul),
    .result_o (alu_result)
  );

  // One adder for the PC-relative targets and values: JAL, branches, AUIPC.
  logic [31:0] pc_rel, pc_imm;
  always_comb begin
    unique case (opcode)
      OpJal:   pc_imm = imm_j;
      OpAuipc: pc_imm = imm_u;
      default: pc_imm = imm_b;
    endcase
  end
  assign pc_rel = pc_q + pc_imm;

  // Divides (and, with IterMul, multiplies) go to the iterative unit.
  logic        div_start, div_done, use_muldiv;
  logic [31:0] div_result;
  assign use_muldiv = is_muldiv && (funct3[2] || IterMul);
  tsl_core_muldiv #(.IterMul(IterMul)) u_muldiv (
    .clk_i,
    .rst_ni,
    .start_i  (div_start),
    .is_div_i (funct3[2]),
    .a_i      (rs1),
    .b_i      (rs2),
    .funct3_i (funct3[1:0]),
    .done_o   (div_done),
    .result_o (div_result)
  );

  // CSR file.
  logic [31:0] csr_rdata, csr_wdata, csr_src, mtvec, mepc, irq_cause;
  logic        csr_write, csr_we, csr_illegal, irq_pending;
  logic        trap, mret, retire;
  logic [31:0] trap_cause, trap_tval, trap_epc;
  assign csr_src   = funct3[2] ? {27'd0, ir_q[19:15]} : rs1;   // zimm or rs1
  // CSRRW always writes; CSRRS/CSRRC write only with a non-zero rs1/zimm field.
  assign csr_write = (funct3[1:0] == 2'b01) || (ir_q[19:15] != 5'd0);
  always_comb begin
    unique case (funct3[1:0])
      2'b01:   csr_wdata = csr_src;
      2'b10:   csr_wdata = csr_rdata | csr_src;
      default: csr_wdata = csr_rdata & ~csr_src;
    endcase
  end
  tsl_core_csr u_csr (
    .clk_i,
    .rst_ni,
    .csr_addr_i    (ir_q[31:20]),
    .csr_write_i   (csr_write),
    .csr_we_i      (csr_we),
    .csr_wdata_i   (csr_wdata),
    .csr_rdata_o   (csr_rdata),
    .csr_illegal_o (csr_illegal),
    .trap_i        (trap),
    .trap_cause_i  (trap_cause),
    .trap_tval_i   (trap_tval),
    .trap_epc_i    (trap_epc),
    .mret_i        (mret),
    .retire_i      (retire),
    .mtvec_o       (mtvec),
    .mepc_o        (mepc),
    .irq_timer_i,
    .irq_ext_i,
    .irq_pending_o (irq_pending),
    .irq_cause_o   (irq_cause)
  );

  // Branch condition.
  logic take_branch;
  always_comb begin
    unique case (funct3)
      3'd0:    take_branch = (rs1 == rs2);
      3'd1:    take_branch = (rs1 != rs2);
      3'd4:    take_branch = ($signed(rs1) < $signed(rs2));
      3'd5:    take_branch = ($signed(rs1) >= $signed(rs2));
      3'd6:    take_branch = (rs1 < rs2);
      default: take_branch = (rs1 >= rs2);
    endcase
  end

  // Load/store address and alignment; the address stays stable through StMem because rs1 and ir_q do.
  logic [31:0] mem_addr, load_shifted, load_data, seq_pc;
  logic        mem_misaligned;
  assign mem_addr = alu_result;
  assign seq_pc   = pc_q + 32'd4;
  always_comb begin
    unique case (funct3[1:0])
      2'd0:    mem_misaligned = 1'b0;
      2'd1:    mem_misaligned = mem_addr[0];
      default: mem_misaligned = (mem_addr[1:0] != 2'd0);
    endcase
  end
  assign load_shifted = bus_rdata_i >> {mem_addr[1:0], 3'd0};
  always_comb begin
    unique case (funct3)
      3'd0:    load_data = {{24{load_shifted[7]}}, load_shifted[7:0]};
      3'd1:    load_data = {{16{load_shifted[15]}}, load_shifted[15:0]};
      3'd4:    load_data = {24'd0, load_shifted[7:0]};
      3'd5:    load_data = {16'd0, load_shifted[15:0]};
      default: load_data = load_shifted;
    endcase
  end

  // A legal, aligned load/store goes on the bus from its first execute cycle (StExec) until
  // bus_ready_i (StMem): the address stays stable because rs1 and ir_q do.
  logic mem_op, mem_bad, mem_req;
  assign mem_op  = (opcode == OpLoad) || (opcode == OpStore);
  assign mem_bad = (opcode == OpLoad) ? (funct3 == 3'd3 || funct3 >= 3'd6) : (funct3 >= 3'd3);
  assign mem_req = (state_q == StMem) || (state_q == StExec && mem_op && !mem_bad && !mem_misaligned);

  // Bus: fetch in StFetch, data access in StExec/StMem.
  always_comb begin
    bus_valid_o = (state_q == StFetch) || mem_req;
    bus_instr_o = (state_q == StFetch);
    bus_addr_o  = (state_q == StFetch) ? pc_q : {mem_addr[31:2], 2'b00};
    bus_wdata_o = rs2 << {mem_addr[1:0], 3'd0};
    bus_wstrb_o = 4'd0;
    if (mem_req && opcode == OpStore) begin
      unique case (funct3[1:0])
        2'd0:    bus_wstrb_o = 4'b0001 << mem_addr[1:0];
        2'd1:    bus_wstrb_o = 4'b0011 << mem_addr[1:0];
        default: bus_wstrb_o = 4'b1111;
      endcase
    end
  end

  // Main control.
  logic        illegal, finish, jump, mem_done, end_instr, refetch;
  logic [31:0] next_pc;
  always_comb begin
    state_d    = state_q;
    pc_d       = pc_q;
    ir_d       = ir_q;
    rf_we      = 1'b0;
    rf_wdata   = alu_result;
    div_start  = 1'b0;
    csr_we     = 1'b0;
    trap       = 1'b0;
    trap_cause = 32'd0;
    trap_tval  = 32'd0;
    trap_epc   = pc_q;
    mret       = 1'b0;
    retire     = 1'b0;
    illegal    = 1'b0;
    finish     = 1'b0;
    jump       = 1'b0;
    next_pc    = seq_pc;
    mem_done   = 1'b0;
    rf_re      = 1'b0;
    take       = 1'b0;
    redirect   = 1'b0;
    refetch    = 1'b0;

    unique case (state_q)
      StIdle: ;  // the next instruction (at pc_q) comes from the fetch unit, below

      StFetch: begin
        if (bus_ready_i) begin
          if (bus_err_i) begin
            trap       = 1'b1;
            trap_cause = 32'd1;   // instruction access fault
            trap_tval  = pc_q;
          end else begin
            ir_d    = bus_rdata_i;
            rf_re   = 1'b1;
            state_d = StExec;
          end
        end
      end

      StExec: begin
        unique case (opcode)
          OpLui: begin
            rf_we    = 1'b1;
            rf_wdata = imm_u;
            finish   = 1'b1;
          end
          OpAuipc: begin
            rf_we    = 1'b1;
            rf_wdata = pc_rel;
            finish   = 1'b1;
          end
          OpJal, OpJalr: begin
            illegal  = (opcode == OpJalr) && (funct3 != 3'd0);
            jump     = 1'b1;
            next_pc  = (opcode == OpJal) ? pc_rel : {alu_result[31:1], 1'b0};
            rf_we    = 1'b1;
            rf_wdata = seq_pc;
            finish   = 1'b1;
          end
          OpBranch: begin
            illegal = (funct3 == 3'd2) || (funct3 == 3'd3);
            jump    = take_branch;
            next_pc = take_branch ? pc_rel : seq_pc;
            finish  = 1'b1;
          end
          OpLoad, OpStore: begin
            illegal = mem_bad;
            if (!illegal && mem_misaligned) begin
              trap       = 1'b1;
              trap_cause = (opcode == OpLoad) ? 32'd4 : 32'd6;
              trap_tval  = mem_addr;
            end else if (!illegal) begin
              mem_done = bus_ready_i;
              if (!bus_ready_i) state_d = StMem;
            end
          end
          OpImm: begin
            illegal  = (funct3 == 3'd1 && funct7 != 7'd0) ||
                       (funct3 == 3'd5 && funct7 != 7'd0 && funct7 != 7'b0100000);
            rf_we    = 1'b1;
            finish   = 1'b1;
          end
          OpReg: begin
            illegal = !(funct7 == 7'd0 || funct7 == 7'b0000001 ||
                        (funct7 == 7'b0100000 && (funct3 == 3'd0 || funct3 == 3'd5)));
            if (use_muldiv) begin
              div_start = !illegal;
              if (!illegal) state_d = StDiv;
            end else begin
              rf_we  = 1'b1;
              finish = 1'b1;
            end
          end
          OpFence: begin
            illegal = (funct3 > 3'd1);   // FENCE: nothing to order; FENCE.I refetches what follows
            refetch = funct3[0];
            finish  = 1'b1;
          end
          OpSystem: begin
            if (funct3 == 3'd0) begin
              unique case (ir_q)
                32'h0000_0073: begin trap = 1'b1; trap_cause = 32'd11; end  // ECALL
                32'h0010_0073: begin trap = 1'b1; trap_cause = 32'd3;  end  // EBREAK
                32'h3020_0073: begin mret = 1'b1; jump = 1'b1; next_pc = mepc; finish = 1'b1; end
                32'h1050_0073: finish = 1'b1;  // WFI: interrupts are checked after every instruction
                default:       illegal = 1'b1;
              endcase
            end else begin
              illegal  = (funct3 == 3'd4) || csr_illegal;
              csr_we   = !illegal && csr_write;
              rf_we    = 1'b1;
              rf_wdata = csr_rdata;
              finish   = 1'b1;
            end
          end
          default: illegal = 1'b1;
        endcase

        if (illegal) begin
          trap       = 1'b1;
          trap_cause = 32'd2;
          trap_tval  = ir_q;
        end else if (finish && jump && next_pc[1:0] != 2'd0) begin
          trap       = 1'b1;
          trap_cause = 32'd0;   // instruction address misaligned, reported on the jump
          trap_tval  = next_pc;
        end
        if (trap) begin
          rf_we  = 1'b0;
          csr_we = 1'b0;
          mret   = 1'b0;
          finish = 1'b0;
        end
      end

      StMem: mem_done = bus_ready_i;

      default: begin  // StDiv
        if (div_done) begin
          rf_we    = 1'b1;
          rf_wdata = div_result;
          finish   = 1'b1;
        end
      end
    endcase

    // The load/store's bus access ended (in StExec or StMem).
    if (mem_done) begin
      if (bus_err_i) begin
        trap       = 1'b1;
        trap_cause = (opcode == OpLoad) ? 32'd5 : 32'd7;
        trap_tval  = mem_addr;
      end else begin
        rf_we    = (opcode == OpLoad);
        rf_wdata = load_data;
        finish   = 1'b1;
        // A store over a word already fetched makes the fetch unit read it again.
        refetch  = (opcode == OpStore) && cand_valid && (cand_pc[31:2] == mem_addr[31:2]);
      end
    end

    if (trap) begin
      pc_d    = mtvec;
    end else if (finish) begin
      retire  = 1'b1;
      if (irq_pending && !mret && !csr_we) begin
        // Take the interrupt after this instruction; the handler returns to next_pc. Not after
        // CSR writes and mret, so the new MIE/mie values are seen first.
        trap       = 1'b1;
        trap_cause = irq_cause;
        trap_tval  = 32'd0;
        trap_epc   = next_pc;
        pc_d       = mtvec;
      end else begin
        pc_d = next_pc;
      end
    end

    // Hand over to the next instruction at pc_d: straight into execute when the fetch unit offers
    // it, else wait for it (StIdle) or, outside the RAM, fetch it through the bus (StFetch).
    end_instr = trap || finish || (state_q == StIdle);
    if (end_instr) begin
      if (cand_valid && cand_pc == pc_d && !refetch) begin
        take    = 1'b1;
        rf_re   = 1'b1;
        ir_d    = cand_ir;
        state_d = StExec;
      end else begin
        redirect = 1'b1;
        state_d  = ((pc_d - RamBase) < 32'(RamBytes)) ? StIdle : StFetch;
      end
    end
  end

  assign retire_o     = retire;
  assign trap_o       = trap;
  assign trap_cause_o = trap_cause;
  assign trap_pc_o    = trap_epc;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      pc_q    <= BootAddr;
    end else begin
      state_q <= state_d;
      pc_q    <= pc_d;
    end
  end

  // The instruction register is datapath: not reset.
  always_ff @(posedge clk_i) begin
    ir_q <= ir_d;
  end
endmodule
