// Bound into tsl_tc_seq_chk: the launch checks against a reference written from docs/isa.md
// section 8 (hw/model/tslm_seq.c tslm_seq_check): what ERR_NONE guarantees, which refusals are
// certain, the error address, and the latency of the header comment.
  logic [5:0] fv_cyc_q;   // cycles since start_i (1 in the cycle after it)
  logic       fv_run_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fv_run_q <= 1'b0;
      fv_cyc_q <= '0;
    end else if (start_i) begin
      fv_run_q <= 1'b1;
      fv_cyc_q <= 6'd1;
    end else if (fv_run_q) begin
      fv_run_q <= !done_o;
      fv_cyc_q <= fv_cyc_q + 6'd1;
    end
  end
  logic        fv_es;
  logic [1:0]  fv_ces;
  logic [63:0] fv_end_a, fv_end_b, fv_end_c, fv_end_bias, fv_end_acc;
  assign fv_es  = d.dtype == tsl_pkg::DTYPE_BF16;
  assign fv_ces = d.c_dtype == tsl_pkg::DTYPE_INT8 ? 2'd0 : d.c_dtype == tsl_pkg::DTYPE_BF16 ? 2'd1 : 2'd2;
  // Extents as the reference states them: the last byte of the last row, plus one (in 64 bits).
  assign fv_end_a    = 64'(d.a_addr) + 64'(48'(d.m - 16'd1) * 48'(d.lda)) + (64'(d.k) << fv_es);
  assign fv_end_b    = 64'(d.b_addr) + 64'(48'(d.k - 16'd1) * 48'(d.ldb)) + (64'(d.n) << fv_es);
  assign fv_end_c    = 64'(d.c_addr) + 64'(48'(d.m - 16'd1) * 48'(d.ldc)) + (64'(d.n) << fv_ces);
  assign fv_end_bias = 64'(d.bias_addr) + 64'(d.n) * 64'd4;
  // The ACC region: two tiles of MC rows by NBW*N INT32 columns.
  assign fv_end_acc  = 64'(d.acc_addr) + 2 * (64'(48'(d.mc) * 48'(d.nbw)) << ($clog2(N) + 2));

  function automatic logic fv_in_hbm(input logic [31:0] addr, input logic [63:0] e);
    fv_in_hbm = addr >= hbm_base_i && e <= 64'(hbm_limit_i) && e <= 64'(HbmBytes);
  endfunction

  always @* if (rst_ni) begin
    FvLatency: assert (done_o == (fv_run_q && fv_cyc_q == (d.conv ? 6'd27 : 6'd18)));
    if (done_o && err_o == tsl_pkg::ERR_NONE) begin
      // A launch that passes has sane fields, no dependency token held, and fits.
      FvOkFields: assert (d.m != 0 && d.n != 0 && d.k != 0 && d.mc != 0 && d.kc != 0 && d.nbw != 0
                          && d.kc % 16'(N) == 0 && (desc_i & ~tsl_pkg::SEQ_USED) == '0 && credit_i == '0);
`ifdef FV_PRODUCTS
      // Every HBM operand lies in the window [HBM_BASE, HBM_LIMIT) and in HBM. (The products make
      // these beyond z3 in make test's budget: the model's compare of every launch, make
      // test-seq-n4, covers them.)
      FvOkHbm: assert ((d.conv || fv_in_hbm(d.a_addr, fv_end_a)) && fv_in_hbm(d.b_addr, fv_end_b)
                       && fv_in_hbm(d.c_addr, fv_end_c) && (!d.bias || fv_in_hbm(d.bias_addr, fv_end_bias)));
`endif
      FvOkAlign: assert (d.vmem_addr % (4 * N) == 0 && d.acc_addr % (4 * N) == 0);
      FvOkAccBase: assert (d.acc_addr >= tsl_pkg::LOCAL_ACC_BASE);
`ifdef FV_PRODUCTS
      FvOkAcc: assert (fv_end_acc <= 64'(tsl_pkg::LOCAL_ACC_BASE) + 64'(AccBytes));
`endif
      // Yosys 0.23 reads `~40'(x)` as a cast to a size of ~40: the layout's al() wrote it so until
      // the proof of this assertion found it, and a Yosys-built sequencer laid VMEM out wrongly.
      FvOkVmem: assert (64'(d.vmem_addr) + 64'(pad_vecs_o) * N <= 64'(VmemBytes));
    end
    // Refusals that are certain, in the order of the checks.
    if (done_o && (d.m == 0 || d.n == 0 || d.k == 0 || d.mc == 0 || d.kc == 0 || d.nbw == 0 || credit_i != '0))
      FvBadField: assert (err_o == tsl_pkg::ERR_BAD_FIELD);
    if (done_o && err_o == tsl_pkg::ERR_HBM_RANGE)
      FvHbmAddr: assert (err_addr_o == d.a_addr || err_addr_o == d.b_addr || err_addr_o == d.c_addr
                         || err_addr_o == d.bias_addr);
    if (done_o && err_o == tsl_pkg::ERR_MISALIGNED)
      FvAlignAddr: assert (err_addr_o == d.vmem_addr || err_addr_o == d.acc_addr);
    if (done_o) FvErrKnown: assert (err_o == tsl_pkg::ERR_NONE || err_o == tsl_pkg::ERR_BAD_FIELD
                                    || err_o == tsl_pkg::ERR_HBM_RANGE || err_o == tsl_pkg::ERR_MISALIGNED
                                    || err_o == tsl_pkg::ERR_LOCAL_RANGE);
  end
