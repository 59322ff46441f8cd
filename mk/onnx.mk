# ONNX models on the device: tessel.onnx (host_driver/python/tessel/onnx.py, docs/python.md, "ONNX
# models"), with Debian's python3-onnx; its test suite is libonnx-testdata's backend node tests.
#   make test-onnx   tests/onnx: all 932 node tests (run_node_tests.py: device, host or fallback
#                    pass, refused with its reason, or fail; a table per op), the runner's own cases
#                    (test_runner.py: Gelu, QLinearConv/QLinearMatMul against an integer reference,
#                    layouts and fusion, one submission a run, fallbacks, errors, what the loader
#                    refuses, the command line, a Conv on the sim; SEED=... replays), and digits.py's
#                    MLP and CNN exported by torch.onnx against their C path (digits_onnx.py), and
#                    exports.py: a transformer
#                    encoder layer, a ResNet block and the digits models exported by torch.onnx
#                    against PyTorch, their products on the device (SEED=... replays) (~25 s)
#   make test-onnx also runs fuzz_onnx.py: ONNX_FUZZ_CASES mutated models, each a right answer or a
#                    tessel.Error (SEED=... replays); make soak runs ONNX_FUZZ_SOAK (test-onnx-fuzz-soak)

ONNX_OUT := $(BUILD)/onnx
ONNX_FUZZ_CASES ?= 400    # fuzz_onnx.py's mutated models in make test-onnx (a few seconds)
ONNX_FUZZ_SOAK  ?= 20000  # and in make soak (test-onnx-fuzz-soak)

TESTS += onnx
.PHONY: test-onnx
test-onnx: python $(FW_ELF) $(TESSEL)
	@rm -rf $(ONNX_OUT) && mkdir -p $(ONNX_OUT)
	@PYTHONPATH=$(BUILD)/python $(PYTHON) tests/onnx/run_node_tests.py
	@PYTHONPATH=$(BUILD)/python $(PYTHON) tests/onnx/test_runner.py $(abspath $(ONNX_OUT))
	@cd tests/onnx && PYTHONPATH=$(abspath $(BUILD))/python $(PYTHON) fuzz_onnx.py $(abspath $(ONNX_OUT))/fuzz \
	  $(ONNX_FUZZ_CASES)
	@PYTHONPATH=$(BUILD)/python $(PYTHON) tests/onnx/digits_onnx.py $(TESSEL) $(ONNX_OUT)/digits
	@PYTHONPATH=$(BUILD)/python $(PYTHON) tests/onnx/exports.py $(ONNX_OUT)/exports

SOAKS += onnx-fuzz-soak
.PHONY: test-onnx-fuzz-soak
test-onnx-fuzz-soak: python
	@cd tests/onnx && PYTHONPATH=$(abspath $(BUILD))/python $(PYTHON) fuzz_onnx.py \
	  $(abspath $(ONNX_OUT))/fuzz-soak $(ONNX_FUZZ_SOAK)
