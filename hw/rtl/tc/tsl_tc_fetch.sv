// Program fetch unit: reads the device program [addr_i, addr_i + bytes_i) from HBM on its own AXI
// read port (INCR bursts of full beats, at most MaxBurst beats, never across 4 KiB), keeps up to
// Beats beats in a buffer (bursts are issued only while the buffer has room for them, so R is
// always ready), and parses the records (docs/isa.md section 6, Program fetch) into items for the
// controller: an instruction (256 bits, as an INSN7 push), a descriptor word (as a SEQk write; word
// 23 launches) or an error (BAD_RECORD, HBM_RANGE for a program outside HBM, AXI_SLVERR/DECERR of a
// beat the parser needed), in program order. Throughput: one item per cycle (an instruction takes 8
// words at once from an 8 + Dw/32 word window refilled by one beat per cycle). abort_i (CTRL.RESET,
// or any error) drops everything; busy_o stays high until every outstanding burst has answered.
`include "hw/rtl/tsl_axi.svh"
module tsl_tc_fetch #(
  parameter int N        = tsl_pkg::PARAM_N,         // AXI data is 16N bits (a beat: 2N bytes)
  parameter int HbmBytes = tsl_pkg::PARAM_HBM_BYTES, // the program must lie inside [0, HbmBytes)
  parameter int Beats    = (N >= 16) ? 32 : 1024 / (2 * N),  // buffer beats (>= 2): 1 KiB up to N=16
  parameter int MaxBurst = (Beats / 4 < 16) ? Beats / 4 : 16, // beats per read burst, 1..Beats
  localparam int Dw      = 16 * N
) (
  input  logic           clk_i,
  input  logic           rst_ni,
  input  logic           start_i,        // PROG_BYTES written: fetch [addr_i, addr_i + bytes_i)
  input  logic [31:0]    addr_i,         // multiple of 4
  input  logic [31:0]    bytes_i,        // multiple of 4, not 0
  input  logic           abort_i,        // CTRL.RESET or an error: stop, drop the items, drain R
  output logic           busy_o,         // from start_i until drained (PROG_STATUS.BUSY)
  // items toward the controller (valid/ready; the payload holds until taken)
  output logic           item_valid_o,
  input  logic           item_ready_i,
  output logic           item_seq_o,     // a descriptor word (item_data_o[31:0], index item_word_o)
  output logic [4:0]     item_word_o,
  output logic [3:0]     item_err_o,     // != ERR_NONE: an error at item_addr_o (the fetch ends)
  output logic [31:0]    item_addr_o,
  output logic [255:0]   item_data_o,    // an instruction (when !item_seq_o and no error)
  // AXI4 read master (ID 0)
  `TSL_AXI_M_PORTS_RD(m_axi_, Dw)
);
  `include "hw/rtl/tsl_assert.svh"
  localparam int LW    = $clog2(Dw / 8);       // log2 beat bytes
  localparam int BW    = Dw / 32;              // words per beat
  localparam int WW    = 8 + BW;               // window words
  localparam int PB    = 4096 / (Dw / 8);      // beats per 4 KiB page
  localparam int PBW   = $clog2(PB) + 1;
  localparam int BL    = $clog2(Beats + 1);
  localparam int CW    = $clog2(WW + 1);
  localparam int InsnW = tsl_pkg::PARAM_INSN_WORDS;
  localparam logic [2:0] PIdle = 3'd0, PHdr = 3'd1, PInsn = 3'd2, PSeq = 3'd3;

  // ------------------------------------------------------------------------------- state
  logic [2:0]       pst_q, pst_d;              // parser state
  logic [31-LW:0]   rq_beat_q, rq_beat_d;      // next beat to request
  logic [31:0]      rq_left_q, rq_left_d;      // beats still to request
  logic [BL-1:0]    resv_q, resv_d;            // beats requested and not yet taken into the window
  logic [8:0]       out_q, out_d;              // bursts outstanding
  logic             ar_valid_q, ar_valid_d;
  logic [31:0]      ar_addr_q, ar_addr_d;
  logic [7:0]       ar_len_q, ar_len_d;
  logic [31-LW:0]   pop_beat_q, pop_beat_d;    // the beat at the buffer's head
  logic             first_q, first_d;          // the head is the program's first beat
  logic [$clog2(BW)-1:0] skip_q, skip_d;       // words of the first beat before the program
  logic [WW*32-1:0] win_q, win_d;              // unparsed program words, oldest in [31:0]
  logic [CW-1:0]    wcnt_q, wcnt_d;            // valid words in win_q (the words above are 0)
  logic [29:0]      left_q, left_d;            // program words not yet parsed
  logic [31:0]      cur_q, cur_d;              // HBM address of win_q[31:0]
  logic [15:0]      rec_q, rec_d;              // instructions left in the INSN record
  logic [4:0]       sw_q, sw_d;                // next descriptor word
  logic             aerr_q, aerr_d;            // a beat answered an error: nothing after it
  logic [3:0]       aerr_code_q, aerr_code_d;
  logic [31:0]      aerr_addr_q, aerr_addr_d;
  logic             it_valid_q, it_valid_d, it_seq_q, it_seq_d;
  logic [4:0]       it_word_q, it_word_d;
  logic [3:0]       it_err_q, it_err_d;
  logic [31:0]      it_addr_q, it_addr_d;
  logic [255:0]     it_data_q, it_data_d;

  // ------------------------------------------------------------------------ read requests
  logic [16:0]      len, to_page;
  logic             load, r_hs;
  logic [32:0]      end_b;

  assign to_page = 17'(PB) - 17'(rq_beat_q[PBW-2:0]);
  always_comb begin
    len = (rq_left_q > 32'(MaxBurst)) ? 17'(MaxBurst) : 17'(rq_left_q);
    if (len > to_page) len = to_page;
  end
  assign load = pst_q != PIdle && !abort_i && rq_left_q != 32'd0 && (!ar_valid_q || m_axi_arready) &&
                32'(resv_q) + 32'(len) <= 32'(Beats);
  assign r_hs = m_axi_rvalid && m_axi_rready;
  assign end_b = 33'(addr_i) + 33'(bytes_i);

  assign m_axi_arvalid = ar_valid_q;
  assign m_axi_araddr  = ar_addr_q;
  assign m_axi_arlen   = ar_len_q;
  assign m_axi_arsize  = 3'(LW);
  assign m_axi_arburst = 2'b01;
  assign m_axi_rready  = 1'b1;   // the buffer has room for every beat requested

  // ------------------------------------------------------------------------------ buffer
  logic          fb_valid, fb_ready, fb_pop;
  logic [Dw+1:0] fb_data;
  logic [BL-1:0] fb_level;

  tsl_prim_fifo #(.Width(Dw + 2), .Depth(Beats)) u_buf (
    .clk_i,
    .rst_ni,
    .clr_i  (abort_i || start_i),
    .valid_i(r_hs && pst_q != PIdle && !abort_i),
    .ready_o(fb_ready),
    .data_i ({m_axi_rresp, m_axi_rdata}),
    .valid_o(fb_valid),
    .ready_i(fb_pop),
    .data_o (fb_data),
    .level_o(fb_level)
  );

  // ------------------------------------------------------------------------------ parser
  logic [31:0]   hdr;
  logic [7:0]    kind;
  logic [15:0]   count;
  logic [20:0]   need;       // payload words of the record at the head
  logic          bad, free, take1, take8;
  logic [CW-1:0] used, rest;   // words taken by the parser this cycle, and the words left
  logic [WW*32-1:0] shifted, app;
  logic [CW-1:0] app_n;

  assign hdr   = win_q[31:0];
  assign kind  = hdr[7:0];
  assign count = hdr[31:16];
  assign need  = (kind == 8'(tsl_pkg::PROG_REC_SEQ)) ? 21'(tsl_pkg::PARAM_SEQ_WORDS) : {count, 5'd0} >> 2;
  assign bad   = !(kind == 8'(tsl_pkg::PROG_REC_INSN) || kind == 8'(tsl_pkg::PROG_REC_SEQ)) || count == 16'd0 ||
                 (kind == 8'(tsl_pkg::PROG_REC_SEQ) && count != 16'd1) || hdr[15:8] != 8'd0 ||
                 30'(need) > left_q - 30'd1;
  assign free  = !it_valid_q || item_ready_i;

  always_comb begin
    pst_d       = pst_q;
    left_d      = left_q;
    cur_d       = cur_q;
    rec_d       = rec_q;
    sw_d        = sw_q;
    it_valid_d  = it_valid_q && !item_ready_i;
    it_seq_d    = it_seq_q;
    it_word_d   = it_word_q;
    it_err_d    = it_err_q;
    it_addr_d   = it_addr_q;
    it_data_d   = it_data_q;
    take1       = 1'b0;
    take8       = 1'b0;
    unique case (pst_q)
      PHdr: if (free && wcnt_q != '0) begin
        if (bad) begin
          it_valid_d = 1'b1;
          it_seq_d   = 1'b0;
          it_err_d   = tsl_pkg::ERR_BAD_RECORD;
          it_addr_d  = cur_q;
          pst_d      = PIdle;
        end else begin
          take1 = 1'b1;
          rec_d = count;
          sw_d  = 5'd0;
          pst_d = (kind == 8'(tsl_pkg::PROG_REC_SEQ)) ? PSeq : PInsn;
        end
      end
      PInsn: if (free && 32'(wcnt_q) >= 32'(InsnW)) begin
        take8      = 1'b1;
        it_valid_d = 1'b1;
        it_seq_d   = 1'b0;
        it_err_d   = tsl_pkg::ERR_NONE;
        it_data_d  = win_q[255:0];
        rec_d      = rec_q - 16'd1;
        if (rec_q == 16'd1) pst_d = PHdr;
      end
      PSeq: if (free && wcnt_q != '0) begin
        take1      = 1'b1;
        it_valid_d = 1'b1;
        it_seq_d   = 1'b1;
        it_err_d   = tsl_pkg::ERR_NONE;
        it_word_d  = sw_q;
        it_data_d  = {224'd0, hdr};
        sw_d       = sw_q + 5'd1;
        if (sw_q == 5'(tsl_pkg::PARAM_SEQ_WORDS - 1)) pst_d = PHdr;
      end
      default: ;
    endcase
    // A beat the parser needs answered an error: the error goes out in order, after every record
    // parsed before it.
    if (pst_q != PIdle && free && aerr_q && !take1 && !take8 && !(pst_q == PHdr && wcnt_q != '0)) begin
      it_valid_d = 1'b1;
      it_seq_d   = 1'b0;
      it_err_d   = aerr_code_q;
      it_addr_d  = aerr_addr_q;
      pst_d      = PIdle;
    end
    used = take8 ? CW'(InsnW) : CW'(take1);
    if (take1 || take8) begin
      left_d = left_q - 30'(used);
      cur_d  = cur_q + (32'(used) << 2);
      if (left_d == 30'd0 && pst_d == PHdr) pst_d = PIdle;   // the program's end
    end
    if (start_i) begin
      pst_d      = PHdr;
      left_d     = bytes_i[31:2];
      cur_d      = addr_i;
      it_valid_d = 1'b0;
      if (end_b > 33'(HbmBytes)) begin   // a program outside HBM: nothing is read
        it_valid_d = 1'b1;
        it_seq_d   = 1'b0;
        it_err_d   = tsl_pkg::ERR_HBM_RANGE;
        it_addr_d  = addr_i;
        pst_d      = PIdle;
      end
    end
    if (abort_i) begin
      pst_d      = PIdle;
      it_valid_d = 1'b0;
    end
  end

  // ------------------------------------------------------------------------------ window
  assign rest    = wcnt_q - used;
  assign shifted = take8 ? win_q >> (32 * InsnW) : take1 ? win_q >> 32 : win_q;
  assign fb_pop  = fb_valid && pst_q != PIdle && !abort_i && !aerr_q && 32'(rest) <= 32'(WW - BW);
  always_comb begin
    app   = (WW * 32)'(fb_data[Dw-1:0]);
    app_n = CW'(BW);
    if (first_q) begin
      app   = app >> (32 * 32'(skip_q));
      app_n = CW'(BW) - CW'(skip_q);
    end
  end

  always_comb begin
    win_d       = shifted;
    wcnt_d      = rest;
    pop_beat_d  = pop_beat_q;
    first_d     = first_q;
    aerr_d      = aerr_q;
    aerr_code_d = aerr_code_q;
    aerr_addr_d = aerr_addr_q;
    if (fb_pop) begin
      pop_beat_d = pop_beat_q + 1'b1;
      first_d    = 1'b0;
      if (fb_data[Dw + 1]) begin
        aerr_d      = 1'b1;
        aerr_code_d = fb_data[Dw] ? tsl_pkg::ERR_AXI_DECERR : tsl_pkg::ERR_AXI_SLVERR;
        aerr_addr_d = {pop_beat_q, {LW{1'b0}}};
      end else begin
        win_d  = shifted | (app << (32 * 32'(rest)));
        wcnt_d = rest + app_n;
      end
    end
    if (start_i || abort_i) begin
      win_d      = '0;
      wcnt_d     = '0;
      aerr_d     = 1'b0;
      first_d    = 1'b1;
      pop_beat_d = addr_i[31:LW];
    end
  end

  // ----------------------------------------------------------------- requests and counters
  always_comb begin
    rq_beat_d  = rq_beat_q;
    rq_left_d  = rq_left_q;
    ar_valid_d = ar_valid_q && !m_axi_arready;
    ar_addr_d  = ar_addr_q;
    ar_len_d   = ar_len_q;
    resv_d     = resv_q - BL'(fb_pop);
    out_d      = out_q + 9'(ar_valid_q && m_axi_arready) - 9'(r_hs && m_axi_rlast);
    skip_d     = skip_q;
    if (load) begin
      ar_valid_d = 1'b1;
      ar_addr_d  = {rq_beat_q, {LW{1'b0}}};
      ar_len_d   = 8'(len - 17'd1);
      rq_beat_d  = rq_beat_q + (32 - LW)'(len);
      rq_left_d  = rq_left_q - 32'(len);
      resv_d     = resv_d + BL'(len);
    end
    if (start_i) begin
      rq_beat_d = addr_i[31:LW];
      rq_left_d = (end_b > 33'(HbmBytes)) ? 32'd0
                : 32'((end_b - 33'd1) >> LW) - 32'(addr_i[31:LW]) + 32'd1;
      resv_d    = '0;
      skip_d    = addr_i[LW-1:2];
    end
    if (abort_i) begin
      rq_left_d = 32'd0;
      resv_d    = '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pst_q      <= PIdle;
      rq_left_q  <= 32'd0;
      resv_q     <= '0;
      out_q      <= 9'd0;
      ar_valid_q <= 1'b0;
      wcnt_q     <= '0;
      win_q      <= '0;
      aerr_q     <= 1'b0;
      it_valid_q <= 1'b0;
      first_q    <= 1'b1;
    end else begin
      pst_q      <= pst_d;
      rq_left_q  <= rq_left_d;
      resv_q     <= resv_d;
      out_q      <= out_d;
      ar_valid_q <= ar_valid_d;
      wcnt_q     <= wcnt_d;
      win_q      <= win_d;
      aerr_q     <= aerr_d;
      it_valid_q <= it_valid_d;
      first_q    <= first_d;
    end
  end

  // Datapath registers: not reset (meaningful only while a fetch runs).
  always_ff @(posedge clk_i) begin
    rq_beat_q   <= rq_beat_d;
    ar_addr_q   <= ar_addr_d;
    ar_len_q    <= ar_len_d;
    pop_beat_q  <= pop_beat_d;
    skip_q      <= skip_d;
    left_q      <= left_d;
    cur_q       <= cur_d;
    rec_q       <= rec_d;
    sw_q        <= sw_d;
    aerr_code_q <= aerr_code_d;
    aerr_addr_q <= aerr_addr_d;
    it_seq_q    <= it_seq_d;
    it_word_q   <= it_word_d;
    it_err_q    <= it_err_d;
    it_addr_q   <= it_addr_d;
    it_data_q   <= it_data_d;
  end

  assign busy_o       = pst_q != PIdle || it_valid_q || ar_valid_q || out_q != 9'd0;
  assign item_valid_o = it_valid_q;
  assign item_seq_o   = it_seq_q;
  assign item_word_o  = it_word_q;
  assign item_err_o   = it_err_q;
  assign item_addr_o  = it_addr_q;
  assign item_data_o  = it_data_q;

  logic unused;
  assign unused = ^{fb_level, addr_i[1:0], bytes_i[1:0]};

  // Assertions
  `TSL_ASSERT_INIT(ParamRange, (N >= 2 && (N & (N - 1)) == 0) && Beats >= 2 && MaxBurst >= 1 &&
                   MaxBurst <= Beats && MaxBurst <= 256, "N a power of two, Beats >= 2, MaxBurst 1..min(Beats, 256)")
  `TSL_ASSERT(BufRoom, r_hs && pst_q != PIdle && !abort_i |-> fb_ready,
              "an R beat arrived with the fetch buffer full (the credit count is wrong)")
  `TSL_ASSERT(ArHeld, m_axi_arvalid && !m_axi_arready |=> m_axi_arvalid && $stable(m_axi_araddr) &&
              $stable(m_axi_arlen), "the AR request changed before its handshake")
  `TSL_ASSERT(Ar4KiB, m_axi_arvalid |-> 32'(m_axi_araddr[11:LW]) + 32'(m_axi_arlen) < PB,
              "a fetch burst crosses a 4 KiB boundary")
  `TSL_ASSERT(RHasBurst, m_axi_rvalid |-> out_q != 9'd0, "an R beat with no fetch burst outstanding")
  `TSL_ASSERT(ItemHeld, item_valid_o && !item_ready_i && !abort_i |=> item_valid_o && $stable(item_data_o) &&
              $stable(item_err_o) && $stable(item_seq_o), "an item changed before it was taken")
  `TSL_ASSERT(WinBound, wcnt_q <= CW'(WW), "the window holds more words than it has")
  `TSL_ASSERT(StartIdle, start_i |-> !busy_o, "a fetch started while one runs")
endmodule
