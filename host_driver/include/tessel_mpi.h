/* Tessel pods larger than one process: a sim pod whose chips are spread over the ranks of an Open MPI
 * job (docs/pod.md, "The Open MPI pod"). Link libtessel_mpi.a before libtessel.a, with mpicc. */
#ifndef TESSEL_MPI_H
#define TESSEL_MPI_H

#include "tessel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* tessel_pod_open(pod, "sim", chips, topology, dx, dy) over the ranks of MPI_COMM_WORLD: rank r
 * simulates chips [r * chips / ranks, (r + 1) * chips / ranks), and the links between chips of
 * different ranks carry their packets over MPI. Every rank calls it, and every later tessel_pod_*
 * call on the pod, with the same arguments and in the same order; tessel_pod_device(pod, i) is
 * NULL for a chip of another rank, so each rank writes and reads its own chips. The results and
 * cycles are those of the pod in one process. Needs MPI_Init_thread with MPI_THREAD_MULTIPLE, and
 * at most as many ranks as chips. tessel_last_error(NULL) says why it failed. */
__attribute__((warn_unused_result)) tessel_status_t tessel_pod_open_mpi(tessel_pod_t **pod, uint32_t chips,
                                                                        tessel_topology_t topology, uint32_t dx,
                                                                        uint32_t dy);

#ifdef __cplusplus
}
#endif
#endif
