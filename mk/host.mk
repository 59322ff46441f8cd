# Host library libtessel (host_driver/): $(BUILD)/host/libtessel.a, libtessel.so, tessel.pc.
#   make host-lib              both libraries and tessel.pc (the sim transport included)
#   make host-install PREFIX=/usr/local   lib/, include/tessel.h, lib/pkgconfig/tessel.pc
#                              (`make install PREFIX=...` is the same)
#   make test-host-model       tests/host/test_gemm.c on the model transport (+ checking mode on model)
#   make test-host-sim         the same suite, small shapes, on the Verilated SoC + cp.elf, and
#                              checking mode (TESSEL_OPEN_CHECK) on sim
#   make test-host-asan        the model suite built with -fsanitize=address,undefined (no sim)
#   make test-host-install     installs into a temp PREFIX and builds a program with pkg-config
# SEED=... replays the random tests.
#
# The sim transport needs the Verilated tsl_soc. host.mk Verilates its own position-independent
# copy (same RTL, flags and parameters as mk/soc.mk, plus -fPIC) into $(BUILD)/host/soc once
# (~2-3 minutes) and links those objects (Verilator runtime, TslSocSim, TslHbm, ELF loader) into
# both libraries. HOST_SIM=0 builds the library without them: tessel_open("sim") then returns
# TESSEL_ENODEV.

HOST_OUT     := $(BUILD)/host
HOST_OBJ     := $(HOST_OUT)/obj
HOST_SOCDIR  := $(HOST_OUT)/soc
HOST_SIM     ?= 1
PREFIX       ?= /usr/local
HOST_VERSION := 0.1.0

HOST_SRCS    := host_driver/src/tessel.c host_driver/src/gemm.c host_driver/src/transport_model.c \
                host_driver/src/transport_uart.c host_driver/src/elf_image.c \
                host_driver/src/tessel_hostcp.c
HOST_HDRS    := host_driver/include/tessel.h host_driver/src/tessel_int.h host_driver/src/tessel_uart.h \
                host_driver/src/elf_image.h host_driver/src/tessel_hostcp.h
HOST_FW_SRCS := firmware/cp/tsl_cp.c firmware/cp/tsl_cp_sched.c firmware/cp/tsl_cp_gemm.c \
                firmware/cp/tsl_cp_ops.c firmware/cp/tsl_cp_hal_model.c firmware/cp/tsl_cp_hostif.c
HOST_ALL_C   := $(HOST_SRCS) $(HOST_FW_SRCS) hw/model/tslm.c hw/model/tslm_arith.c
HOST_DEP_H   := $(HOST_HDRS) $(wildcard firmware/cp/*.h) hw/model/tslm.h hw/model/tslm_arith.h \
                hw/include/tsl_hw.h hw/include/tsl_insn.h
HOST_INC     := -Ihost_driver/include -Ihost_driver/src -Ifirmware/cp -Ihw/model -Ihw/include
HOST_CFLAGS  := $(CFLAGS_COMMON) -ffp-contract=off -fPIC -fvisibility=hidden $(HOST_INC)
HOST_FW_PATH := $(abspath $(BUILD)/fw/cp.elf)
HOST_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
HOST_LIBS    := -lm
ifeq ($(HOST_SIM),1)
HOST_LIBS    += -lstdc++ -lz -lpthread
else
HOST_CFLAGS  += -DTESSEL_NO_SIM
endif

# One object per source (the library is self-contained: model + native firmware inside).
HOST_OBJS    := $(addprefix $(HOST_OBJ)/,$(notdir $(HOST_ALL_C:.c=.o)))
define HOST_CC_RULE
$(HOST_OBJ)/$(notdir $(1:.c=.o)): $(1) $(HOST_DEP_H) mk/host.mk
	@mkdir -p $$(@D)
	$(CC) $(HOST_CFLAGS) -c $(1) -o $$@
endef
$(foreach s,$(HOST_ALL_C),$(eval $(call HOST_CC_RULE,$(s))))

# --- the Verilated SoC, position independent ---------------------------------------------------
HOST_SOC_CPP  := hw/sim/soc/tsl_soc_sim.cpp hw/sim/core/tsl_elf.cpp hw/sim/tc/tsl_hbm.cpp
HOST_SOC_OBJN := verilated.o verilated_dpi.o verilated_fst_c.o verilated_threads.o \
                 tsl_soc_sim.o tsl_elf.o tsl_hbm.o
HOST_VROOT     = $(shell $(or $(VERILATOR),verilator) --getenv VERILATOR_ROOT)
HOST_SOC_STAMP := $(HOST_SOCDIR)/objs.stamp
HOST_SOC_DEPS := $(shell find hw/rtl -name '*.sv' 2>/dev/null) $(HOST_SOC_CPP) hw/sim/soc/tsl_soc_sim.h \
                 hw/sim/core/tsl_elf.h hw/sim/tc/tsl_hbm.h hw/sim/tc/tsl_axi_pins.h hw/include/tsl_hw.h

# The archive is removed first: ar adds to an existing one, and a rebuild names its objects anew.
$(HOST_SOC_STAMP): $(HOST_SOC_DEPS)
	@mkdir -p $(HOST_SOCDIR) && rm -f $(HOST_SOCDIR)/Vtsl_soc__ALL.a
	@echo "  VERILATE tsl_soc (-fPIC) -> $(HOST_SOCDIR) (log: $(HOST_SOCDIR)/build.log)"
	@{ $(VERILATOR) --cc --exe $(SOC_VFLAGS) $(SOC_PARAMS) -Mdir $(HOST_SOCDIR) \
	    -CFLAGS "-fPIC $(SOC_CFLAGS)" -o unused $(SOC_RTL) $(abspath $(HOST_SOC_CPP)) && \
	  $(MAKE) --no-print-directory -C $(HOST_SOCDIR) -f Vtsl_soc.mk -j 2 OPT_FAST=-O2 \
	    Vtsl_soc__ALL.a $(HOST_SOC_OBJN); } >$(HOST_SOCDIR)/build.log 2>&1 || \
	  { tail -40 $(HOST_SOCDIR)/build.log; exit 1; }
	@touch $@

$(HOST_OBJ)/transport_sim.o: host_driver/src/transport_sim.cpp $(HOST_HDRS) hw/sim/soc/tsl_soc_sim.h \
                             hw/sim/tc/tsl_hbm.h hw/sim/tc/tsl_axi_pins.h mk/host.mk
	@mkdir -p $(@D)
	$(CXX) -std=c++14 -O2 -g -Wall -Wextra -Werror -fPIC -fvisibility=hidden $(HOST_INC) \
	  -Ihw/sim/soc -Ihw/sim/tc -isystem $(HOST_VROOT)/include -isystem $(HOST_VROOT)/include/vltstd -DSOC_N=$(SOC_N) -DSOC_BF16=$(SOC_BF16) -DSOC_VMEM=$(SOC_VMEM) \
	  -DSOC_ACC=$(SOC_ACC) -DSOC_HBM=$(SOC_HBM) -DTESSEL_FW_DEFAULT='"$(HOST_FW_PATH)"' -c $< -o $@

HOST_WA      := -Wl,--whole-archive
HOST_NWA     := -Wl,--no-whole-archive
ifeq ($(HOST_SIM),1)
HOST_SIM_OBJS := $(HOST_OBJ)/transport_sim.o
HOST_SIM_DEPS := $(HOST_SIM_OBJS) $(HOST_SOC_STAMP)
HOST_SIM_LINK := $(HOST_SIM_OBJS) $(addprefix $(HOST_SOCDIR)/,$(HOST_SOC_OBJN)) $(HOST_SOCDIR)/Vtsl_soc__ALL.a
endif

$(HOST_OUT)/libtessel.a: $(HOST_OBJS) $(HOST_SIM_DEPS)
	@rm -f $@
	@rm -rf $(HOST_OUT)/ar && mkdir -p $(HOST_OUT)/ar
	@$(if $(HOST_SIM_OBJS),cd $(HOST_OUT)/ar && $(AR) x $(abspath $(HOST_SOCDIR)/Vtsl_soc__ALL.a))
	$(AR) rcs $@ $(HOST_OBJS) $(filter %.o,$(HOST_SIM_LINK)) $(if $(HOST_SIM_OBJS),$(HOST_OUT)/ar/*.o)

# Only tessel_* is exported (the Verilator runtime, the model and the firmware stay internal).
$(HOST_OUT)/libtessel.so: $(HOST_OBJS) $(HOST_SIM_DEPS)
	@printf '{ global: tessel_*; local: *; };\n' >$(HOST_OUT)/libtessel.map
	$(CXX) -shared -Wl,-soname,libtessel.so.0 -Wl,--no-undefined -Wl,--version-script=$(HOST_OUT)/libtessel.map \
	  -o $@ $(HOST_OBJS) \
	  $(if $(HOST_SIM_OBJS),$(HOST_WA) $(HOST_SIM_LINK) $(HOST_NWA)) $(HOST_LIBS)

$(HOST_OUT)/tessel.pc: mk/host.mk
	@mkdir -p $(@D)
	@printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$${prefix}/lib' 'includedir=$${prefix}/include' '' \
	  'Name: tessel' 'Description: host library of the Tessel TPU (model and sim transports)' \
	  'Version: $(HOST_VERSION)' 'Libs: -L$${libdir} -ltessel' 'Libs.private: $(HOST_LIBS)' \
	  'Cflags: -I$${includedir}' >$@

host-lib: $(HOST_OUT)/libtessel.a $(HOST_OUT)/libtessel.so $(HOST_OUT)/tessel.pc

# tessel.pc records PREFIX, so it is rewritten for every install.
host-install install: $(HOST_OUT)/libtessel.a $(HOST_OUT)/libtessel.so
	@rm -f $(HOST_OUT)/tessel.pc && $(MAKE) --no-print-directory $(HOST_OUT)/tessel.pc PREFIX=$(PREFIX)
	install -d $(PREFIX)/lib $(PREFIX)/include $(PREFIX)/lib/pkgconfig
	install -m 644 $(HOST_OUT)/libtessel.a $(PREFIX)/lib/libtessel.a
	install -m 755 $(HOST_OUT)/libtessel.so $(PREFIX)/lib/libtessel.so.0
	ln -sf libtessel.so.0 $(PREFIX)/lib/libtessel.so
	install -m 644 host_driver/include/tessel.h $(PREFIX)/include/tessel.h
	install -m 644 $(HOST_OUT)/tessel.pc $(PREFIX)/lib/pkgconfig/tessel.pc

# --- tests -------------------------------------------------------------------------------------
HOST_TEST_DEPS := tests/host/test_gemm.c tests/model/ref.h tests/model/test_util.h $(HOST_HDRS) mk/host.mk
HOST_TEST_CFLAGS := $(CFLAGS_COMMON) -ffp-contract=off -Ihost_driver/include -Itests/model -Ihw/include

$(HOST_OUT)/test_gemm: $(HOST_TEST_DEPS) $(HOST_OUT)/libtessel.a
	$(CC) $(HOST_TEST_CFLAGS) tests/host/test_gemm.c $(HOST_OUT)/libtessel.a $(HOST_LIBS) -o $@

# ASan/UBSan: every source (driver, firmware, model) rebuilt with the sanitizers, model only.
$(HOST_OUT)/test_gemm_asan: $(HOST_TEST_DEPS) $(HOST_ALL_C) $(HOST_DEP_H)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -ffp-contract=off -O1 $(HOST_SAN) -DTESSEL_NO_SIM $(HOST_INC) -Itests/model \
	  tests/host/test_gemm.c $(HOST_ALL_C) -lm -o $@

TESTS += host-model host-sim host-asan host-install
.PHONY: host-lib host-install install test-host-model test-host-sim test-host-asan test-host-install

test-host-model: $(HOST_OUT)/test_gemm
	@$< model

test-host-sim: $(HOST_OUT)/test_gemm $(FW_OUT)/cp.elf
	@$< sim

test-host-asan: $(HOST_OUT)/test_gemm_asan
	@ASAN_OPTIONS=detect_leaks=1 $< model

test-host-install: host-lib
	@d=$$(mktemp -d); trap 'rm -rf $$d' EXIT; p=0; f=0; \
	if $(MAKE) --no-print-directory -s host-install PREFIX=$$d/usr >$$d/install.log 2>&1; then p=$$((p+1)); \
	else f=$$((f+1)); echo "FAIL: make host-install"; cat $$d/install.log; fi; \
	printf '%s\n' '#include <tessel.h>' '#include <stdio.h>' \
	  'int main(void) { tessel_dev_t *d; tessel_addr_t a; int32_t v = 42, r = 0;' \
	  '  if (tessel_open(&d, "model", NULL) || tessel_alloc(d, 64, 64, &a) || tessel_write(d, a, &v, 4) ||' \
	  '      tessel_read(d, &r, a, 4) || r != 42) return 1;' \
	  '  tessel_close(d); puts("ok"); return 0; }' >$$d/t.c; \
	export PKG_CONFIG_PATH=$$d/usr/lib/pkgconfig; \
	if $(CC) -o $$d/t_shared $$d/t.c $$(pkg-config --cflags --libs tessel) && \
	   LD_LIBRARY_PATH=$$d/usr/lib $$d/t_shared | grep -qx ok; then p=$$((p+1)); \
	else f=$$((f+1)); echo "FAIL: shared link with pkg-config --cflags --libs tessel"; fi; \
	if $(CC) -static-libgcc -o $$d/t_static $$d/t.c $$(pkg-config --cflags tessel) $$d/usr/lib/libtessel.a \
	     $$(pkg-config --libs-only-other --libs-only-l --static tessel | sed 's/-ltessel//') && \
	   $$d/t_static | grep -qx ok; then p=$$((p+1)); \
	else f=$$((f+1)); echo "FAIL: static link with pkg-config --static"; fi; \
	echo "host_install: $$p passed, $$f failed"; test $$f -eq 0
