// Instruction fetch unit of the control core: streams sequential words from the local RAM through
// a pipelined port (a request granted in cycle t returns its word in t+1) and offers the next one
// to the execute stage as a candidate (word and its address). The stream holds at most two words:
// the one arriving and one in a skid register; a request is made only when the skid will be empty,
// so nothing is ever dropped. The stream follows JAL and backward branches (static prediction:
// loops are taken): the word after one of them is its target. The execute stage checks every
// candidate's address against the PC it needs; redirect_i restarts the stream at redirect_pc_i in
// the same cycle (the word arriving and the skid are discarded). Addresses outside
// [RamBase, RamBase+RamBytes) are never requested: the core fetches those through its data bus,
// non-speculatively.
module tsl_core_fetch #(
  parameter logic [31:0] BootAddr = 32'h8000_0000,  // first address of the stream after reset
  parameter logic [31:0] RamBase  = 32'h8000_0000,  // fast-fetch window base (the local RAM)
  parameter int          RamBytes = 65536           // fast-fetch window size in bytes; 0: none
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // pipelined instruction port (local RAM)
  output logic        instr_req_o,
  output logic [31:0] instr_addr_o,
  input  logic        instr_gnt_i,     // the request is taken this cycle
  input  logic        instr_rvalid_i,  // the word of the request granted last cycle
  input  logic [31:0] instr_rdata_i,
  // execute stage
  input  logic        take_i,          // the candidate is consumed this cycle
  input  logic        redirect_i,      // restart the stream at redirect_pc_i (not with take_i)
  input  logic [31:0] redirect_pc_i,
  output logic        cand_valid_o,    // a word is available: cand_ir_o at address cand_pc_o
  output logic [31:0] cand_ir_o,
  output logic [31:0] cand_pc_o
);
  `include "hw/rtl/tsl_assert.svh"

  logic [31:0] fpc_q, fpc_d;            // next address to request
  logic [31:0] if_pc_q, if_pc_d;        // address of the request granted last cycle
  logic        sk_valid_q, sk_valid_d;
  logic [31:0] sk_ir_q, sk_ir_d, sk_pc_q, sk_pc_d;
  logic [31:0] addr, pred_imm;
  logic        pred;

  assign cand_valid_o = sk_valid_q || instr_rvalid_i;
  assign cand_ir_o    = sk_valid_q ? sk_ir_q : instr_rdata_i;
  assign cand_pc_o    = sk_valid_q ? sk_pc_q : if_pc_q;

  always_comb begin
    sk_valid_d = sk_valid_q;
    sk_ir_d    = sk_ir_q;
    sk_pc_d    = sk_pc_q;
    if (redirect_i) begin
      sk_valid_d = 1'b0;
    end else if (take_i && !sk_valid_q) begin
      sk_valid_d = 1'b0;                 // the arriving word went straight to execute
    end else if (instr_rvalid_i) begin   // park the arriving word (the skid is free or being taken)
      sk_valid_d = 1'b1;
      sk_ir_d    = instr_rdata_i;
      sk_pc_d    = if_pc_q;
    end else if (take_i) begin
      sk_valid_d = 1'b0;
    end
  end

  // Prediction, on the word arriving: JAL, and conditional branches with a negative offset.
  always_comb begin
    pred     = 1'b0;
    pred_imm = {{20{instr_rdata_i[31]}}, instr_rdata_i[7], instr_rdata_i[30:25],
                instr_rdata_i[11:8], 1'b0};
    if (instr_rvalid_i && !redirect_i) begin
      if (instr_rdata_i[6:0] == 7'b1101111) begin
        pred     = 1'b1;
        pred_imm = {{12{instr_rdata_i[31]}}, instr_rdata_i[19:12], instr_rdata_i[20],
                    instr_rdata_i[30:21], 1'b0};
      end else if (instr_rdata_i[6:0] == 7'b1100011) begin
        pred = instr_rdata_i[31];
      end
    end
  end

  assign addr         = redirect_i ? redirect_pc_i : (pred ? if_pc_q + pred_imm : fpc_q);
  assign instr_addr_o = addr;
  assign instr_req_o  = !sk_valid_d && ((addr - RamBase) < 32'(RamBytes));
  assign fpc_d        = instr_gnt_i ? addr + 32'd4 : addr;
  assign if_pc_d      = instr_gnt_i ? addr : if_pc_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fpc_q      <= BootAddr;
      sk_valid_q <= 1'b0;
    end else begin
      fpc_q      <= fpc_d;
      sk_valid_q <= sk_valid_d;
    end
  end

  // Datapath: not reset.
  always_ff @(posedge clk_i) begin
    if_pc_q <= if_pc_d;
    sk_ir_q <= sk_ir_d;
    sk_pc_q <= sk_pc_d;
  end

  // Assertions
  `TSL_ASSERT(SkidNoOverflow, !(instr_rvalid_i && sk_valid_q && !take_i && !redirect_i),
              "a fetched word arrived while the skid was full")
  `TSL_ASSERT(GntNeedsReq, !instr_gnt_i || instr_req_o, "instr_gnt_i without instr_req_o")
  `TSL_ASSERT(TakeNeedsCand, !take_i || cand_valid_o, "take_i without a candidate")
  `TSL_ASSERT(TakeXorRedirect, !(take_i && redirect_i), "take_i and redirect_i together")
endmodule
