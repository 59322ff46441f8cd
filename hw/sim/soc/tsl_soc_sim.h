// TslSocSim: cycle-based simulation of the Tessel product SoC (Verilated hw/rtl/soc/tsl_soc) with
// the C++ HBM model (hw/sim/tc/tsl_hbm) on its m_axi_* port. This is the device side that the
// `tessel` CLI and the host library's `sim` transport drive.
//
// Lifetime: construct (the SoC is held in reset), load_elf() the firmware into the core's RAM,
// reset() to release it, then advance time with step()/run_until() or implicitly through the
// host accessors, which clock the whole SoC until the access completes (the firmware and the
// tensor core run meanwhile). Console bytes go to the FILE given to set_console() (stdout by
// default). Not thread-safe; one instance per Verilated model (Verilator allows several).
//
// Failure: when an RTL assertion fails (or Verilator reports a fatal error) the simulation stops
// for good: failed() is true, failure() holds Verilator's message, time no longer advances,
// run_until() returns TSL_SOC_FAILED and host accesses TSL_SOC_EFAILED. The process goes on (the
// build's Verilator hooks, tsl_soc_vl.h, never abort); the model may be mid-evaluation, so the
// only use left is to read failure() and the HBM model, and to delete the instance.
#ifndef TSL_SOC_SIM_H
#define TSL_SOC_SIM_H

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tsl_hw.h"

class TslHbm;
class TslPodSim;

// Outcome of a host-port access: codes of the shared status space (tsl_status_t, tsl_hw.h).
enum TslSocStatus {
  TSL_SOC_OK = TSL_OK,
  TSL_SOC_EBUS = TSL_EIO,              // the SoC answered with an error (bad offset, outside HBM, AXI error)
  TSL_SOC_ETIMEOUT = TSL_ETIMEOUT,     // no answer within the cycle limit
  TSL_SOC_EINVAL = TSL_EINVAL,         // bad argument (bar not 0/1, unaligned address); nothing was driven
  TSL_SOC_EFAILED = TSL_EDEVICE        // the simulation stopped: an RTL assertion failed (failure())
};

// Why run_until() returned.
enum TslSocStop { TSL_SOC_STOPPED, TSL_SOC_EXIT, TSL_SOC_TIMEOUT, TSL_SOC_TRAP_LOOP, TSL_SOC_FAILED };

class TslSocSim {
 public:
  static const unsigned kBarRegs = 0;  // BAR0: HOSTIF registers (offset < TSL_MMAP_HOSTIF_BYTES)
  static const unsigned kBarHbm = 1;   // BAR1: HBM (offset < hbm_bytes())

  TslSocSim();
  ~TslSocSim();
  TslSocSim(const TslSocSim &) = delete;
  TslSocSim &operator=(const TslSocSim &) = delete;

  // Copy an RV32 ELF's loadable segments into the core's RAM (back door). False + *err on failure.
  bool load_elf(const std::string &path, std::string *err);
  // Write an FST waveform of the whole SoC from now on. False + *err if the file cannot be opened.
  bool open_trace(const std::string &path, std::string *err);
  void set_console(FILE *f) { console_ = f; }

  // Hold rst_ni low for a few cycles, then release it: the core starts at the RAM base.
  void reset();
  // Advance n clock cycles.
  void step(uint64_t n = 1);
  // Clock until stop() returns true (checked before each cycle; may be empty), the program
  // exits, a trap loop is seen (trap_loop_limit traps with no retire), the simulation fails
  // (failed()) or max_cycles elapse (0 = no limit).
  TslSocStop run_until(const std::function<bool()> &stop, uint64_t max_cycles,
                       uint32_t trap_loop_limit = 1000);

  // Host port: one 32-bit access to bar at byte offset addr (4-aligned). Blocks (clocking the
  // SoC) until the SoC answers or timeout_cycles pass. wstrb selects the bytes written.
  TslSocStatus host_read32(unsigned bar, uint32_t addr, uint32_t *data,
                           uint64_t timeout_cycles = 100000);
  TslSocStatus host_write32(unsigned bar, uint32_t addr, uint32_t data, uint8_t wstrb = 0xf,
                            uint64_t timeout_cycles = 100000);
  bool host_irq() const;  // the host interrupt line (sampled after the last cycle)

  // HBM model: direct (zero-time) access to its memory, statistics and AXI rule violations.
  TslHbm &hbm();
  uint64_t hbm_bytes() const;

  uint64_t cycles() const { return cycles_; }    // cycles since construction
  uint64_t instret() const { return instret_; }  // instructions retired since construction
  bool exited() const { return exited_; }        // the program wrote SYS EXIT
  uint32_t exit_code() const { return exit_code_; }
  uint32_t last_trap_cause() const { return trap_cause_; }
  uint32_t last_trap_pc() const { return trap_pc_; }
  uint64_t host_accesses() const { return host_accesses_; }
  // An RTL assertion failed or Verilator stopped with an error (see Failure above), and its message:
  // Verilator's "%Error" line without its prefix, e.g. "tsl_x.sv:70: Assertion failed in
  // TOP.tsl_soc.u_x.Name: <the assertion's message>".
  bool failed() const { return failed_; }
  const std::string &failure() const { return failure_; }
  // Where Verilator's messages are echoed, for every instance of the process: stdout (Verilator's
  // own habit) until changed; nullptr keeps them in failure() only (a library must not print).
  static void set_verilator_output(FILE *f);

  // Timeline (docs/performance.md): from now on, record one span per tensor-core instruction on
  // its unit's track (DMA, MXU, VPU), from the cycle the unit is offered it (ex_valid) to its done
  // (an instruction that waited inside the unit starts when the previous one finished, so spans of
  // a track never overlap; a SYNC, retired by the controller, is one cycle), the control core's
  // phases derived from its bus accesses (fetch+validate: HBM window reads; push: TC INSN writes;
  // launch: TC SEQ0..SEQ23 writes (a tile-sequencer descriptor); program: TC HBM_BASE, HBM_LIMIT,
  // PROG_ADDR, PROG_BYTES, PROG_HOLD writes (a program handed to the fetch unit); wait TC: other TC accesses; complete: HBM window writes and the HOSTIF writes up to
  // HOST_IRQ_SET), the tile sequencer's expansion of each descriptor, and each host command from
  // its CMD_HEAD doorbell to the host interrupt.
  void start_timeline();
  // Write what was recorded as Chrome-trace JSON (Perfetto, chrome://tracing): "ph":"X" events
  // with ts and dur in clock cycles (displayed as microseconds: 1 us = 1 cycle) and the TC
  // performance counters in "otherData". False + *err when nothing was recorded or f fails.
  bool write_timeline(FILE *f, std::string *err) const;

 private:
  friend class TslPodSim;
  struct Impl;
  explicit TslSocSim(bool pod);  // pod: on the model of a pod's chip (TslPodSim; tsl_soc_sim.cpp)
  struct Timeline;
  void cycle();  // one clock cycle: in a pod, once its neighbours allow (pod_->advance()), else cycle_alone()
  void cycle_alone();  // this chip's clock cycle with all side effects; nothing once failed()
  void drive_ici();    // the links' inputs (Impl::ici_in) onto the model's ports
  void cycle_model();  // the cycle itself (cycle() catches what Verilator throws)
  void check_verilator();  // after an evaluation: did Verilator stop it? (failed_, failure_)
  TslSocStatus host_access(unsigned bar, uint32_t addr, uint32_t wdata, uint8_t wstrb,
                                 uint32_t *rdata, uint64_t timeout);
  std::unique_ptr<Impl> impl_;
  std::unique_ptr<Timeline> timeline_;
  TslPodSim *pod_ = nullptr;
  unsigned pod_chip_ = 0;  // its index in pod_
  FILE *console_ = stdout;
  uint64_t cycles_ = 0, instret_ = 0, host_accesses_ = 0;
  uint32_t traps_in_row_ = 0, exit_code_ = 0, trap_cause_ = 0, trap_pc_ = 0;
  bool exited_ = false, trap_seen_ = false, failed_ = false;
  std::string failure_;
};

// TslPodNet: how the part of a pod in one process reaches the parts in others (an Open MPI pod,
// host_driver/src/pod_mpi.cpp). Each process runs a TslPodSim of the whole pod with the same
// arguments, and simulates the chips whose owner() is its rank().
class TslPodNet {
 public:
  virtual ~TslPodNet() = default;
  virtual unsigned rank() const = 0;
  virtual unsigned owner(unsigned chip) const = 0;
  // Send the message [buf, buf + bytes) to `rank`, in order with the earlier ones; any thread.
  virtual void send(unsigned rank, const void *buf, size_t bytes) = 0;
  // The next message that has arrived from any rank, if one has (one thread at a time).
  virtual bool poll(std::vector<uint8_t> *msg) = 0;
  // The largest v of all ranks: every rank calls it, in the same order.
  virtual uint64_t max(uint64_t v) = 0;
};

// TslPodSim: a pod of Verilated SoCs in one process (docs/pod.md), joined by cycle-level links.
// Chip (x, y) of an X x Y pod has the straps of its coordinates; its ICI port +X (0) is joined to
// port -X (1) of chip ((x + 1) mod X, y), and +Y (2) to -Y (3) of (x, (y + 1) mod Y), each way,
// when that extent is above 1 (a ring is X x 1). A link carries what a chip's sender puts on it
// in its cycle t to the neighbour's receiver in the neighbour's cycle t + latency, and the
// receiver's credits back with the same delay.
//
// Each chip keeps its own time, as a logical process of a conservative parallel discrete-event
// simulation with the link latency as its lookahead: a chip may run its cycle t once each
// neighbour has run its cycle t - latency, whose outputs it reads. So a chip's every cycle depends
// only on its own host's accesses and on what its links carried, never on how the host threads
// interleave, and chips driven from different threads run in parallel. A chip's step(),
// run_until() and host accesses advance that chip alone. When it needs a neighbour that nobody
// drives (neither in use nor held, below), the calling thread advances that neighbour as far as
// it must; one that is in use or held is waited for.
//
// Threads: a thread uses chip i (any call on it, its HBM model included) inside a Use of it; uses
// of one chip take turns. hold() keeps a chip from being advanced by anyone but its users. Use a
// chip from one thread at a time between holds as well: a held chip that nobody goes on driving
// stops its neighbours once they are `latency` cycles ahead.
class TslPodSim {
 public:
  static const unsigned kPorts = 4;
  // With a net, the chips of other ranks are not simulated here: chip(i) of one is not to be used,
  // and a link to one carries its packets and credits over the net (docs/pod.md, "The Open MPI
  // pod"). Without one, every chip is here.
  TslPodSim(unsigned x, unsigned y, uint32_t latency, TslPodNet *net = nullptr);
  bool here(unsigned chip) const { return chip_[chip] != nullptr; }
  ~TslPodSim();
  TslPodSim(const TslPodSim &) = delete;
  TslPodSim &operator=(const TslPodSim &) = delete;
  unsigned chips() const { return unsigned(chip_.size()); }
  TslSocSim &chip(unsigned i) { return *chip_[i]; }  // chip (i mod X, i / X)
  // This thread uses chip i from construction to destruction (waits while another thread does).
  class Use {
   public:
    Use(TslPodSim &pod, unsigned chip) : pod_(pod), chip_(chip) { pod_.enter(chip_); }
    ~Use() { pod_.leave(chip_); }
    Use(const Use &) = delete;
    Use &operator=(const Use &) = delete;

   private:
    TslPodSim &pod_;
    unsigned chip_;
  };
  // While held, chip i advances only through its users' calls, never on a neighbour's behalf. Every
  // chip starts held, until the first each() lets it go; another rank's chip is held for good.
  void hold(unsigned chip, bool on);
  // Every chip to the time of the one furthest on (their own times: cycles()), held chips too. No
  // other thread may use a chip meanwhile. With a net, every rank calls it: all the pod's chips.
  void align();
  // f(i) for every chip i here, each on a thread of its own; the chip is held until f returns, so
  // that only f's uses of it advance it.
  void each(const std::function<void(unsigned)> &f);
  // Fault injection (tests; docs/pod.md, Faults) on the link that leaves chip `chip` by ICI port
  // `port`, from the next cycle on: kLinkCorrupt flips bit 0 of the next DATA or LAST flit it
  // carries, once (the receiver drops that packet for its CRC); kLinkCut makes it carry nothing
  // either way, flits or credits, until kLinkOk. False when the chip has no link on that port.
  enum LinkFault { kLinkOk, kLinkCorrupt, kLinkCut };
  bool link_fault(unsigned chip, unsigned port, LinkFault f);

 private:
  friend class TslSocSim;
  struct Link;
  struct Lp;
  void enter(unsigned chip);
  void leave(unsigned chip);
  bool ready(unsigned chip) const;  // its neighbours have run far enough for its next cycle
  void advance(unsigned chip);      // one cycle of a chip the caller uses or pulls
  void step(unsigned chip);         // that cycle, once ready: the links in, the chip, the links out
  void deliver(const std::vector<uint8_t> &msg);  // a batch of another rank's chip
  void receive();                   // the net's thread: deliver what arrives
  void push();                      // the net's other thread: advance the chips here that others need
  uint64_t needed(unsigned chip) const;  // how far the other ranks' chips need it
  std::vector<std::unique_ptr<TslSocSim>> chip_;
  std::vector<Link> link_;
  std::vector<Lp> lp_;
  uint32_t latency_, ring_;
  std::mutex mu_;                   // hold, use and pull decisions
  std::condition_variable cv_;      // some chip's time, use or hold changed
  std::atomic<unsigned> waiting_{0};
  TslPodNet *net_;
  uint32_t batch_;                  // cycles per message over the net: latency / 2
  std::atomic<bool> stop_{false};   // the net's pushing ends, and every wait
  std::atomic<bool> stop_recv_{false};  // the net's receiving ends
  std::vector<std::thread> threads_;
};

#endif  // TSL_SOC_SIM_H
