# The host library's reliability rules (tests/rel/test_lib.c; docs/reliability.md):
#   make test-rel-lib-model   in-flight commands, the reserved region, the firmware's own check; model
#   make test-rel-lib-sim     the same on the Verilated SoC + cp.elf, and bounded waits (a DMA burst
#                             that never completes is reported within seconds, with and without the
#                             watchdog)
# SEED=... replays. (rel.mk, host.mk and fw.mk define REL_*, HOST_LIBS and the paths used here.)

$(REL_OUT)/test_lib: tests/rel/test_lib.c $(REL_HDRS) $(REL_LIBT)
	@mkdir -p $(@D)
	$(CC) $(REL_CFLAGS) $< $(REL_LIBT) $(HOST_LIBS) -o $@

TESTS += rel-lib-model rel-lib-sim
.PHONY: test-rel-lib-model test-rel-lib-sim

test-rel-lib-model: $(REL_OUT)/test_lib
	@$< model

test-rel-lib-sim: $(REL_OUT)/test_lib $(REL_FW)
	@$< sim

