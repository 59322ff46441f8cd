# Included by a Verilated model's own makefile (make -f V<top>.mk -f hw/sim/vlink.mk HARNESS=...): links
# another harness, HARNESS.cpp of VM_USER_DIR built with VM_USER_CFLAGS, against the model and the
# Verilator runtime objects already built there, so that two harnesses of one model verilate and
# compile it once. The executable is HARNESS_OUT.
$(HARNESS_OUT): $(HARNESS).o $(VK_GLOBAL_OBJS) $(VM_PREFIX)__ALL.a
	$(LINK) $(LDFLAGS) $^ $(LOADLIBES) $(LDLIBS) $(LIBS) -o $@
