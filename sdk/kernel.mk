# Tessel SDK build rules for custom kernels (docs/sdk.md, "Custom kernels"). Usage:
#   TESSEL_SDK := path/to/sdk
#   include $(TESSEL_SDK)/kernel.mk
#   $(eval $(call tsl_kernel,out/scale_add.bin,scale_add.c))
# builds out/scale_add.bin: the kernel's C sources (one of them defines tsl_kernel_main, see
# sdk/include/tsl_kernel.h) and the SDK's tsl_tc.c and tsl_hal.c, linked at the kernel region by
# sdk/kernel.ld, as a flat image (and the .elf next to it, for objdump and the symbols).
# Optional: TSL_KERNEL_CFLAGS_EXTRA, TESSEL_HW_INCLUDE (where tsl_hw.h lives).

TESSEL_SDK        := $(abspath $(TESSEL_SDK))
TESSEL_HW_INCLUDE ?= $(abspath $(TESSEL_SDK)/../hw/include)
RISCV_CC          ?= riscv64-unknown-elf-gcc
RISCV_OBJCOPY     ?= riscv64-unknown-elf-objcopy

# The region, from the generated header (TSL_PARAM_*; the base as TSL_KERNEL_BASE computes it).
tsl_kernel_param   = $(shell sed -n 's/^\#define TSL_$(1) \(0x[0-9A-Fa-f]*\|[0-9]*\)u.*/\1/p' $(TESSEL_HW_INCLUDE)/tsl_hw.h)
TSL_KERNEL_BYTES  := $(call tsl_kernel_param,PARAM_KERNEL_BYTES)
TSL_KERNEL_BASE   := $(shell printf '0x%x' $$(( $(call tsl_kernel_param,MMAP_RAM_BASE) + \
                       $(call tsl_kernel_param,MMAP_RAM_BYTES) - $(call tsl_kernel_param,PARAM_CP_STACK_BYTES) - \
                       $(TSL_KERNEL_BYTES) )))

TSL_KERNEL_CFLAGS  := -march=rv32im_zicsr -mabi=ilp32 --specs=picolibc.specs -O2 -g -std=c11 -Wall -Wextra \
                      -Werror -Wshadow -Wstrict-prototypes -ffunction-sections -fdata-sections -fno-pic \
                      -I$(TESSEL_SDK)/include -I$(TESSEL_HW_INCLUDE) $(TSL_KERNEL_CFLAGS_EXTRA)
TSL_KERNEL_LDFLAGS := -nostartfiles -T$(TESSEL_SDK)/kernel.ld \
                      -Wl,--defsym=__tsl_kernel_base=$(TSL_KERNEL_BASE) \
                      -Wl,--defsym=__tsl_kernel_bytes=$(TSL_KERNEL_BYTES) \
                      -Wl,--no-warn-rwx-segments -Wl,--gc-sections
TSL_KERNEL_SDK     := $(TESSEL_SDK)/src/tsl_tc.c $(TESSEL_SDK)/src/tsl_hal.c
TSL_KERNEL_DEPS    := $(TSL_KERNEL_SDK) $(TESSEL_SDK)/kernel.ld $(TESSEL_SDK)/kernel.mk \
                      $(wildcard $(TESSEL_SDK)/include/*.h) $(TESSEL_HW_INCLUDE)/tsl_hw.h

# tsl_kernel(image.bin, sources): the rules of one kernel.
define tsl_kernel
$(1): $(2) $$(TSL_KERNEL_DEPS)
	@mkdir -p $$(dir $$@)
	$$(RISCV_CC) $$(TSL_KERNEL_CFLAGS) $$(TSL_KERNEL_LDFLAGS) $(2) $$(TSL_KERNEL_SDK) -o $$(basename $$@).elf
	$$(RISCV_OBJCOPY) -O binary $$(basename $$@).elf $$@
endef
