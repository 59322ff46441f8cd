// A board on a pseudo-terminal, without RTL: serves the UART bridge protocol (tessel_uart.h) from
// the golden-model device (the model transport: hw/model + the native firmware command processor),
// so that the host `uart` transport's framing, retries and resync can be tested.
//
//   uart_dev_model [--drop-rx K] [--drop-tx K] [--corrupt-rx K] [--corrupt-tx K] [--seed S]
//                  [--n N] [--hbm BYTES] [--features F] [--idle-exit SEC]
//
// Prints the pty's slave path on the first line of stdout, then serves until SIGTERM/SIGINT (which
// print a summary of the faults on stderr) or until no byte arrived for --idle-exit seconds.
// rx is host -> board, tx board -> host. A fault option drops (or XORs with a random non-zero
// mask) every Kth byte of that direction, starting at a random phase; the seed (printed on stderr;
// SEED= or --seed replays) fixes the phases and masks.
// Bridge behaviour as fpga tsl_uart_bridge: bytes outside a request that are not SYNC are dropped;
// a request that sees no byte for 2048 bit times (2 ms) is dropped; a frame's length follows from
// OP[1:0] and COUNT even when the request is bad (the CRC is checked first, then the fields); a
// WRITE is performed only after its CRC checks; bytes that arrive while a request is served are
// dropped. BAR0 answers err beyond the emulated HOSTIF registers, BAR1 beyond the HBM. After each
// request the firmware runs once (doorbell + poll: every pending command to completion).
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include "tessel_int.h"
#include "tessel_uart.h"
#include "tsl_cp_hal_model.h"
#include "tsl_pty.h"
#include "tsl_rng.h"

namespace {
const int kIdleMs = 2;  // 2048 bit times at 1 Mbaud
volatile sig_atomic_t g_stop = 0;

void on_signal(int) { g_stop = 1; }

struct Fault {
  uint32_t drop = 0, corrupt = 0;  // every Kth byte; 0 off
  uint64_t count = 0, drop_phase = 0, corrupt_phase = 0;
};

struct Board {
  tessel_transport_t dev;
  TslRng rng;
  Fault rx, tx;
  int fd = -1;
  uint64_t dropped = 0, corrupted = 0, requests = 0;
};

// Apply a direction's faults to byte *b; false when it is dropped.
bool fault(Board &bd, Fault &f, uint8_t *b) {
  f.count++;
  if (f.drop && (f.count + f.drop_phase) % f.drop == 0) {
    bd.dropped++;
    return false;
  }
  if (f.corrupt && (f.count + f.corrupt_phase) % f.corrupt == 0) {
    *b ^= (uint8_t)(1 + bd.rng.below(255));
    bd.corrupted++;
  }
  return true;
}

void put32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

uint32_t get32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

// One host-port access; false when it answers err.
bool access(Board &bd, bool bar1, bool write, uint32_t addr, uint32_t *v) {
  tessel_transport_t &t = bd.dev;
  if (!bar1) {
    if (addr >= 4u * TSL_CP_HOSTIF_REGS) return false;
    return (write ? t.hostif_write(t.ctx, addr, *v) : t.hostif_read(t.ctx, addr, v)) == 0;
  }
  if (addr >= t.hbm_bytes) return false;
  uint8_t b[4];
  if (write) {
    put32(b, *v);
    return t.hbm_write(t.ctx, addr, b, 4) == 0;
  }
  if (t.hbm_read(t.ctx, addr, b, 4) != 0) return false;
  *v = get32(b);
  return true;
}

void send(Board &bd, std::vector<uint8_t> rsp) {
  rsp.push_back(tessel_uart_crc8(0, rsp.data() + 1, rsp.size() - 1));
  std::vector<uint8_t> out;
  for (uint8_t b : rsp)
    if (fault(bd, bd.tx, &b)) out.push_back(b);
  tsl_pty_write(bd.fd, out.data(), out.size());  // a host that went away misses the response
}

// Serve one complete request frame (SYNC..CRC).
void serve(Board &bd, const std::vector<uint8_t> &f) {
  bd.requests++;
  std::vector<uint8_t> rsp = {TESSEL_UART_SYNC_RSP, TESSEL_UART_OK};
  uint8_t op = f[1];
  uint32_t addr = get32(&f[2]), count = f[6] + 1u, kind = op & 3u;
  if (tessel_uart_crc8(0, f.data() + 1, f.size() - 2) != f.back()) {
    rsp[1] = TESSEL_UART_CRC;
  } else if ((op & 0x7Cu) || (kind != TESSEL_UART_OP_READ && kind != TESSEL_UART_OP_WRITE) || (addr & 3u) ||
             count > TESSEL_UART_MAX_WORDS) {
    rsp[1] = TESSEL_UART_BADREQ;
  } else {
    bool write = kind == TESSEL_UART_OP_WRITE, bar1 = op & TESSEL_UART_OP_BAR1;
    for (uint32_t i = 0; i < count; i++) {
      uint32_t v = write ? get32(&f[TESSEL_UART_HDR_BYTES + 4 * i]) : 0;
      if (!access(bd, bar1, write, addr + 4 * i, &v)) {
        rsp[1] = TESSEL_UART_BUS;
        v = 0;
      }
      if (!write) {
        rsp.resize(rsp.size() + 4);
        put32(&rsp[rsp.size() - 4], v);
      }
    }
  }
  uint8_t junk[256];
  while (read(bd.fd, junk, sizeof junk) > 0) {  // what arrived meanwhile is lost
  }
  send(bd, rsp);
  bd.dev.wait(bd.dev.ctx);
}

// Total frame length once the header is in.
size_t frame_len(const std::vector<uint8_t> &f) {
  bool data = (f[1] & 3u) == TESSEL_UART_OP_WRITE;
  return TESSEL_UART_HDR_BYTES + (data ? 4u * (f[6] + 1u) : 0u) + 1u;
}

int64_t now_ms() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int usage(const char *why) {
  std::fprintf(stderr,
               "uart_dev_model: %s\nusage: uart_dev_model [--drop-rx K] [--drop-tx K] [--corrupt-rx K] "
               "[--corrupt-tx K] [--seed S] [--n N] [--hbm BYTES] [--features F] [--idle-exit SEC]\n",
               why);
  return 2;
}
}  // namespace

int main(int argc, char **argv) {
  Board bd;
  tessel_model_cfg_t cfg = {};
  uint64_t seed = 0;
  long idle_exit = 0;
  const char *env_seed = std::getenv("SEED");
  bool have_seed = env_seed && *env_seed;
  if (have_seed) seed = std::strtoull(env_seed, nullptr, 0);
  for (int i = 1; i < argc; i++) {
    if (i + 1 >= argc) return usage("every option needs a value");
    const char *o = argv[i];
    char *end;
    unsigned long long v = std::strtoull(argv[++i], &end, 0);
    if (*end) return usage("option values are numbers");
    if (!std::strcmp(o, "--drop-rx")) bd.rx.drop = (uint32_t)v;
    else if (!std::strcmp(o, "--drop-tx")) bd.tx.drop = (uint32_t)v;
    else if (!std::strcmp(o, "--corrupt-rx")) bd.rx.corrupt = (uint32_t)v;
    else if (!std::strcmp(o, "--corrupt-tx")) bd.tx.corrupt = (uint32_t)v;
    else if (!std::strcmp(o, "--seed")) seed = v, have_seed = true;
    else if (!std::strcmp(o, "--n")) cfg.n = (uint32_t)v;
    else if (!std::strcmp(o, "--hbm")) cfg.hbm_bytes = v;
    else if (!std::strcmp(o, "--features")) cfg.features = (uint32_t)v;
    else if (!std::strcmp(o, "--idle-exit")) idle_exit = (long)v;
    else return usage("unknown option");
  }
  if (!have_seed) seed = (uint64_t)std::time(nullptr) ^ ((uint64_t)getpid() << 32);
  bd.rng.s = seed;
  for (Fault *f : {&bd.rx, &bd.tx}) {
    f->drop_phase = f->drop ? bd.rng.below(f->drop) : 0;
    f->corrupt_phase = f->corrupt ? bd.rng.below(f->corrupt) : 0;
  }
  if (tessel_transport_model_open(&bd.dev, &cfg) != 0) return usage("the model device did not start");

  if ((bd.fd = tsl_pty_open("uart_dev_model")) < 0) return 1;
  std::fprintf(stderr, "uart_dev_model: seed 0x%016" PRIx64 "\n", seed);

  struct sigaction sa = {};
  sa.sa_handler = on_signal;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  std::vector<uint8_t> frame;
  int64_t last = now_ms();
  while (!g_stop) {
    struct pollfd p = {bd.fd, POLLIN, 0};
    int r = poll(&p, 1, frame.empty() ? 100 : kIdleMs);
    if (r == 0 || (p.revents & POLLHUP && !(p.revents & POLLIN))) {  // quiet, or no host attached
      frame.clear();
      if (idle_exit && now_ms() - last > idle_exit * 1000) break;
      if (r) poll(nullptr, 0, 20);
      continue;
    }
    uint8_t buf[512];
    ssize_t n = read(bd.fd, buf, sizeof buf);
    if (n <= 0) continue;
    last = now_ms();
    for (ssize_t i = 0; i < n; i++) {
      uint8_t b = buf[i];
      if (!fault(bd, bd.rx, &b)) continue;
      if (frame.empty() && b != TESSEL_UART_SYNC_REQ) continue;  // hunting for SYNC
      frame.push_back(b);
      if (frame.size() >= TESSEL_UART_HDR_BYTES && frame.size() == frame_len(frame)) {
        serve(bd, frame);
        frame.clear();
        break;  // the rest of buf arrived while the request was served: lost
      }
    }
  }
  std::fprintf(stderr, "uart_dev_model: %" PRIu64 " requests, %" PRIu64 " bytes dropped, %" PRIu64 " corrupted\n",
               bd.requests, bd.dropped, bd.corrupted);
  bd.dev.close(bd.dev.ctx);
  return 0;
}
