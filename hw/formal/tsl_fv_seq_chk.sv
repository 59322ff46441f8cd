// Formal top of tsl_tc_seq_chk (the tile sequencer's launch checks) at the n4 configuration of
// make test-seq-n4 (N 4, VMEM 16 KiB, ACC 4 KiB, HBM 256 KiB, bf16). One launch: the descriptor
// is any value the solver picks, held for the whole run (anyconst: the contract "held stable on
// desc_i"), start_i pulses once after reset, credit_i and the HBM window are free. The datapath registers start with
// any content (what an earlier launch left). Checked to the bound that covers the launch
// (BMC past done_o); bind/tsl_tc_seq_chk.svh has the properties. With FV_PRODUCTS defined it adds
// the extent checks, with small sizes and strides (z3 did not finish them in 400 s).
module tsl_fv_seq_chk #(
  parameter int N         = 4,
  parameter int VmemBytes = 16384,
  parameter int AccBytes  = 4096,
  parameter int HbmBytes  = 262144,
  parameter bit Conv      = 1'b0   // 1: a CONV descriptor; 0: a GEMM
) (
  input logic       clk_i,
  input logic       rst_ni,
  input logic [9*4-1:0] credit_i,
  input logic [31:0]    hbm_base_i,   // the HBM window, free (sampled with done_o)
  input logic [31:0]    hbm_limit_i
);
`include "hw/formal/tsl_fv_reset.svh"
  (* anyconst *) logic [32*tsl_pkg::PARAM_SEQ_WORDS-1:0] desc_i;
  logic        start_i, done_o;
  logic [3:0]  err_o;
  logic [31:0] err_addr_o, a0_o, a1_o, b0_o, b1_o, o0_o, o1_o, bias_o, acc1_o, pad_vecs_o;
  logic [31:0] mc_lda_o, mc_ldc_o, kc_ldb_o, cv_rows_o, cv_sh_row_o, cv_pt_row_o, cv_dh_row_o;
  logic [31:0] cv_sw_lda_o, cv_pl_lda_o, cv_dw_lda_o, cv_owm1_sw_o, cv_row_loc_o, cv_kh_loc_o;
  logic [15:0] cv_fill_o;
  tsl_tc_seq_chk #(.N(N), .VmemBytes(VmemBytes), .AccBytes(AccBytes), .HbmBytes(HbmBytes),
                   .EnableBf16(1'b1), .CreditW(4)) u_dut (.*);

  logic fv_second = 1'b0;  // the cycle after reset
  always @(posedge clk_i) fv_second <= fv_init;
  assign start_i = fv_second;
  always @* assume (desc_i[55] == Conv);   // d.conv
`ifdef FV_PRODUCTS
  // The bound of the proof: the sizes and strides that enter a product are small (M, N, K, MC, KC
  // below 64, NBW below 16, strides below 4096), so that the solver can check the products; the
  // addresses and every other field are free.
  always @* assume (desc_i[15:6] == '0 && desc_i[31:22] == '0 && desc_i[47:38] == '0      // m, n, k
                    && desc_i[399:390] == '0 && desc_i[415:406] == '0 && desc_i[423:420] == '0  // mc, kc, nbw
                    && desc_i[127:108] == '0 && desc_i[191:172] == '0 && desc_i[255:236] == '0); // lda, ldb, ldc
`endif
endmodule
