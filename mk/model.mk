# hw/model: libtessel_model (the golden model) and its tests and benchmark.
MODEL_SRCS := $(TSL_MODEL_SRCS)
MODEL_HDRS := $(TSL_MODEL_HDRS)
MODEL_OBJS := $(MODEL_SRCS:hw/model/%.c=$(BUILD)/model/%.o)
MODEL_CFLAGS := $(CFLAGS_COMMON) -O3 -ffp-contract=off -Ihw/model -Ihw/include
MODEL_TEST_CFLAGS := $(MODEL_CFLAGS) -Itests/model

$(BUILD)/model/%.o: hw/model/%.c $(MODEL_HDRS)
	@mkdir -p $(@D)
	$(CC) $(MODEL_CFLAGS) -c $< -o $@

$(MODEL_LIB): $(MODEL_OBJS)
	$(AR) rcs $@ $^

model: $(MODEL_LIB)
.PHONY: model bench-model

$(BUILD)/model/test_%: tests/model/test_%.c tests/model/test_util.h hw/model/ref.h hw/model/ref_seq.h tests/model/gemm_prog.h $(MODEL_LIB)
	$(CC) $(MODEL_TEST_CFLAGS) $< $(MODEL_LIB) -lm -o $@

$(BUILD)/model/bench_model: tests/model/bench_model.c tests/model/gemm_prog.h hw/model/ref.h $(MODEL_LIB)
	$(CC) $(MODEL_TEST_CFLAGS) $< $(MODEL_LIB) -o $@

TESTS += model-arith model-insn model-gemm model-seq model-vmath model-fast
test-model-seq: $(BUILD)/model/test_seq
	$<
# Every instruction on the fast path (the default) and on the definition (TESSEL_MODEL_SOFTFLOAT=1).
test-model-insn: $(BUILD)/model/test_insn
	$<
	TESSEL_MODEL_SOFTFLOAT=1 $<
# The fast path against the definition through every float VPU op and EPI (test_gemm: GEMM programs).
test-model-fast: $(BUILD)/model/test_fast
	$<
test-model-gemm: $(BUILD)/model/test_gemm
	$<
test-model-arith: $(BUILD)/model/test_arith
	$<
# EXP, RECIP, RSQRT, GELU against libm: every 256th FP32 input here, every input in `make soak`.
test-model-vmath: $(BUILD)/model/test_vmath
	$<
SOAKS += model-vmath-all
test-model-vmath-all: $(BUILD)/model/test_vmath
	$< 1

bench-model: deps $(BUILD)/model/bench_model
	$(BUILD)/model/bench_model

# `make demo` (a checked 256^3 GEMM on the simulated SoC) is in mk/cli.mk.
