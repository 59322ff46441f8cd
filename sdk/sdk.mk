# Tessel SDK build rules. Usage (in a program's Makefile):
#   TESSEL_SDK := path/to/sdk
#   PROG = hello
#   SRCS = hello.c
#   include $(TESSEL_SDK)/sdk.mk
# Builds $(OUT)/$(PROG).elf (OUT defaults to the current directory) for the RV32IM control core
# with picolibc; printf goes to the console, returning from main() ends the simulation.
# Optional: CFLAGS_EXTRA, LDFLAGS_EXTRA, OUT, TESSEL_HW_INCLUDE (where tsl_hw.h lives), and
# CFLAGS_<file name> for one source (e.g. CFLAGS_cold.c = -Os: it comes last, so it wins).

TESSEL_SDK        := $(abspath $(TESSEL_SDK))
TESSEL_HW_INCLUDE ?= $(abspath $(TESSEL_SDK)/../hw/include)
RISCV_CC          ?= riscv64-unknown-elf-gcc
RISCV_OBJDUMP     ?= riscv64-unknown-elf-objdump
OUT               ?= .
# Integer-only printf keeps programs small; set TSL_PRINTF= (empty) for float/double printf.
TSL_PRINTF        ?= -DPICOLIBC_INTEGER_PRINTF_SCANF

# The multilib is picked by -march at link time (rv32im); compiling with _zicsr lets the
# assembler accept the CSR instructions that GCC 12 needs an explicit extension for.
TSL_ARCH_LD  := -march=rv32im -mabi=ilp32
TSL_ARCH_CC  := -march=rv32im_zicsr -mabi=ilp32
TSL_CFLAGS   := $(TSL_ARCH_CC) --specs=picolibc.specs -O2 -g -std=c11 -Wall -Wextra -Werror \
                -Wshadow -Wstrict-prototypes -ffunction-sections -fdata-sections \
                -I$(TESSEL_SDK)/include -I$(TESSEL_HW_INCLUDE) $(CFLAGS_EXTRA)
TSL_LDFLAGS  := $(TSL_ARCH_LD) --specs=picolibc.specs -nostartfiles -T$(TESSEL_SDK)/link.ld \
                -Wl,--no-warn-rwx-segments $(TSL_PRINTF) \
                -Wl,--gc-sections $(LDFLAGS_EXTRA)
TSL_SDK_SRCS := $(TESSEL_SDK)/crt0.S $(TESSEL_SDK)/src/tsl_hal.c $(TESSEL_SDK)/src/tsl_tc.c

$(OUT)/$(PROG).elf: $(SRCS) $(TSL_SDK_SRCS) $(TESSEL_SDK)/link.ld $(wildcard $(TESSEL_SDK)/include/*.h) \
                    $(wildcard $(TESSEL_HW_INCLUDE)/*.h) $(TESSEL_SDK)/sdk.mk
	@mkdir -p $(dir $@) $@.obj
	@set -e; $(foreach s,$(TSL_SDK_SRCS) $(SRCS),echo "  CC  $(s)"; \
	  $(RISCV_CC) $(TSL_CFLAGS) $(CFLAGS_$(notdir $(s))) -c $(s) -o $@.obj/$(notdir $(s)).o;)
	$(RISCV_CC) $(TSL_LDFLAGS) $@.obj/*.o -o $@
	@rm -rf $@.obj

$(OUT)/$(PROG).dis: $(OUT)/$(PROG).elf
	$(RISCV_OBJDUMP) -d $< > $@
