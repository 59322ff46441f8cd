# Sources of the host library libtessel (host_driver/, built by mk/host.mk). Paths relative to the
# repository root; needs hw/model/sources.mk and firmware/cp/sources.mk.
#   TSL_HOST_SRCS   the driver and its model and uart transports (C), and the ELF loader of common/
#                   (below both the library and the simulators, which build it alone: ELF_OBJ)
#   TSL_HOST_SIM    the sim transport (C++, on the Verilated SoC of mk/soc.mk)
#   TSL_HOST_ALL_C  every C source of the library, which is self-contained: driver, native firmware
#                   and golden model; TSL_HOST_ALL_H their headers
#   TSL_HOST_NPY    the .npy reader and writer of the tools (not in the library)
TSL_HOST_SRCS  = host_driver/src/tessel.c host_driver/src/gemm.c host_driver/src/window.c host_driver/src/rows.c \
                 host_driver/src/attention.c host_driver/src/kernel.c host_driver/src/pod.c \
                 host_driver/src/transport_model.c \
                 host_driver/src/transport_uart.c common/elf_image.c \
                 host_driver/src/tessel_hostcp.c
TSL_HOST_HDRS  = host_driver/include/tessel.h host_driver/src/tessel_int.h host_driver/src/tessel_uart.h \
                 common/elf_image.h common/tessel_file.h host_driver/src/tessel_hostcp.h
TSL_HOST_SIM   = host_driver/src/transport_sim.cpp
TSL_HOST_ALL_C = $(TSL_HOST_SRCS) $(TSL_FW_CP_NATIVE) $(TSL_MODEL_SRCS)
TSL_HOST_ALL_H = $(TSL_HOST_HDRS) $(TSL_FW_CP_HDRS) $(TSL_MODEL_HDRS)
TSL_HOST_NPY   = host_driver/src/npy.c
