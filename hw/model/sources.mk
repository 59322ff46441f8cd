# The golden model (hw/model): libtessel_model (mk/model.mk), and a part of libtessel and of the
# native firmware builds. Paths relative to the repository root.
TSL_MODEL_SRCS = hw/model/tslm.c hw/model/tslm_arith.c hw/model/tslm_fast.c hw/model/tslm_seq.c
TSL_MODEL_HDRS = hw/model/tslm.h hw/model/tslm_arith.h hw/model/tslm_fast.h hw/model/tslm_f32_bits.h hw/include/tsl_hw.h hw/include/tsl_insn.h
