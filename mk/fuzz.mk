# libFuzzer targets (tests/fuzz, clang -fsanitize=fuzzer,address,undefined):
#   fuzz_npy  the .npy reader (host_driver/src/npy.c)
#   fuzz_api  libtessel's public API and argument checks on the model transport
#   fuzz_cmd  the firmware command validator (firmware/cp natively on hw/model), one 64-byte command
#   fuzz_elf  the firmware ELF loader of every transport and tessel run (common/elf_image.c)
#   fuzz_seq  the tile sequencer's launch checks and expansion on hw/model, one 24-word descriptor
#   make test-fuzz-NAME   replays tests/fuzz/corpus/NAME (every committed input once), then fuzzes
#                         for FUZZ_TIME seconds (default 12) from that corpus; prints the executions
#   make soak             the same with FUZZ_SOAK_TIME (default 300) seconds per target
# New inputs found go to $(BUILD)/fuzz/NAME.new (the committed corpus is never modified); a crash
# leaves $(BUILD)/fuzz/crash-* and fails the target. SEED= fixes libFuzzer's -seed.

FUZZ_OUT       := $(BUILD)/fuzz
FUZZ_CC        ?= clang
FUZZ_TIME      ?= 12
FUZZ_SOAK_TIME ?= 300
FUZZ_CFLAGS    := -std=c11 -O1 -g -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -ffp-contract=off \
                  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
                  -DTESSEL_NO_SIM -Itests/fuzz -Ihost_driver/include -Ihost_driver/src -Icommon \
                  -Ifirmware/cp -Ihw/model -Ihw/include
FUZZ_HDRS      := tests/fuzz/fuzz_in.h hw/model/ref.h $(TSL_HOST_ALL_H) host_driver/include/tessel_npy.h mk/fuzz.mk
FUZZ_SRC_npy   := $(TSL_HOST_NPY)
FUZZ_SRC_api   := $(TSL_HOST_ALL_C)
FUZZ_SRC_cmd   := $(TSL_FW_CP_NATIVE) $(TSL_MODEL_SRCS)
FUZZ_SRC_elf   := common/elf_image.c
FUZZ_SRC_seq   := $(TSL_MODEL_SRCS)
FUZZ_NAMES     := npy api cmd elf seq

# fuzz_rule(name): the binary and its two targets
define fuzz_rule
$(FUZZ_OUT)/fuzz_$(1): tests/fuzz/fuzz_$(1).c $(FUZZ_SRC_$(1)) $(FUZZ_HDRS)
	@mkdir -p $$(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) tests/fuzz/fuzz_$(1).c $(FUZZ_SRC_$(1)) -lm -o $$@

.PHONY: test-fuzz-$(1) soak-fuzz-$(1)
test-fuzz-$(1): $(FUZZ_OUT)/fuzz_$(1)
	@tests/fuzz/run_fuzz.sh $(1) $$< tests/fuzz/corpus/$(1) $(FUZZ_OUT) $(FUZZ_TIME)
soak-fuzz-$(1): $(FUZZ_OUT)/fuzz_$(1)
	@tests/fuzz/run_fuzz.sh $(1) $$< tests/fuzz/corpus/$(1) $(FUZZ_OUT) $(FUZZ_SOAK_TIME)
endef
$(foreach t,$(FUZZ_NAMES),$(eval $(call fuzz_rule,$(t))))

TESTS += $(addprefix fuzz-,$(FUZZ_NAMES))
SOAKS += $(addprefix fuzz-soak-,$(FUZZ_NAMES))
$(foreach t,$(FUZZ_NAMES),$(eval test-fuzz-soak-$(t): soak-fuzz-$(t)))
