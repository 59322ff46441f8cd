# Examples: real networks run on the device (docs/networks.md): the digits through the `tessel` CLI, the
# transformer block through a C program against libtessel.
#   make digits-mlp   examples/digits/digits.py: an int8 MLP (64 -> 64 -> 10) on scikit-learn's digits,
#                     trained with torch, quantised, every layer a `tessel` command checked bit for bit
#                     against a numpy integer reference; accuracy on the whole test split (model
#                     backend), cycles and MXU utilisation per inference on DIGITS_SIM_BATCH images (sim),
#                     and for the MLP again with its layers as one graph (tessel.Array, one submission)
#   make digits-cnn   the same for a CNN: conv 3x3 1->8 + ReLU, max pool 2x2, conv 3x3 8->16 + ReLU,
#                     dense 256 -> 10 (CONV2D, POOL2D, CONV2D, GEMM)
#   make test-digits  both, with DIGITS_TEST_BATCH images on the sim: fails on a mismatch or when the
#                     device's accuracy is more than 1 point from the float model's (~8 s)
# Work files (each command's .npy operands and outputs): $(BUILD)/digits/<model>/<backend>/.

DIGITS            := $(PYTHON) examples/digits/digits.py --tessel $(TESSEL)
DIGITS_DEPS       := $(TESSEL) $(FW_ELF) examples/digits/digits.py python   # python: the MLP as one graph
DIGITS_SIM_BATCH  ?= 32
DIGITS_TEST_BATCH := 8

.PHONY: digits-mlp digits-cnn test-digits
digits-mlp digits-cnn: digits-%: deps $(DIGITS_DEPS)
	@$(DIGITS) --model $* --backend sim --sim-batch $(DIGITS_SIM_BATCH) --work $(BUILD)/digits/$*

TESTS += digits
test-digits: $(DIGITS_DEPS)
	@passed=0; failed=0; for m in mlp cnn; do \
	  if $(DIGITS) --model $$m --backend sim --sim-batch $(DIGITS_TEST_BATCH) --work $(BUILD)/digits/test-$$m; \
	  then passed=$$((passed + 1)); else failed=$$((failed + 1)); echo "FAIL: digits $$m"; fi; \
	done; echo "digits: $$passed passed, $$failed failed"; [ $$failed -eq 0 ]

# A transformer encoder block in bf16 (docs/networks.md, "A transformer block"):
#   make transformer       builds examples/transformer/block.c against libtessel and runs
#                          examples/transformer/block.py: the block on the model backend and on the
#                          simulated SoC, each compared with PyTorch in float32 within the derived error
#                          bound; prints the errors, the bound, cycles and MXU utilisation per inference
#   make test-transformer  the same, as a test (~6 s); ends with "transformer: N passed, M failed"
# Work files (the weights, the input and each backend's output as .npy): $(BUILD)/transformer/.
TRANSFORMER_BIN  := $(BUILD)/examples/transformer/block
TRANSFORMER      := $(PYTHON) examples/transformer/block.py --block $(TRANSFORMER_BIN) --work $(BUILD)/transformer
TRANSFORMER_DEPS := $(TRANSFORMER_BIN) $(FW_ELF) examples/transformer/block.py

$(TRANSFORMER_BIN): examples/transformer/block.c $(TSL_HOST_NPY) $(LIBTESSEL) host_driver/include/tessel.h \
                    host_driver/include/tessel_npy.h mk/examples.mk
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -Ihost_driver/include -Icommon $< $(TSL_HOST_NPY) $(LIBTESSEL) $(HOST_LIBS) -o $@

.PHONY: transformer test-transformer
transformer: deps $(TRANSFORMER_DEPS)
	@$(TRANSFORMER)

TESTS += transformer
test-transformer: $(TRANSFORMER_DEPS)
	@$(TRANSFORMER)
