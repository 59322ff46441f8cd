// Reset of every proof: rst_ni is low in the first cycle and high after it. The flops of the
// design start anywhere (the solver picks), so what reset does not set stays unconstrained.
  logic fv_init = 1'b1;
  always @(posedge clk_i) fv_init <= 1'b0;
  always @* assume (rst_ni == !fv_init);
