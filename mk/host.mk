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
# The sim transport needs the Verilated tsl_soc: both libraries hold the objects of the one
# position-independent build of mk/soc.mk ($(SOC_SIM): Verilator runtime, the model, TslSocSim,
# TslHbm; the ELF loader is common/elf_image.c, in libtessel). HOST_SIM=0 builds the library without
# them: tessel_open("sim") then returns TESSEL_ENODEV.

HOST_OUT     := $(patsubst %/,%,$(dir $(LIBTESSEL)))
HOST_OBJ     := $(HOST_OUT)/obj
PREFIX       ?= /usr/local
HOST_VERSION := 0.1.0

HOST_HDRS    := $(TSL_HOST_HDRS)
HOST_ALL_C   := $(TSL_HOST_ALL_C)
HOST_DEP_H   := $(TSL_HOST_ALL_H)
HOST_INC     := -Ihost_driver/include -Ihost_driver/src -Icommon -Ifirmware/cp -Ihw/model -Ihw/include
HOST_CFLAGS  := $(CFLAGS_COMMON) -ffp-contract=off -fPIC -fvisibility=hidden $(HOST_INC)
HOST_FW_PATH := $(abspath $(FW_ELF))
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

# --- the sim transport, on the Verilated SoC of mk/soc.mk -----------------------------------------
HOST_VROOT    = $(shell $(VERILATOR) --getenv VERILATOR_ROOT)

$(HOST_OBJ)/transport_sim.o: $(TSL_HOST_SIM) $(HOST_HDRS) host_driver/src/tessel_sim_fault.h \
                             hw/sim/soc/tsl_soc_sim.h hw/sim/tc/tsl_hbm.h hw/sim/tc/tsl_axi_pins.h mk/host.mk
	@mkdir -p $(@D)
	$(CXX) -std=c++14 -O2 -g -Wall -Wextra -Werror -fPIC -fvisibility=hidden $(HOST_INC) \
	  -Ihw/sim/soc -Ihw/sim/tc -isystem $(HOST_VROOT)/include -isystem $(HOST_VROOT)/include/vltstd -DSOC_N=$(SOC_N) -DSOC_BF16=$(SOC_BF16) -DSOC_VMEM=$(SOC_VMEM) \
	  -DSOC_ACC=$(SOC_ACC) -DSOC_HBM=$(SOC_HBM) -DTESSEL_FW_DEFAULT='"$(HOST_FW_PATH)"' -c $< -o $@

HOST_WA      := -Wl,--whole-archive
HOST_NWA     := -Wl,--no-whole-archive
ifeq ($(HOST_SIM),1)
HOST_SIM_OBJS := $(HOST_OBJ)/transport_sim.o
HOST_SIM_DEPS := $(HOST_SIM_OBJS) $(SOC_SIM)
HOST_SIM_LINK  = $(HOST_SIM_OBJS) $(SOC_SIM_OBJS)
endif

$(LIBTESSEL): $(HOST_OBJS) $(HOST_SIM_DEPS)
	@rm -f $@
	@rm -rf $(HOST_OUT)/ar && mkdir -p $(HOST_OUT)/ar
	@$(if $(HOST_SIM_OBJS),cd $(HOST_OUT)/ar && for a in $(abspath $(filter %.a,$(HOST_SIM_LINK))); do $(AR) x $$a || exit 1; done)
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
HOST_TEST_DEPS := tests/host/test_gemm.c hw/model/ref.h tests/model/test_util.h $(HOST_HDRS) mk/host.mk
HOST_TEST_CFLAGS := $(CFLAGS_COMMON) -ffp-contract=off -Ihost_driver/include -Itests/model -Ihw/model -Ihw/include

$(HOST_OUT)/test_gemm: $(HOST_TEST_DEPS) $(LIBTESSEL)
	$(CC) $(HOST_TEST_CFLAGS) tests/host/test_gemm.c $(LIBTESSEL) $(HOST_LIBS) -o $@

# ASan/UBSan: every source (driver, firmware, model) rebuilt with the sanitizers, model only.
$(HOST_OUT)/test_gemm_asan: $(HOST_TEST_DEPS) $(HOST_ALL_C) $(HOST_DEP_H)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -ffp-contract=off -O1 $(HOST_SAN) -DTESSEL_NO_SIM $(HOST_INC) -Itests/model \
	  tests/host/test_gemm.c $(HOST_ALL_C) -lm -o $@

TESTS += host-model host-sim host-asan host-install
.PHONY: host-lib host-install install test-host-model test-host-sim test-host-asan test-host-install

test-host-model: $(HOST_OUT)/test_gemm
	@$< model

test-host-sim: $(HOST_OUT)/test_gemm $(FW_ELF)
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
