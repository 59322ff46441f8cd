# Pods (docs/pod.md): chips joined by ICI and their collectives, on the model backend and the sim pod.
#   make test-pod-model   tests/host/test_pod.c against libtessel: on the model, the ISA's SEND and
#                         SEMWAIT, random collectives against docs/pod.md's reduction order, faults and
#                         bad calls; then on three sim pods (a 2- and a 4-chip ring, a 2x2 torus: Verilated
#                         SoCs joined by links), $POD_SIM_CASES random collectives each (default 6; 0:
#                         none) against the same reference, bit for bit
#   make test-pod-tsan    the model's part, every source rebuilt with ThreadSanitizer (the chips of a
#                         pod run on threads of their own) and without the sim, fewer cases
POD_TEST_DEPS := tests/host/test_pod.c hw/model/ref.h tests/model/test_util.h $(HOST_HDRS) mk/pod.mk

$(HOST_OUT)/test_pod: $(POD_TEST_DEPS) $(LIBTESSEL)
	$(CC) $(HOST_TEST_CFLAGS) tests/host/test_pod.c $(LIBTESSEL) $(HOST_LIBS) -lpthread -o $@

$(HOST_OUT)/test_pod_tsan: $(POD_TEST_DEPS) $(HOST_ALL_C) $(HOST_DEP_H)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -ffp-contract=off -O1 -fsanitize=thread -DTESSEL_NO_SIM $(HOST_INC) -Itests/model \
	  tests/host/test_pod.c $(HOST_ALL_C) -lm -lpthread -o $@

TESTS += pod-model pod-tsan
.PHONY: test-pod-model test-pod-tsan
test-pod-model: $(HOST_OUT)/test_pod
	@$<

test-pod-tsan: $(HOST_OUT)/test_pod_tsan
	@POD_CASES=12 TSAN_OPTIONS=halt_on_error=1 $<
