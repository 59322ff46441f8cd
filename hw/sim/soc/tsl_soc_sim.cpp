// TslSocSim (tsl_soc_sim.h) over the Verilated tsl_soc. Per cycle: drive the inputs from the
// models' state (HBM slave outputs, host request) -> eval -> sample outputs (console, exit,
// traps, host answer, timeline) -> HBM tick -> rising and falling clock edge. The timeline reads
// the signals the RTL marks `verilator public_flat_rd` (unit handshakes in tsl_tc and tsl_tc_mxu,
// the core's bus in tsl_soc, the counters in tsl_tc_perf).
// Two Verilated SoCs (mk/verilate.mk): Vtsl_soc, a chip alone, without the ICI unit (EnableIci 0),
// and with SOC_POD_MODEL Vtsl_pod_soc, a chip of a pod (EnableIci 1), so that a chip alone does
// not evaluate an idle ICI unit every cycle. A build without SOC_POD_MODEL runs its pods on its
// one model. The code that touches a model is written once, for either (Impl::with).
#include "tsl_soc_vl.h"
#include "tsl_soc_sim.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <sstream>
#include <type_traits>
#include <utility>
#include <vector>

#include "Vtsl_soc.h"
#include "Vtsl_soc___024root.h"
#ifdef SOC_POD_MODEL
#include "Vtsl_pod_soc.h"
#include "Vtsl_pod_soc___024root.h"
using TslPodTop = Vtsl_pod_soc;
#else
using TslPodTop = Vtsl_soc;
#endif
#include "svdpi.h"
#include "elf_image.h"
#include "tsl_axi_pins.h"
#include "tsl_hbm.h"
#include "tsl_hw.h"
#include "verilated.h"
#include "verilated_fst_c.h"

#if !defined(SOC_N) || !defined(SOC_HBM)
#error "SOC_N and SOC_HBM must match the Verilated parameters N and HbmBytes"
#endif

// --- Verilator's hooks (tsl_soc_vl.h) ------------------------------------------------------------
// They run on the thread that evaluates the model, inside eval(); TslSocSim::check_verilator reads
// what they left right after each evaluation. They do not use Verilated::threadContextp(), which
// is the context constructed last on the thread, not necessarily the model's.
namespace {
const size_t kVlKeep = 4096;      // bytes of Verilator's output kept for failure()
thread_local std::string t_vl_text;  // Verilator's output since a TslSocSim last took it
thread_local bool t_vl_stopped;      // vl_stop, vl_fatal or vl_finish ran since then
FILE *g_vl_echo = stdout;
struct VlFatal {};                   // thrown by vl_fatal out of the evaluation
}  // namespace

int tsl_soc_vl_vprintf(const char *fmt, va_list ap) {
  va_list aq;
  va_copy(aq, ap);
  char buf[1024];
  int n = std::vsnprintf(buf, sizeof buf, fmt, aq);
  va_end(aq);
  if (n > 0) {
    t_vl_text.append(buf, std::min(size_t(n), sizeof buf - 1));
    if (t_vl_text.size() > kVlKeep) t_vl_text.erase(0, t_vl_text.size() - kVlKeep);
  }
  if (g_vl_echo) {
    std::vfprintf(g_vl_echo, fmt, ap);
    std::fflush(g_vl_echo);
  }
  return n;
}

int tsl_soc_vl_printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = tsl_soc_vl_vprintf(fmt, ap);
  va_end(ap);
  return n;
}

// $finish: the SoC ends its programs through SYS EXIT, so a $finish is a stop like $stop.
void vl_finish(const char *filename, int linenum, const char *) {
  tsl_soc_vl_printf("%%Error: %s:%d: Verilog $finish\n", filename, linenum);
  t_vl_stopped = true;
}

// $stop, and every failed assertion (after its message): the evaluation finishes (Verilator's own
// code returns from here too when fatalOnError is off), then the SoC stops.
void vl_stop(const char *filename, int linenum, const char *) {
  tsl_soc_vl_printf("%%Error: %s:%d: Verilog $stop\n", filename, linenum);
  t_vl_stopped = true;
}

// Verilator's fatal errors (a region that does not converge, a bad +verilator argument): the code
// after them does not expect a return, so the evaluation ends here.
void vl_fatal(const char *filename, int linenum, const char *, const char *msg) {
  if (filename && filename[0])
    tsl_soc_vl_printf("%%Error: %s:%d: %s\n", filename, linenum, msg);
  else
    tsl_soc_vl_printf("%%Error: %s\n", msg);
  t_vl_stopped = true;
  throw VlFatal();
}

void TslSocSim::set_verilator_output(FILE *f) { g_vl_echo = f; }

void TslSocSim::check_verilator() {
  if (!t_vl_stopped) return;
  // The first "%Error" line is the cause: the assertion's message precedes the $stop's line.
  size_t at = t_vl_text.find("%Error");
  size_t bol = at == std::string::npos ? 0 : t_vl_text.rfind('\n', at);
  bol = (at == std::string::npos || bol == std::string::npos) ? 0 : bol + 1;
  size_t eol = t_vl_text.find('\n', bol);
  std::string line = t_vl_text.substr(bol, eol == std::string::npos ? std::string::npos : eol - bol);
  // "[time] %Error: f.sv:24: Assertion failed in TOP.x.Name: TOP.x.Name: message" (TSL_ASSERT's
  // $error repeats the name) -> "f.sv:24: Assertion failed in TOP.x.Name: message".
  size_t e = line.find("%Error: ");
  if (e != std::string::npos) line.erase(0, e + 8);
  const std::string in = "Assertion failed in ";
  size_t a = line.find(in);
  if (a != std::string::npos) {
    size_t n0 = a + in.size(), n1 = line.find(": ", n0);
    if (n1 != std::string::npos && line.compare(n1 + 2, n1 - n0 + 2, line, n0, n1 - n0 + 2) == 0)
      line.erase(n1 + 2, n1 - n0 + 2);
  }
  failure_ = line.empty() ? "Verilator stopped the simulation" : line;
  failed_ = true;
  t_vl_text.clear();
  t_vl_stopped = false;
}

namespace {
const uint32_t kRamBase = 0x80000000u;  // TSL_MMAP_RAM_BASE
const char *kRamScope = "TOP.tsl_soc.u_sys.u_ram";

TslHbmCfg hbm_cfg() {
  TslHbmCfg c;  // default latency and bandwidth
  c.bytes = SOC_HBM;
  c.data_bytes = 2 * SOC_N;
  return c;
}

// A context with Verilator's runtime options from $TSL_VERILATOR_ARGS (space-separated, e.g.
// "+verilator+seed+7 +verilator+rand+reset+2": random reset values; tests/rel, make test-rel-xrand).
VerilatedContext *new_context() {
  VerilatedContext *c = new VerilatedContext;
  if (const char *env = std::getenv("TSL_VERILATOR_ARGS")) {
    std::istringstream in(env);
    std::vector<std::string> args{"tsl_soc_sim"};
    for (std::string a; in >> a;) args.push_back(a);
    std::vector<const char *> argv;
    for (const std::string &a : args) argv.push_back(a.c_str());
    c->commandArgs(int(argv.size()), argv.data());
  }
  return c;
}
}  // namespace

struct TslSocSim::Impl {
  explicit Impl(bool pod) : ctx(new_context()), hbm(hbm_cfg()) {
    if (pod)
      pod_top.reset(new TslPodTop(ctx.get()));
    else
      top.reset(new Vtsl_soc(ctx.get()));
  }
  // f(model) on this chip's model, whichever it is.
  template <class F>
  auto with(F f) -> decltype(f(std::declval<Vtsl_soc &>())) {
    return pod_top ? f(*pod_top) : f(*top);
  }
  std::unique_ptr<VerilatedContext> ctx;
  std::unique_ptr<Vtsl_soc> top;        // a chip alone
  std::unique_ptr<TslPodTop> pod_top;   // a chip of a pod
  std::unique_ptr<VerilatedFstC> trace;
  TslHbm hbm;
  TslAxiPins p{};
  uint64_t time = 0;
  // host request being driven, and its answer
  bool h_valid = false, h_done = false, h_err = false;
  uint32_t h_rdata = 0;
  bool host_irq = false;
  // The pod's side (TslPodSim): the straps, and per ICI port what the links drive in (a flit to
  // the receiver, credits to the sender) and what the chip put out in its last cycle.
  struct IciIo {
    uint8_t kind = 0;
    uint64_t data = 0;
    uint32_t credit = 0;
  };
  IciIo ici_in[TslPodSim::kPorts], ici_out[TslPodSim::kPorts];
};

namespace {
const unsigned kIciCreditBits = 10;  // tsl_soc's IciCw: $clog2(ICI_RX_FLITS + 1)
static_assert((1u << kIciCreditBits) > TSL_PARAM_ICI_RX_FLITS && (1u << (kIciCreditBits - 1)) <= TSL_PARAM_ICI_RX_FLITS,
              "ICI credit count width");
static_assert(TSL_PARAM_ICI_LINK_BYTES_PER_CYCLE == 8, "a flit is one 64-bit word here");
}  // namespace

TslSocSim::TslSocSim() : TslSocSim(false) {}

TslSocSim::TslSocSim(bool pod) : impl_(new Impl(pod)) {
  impl_->with([](auto &t) {
    t.clk_i = 0;
    t.rst_ni = 0;
    t.h_valid_i = 0;
    t.ici_chip_x_i = 0;  // a chip alone until a pod sets its straps
    t.ici_chip_y_i = 0;
    t.ici_pod_x_i = 0;
    t.ici_pod_y_i = 0;
  });
  drive_ici();
  try {
    impl_->with([](auto &t) { t.eval(); });  // initial blocks: TSL_ASSERT_INIT's parameter checks
  } catch (const VlFatal &) {
  }
  check_verilator();
}

// --- timeline ------------------------------------------------------------------------------------
namespace {
enum TlTrack { kTrackHost, kTrackCore, kTrackSeq, kTrackDma, kTrackMxu, kTrackVpu, kTracks };
const char *const kTrackNames[kTracks] = {"host command (doorbell to IRQ)", "control core", "tile sequencer",
                                          "DMA", "MXU", "VPU"};
enum TlPhase { kIdle, kFetch, kPush, kLaunch, kProgram, kWait, kComplete };
const char *const kPhaseNames[] = {"idle", "fetch+validate", "push", "launch", "program", "wait TC", "complete"};

// An instruction's span, or a control-core phase or host command (count: instructions pushed).
struct TlSpan {
  TlTrack track;
  const char *name;
  uint64_t begin, end;  // cycles, end exclusive
  uint32_t rows, row_bytes, kblocks, count;  // 0: not applicable
};

struct TlPerf {
  const char *name;
  unsigned index;
};
#define TL_PERF(x) {"PERF_" #x, (TSL_TC_PERF_##x##_LO_OFFSET - TSL_TC_PERF_CYCLES_LO_OFFSET) / 8}
const TlPerf kPerf[] = {TL_PERF(CYCLES),    TL_PERF(DMA_BUSY),     TL_PERF(DMA_STALL),    TL_PERF(MXU_BUSY),
                        TL_PERF(MXU_STALL), TL_PERF(VPU_BUSY),     TL_PERF(VPU_STALL),    TL_PERF(DMA_INSNS),
                        TL_PERF(MXU_INSNS), TL_PERF(VPU_INSNS),    TL_PERF(HBM_RD_BYTES), TL_PERF(HBM_WR_BYTES),
                        TL_PERF(MXU_MACS)};
#undef TL_PERF

// The span of a unit instruction from its fields (begin: the cycle the unit was offered it).
TlSpan tl_insn(TlTrack tr, uint64_t begin, const uint32_t *w) {
  uint32_t op = tsl_insn_hdr_decode(w).op;
  TlSpan s{tr, nullptr, begin, 0, 0, 0, 0, 0};
  if (tr == kTrackDma) {
    s.name = tsl_dma_op_name(op);
    s.rows = tsl_insn_dma_xfer_decode(w).rows;
    s.row_bytes = tsl_insn_dma_xfer_decode(w).row_bytes;
  } else if (tr == kTrackVpu) {
    s.name = tsl_vpu_op_name(op);
    s.rows = tsl_insn_vpu_vec_decode(w).rows;
  } else {
    s.name = tsl_mxu_op_name(op);
    if (op == TSL_MXU_OP_MATMUL) s.rows = tsl_insn_mxu_matmul_decode(w).rows;
    if (op == TSL_MXU_OP_MATMULK) {
      tsl_insn_mxu_matmulk_t x = tsl_insn_mxu_matmulk_decode(w);
      s.rows = x.rows;
      s.kblocks = x.kblocks;
    }
  }
  if (!s.name) s.name = "?";
  return s;
}
}  // namespace

struct TslSocSim::Timeline {
  std::vector<TlSpan> spans;
  std::deque<TlSpan> inflight[kTracks];  // accepted by the unit, not finished
  bool offered[kTracks] = {};            // the unit's ex_valid is up; its span is in offer[]
  TlSpan offer[kTracks];
  uint64_t last_end[kTracks] = {};
  TlPhase phase = kIdle;
  uint64_t phase_begin = 0, req_begin = 0, cmd_begin = 0;
  uint32_t pushes = 0;
  bool req_open = false, cmd_open = false, irq_q = false, seq_q = false;
  uint64_t seq_begin = 0;

  // One cycle of a unit's execution interface and its retirement (ret_ok: the controller retired
  // one of its instructions this cycle; without done, a SYNC).
  void unit(TlTrack tr, uint64_t now, bool valid, bool ready, const uint32_t *w, bool done, bool ret_ok) {
    if (done && !inflight[tr].empty()) {  // empty: it started before the timeline
      close(inflight[tr].front(), now);
      inflight[tr].pop_front();
    } else if (ret_ok && !done) {
      close(TlSpan{tr, "SYNC", now, 0, 0, 0, 0, 0}, now);
    }
    if (valid && !offered[tr]) offer[tr] = tl_insn(tr, now, w);
    offered[tr] = valid && !ready;
    if (valid && ready) inflight[tr].push_back(offer[tr]);
  }
  // Spans of one track never overlap: an instruction that waited inside its unit starts when the
  // previous one finished.
  void close(TlSpan s, uint64_t now) {
    s.begin = std::max(s.begin, last_end[s.track]);
    s.end = std::max(now + 1, s.begin + 1);
    last_end[s.track] = s.end;
    spans.push_back(s);
  }
  void close_phase(uint64_t at) {
    if (phase != kIdle && at > phase_begin)
      spans.push_back({kTrackCore, kPhaseNames[phase], phase_begin, at, 0, 0, 0, phase == kPush ? pushes : 0});
    phase = kIdle;
  }
  // A control-core bus access [begin, end] (end: the cycle it was answered).
  void core_access(uint64_t begin, uint64_t end, uint32_t addr, bool write) {
    TlPhase cls;
    uint32_t tc = addr - TSL_MMAP_TC_BASE, hif = addr - TSL_MMAP_HOSTIF_BASE;
    if (tc < TSL_MMAP_TC_BYTES && write && tc >= TSL_TC_INSN0_OFFSET && tc <= TSL_TC_INSN7_OFFSET)
      cls = kPush;
    else if (tc < TSL_MMAP_TC_BYTES && write && tc >= TSL_TC_SEQ0_OFFSET && tc <= TSL_TC_SEQ23_OFFSET)
      cls = kLaunch;
    else if (tc < TSL_MMAP_TC_BYTES && write && (tc == TSL_TC_HBM_BASE_OFFSET || tc == TSL_TC_HBM_LIMIT_OFFSET ||
                                                 tc == TSL_TC_PROG_ADDR_OFFSET || tc == TSL_TC_PROG_BYTES_OFFSET ||
                                                 tc == TSL_TC_PROG_HOLD_OFFSET))
      cls = kProgram;
    else if (tc < TSL_MMAP_TC_BYTES)
      cls = kWait;
    else if (addr - TSL_MMAP_HBM_BASE < TSL_MMAP_HBM_BYTES)
      cls = write ? kComplete : kFetch;
    else if (hif < TSL_MMAP_HOSTIF_BYTES)
      cls = phase == kComplete && write ? kComplete : kIdle;
    else
      return;  // SYS (console, timer): part of whatever the core is doing
    if (cls != phase) {
      close_phase(begin);
      phase = cls;
      phase_begin = begin;
      pushes = 0;
    }
    if (cls == kPush && tc == TSL_TC_INSN7_OFFSET) pushes++;
    if (cls == kComplete && hif == TSL_HOSTIF_HOST_IRQ_SET_OFFSET) close_phase(end + 1);
  }
  // One cycle's signals, sampled before the clock edge.
  template <class Root>
  void sample(const Root &r, uint64_t now, bool host_irq) {
    uint8_t ret = r.tsl_soc__DOT__u_tc__DOT__u_ctrl__DOT__ret_ok;
    unit(kTrackDma, now, r.tsl_soc__DOT__u_tc__DOT__dma_ex_valid, r.tsl_soc__DOT__u_tc__DOT__dma_ex_ready,
         r.tsl_soc__DOT__u_tc__DOT__dma_ex_insn.data(), r.tsl_soc__DOT__u_tc__DOT__dma_done,
         (ret >> TSL_UNIT_DMA) & 1);
    unit(kTrackMxu, now, r.tsl_soc__DOT__u_tc__DOT__mxu_ex_valid, r.tsl_soc__DOT__u_tc__DOT__mxu_ex_ready,
         r.tsl_soc__DOT__u_tc__DOT__mxu_ex_insn.data(), r.tsl_soc__DOT__u_tc__DOT__mxu_done,
         (ret >> TSL_UNIT_MXU) & 1);
    unit(kTrackVpu, now, r.tsl_soc__DOT__u_tc__DOT__vpu_ex_valid, r.tsl_soc__DOT__u_tc__DOT__vpu_ex_ready,
         r.tsl_soc__DOT__u_tc__DOT__vpu_ex_insn.data(), r.tsl_soc__DOT__u_tc__DOT__vpu_done,
         (ret >> TSL_UNIT_VPU) & 1);
    if (r.tsl_soc__DOT__ext_valid && !req_open) {
      req_open = true;
      req_begin = now;
    }
    if (r.tsl_soc__DOT__ext_valid && r.tsl_soc__DOT__ext_ready) {
      core_access(req_begin, now, r.tsl_soc__DOT__ext_addr, r.tsl_soc__DOT__ext_wstrb != 0);
      req_open = false;
    }
    // The tile sequencer: one span per descriptor, from its launch to its last instruction dispatched.
    bool seq = r.tsl_soc__DOT__u_tc__DOT__u_ctrl__DOT__seq_busy;
    if (seq && !seq_q) seq_begin = now;
    if (!seq && seq_q) spans.push_back({kTrackSeq, "expand", seq_begin, now, 0, 0, 0, 0});
    seq_q = seq;
    if (host_irq && !irq_q && cmd_open) {
      spans.push_back({kTrackHost, "command", cmd_begin, now + 1, 0, 0, 0, 0});
      cmd_open = false;
    }
    irq_q = host_irq;
  }
  void doorbell(uint64_t now) {
    if (!cmd_open) cmd_begin = now;
    cmd_open = true;
  }
};

void TslSocSim::start_timeline() { timeline_.reset(new Timeline); }

bool TslSocSim::write_timeline(FILE *f, std::string *err) const {
  if (!timeline_) {
    *err = "no timeline was started";
    return false;
  }
  fprintf(f, "{\"displayTimeUnit\": \"ns\",\n \"otherData\": {\"clock\": \"ts and dur are SoC clock cycles "
             "(shown as us: 1 us = 1 cycle)\", \"cycles\": %llu, \"n\": %d,\n  \"perf\": {",
          (unsigned long long)cycles_, SOC_N);
  for (size_t i = 0; i < sizeof kPerf / sizeof kPerf[0]; i++) {
    uint64_t n = impl_->with([&](auto &t) -> uint64_t {
      return t.rootp->tsl_soc__DOT__u_tc__DOT__u_ctrl__DOT__u_perf__DOT__cnt_q[kPerf[i].index];
    });
    fprintf(f, "%s\"%s\": %llu", i ? ", " : "", kPerf[i].name, (unsigned long long)n);
  }
  fprintf(f, "}},\n \"traceEvents\": [\n  {\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, "
             "\"args\": {\"name\": \"Tessel SoC (N=%d)\"}}", SOC_N);
  for (int t = 0; t < kTracks; t++)
    fprintf(f, ",\n  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %d, \"args\": {\"name\": \"%s\"}}"
               ",\n  {\"name\": \"thread_sort_index\", \"ph\": \"M\", \"pid\": 1, \"tid\": %d, \"args\": "
               "{\"sort_index\": %d}}",
            t, kTrackNames[t], t, t);
  for (const TlSpan &s : timeline_->spans) {
    fprintf(f, ",\n  {\"name\": \"%s\", \"cat\": \"%s\", \"ph\": \"X\", \"pid\": 1, \"tid\": %d, "
               "\"ts\": %llu, \"dur\": %llu",
            s.name, kTrackNames[s.track], s.track, (unsigned long long)s.begin,
            (unsigned long long)(s.end - s.begin));
    const struct {
      const char *key;
      uint32_t v;
    } args[] = {{"rows", s.rows}, {"row_bytes", s.row_bytes}, {"kblocks", s.kblocks}, {"instructions", s.count}};
    bool any = false;
    for (const auto &a : args) {
      if (!a.v) continue;
      fprintf(f, "%s\"%s\": %u", any ? ", " : ", \"args\": {", a.key, a.v);
      any = true;
    }
    fputs(any ? "}}" : "}", f);
  }
  fputs("\n]}\n", f);
  if (fflush(f) != 0 || ferror(f)) {
    *err = "cannot write the timeline";
    return false;
  }
  return true;
}

TslSocSim::~TslSocSim() {
  if (impl_->trace) impl_->trace->close();
  impl_->with([](auto &t) { t.final(); });
}

TslHbm &TslSocSim::hbm() { return impl_->hbm; }
uint64_t TslSocSim::hbm_bytes() const { return impl_->hbm.size(); }
bool TslSocSim::host_irq() const { return impl_->host_irq; }

bool TslSocSim::load_elf(const std::string &path, std::string *err) {
  // Scopes are named per context, and every SoC's are alike: look in this SoC's own context (a pod
  // constructs all its chips before it loads them).
  Verilated::threadContextp(impl_->ctx.get());
  // The model's own export functions, not the DPI's C names: those are one per process, and the
  // pod's model is built without them (mk/verilate.mk).
  svSetScope(svGetScopeFromName(kRamScope));
  return impl_->with([&](auto &t) {
    using Top = typename std::remove_reference<decltype(t)>::type;
    uint32_t bytes = Top::tsl_prim_ram_depth() * 4, used = 0;
    std::vector<uint8_t> img(bytes);
    if (const char *why = tessel_elf_file(path.c_str(), kRamBase, img.data(), bytes, &used)) {
      *err = path + ": " + why;
      return false;
    }
    for (uint32_t i = 0; i < bytes / 4; i++)  // the whole RAM: .bss and the rest are zero
      Top::tsl_prim_ram_write(i, img[4 * i] | img[4 * i + 1] << 8 | img[4 * i + 2] << 16 |
                                     uint32_t(img[4 * i + 3]) << 24);
    return true;
  });
}

bool TslSocSim::open_trace(const std::string &path, std::string *err) {
  impl_->ctx->traceEverOn(true);
  impl_->trace.reset(new VerilatedFstC);
  impl_->with([&](auto &t) { t.trace(impl_->trace.get(), 99); });
  impl_->trace->open(path.c_str());
  if (!impl_->trace->isOpen()) {
    *err = "cannot open trace file " + path;
    impl_->trace.reset();
    return false;
  }
  return true;
}

void TslSocSim::reset() {
  impl_->with([](auto &t) { t.rst_ni = 0; });
  for (int i = 0; i < 4; i++) cycle();
  impl_->with([](auto &t) { t.rst_ni = 1; });
  exited_ = false;
  traps_in_row_ = 0;
}

void TslSocSim::step(uint64_t n) {
  for (uint64_t i = 0; i < n; i++) cycle();
}

void TslSocSim::cycle() {
  if (pod_)
    pod_->advance(pod_chip_);
  else
    cycle_alone();
}

void TslSocSim::cycle_alone() {
  if (failed_) return;
  try {
    cycle_model();
  } catch (const VlFatal &) {
  }
  check_verilator();
}

void TslSocSim::cycle_model() {
  Impl &m = *impl_;
  m.with([&](auto &t) {
    // Inputs from the models' state only, then evaluate.
    m.hbm.drive(m.p);
    tsl_axi_to_top(t, m.p);
    t.h_valid_i = m.h_valid;
    if (pod_) drive_ici();
    t.eval();
    // Outputs of this cycle, sampled before the edge.
    tsl_axi_from_top(t, m.p);
    if (pod_)
      for (unsigned p = 0; p < TslPodSim::kPorts; p++) {
        m.ici_out[p].kind = (t.ici_tx_kind_o >> (2 * p)) & 3u;
        m.ici_out[p].data = uint64_t(t.ici_tx_data_o[2 * p]) | uint64_t(t.ici_tx_data_o[2 * p + 1]) << 32;
        m.ici_out[p].credit = uint32_t(t.ici_rx_credit_o >> (kIciCreditBits * p)) & ((1u << kIciCreditBits) - 1);
      }
    bool running = t.rst_ni;
    if (running && t.console_valid_o && console_) {
      fputc(t.console_data_o, console_);
      if (t.console_data_o == '\n') fflush(console_);
    }
    if (running && t.retire_o) {
      instret_++;
      traps_in_row_ = 0;
    }
    if (running && t.trap_o) {
      trap_cause_ = t.trap_cause_o;
      trap_pc_ = t.trap_pc_o;
      if (!t.retire_o) traps_in_row_++;
    }
    if (running && t.exit_valid_o) {
      exited_ = true;
      exit_code_ = t.exit_code_o;
    }
    if (timeline_) timeline_->sample(*t.rootp, cycles_, t.host_irq_o);
    bool h_ack = m.h_valid && t.h_ready_o;
    if (h_ack) {
      m.h_done = true;
      m.h_rdata = t.h_rdata_o;
      m.h_err = t.h_err_o;
    }
    // This edge's handshakes in the HBM model, then the clock edges. The HBM is held in reset with
    // the SoC: before the first edge of reset, the SoC's flops (and so its AXI outputs) are arbitrary.
    if (running) m.hbm.tick(m.p);
    t.clk_i = 1;
    t.eval();
    if (m.trace) m.trace->dump(m.time * 10 + 5);
    // The falling edge needs an evaluation of its own only for the trace: nothing in the SoC acts on
    // it (no negedge flops), so the next cycle's evaluation, after the new inputs, takes it along and
    // saves one evaluation of the input logic per cycle.
    t.clk_i = 0;
    m.time++;
    if (m.trace) {
      t.eval();
      m.trace->dump(m.time * 10);
    }
    if (h_ack) m.h_valid = false;
    m.host_irq = t.host_irq_o;
    cycles_++;
  });
}

TslSocStop TslSocSim::run_until(const std::function<bool()> &stop, uint64_t max_cycles,
                                uint32_t trap_loop_limit) {
  uint64_t start = cycles_;
  while (max_cycles == 0 || cycles_ - start < max_cycles) {
    if (stop && stop()) return TSL_SOC_STOPPED;
    cycle();
    if (failed_) return TSL_SOC_FAILED;
    if (exited_) return TSL_SOC_EXIT;
    if (traps_in_row_ >= trap_loop_limit) return TSL_SOC_TRAP_LOOP;
  }
  return TSL_SOC_TIMEOUT;
}

static TslSocStatus check_args(unsigned bar, uint32_t addr) {
  return (bar > 1 || (addr & 3)) ? TSL_SOC_EINVAL : TSL_SOC_OK;
}

TslSocStatus TslSocSim::host_read32(unsigned bar, uint32_t addr, uint32_t *data,
                                    uint64_t timeout_cycles) {
  if (check_args(bar, addr) != TSL_SOC_OK || !data) return TSL_SOC_EINVAL;
  return host_access(bar, addr, 0, 0, data, timeout_cycles);
}

TslSocStatus TslSocSim::host_write32(unsigned bar, uint32_t addr, uint32_t data, uint8_t wstrb,
                                     uint64_t timeout_cycles) {
  if (check_args(bar, addr) != TSL_SOC_OK || (wstrb & ~0xfu) || !wstrb) return TSL_SOC_EINVAL;
  return host_access(bar, addr, data, wstrb, nullptr, timeout_cycles);
}

TslSocStatus TslSocSim::host_access(unsigned bar, uint32_t addr, uint32_t wdata,
                                          uint8_t wstrb, uint32_t *rdata, uint64_t timeout) {
  if (failed_) return TSL_SOC_EFAILED;
  Impl &m = *impl_;
  m.with([&](auto &t) {
    t.h_bar_i = bar;
    t.h_addr_i = addr;
    t.h_wdata_i = wdata;
    t.h_wstrb_i = wstrb;
  });
  m.h_valid = true;
  m.h_done = false;
  host_accesses_++;
  if (timeline_ && bar == kBarRegs && wstrb && addr == TSL_HOSTIF_CMD_HEAD_OFFSET) timeline_->doorbell(cycles_);
  for (uint64_t i = 0; i < timeout && !m.h_done && !failed_; i++) cycle();
  if (failed_) return TSL_SOC_EFAILED;
  if (!m.h_done) {
    // Give up. The request stays driven until answered, as the bus contract requires, but a
    // caller that sees a timeout should treat the device as broken.
    return TSL_SOC_ETIMEOUT;
  }
  if (rdata) *rdata = m.h_rdata;
  return m.h_err ? TSL_SOC_EBUS : TSL_SOC_OK;
}

// --- the pod ---------------------------------------------------------------------------------------
void TslSocSim::drive_ici() {
  Impl &m = *impl_;
  uint32_t kinds = 0;
  uint64_t credits = 0;
  for (unsigned p = 0; p < TslPodSim::kPorts; p++) {
    kinds |= uint32_t(m.ici_in[p].kind & 3u) << (2 * p);
    credits |= uint64_t(m.ici_in[p].credit) << (kIciCreditBits * p);
  }
  m.with([&](auto &t) {
    for (unsigned p = 0; p < TslPodSim::kPorts; p++) {
      t.ici_rx_data_i[2 * p] = uint32_t(m.ici_in[p].data);
      t.ici_rx_data_i[2 * p + 1] = uint32_t(m.ici_in[p].data >> 32);
    }
    t.ici_rx_kind_i = kinds;
    t.ici_tx_credit_i = credits;
  });
}

// A link one way, from (from, from_port) to (to, to_port): the flits `from` sent in its cycle t, and
// the credits `to` returned in its cycle t, each at slot t % ring_ until read `latency` cycles later.
// A chip runs at most `latency` cycles ahead of a neighbour, so no slot is written before it is read.
struct TslPodSim::Link {
  unsigned from, from_port, to, to_port;
  std::vector<TslSocSim::Impl::IciIo> flit;  // kind and data
  std::vector<uint32_t> credit;
  std::atomic<int> fault{kLinkOk};           // written by a host thread, read by whoever runs a chip
  Link(unsigned f, unsigned fp, unsigned t, unsigned tp) : from(f), from_port(fp), to(t), to_port(tp) {}
  Link(Link &&o) : from(o.from), from_port(o.from_port), to(o.to), to_port(o.to_port), fault(kLinkOk) {}
};

// A chip as a logical process: its time (cycles run), who may run it, and its links. A chip of
// another rank (with a net) is held for good: its time is how far its batches have come.
struct TslPodSim::Lp {
  std::atomic<uint64_t> t{0};
  bool busy = false, held = false;         // in use (or pulled) by some thread; held (hold())
  std::vector<unsigned> in, out, nbr;      // links into it and out of it; its neighbours, once each
  // With a net: a chip here has, per other rank, its links to chips there and the batch being
  // filled for it; a chip there has its links to chips here. A batch is a Batch, then for each of
  // batch_ cycles an Entry per link (in the order of link_), from that cycle's outputs of the
  // chip: the flit of a link that leaves it, the credits of one that enters it.
  std::vector<unsigned> xrank;
  std::vector<std::vector<unsigned>> xout;
  std::vector<std::vector<uint8_t>> xbuf;
  std::vector<unsigned> xin;
  Lp() = default;
  Lp(Lp &&o)
      : busy(o.busy), held(o.held), in(std::move(o.in)), out(std::move(o.out)), nbr(std::move(o.nbr)),
        xrank(std::move(o.xrank)), xout(std::move(o.xout)), xbuf(std::move(o.xbuf)), xin(std::move(o.xin)) {}
};

namespace {
struct Batch {
  uint32_t chip, pad;
  uint64_t t0;  // its first cycle, a multiple of batch_
};
struct Entry {
  uint64_t data;
  uint32_t credit, kind;
};
}  // namespace

TslPodSim::TslPodSim(unsigned x, unsigned y, uint32_t latency, TslPodNet *net)
    : latency_(latency ? latency : 1), ring_(2 * (latency ? latency : 1) + 2), net_(net),
      batch_(latency > 1 ? latency / 2 : 1) {
  for (unsigned i = 0; i < x * y; i++) {
    if (net && net->owner(i) != net->rank()) {
      chip_.emplace_back();
      continue;
    }
    chip_.emplace_back(new TslSocSim(true));
    TslSocSim &c = *chip_.back();
    c.pod_ = this;
    c.pod_chip_ = i;
    c.impl_->with([&](auto &t) {
      t.ici_chip_x_i = i % x;
      t.ici_chip_y_i = i / x;
      t.ici_pod_x_i = x;
      t.ici_pod_y_i = y;
    });
  }
  for (unsigned i = 0; i < x * y; i++) {
    unsigned cx = i % x, cy = i / x;
    if (x > 1) {
      link_.emplace_back(i, 0, cy * x + (cx + 1) % x, 1);
      link_.emplace_back(i, 1, cy * x + (cx + x - 1) % x, 0);
    }
    if (y > 1) {
      link_.emplace_back(i, 2, ((cy + 1) % y) * x + cx, 3);
      link_.emplace_back(i, 3, ((cy + y - 1) % y) * x + cx, 2);
    }
  }
  lp_.resize(x * y);
  for (Lp &lp : lp_) lp.held = true;  // until its opener's first thread of its own (each)
  for (unsigned k = 0; k < link_.size(); k++) {
    Link &l = link_[k];
    l.flit.resize(ring_);
    l.credit.resize(ring_);
    lp_[l.from].out.push_back(k);
    lp_[l.to].in.push_back(k);
    std::vector<unsigned> &nb = lp_[l.from].nbr;
    if (std::find(nb.begin(), nb.end(), l.to) == nb.end()) nb.push_back(l.to);
  }
  if (!net_) return;
  for (unsigned i = 0; i < x * y; i++) {
    Lp &lp = lp_[i];
    for (unsigned k = 0; k < link_.size(); k++) {
      const Link &l = link_[k];
      if (l.from != i && l.to != i) continue;
      unsigned other = l.from == i ? l.to : l.from;
      if (here(i) && !here(other)) {
        unsigned r = net_->owner(other), j = 0;
        while (j < lp.xrank.size() && lp.xrank[j] != r) j++;
        if (j == lp.xrank.size()) lp.xrank.push_back(r), lp.xout.emplace_back(), lp.xbuf.emplace_back();
        lp.xout[j].push_back(k);
      } else if (!here(i) && here(other)) {
        lp.xin.push_back(k);
      }
    }
  }
  threads_.emplace_back([this] { receive(); });
  threads_.emplace_back([this] { push(); });
}

// With a net, the ranks end together: each stops pushing, waits for the others to stop sending,
// then stops receiving.
TslPodSim::~TslPodSim() {
  if (!net_) return;
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
    cv_.notify_all();
  }
  threads_[1].join();
  (void)net_->max(0);
  stop_recv_ = true;
  threads_[0].join();
}

void TslPodSim::enter(unsigned i) {
  std::unique_lock<std::mutex> l(mu_);
  waiting_++;
  cv_.wait(l, [&] { return !lp_[i].busy; });
  waiting_--;
  lp_[i].busy = true;
}

void TslPodSim::leave(unsigned i) {
  std::lock_guard<std::mutex> l(mu_);
  lp_[i].busy = false;
  cv_.notify_all();
}

void TslPodSim::hold(unsigned i, bool on) {
  std::lock_guard<std::mutex> l(mu_);
  lp_[i].held = on;
  cv_.notify_all();
}

bool TslPodSim::ready(unsigned i) const {
  uint64_t t = lp_[i].t.load(std::memory_order_relaxed);
  for (unsigned n : lp_[i].nbr)
    if (lp_[n].t.load() + latency_ <= t) return false;
  return true;
}

void TslPodSim::advance(unsigned i) {
  if (!ready(i)) {
    std::unique_lock<std::mutex> l(mu_);
    waiting_++;  // before looking at the times: step() then sees it, or this sees the step
    while (!ready(i)) {
      uint64_t t = lp_[i].t.load(std::memory_order_relaxed);
      unsigned pull = ~0u;
      for (unsigned n : lp_[i].nbr)
        if (lp_[n].t.load() + latency_ <= t && !lp_[n].busy && !lp_[n].held) pull = n;
      if (stop_) break;  // the pod is closing (with a net): the chip stops where it is
      if (pull == ~0u) {
        cv_.wait(l);
        continue;
      }
      lp_[pull].busy = true;  // nobody runs it: this thread does, as far as this chip needs it
      l.unlock();
      while (lp_[pull].t.load(std::memory_order_relaxed) + latency_ <= t) advance(pull);
      l.lock();
      lp_[pull].busy = false;
      cv_.notify_all();
    }
    waiting_--;
    if (stop_) return;
  }
  step(i);
}

void TslPodSim::step(unsigned i) {
  Lp &lp = lp_[i];
  uint64_t t = lp.t.load(std::memory_order_relaxed);
  TslSocSim::Impl &m = *chip_[i]->impl_;
  size_t rd = t >= latency_ ? (t - latency_) % ring_ : 0, wr = t % ring_;
  for (unsigned k : lp.in) {  // what left latency cycles ago arrives now: flits at the receivers
    const Link &l = link_[k];
    m.ici_in[l.to_port].kind = t >= latency_ ? l.flit[rd].kind : 0;
    m.ici_in[l.to_port].data = t >= latency_ ? l.flit[rd].data : 0;
  }
  for (unsigned k : lp.out)  // and credits at the senders
    m.ici_in[link_[k].from_port].credit = t >= latency_ ? link_[k].credit[rd] : 0;
  chip_[i]->cycle_alone();
  for (unsigned k : lp.out) {
    Link &l = link_[k];
    TslSocSim::Impl::IciIo v = m.ici_out[l.from_port];
    v.credit = 0;
    int f = l.fault.load(std::memory_order_relaxed);
    if (f == kLinkCut) {
      v = {};
    } else if (f == kLinkCorrupt && (v.kind == TSL_ICI_FLIT_DATA || v.kind == TSL_ICI_FLIT_LAST)) {
      v.data ^= 1;
      l.fault.store(kLinkOk, std::memory_order_relaxed);
    }
    l.flit[wr] = v;
  }
  for (unsigned k : lp.in) {
    Link &l = link_[k];
    l.credit[wr] = l.fault.load(std::memory_order_relaxed) == kLinkCut ? 0 : m.ici_out[l.to_port].credit;
  }
  for (size_t r = 0; r < lp.xrank.size(); r++) {  // with a net: this cycle into each batch
    std::vector<uint8_t> &b = lp.xbuf[r];
    if (b.empty()) {
      Batch h = {i, 0, t};
      b.insert(b.end(), reinterpret_cast<uint8_t *>(&h), reinterpret_cast<uint8_t *>(&h + 1));
    }
    for (unsigned k : lp.xout[r]) {
      const Link &l = link_[k];
      Entry e = l.from == i ? Entry{l.flit[wr].data, 0, l.flit[wr].kind} : Entry{0, l.credit[wr], 0};
      b.insert(b.end(), reinterpret_cast<uint8_t *>(&e), reinterpret_cast<uint8_t *>(&e + 1));
    }
    if ((t + 1) % batch_ == 0) {
      net_->send(lp.xrank[r], b.data(), b.size());
      b.clear();
    }
  }
  lp.t.store(t + 1);
  if (waiting_.load()) {
    std::lock_guard<std::mutex> l(mu_);
    cv_.notify_all();
  }
}

void TslPodSim::align() {
  uint64_t end = 0;
  for (unsigned i = 0; i < chips(); i++)
    if (here(i)) end = std::max(end, lp_[i].t.load());
  if (net_) end = net_->max(end);
  // This thread drives every chip here, held or not: round by round, each as far as its neighbours
  // allow; when none can go on, the other ranks' batches are waited for.
  for (;;) {
    bool behind = false, moved = false;
    for (unsigned i = 0; i < chips(); i++) {
      if (!here(i)) continue;
      Use u(*this, i);
      while (lp_[i].t.load(std::memory_order_relaxed) < end && ready(i)) step(i), moved = true;
      behind |= lp_[i].t.load(std::memory_order_relaxed) < end;
    }
    if (!behind || stop_) return;
    if (!moved) {
      std::unique_lock<std::mutex> l(mu_);
      waiting_++;
      cv_.wait_for(l, std::chrono::milliseconds(1));
      waiting_--;
    }
  }
}

void TslPodSim::each(const std::function<void(unsigned)> &f) {
  std::vector<std::thread> th;
  for (unsigned i = 0; i < chips(); i++)  // none advanced on another's behalf before its own thread
    if (here(i)) hold(i, true);
  for (unsigned i = 0; i < chips(); i++)
    if (here(i))
      th.emplace_back([this, &f, i] {
        f(i);
        hold(i, false);
      });
  for (std::thread &t : th) t.join();
}

void TslPodSim::deliver(const std::vector<uint8_t> &msg) {
  Batch h;
  std::memcpy(&h, msg.data(), sizeof h);
  const std::vector<unsigned> &xin = lp_[h.chip].xin;
  const uint8_t *p = msg.data() + sizeof h;
  for (uint64_t t = h.t0; t < h.t0 + batch_; t++)
    for (unsigned k : xin) {
      Entry e;
      std::memcpy(&e, p, sizeof e);
      p += sizeof e;
      Link &l = link_[k];
      if (l.from == h.chip)
        l.flit[t % ring_] = {uint8_t(e.kind), e.data, 0};
      else
        l.credit[t % ring_] = e.credit;
    }
  lp_[h.chip].t.store(h.t0 + batch_);
  std::lock_guard<std::mutex> l(mu_);
  cv_.notify_all();
}

void TslPodSim::receive() {
  std::vector<uint8_t> msg;
  while (!stop_recv_) {
    if (net_->poll(&msg))
      deliver(msg);
    else
      std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

// A chip here that another rank's chip j, batches known up to known_j, may need next: up to the
// cycle it needs before it has run its batch on (known_j + batch_ - 1 - latency + 1), which is a
// whole batch of this chip's.
uint64_t TslPodSim::needed(unsigned i) const {
  uint64_t need = 0;
  for (unsigned j : lp_[i].nbr)
    if (!here(j)) {
      uint64_t known = lp_[j].t.load();
      if (known + batch_ > latency_) need = std::max(need, known + batch_ - latency_);
    }
  return need;
}

void TslPodSim::push() {
  std::unique_lock<std::mutex> l(mu_);
  while (!stop_) {
    unsigned pick = ~0u;
    for (unsigned i = 0; i < chips() && pick == ~0u; i++)
      if (here(i) && !lp_[i].busy && !lp_[i].held && lp_[i].t.load() < needed(i)) pick = i;
    if (pick == ~0u) {
      cv_.wait(l);
      continue;
    }
    lp_[pick].busy = true;
    l.unlock();
    while (!stop_ && lp_[pick].t.load() < needed(pick)) advance(pick);
    l.lock();
    lp_[pick].busy = false;
    cv_.notify_all();
  }
}

bool TslPodSim::link_fault(unsigned chip, unsigned port, LinkFault f) {
  for (Link &l : link_)
    if (l.from == chip && l.from_port == port) {
      l.fault.store(f);
      return true;
    }
  return false;
}
