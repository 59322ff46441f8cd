// Assertion macros of the Tessel RTL: what a module's header comment promises, checked with a
// message. A module includes it inside its body (`include "hw/rtl/tsl_assert.svh", a path from the
// repository root, where every flow runs); the macros use the module's clk_i and rst_ni.
//   `TSL_ASSERT(Name, property, "message")       checked at every rising clk_i out of reset
//   `TSL_ASSERT_INIT(Name, condition, "message") checked once at time 0 (parameter ranges)
// They expand to SystemVerilog assertions under Verilator, which checks them when a build passes
// --assert (the test builds; a failure prints the message and stops the simulation with a non-zero
// exit), and to nothing for synthesis (Yosys) and Icarus, which do not take concurrent assertions.
// An assertion's `disable iff (!rst_ni)` reads the asynchronous reset synchronously, which is
// harmless; Verilator would flag it as SYNCASYNCNET.
/* verilator lint_off SYNCASYNCNET */
`ifndef TSL_ASSERT_SVH
`define TSL_ASSERT_SVH
`ifdef VERILATOR
`define TSL_ASSERT(name, prop, msg) \
  name: assert property (@(posedge clk_i) disable iff (!rst_ni) (prop)) \
    else $error("%m: %s", msg);
`define TSL_ASSERT_INIT(name, cond, msg) \
  initial begin : name \
    assert (cond) else $fatal(1, "%m: %s", msg); \
  end
`else
`define TSL_ASSERT(name, prop, msg)
`define TSL_ASSERT_INIT(name, cond, msg)
`endif
`endif
