# Tessel top-level Makefile.
#   make deps    install missing Debian packages, and Yosys 0.55 from npm for the iCEBreaker build
#                (idempotent, silent when all are there)
#   make demo    end-to-end demo
#   make test    every fast test; ends with "N passed, N failed"
#   make soak    long randomised runs      make bench-model   golden-model throughput
#   make gen     regenerate files from hw/spec/tessel.toml
# Each area adds its rules in mk/<area>.mk and appends test names to TESTS;
# `make test-NAME` runs one of them.

BUILD   ?= build
PYTHON  ?= python3
CC      ?= cc
CFLAGS_COMMON := -std=c11 -O2 -g -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes
export BUILD

DEBIAN_PKGS := verilator gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf yosys \
               nextpnr-ice40 fpga-icestorm iverilog qemu-system-misc clang gnuplot \
               python3 make g++

TESTS :=
SOAKS :=
# Used as a prerequisite by mk/*.mk files that sort before mk/model.mk, which builds it.
MODEL_LIB := $(BUILD)/model/libtessel_model.a

.PHONY: all deps test soak demo gen gen-check clean
all: test

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
	@$(MAKE) --no-print-directory -C fpga yowasp

include $(sort $(wildcard mk/*.mk))

test: deps
	@$(PYTHON) tests/runner.py $(TESTS)

soak: deps
	@$(PYTHON) tests/runner.py $(SOAKS)

clean:
	rm -rf $(BUILD)
