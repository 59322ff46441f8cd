// DMA unit of the lite tensor core (tsl_lite_tc): one DMA_XFER at a time, one AXI burst at a time,
// one byte per cycle. Rows are cut into INCR bursts of full-width beats (at most MaxBurst beats,
// never across 4 KiB). LOAD writes each byte of an R beat to the local port while holding RREADY
// low; STORE gathers bytes from the local port (one read per cycle) into a beat with exact WSTRB.
// Throughput: about one byte per cycle plus the HBM latency of every burst.
// Addresses are kept modulo 2^HAw (HBM) and 2^LAw (local offsets): the dispatch checks keep every
// byte of an operand inside its memory, so no row wraps.
// Errors (RRESP/BRESP[1] set): err_o pulses with ERR_AXI_SLVERR/DECERR and the beat address (read)
// or the burst address (write); the rest of the instruction is dropped and done_o follows.
module tsl_lite_dma #(
  parameter int AxiBits  = 64,  // AXI data bits, a power of two from 32
  parameter int MaxBurst = 16,  // beats per burst (at most 256)
  parameter int HAw      = 17,  // HBM address bits (at least 12); dispatch keeps operands inside HBM
  parameter int LAw      = 14,  // local offset bits; local port addresses are {ACC select, offset}
  localparam int Dw = AxiBits
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            ex_valid_i,
  output logic            ex_ready_o,
  input  logic [255:0]    ex_insn_i,
  output logic            done_o,
  output logic            busy_o,
  output logic            err_o,
  output logic [3:0]      err_code_o,
  output logic [31:0]     err_addr_o,
  output logic [31:0]     bytes_o,      // bytes moved by this instruction, valid with done_o
  // local port (tsl_lite_tc): byte addresses, 32-bit words, read data one cycle after lrd_o
  output logic            lrd_o,
  output logic [LAw:0]    lraddr_o,
  input  logic [31:0]     lrdata_i,
  output logic            lwr_o,
  output logic [LAw:0]    lwaddr_o,
  output logic [31:0]     lwdata_o,
  output logic [3:0]      lbe_o,
  // AXI4 master (ID 0)
  output logic            m_axi_awvalid,
  input  logic            m_axi_awready,
  output logic [31:0]     m_axi_awaddr,
  output logic [7:0]      m_axi_awlen,
  output logic [2:0]      m_axi_awsize,
  output logic [1:0]      m_axi_awburst,
  output logic            m_axi_wvalid,
  input  logic            m_axi_wready,
  output logic [Dw-1:0]   m_axi_wdata,
  output logic [Dw/8-1:0] m_axi_wstrb,
  output logic            m_axi_wlast,
  input  logic            m_axi_bvalid,
  output logic            m_axi_bready,
  input  logic [1:0]      m_axi_bresp,
  output logic            m_axi_arvalid,
  input  logic            m_axi_arready,
  output logic [31:0]     m_axi_araddr,
  output logic [7:0]      m_axi_arlen,
  output logic [2:0]      m_axi_arsize,
  output logic [1:0]      m_axi_arburst,
  input  logic            m_axi_rvalid,
  output logic            m_axi_rready,
  input  logic [Dw-1:0]   m_axi_rdata,
  input  logic [1:0]      m_axi_rresp,
  input  logic            m_axi_rlast
);
  localparam int Db = Dw / 8;         // bytes per beat
  localparam int Lb = $clog2(Db);
  localparam logic [2:0] StIdle = 3'd0, StAddr = 3'd1, StRead = 3'd2, StDrain = 3'd3, StFetch = 3'd4,
                         StCap = 3'd5, StW = 3'd6, StB = 3'd7;

  logic [2:0]    state_q, state_d;
  logic [15:0]   rows_q, rows_d, rem_q, rem_d;
  logic [HAw-1:0] h_q, h_d, hrow_q, hrow_d, bstart_q, bstart_d;
  logic [LAw-1:0] l_q, l_d, lrow_q, lrow_d;   // offsets in the memory that LOCAL_ADDR bit 24 selects

  // Fields of the running instruction (ex_insn_i holds from the handshake until done_o).
  logic           store_q, lsel_q;
  logic [15:0]    rb_q;
  logic [HAw-1:0] hs_q;
  logic [LAw-1:0] ls_q;
  assign store_q = ex_insn_i[tsl_pkg::INSN_HDR_OP_LSB +: 4] == 4'(tsl_pkg::DMA_OP_STORE);
  assign lsel_q  = ex_insn_i[tsl_pkg::INSN_DMA_XFER_LOCAL_ADDR_LSB + 24];
  assign rb_q    = ex_insn_i[tsl_pkg::INSN_DMA_XFER_ROW_BYTES_LSB +: 16];
  assign hs_q    = ex_insn_i[tsl_pkg::INSN_DMA_XFER_HBM_STRIDE_LSB +: HAw];
  assign ls_q    = ex_insn_i[tsl_pkg::INSN_DMA_XFER_LOCAL_STRIDE_LSB +: LAw];
  logic [8:0]    beats_q, beats_d;
  logic [Dw-1:0] wbeat_q, wbeat_d;
  logic [Db-1:0] wstrb_q, wstrb_d;
  logic [31:0]   bytes_q, bytes_d;

  // The next burst: from h_q to the end of the row, at most MaxBurst beats, not across 4 KiB.
  logic [Lb-1:0] off;
  logic [HAw-1:0] ba;
  logic [16:0]   beats_row;
  logic [12:0]   beats_4k;
  logic [8:0]    blen;
  assign off       = h_q[Lb-1:0];
  assign ba        = {h_q[HAw-1:Lb], {Lb{1'b0}}};
  assign beats_row = 17'((18'(off) + 18'(rem_q) + 18'(Db - 1)) >> Lb);
  assign beats_4k  = 13'((13'd4096 - 13'(ba[11:0])) >> Lb);
  always_comb begin
    blen = 9'(MaxBurst);
    if (beats_row < 17'(blen)) blen = 9'(beats_row);
    if (beats_4k < 13'(blen)) blen = 9'(beats_4k);
  end

  logic       last_byte, beat_end, axi_err;
  logic [1:0] resp;
  logic [7:0] rbyte, lbyte;
  assign last_byte = rem_q == 16'd1;
  assign beat_end  = off == Lb'(Db - 1) || last_byte;
  assign rbyte     = m_axi_rdata[8*off +: 8];
  assign lbyte     = lrdata_i[8*l_q[1:0] +: 8];
  assign resp      = store_q ? m_axi_bresp : m_axi_rresp;

  assign ex_ready_o    = state_q == StIdle;
  assign busy_o        = state_q != StIdle;
  assign m_axi_arvalid = state_q == StAddr && !store_q;
  assign m_axi_awvalid = state_q == StAddr && store_q;
  assign m_axi_araddr  = 32'(ba);
  assign m_axi_awaddr  = 32'(ba);
  assign m_axi_arlen   = 8'(blen - 9'd1);
  assign m_axi_awlen   = 8'(blen - 9'd1);
  assign m_axi_arsize  = 3'($clog2(Db));
  assign m_axi_awsize  = 3'($clog2(Db));
  assign m_axi_arburst = 2'b01;
  assign m_axi_awburst = 2'b01;
  assign m_axi_wvalid  = state_q == StW;
  assign m_axi_wdata   = wbeat_q;
  assign m_axi_wstrb   = wstrb_q;
  assign m_axi_wlast   = beats_q == 9'd1;
  assign m_axi_bready  = state_q == StB;
  assign lraddr_o      = {lsel_q, state_q == StCap ? l_q + LAw'(1) : l_q};
  assign lwaddr_o      = {lsel_q, l_q};
  assign lwdata_o      = {4{rbyte}};
  assign lbe_o         = 4'b0001 << l_q[1:0];
  assign err_code_o    = resp == 2'b11 ? tsl_pkg::ERR_AXI_DECERR : tsl_pkg::ERR_AXI_SLVERR;
  assign err_addr_o    = store_q ? 32'(bstart_q) : 32'(ba);
  assign axi_err       = resp[1];
  assign bytes_o       = bytes_q + 32'(lwr_o);

  always_comb begin
    state_d  = state_q;
    rows_d   = rows_q;
    rem_d    = rem_q;
    h_d      = h_q;
    l_d      = l_q;
    hrow_d   = hrow_q;
    lrow_d   = lrow_q;
    bstart_d = bstart_q;
    beats_d  = beats_q;
    wbeat_d  = wbeat_q;
    wstrb_d  = wstrb_q;
    bytes_d  = bytes_o + 32'(state_q == StCap);
    done_o   = 1'b0;
    err_o    = 1'b0;
    lrd_o    = 1'b0;
    lwr_o    = 1'b0;
    m_axi_rready = 1'b0;
    unique case (state_q)
      StIdle: if (ex_valid_i) begin
        h_d     = ex_insn_i[tsl_pkg::INSN_DMA_XFER_HBM_ADDR_LSB +: HAw];
        l_d     = ex_insn_i[tsl_pkg::INSN_DMA_XFER_LOCAL_ADDR_LSB +: LAw];
        hrow_d  = h_d;
        lrow_d  = l_d;
        rows_d  = ex_insn_i[tsl_pkg::INSN_DMA_XFER_ROWS_LSB +: 16];
        rem_d   = rb_q;
        bytes_d = '0;
        state_d = StAddr;
      end
      StAddr: if (store_q ? m_axi_awready : m_axi_arready) begin
        bstart_d = ba;
        beats_d  = blen;
        wstrb_d  = '0;
        state_d  = store_q ? StFetch : StRead;
      end
      StRead: if (m_axi_rvalid) begin
        if (axi_err) begin
          err_o        = 1'b1;
          m_axi_rready = 1'b1;
          state_d      = m_axi_rlast ? StIdle : StDrain;
          done_o       = m_axi_rlast;
        end else begin
          lwr_o        = 1'b1;
          m_axi_rready = beat_end;
          h_d          = h_q + HAw'(1);
          l_d          = l_q + LAw'(1);
          rem_d        = rem_q - 16'd1;
          if (beat_end && m_axi_rlast) state_d = StAddr;
        end
      end
      StDrain: begin
        m_axi_rready = 1'b1;
        if (m_axi_rvalid && m_axi_rlast) begin
          done_o  = 1'b1;
          state_d = StIdle;
        end
      end
      StFetch: begin
        lrd_o   = 1'b1;
        state_d = StCap;
      end
      StCap: begin   // the byte at l_q arrives; the read of the next one is issued unless the beat ends
        for (int b = 0; b < Db; b++) begin
          if (off == Lb'(b)) begin
            wbeat_d[8*b +: 8] = lbyte;
            wstrb_d[b]        = 1'b1;
          end
        end
        h_d                 = h_q + HAw'(1);
        l_d                 = l_q + LAw'(1);
        rem_d               = rem_q - 16'd1;
        lrd_o               = !beat_end;
        if (beat_end) state_d = StW;
      end
      StW: if (m_axi_wready) begin
        wstrb_d = '0;
        beats_d = beats_q - 9'd1;
        state_d = beats_q == 9'd1 ? StB : StFetch;
      end
      StB: if (m_axi_bvalid) begin
        err_o   = axi_err;
        state_d = axi_err ? StIdle : StAddr;
        done_o  = axi_err;
      end
      default: state_d = StIdle;
    endcase
    // A row ends when its last byte has moved (LOAD) or its last burst is acknowledged (STORE).
    if (state_d == StAddr && state_q != StIdle && rem_d == 16'd0) begin
      if (rows_q == 16'd1) begin
        done_o  = 1'b1;
        state_d = StIdle;
      end else begin
        rows_d = rows_q - 16'd1;
        hrow_d = hrow_q + hs_q;
        lrow_d = lrow_q + ls_q;
        h_d    = hrow_d;
        l_d    = lrow_d;
        rem_d  = rb_q;
      end
    end
  end

  logic unused_insn;
  assign unused_insn = ^ex_insn_i;   // header, tokens and reserved bits are the controller's

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q  <= StIdle;
      rows_q   <= '0;
      rem_q    <= '0;
      h_q      <= '0;
      l_q      <= '0;
      hrow_q   <= '0;
      lrow_q   <= '0;
      bstart_q <= '0;
      beats_q  <= '0;
      wbeat_q  <= '0;
      wstrb_q  <= '0;
      bytes_q  <= '0;
    end else begin
      state_q  <= state_d;
      rows_q   <= rows_d;
      rem_q    <= rem_d;
      h_q      <= h_d;
      l_q      <= l_d;
      hrow_q   <= hrow_d;
      lrow_q   <= lrow_d;
      bstart_q <= bstart_d;
      beats_q  <= beats_d;
      wbeat_q  <= wbeat_d;
      wstrb_q  <= wstrb_d;
      bytes_q  <= bytes_d;
    end
  end
endmodule
