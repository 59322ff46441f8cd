// Lab 1 check: the student's tsl_lab1_pe in an N x N tsl_lab1_array, against exact integer matmul.
// Each run loads a random int8 weight tile (run 0: the extremes -128 and 127), streams a random
// number of random int8 rows back to back and compares every output row, 2N-1 cycles after its row
// went in, with sum_k x[k] * W[k][j]. Prints the seed (SEED= replays) and the first mismatch.
// TRACE=1 writes a waveform (FST, or VCD in the LAB1_VCD build) to $TRACE_FILE.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>

#include "Vtsl_lab1_array.h"
#include "tsl_rng.h"
#include "verilated.h"
#ifdef LAB1_VCD
#include "verilated_vcd_c.h"
typedef VerilatedVcdC Trace;
#elif VM_TRACE
#include "verilated_fst_c.h"
typedef VerilatedFstC Trace;
#endif

static const int LAT = 2 * LAB1_N - 1;  // cycles from a row on x_i to its result on y_o

struct Sim {
  Vtsl_lab1_array top;
  uint64_t cycle = 0;
#if VM_TRACE
  std::unique_ptr<Trace> tr;
#endif
  explicit Sim(const char *trace_file) {
#if VM_TRACE
    if (trace_file) {
      Verilated::traceEverOn(true);
      tr.reset(new Trace);
      top.trace(tr.get(), 99);
      tr->open(trace_file);
    }
#else
    (void)trace_file;
#endif
  }
  ~Sim() {
#if VM_TRACE
    if (tr) tr->close();
#endif
  }
  void tick() {
    top.clk_i = 0;
    top.eval();
#if VM_TRACE
    if (tr) tr->dump(10 * cycle);
#endif
    top.clk_i = 1;
    top.eval();
#if VM_TRACE
    if (tr) tr->dump(10 * cycle + 5);
#endif
    cycle++;
  }
};

// Verilator keeps a port of up to 32, 64 or more bits in a uint32_t, uint64_t or a word array, all
// little-endian on the host: lane k of a packed vector is at byte offset k * lane bytes.
template <typename P> static void set_lane8(P &port, int lane, int8_t v) {
  reinterpret_cast<uint8_t *>(&port)[lane] = (uint8_t)v;
}
template <typename P> static int32_t get_lane32(const P &port, int lane) {
  int32_t v;
  memcpy(&v, reinterpret_cast<const uint8_t *>(&port) + 4 * lane, 4);
  return v;
}

int main(int argc, char **argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 20;
  const char *se = getenv("SEED"), *tr = getenv("TRACE"), *tf = getenv("TRACE_FILE");
  uint64_t seed = se ? strtoull(se, nullptr, 0) : (uint64_t)time(nullptr) * 2654435761u;
  printf("lab1_n%d: seed=0x%016" PRIx64 " (SEED= replays), %d runs\n", LAB1_N, seed, runs);
  TslRng r{seed};
  Sim s(tr && *tr == '1' ? (tf ? tf : "lab1.fst") : nullptr);
  int passed = 0, failed = 0;
  int8_t w[LAB1_N][LAB1_N], x[3 * LAB1_N + LAT][LAB1_N];
  for (int run = 0; run < runs && !failed; run++) {
    // Load the weights, one row per cycle.
    for (int k = 0; k < LAB1_N; k++) {
      for (int j = 0; j < LAB1_N; j++) {
        w[k][j] = run == 0 ? (int8_t)((k + j) % 2 ? 127 : -128) : (int8_t)r.u32();
        set_lane8(s.top.wr_data_i, j, w[k][j]);
      }
      s.top.wr_row_i = 1u << k;
      s.tick();
    }
    s.top.wr_row_i = 0;
    // Stream `rows` rows back to back, then zeros until the last result is out.
    int rows = 1 + (int)r.below(3 * LAB1_N);
    bool ok = true;
    for (int c = 0; c < rows + LAT && ok; c++) {
      for (int k = 0; k < LAB1_N; k++) {
        x[c][k] = c >= rows ? 0 : run == 0 ? (int8_t)(c % 2 ? -128 : 127) : (int8_t)r.u32();
        set_lane8(s.top.x_i, k, x[c][k]);
      }
      s.top.eval();
      int row = c - LAT;
      for (int j = 0; row >= 0 && j < LAB1_N && ok; j++) {
        int32_t want = 0;
        for (int k = 0; k < LAB1_N; k++) want += x[row][k] * w[k][j];
        int32_t got = get_lane32(s.top.y_o, j);
        if (got != want) {
          printf("FAIL seed=0x%016" PRIx64 " run %d: row %d lane %d: expected %d, got %d "
                 "(the array expects one register per PE on x and on psum: results %d cycles after "
                 "the row)\n", seed, run, row, j, want, got, LAT);
          ok = false;
        }
      }
      s.tick();
    }
    if (ok) passed++; else failed++;
  }
  printf("lab1_n%d: %d passed, %d failed\n", LAB1_N, passed, failed);
  return failed ? 1 : 0;
}
