// Simulator-speed benchmark (make bench-sim, mk/bench_sim.mk): simulated cycles per wall-clock
// second of the Verilated SoC (one thread, no trace) on a fixed GEMM workload through libtessel's
// sim transport (cp.elf firmware, HBM in and out). Linked against one Verilated SoC build, so the
// same driver measures the default and the int8-only configuration.
//
//   bench_sim LABEL CSV BUILD_S BUILD_MB [M N K]
// Runs an int8 GEMM, and a bf16 one when the device has bf16 (default 128x128x128), checks each
// result byte for byte against the model backend, prints one line per GEMM and appends one CSV row
// per GEMM to CSV (config, workload, cycles, wall_s, cpu_s, cycles_per_s, cycles_per_cpu_s,
// build_s, build_peak_mb). Boot (reset to firmware ready) is not timed. Exit 1 on any failure.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include "tessel.h"
#include "tsl_hw.h"
#include "tsl_rng.h"

namespace {

double clock_s(clockid_t id) {
  timespec t;
  clock_gettime(id, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

struct Run {
  uint64_t cycles = 0;
  double wall = 0, cpu = 0;
};

// One GEMM on dev into c; cycles from the device's completion counters.
bool gemm(tessel_dev_t *dev, const tessel_gemm_t &g, Run *r) {
  tessel_stats_reset(dev);
  double w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
  tessel_status_t st = tessel_gemm(dev, &g, nullptr);
  r->wall = clock_s(CLOCK_MONOTONIC) - w0;
  r->cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
  tessel_stats_t s;
  if (st != TESSEL_OK || tessel_stats(dev, &s) != TESSEL_OK) {
    fprintf(stderr, "bench_sim: gemm failed: %s (%s)\n", tessel_strerror(st), tessel_last_error(dev));
    return false;
  }
  r->cycles = s.cycles;
  return true;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 5 && argc != 8) {
    fprintf(stderr, "usage: bench_sim LABEL CSV BUILD_S BUILD_MB [M N K]\n");
    return 2;
  }
  const char *label = argv[1], *csv = argv[2], *build_s = argv[3], *build_mb = argv[4];
  uint32_t m = 128, n = 128, k = 128;
  if (argc == 8) {
    m = uint32_t(strtoul(argv[5], nullptr, 0));
    n = uint32_t(strtoul(argv[6], nullptr, 0));
    k = uint32_t(strtoul(argv[7], nullptr, 0));
    if (!m || !n || !k || m > 4096 || n > 4096 || k > 4096) {
      fprintf(stderr, "bench_sim: M, N, K must be 1..4096\n");
      return 2;
    }
  }
  tessel_dev_t *sim = nullptr, *model = nullptr;
  if (tessel_open(&sim, "sim", nullptr) != TESSEL_OK || tessel_open(&model, "model", nullptr) != TESSEL_OK) {
    fprintf(stderr, "bench_sim: cannot open the sim and model devices (%s)\n", tessel_last_error(sim));
    tessel_close(sim);
    return 1;
  }
  tessel_info_t info;
  if (tessel_info(sim, &info) != TESSEL_OK) {
    fprintf(stderr, "bench_sim: tessel_info failed\n");
    return 1;
  }
  FILE *out = fopen(csv, "a");
  if (!out) {
    fprintf(stderr, "bench_sim: cannot append to %s\n", csv);
    return 1;
  }
  TslRng rng{0x5eed};
  bool ok = true;
  for (int bf16 = 0; bf16 <= 1 && ok; bf16++) {
    if (bf16 && !(info.features & (1u << TSL_TC_CFG_FEATURES_BF16_SHIFT))) break;
    size_t es = bf16 ? sizeof(float) : 1, ce = sizeof(int32_t);
    std::vector<uint8_t> a(size_t(m) * k * es), b(size_t(k) * n * es);
    std::vector<uint8_t> c_sim(size_t(m) * n * ce), c_model(c_sim.size());
    auto fill = [&](std::vector<uint8_t> &v) {  // int8: any byte; bf16: multiples of 1/256 in +-4
      for (size_t i = 0; i < v.size() / es; i++) {
        if (bf16) {
          float f = float(int32_t(rng.below(2001)) - 1000) / 256.0f;
          memcpy(&v[i * es], &f, es);
        } else {
          v[i] = uint8_t(rng.next());
        }
      }
    };
    fill(a);
    fill(b);
    tessel_dtype_t in = bf16 ? TESSEL_BF16 : TESSEL_INT8, outd = bf16 ? TESSEL_FP32 : TESSEL_INT32;
    tessel_gemm_t g = {m, n, k, in, outd, a.data(), k, b.data(), n, c_sim.data(), n, nullptr, 0, 0.0f, 0, 0, 0};
    Run r, rm;
    ok = gemm(sim, g, &r);
    g.c = c_model.data();
    ok = ok && gemm(model, g, &rm);
    if (ok && c_sim != c_model) {
      size_t i = 0;
      while (c_sim[i] == c_model[i]) i++;
      fprintf(stderr, "bench_sim: %s: C differs from the model at byte %zu (element %zu)\n", label, i, i / ce);
      ok = false;
    }
    if (!ok) break;
    char work[64];
    snprintf(work, sizeof work, "gemm_%s_%ux%ux%u", bf16 ? "bf16" : "int8", m, n, k);
    double cps = r.wall > 0 ? double(r.cycles) / r.wall : 0, cpu_cps = r.cpu > 0 ? double(r.cycles) / r.cpu : 0;
    printf("bench_sim: %-8s %-22s %9" PRIu64 " cycles %7.2f s wall %7.2f s cpu %9.0f cycles/s (%.0f per cpu s)"
           ", build %s s, %s MB\n",
           label, work, r.cycles, r.wall, r.cpu, cps, cpu_cps, build_s, build_mb);
    fprintf(out, "%s,%s,%" PRIu64 ",%.3f,%.3f,%.0f,%.0f,%s,%s\n", label, work, r.cycles, r.wall, r.cpu, cps,
            cpu_cps, build_s, build_mb);
  }
  fclose(out);
  tessel_close(sim);
  tessel_close(model);
  return ok ? 0 : 1;
}
