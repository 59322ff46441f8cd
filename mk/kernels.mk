# Custom kernels (docs/sdk.md, "Custom kernels"): each examples/kernels/NAME.c and tests/kernels/NAME.c
# is one kernel, built with sdk/kernel.mk into $(BUILD)/kernels/NAME.bin (and NAME.elf).
#   make kernels   all of them (part of `make`); tests/python/test_tessel.py and examples/python/kernel.py
#                  load them with Device.kernel
TESSEL_SDK  := sdk
include sdk/kernel.mk

KERNEL_OUT  := $(BUILD)/kernels
KERNEL_SRCS := $(wildcard examples/kernels/*.c tests/kernels/*.c)
KERNEL_BINS := $(patsubst %.c,$(KERNEL_OUT)/%.bin,$(notdir $(KERNEL_SRCS)))
$(foreach s,$(KERNEL_SRCS),$(eval $(call tsl_kernel,$(KERNEL_OUT)/$(notdir $(s:.c=.bin)),$(s))))

.PHONY: kernels
all: kernels
kernels: $(KERNEL_BINS)
