# The `tessel` CLI (host_driver/tools), the .npy reader/writer (host_driver/src/npy.c) and the
# end-to-end demo.
#   make build/bin/tessel      one binary linked with libtessel: `tessel run` (the simulated SoC,
#                              hw/sim/soc/tsl_soc_run.cpp), `tessel gemm`, `conv2d`, `pool2d`,
#                              `softmax`, `layernorm`, `rmsnorm`, `gelu`, `silu`, `attention` and
#                              `info` (tessel_cli.c); host_driver/tools/tessel_main.cpp dispatches
#   make demo                  256x256x256 bf16 GEMM + bias + ReLU on the simulated SoC (backend sim),
#                              the same on the model backend, both checked bit for bit against the plain
#                              C reference (host_driver/tools/tessel_gemm_ref.h); prints cycles and MXU
#                              utilisation; exits non-zero on any mismatch. DEMO_SIZE=M,N,K changes it.
#   make test-npy              tests/cli/test_npy.c (round trips, malformed files, mutations; SEED=...),
#                              built with ASan/UBSan
#   make test-cli              tests/cli/test_cli.py: every subcommand on the model backend (one conv2d,
#                              one softmax and one attention on the sim): error paths, int8/bf16
#                              GEMMs against the C reference, conv2d/pool2d, the row functions and
#                              attention against numpy references (SEED=...; PYTHON needs numpy),
#                              --stats JSON, --check

CLI_OUT    := $(BUILD)/cli
CLI_DEMO   := $(CLI_OUT)/tessel-demo
CLI_REF    := $(CLI_OUT)/cli_ref
CLI_HDRS   := host_driver/include/tessel.h host_driver/include/tessel_npy.h host_driver/tools/tessel_cli.h \
              host_driver/tools/tessel_gemm_ref.h hw/model/ref.h
CLI_CFLAGS := $(CFLAGS_COMMON) -ffp-contract=off -Ihost_driver/include -Ihost_driver/tools -Icommon -Ihw/model -Ihw/include
CLI_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

$(CLI_OUT)/npy.o: $(TSL_HOST_NPY) $(CLI_HDRS) mk/cli.mk
	@mkdir -p $(@D)
	$(CC) $(CLI_CFLAGS) -c $< -o $@

$(CLI_OUT)/tessel_cli.o: host_driver/tools/tessel_cli.c $(CLI_HDRS) mk/cli.mk
	@mkdir -p $(@D)
	$(CC) $(CLI_CFLAGS) -c $< -o $@

# HOST_SIM=0: a libtessel without the simulated SoC, and a tessel without `run`.
ifeq ($(HOST_SIM),1)
CLI_RUN_OBJ = $(SOC_RUN_OBJ)
else
CLI_NO_SIM := -DTESSEL_NO_SIM
endif
$(TESSEL): host_driver/tools/tessel_main.cpp $(CLI_OUT)/tessel_cli.o $(CLI_OUT)/npy.o $(CLI_HDRS) \
           hw/sim/soc/tsl_soc_run.h $(LIBTESSEL) mk/cli.mk
	@mkdir -p $(@D)
	$(CXX) -std=c++14 -O2 -g -Wall -Wextra -Werror -Ihost_driver/tools -Ihw/sim/soc $(CLI_NO_SIM) $< \
	  $(CLI_OUT)/tessel_cli.o $(CLI_OUT)/npy.o $(CLI_RUN_OBJ) $(LIBTESSEL) $(HOST_LIBS) -lpthread -o $@

$(CLI_DEMO): host_driver/tools/tessel_demo.c $(CLI_OUT)/npy.o $(CLI_HDRS) mk/cli.mk
	$(CC) $(CLI_CFLAGS) $< $(CLI_OUT)/npy.o -o $@

$(CLI_REF): tests/cli/cli_ref.c $(CLI_OUT)/npy.o $(CLI_HDRS) mk/cli.mk
	$(CC) $(CLI_CFLAGS) $< $(CLI_OUT)/npy.o -o $@

$(CLI_OUT)/test_npy: tests/cli/test_npy.c $(TSL_HOST_NPY) $(CLI_HDRS) mk/cli.mk
	@mkdir -p $(@D)
	$(CC) $(CLI_CFLAGS) -O1 $(CLI_SAN) tests/cli/test_npy.c $(TSL_HOST_NPY) -o $@

# --- the demo ------------------------------------------------------------------------------------
DEMO_SIZE ?= 256,256,256
DEMO_DIR  := $(CLI_OUT)/demo

demo: deps $(TESSEL) $(CLI_DEMO) $(FW_ELF)
	@mkdir -p $(DEMO_DIR)
	@echo "demo: C = ReLU(A x B + bias), A, B rounded to bf16, $(subst $(comma),x,$(DEMO_SIZE)), on the simulated SoC"
	@$(CLI_DEMO) gen $(DEMO_DIR) $(subst $(comma), ,$(DEMO_SIZE)) 1
	@$(TESSEL) gemm --backend sim --a $(DEMO_DIR)/a.npy --b $(DEMO_DIR)/b.npy --bias $(DEMO_DIR)/bias.npy --relu \
	  --out $(DEMO_DIR)/c_sim.npy --stats >$(DEMO_DIR)/stats_sim.json
	@cat $(DEMO_DIR)/stats_sim.json
	@$(TESSEL) gemm --backend model --a $(DEMO_DIR)/a.npy --b $(DEMO_DIR)/b.npy --bias $(DEMO_DIR)/bias.npy \
	  --relu --out $(DEMO_DIR)/c_model.npy
	@$(CLI_DEMO) check $(DEMO_DIR)

# --- tests ---------------------------------------------------------------------------------------
TESTS += npy cli
.PHONY: demo test-npy test-cli

test-npy: $(CLI_OUT)/test_npy
	@$< $(CLI_OUT)

test-cli: $(TESSEL) $(CLI_REF) $(FW_ELF)
	@rm -rf $(CLI_OUT)/t && mkdir -p $(CLI_OUT)/t
	@$(PYTHON) tests/cli/test_cli.py $(TESSEL) $(CLI_REF) $(CLI_OUT)/t
