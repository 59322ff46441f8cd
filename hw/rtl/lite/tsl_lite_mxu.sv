// MXU unit of the lite tensor core (tsl_lite_tc), int8 only: LOADW, MATMUL and MATMULK (as its
// LOADW/MATMUL pairs), one instruction at a time. The two weight buffers are one 2N x 8N-bit RAM.
// A result row takes N cycles of N multiply-accumulates (activation k times weight row k, N
// products into N 32-bit sums), then N ACC writes (2N cycles when accumulating: read, then write).
// busy_o pulses once per activation row (the controller's MXU_MACS adds N*N for each).
// Latency: LOADW 2 cycles per 32-bit weight word; MATMUL 2N+1 cycles per row (3N+1 accumulating).
module tsl_lite_mxu #(
  parameter int N   = 4,   // array size: N int8 weights per row, N int32 results per row
  parameter int LAw = 14   // local offset bits; local port addresses are {ACC select, offset}
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic         ex_valid_i,
  output logic         ex_ready_o,
  input  logic [255:0] ex_insn_i,
  output logic         done_o,
  output logic         busy_o,
  // local port (tsl_lite_tc): byte addresses, 32-bit words, read data one cycle after lrd_o
  output logic         lrd_o,
  output logic [LAw:0] lraddr_o,
  input  logic [31:0]  lrdata_i,
  output logic         lwr_o,
  output logic [LAw:0] lwaddr_o,
  output logic [31:0]  lwdata_o,
  output logic [3:0]   lbe_o
);
  localparam int Nw = N / 4;   // 32-bit words per weight row
  localparam int Kw = $clog2(N);
  localparam int Ww = Nw > 1 ? $clog2(Nw) : 1;
  localparam logic [2:0] StIdle = 3'd0, StLdRd = 3'd1, StLdWr = 3'd2, StK = 3'd3, StKLast = 3'd4,
                         StAcc = 3'd5;

  logic [2:0]  state_q, state_d;
  logic        wb_q, wb_d, accum_q, accum_d;
  logic [11:0] kblk_q, kblk_d;
  logic [15:0] row_q, row_d;
  logic [LAw-1:0] wrow_q, wrow_d, actb_q, actb_d, act_q, act_d;   // VMEM offsets
  logic [LAw-1:0] acc_q, acc_d;                                   // ACC offset

  // Fields of the running instruction (ex_insn_i holds from the handshake until done_o). MATMUL and
  // MATMULK share ACT_*, ACC_* and ROWS; LOADW's ADDR and STRIDE are where MATMUL's ACT_* are.
  logic [3:0]     op;
  logic           matmul_q;
  logic [15:0]    rows_q;
  logic [LAw-1:0] ws_q, as_q, accb_q, cs_q;
  assign op       = ex_insn_i[tsl_pkg::INSN_HDR_OP_LSB +: 4];
  assign matmul_q = op != 4'(tsl_pkg::MXU_OP_LOADW);
  assign rows_q   = ex_insn_i[tsl_pkg::INSN_MXU_MATMUL_ROWS_LSB +: 16];
  assign ws_q     = op == 4'(tsl_pkg::MXU_OP_LOADW) ? ex_insn_i[tsl_pkg::INSN_MXU_LOADW_STRIDE_LSB +: LAw]
                                                     : ex_insn_i[tsl_pkg::INSN_MXU_MATMULK_W_STRIDE_LSB +: LAw];
  assign as_q     = ex_insn_i[tsl_pkg::INSN_MXU_MATMUL_ACT_STRIDE_LSB +: LAw];
  assign accb_q   = ex_insn_i[tsl_pkg::INSN_MXU_MATMUL_ACC_ADDR_LSB +: LAw];
  assign cs_q     = ex_insn_i[tsl_pkg::INSN_MXU_MATMUL_ACC_STRIDE_LSB +: LAw];
  logic [Kw-1:0] k_q, k_d;
  logic [Ww-1:0] w_q, w_d;
  logic [Kw-1:0] j_q, j_d;
  logic          ph_q, ph_d;                   // ACC phase of result j: 0 read (accumulate), 1 write
  logic [7:0]    a_lane_q, a_lane_d;   // byte lane of the activation being read
  logic [32*N-1:0] y_q, y_d;        // the N sums of the row, 32 bits each

  // Sign-extended product of two int8 values.
  function automatic logic [31:0] mul8(input logic [7:0] x, input logic [7:0] w);
    logic signed [15:0] p;
    p = $signed(x) * $signed(w);
    mul8 = {{16{p[15]}}, p};
  endfunction

  // Weight buffers: row {buffer, k} holds W[k][0..N-1], one byte each.
  logic             wb_we, wb_re;
  logic [8*N-1:0]   wb_rdata;
  logic [N-1:0]     wb_be;
  tsl_prim_ram #(.Depth(2 * N), .Width(8 * N)) u_wbuf (
    .clk_i,
    .req_i  (wb_we || wb_re),
    .we_i   (wb_we),
    .addr_i ({wb_q, k_q}),
    .wdata_i({Nw{lrdata_i}}),
    .be_i   (wb_be),
    .rdata_o(wb_rdata)
  );
  assign wb_be = N'(4'hF) << (4 * w_q);

  logic [7:0]  a;
  logic [31:0] yj;
  assign a  = lrdata_i[8*a_lane_q[1:0] +: 8];
  assign yj = y_q[32*j_q +: 32];

  assign ex_ready_o = state_q == StIdle;
  assign lwdata_o   = yj + (accum_q ? lrdata_i : 32'd0);
  assign lwaddr_o   = {1'b1, acc_q + LAw'(4 * j_q)};
  assign lbe_o      = 4'hF;

  always_comb begin
    state_d  = state_q;
    wb_d     = wb_q;
    accum_d  = accum_q;
    kblk_d   = kblk_q;
    row_d    = row_q;
    wrow_d   = wrow_q;
    actb_d   = actb_q;
    act_d    = act_q;
    acc_d    = acc_q;
    k_d      = k_q;
    w_d      = w_q;
    j_d      = j_q;
    ph_d     = ph_q;
    a_lane_d = a_lane_q;
    y_d      = y_q;
    done_o   = 1'b0;
    busy_o   = 1'b0;
    lrd_o    = 1'b0;
    lraddr_o = {1'b0, wrow_q + LAw'(4 * w_q)};
    lwr_o    = 1'b0;
    wb_we    = 1'b0;
    wb_re    = 1'b0;
    unique case (state_q)
      StIdle: if (ex_valid_i) begin
        wb_d     = ex_insn_i[tsl_pkg::INSN_MXU_MATMUL_WBUF_LSB];
        accum_d  = ex_insn_i[tsl_pkg::INSN_MXU_MATMUL_ACCUMULATE_LSB];
        actb_d   = ex_insn_i[tsl_pkg::INSN_MXU_MATMUL_ACT_ADDR_LSB +: LAw];
        kblk_d   = op == 4'(tsl_pkg::MXU_OP_MATMULK) ? ex_insn_i[tsl_pkg::INSN_MXU_MATMULK_KBLOCKS_LSB +: 12] : 12'd1;
        wrow_d   = op == 4'(tsl_pkg::MXU_OP_LOADW) ? ex_insn_i[tsl_pkg::INSN_MXU_LOADW_ADDR_LSB +: LAw]
                                                    : ex_insn_i[tsl_pkg::INSN_MXU_MATMULK_W_ADDR_LSB +: LAw];
        act_d    = actb_d;
        acc_d    = accb_q;
        row_d    = '0;
        k_d      = '0;
        w_d      = '0;
        state_d  = op != 4'(tsl_pkg::MXU_OP_MATMUL) ? StLdRd : StK;
      end
      // LOADW: word w of weight row k, read from VMEM, then written into the buffer.
      StLdRd: begin
        lrd_o   = 1'b1;
        state_d = StLdWr;
      end
      StLdWr: begin
        wb_we   = 1'b1;
        state_d = StLdRd;
        w_d     = w_q + Ww'(1);
        if (w_q == Ww'(Nw - 1)) begin
          w_d    = '0;
          k_d    = k_q + Kw'(1);
          wrow_d = wrow_q + ws_q;
          if (k_q == Kw'(N - 1)) state_d = matmul_q ? StK : StIdle;
          done_o = !matmul_q && k_q == Kw'(N - 1);
        end
      end
      // MATMUL row: read activation k and weight row k; multiply-accumulate one cycle later.
      StK: begin
        lrd_o    = 1'b1;
        lraddr_o = {1'b0, act_q + LAw'(k_q)};
        wb_re    = 1'b1;
        a_lane_d = 8'(act_q + LAw'(k_q));
        if (k_q != '0) begin
          for (int c = 0; c < N; c++) y_d[32*c +: 32] = y_q[32*c +: 32] + mul8(a, wb_rdata[8*c +: 8]);
        end else begin
          y_d = '0;
        end
        k_d = k_q + Kw'(1);
        if (k_q == Kw'(N - 1)) state_d = StKLast;
      end
      StKLast: begin   // the last product
        for (int c = 0; c < N; c++) y_d[32*c +: 32] = y_q[32*c +: 32] + mul8(a, wb_rdata[8*c +: 8]);
        j_d      = '0;
        ph_d     = 1'b0;
        busy_o   = 1'b1;
        state_d  = StAcc;
      end
      StAcc: begin     // result j: read its ACC word when accumulating, then write
        lraddr_o = {1'b1, acc_q + LAw'(4 * j_q)};
        if (accum_q && !ph_q) begin
          lrd_o = 1'b1;
          ph_d  = 1'b1;
        end else begin
          lwr_o = 1'b1;
          ph_d  = 1'b0;
          j_d   = j_q + Kw'(1);
        end
        if (lwr_o && j_q == Kw'(N - 1)) begin
          row_d   = row_q + 16'd1;
          act_d   = act_q + as_q;
          acc_d   = acc_q + cs_q;
          state_d = StK;
          if (row_q == rows_q - 16'd1) begin   // the K-block is done
            row_d  = '0;
            kblk_d = kblk_q - 12'd1;
            actb_d = actb_q + LAw'(N);
            act_d  = actb_d;
            acc_d  = accb_q;
            wb_d   = !wb_q;
            accum_d = 1'b1;
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

  logic unused_insn;
  assign unused_insn = ^ex_insn_i;   // header, tokens and reserved bits are the controller's

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q  <= StIdle;
      wb_q     <= 1'b0;
      accum_q  <= 1'b0;
      kblk_q   <= '0;
      row_q    <= '0;
      wrow_q   <= '0;
      actb_q   <= '0;
      act_q    <= '0;
      acc_q    <= '0;
      k_q      <= '0;
      w_q      <= '0;
      j_q      <= '0;
      ph_q     <= 1'b0;
      a_lane_q <= '0;
      y_q      <= '0;
    end else begin
      state_q  <= state_d;
      wb_q     <= wb_d;
      accum_q  <= accum_d;
      kblk_q   <= kblk_d;
      row_q    <= row_d;
      wrow_q   <= wrow_d;
      actb_q   <= actb_d;
      act_q    <= act_d;
      acc_q    <= acc_d;
      k_q      <= k_d;
      w_q      <= w_d;
      j_q      <= j_d;
      ph_q     <= ph_d;
      a_lane_q <= a_lane_d;
      y_q      <= y_d;
    end
  end
endmodule
