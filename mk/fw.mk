# Firmware command processor (firmware/cp): RV32 build and native tests against the golden model.
#   make test-fw-build    RV32IM build of $(BUILD)/fw/cp.elf with sdk.mk; prints its size (text+data+bss at most
#                         90 % of RAM - kernel region - stack: 52 531 of 58 368 bytes, firmware/cp/Makefile)
#                         and checks that docs/architecture.md quotes the size and the 58 368
#   make test-fw-native   native build (firmware/cp + tsl_cp_hal_model.c + libtessel_model) and tests/fw
#   make test-fw-asan     the same tests built with -fsanitize=address,undefined
#   make test-fw-native-seeds   (make soak) the native tests over FW_SEEDS seeds, one run each
# SEED=... replays the native tests.
# firmware/cp/sources.mk lists the sources of both builds (TSL_FW_CP_RV32, TSL_FW_CP_NATIVE).
FW_CP_DIR    := firmware/cp
FW_CP_SRCS   := $(TSL_FW_CP_NATIVE)
FW_CP_HDRS   := $(TSL_FW_CP_HDRS) $(wildcard hw/include/*.h) hw/model/tslm.h
FW_OUT       := $(patsubst %/,%,$(dir $(FW_ELF)))
FW_TEST_DEPS := tests/fw/test_fw.c hw/model/ref.h tests/model/test_util.h $(FW_CP_SRCS) $(FW_CP_HDRS) mk/fw.mk
FW_CFLAGS    := $(CFLAGS_COMMON) -ffp-contract=off -I$(FW_CP_DIR) -Ihw/model -Ihw/include -Itests/model
FW_SAN       := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

$(FW_ELF): $(TSL_FW_CP_RV32) $(TSL_FW_CP_HDRS) $(FW_CP_DIR)/Makefile $(FW_CP_DIR)/sources.mk sdk/sdk.mk \
                  sdk/crt0.S sdk/link.ld $(wildcard sdk/src/*.c sdk/include/*.h hw/include/*.h)
	@$(MAKE) --no-print-directory -C $(FW_CP_DIR) OUT=$(abspath $(FW_OUT)) size

# The RAM image as a flat binary from the RAM base (what a board's host loads: docs/fpga.md).
$(FW_OUT)/cp.bin: $(FW_ELF)
	@riscv64-unknown-elf-objcopy -O binary $< $@

$(FW_OUT)/test_fw: $(FW_TEST_DEPS) $(MODEL_LIB)
	@mkdir -p $(@D)
	$(CC) $(FW_CFLAGS) tests/fw/test_fw.c $(FW_CP_SRCS) $(MODEL_LIB) -lm -o $@

# The model library is rebuilt from source with the sanitizers so that its accesses are checked too.
$(FW_OUT)/test_fw_asan: $(FW_TEST_DEPS) $(TSL_MODEL_SRCS) $(TSL_MODEL_HDRS)
	@mkdir -p $(@D)
	$(CC) $(FW_CFLAGS) -O1 $(FW_SAN) tests/fw/test_fw.c $(FW_CP_SRCS) $(TSL_MODEL_SRCS) -lm -o $@

TESTS += fw-build fw-native fw-asan
SOAKS += fw-native-seeds
.PHONY: test-fw-build test-fw-native test-fw-asan test-fw-native-seeds

# The native tests over FW_SEEDS seeds (default 10 000: SEED = 1 .. FW_SEEDS), each a run of its own,
# FW_JOBS at a time (default: every core); a failing seed is printed with its replay command
# (SEED=s build/fw/test_fw).
FW_SEEDS ?= 10000
FW_JOBS  ?= $(shell nproc)
test-fw-native-seeds: $(FW_OUT)/test_fw tests/fw/seeds.py
	@$(PYTHON) tests/fw/seeds.py $< $(FW_SEEDS) $(FW_JOBS)

# The build (its size within the limit: firmware/cp/Makefile), then docs/architecture.md's sentence
# "The firmware is S bytes of the M it may take": S is cp.elf's text+data+bss as `size` reports it,
# M the limit firmware/cp/Makefile computes from tsl_hw.h.
FW_DOC := docs/architecture.md
test-fw-build:
	@rm -f $(FW_ELF)
	@p=0; f=0; \
	if $(MAKE) --no-print-directory $(FW_ELF); then p=$$((p+1)); else f=$$((f+1)); echo "FAIL: the build of $(FW_ELF)"; fi; \
	if test -s $(FW_ELF); then \
	  set -- $$(riscv64-unknown-elf-size $(FW_ELF) | tail -1); size=$$(( $$1 + $$2 + $$3 )); \
	  par() { sed -n "s/^#define TSL_PARAM_$$1 \([0-9]*\)u.*/\1/p" hw/include/tsl_hw.h; }; \
	  max=$$(( $$(par RAM_BYTES) - $$(par CP_STACK_BYTES) - $$(par KERNEL_BYTES) )); \
	  quote=$$(tr '\n' ' ' <$(FW_DOC) | grep -o 'The firmware is [0-9 ]* bytes of the [0-9 ]* it may take'); \
	  qsize=$$(echo "$$quote" | sed 's/ bytes of the .*//' | tr -dc 0-9); \
	  qmax=$$(echo "$$quote" | sed 's/.* bytes of the //' | tr -dc 0-9); \
	  if [ "$$qsize" = "$$size" ] && [ "$$qmax" = "$$max" ]; then p=$$((p+1)); else f=$$((f+1)); \
	    echo "FAIL: $(FW_DOC) says \"$${quote:-(no sentence 'The firmware is S bytes of the M it may take')}\";" \
	      "the built firmware is $$size bytes (text+data+bss) of $$max"; fi; \
	fi; echo "fw_build: $$p passed, $$f failed"; test $$f -eq 0

test-fw-native: $(FW_OUT)/test_fw
	@$<

test-fw-asan: $(FW_OUT)/test_fw_asan
	@$<
