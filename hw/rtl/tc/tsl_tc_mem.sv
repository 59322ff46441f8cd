// Banked local memory (VMEM or ACC) shared by several requesters. Lines of LineBytes bytes are
// spread over Banks banks: the bank is the XOR of all log2(Banks)-bit slices of the line index, so
// rows a power-of-two stride apart (a matrix row of 256 bytes, say) still land in different banks;
// each bank is a tsl_prim_ram_1r1w, so it serves one read and one write per cycle. Per bank and cycle, the lowest-numbered port asking to
// read wins the read port and the lowest-numbered port asking to write wins the write port;
// gnt_o is combinational from req_i/we_i/addr_i, and a refused port just asks again.
// Latency: read data of a granted read is on rdata_o exactly one cycle after the grant (held until
// that port's next granted read). Throughput: Banks reads plus Banks writes per cycle at best.
module tsl_tc_mem #(
  parameter int Lines     = 8192,  // lines in the memory (power of two, a multiple of Banks)
  parameter int LineBytes = 32,    // bytes per line
  parameter int Banks     = 4,     // banks (power of two, 1 = a single 1R1W memory)
  parameter int Ports     = 4,     // requesters; port 0 has the highest priority
  localparam int Aw = $clog2(Lines),
  localparam int Lw = LineBytes * 8
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  input  logic [Ports-1:0]         req_i,
  output logic [Ports-1:0]         gnt_o,
  input  logic [Ports-1:0]         we_i,
  input  logic [Ports*Aw-1:0]      addr_i,    // line index, port p at [p*Aw +: Aw]
  input  logic [Ports*Lw-1:0]      wdata_i,
  input  logic [Ports*LineBytes-1:0] be_i,
  output logic [Ports*Lw-1:0]      rdata_o
);
  localparam int Bb  = (Banks > 1) ? $clog2(Banks) : 1;  // bank-select bits (1 when unused)
  localparam int BAw = Aw - $clog2(Banks);               // address bits inside a bank
  localparam int Pb  = (Ports > 1) ? $clog2(Ports) : 1;

  logic [Banks-1:0]          rd_en, wr_en;
  logic [Banks*Pb-1:0]       rd_sel, wr_sel;
  logic [Banks*Lw-1:0]       bank_rdata;
  logic [Ports*Bb-1:0]       bank_of;   // port p at [p*Bb +: Bb]
  logic [Ports*Bb-1:0]       rd_bank_q, rd_bank_d;

  // XOR-fold of a line address into a bank number (a function, not an always_comb that reads its
  // own output, which Icarus re-triggers forever).
  function automatic logic [Bb-1:0] fold(input logic [Aw-1:0] a);
    fold = '0;
    for (int i = 0; i < Aw; i++) fold[i % Bb] = fold[i % Bb] ^ a[i];
  endfunction

  for (genvar p = 0; p < Ports; p++) begin : g_bank_of
    if (Banks > 1) begin : g_banked
      assign bank_of[p*Bb +: Bb] = fold(addr_i[p*Aw +: Aw]);
    end else begin : g_single
      assign bank_of[p] = 1'b0;  // Bb = 1
    end
  end

  // Fixed-priority arbitration per bank: scan from the lowest priority up, so port 0 wins last.
  always_comb begin
    rd_en  = '0;
    wr_en  = '0;
    rd_sel = '0;
    wr_sel = '0;
    gnt_o  = '0;
    for (int b = 0; b < Banks; b++) begin
      for (int p = Ports - 1; p >= 0; p--) begin
        if (req_i[p] && 32'(bank_of[p*Bb +: Bb]) == b) begin
          if (we_i[p]) begin
            wr_en[b]               = 1'b1;
            wr_sel[b*Pb +: Pb]     = Pb'(p);
          end else begin
            rd_en[b]               = 1'b1;
            rd_sel[b*Pb +: Pb]     = Pb'(p);
          end
        end
      end
    end
    for (int b = 0; b < Banks; b++) begin
      if (wr_en[b]) gnt_o[wr_sel[b*Pb +: Pb]] = 1'b1;
      if (rd_en[b]) gnt_o[rd_sel[b*Pb +: Pb]] = 1'b1;
    end
  end

  // Remember which bank each port's granted read went to.
  always_comb begin
    rd_bank_d = rd_bank_q;
    for (int p = 0; p < Ports; p++) begin
      if (gnt_o[p] && !we_i[p]) rd_bank_d[p*Bb +: Bb] = bank_of[p*Bb +: Bb];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) rd_bank_q <= '0;
    else         rd_bank_q <= rd_bank_d;
  end

  for (genvar b = 0; b < Banks; b++) begin : g_bank
    logic [Pb-1:0] rp, wp;
    assign rp = rd_sel[b*Pb +: Pb];
    assign wp = wr_sel[b*Pb +: Pb];
    tsl_prim_ram_1r1w #(
      .Depth(Lines / Banks),
      .Width(Lw)
    ) u_ram (
      .clk_i,
      .we_i   (wr_en[b]),
      .waddr_i(addr_i[32'(wp)*Aw + (Aw - BAw) +: BAw]),
      .wdata_i(wdata_i[32'(wp)*Lw +: Lw]),
      .be_i   (be_i[32'(wp)*LineBytes +: LineBytes]),
      .re_i   (rd_en[b]),
      .raddr_i(addr_i[32'(rp)*Aw + (Aw - BAw) +: BAw]),
      .rdata_o(bank_rdata[b*Lw +: Lw])
    );
  end

  for (genvar p = 0; p < Ports; p++) begin : g_rdata
    assign rdata_o[p*Lw +: Lw] = bank_rdata[32'(rd_bank_q[p*Bb +: Bb])*Lw +: Lw];
  end
endmodule
