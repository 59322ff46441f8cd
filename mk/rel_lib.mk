# The host library's reliability rules (tests/rel/test_lib.c, tests/rel/prop.c; docs/reliability.md):
#   make test-rel-lib-model   in-flight commands, tessel_gemm's reasons, the reserved region, the
#                             firmware's own check, tessel_reset (also in checking mode); model
#   make test-rel-lib-sim     the same on the Verilated SoC + cp.elf, and bounded waits (a DMA burst
#                             that never completes is reported within 2 000 000 device cycles, with
#                             and without the watchdog)
#   make test-rel-prop-model, -sim, -asan    the property test, short (make test)
#   make test-rel-prop-model-long, -sim-long the same, long (make soak)
# SEED=... replays. (rel.mk defines REL_*, host.mk HOST_LIBS.)

$(REL_OUT)/test_lib: tests/rel/test_lib.c $(REL_HDRS) $(LIBTESSEL)
	@mkdir -p $(@D)
	$(CC) $(REL_CFLAGS) $< $(LIBTESSEL) $(HOST_LIBS) -o $@

TESTS += rel-lib-model rel-lib-sim
.PHONY: test-rel-lib-model test-rel-lib-sim

test-rel-lib-model: $(REL_OUT)/test_lib
	@$< model

test-rel-lib-sim: $(REL_OUT)/test_lib $(FW_ELF)
	@$< sim

# The property test (tests/rel/prop.c): random sequences of allocs, writes, reads, GEMMs, raw valid
# and invalid commands, short timeouts, AXI errors (sim), resets and closes; no TESSEL_OK with a wrong
# result. Short runs in `make test` (and the model run under ASan + UBSan), long ones in `make soak`.
REL_PROP_SHORT_MODEL ?= 200 100
REL_PROP_SHORT_SIM   ?= 6 60
REL_PROP_LONG_MODEL  ?= 2000 100
REL_PROP_LONG_SIM    ?= 40 150

$(REL_OUT)/prop: tests/rel/prop.c hw/model/ref.h $(REL_HDRS) $(LIBTESSEL)
	@mkdir -p $(@D)
	$(CC) $(REL_CFLAGS) -Ihw/model $< $(LIBTESSEL) $(HOST_LIBS) -o $@

# Model only, every host source built into the program with ASan + UBSan (as soak_asan).
$(REL_OUT)/prop_asan: tests/rel/prop.c hw/model/ref.h $(REL_HDRS) $(REL_HOST_SRC)
	@mkdir -p $(@D)
	$(CC) $(REL_CFLAGS) -O1 $(REL_SAN) -DTESSEL_NO_SIM -Ifirmware/cp -Ihw/model $< $(TSL_HOST_ALL_C) -lm -o $@

TESTS += rel-prop-model rel-prop-sim rel-prop-asan
SOAKS += rel-prop-model-long rel-prop-sim-long
.PHONY: test-rel-prop-model test-rel-prop-sim test-rel-prop-asan test-rel-prop-model-long test-rel-prop-sim-long

test-rel-prop-asan: $(REL_OUT)/prop_asan
	@ASAN_OPTIONS=detect_leaks=1 $< model 60 100

test-rel-prop-model: $(REL_OUT)/prop
	@$< model $(REL_PROP_SHORT_MODEL)

test-rel-prop-sim: $(REL_OUT)/prop $(FW_ELF)
	@$< sim $(REL_PROP_SHORT_SIM)

test-rel-prop-model-long: $(REL_OUT)/prop
	@$< model $(REL_PROP_LONG_MODEL)

test-rel-prop-sim-long: $(REL_OUT)/prop $(FW_ELF)
	@$< sim $(REL_PROP_LONG_SIM)
