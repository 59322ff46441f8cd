// DMA unit of the lite tensor core: DMA_XFER one byte per cycle through a one-word buffer on the
// core's HBM word port (one request at a time). LOAD reads each HBM word once while the row walks
// it (across rows too) and writes bytes to the local port; STORE reads local bytes, gathers them
// in the word with byte enables and writes the word when the next byte leaves it or the
// instruction ends. An HBM error response stops the instruction: err_o pulses with
// ERR_AXI_SLVERR/DECERR and the word's address, and done_o follows.
// Addresses are kept modulo 2^HAw (HBM) and 2^LAw (local offsets): the dispatch checks keep every
// byte of an operand inside its memory, so no row wraps.
module tsl_lite_dma #(
  parameter int HAw = 17,   // HBM address bits; dispatch keeps operands inside HBM
  parameter int LAw = 14    // local offset bits; local port addresses are {ACC select, offset}
) (
  input  logic           clk_i,
  input  logic           rst_ni,
  input  logic           ex_valid_i,
  output logic           ex_ready_o,
  input  logic [255:0]   ex_insn_i,     // holds from the handshake until done_o
  output logic           done_o,
  output logic           busy_o,
  output logic           byte_o,        // a byte moved this cycle (PERF_HBM_RD/WR_BYTES)
  output logic           err_o,
  output logic [3:0]     err_code_o,
  output logic [31:0]    err_addr_o,
  // local port: one address; read data one cycle after lrd_o
  output logic           lrd_o,
  output logic           lwr_o,
  output logic [LAw:0]   laddr_o,
  input  logic [31:0]    lrdata_i,
  output logic [31:0]    lwdata_o,
  output logic [3:0]     lbe_o,
  // HBM word port: a request holds until hbm_gnt_i; its response (hbm_rsp_i) comes later
  output logic           hbm_req_o,
  output logic           hbm_we_o,
  output logic [HAw-1:2] hbm_addr_o,    // word address
  output logic [31:0]    hbm_wdata_o,
  output logic [3:0]     hbm_be_o,
  input  logic           hbm_gnt_i,
  input  logic           hbm_rsp_i,
  input  logic [31:0]    hbm_rdata_i,
  input  logic [1:0]     hbm_resp_i     // with hbm_rsp_i: AXI RESP (bit 1 set: error)
);
  localparam logic [2:0] StIdle = 3'd0, StRun = 3'd1, StCap = 3'd2, StReq = 3'd3, StRsp = 3'd4;

  logic [2:0]     state_q, state_d;
  logic [15:0]    rows_q, rows_d, rem_q, rem_d;
  logic [HAw-1:0] h_q, h_d;
  logic [LAw-1:0] l_q, l_d;
  logic [HAw-3:0] baddr_q, baddr_d;     // word address the buffer holds
  logic           bval_q, bval_d;       // LOAD: the buffer holds HBM's word
  logic [3:0]     dirty_q, dirty_d;     // STORE: bytes gathered for the word
  logic [31:0]    buf_q, buf_d;
  logic           last_q, last_d;       // STORE: the flush in flight ends the instruction

`include "hw/rtl/tsl_insn.svh"
  /* verilator lint_off UNUSEDSIGNAL */
  insn_dma_xfer_t insn;   // header, tokens and reserved bits are the controller's
  /* verilator lint_on UNUSEDSIGNAL */
  assign insn = ex_insn_i;

  // Fields of the running instruction.
  logic           store, lsel;
  logic [15:0]    rb;
  logic [HAw-1:0] hs;
  logic [LAw-1:0] ls;
  assign store = insn.op == 4'(tsl_pkg::DMA_OP_STORE);
  assign lsel  = insn.local_addr[24];
  assign rb    = insn.row_bytes;
  assign hs    = insn.hbm_stride[HAw-1:0];
  assign ls    = insn.local_stride[LAw-1:0];

  // The position after the current byte: the next byte of the row, or (from a row's last byte)
  // the next row, STRIDE - ROW_BYTES + 1 on.
  logic           row_end, all_end;
  logic [HAw-1:0] h_n;
  logic [LAw-1:0] l_n;
  assign row_end = rem_q == 16'd1;
  assign all_end = row_end && rows_q == 16'd1;
  assign h_n     = h_q + (row_end ? hs - HAw'(rb) + HAw'(1) : HAw'(1));
  assign l_n     = l_q + (row_end ? ls - LAw'(rb) + LAw'(1) : LAw'(1));

  logic [7:0] hbyte, lbyte;
  assign hbyte = buf_q[8*h_q[1:0] +: 8];
  assign lbyte = lrdata_i[8*l_q[1:0] +: 8];

  assign ex_ready_o  = state_q == StIdle;
  assign busy_o      = state_q != StIdle;
  assign laddr_o     = {lsel, state_q == StCap ? l_n : l_q};   // StCap reads the next byte
  assign lwdata_o    = {4{hbyte}};
  assign lbe_o       = 4'b0001 << l_q[1:0];
  assign hbm_req_o   = state_q == StReq;
  assign hbm_we_o    = store;
  assign hbm_addr_o  = store ? baddr_q : h_q[HAw-1:2];
  assign hbm_wdata_o = buf_q;
  assign hbm_be_o    = dirty_q;
  assign err_code_o  = hbm_resp_i == 2'b11 ? tsl_pkg::ERR_AXI_DECERR : tsl_pkg::ERR_AXI_SLVERR;
  assign err_addr_o  = 32'({hbm_addr_o, 2'b00});

  always_comb begin
    state_d = state_q;
    rows_d  = rows_q;
    rem_d   = rem_q;
    h_d     = h_q;
    l_d     = l_q;
    baddr_d = baddr_q;
    bval_d  = bval_q;
    dirty_d = dirty_q;
    buf_d   = buf_q;
    last_d  = last_q;
    done_o  = 1'b0;
    err_o   = 1'b0;
    byte_o  = 1'b0;
    lrd_o   = 1'b0;
    lwr_o   = 1'b0;
    unique case (state_q)
      StIdle: if (ex_valid_i) begin
        h_d     = insn.hbm_addr[HAw-1:0];
        l_d     = insn.local_addr[LAw-1:0];
        rows_d  = insn.rows;
        rem_d   = rb;
        bval_d  = 1'b0;
        dirty_d = '0;
        last_d  = 1'b0;
        state_d = StRun;
      end
      // LOAD: move the byte at h_q from the buffer, or fetch its word first.
      // STORE: read the local byte at l_q (it arrives in StCap).
      StRun: begin
        if (store) begin
          lrd_o   = 1'b1;
          state_d = StCap;
        end else if (bval_q && baddr_q == h_q[HAw-1:2]) begin
          lwr_o  = 1'b1;
          byte_o = 1'b1;
          if (all_end) begin
            done_o  = 1'b1;
            state_d = StIdle;
          end
        end else begin
          state_d = StReq;
        end
      end
      StCap: begin   // STORE: gather the byte; write the word out when the next byte leaves it
        for (int b = 0; b < 4; b++) begin
          if (h_q[1:0] == 2'(b)) begin
            buf_d[8*b +: 8] = lbyte;
            dirty_d[b]      = 1'b1;
          end
        end
        byte_o                 = 1'b1;
        last_d                 = all_end;
        if (all_end || h_n[HAw-1:2] != h_q[HAw-1:2]) state_d = StReq;
        else lrd_o = 1'b1;   // the next byte, at l_n
      end
      StReq: if (hbm_gnt_i) state_d = StRsp;
      StRsp: if (hbm_rsp_i) begin
        if (hbm_resp_i[1]) begin
          err_o   = 1'b1;
          done_o  = 1'b1;
          state_d = StIdle;
        end else if (store) begin
          dirty_d = '0;
          done_o  = last_q;
          state_d = last_q ? StIdle : StRun;
        end else begin
          buf_d   = hbm_rdata_i;
          bval_d  = 1'b1;
          state_d = StRun;
        end
      end
      default: state_d = StIdle;
    endcase
    if (state_q == StCap) baddr_d = h_q[HAw-1:2];   // the word being gathered
    if (!store && state_q == StRsp) baddr_d = h_q[HAw-1:2];
    // Advance past the byte just moved (LOAD) or gathered (STORE).
    if (byte_o) begin
      h_d   = h_n;
      l_d   = l_n;
      rem_d = row_end ? rb : rem_q - 16'd1;
      if (row_end) rows_d = rows_q - 16'd1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      rows_q  <= '0;
      rem_q   <= '0;
      h_q     <= '0;
      l_q     <= '0;
      baddr_q <= '0;
      bval_q  <= 1'b0;
      dirty_q <= '0;
      buf_q   <= '0;
      last_q  <= 1'b0;
    end else begin
      state_q <= state_d;
      rows_q  <= rows_d;
      rem_q   <= rem_d;
      h_q     <= h_d;
      l_q     <= l_d;
      baddr_q <= baddr_d;
      bval_q  <= bval_d;
      dirty_q <= dirty_d;
      buf_q   <= buf_d;
      last_q  <= last_d;
    end
  end

endmodule
