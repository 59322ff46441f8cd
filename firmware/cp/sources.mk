# Sources of the command processor (firmware/cp), listed once for its builds. Paths relative to the
# repository root.
#   TSL_FW_CP_RUN      the runner: ring, checks, PROGRAM and KERNEL (on the device, and natively)
#   TSL_FW_CP_COMPILE  the compiler: the checks and planning of every other command into a device
#                      program (on the host only: libtessel, the firmware tests, the fuzzers)
#   TSL_FW_CP_RV32     cp.elf for the RV32 control core (firmware/cp/Makefile): main loop, MMIO access layer
#   TSL_FW_CP_NATIVE   runner and compiler on the host against the golden model: in libtessel (the
#                      model backend), the firmware tests (tests/fw) and the fuzzers
#   TSL_FW_CP_HDRS     the headers of both
TSL_FW_CP_RUN     = firmware/cp/tsl_cp.c firmware/cp/tsl_cp_kern.c
TSL_FW_CP_COMPILE = firmware/cp/tsl_cp_compile.c firmware/cp/tsl_cp_sched.c firmware/cp/tsl_cp_gemm.c \
                    firmware/cp/tsl_cp_seq.c firmware/cp/tsl_cp_ops.c firmware/cp/tsl_cp_win.c \
                    firmware/cp/tsl_cp_row.c firmware/cp/tsl_cp_att.c firmware/cp/tsl_cp_coll.c
TSL_FW_CP_RV32    = firmware/cp/main.c $(TSL_FW_CP_RUN) firmware/cp/tsl_cp_hal_mmio.c
TSL_FW_CP_NATIVE  = $(TSL_FW_CP_RUN) $(TSL_FW_CP_COMPILE) firmware/cp/tsl_cp_hal_model.c firmware/cp/tsl_cp_hostif.c
TSL_FW_CP_HDRS    = firmware/cp/tsl_cp.h firmware/cp/tsl_cp_int.h firmware/cp/tsl_cp_hal.h firmware/cp/tsl_cp_compile.h \
                    firmware/cp/tsl_cp_hal_mmio.h firmware/cp/tsl_cp_hal_model.h firmware/cp/tsl_cp_hostif.h \
                    hw/include/tsl_att.h hw/include/tsl_win.h
