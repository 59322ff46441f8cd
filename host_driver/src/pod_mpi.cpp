// libtessel_mpi: a sim pod over the ranks of an Open MPI job (tessel_mpi.h, docs/pod.md, "The Open
// MPI pod"). Each rank runs the same TslPodSim of the whole pod and simulates its block of chips;
// MpiNet carries the batches of the links between ranks (TslPodSim::deliver) on a communicator of
// their own, and the ranks' agreements (max) on another, so that neither waits behind the other.
#include <mpi.h>

#include <cstdio>
#include <new>
#include <vector>

#include "tessel_int.h"
#include "tessel_mpi.h"
#include "tsl_soc_sim.h"

namespace {
class MpiNet : public TslPodNet {
 public:
  MpiNet(unsigned chips, int rank, int ranks) : chips_(chips), rank_(rank), ranks_(ranks) {
    MPI_Comm_dup(MPI_COMM_WORLD, &links_);
    MPI_Comm_dup(MPI_COMM_WORLD, &agree_);
  }
  ~MpiNet() override {
    MPI_Comm_free(&links_);
    MPI_Comm_free(&agree_);
  }
  unsigned rank() const override { return unsigned(rank_); }
  unsigned owner(unsigned chip) const override { return unsigned(uint64_t(chip) * ranks_ / chips_); }
  void send(unsigned rank, const void *buf, size_t bytes) override {
    MPI_Send(buf, int(bytes), MPI_BYTE, int(rank), 0, links_);
  }
  bool poll(std::vector<uint8_t> *msg) override {
    int flag = 0, n = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, 0, links_, &flag, &st);
    if (!flag) return false;
    MPI_Get_count(&st, MPI_BYTE, &n);
    msg->resize(size_t(n));
    MPI_Recv(msg->data(), n, MPI_BYTE, st.MPI_SOURCE, 0, links_, MPI_STATUS_IGNORE);
    return true;
  }
  uint64_t max(uint64_t v) override {
    uint64_t m = v;
    MPI_Allreduce(&v, &m, 1, MPI_UINT64_T, MPI_MAX, agree_);
    return m;
  }

 private:
  unsigned chips_;
  int rank_, ranks_;
  MPI_Comm links_, agree_;
};

uint32_t net_owner(void *net, uint32_t chip) { return static_cast<MpiNet *>(net)->owner(chip); }
uint64_t net_max(void *net, uint64_t v) { return static_cast<MpiNet *>(net)->max(v); }
void net_free(void *net) { delete static_cast<MpiNet *>(net); }
}  // namespace

tessel_status_t tessel_pod_open_mpi(tessel_pod_t **pod, uint32_t chips, tessel_topology_t topology, uint32_t dx,
                                    uint32_t dy) {
  int up = 0, level = 0, rank = 0, ranks = 1;
  char why[160];
  if (pod) *pod = nullptr;
  MPI_Initialized(&up);
  if (up) MPI_Query_thread(&level);
  if (!up || level != MPI_THREAD_MULTIPLE) {
    tessel_pod_open_error("tessel_pod_open_mpi: MPI is not initialised with MPI_THREAD_MULTIPLE (MPI_Init_thread)");
    return TESSEL_EINVAL;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (uint32_t(ranks) > chips) {
    std::snprintf(why, sizeof why, "tessel_pod_open_mpi: %d ranks for %u chips: each rank needs a chip", ranks, chips);
    tessel_pod_open_error(why);
    return TESSEL_EINVAL;
  }
  MpiNet *net = new (std::nothrow) MpiNet(chips, rank, ranks);
  if (!net) return TESSEL_ENOMEM;
  tessel_pod_net_t n = {net, uint32_t(rank), net_owner, net_max, net_free};
  return tessel_pod_open_net(pod, chips, topology, dx, dy, &n);
}
