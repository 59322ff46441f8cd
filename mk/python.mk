# The Python package `tessel` (host_driver/python, docs/python.md): the CPython extension
# tessel._tessel (host_driver/python/_tessel.c, which includes tessel.h) linked with libtessel.a,
# next to the package's .py files, for Debian's $(PYTHON) and its numpy.
#   make python        $(BUILD)/python/tessel/ (part of `make`): then
#                      PYTHONPATH=$(BUILD)/python $(PYTHON) -c "import tessel"
#   make test-python   tests/python/test_tessel.py: every Device method on the model backend against
#                      numpy and PyTorch references, the errors, a matmul and a conv on the sim, and
#                      custom kernels on the sim (build/kernels), each examples/python/*.py (SEED=...;
#                      ~12 s, most of it train_digits.py and a kernel that never returns)
#   make test-torch-device  tests/python/test_torch.py: tessel.torch (a torch.nn model on the device in
#                      its three modes, forward and backward) against PyTorch's CPU ops in float64,
#                      the debug check, the compilation cache, strict and fused against debug, the
#                      sim (SEED=...; ~3 s)
#   make test-torch-fuzz  tests/python/fuzz_torch.py: TORCH_FUZZ_CASES (300) random modules, each
#                      instance on the CPU and compiled in the three modes, parameters, train/eval
#                      and inputs changed between calls as users change them: debug against the CPU
#                      with the MXU's bf16 operand rounding, strict and fused against debug bit for
#                      bit, state and generator exactly
#                      (SEED=..., CASE=...; ~25 s); make soak runs TORCH_FUZZ_SOAK (20000) cases
#   make bench-torch-modes  examples/python/transformer_modes.py on the sim: a transformer block in
#                      debug, strict and fused mode, each mode's commands and cycles (~11 s)

PY_OUT   := $(BUILD)/python/tessel
# Python.h's folder and the extension suffix of $(PYTHON) (".cpython-311-x86_64-linux-gnu.so").
PY_CFG   := $(shell $(PYTHON) -c 'import sysconfig as s; print(s.get_paths()["include"], s.get_config_var("EXT_SUFFIX"))' 2>/dev/null)
PY_EXT   := $(PY_OUT)/_tessel$(word 2,$(PY_CFG))
PY_SRCS  := $(wildcard host_driver/python/tessel/*.py)
PY_FILES := $(PY_EXT) $(patsubst host_driver/python/tessel/%,$(PY_OUT)/%,$(PY_SRCS))

all: python

$(BUILD)/python/_tessel.o: host_driver/python/_tessel.c host_driver/include/tessel.h hw/include/tsl_hw.h mk/python.mk
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -fPIC -fvisibility=hidden -isystem $(word 1,$(PY_CFG)) -Ihost_driver/include -Ihw/include \
	  -c $< -o $@

# libtessel.a is position-independent; its symbols stay inside the extension (--exclude-libs).
$(PY_EXT): $(BUILD)/python/_tessel.o $(LIBTESSEL)
	@mkdir -p $(@D)
	$(CXX) -shared -Wl,--exclude-libs,ALL -o $@ $< $(LIBTESSEL) $(HOST_LIBS) -lpthread

$(PY_OUT)/%.py: host_driver/python/tessel/%.py
	@mkdir -p $(@D)
	cp $< $@

TORCH_FUZZ_CASES ?= 300
TORCH_FUZZ_SOAK  ?= 20000
TESTS += python torch-device torch-fuzz
SOAKS += torch-fuzz-soak
.PHONY: python test-python test-torch-device test-torch-fuzz test-torch-fuzz-soak bench-torch-modes
python: $(PY_FILES)

bench-torch-modes: $(PY_FILES) $(FW_ELF)
	@PYTHONPATH=$(BUILD)/python $(PYTHON) examples/python/transformer_modes.py sim

test-python: $(PY_FILES) $(FW_ELF) $(KERNEL_BINS)
	@PYTHONPATH=$(BUILD)/python $(PYTHON) tests/python/test_tessel.py

test-torch-device: $(PY_FILES) $(FW_ELF)
	@PYTHONPATH=$(BUILD)/python $(PYTHON) tests/python/test_torch.py

test-torch-fuzz: $(PY_FILES)
	@PYTHONPATH=$(BUILD)/python $(PYTHON) tests/python/fuzz_torch.py $(TORCH_FUZZ_CASES)

test-torch-fuzz-soak: $(PY_FILES)
	@PYTHONPATH=$(BUILD)/python $(PYTHON) tests/python/fuzz_torch.py $(TORCH_FUZZ_SOAK)
