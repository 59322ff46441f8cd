# Tessel top-level Makefile.
#   make deps    install missing Debian packages, and Yosys 0.55 from npm for the iCEBreaker build
#                (idempotent, silent when all are there)
#   make demo    end-to-end demo
#   make test    every fast test; ends with "N passed, N failed"
#   make soak    long randomised runs      make bench-model   golden-model throughput
#   make gen     regenerate files from hw/spec/tessel.toml
#   make         (the default goal) builds the tools (build/bin/tessel, tessel-run), the firmware
#                (build/fw/cp.elf), the library (build/host/libtessel.*) and the Python package
#                (build/python/tessel); runs no test
# Each area adds its rules in mk/<area>.mk and appends test names to TESTS;
# `make test-NAME` runs one of them. The manifests (which sources make each unit) and the paths of
# the products that several areas share are read first, below, so that the mk files may be read in
# any order.

BUILD   ?= build
PYTHON  ?= /usr/bin/python3
CC      ?= cc
CFLAGS_COMMON := -std=c11 -O2 -g -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes
export BUILD

DEBIAN_PKGS := verilator gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf yosys \
               nextpnr-ice40 fpga-icestorm iverilog qemu-system-misc clang gnuplot \
               python3 python3-dev python3-numpy python3-sklearn python3-torch python3-onnx \
               libonnx-testdata make g++ z3 libopenmpi-dev openmpi-bin

VERILATOR ?= verilator
comma := ,

TESTS :=
SOAKS :=

# Manifests: the source lists of each unit, each written once.
include hw/rtl/sources.mk       # RTL units: TSL_RTL_<UNIT>
include fpga/board.mk           # FPGA board tops: FPGA_RTL, ICE40_RTL, ARTY_RTL
include hw/model/sources.mk     # golden model: TSL_MODEL_SRCS
include firmware/cp/sources.mk  # firmware: TSL_FW_CP_RV32, TSL_FW_CP_NATIVE
include host_driver/sources.mk  # libtessel: TSL_HOST_SRCS, TSL_HOST_ALL_C

# Products that several areas use (a trailing comment would become part of a value):
#   MODEL_LIB   the golden model (mk/model.mk)
#   FW_ELF      the firmware for the control core (mk/fw.mk)
#   SOC_SIM     the Verilated tsl_soc and its C++ model, built once (-fPIC) and shared by libtessel,
#               tessel and the SoC harnesses (mk/soc.mk)
#   LIBTESSEL   the host library, its .so alongside (mk/host.mk)
#   TESSEL      the CLI: run and the libtessel subcommands (mk/cli.mk)
#   TESSEL_RUN  an ELF runner on the control core alone (mk/core.mk)
#   ELF_OBJ     the one ELF loader (common/elf_image.c, in libtessel) as an object, for the
#               simulators that do not link libtessel (mk/host.mk)
#   HOST_SIM=0  builds libtessel and tessel without the simulated SoC
MODEL_LIB  := $(BUILD)/model/libtessel_model.a
FW_ELF     := $(BUILD)/fw/cp.elf
SOC_SIM    := $(BUILD)/soc/verilator/objs.stamp
LIBTESSEL  := $(BUILD)/host/libtessel.a
TESSEL     := $(BUILD)/bin/tessel
TESSEL_RUN := $(BUILD)/bin/tessel-run
ELF_OBJ    := $(BUILD)/host/obj/elf_image.o
HOST_SIM   ?= 1

.PHONY: all deps test soak demo gen gen-check clean
all:

deps:
	@$(PYTHON) -c 'pass' 2>/dev/null || true
	@missing=$$(for p in $(DEBIAN_PKGS); do \
	    dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; \
	  done); \
	if [ -n "$$missing" ]; then \
	  sudo=; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
	  echo "deps: installing $$missing"; \
	  $$sudo apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@$(MAKE) --no-print-directory -C fpga yowasp BUILD=$(abspath $(BUILD))

include $(sort $(wildcard mk/*.mk))

all: $(TESSEL) $(TESSEL_RUN) $(FW_ELF) host-lib

test: deps
	@$(PYTHON) tests/runner.py $(TESTS)

soak: deps
	@$(PYTHON) tests/runner.py $(SOAKS)

clean:
	rm -rf $(BUILD)
