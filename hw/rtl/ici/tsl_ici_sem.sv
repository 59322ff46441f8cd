// The ICI semaphores of a chip (docs/pod.md, The instructions): Sems counters that remote writes
// and the SENDs with DONE that leave this chip increment, and DMA SEMWAIT takes from, with the
// hardware's bound on a wait (HOSTIF ICI_WAIT).
//   inc_i[i]: an increment of semaphore inc_sem_i[i] (a packet with INCR has landed, or a SEND with
//     DONE has left); several in a cycle add up.
//   wait_*: a SEMWAIT of wait_count_i on semaphore wait_sem_i, held from wait_valid_i until it ends:
//     done_o in the cycle the semaphore holds at least COUNT (COUNT is taken at that edge, together
//     with any increments of the cycle), or timeout_o once limit_i cycles (1 if 0; it may change
//     during a wait) have passed without an increment of any semaphore (ERR_SEM_DEADLOCK). A wait
//     ends in its first cycle if it can.
//   clear_i (CTRL.RESET) zeroes every semaphore.
module tsl_ici_sem #(
  parameter int Sems = tsl_pkg::PARAM_ICI_SEMS,
  parameter int Incs = 5                          // increments a cycle: the ejector's, a send engine's each
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,
  input  logic [31:0]             limit_i,       // the bound on a wait, in cycles (HOSTIF ICI_WAIT)
  input  logic                    clear_i,
  input  logic [Incs-1:0]              inc_i,
  input  logic [Incs*$clog2(Sems)-1:0] inc_sem_i,
  input  logic                    wait_valid_i,
  input  logic [$clog2(Sems)-1:0] wait_sem_i,
  input  logic [15:0]             wait_count_i,
  output logic                    done_o,
  output logic                    timeout_o,
  output logic [32*Sems-1:0]      sem_o          // the counts (semaphore s at 32s), for registers and tests
);
  `include "hw/rtl/tsl_assert.svh"

  localparam int Sw = $clog2(Sems);

  logic [31:0] sem_q [Sems];
  logic [31:0] idle_q;     // cycles of this wait without an increment, up to the bound
  logic [31:0] limit;

  assign limit     = limit_i == '0 ? 32'd1 : limit_i;
  assign done_o    = wait_valid_i && sem_q[wait_sem_i] >= 32'(wait_count_i);
  assign timeout_o = wait_valid_i && !done_o && idle_q >= limit;

  logic [$clog2(Incs+1)-1:0] incs [Sems];   // the cycle's increments of each semaphore
  always_comb
    for (int s = 0; s < Sems; s++) begin
      sem_o[32*s +: 32] = sem_q[s];
      incs[s] = '0;
      for (int i = 0; i < Incs; i++)
        incs[s] = incs[s] + $bits(incs[s])'(inc_i[i] && inc_sem_i[i*Sw +: Sw] == Sw'(s));
    end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int s = 0; s < Sems; s++)
        sem_q[s] <= '0;
      idle_q <= '0;
    end else begin
      for (int s = 0; s < Sems; s++)
        if (clear_i)
          sem_q[s] <= '0;
        else
          sem_q[s] <= sem_q[s] + 32'(incs[s]) - (done_o && wait_sem_i == Sw'(s) ? 32'(wait_count_i) : 32'd0);
      idle_q <= !wait_valid_i || done_o || inc_i != '0 || clear_i ? '0 : idle_q + 32'(idle_q < limit);
    end
  end

  `TSL_ASSERT_INIT(SemsPow2, Sems >= 2 && (Sems & (Sems - 1)) == 0 && Incs >= 1, "Sems a power of two, Incs >= 1")
  `TSL_ASSERT(WaitHeld, wait_valid_i && !done_o && !timeout_o |=> wait_valid_i, "a SEMWAIT withdrawn before it ended")
  `TSL_ASSERT(CountNonZero, !wait_valid_i || wait_count_i != '0, "SEMWAIT COUNT 0 (the dispatcher refuses it)")
endmodule
