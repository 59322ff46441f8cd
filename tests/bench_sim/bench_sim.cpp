// Simulator-speed benchmark (make bench-sim, mk/bench_sim.mk): simulated cycles per wall-clock
// and per CPU second of the Verilated SoC (one thread, no trace) on a fixed GEMM workload through
// libtessel's sim transport (cp.elf firmware, HBM in and out). Linked against one Verilated SoC
// build, so the same driver measures the default and the int8-only configuration.
//
//   bench_sim LABEL CSV BUILD_S BUILD_MB RUNS COMMIT [M N K]
// Runs an int8 GEMM, and a bf16 one when the device has bf16 (default 128x128x128), RUNS times
// each on the same data; every result is compared byte for byte with the model backend's. Prints
// the machine (CPU model, cores, load average when it starts) and one line per GEMM with the best
// and the median run, and appends one CSV row per GEMM to CSV (the columns are named in the
// header line that make bench-sim writes). Boot (reset to firmware ready) is not timed. Exit 1 on any failure.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include <unistd.h>

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

// The machine: CPU model (commas dropped, for the CSV), online cores, 1-minute load average.
struct Machine {
  std::string cpu = "unknown";
  long cores = 0;
  double load = -1;
};

Machine machine() {
  Machine m;
  if (FILE *f = fopen("/proc/cpuinfo", "r")) {
    char line[512];
    while (fgets(line, sizeof line, f)) {
      const char *colon = strchr(line, ':');
      if (strncmp(line, "model name", 10) != 0 || !colon) continue;
      m.cpu = colon + 1;
      m.cpu.erase(0, m.cpu.find_first_not_of(" \t"));
      m.cpu.erase(m.cpu.find_last_not_of(" \t\n") + 1);
      m.cpu.erase(std::remove(m.cpu.begin(), m.cpu.end(), ','), m.cpu.end());
      break;
    }
    fclose(f);
  }
  m.cores = sysconf(_SC_NPROCESSORS_ONLN);
  if (FILE *f = fopen("/proc/loadavg", "r")) {
    if (fscanf(f, "%lf", &m.load) != 1) m.load = -1;
    fclose(f);
  }
  return m;
}

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

double rate(uint64_t cycles, double s) { return s > 0 ? double(cycles) / s : 0; }

// Median of v (sorted here); the mean of the middle two for an even count.
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 7 && argc != 10) {
    fprintf(stderr, "usage: bench_sim LABEL CSV BUILD_S BUILD_MB RUNS COMMIT [M N K]\n");
    return 2;
  }
  const char *label = argv[1], *csv = argv[2], *build_s = argv[3], *build_mb = argv[4], *commit = argv[6];
  long runs = strtol(argv[5], nullptr, 0);
  if (runs < 1 || runs > 1000) {
    fprintf(stderr, "bench_sim: RUNS must be 1..1000\n");
    return 2;
  }
  uint32_t m = 128, n = 128, k = 128;
  if (argc == 10) {
    m = uint32_t(strtoul(argv[7], nullptr, 0));
    n = uint32_t(strtoul(argv[8], nullptr, 0));
    k = uint32_t(strtoul(argv[9], nullptr, 0));
    if (!m || !n || !k || m > 4096 || n > 4096 || k > 4096) {
      fprintf(stderr, "bench_sim: M, N, K must be 1..4096\n");
      return 2;
    }
  }
  const Machine mach = machine();
  printf("bench_sim: %s at %s on %s, %ld cores, load %.2f at start, best and median of %ld runs\n", label,
         commit, mach.cpu.c_str(), mach.cores, mach.load, runs);
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
    char work[64];
    snprintf(work, sizeof work, "gemm_%s_%ux%ux%u", bf16 ? "bf16" : "int8", m, n, k);
    tessel_dtype_t in = bf16 ? TESSEL_BF16 : TESSEL_INT8, outd = bf16 ? TESSEL_FP32 : TESSEL_INT32;
    tessel_gemm_t g = {m, n, k, in, outd, a.data(), k, b.data(), n, c_model.data(), n, nullptr, 0, 0.0f, 0, 0, 0, TESSEL_EPILOGUE_NONE};
    Run rm;
    ok = gemm(model, g, &rm);
    g.c = c_sim.data();
    std::vector<Run> r(static_cast<size_t>(runs));
    std::vector<double> cps, cpu_cps;
    for (long i = 0; i < runs && ok; i++) {
      std::fill(c_sim.begin(), c_sim.end(), uint8_t(0));
      ok = gemm(sim, g, &r[size_t(i)]);
      if (ok && r[size_t(i)].cycles != r[0].cycles) {
        fprintf(stderr, "bench_sim: %s: %s: run %ld took %" PRIu64 " cycles, run 0 %" PRIu64 "\n", label, work, i,
                r[size_t(i)].cycles, r[0].cycles);
        ok = false;
      }
      if (ok && c_sim != c_model) {
        size_t j = 0;
        while (c_sim[j] == c_model[j]) j++;
        fprintf(stderr, "bench_sim: %s: %s: run %ld: C differs from the model at byte %zu (element %zu)\n", label,
                work, i, j, j / ce);
        ok = false;
      }
      cps.push_back(rate(r[size_t(i)].cycles, r[size_t(i)].wall));
      cpu_cps.push_back(rate(r[size_t(i)].cycles, r[size_t(i)].cpu));
    }
    if (!ok) break;
    // Best run: the least CPU time (the machine is shared; wall time varies with its load).
    const Run &best = *std::min_element(r.begin(), r.end(), [](const Run &x, const Run &y) { return x.cpu < y.cpu; });
    double best_cps = rate(best.cycles, best.wall), best_cpu_cps = rate(best.cycles, best.cpu);
    double med_cps = median(cps), med_cpu_cps = median(cpu_cps);
    printf("bench_sim: %-8s %-22s %9" PRIu64 " cycles, best %6.2f s wall %6.2f s cpu: %7.0f cycles/s"
           " (%.0f per cpu s), median %.0f (%.0f per cpu s); build %s s, %s MB\n",
           label, work, best.cycles, best.wall, best.cpu, best_cps, best_cpu_cps, med_cps, med_cpu_cps, build_s,
           build_mb);
    fprintf(out, "%s,%s,%s,%s,%ld,%.2f,%ld,%" PRIu64 ",%.3f,%.3f,%.0f,%.0f,%.0f,%.0f,%s,%s\n", label, work, commit,
            mach.cpu.c_str(), mach.cores, mach.load, runs, best.cycles, best.wall, best.cpu, best_cps, best_cpu_cps,
            med_cps, med_cpu_cps, build_s, build_mb);
  }
  fclose(out);
  tessel_close(sim);
  tessel_close(model);
  return ok ? 0 : 1;
}
