# ONNX models on the device: tessel.onnx (host_driver/python/tessel/onnx.py, docs/python.md, "ONNX
# models"), with Debian's python3-onnx; its test suite is libonnx-testdata's backend node tests.
#   make test-onnx   tests/onnx: all 932 node tests (run_node_tests.py: device, host or fallback
#                    pass, refused with its reason, or fail; a table per op), the runner's own cases
#                    (test_runner.py: Gelu, QLinearConv/QLinearMatMul against an integer reference,
#                    layouts and fusion, fallbacks, errors, what the loader refuses, the command line,
#                    a Conv on the sim; SEED=... replays), and digits.py's MLP and CNN exported by
#                    torch.onnx against their C path (digits_onnx.py), and exports.py: a transformer
#                    encoder layer, a ResNet block and the digits models exported by torch.onnx
#                    against PyTorch, their products on the device (SEED=... replays) (~25 s)

ONNX_OUT := $(BUILD)/onnx

TESTS += onnx
.PHONY: test-onnx
test-onnx: python $(FW_ELF) $(TESSEL)
	@rm -rf $(ONNX_OUT) && mkdir -p $(ONNX_OUT)
	@PYTHONPATH=$(BUILD)/python $(PYTHON) tests/onnx/run_node_tests.py
	@PYTHONPATH=$(BUILD)/python $(PYTHON) tests/onnx/test_runner.py $(abspath $(ONNX_OUT))
	@PYTHONPATH=$(BUILD)/python $(PYTHON) tests/onnx/digits_onnx.py $(TESSEL) $(ONNX_OUT)/digits
	@PYTHONPATH=$(BUILD)/python $(PYTHON) tests/onnx/exports.py $(ONNX_OUT)/exports
