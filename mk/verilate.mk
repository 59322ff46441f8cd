# Every Verilator build of the co-simulation harnesses: one rule (verilate, below) fed by one table
# (the rows at the end of this file). A build is a directory under $(BUILD) that holds the Verilated
# model, its build.log and the harness's executable; the area files (mk/tc.mk, mk/vpu.mk, ...) name
# the products in their tests: $(BUILD)/<dir>/<exe>.
#
# A row is $(call vl, DIR, FAMILY, CONFIGURATION, EXTRA FLAGS): the build directory under $(BUILD),
# the family (what the builds of one harness share), the configuration's words (the family's
# fields read them as $1, $2, ...) and Verilator flags of this build alone (--trace-fst).
# A family F is the variables VL.F.<field>:
#   top      the top module                     exe     the executable (-o)
#   rtl      SystemVerilog files                cpp     the harness's C++ files and the objects it
#   flags    Verilator flags (after -Wall                links (made absolute)
#            --top-module TOP)                  deps    other prerequisites (headers, the model)
#   params   -G parameters, NAME=VALUE          cflags  C++ flags (optimisation, include directories)
#   defs     C++ defines, NAME=VALUE            ldflags, makeflags   -LDFLAGS, -MAKEFLAGS if set
# Fields of a family that is not a --build (mk/soc.mk's shared SoC, mk/uart.mk's boards) or that is
# timed (mk/bench_sim.mk):
#   objs     verilate only, then make the model's archive and these objects of its makefile; the
#            product is DIR/objs.stamp (-o unused)
#   prefix   the model's name when not V<top> (its --prefix among the flags)
#   after    a command run after an objs build, $1 the build directory
#   link     no Verilator: the harness cpp (its base name here) linked to the model of the build in
#            directory $1 of the configuration, verilated and compiled once (hw/sim/vlink.mk)
#   fresh    set: each build starts from an empty directory (but for its verilator.cmd)
#   first    targets made by name before the build
#   wrap     a command in front of Verilator, $1 the build directory
# A build is remade when a prerequisite changed (its family's files, and every build but a link the
# RTL's `include files, TSL_RTL_INCLUDES) or its command line did: DIR/verilator.cmd holds
# the last one, rewritten only when it differs, so that a new or changed row remakes that build
# alone (make -n, which runs no recipe, lists every build it reaches). The product is touched after
# each build: Verilator leaves an up-to-date executable as it is, older than a new verilator.cmd.

# $(call vl_field,FAMILY,FIELD,CONFIGURATION): a family's field, the configuration's words as $1..$8
vl_field = $(strip $(call VL.$(1).$(2),$(word 1,$(3)),$(word 2,$(3)),$(word 3,$(3)),$(word 4,$(3)),$(word 5,$(3)),$(word 6,$(3)),$(word 7,$(3)),$(word 8,$(3))))

# $(call vl_prefix,FAMILY): the model's name (its classes, makefile and archive)
vl_prefix = $(or $(VL.$(1).prefix),V$(VL.$(1).top))

# $(call vl_cmd,DIR,FAMILY,CONFIGURATION,EXTRA FLAGS): the build's shell command.
vl_cmd = $(if $(VL.$(2).link),$(call vl_link_cmd,$(1),$(2),$(3)),$(call vl_verilate_cmd,$(1),$(2),$(3),$(4)))
vl_verilate_cmd = $(call VL.$(2).wrap,$(BUILD)/$(1)) $(VERILATOR) --cc --exe $(if $(VL.$(2).objs),,--build -j 2 )-Wall \
  --top-module $(VL.$(2).top) $(call vl_field,$(2),flags,$(3)) $(4) \
  $(foreach p,$(call vl_field,$(2),params,$(3)),"-G$(p)") -Mdir $(BUILD)/$(1) \
  -CFLAGS "$(strip $(call vl_field,$(2),cflags,$(3)) $(addprefix -D,$(call vl_field,$(2),defs,$(3))))" \
  $(if $(VL.$(2).ldflags),-LDFLAGS "$(call vl_field,$(2),ldflags,$(3))") \
  $(if $(VL.$(2).makeflags),-MAKEFLAGS "$(VL.$(2).makeflags)") \
  -o $(or $(VL.$(2).exe),unused) $(call vl_field,$(2),rtl,$(3)) $(abspath $(call vl_field,$(2),cpp,$(3))) \
  $(if $(VL.$(2).objs),&& $(VL_VMAKE) -C $(BUILD)/$(1) -f $(call vl_prefix,$(2)).mk -j 2 OPT_FAST=-O2 \
    $(call vl_prefix,$(2))__ALL.a $(VL.$(2).objs)) $(if $(VL.$(2).after),&& $(call VL.$(2).after,$(BUILD)/$(1)))
# A harness linked to the model of the build in directory $1 of the configuration (hw/sim/vlink.mk).
vl_link_cmd = rm -f $(BUILD)/$(word 1,$(3))/$(VL.$(2).link).o && $(MAKE) -C $(BUILD)/$(word 1,$(3)) \
  -f $(call vl_prefix,$(VL_FAM.$(word 1,$(3)))).mk -f $(abspath hw/sim/vlink.mk) OPT_FAST=-O2 HARNESS=$(VL.$(2).link) \
  HARNESS_OUT=$(abspath $(BUILD)/$(1)/$(VL.$(2).exe)) VM_USER_DIR=$(abspath $(dir $(VL.$(2).cpp))) VM_USER_LDLIBS= \
  VM_USER_CFLAGS="$(strip $(call vl_field,$(2),cflags,$(3)) $(addprefix -D,$(call vl_field,$(2),defs,$(3))))" \
  $(abspath $(BUILD)/$(1)/$(VL.$(2).exe))
# Verilator's makefile, run by name (a recipe line that names $(MAKE) itself would run under make -n).
VL_VMAKE = $(MAKE) --no-print-directory

# verilate(DIR, FAMILY, CONFIGURATION, EXTRA FLAGS): the build's rule, and the rule of its
# verilator.cmd. The recipes read the fields when they run: the area files may come in any order.
define verilate
VL_FAM.$(1) := $(2)
VL_OUT.$(1) := $(BUILD)/$(1)/$(if $(VL.$(2).objs),objs.stamp,$(VL.$(2).exe))
VL_CMD.$(1)  = $$(call vl_cmd,$(1),$(2),$(3),$(4))
$$(VL_OUT.$(1)): $(call vl_field,$(2),rtl,$(3)) $(call vl_field,$(2),cpp,$(3)) $(call vl_field,$(2),deps,$(3)) \
                 $(if $(VL.$(2).link),$(VL_OUT.$(word 1,$(3))),$(TSL_RTL_INCLUDES)) $(BUILD)/$(1)/verilator.cmd
	@mkdir -p $$(@D)$$(if $$(VL.$(2).fresh), && find $$(@D) -mindepth 1 -maxdepth 1 ! -name verilator.cmd -exec rm -rf {} +)$$(if $$(VL.$(2).objs), && rm -f $$(@D)/$$(call vl_prefix,$(2))__ALL.a)
	$$(if $$(VL.$(2).first),@$$(MAKE) -s --no-print-directory $$(VL.$(2).first) >/dev/null)
	@echo "  $(if $(VL.$(2).link),LINK     $(VL.$(2).link) + $(BUILD)/$(word 1,$(3)),VERILATE $$(VL.$(2).top)) -> $$@ (log: $$(@D)/build.log)"
	@{ $$(VL_CMD.$(1)); } >$$(@D)/build.log 2>&1 || { tail -40 $$(@D)/build.log; exit 1; }
	@touch $$@
$(BUILD)/$(1)/verilator.cmd: vl_force
	@mkdir -p $$(@D) && printf '%s\n' '$$(subst ','\'',$$(VL_CMD.$(1)))' >$$@.new && \
	  if cmp -s $$@.new $$@; then rm $$@.new; else mv $$@.new $$@; fi
endef
vl = $(eval $(call verilate,$(strip $(1)),$(strip $(2)),$(strip $(3)),$(strip $(4))))
.PHONY: vl_force

# --- families ---------------------------------------------------------------------------------------
VL_FAST      := -O3 --x-assign fast --x-initial fast --assert
VL_MODEL_INC := -I$(abspath hw/model) -I$(abspath hw/include)

# One ICI link (mk/ici.mk): configuration bytes a flit, receive buffer flits.
VL.ici.top     := tsl_ici_pair
VL.ici.exe     := ici_sim
VL.ici.rtl      = $(TSL_RTL_ICI) hw/sim/ici/tsl_ici_pair.sv
VL.ici.cpp     := hw/sim/ici/ici_main.cpp
VL.ici.deps    := hw/sim/ici/ici_harness.h
VL.ici.flags   := $(VL_FAST)
VL.ici.params   = Bytes=$1 Depth=$2
VL.ici.cflags  := -O2 $(VL_MODEL_INC)
VL.ici.defs     = ICI_BYTES=$1 ICI_DEPTH=$2
VL.ici.ldflags := -lz

# The ICI router (mk/ici.mk): configuration link ports.
VL.ici-router.top     := tsl_ici_router
VL.ici-router.exe     := router_sim
VL.ici-router.rtl      = $(TSL_RTL_ICI)
VL.ici-router.cpp     := hw/sim/ici/router_main.cpp
VL.ici-router.deps    := hw/sim/ici/ici_harness.h
VL.ici-router.flags   := $(VL_FAST)
VL.ici-router.params   = Ports=$1
VL.ici-router.cflags  := -O2 $(VL_MODEL_INC)
VL.ici-router.defs     = PORTS=$1

# The ICI semaphores (mk/ici.mk): configuration semaphores, the largest wait bound the test sets.
VL.ici-sem.top     := tsl_ici_sem
VL.ici-sem.exe     := sem_sim
VL.ici-sem.rtl      = $(TSL_RTL_ICI)
VL.ici-sem.cpp     := hw/sim/ici/sem_main.cpp
VL.ici-sem.deps    := hw/sim/ici/ici_harness.h
VL.ici-sem.flags   := $(VL_FAST)
VL.ici-sem.params   = Sems=$1
VL.ici-sem.cflags  := -O2
VL.ici-sem.defs     = SEMS=$1 WAIT=$2

# The ICI packetizer and ejector joined (mk/ici.mk): configuration N.
VL.ici-pe.top     := tsl_ici_pe
VL.ici-pe.exe     := pe_sim
VL.ici-pe.rtl      = $(TSL_RTL_ICI) hw/sim/ici/tsl_ici_pe.sv
VL.ici-pe.cpp     := hw/sim/ici/pe_main.cpp
VL.ici-pe.deps    := hw/sim/ici/ici_harness.h hw/sim/common/tsl_rng.h
VL.ici-pe.flags   := $(VL_FAST)
VL.ici-pe.params   = N=$1
VL.ici-pe.cflags  := -O2 $(VL_MODEL_INC)
VL.ici-pe.defs     = PE_N=$1

# The tensor core (mk/tc.mk): configuration N, bf16, VMEM, ACC, HBM bytes.
VL.tc.top     := tsl_tc
VL.tc.exe     := tc_sim
VL.tc.rtl      = $(TSL_RTL_TC)
VL.tc.cpp     := hw/sim/tc/tc_main.cpp hw/sim/tc/tsl_hbm.cpp
VL.tc.deps     = hw/sim/tc/tsl_hbm.h hw/sim/tc/tsl_axi_pins.h hw/sim/tc/gemm_db.h hw/sim/tc/seq_gen.h \
                 hw/model/ref_seq.h $(MODEL_LIB)
VL.tc.flags   := $(VL_FAST) --unroll-count 256
VL.tc.params   = N=$1 EnableBf16=1'b$2 EnableSeq=1'b1 VmemBytes=$3 AccBytes=$4 HbmBytes=$5
VL.tc.cflags  := -O2 $(VL_MODEL_INC) -I$(abspath hw/sim/tc)
VL.tc.defs     = TC_N=$1 TC_BF16=$2 TC_VMEM=$3 TC_ACC=$4 TC_HBM=$5
VL.tc.ldflags  = $(abspath $(MODEL_LIB))

# The lite tensor core (mk/tclite.mk) in the tensor core's harness: N, VMEM, ACC, HBM bytes, AXI bits.
VL.lite.top     := tsl_lite_tc
VL.lite.exe     := tc_sim
VL.lite.rtl      = $(TSL_RTL_LITE)
VL.lite.cpp     := hw/sim/tc/tc_main.cpp hw/sim/tc/tsl_hbm.cpp
VL.lite.deps     = hw/sim/tc/tsl_hbm.h hw/sim/tc/tsl_axi_pins.h hw/sim/tc/gemm_db.h $(MODEL_LIB)
VL.lite.flags   := $(VL.tc.flags) --prefix Vtsl_tc
VL.lite.params   = N=$1 VmemBytes=$2 AccBytes=$3 HbmBytes=$4 AxiBits=$5
VL.lite.cflags  := $(VL.tc.cflags)
VL.lite.defs     = TC_NAME=\\\"lite\\\" TC_CORE=TSL_CORE_LITE TC_TIMEOUT=20000000 TC_N=$1 TC_BF16=0 TC_VMEM=$2 \
                   TC_ACC=$3 TC_HBM=$4 TC_AXI_BYTES=$$(($5/8))
VL.lite.ldflags  = $(abspath $(MODEL_LIB))
# tsl_lite_perf alone, against 64-bit counters in C++.
VL.lite-perf.top    := tsl_lite_perf
VL.lite-perf.exe    := perf_sim
VL.lite-perf.rtl     = $(TSL_RTL_LITE)
VL.lite-perf.cpp    := tests/lite/perf_main.cpp
VL.lite-perf.deps   := hw/sim/common/tsl_rng.h
VL.lite-perf.flags  := -O3
VL.lite-perf.params  = N=$1
VL.lite-perf.cflags := -O2 -I$(abspath hw/include)

# The tile sequencer alone (mk/seq.mk): N, bf16, VMEM, ACC, HBM bytes.
VL.seq.top     := tsl_tc_seq
VL.seq.exe     := seq_sim
VL.seq.rtl      = $(TSL_RTL_PKG) hw/rtl/tc/tsl_tc_seq.sv hw/rtl/tc/tsl_tc_seq_chk.sv
VL.seq.cpp     := hw/sim/tc/seq_main.cpp
VL.seq.deps     = hw/sim/tc/seq_gen.h hw/include/tsl_hw.h $(MODEL_LIB)
VL.seq.flags   := $(VL_FAST)
VL.seq.params   = N=$1 EnableBf16=1'b$2 VmemBytes=$3 AccBytes=$4 HbmBytes=$5
VL.seq.cflags  := -O2 -std=c++20 $(VL_MODEL_INC)
VL.seq.defs     = TC_N=$1 TC_BF16=$2 TC_VMEM=$3 TC_ACC=$4 TC_HBM=$5
VL.seq.ldflags  = $(abspath $(MODEL_LIB))

# The tensor-core controller (mk/tcctrl.mk): N, VMEM, ACC, HBM bytes, QueueDepth, bf16, InflightMax.
VL.tcctrl.top     := tsl_tc_ctrl
VL.tcctrl.exe     := ctrl_sim
VL.tcctrl.rtl      = $(TSL_RTL_TCCTRL)
VL.tcctrl.cpp     := hw/sim/tc/ctrl_main.cpp
VL.tcctrl.deps     = $(MODEL_LIB)
VL.tcctrl.flags   := -O3 --x-assign fast --x-initial fast
VL.tcctrl.params   = N=$1 VmemBytes=$2 AccBytes=$3 HbmBytes=$4 QueueDepth=$5 EnableBf16=1'b$6 EnableSeq=1'b1 \
                     InflightMax=$7
VL.tcctrl.cflags  := -O2 $(VL_MODEL_INC)
VL.tcctrl.defs     = TC_N=$1 TC_VMEM=$2 TC_ACC=$3 TC_HBM=$4 TC_QD=$5 TC_BF16=$6 TC_INFL=$7
VL.tcctrl.ldflags  = $(abspath $(MODEL_LIB))

# The DMA unit and the HBM model (mk/dma.mk): N.
VL.dma.top     := tsl_dma_sim
VL.dma.exe     := dma_sim
VL.dma.rtl      = $(TSL_RTL_DMA) hw/sim/tc/tsl_dma_sim.sv
VL.dma.cpp     := hw/sim/tc/dma_main.cpp hw/sim/tc/tsl_hbm.cpp
VL.dma.deps     = hw/sim/tc/tsl_hbm.h hw/sim/tc/tsl_axi_pins.h $(MODEL_LIB)
VL.dma.flags   := $(VL_FAST)
VL.dma.params   = N=$1
VL.dma.cflags  := -O2 -std=c++17 $(VL_MODEL_INC) -I$(abspath hw/sim/tc)
VL.dma.defs     = DMA_N=$1
VL.dma.ldflags  = $(abspath $(MODEL_LIB))

# The MXU (mk/mxu.mk): N. The array is N^2 unrolled cells in C++: N <= 16 is compiled optimised,
# N = 32 at -O0 (the C++ build time dominates its short test run; see docs/hardware.md).
VL.mxu.top     := tsl_mxu_sim
VL.mxu.exe     := mxu_sim
VL.mxu.rtl      = $(TSL_RTL_MXU) hw/sim/mxu/tsl_mxu_sim.sv
VL.mxu.cpp     := hw/sim/mxu/mxu_main.cpp
VL.mxu.deps     = $(MODEL_LIB)
VL.mxu.flags   := $(VL_FAST) --unroll-count 256
VL.mxu.params   = N=$1
VL.mxu.cflags   = $(if $(filter 32,$1),-O0,-O2) $(VL_MODEL_INC)
VL.mxu.defs     = MXU_N=$1
VL.mxu.ldflags  = $(abspath $(MODEL_LIB))
# The MXU's fp32 adder against tslm_f32_add.
VL.mxu-fadd.top     := tsl_mxu_fadd
VL.mxu-fadd.exe     := fadd_sim
VL.mxu-fadd.rtl      = $(TSL_RTL_MXU)
VL.mxu-fadd.cpp     := hw/sim/mxu/fadd_main.cpp
VL.mxu-fadd.deps     = $(MODEL_LIB)
VL.mxu-fadd.flags   := -O3
VL.mxu-fadd.cflags  := -O2 $(VL_MODEL_INC)
VL.mxu-fadd.ldflags  = $(abspath $(MODEL_LIB))

# The VPU (mk/vpu.mk): N, and EnableBf16 when it is not the default.
VL.vpu.top     := tsl_vpu_sim
VL.vpu.exe     := vpu_sim
VL.vpu.rtl      = $(TSL_RTL_VPU) hw/sim/tc/tsl_vpu_sim.sv
VL.vpu.cpp     := hw/sim/tc/vpu_main.cpp
VL.vpu.deps     = $(MODEL_LIB)
VL.vpu.flags   := --unroll-count 1024 $(VL_FAST)
VL.vpu.params   = N=$1 $(if $2,EnableBf16=1'b$2) $(if $3,FnRows=$3)
VL.vpu.cflags  := -O2 $(VL_MODEL_INC)
VL.vpu.defs     = VPU_N=$1 $(if $2,VPU_BF16=$2)
VL.vpu.ldflags  = $(abspath $(MODEL_LIB))
# The VPU's fp32 multiplier against tslm_f32_mul.
VL.vpu-fmul.top     := tsl_vpu_fmul
VL.vpu-fmul.exe     := fmul_sim
VL.vpu-fmul.rtl      = $(TSL_RTL_VPU)
VL.vpu-fmul.cpp     := hw/sim/tc/fmul_main.cpp
VL.vpu-fmul.deps     = $(MODEL_LIB)
VL.vpu-fmul.flags   := -O3
VL.vpu-fmul.cflags  := -O2 $(VL_MODEL_INC)
VL.vpu-fmul.ldflags  = $(abspath $(MODEL_LIB))

VL.vpu-eup.top     := tsl_vpu_eup
VL.vpu-eup.exe     := eup_sim
VL.vpu-eup.rtl      = $(TSL_RTL_PKG) hw/rtl/tc/tsl_vpu_eup.sv
VL.vpu-eup.cpp     := hw/sim/tc/eup_main.cpp
VL.vpu-eup.deps     = $(MODEL_LIB)
VL.vpu-eup.flags   := -O3
VL.vpu-eup.cflags  := -O2 $(VL_MODEL_INC)
VL.vpu-eup.ldflags  = $(abspath $(MODEL_LIB))

# The control core and its RAM (mk/core.mk): the runner tessel-run; IterMul (1: the small iterative
# multiplier, as on iCE40) when it is not the default.
VL.core.top    := tsl_cpu_sys_sim
VL.core.exe    := tessel-run
VL.core.rtl     = $(TSL_RTL_CPU_SIM)
VL.core.cpp     = hw/sim/core/tsl_core_sim.cpp hw/sim/core/tessel_run.cpp $(ELF_OBJ)
VL.core.deps   := hw/sim/core/tsl_core_sim.h common/elf_image.h
VL.core.flags  := -O3 --x-assign fast --x-initial fast --trace-fst --assert
VL.core.params  = $(if $1,IterMul=1'b$1)
VL.core.cflags := -O2 -I$(abspath hw/sim/core) -I$(abspath common)

# The FPGA builds (mk/fpga.mk). The UART bridge alone: clocks per bit.
VL.bridge.top       := tsl_uart_bridge
VL.bridge.exe       := bridge_sim
VL.bridge.rtl        = $(TSL_RTL_UART_BRIDGE)
VL.bridge.cpp       := hw/sim/fpga/uart_bridge_main.cpp
VL.bridge.deps      := hw/sim/fpga/tsl_uart_sim.h hw/sim/common/tsl_rng.h
VL.bridge.flags     := -O3 --x-assign fast --x-initial fast
VL.bridge.params     = ClksPerBit=$1
VL.bridge.cflags    := -O2 -I$(abspath hw/sim/common)
VL.bridge.defs       = UART_CPB=$1
VL.bridge.makeflags := OPT_FAST=-O2
# The board tops driven through their UART pins by hw/sim/fpga/fpga_top_main.cpp: tsl_fpga_top at its
# defaults (N=4 int8, VMEM 16 KiB, ACC 4 KiB, HBM 256 KiB, FPGA_CPB clocks/bit: mk/fpga.mk), and
# tsl_ice40_top (BAR1 128 KiB), its RTL or the bitstream's synthesised netlist with the cell models of
# the Yosys that made it (fpga/board.mk).
VL.fpga.top       = $(FPGA_TOP)
VL.fpga.exe      := fpga_top_sim
VL.fpga.rtl       = $(FPGA_RTL)
VL.fpga.cpp       = hw/sim/fpga/fpga_top_main.cpp $(ELF_OBJ)
VL.fpga.deps     := hw/sim/fpga/tsl_uart_sim.h common/elf_image.h hw/include/tsl_hw.h fpga/board.mk
VL.fpga.flags    := $(VL_FAST) --unroll-count 256
VL.fpga.cflags   := -O2 -I$(abspath hw/sim/common) -I$(abspath common) -I$(abspath hw/include)
VL.fpga.defs      = FPGA_CPB=$(FPGA_CPB) FPGA_SOC=1 FPGA_HBM=262144
VL.fpga.makeflags := OPT_FAST=-O2
VL.ice40.top        = $(ICE40_TOP)
VL.ice40.exe       := fpga_top_sim
VL.ice40.rtl        = $(ICE40_RTL)
VL.ice40.cpp        = hw/sim/fpga/fpga_top_main.cpp $(MODEL_LIB)
VL.ice40.deps       = $(VL.fpga.deps)
VL.ice40.flags     := $(VL.fpga.flags)
VL.ice40.cflags    := $(VL.fpga.cflags) -I$(abspath hw/model)
VL.ice40.defs       = FPGA_CPB=$(FPGA_CPB) FPGA_SOC=0 FPGA_HBM=65536 FPGA_N=4 FPGA_ACC=4096
VL.ice40.makeflags := OPT_FAST=-O2
VL.ice40-gl.top        = $(ICE40_TOP)
VL.ice40-gl.exe       := fpga_top_sim
VL.ice40-gl.rtl        = $(ICE40_NETLIST) $(ICE40_CELLS)
VL.ice40-gl.cpp        = $(VL.ice40.cpp)
VL.ice40-gl.deps       = $(VL.fpga.deps)
VL.ice40-gl.flags     := $(VL.fpga.flags) -Wno-fatal -Wno-lint -Wno-style -DNO_ICE40_DEFAULT_ASSIGNMENTS
VL.ice40-gl.cflags    := $(VL.ice40.cflags)
VL.ice40-gl.defs       = $(VL.ice40.defs) FPGA_GL=1
VL.ice40-gl.makeflags := OPT_FAST=-O2
# hw/sim/board/board_main.cpp (mk/uart.mk) linked to a board top's model: the model's build
# directory, and 1 for the iCEBreaker's top.
VL.board.link    := board_main
VL.board.exe     := board_sim
VL.board.cpp     := hw/sim/board/board_main.cpp
VL.board.deps    := hw/sim/board/tsl_pty.h hw/sim/fpga/tsl_uart_sim.h hw/sim/vlink.mk
VL.board.cflags  := -O2 -I$(abspath hw/sim/board) -I$(abspath hw/sim/fpga)
VL.board.defs     = BOARD_CPB=$(FPGA_CPB) $(if $2,BOARD_ICE40=$2)

# The SoC (mk/soc.mk; SOC_N, SOC_BF16, SOC_VMEM, SOC_ACC, SOC_HBM and SOC_CFLAGS there): N and bf16
# when they are not the SoC's. The shared build: verilated once, position independent, its objects
# made for libtessel, `tessel` and the SoC's harness (SOC_SIM). Two models: the chip alone without
# the ICI unit (EnableIci 0), and the pod's chip (soc-pod, below), whose archive it links.
VL.soc.top    := tsl_soc
VL.soc.rtl     = $(TSL_RTL_SOC)
VL.soc.cpp    := hw/sim/soc/tsl_soc_sim.cpp hw/sim/tc/tsl_hbm.cpp hw/sim/soc/tsl_soc_run.cpp
VL.soc.deps   := hw/sim/soc/tsl_soc_sim.h hw/sim/soc/tsl_soc_vl.h hw/sim/soc/tsl_soc_run.h common/elf_image.h \
                 hw/sim/tc/tsl_hbm.h hw/sim/tc/tsl_axi_pins.h hw/include/tsl_hw.h $(BUILD)/soc/pod/objs.stamp
VL.soc.flags  := $(VL_FAST) --unroll-count 256 --trace-fst
VL.soc.params  = N=$(or $1,$(SOC_N)) EnableBf16=1'b$(or $2,$(SOC_BF16)) VmemBytes=$(SOC_VMEM) AccBytes=$(SOC_ACC) \
                 HbmBytes=$(SOC_HBM) EnableIci=1'b$(or $3,0)
VL.soc.cflags  = -fPIC $(SOC_CFLAGS) -DSOC_POD_MODEL -I$(abspath $(BUILD)/soc/pod)
VL.soc.objs   := verilated.o verilated_dpi.o verilated_fst_c.o verilated_threads.o tsl_soc_sim.o tsl_hbm.o \
                 tsl_soc_run.o
# The SoC of a pod's chip (EnableIci 1): the model Vtsl_pod_soc, its archive only, without the DPI's
# C names (a process has one set of them, the chip alone's: tsl_soc_sim.cpp calls each model's own).
VL.soc-pod.top    := tsl_soc
VL.soc-pod.prefix := Vtsl_pod_soc
VL.soc-pod.rtl     = $(TSL_RTL_SOC)
VL.soc-pod.flags  := $(VL.soc.flags) --prefix Vtsl_pod_soc
VL.soc-pod.params  = $(call VL.soc.params,,,1)
VL.soc-pod.cflags  = -fPIC $(SOC_CFLAGS)
VL.soc-pod.objs   := Vtsl_pod_soc__ALL.a
VL.soc-pod.after   = $(AR) d $1/Vtsl_pod_soc__ALL.a Vtsl_pod_soc__Dpi.o
# libtessel's sim backend on a SoC with tests/asrt/tsl_asrt_trip.sv bound in (mk/asrt.mk): one model,
# with the ICI unit, for a chip alone and a pod's chips.
VL.soc-asrt.top    := tsl_soc
VL.soc-asrt.rtl     = $(TSL_RTL_SOC)
VL.soc-asrt.cpp    := tests/asrt/tsl_asrt_trip.sv hw/sim/soc/tsl_soc_sim.cpp hw/sim/tc/tsl_hbm.cpp \
                      host_driver/src/transport_sim.cpp
VL.soc-asrt.deps    = hw/sim/soc/tsl_soc_sim.h hw/sim/soc/tsl_soc_vl.h hw/sim/tc/tsl_hbm.h \
                      hw/sim/tc/tsl_axi_pins.h host_driver/src/tessel_int.h host_driver/src/tessel_sim_fault.h \
                      host_driver/include/tessel.h
VL.soc-asrt.flags  := $(VL.soc.flags)
VL.soc-asrt.params  = $(call VL.soc.params,$1,,1)
VL.soc-asrt.cflags  = -fPIC $(patsubst -DSOC_N=%,-DSOC_N=$1,$(SOC_CFLAGS)) -DSOC_BF16=$(SOC_BF16) -DSOC_VMEM=$(SOC_VMEM) \
                      -DSOC_ACC=$(SOC_ACC) $(foreach i,host_driver/include firmware/cp hw/model,-I$(abspath $(i)))
VL.soc-asrt.objs   := verilated.o verilated_dpi.o verilated_fst_c.o verilated_threads.o tsl_soc_sim.o tsl_hbm.o \
                      transport_sim.o
# The SoC and its harness tests/soc/soc_host_test.cpp with unknowns made random (mk/rel.mk).
VL.soc-xrand.top       := tsl_soc
VL.soc-xrand.exe       := soc_host_test
VL.soc-xrand.rtl        = $(TSL_RTL_SOC)
VL.soc-xrand.cpp        = $(VL.soc.cpp) tests/soc/soc_host_test.cpp $(ELF_OBJ)
VL.soc-xrand.deps       = $(wildcard hw/sim/soc/*.cpp hw/sim/soc/*.h hw/sim/core/*.cpp hw/sim/core/*.h hw/sim/tc/*.cpp \
                          hw/sim/tc/*.h) common/elf_image.h tests/soc/host_proto.h
VL.soc-xrand.flags     := -O3 --assert --unroll-count 256 --trace-fst --x-assign unique --x-initial unique
VL.soc-xrand.params     = $(call VL.soc.params,$1,,1)
VL.soc-xrand.cflags     = $(patsubst -DSOC_N=%,-DSOC_N=$1,$(SOC_CFLAGS)) -I$(abspath tests/soc)
VL.soc-xrand.makeflags := OPT_FAST=-O2
# The simulator's speed (mk/bench_sim.mk): the SoC linked with libtessel's objects and
# tests/bench_sim/bench_sim.cpp, built from scratch and timed (build.time); EnableBf16.
VL.bench.top       := tsl_soc
VL.bench.exe       := bench_sim
VL.bench.rtl        = $(TSL_RTL_SOC)
VL.bench.cpp       := hw/sim/soc/tsl_soc_sim.cpp hw/sim/tc/tsl_hbm.cpp host_driver/src/transport_sim.cpp \
                      tests/bench_sim/bench_sim.cpp
VL.bench.deps      := hw/sim/soc/tsl_soc_sim.h common/elf_image.c hw/sim/common/tsl_rng.h
VL.bench.flags     := -O3 --x-assign fast --x-initial fast --unroll-count 256 --trace-fst --noassert -Wno-fatal
VL.bench.params     = $(call VL.soc.params,,$1)
VL.bench.cflags     = $(SOC_CFLAGS) -I$(abspath host_driver/include) -I$(abspath host_driver/src) \
                      -I$(abspath hw/sim/common) -DSOC_BF16=$1 -DSOC_VMEM=$(SOC_VMEM) -DSOC_ACC=$(SOC_ACC) \
                      -DTESSEL_FW_DEFAULT='\"$(HOST_FW_PATH)\"'
VL.bench.ldflags    = $(abspath $(HOST_OBJS)) -lz -lpthread -lm
VL.bench.makeflags := OPT_FAST=-O2
VL.bench.fresh     := 1
VL.bench.first      = $(HOST_OBJS)
VL.bench.wrap       = /usr/bin/time -v -o $1/build.time

# --- the table ----------------------------------------------------------------------------------------
# Configurations shared by rows: the tensor core's and the sequencer's (N, bf16, VMEM, ACC, HBM bytes),
# the lite core's (N, VMEM, ACC, HBM bytes, AXI bits: n4 is the iCEBreaker's core with smaller
# memories, n8 has tsl_tc's AXI width 16N).
VL_TC_n4   := 4 1 16384 4096 262144
VL_TC_n8   := 8 0 32768 8192 262144
VL_TC_n16  := 16 1 262144 65536 1048576
VL_LITE_n4 := 4 16384 4096 262144 32
VL_LITE_n8 := 8 32768 8192 262144 128

#        build directory     family     configuration                           extra flags
$(call vl, tc/n4,              tc,        $(VL_TC_n4))
$(call vl, tc/n8,              tc,        $(VL_TC_n8))
$(call vl, tc/n16,             tc,        $(VL_TC_n16))
$(call vl, tc/n4_trace,        tc,        $(VL_TC_n4),                            --trace-fst)
$(call vl, tc/n8_trace,        tc,        $(VL_TC_n8),                            --trace-fst)
$(call vl, tc/n16_trace,       tc,        $(VL_TC_n16),                           --trace-fst)
$(call vl, lite/n4,            lite,      $(VL_LITE_n4))
$(call vl, lite/n8,            lite,      $(VL_LITE_n8))
$(call vl, lite/n4_trace,      lite,      $(VL_LITE_n4),                          --trace-fst)
$(call vl, lite/n8_trace,      lite,      $(VL_LITE_n8),                          --trace-fst)
$(call vl, lite/perf,          lite-perf, 32768)
$(call vl, seq/n4,             seq,       $(VL_TC_n4))
$(call vl, seq/n8,             seq,       $(VL_TC_n8))
$(call vl, seq/n16,            seq,       $(VL_TC_n16))
$(call vl, seq/big,            seq,       4 1 16777216 16777216 268435456)
$(call vl, seq/n4_trace,       seq,       $(VL_TC_n4),                            --trace-fst)
$(call vl, seq/n8_trace,       seq,       $(VL_TC_n8),                            --trace-fst)
$(call vl, seq/n16_trace,      seq,       $(VL_TC_n16),                           --trace-fst)
$(call vl, tcctrl/n4,          tcctrl,    4 65536 16384 1048576 8 0 2)
$(call vl, tcctrl/n16,         tcctrl,    16 262144 65536 67108864 16 1 4)
$(call vl, dma/n4,             dma,       4)
$(call vl, dma/n16,            dma,       16)
$(call vl, dma/n4_trace,       dma,       4,                                      --trace-fst)
$(call vl, dma/n16_trace,      dma,       16,                                     --trace-fst)
$(call vl, mxu/n4,             mxu,       4)
$(call vl, mxu/n8,             mxu,       8)
$(call vl, mxu/n16,            mxu,       16)
$(call vl, mxu/n32,            mxu,       32)
$(call vl, mxu/n4_trace,       mxu,       4,                                      --trace-fst)
$(call vl, mxu/n8_trace,       mxu,       8,                                      --trace-fst)
$(call vl, mxu/n16_trace,      mxu,       16,                                     --trace-fst)
$(call vl, mxu/n32_trace,      mxu,       32,                                     --trace-fst)
$(call vl, mxu/fadd,           mxu-fadd)
$(call vl, vpu/n4,             vpu,       4 1 2)
$(call vl, vpu/n8,             vpu,       8)
$(call vl, vpu/n16,            vpu,       16)
$(call vl, vpu/n32,            vpu,       32)
$(call vl, vpu/n4_int,         vpu,       4 0)
$(call vl, vpu/n4_trace,       vpu,       4 1 2,                                  --trace-fst)
$(call vl, vpu/n8_trace,       vpu,       8,                                      --trace-fst)
$(call vl, vpu/n16_trace,      vpu,       16,                                     --trace-fst)
$(call vl, vpu/n32_trace,      vpu,       32,                                     --trace-fst)
$(call vl, vpu/fmul,           vpu-fmul)
$(call vl, vpu/eup,            vpu-eup)
$(call vl, ici/b8,             ici,       8 512)
$(call vl, ici/b4,             ici,       4 64)
$(call vl, ici/router2,        ici-router, 2)
$(call vl, ici/router4,        ici-router, 4)
$(call vl, ici/sem16,          ici-sem,   16 37)
$(call vl, ici/sem4,           ici-sem,   4 5)
$(call vl, ici/pe16,           ici-pe,    16)
$(call vl, ici/pe4,            ici-pe,    4)
$(call vl, core/verilator,     core)
$(call vl, core/itermul,       core,      1)
$(call vl, fpga/bridge,        bridge,    12)
$(call vl, fpga/top,           fpga)
$(call vl, fpga/ice40-sim,     ice40)
$(call vl, fpga/ice40-gl,      ice40-gl)
$(call vl, uart/board,         board,     fpga/top)
$(call vl, uart/ice40,         board,     fpga/ice40-sim 1)
$(call vl, uart/ice40-gl,      board,     fpga/ice40-gl 1)
$(call vl, soc/pod,            soc-pod)
$(call vl, soc/verilator,      soc)
$(call vl, asrt/sim/verilator, soc-asrt,  4)
$(call vl, rel/xrand,          soc-xrand, 4)
$(call vl, bench/sim_default,  bench,     1)
$(call vl, bench/sim_int8,     bench,     0)
