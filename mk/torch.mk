# PyTorch as the reference (tests/torch).
#   make test-torch-ref   tests/torch/test_torch_ref.py: a seeded random sweep (the seed is printed;
#                         SEED=... replays it) of conv2d, max and average pooling, softmax, layer
#                         norm, GELU, SiLU and attention through `tessel` on the model backend,
#                         against torch's CPU ops in float64: the int8 paths and max pooling exact,
#                         the float paths within the bounds derived in its docstring (~5 s)

TORCH_OUT := $(BUILD)/torch

TESTS += torch-ref
.PHONY: test-torch-ref
test-torch-ref: $(TESSEL)
	@rm -rf $(TORCH_OUT) && mkdir -p $(TORCH_OUT)
	@$(PYTHON) tests/torch/test_torch_ref.py $(TESSEL) $(TORCH_OUT)
