# Pods (docs/pod.md): chips joined by ICI and their collectives, on the model backend.
#   make test-pod-model   tests/host/test_pod.c against libtessel: the ISA's SEND and SEMWAIT, random
#                         collectives against docs/pod.md's reduction order, faults and bad calls
#   make test-pod-tsan    the same, every source rebuilt with ThreadSanitizer (the chips of a pod run
#                         on threads of their own), fewer cases
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
