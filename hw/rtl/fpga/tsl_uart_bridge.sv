// UART-to-host-port bridge: a master on the tsl_soc host port (BAR0 HOSTIF registers, BAR1 HBM)
// driven by framed requests on an 8N1 UART (docs/fpga.md, "UART protocol"). Request: 0x55, OP
// (bits 1:0 READ=1/WRITE=2, bit 7 BAR), ADDR (4 bytes LE), COUNT-1, WRITE data (COUNT words LE),
// CRC-8 (poly 0x07, init 0) over OP..data. Response: 0xA5, STATUS (0 OK, 1 BUS, 2 CRC, 3 BADREQ),
// READ data, CRC-8. A frame's length follows from OP[1:0] and COUNT even when the request is bad;
// the CRC is checked first, then the fields. Data go through a 64-word buffer: a WRITE is performed
// only after its CRC checks, a READ completes every access before the response starts. Accesses
// are one at a time in word order (h_valid_o low for a cycle between them). A started request that
// gets no byte for TimeoutBits bit times is dropped without a response; bytes that arrive while the
// bridge executes or answers are dropped. Latency: the first access starts 2 cycles after the
// CRC byte is received, the response's SYNC the cycle after the last access (or after the CRC
// byte on an error); throughput is set by the line (10 bit times per byte).
module tsl_uart_bridge #(
  parameter int ClksPerBit  = 12,   // clk_i cycles per UART bit: clock Hz / baud (12 MHz / 1 Mbaud)
  parameter int TimeoutBits = 2048  // inter-byte timeout of a started request, in bit times
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        uart_rx_i,    // from the host (asynchronous)
  output logic        uart_tx_o,    // to the host
  // host-port master (core bus contract: request held until a one-cycle h_ready_i)
  output logic        h_valid_o,
  input  logic        h_ready_i,
  output logic        h_bar_o,      // 0 BAR0, 1 BAR1
  output logic [31:0] h_addr_o,
  output logic [31:0] h_wdata_o,
  output logic [3:0]  h_wstrb_o,
  input  logic [31:0] h_rdata_i,
  input  logic        h_err_i
);
  localparam logic [7:0] SYNC_REQ = 8'h55, SYNC_RSP = 8'hA5;
  localparam logic [1:0] OP_READ = 2'd1, OP_WRITE = 2'd2;
  localparam logic [1:0] ST_OK = 2'd0, ST_BUS = 2'd1, ST_CRC = 2'd2, ST_BADREQ = 2'd3;
  localparam int MaxWords = 64;
  localparam int TmoClks  = TimeoutBits * ClksPerBit;
  localparam int Tw       = $clog2(TmoClks);

  // FSM states (plain constants: Icarus 11 mis-types enum assignments from ?:).
  localparam logic [3:0] StSync = 4'd0, StHdr = 4'd1, StData = 4'd2, StCrc = 4'd3, StAccRd = 4'd4,
                         StAcc = 4'd5, StTxSync = 4'd6, StTxStatus = 4'd7, StTxRd = 4'd8,
                         StTxData = 4'd9, StTxCrc = 4'd10;

  // CRC-8, polynomial x^8 + x^2 + x + 1, MSB first, no reflection.
  function automatic logic [7:0] crc8(input logic [7:0] crc, input logic [7:0] data);
    logic [7:0] c;
    c = crc ^ data;
    for (int i = 0; i < 8; i++) c = c[7] ? {c[6:0], 1'b0} ^ 8'h07 : {c[6:0], 1'b0};
    crc8 = c;
  endfunction

  logic [3:0]  state_q, state_d;
  logic [7:0]  op_q, op_d, cnt_q, cnt_d, crc_q, crc_d;
  logic [31:0] addr_q, addr_d, word_q, word_d;
  logic [9:0]  idx_q, idx_d;       // header byte, or data byte (word idx[9:2], byte idx[1:0])
  logic [1:0]  status_q, status_d;
  logic [Tw-1:0] tmo_q, tmo_d;

  // --- UART ----------------------------------------------------------------------------------
  logic       rx_valid, tx_valid, tx_ready;
  logic [7:0] rx_data, tx_data;

  tsl_uart_rx #(.ClksPerBit(ClksPerBit)) u_rx (
    .clk_i,
    .rst_ni,
    .rx_i    (uart_rx_i),
    .valid_o (rx_valid),
    .data_o  (rx_data)
  );

  tsl_uart_tx #(.ClksPerBit(ClksPerBit)) u_tx (
    .clk_i,
    .rst_ni,
    .valid_i (tx_valid),
    .ready_o (tx_ready),
    .data_i  (tx_data),
    .tx_o    (uart_tx_o)
  );

  // --- data buffer: WRITE data from the line, READ data from the host port ---------------------
  logic        buf_we, buf_re;
  logic [5:0]  buf_waddr;
  logic [31:0] buf_wdata, buf_rdata;

  tsl_prim_ram_1r1w #(.Depth(MaxWords), .Width(32)) u_buf (
    .clk_i,
    .we_i    (buf_we),
    .waddr_i (buf_waddr),
    .wdata_i (buf_wdata),
    .be_i    (4'hF),
    .re_i    (buf_re),
    .raddr_i (idx_q[7:2]),
    .rdata_o (buf_rdata)
  );

  // --- frame FSM -----------------------------------------------------------------------------
  logic is_write, last_word, bad_req;
  assign is_write  = op_q[1:0] == OP_WRITE;
  assign last_word = idx_q[9:2] == cnt_q;
  assign bad_req   = op_q[6:2] != '0 || (op_q[1:0] != OP_READ && op_q[1:0] != OP_WRITE) ||
                     cnt_q >= 8'(MaxWords) || addr_q[1:0] != 2'd0;

  assign h_valid_o = state_q == StAcc;
  assign h_bar_o   = op_q[7];
  assign h_addr_o  = addr_q;
  assign h_wdata_o = buf_rdata;
  assign h_wstrb_o = is_write ? 4'hF : 4'h0;

  always_comb begin
    state_d   = state_q;
    op_d      = op_q;
    cnt_d     = cnt_q;
    crc_d     = crc_q;
    addr_d    = addr_q;
    word_d    = word_q;
    idx_d     = idx_q;
    status_d  = status_q;
    tmo_d     = tmo_q + Tw'(1);
    buf_we    = 1'b0;
    buf_re    = 1'b0;
    buf_waddr = idx_q[7:2];
    buf_wdata = {rx_data, word_q[31:8]};
    tx_valid  = 1'b0;
    tx_data   = crc_q;
    if (rx_valid) tmo_d = '0;

    unique case (state_q)
      StSync: begin
        tmo_d = '0;
        crc_d = '0;
        idx_d = '0;
        if (rx_valid && rx_data == SYNC_REQ) state_d = StHdr;
      end
      StHdr: if (rx_valid) begin
        crc_d = crc8(crc_q, rx_data);
        idx_d = idx_q + 10'd1;
        unique case (idx_q[2:0])
          3'd0:    op_d = rx_data;
          3'd5: begin
            cnt_d   = rx_data;
            idx_d   = '0;
            state_d = (op_q[1:0] == OP_WRITE) ? StData : StCrc;
          end
          default: addr_d = {rx_data, addr_q[31:8]};
        endcase
      end
      StData: if (rx_valid) begin
        crc_d  = crc8(crc_q, rx_data);
        word_d = {rx_data, word_q[31:8]};
        idx_d  = idx_q + 10'd1;
        buf_we = idx_q[1:0] == 2'd3 && idx_q[9:8] == 2'd0;
        if (idx_q[1:0] == 2'd3 && last_word) state_d = StCrc;
      end
      StCrc: if (rx_valid) begin
        idx_d = '0;
        if (crc8(crc_q, rx_data) != 8'd0) begin
          status_d = ST_CRC;
          state_d  = StTxSync;
        end else if (bad_req) begin
          status_d = ST_BADREQ;
          state_d  = StTxSync;
        end else begin
          status_d = ST_OK;
          state_d  = StAccRd;
        end
      end
      StAccRd: begin
        buf_re  = 1'b1;
        state_d = StAcc;
      end
      StAcc: if (h_ready_i) begin
        if (h_err_i) status_d = ST_BUS;
        buf_we    = !is_write;
        buf_wdata = h_err_i ? 32'd0 : h_rdata_i;
        addr_d    = addr_q + 32'd4;
        idx_d     = idx_q + 10'd4;
        state_d   = last_word ? StTxSync : StAccRd;
        if (last_word) idx_d = '0;
      end
      StTxSync: begin
        tx_valid = 1'b1;
        tx_data  = SYNC_RSP;
        crc_d    = '0;
        if (tx_ready) state_d = StTxStatus;
      end
      StTxStatus: begin
        tx_valid = 1'b1;
        tx_data  = {6'd0, status_q};
        if (tx_ready) begin
          crc_d   = crc8(crc_q, tx_data);
          state_d = (!is_write && !status_q[1]) ? StTxRd : StTxCrc;
        end
      end
      StTxRd: begin
        buf_re  = 1'b1;
        state_d = StTxData;
      end
      StTxData: begin
        tx_valid = 1'b1;
        tx_data  = buf_rdata[8*idx_q[1:0] +: 8];
        if (tx_ready) begin
          crc_d = crc8(crc_q, tx_data);
          idx_d = idx_q + 10'd1;
          if (idx_q[1:0] == 2'd3) state_d = last_word ? StTxCrc : StTxRd;
        end
      end
      StTxCrc: begin
        tx_valid = 1'b1;
        if (tx_ready) state_d = StSync;
      end
      default: state_d = StSync;
    endcase

    // A started request that stalls is dropped.
    if ((state_q == StHdr || state_q == StData || state_q == StCrc) && tmo_q == Tw'(TmoClks - 1)) begin
      state_d = StSync;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q  <= StSync;
      op_q     <= '0;
      cnt_q    <= '0;
      crc_q    <= '0;
      idx_q    <= '0;
      status_q <= ST_OK;
      tmo_q    <= '0;
    end else begin
      state_q  <= state_d;
      op_q     <= op_d;
      cnt_q    <= cnt_d;
      crc_q    <= crc_d;
      idx_q    <= idx_d;
      status_q <= status_d;
      tmo_q    <= tmo_d;
    end
  end

  always_ff @(posedge clk_i) begin
    addr_q <= addr_d;
    word_q <= word_d;
  end
endmodule
