// MXU unit of the lite tensor core (tsl_lite_core), int8 only: LOADW, MATMUL and MATMULK (as its
// LOADW/MATMUL pairs), one instruction at a time. The two weight buffers are one 2N x 8N-bit RAM
// holding columns: word {buffer, j} has W[k][j] in byte k, so a result is one dot product of the
// activation row with one word. LOADW reads weight row k and writes its N bytes into N columns.
// A result row: the activation row is read (N/4 words), then per result j the column and (when
// accumulating) the ACC word are read, and one cycle later N products are summed into ACC.
// busy_o pulses once per activation row (the controller's MXU_MACS adds N*N for each).
// Latency: LOADW 5 cycles per weight word (a read, then its 4 bytes); MATMUL N/2 + 2N cycles a
// row.
module tsl_lite_mxu #(
  parameter int N   = 4,   // array size: N int8 weights per row, N int32 results per row
  parameter int LAw = 14   // local offset bits; local port addresses are {ACC select, offset}
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic         ex_valid_i,
  output logic         ex_ready_o,
  input  logic [255:0] ex_insn_i,     // holds from the handshake until done_o
  output logic         done_o,
  output logic         busy_o,
  // local port: one address; read data one cycle after lrd_o
  output logic         lrd_o,
  output logic         lwr_o,
  output logic [LAw:0] laddr_o,
  input  logic [31:0]  lrdata_i,
  output logic [31:0]  lwdata_o,
  output logic [3:0]   lbe_o
);
  localparam int Nw = N / 4;   // 32-bit words per weight or activation row
  localparam int Kw = $clog2(N);
  localparam int Ww = Nw > 1 ? $clog2(Nw) : 1;
  localparam logic [2:0] StIdle = 3'd0, StLdRd = 3'd1, StLdWr = 3'd2, StAct = 3'd3, StCol = 3'd4,
                         StDot = 3'd5;

  logic [2:0]     state_q, state_d;
  logic           wb_q, wb_d, accum_q, accum_d, rv_q, rv_d;
  logic [11:0]    kblk_q, kblk_d;
  logic [15:0]    row_q, row_d;     // rows left in the K-block
  logic [LAw-1:0] wrow_q, wrow_d, actb_q, actb_d, act_q, act_d;   // VMEM offsets
  logic [LAw-1:0] acc_q, acc_d;                                   // ACC offset
  logic [Kw-1:0]  k_q, k_d, j_q, j_d;
  logic [Ww-1:0]  w_q, w_d;
  logic [8*N-1:0] a_q, a_d;                                       // the activation row

  // Fields of the running instruction. MATMUL and MATMULK share ACT_*, ACC_* and ROWS; LOADW's
  // ADDR and STRIDE are where MATMUL's ACT_* are.
`include "hw/rtl/tsl_insn.svh"
  /* verilator lint_off UNUSEDSIGNAL */
  insn_mxu_loadw_t   lw;   // header, tokens and reserved bits are the controller's
  insn_mxu_matmulk_t mk;   // MATMUL's fields sit where MATMULK's are
  /* verilator lint_on UNUSEDSIGNAL */
  assign lw = ex_insn_i;
  assign mk = ex_insn_i;
  logic [3:0]     op;
  logic           matmul;
  logic [15:0]    rows;
  logic [LAw-1:0] ws, as, accb, cs;
  assign op     = mk.op;
  assign matmul = op != 4'(tsl_pkg::MXU_OP_LOADW);
  assign rows   = mk.rows;
  assign ws     = op == 4'(tsl_pkg::MXU_OP_LOADW) ? lw.stride[LAw-1:0]
                                                   : mk.w_stride[LAw-1:0];
  assign as     = mk.act_stride[LAw-1:0];
  assign accb   = mk.acc_addr[LAw-1:0];
  assign cs     = mk.acc_stride[LAw-1:0];

  // Weight buffers: word {buffer, j} = column j.
  logic           wb_req, wb_we;
  logic [8*N-1:0] wb_rdata;
  logic [7:0]     wbyte;   // LOADW: W[k][j] from the weight word just read
  tsl_prim_ram #(.Depth(2 * N), .Width(8 * N)) u_wbuf (
    .clk_i,
    .req_i  (wb_req),
    .we_i   (wb_we),
    .addr_i ({wb_q, j_q}),
    .wdata_i({N{wbyte}}),
    .be_i   (N'(1) << k_q),
    .rdata_o(wb_rdata)
  );
  assign wbyte = lrdata_i[8*j_q[1:0] +: 8];

  // Dot product of the activation row with column j (products sign-extended from 16 bits).
  logic [31:0] dot;
  always_comb begin
    logic signed [15:0] pk;
    dot = '0;
    for (int k = 0; k < N; k++) begin
      pk  = $signed(a_q[8*k +: 8]) * $signed(wb_rdata[8*k +: 8]);
      dot = dot + {{16{pk[15]}}, pk};
    end
  end

  // Word addresses, as LAw-bit wires: Yosys 0.23 sizes a sum with a cast inside a concatenation
  // wider than its operands and drops the bits in front of it.
  logic [LAw-1:0] w_word, a_word, acc_word;
  assign w_word     = wrow_q + LAw'(4 * w_q);
  assign a_word     = act_q + LAw'(4 * w_q);
  assign acc_word   = acc_q + LAw'(4 * j_q);
  assign ex_ready_o = state_q == StIdle;
  assign lwdata_o   = dot + (accum_q ? lrdata_i : 32'd0);
  assign lbe_o      = 4'hF;

  always_comb begin
    state_d  = state_q;
    wb_d     = wb_q;
    accum_d  = accum_q;
    rv_d     = rv_q;
    kblk_d   = kblk_q;
    row_d    = row_q;
    wrow_d   = wrow_q;
    actb_d   = actb_q;
    act_d    = act_q;
    acc_d    = acc_q;
    k_d      = k_q;
    j_d      = j_q;
    w_d      = w_q;
    a_d      = a_q;
    done_o   = 1'b0;
    busy_o   = 1'b0;
    lrd_o    = 1'b0;
    laddr_o  = {1'b0, w_word};
    lwr_o    = 1'b0;
    wb_req   = 1'b0;
    wb_we    = 1'b0;
    unique case (state_q)
      StIdle: if (ex_valid_i) begin
        wb_d    = mk.wbuf;
        accum_d = mk.accumulate;
        actb_d  = mk.act_addr[LAw-1:0];
        kblk_d  = op == 4'(tsl_pkg::MXU_OP_MATMULK) ?
                  mk.kblocks : 12'd1;
        wrow_d  = op == 4'(tsl_pkg::MXU_OP_LOADW) ? lw.addr[LAw-1:0]
                                                   : mk.w_addr[LAw-1:0];
        act_d   = actb_d;
        acc_d   = accb;
        row_d   = rows;
        k_d     = '0;
        j_d     = '0;
        w_d     = '0;
        state_d = op != 4'(tsl_pkg::MXU_OP_MATMUL) ? StLdRd : StAct;
      end
      // LOADW: word w of weight row k, then its four bytes into columns 4w..4w+3 (byte k of each).
      StLdRd: begin
        lrd_o   = 1'b1;
        j_d     = Kw'(4 * w_q);
        state_d = StLdWr;
      end
      StLdWr: begin
        wb_req = 1'b1;
        wb_we  = 1'b1;
        j_d    = j_q + Kw'(1);
        if (j_q[1:0] == 2'd3) begin   // the word's last byte (N is a multiple of 4)
          state_d = StLdRd;
          j_d     = '0;
          w_d     = w_q + Ww'(1);
          if (w_q == Ww'(Nw - 1)) begin
            w_d    = '0;
            k_d    = k_q + Kw'(1);
            wrow_d = wrow_q + ws;
            if (k_q == Kw'(N - 1)) begin
              state_d = matmul ? StAct : StIdle;
              done_o  = !matmul;
            end
          end
        end
      end
      // MATMUL row: the activation words, then per result j: read column j and ACC word j ...
      StAct: begin
        lrd_o    = !rv_q;
        laddr_o  = {1'b0, a_word};
        rv_d     = !rv_q;
        if (rv_q) begin   // the word read last cycle
          for (int w = 0; w < Nw; w++) begin
            if (w_q == Ww'(w)) a_d[32*w +: 32] = lrdata_i;
          end
          w_d               = w_q + Ww'(1);
          if (w_q == Ww'(Nw - 1)) begin
            w_d     = '0;
            state_d = StCol;
          end
        end
      end
      StCol: begin
        wb_req   = 1'b1;
        lrd_o    = accum_q;
        laddr_o  = {1'b1, acc_word};
        state_d  = StDot;
      end
      // ... then write the dot product (plus the ACC word) to ACC word j.
      StDot: begin
        lwr_o   = 1'b1;
        laddr_o = {1'b1, acc_word};
        j_d     = j_q + Kw'(1);
        state_d = StCol;
        if (j_q == Kw'(N - 1)) begin
          busy_o  = 1'b1;
          row_d   = row_q - 16'd1;
          act_d   = act_q + as;
          acc_d   = acc_q + cs;
          state_d = StAct;
          if (row_q == 16'd1) begin   // the K-block is done
            row_d   = rows;
            kblk_d  = kblk_q - 12'd1;
            actb_d  = actb_q + LAw'(N);
            act_d   = actb_d;
            acc_d   = accb;
            wb_d    = !wb_q;
            accum_d = 1'b1;
            k_d     = '0;
            state_d = StLdRd;
            if (kblk_q == 12'd1) begin
              done_o  = 1'b1;
              state_d = StIdle;
            end
          end
        end
      end
      default: state_d = StIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      wb_q    <= 1'b0;
      accum_q <= 1'b0;
      rv_q    <= 1'b0;
      kblk_q  <= '0;
      row_q   <= '0;
      wrow_q  <= '0;
      actb_q  <= '0;
      act_q   <= '0;
      acc_q   <= '0;
      k_q     <= '0;
      j_q     <= '0;
      w_q     <= '0;
      a_q     <= '0;
    end else begin
      state_q <= state_d;
      wb_q    <= wb_d;
      accum_q <= accum_d;
      rv_q    <= rv_d;
      kblk_q  <= kblk_d;
      row_q   <= row_d;
      wrow_q  <= wrow_d;
      actb_q  <= actb_d;
      act_q   <= act_d;
      acc_q   <= acc_d;
      k_q     <= k_d;
      j_q     <= j_d;
      w_q     <= w_d;
      a_q     <= a_d;
    end
  end

endmodule
