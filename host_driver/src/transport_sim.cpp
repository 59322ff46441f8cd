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
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

struct Sim {
  TslSocSim soc;
  FILE *timeline = nullptr;
};

int s_hostif_read(void *ctx, uint32_t off, uint32_t *v) {
  Sim *s = static_cast<Sim *>(ctx);
  return s->soc.host_read32(TslSocSim::kBarRegs, off, v, kAccessCycles) == TSL_SOC_OK ? 0 : TESSEL_EIO;
}

int s_hostif_write(void *ctx, uint32_t off, uint32_t v) {
  Sim *s = static_cast<Sim *>(ctx);
  return s->soc.host_write32(TslSocSim::kBarRegs, off, v, 0xf, kAccessCycles) == TSL_SOC_OK ? 0 : TESSEL_EIO;
}

int s_hbm_read(void *ctx, uint64_t addr, void *buf, size_t len) {
  Sim *s = static_cast<Sim *>(ctx);
  if (addr + len > s->soc.hbm_bytes()) return TESSEL_ERANGE;
  std::memcpy(buf, s->soc.hbm().data() + addr, len);
  return 0;
}

int s_hbm_write(void *ctx, uint64_t addr, const void *buf, size_t len) {
  Sim *s = static_cast<Sim *>(ctx);
  if (addr + len > s->soc.hbm_bytes()) return TESSEL_ERANGE;
  std::memcpy(s->soc.hbm().data() + addr, buf, len);
  return 0;
}

int s_wait(void *ctx) {
  Sim *s = static_cast<Sim *>(ctx);
  TslSocStop r = s->soc.run_until([s] { return s->soc.host_irq(); }, kWaitSlice);
  return (r == TSL_SOC_EXIT || r == TSL_SOC_TRAP_LOOP) ? TESSEL_EIO : 0;
}

// Verilator 5.006 erases a model's scopes from Verilated::threadContextp(), the context constructed
// last on this thread, which dangles once that context has been destroyed: deleting one of several
// SoCs (or any SoC after a later one was closed) would then touch freed memory. Point the thread
// context at a context that lives for the whole process before every delete; erasing from it is a
// harmless miss.
uint64_t s_cycles(void *ctx) { return static_cast<Sim *>(ctx)->soc.cycles(); }

void destroy(Sim *s) {
  static VerilatedContext *keep = new VerilatedContext;
  Verilated::threadContextp(keep);
  if (s->timeline) {
    std::string err;
    (void)s->soc.write_timeline(s->timeline, &err);  // close cannot report; a short file fails to parse
    std::fclose(s->timeline);
  }
  delete s;
}

void s_close(void *ctx) { destroy(static_cast<Sim *>(ctx)); }

TslHbm &hbm_of(void *ctx) { return static_cast<Sim *>(ctx)->soc.hbm(); }
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
uint64_t tessel_sim_cycles(void *ctx) { return static_cast<Sim *>(ctx)->soc.cycles(); }
unsigned tessel_sim_axi_violations(void *ctx) { return (unsigned)hbm_of(ctx).violations().size(); }
int tessel_sim_hostif_read(void *ctx, uint32_t offset, uint32_t *value) { return s_hostif_read(ctx, offset, value); }
int tessel_sim_hostif_write(void *ctx, uint32_t offset, uint32_t value) { return s_hostif_write(ctx, offset, value); }

int tessel_transport_sim_open(tessel_transport_t *t, const tessel_open_opts_t *opts) {
  std::memset(t, 0, sizeof *t);
  const char *fw = opts && opts->firmware ? opts->firmware : std::getenv("TESSEL_FIRMWARE");
  if (!fw || !*fw) fw = TESSEL_FW_DEFAULT;
  Sim *s = new (std::nothrow) Sim;
  if (!s) return TESSEL_ENOMEM;
  s->soc.set_console(nullptr);
  std::string err;
  if (opts && opts->trace && !s->soc.open_trace(opts->trace, &err)) {
    std::snprintf(t->err, sizeof t->err, "sim: %s", err.c_str());
    destroy(s);
    return TESSEL_ENODEV;
  }
  if (opts && opts->timeline && !(s->timeline = std::fopen(opts->timeline, "w"))) {
    std::snprintf(t->err, sizeof t->err, "sim: cannot create timeline %s: %s", opts->timeline, std::strerror(errno));
    destroy(s);
    return TESSEL_ENODEV;
  }
  if (!s->soc.load_elf(fw, &err)) {
    std::snprintf(t->err, sizeof t->err, "sim: firmware %s", err.c_str());
    destroy(s);
    return TESSEL_EINVAL;  // as the uart transport: the firmware file is refused, nothing ran
  }
  s->soc.reset();
  uint32_t st = 0, state = 0;
  uint64_t start = s->soc.cycles();
  while (s->soc.cycles() - start < kBootCycles) {
    if (s_hostif_read(s, TSL_HOSTIF_FW_STATUS_OFFSET, &st) != 0) break;
    state = (st >> TSL_HOSTIF_FW_STATUS_STATE_SHIFT) & TSL_HOSTIF_FW_STATUS_STATE_MASK;
    if (state != 0) break;
    if (s->soc.run_until(nullptr, 1000) != TSL_SOC_TIMEOUT) break;
  }
  if (state != 1) {
    std::snprintf(t->err, sizeof t->err, "sim: firmware %s did not become ready (FW_STATUS 0x%08x after %llu cycles)",
                  fw, st, (unsigned long long)(s->soc.cycles() - start));
    destroy(s);
    return TESSEL_ENODEV;
  }
  if (s->timeline) s->soc.start_timeline();
  t->ctx = s;
  t->name = "sim";
  t->n = SOC_N;
  t->vmem_bytes = SOC_VMEM;
  t->acc_bytes = SOC_ACC;
  t->hbm_bytes = s->soc.hbm_bytes();
  if (s_hostif_read(s, TSL_HOSTIF_CFG_FEATURES_OFFSET, &t->features) != 0) {   // as TC CFG_FEATURES
    std::snprintf(t->err, sizeof t->err, "sim: HOSTIF CFG_FEATURES cannot be read");
    destroy(s);
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
  return TESSEL_OK;
}
