// A Verilated FPGA top as a board on a pseudo-terminal, reached only through its UART pins: bytes
// the host writes to the pty are driven onto uart_rx_i as 8N1 at BOARD_CPB clocks per bit
// (TslUartLine), and uart_tx_o is decoded (TslUartRx) back to the pty. The top is one of:
//   tsl_fpga_top (default; the core of the Arty build: UART bridge + tsl_soc + on-chip HBM). Like a
//     board after power-on it holds its cores in BOOT.HOLD until the host loads the firmware over
//     the line (tessel --firmware). A trap of the control core is reported on stderr.
//   tsl_ice40_top (BOARD_ICE40=1; the iCEBreaker bitstream's RTL: UART bridge + lite tensor core +
//     SPRAM HBM, no control core). The host runs the command processor (libtessel's uart transport).
//   board_sim [--idle-exit SEC] [--hangup-after BYTES]
// Prints the pty's slave path on the first line of stdout, then clocks the board until killed
// (SIGTERM/SIGINT), until the host sent nothing for --idle-exit seconds, or (a board unplugged)
// once the host has sent BYTES bytes. The last line on stderr counts the cycles and the bytes.
#include <signal.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tsl_pty.h"
#include "tsl_uart_sim.h"
#include "verilated.h"

#ifndef BOARD_CPB
#error "BOARD_CPB must match the Verilated ClksPerBit"
#endif
#if BOARD_ICE40
#include "Vtsl_ice40_top.h"
using Top = Vtsl_ice40_top;
#else
#include "Vtsl_fpga_top.h"
using Top = Vtsl_fpga_top;
#endif

namespace {
const int kBatch = 512;  // cycles between two looks at the pty
volatile sig_atomic_t g_stop = 0;

void on_signal(int) { g_stop = 1; }

}  // namespace

int main(int argc, char **argv) {
  Verilated::commandArgs(argc, argv);
  long idle_exit = 0, hangup_after = 0;
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 < argc && !std::strcmp(argv[i], "--idle-exit")) idle_exit = std::atol(argv[i + 1]);
    else if (i + 1 < argc && !std::strcmp(argv[i], "--hangup-after")) hangup_after = std::atol(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: board_sim [--idle-exit SEC] [--hangup-after BYTES]\n");
      return 2;
    }
  }
  Top top;
  TslUartLine line{BOARD_CPB};
  TslUartRx rx{BOARD_CPB};
#if BOARD_ICE40
  top.btn_ni = 1;  // the top resets itself at power-on
#else
  top.rst_ni = 0;
#endif
  top.uart_rx_i = 1;
  top.clk_i = 0;
  top.eval();
  auto step = [&] {
    top.uart_rx_i = line.pin();
    top.clk_i = 1;
    top.eval();
    top.clk_i = 0;
    top.eval();
    rx.sample(top.uart_tx_o);
  };
  for (int i = 0; i < 4; i++) step();
#if !BOARD_ICE40
  top.rst_ni = 1;
#endif

  int fd = tsl_pty_open("board_sim");
  if (fd < 0) return 1;
  struct sigaction sa = {};
  sa.sa_handler = on_signal;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  using clock = std::chrono::steady_clock;
  auto last = clock::now();
  uint64_t cycles = 0, bytes_in = 0;
#if !BOARD_ICE40
  bool trapped = false;
#endif
  while (!g_stop) {
    for (int i = 0; i < kBatch; i++) step();
    cycles += kBatch;
    if (!rx.got.empty()) {
      tsl_pty_write(fd, rx.got.data(), rx.got.size());  // a host that went away misses it
      rx.got.clear();
    }
    uint8_t buf[256];
    ssize_t n = read(fd, buf, sizeof buf);  // -1 (EAGAIN, or EIO with no host attached): nothing
    for (ssize_t i = 0; i < n; i++) line.send(buf[i]);
    if (n > 0) bytes_in += n;
    if (hangup_after && bytes_in >= uint64_t(hangup_after)) break;
    if (n > 0) last = clock::now();
    else if (idle_exit && clock::now() - last > std::chrono::seconds(idle_exit)) break;
#if !BOARD_ICE40
    if (top.trap_o && !trapped) {
      trapped = true;
      std::fprintf(stderr, "board_sim: the control core trapped (cycle %" PRIu64 ")\n", cycles);
    }
#endif
  }
  std::fprintf(stderr, "board_sim: %" PRIu64 " cycles, %" PRIu64 " bytes from the host\n", cycles, bytes_in);
  top.final();
  return 0;
}
