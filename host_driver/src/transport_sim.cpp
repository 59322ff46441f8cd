// libtessel sim transport: the Verilated product SoC (TslSocSim, hw/sim/soc) running the RV32
// command-processor firmware (firmware/cp, cp.elf).
//
// Open: construct the SoC (held in reset), load the firmware ELF into the core's RAM (path:
// opts->firmware, else $TESSEL_FIRMWARE, else TESSEL_FW_DEFAULT = $(BUILD)/fw/cp.elf, an absolute
// path compiled in), optionally start an FST trace, release reset and clock until the firmware
// reports FW_STATUS = ready (budget kBootCycles). With opts->timeline the file is created at open,
// the SoC records its timeline from then on (TslSocSim::start_timeline) and close writes it.
// HOSTIF registers go through the SoC's host port
// (BAR0; every access clocks the SoC until it is answered); HBM data goes through the HBM model's
// back door (zero time, as a DMA engine on a real PCIe link would; BAR1 one word per access would
// cost cycles without exercising anything the firmware sees). `wait` clocks the SoC until the host
// interrupt line rises or kWaitSlice cycles pass. The SoC's console output is discarded.
// The configuration (N, VMEM, ACC, HBM, bf16) is that of the Verilated parameters (mk/soc.mk).
// Fault injection for tests/rel goes through the hooks of tessel_sim_fault.h.
//
// A pod (tessel_transport_sim_pod_open, docs/pod.md): one TslPodSim of X x Y chips, each chip a
// transport of its own. Each chip keeps its own time: a call of a chip's transport uses that chip
// (TslPodSim::Use) and advances it alone, and its neighbours only as far as it needs them, so the
// chips' threads (tessel_pod_run) run in parallel. hold and align are TslPodSim's. A chip of a pod
// cannot be restarted alone (no restart), and has no trace. each runs a function per chip on threads
// (TslPodSim::each). With $TESSEL_POD_TIMELINE=P,
// chip i records its timeline from open, and its close writes it to P.i.json.
//
// An RTL assertion that fails (the SoC is built with --assert; hw/rtl/tsl_assert.svh) stops the
// simulation without ending the process (the SoC build's Verilator hooks, hw/sim/soc/tsl_soc_vl.h,
// keep Verilator's messages and never abort; TslSocSim::failed). From then on every call returns
// TESSEL_EDEVICE, with "sim: the simulation stopped at cycle N: <Verilator's message>" from error(), until
// tessel_reset calls restart: the failed SoC may be mid-evaluation, so restart builds a new one
// (as open does, the same firmware, no trace) with the HBM contents of the old one, then deletes
// the old. The timeline, if any, records from the restart on.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "tessel_int.h"
#include "tessel_sim_fault.h"
#include "tsl_hbm.h"
#include "tsl_hw.h"
#include "tsl_soc_sim.h"
#include "verilated.h"

#if !defined(SOC_N) || !defined(SOC_VMEM) || !defined(SOC_ACC) || !defined(SOC_HBM) || !defined(SOC_BF16)
#error "SOC_N, SOC_VMEM, SOC_ACC, SOC_HBM and SOC_BF16 must match the Verilated parameters"
#endif
#ifndef TESSEL_FW_DEFAULT
#define TESSEL_FW_DEFAULT "cp.elf"
#endif

namespace {
const uint64_t kBootCycles = 2000000;  // reset to FW_STATUS ready
const uint64_t kWaitSlice = 20000;     // cycles per wait() call
const uint64_t kAccessCycles = 100000; // one host-port access

// A pod's chips.
struct Pod {
  std::unique_ptr<TslPodSim> sim;
  ~Pod();
};

struct Sim {
  TslSocSim *soc = nullptr;        // own.get(), or a chip of pod
  std::unique_ptr<TslSocSim> own;  // a chip alone
  std::shared_ptr<Pod> pod;
  unsigned chip = 0;               // soc is pod->sim->chip(chip)
  FILE *timeline = nullptr;
  std::string fw;   // the firmware, loaded again by restart
  std::string err;  // error(): why the device failed ("" while it has not)
};

// Held by every call: the use of its chip, for a chip of a pod.
struct Guard {
  explicit Guard(Sim *s) {
    if (s->pod) use.reset(new TslPodSim::Use(*s->pod->sim, s->chip));
  }
  std::unique_ptr<TslPodSim::Use> use;
};

// TESSEL_EDEVICE once the SoC has failed (an RTL assertion), with the reason in s->err.
int failed(Sim *s) {
  if (!s->soc->failed()) return 0;
  if (s->err.empty())
    s->err = "sim: the simulation stopped at cycle " + std::to_string(s->soc->cycles()) + ": " + s->soc->failure() +
             (s->pod ? " (a chip of a pod: close the pod)" : " (tessel_reset restarts the SoC)");
  return TESSEL_EDEVICE;
}

int s_hostif_read(void *ctx, uint32_t off, uint32_t *v) {
  Sim *s = static_cast<Sim *>(ctx);
  Guard g(s);
  if (failed(s)) return TESSEL_EDEVICE;
  TslSocStatus r = s->soc->host_read32(TslSocSim::kBarRegs, off, v, kAccessCycles);
  return r == TSL_SOC_OK ? 0 : failed(s) ? TESSEL_EDEVICE : TESSEL_EIO;
}

int s_hostif_write(void *ctx, uint32_t off, uint32_t v) {
  Sim *s = static_cast<Sim *>(ctx);
  Guard g(s);
  if (failed(s)) return TESSEL_EDEVICE;
  TslSocStatus r = s->soc->host_write32(TslSocSim::kBarRegs, off, v, 0xf, kAccessCycles);
  return r == TSL_SOC_OK ? 0 : failed(s) ? TESSEL_EDEVICE : TESSEL_EIO;
}

int s_hbm_read(void *ctx, uint64_t addr, void *buf, size_t len) {
  Sim *s = static_cast<Sim *>(ctx);
  Guard g(s);
  if (failed(s)) return TESSEL_EDEVICE;
  if (addr + len > s->soc->hbm_bytes()) return TESSEL_ERANGE;
  std::memcpy(buf, s->soc->hbm().data() + addr, len);
  return 0;
}

int s_hbm_write(void *ctx, uint64_t addr, const void *buf, size_t len) {
  Sim *s = static_cast<Sim *>(ctx);
  Guard g(s);
  if (failed(s)) return TESSEL_EDEVICE;
  if (addr + len > s->soc->hbm_bytes()) return TESSEL_ERANGE;
  std::memcpy(s->soc->hbm().data() + addr, buf, len);
  return 0;
}

int s_wait(void *ctx) {
  Sim *s = static_cast<Sim *>(ctx);
  Guard g(s);
  if (failed(s)) return TESSEL_EDEVICE;
  TslSocSim &soc = *s->soc;
  TslSocStop r = soc.run_until([&soc] { return soc.host_irq(); }, kWaitSlice);
  if (r == TSL_SOC_FAILED) return failed(s);
  return (r == TSL_SOC_EXIT || r == TSL_SOC_TRAP_LOOP) ? TESSEL_EIO : 0;
}

static_assert(TESSEL_LINK_OK == int(TslPodSim::kLinkOk) && TESSEL_LINK_CORRUPT == int(TslPodSim::kLinkCorrupt) &&
                  TESSEL_LINK_CUT == int(TslPodSim::kLinkCut),
              "tessel_link_fault_t and TslPodSim::LinkFault differ");

int s_link_fault(void *ctx, uint32_t port, int fault) {
  Sim *s = static_cast<Sim *>(ctx);
  Guard g(s);
  return s->pod->sim->link_fault(s->chip, port, TslPodSim::LinkFault(fault)) ? 0 : TESSEL_EINVAL;
}

void s_hold(void *ctx, int on) {
  Sim *s = static_cast<Sim *>(ctx);
  s->pod->sim->hold(s->chip, on != 0);
}

void s_align(void *ctx) { static_cast<Sim *>(ctx)->pod->sim->align(); }

void s_each(void *ctx, void (*fn)(void *arg, uint32_t chip), void *arg) {
  std::shared_ptr<Pod> pod = static_cast<Sim *>(ctx)->pod;  // fn may close this chip's transport
  pod->sim->each([&](unsigned i) { fn(arg, i); });
}

const char *s_error(void *ctx) { return static_cast<Sim *>(ctx)->err.c_str(); }
int s_failed(void *ctx) {
  Sim *s = static_cast<Sim *>(ctx);
  Guard g(s);
  return failed(s) != 0;
}

uint64_t s_cycles(void *ctx) {
  Sim *s = static_cast<Sim *>(ctx);
  Guard g(s);
  return s->soc->cycles();
}

// Verilator 5.006 erases a model's scopes from Verilated::threadContextp(), the context constructed
// last on this thread, which dangles once that context has been destroyed: deleting one of several
// SoCs (or any SoC after a later one was closed) would then touch freed memory. Point the thread
// context at a context that lives for the whole process before every delete; erasing from it is a
// harmless miss.
void keep_context() {
  static VerilatedContext *keep = new VerilatedContext;
  Verilated::threadContextp(keep);
}

void drop(std::unique_ptr<TslSocSim> &soc) {
  keep_context();
  soc.reset();
}

Pod::~Pod() {
  keep_context();
  sim.reset();
}

void destroy(Sim *s) {
  if (s->timeline) {
    std::string err;
    if (s->soc) (void)s->soc->write_timeline(s->timeline, &err);  // close cannot report; a short file fails to parse
    std::fclose(s->timeline);
  }
  if (s->own) drop(s->own);
  if (s->pod) {
    std::shared_ptr<Pod> pod = std::move(s->pod);
    delete s;
    return;  // the last chip's close deletes the pod (~Pod)
  }
  delete s;
}

int await_ready(Sim *s, TslSocSim *soc, std::string *err);
int fill(tessel_transport_t *t, Sim *s);

// A SoC running s->fw: loaded, optionally traced, HBM contents from `from` (a restart), reset
// released, FW_STATUS ready within kBootCycles. TESSEL_OK, or a status with the reason in *err.
int boot(Sim *s, const char *trace, TslSocSim *from, std::unique_ptr<TslSocSim> *out, std::string *err) {
  std::unique_ptr<TslSocSim> soc(new (std::nothrow) TslSocSim);
  if (!soc) return *err = "sim: out of memory", TESSEL_ENOMEM;
  soc->set_console(nullptr);
  std::string why;
  int r = TESSEL_OK;
  if (trace && !soc->open_trace(trace, &why)) {
    *err = "sim: " + why;
    r = TESSEL_ENODEV;
  } else if (!soc->load_elf(s->fw, &why)) {
    *err = "sim: firmware " + why;
    r = TESSEL_EINVAL;  // as the uart transport: the firmware file is refused, nothing ran
  }
  if (r == TESSEL_OK) {
    if (from) std::memcpy(soc->hbm().data(), from->hbm().data(), soc->hbm_bytes());
    soc->reset();
    r = await_ready(s, soc.get(), err);
  }
  if (r != TESSEL_OK)
    drop(soc);
  else
    *out = std::move(soc);
  return r;
}

// Clock soc (and its pod) until its firmware reports FW_STATUS ready, within kBootCycles.
int await_ready(Sim *s, TslSocSim *soc, std::string *err) {
  int r = TESSEL_OK;
  {
    uint32_t st = 0, state = 0;
    uint64_t start = soc->cycles();
    while (soc->cycles() - start < kBootCycles) {
      if (soc->host_read32(TslSocSim::kBarRegs, TSL_HOSTIF_FW_STATUS_OFFSET, &st, kAccessCycles) != TSL_SOC_OK) break;
      state = (st >> TSL_HOSTIF_FW_STATUS_STATE_SHIFT) & TSL_HOSTIF_FW_STATUS_STATE_MASK;
      if (state != 0) break;
      if (soc->run_until(nullptr, 1000) != TSL_SOC_TIMEOUT) break;
    }
    if (soc->failed()) {
      *err = "sim: the simulation stopped: " + soc->failure();
      r = TESSEL_EDEVICE;
    } else if (state != 1) {
      char m[200];
      std::snprintf(m, sizeof m, "sim: firmware %s did not become ready (FW_STATUS 0x%08x after %llu cycles)",
                    s->fw.c_str(), st, (unsigned long long)(soc->cycles() - start));
      *err = m;
      r = TESSEL_ENODEV;
    }
  }
  return r;
}

// tessel_reset on a failed SoC: a new one in its place (the old may be mid-evaluation).
int s_restart(void *ctx) {
  Sim *s = static_cast<Sim *>(ctx);
  std::unique_ptr<TslSocSim> soc;
  std::string err;
  int r;
  try {
    r = boot(s, nullptr, s->soc, &soc, &err);
  } catch (...) {  // no exception leaves the library
    r = TESSEL_ENODEV, err = "sim: the SoC could not be built again";
  }
  if (r != TESSEL_OK) {
    s->err = err;
    return r;
  }
  drop(s->own);
  s->own = std::move(soc);
  s->soc = s->own.get();
  s->err.clear();
  if (s->timeline) s->soc->start_timeline();
  return TESSEL_OK;
}

void s_close(void *ctx) { destroy(static_cast<Sim *>(ctx)); }

TslHbm &hbm_of(void *ctx) { return static_cast<Sim *>(ctx)->soc->hbm(); }
}  // namespace

void tessel_sim_inject(void *ctx, uint64_t addr, uint64_t len, int on_write, uint8_t resp) {
  hbm_of(ctx).inject(addr, len, on_write != 0, resp);
}

void tessel_sim_stall(void *ctx, uint64_t addr, uint64_t len, int on_write, uint64_t delay) {
  hbm_of(ctx).stall(addr, len, on_write != 0, delay == TESSEL_SIM_STALL_FOREVER ? TslHbm::kStallForever : delay);
}

void tessel_sim_clear_faults(void *ctx) {
  hbm_of(ctx).clear_injections();
  hbm_of(ctx).release_stalls();
}

unsigned tessel_sim_stalls_hit(void *ctx) { return hbm_of(ctx).stalls_hit(); }
uint64_t tessel_sim_cycles(void *ctx) { return static_cast<Sim *>(ctx)->soc->cycles(); }
unsigned tessel_sim_axi_violations(void *ctx) { return (unsigned)hbm_of(ctx).violations().size(); }
int tessel_sim_hostif_read(void *ctx, uint32_t offset, uint32_t *value) { return s_hostif_read(ctx, offset, value); }
int tessel_sim_hostif_write(void *ctx, uint32_t offset, uint32_t value) { return s_hostif_write(ctx, offset, value); }

int tessel_transport_sim_open(tessel_transport_t *t, const tessel_open_opts_t *opts) {
  std::memset(t, 0, sizeof *t);
  const char *fw = opts && opts->firmware ? opts->firmware : std::getenv("TESSEL_FIRMWARE");
  if (!fw || !*fw) fw = TESSEL_FW_DEFAULT;
  TslSocSim::set_verilator_output(nullptr);  // Verilator's messages go to error(), never to stdout
  Sim *s = new (std::nothrow) Sim;
  if (!s) return TESSEL_ENOMEM;
  std::string err;
  int r;
  try {
    s->fw = fw;
    r = boot(s, opts ? opts->trace : nullptr, nullptr, &s->own, &err);
    s->soc = s->own.get();
  } catch (...) {  // no exception leaves the library
    r = TESSEL_ENODEV, err = "sim: the SoC could not be built";
  }
  if (r == TESSEL_OK && opts && opts->timeline && !(s->timeline = std::fopen(opts->timeline, "w"))) {
    err = std::string("sim: cannot create timeline ") + opts->timeline + ": " + std::strerror(errno);
    r = TESSEL_ENODEV;
  }
  if (r != TESSEL_OK) {
    std::snprintf(t->err, sizeof t->err, "%s", err.c_str());
    destroy(s);
    return r;
  }
  if (s->timeline) s->soc->start_timeline();
  r = fill(t, s);
  if (r != TESSEL_OK) destroy(s);
  return r;
}

namespace {
// The transport of s, opened: its callbacks and the device's configuration.
int fill(tessel_transport_t *t, Sim *s) {
  t->ctx = s;
  t->name = "sim";
  t->n = SOC_N;
  t->vmem_bytes = SOC_VMEM;
  t->acc_bytes = SOC_ACC;
  t->hbm_bytes = s->soc->hbm_bytes();
  if (s_hostif_read(s, TSL_HOSTIF_CFG_FEATURES_OFFSET, &t->features) != 0) {   // as TC CFG_FEATURES
    std::snprintf(t->err, sizeof t->err, "sim: HOSTIF CFG_FEATURES cannot be read");
    t->ctx = nullptr;
    return TESSEL_EIO;
  }
  // The HBM model's token bucket, capped by one AXI beat (2N bytes) per cycle.
  t->hbm_bytes_per_cycle = TSL_PARAM_HBM_BYTES_PER_CYCLE < 2u * SOC_N ? TSL_PARAM_HBM_BYTES_PER_CYCLE : 2u * SOC_N;
  t->hostif_read = s_hostif_read;
  t->hostif_write = s_hostif_write;
  t->hbm_read = s_hbm_read;
  t->hbm_write = s_hbm_write;
  t->wait = s_wait;
  t->cycles = s_cycles;  // TESSEL_TIMEOUT_AUTO counts device cycles
  t->close = s_close;
  t->error = s_error;
  t->failed = s_failed;
  t->restart = s->pod ? nullptr : s_restart;
  t->link_fault = s->pod ? s_link_fault : nullptr;
  t->hold = s->pod ? s_hold : nullptr;
  t->align = s->pod ? s_align : nullptr;
  t->each = s->pod ? s_each : nullptr;
  return TESSEL_OK;
}
}  // namespace

int tessel_transport_sim_pod_open(tessel_transport_t *ts, uint32_t dx, uint32_t dy, const tessel_open_opts_t *opts,
                                  void *net) {
  uint32_t n = dx * dy;
  for (uint32_t i = 0; i < n; i++) std::memset(&ts[i], 0, sizeof ts[i]);
  const char *fw = opts && opts->firmware ? opts->firmware : std::getenv("TESSEL_FIRMWARE");
  if (!fw || !*fw) fw = TESSEL_FW_DEFAULT;
  TslSocSim::set_verilator_output(nullptr);
  std::shared_ptr<Pod> pod;
  std::string err;
  int r = TESSEL_OK;
  try {
    pod = std::make_shared<Pod>();
    pod->sim.reset(new TslPodSim(dx, dy, TSL_PARAM_ICI_LINK_LATENCY, static_cast<TslPodNet *>(net)));
    TslPodSim &ps = *pod->sim;
    for (uint32_t i = 0; i < n && r == TESSEL_OK; i++) {
      if (!ps.here(i)) continue;
      TslPodSim::Use u(ps, i);
      TslSocSim &c = ps.chip(i);
      c.set_console(nullptr);
      std::string why;
      if (!c.load_elf(fw, &why)) err = "sim: firmware " + why, r = TESSEL_EINVAL;
    }
    for (uint32_t i = 0; i < n && r == TESSEL_OK; i++) {
      if (!ps.here(i)) continue;
      TslPodSim::Use u(ps, i);
      ps.chip(i).reset();
    }
    // Each chip boots on a thread of its own, so that its host's reads happen at the same times of
    // its clock whichever chips this process holds; then every chip to one time.
    std::vector<int> rs(n, TESSEL_OK);
    std::vector<std::string> why(n);
    if (r == TESSEL_OK)
      ps.each([&](unsigned i) {
        TslPodSim::Use u(ps, i);
        Sim probe;
        probe.fw = fw;
        rs[i] = await_ready(&probe, &ps.chip(i), &why[i]);
      });
    for (uint32_t i = 0; i < n && r == TESSEL_OK; i++)
      if (rs[i] != TESSEL_OK) r = rs[i], err = "chip " + std::to_string(i) + ": " + why[i];
    // Held until the opener's `each` has set each chip up (tessel_pod_open), so that no other rank's
    // chips, already past the align below, can advance one before its own accesses.
    for (uint32_t i = 0; i < n && r == TESSEL_OK; i++)
      if (ps.here(i)) ps.hold(i, true);
    if (r == TESSEL_OK) ps.align();
  } catch (...) {  // no exception leaves the library
    r = TESSEL_ENODEV, err = "sim: the pod's SoCs could not be built";
  }
  for (uint32_t i = 0; i < n && r == TESSEL_OK; i++) {
    if (!pod->sim->here(i)) continue;
    Sim *s = new (std::nothrow) Sim;
    if (!s) {
      r = TESSEL_ENOMEM, err = "sim: out of memory";
      break;
    }
    s->fw = fw;
    s->pod = pod;
    s->chip = i;
    s->soc = &pod->sim->chip(i);
    const char *tl = std::getenv("TESSEL_POD_TIMELINE");
    if (tl && *tl) {
      std::string path = std::string(tl) + "." + std::to_string(i) + ".json";
      if (!(s->timeline = std::fopen(path.c_str(), "w"))) {
        r = TESSEL_ENODEV, err = "sim: cannot create timeline " + path + ": " + std::strerror(errno);
        delete s;
        break;
      }
      s->soc->start_timeline();
    }
    if ((r = fill(&ts[i], s)) != TESSEL_OK) {
      err = ts[i].err;
      destroy(s);
      break;
    }
  }
  if (r != TESSEL_OK) {
    for (uint32_t i = 0; i < n; i++)
      if (ts[i].ctx) destroy(static_cast<Sim *>(ts[i].ctx));
    for (uint32_t i = 0; i < n; i++) std::memset(&ts[i], 0, sizeof ts[i]);
    std::snprintf(ts[0].err, sizeof ts[0].err, "%s", err.c_str());
  }
  return r;
}
