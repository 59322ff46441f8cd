# Pods (docs/pod.md): chips joined by ICI and their collectives, on the model backend and the sim pod.
#   make test-pod-model   tests/host/test_pod.c against libtessel: on the model, the ISA's SEND and
#                         SEMWAIT, random collectives against docs/pod.md's reduction order, faults and
#                         bad calls; then on three sim pods (a 2- and a 4-chip ring, a 2x2 torus: Verilated
#                         SoCs joined by links), $POD_SIM_CASES random collectives each (default 6; 0:
#                         none) against the same reference, bit for bit
#   make test-pod-tsan    the model's part, every source rebuilt with ThreadSanitizer (the chips of a
#                         pod run on threads of their own) and without the sim, fewer cases
#   make test-pod-mpi     tests/host/test_pod_mpi.c on 2 Open MPI ranks: a 4-chip sim ring and a 2x2
#                         torus split between them against the same pods in one process, bit for bit
#                         and cycle for cycle
#   make soak: test-pod-sim-soak (test_pod's random collectives on an 8-chip sim ring and the 2x4 and
#                         4x2 tori) and test-pod-mpi-soak (an 8-chip ring and 2x4 torus on 4 ranks,
#                         three rounds of larger collectives)
# libtessel_mpi.a (host_driver/src/pod_mpi.cpp, tessel_mpi.h): tessel_pod_open_mpi, built with mpicxx.
POD_TEST_DEPS := tests/host/test_pod.c hw/model/ref.h tests/model/test_util.h $(HOST_HDRS) mk/pod.mk

$(HOST_OUT)/test_pod: $(POD_TEST_DEPS) $(LIBTESSEL)
	$(CC) $(HOST_TEST_CFLAGS) tests/host/test_pod.c $(LIBTESSEL) $(HOST_LIBS) -lpthread -o $@

$(HOST_OUT)/test_pod_tsan: $(POD_TEST_DEPS) $(HOST_ALL_C) $(HOST_DEP_H)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -ffp-contract=off -O1 -fsanitize=thread -DTESSEL_NO_SIM $(HOST_INC) -Itests/model \
	  tests/host/test_pod.c $(HOST_ALL_C) -lm -lpthread -o $@

MPICC  ?= mpicc
MPICXX ?= mpicxx
MPIRUN ?= mpirun --allow-run-as-root --oversubscribe
LIBTESSEL_MPI := $(HOST_OUT)/libtessel_mpi.a

$(LIBTESSEL_MPI): host_driver/src/pod_mpi.cpp host_driver/include/tessel_mpi.h $(HOST_HDRS) hw/sim/soc/tsl_soc_sim.h \
                  mk/pod.mk
	@mkdir -p $(HOST_OBJ)
	$(MPICXX) -std=c++14 -O2 -g -Wall -Wextra -Werror -DOMPI_SKIP_MPICXX $(HOST_INC) -Ihw/sim/soc -c $< -o $(HOST_OBJ)/pod_mpi.o
	@rm -f $@
	$(AR) rcs $@ $(HOST_OBJ)/pod_mpi.o

$(HOST_OUT)/test_pod_mpi: tests/host/test_pod_mpi.c $(POD_TEST_DEPS) host_driver/include/tessel_mpi.h $(LIBTESSEL_MPI) \
                          $(LIBTESSEL)
	$(MPICC) $(HOST_TEST_CFLAGS) tests/host/test_pod_mpi.c $(LIBTESSEL_MPI) $(LIBTESSEL) $(HOST_LIBS) -lpthread -o $@

TESTS += pod-model pod-tsan pod-mpi
.PHONY: test-pod-model test-pod-tsan test-pod-mpi
test-pod-model: $(HOST_OUT)/test_pod
	@$<

test-pod-tsan: $(HOST_OUT)/test_pod_tsan
	@POD_CASES=12 TSAN_OPTIONS=halt_on_error=1 $<

test-pod-mpi: $(HOST_OUT)/test_pod_mpi
	@$(MPIRUN) -np 2 $<

SOAKS += pod-sim-soak pod-mpi-soak
.PHONY: test-pod-sim-soak test-pod-mpi-soak
test-pod-sim-soak: $(HOST_OUT)/test_pod
	@POD_SIM_SHAPES=8,2x4,4x2 POD_SIM_CASES=8 $<

test-pod-mpi-soak: $(HOST_OUT)/test_pod_mpi
	@POD_MPI_CHIPS=8 POD_MPI_ROUNDS=3 POD_MPI_COUNT=20000 $(MPIRUN) -np 4 $<
