# The `tessel` CLI's libtessel subcommands (host_driver/tools), the .npy reader/writer
# (host_driver/src/npy.c) and the end-to-end demo.
#   make build/bin/tessel-cli  tessel_cli.c + npy.c linked with libtessel.a (model and sim). `tessel gemm`
#                              and `tessel info` run it (hw/sim/soc/tessel_main.cpp) unless the CLI is
#                              linked into build/bin/tessel itself (its weak tessel_cli_main then wins)
#   make demo                  256x256x256 bf16 GEMM + bias + ReLU on the simulated SoC (backend sim),
#                              the same on the model backend, both checked bit for bit against the plain
#                              C reference (host_driver/tools/tessel_gemm_ref.h); prints cycles and MXU
#                              utilisation; exits non-zero on any mismatch. DEMO_SIZE=M,N,K changes it.
#   make test-npy              tests/cli/test_npy.c (round trips, malformed files, mutations; SEED=...),
#                              built with ASan/UBSan
#   make test-cli              tests/cli/test_cli.py: `tessel gemm`/`info` on the model backend: error
#                              paths, int8/bf16 GEMMs against the C reference, --stats JSON, --check
# (host.mk, soc.mk and fw.mk are included after this file: the paths they define are spelled out
# here for prerequisites, and their variables are used only in recipes.)

CLI_OUT    := $(BUILD)/cli
CLI_BIN    := $(BUILD)/bin/tessel-cli
CLI_DEMO   := $(CLI_OUT)/tessel-demo
CLI_REF    := $(CLI_OUT)/cli_ref
CLI_LIBT   := $(BUILD)/host/libtessel.a
CLI_HDRS   := host_driver/include/tessel.h host_driver/include/tessel_npy.h host_driver/tools/tessel_cli.h \
              host_driver/tools/tessel_gemm_ref.h tests/model/ref.h
CLI_CFLAGS := $(CFLAGS_COMMON) -ffp-contract=off -Ihost_driver/include -Ihost_driver/tools -Itests/model
CLI_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
CLI_FW     := $(BUILD)/fw/cp.elf
CLI_TESSEL := $(BUILD)/bin/tessel

$(CLI_OUT)/npy.o: host_driver/src/npy.c $(CLI_HDRS) mk/cli.mk
	@mkdir -p $(@D)
	$(CC) $(CLI_CFLAGS) -c $< -o $@

$(CLI_BIN): host_driver/tools/tessel_cli.c host_driver/tools/tessel_cli_main.c $(CLI_OUT)/npy.o $(CLI_HDRS) \
            $(CLI_LIBT) mk/cli.mk
	@mkdir -p $(@D)
	$(CC) $(CLI_CFLAGS) host_driver/tools/tessel_cli.c host_driver/tools/tessel_cli_main.c $(CLI_OUT)/npy.o \
	  $(CLI_LIBT) $(HOST_LIBS) -lpthread -o $@

$(CLI_DEMO): host_driver/tools/tessel_demo.c $(CLI_OUT)/npy.o $(CLI_HDRS) mk/cli.mk
	$(CC) $(CLI_CFLAGS) $< $(CLI_OUT)/npy.o -o $@

$(CLI_REF): tests/cli/cli_ref.c $(CLI_OUT)/npy.o $(CLI_HDRS) mk/cli.mk
	$(CC) $(CLI_CFLAGS) $< $(CLI_OUT)/npy.o -o $@

$(CLI_OUT)/test_npy: tests/cli/test_npy.c host_driver/src/npy.c $(CLI_HDRS) mk/cli.mk
	@mkdir -p $(@D)
	$(CC) $(CLI_CFLAGS) -O1 $(CLI_SAN) tests/cli/test_npy.c host_driver/src/npy.c -o $@

# --- the demo ------------------------------------------------------------------------------------
DEMO_SIZE ?= 256,256,256
DEMO_DIR  := $(CLI_OUT)/demo

demo: deps $(CLI_TESSEL) $(CLI_BIN) $(CLI_DEMO) $(CLI_FW)
	@mkdir -p $(DEMO_DIR)
	@echo "demo: C = ReLU(A x B + bias), A, B rounded to bf16, $(subst $(comma),x,$(DEMO_SIZE)), on the simulated SoC"
	@$(CLI_DEMO) gen $(DEMO_DIR) $(subst $(comma), ,$(DEMO_SIZE)) 1
	@$(CLI_TESSEL) gemm --backend sim --a $(DEMO_DIR)/a.npy --b $(DEMO_DIR)/b.npy --bias $(DEMO_DIR)/bias.npy --relu \
	  --out $(DEMO_DIR)/c_sim.npy --stats >$(DEMO_DIR)/stats_sim.json
	@cat $(DEMO_DIR)/stats_sim.json
	@$(CLI_TESSEL) gemm --backend model --a $(DEMO_DIR)/a.npy --b $(DEMO_DIR)/b.npy --bias $(DEMO_DIR)/bias.npy \
	  --relu --out $(DEMO_DIR)/c_model.npy
	@$(CLI_DEMO) check $(DEMO_DIR)

comma := ,

# --- tests ---------------------------------------------------------------------------------------
TESTS += npy cli
.PHONY: demo test-npy test-cli

test-npy: $(CLI_OUT)/test_npy
	@$< $(CLI_OUT)

test-cli: $(CLI_TESSEL) $(CLI_BIN) $(CLI_REF)
	@rm -rf $(CLI_OUT)/t && mkdir -p $(CLI_OUT)/t
	@$(PYTHON) tests/cli/test_cli.py $(CLI_TESSEL) $(CLI_REF) $(CLI_OUT)/t
