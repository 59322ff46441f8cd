#!/bin/sh
# Lab 4 check: grade the source tree TREE (a copy of the repo with a new VPU op ABS) in place.
#   tests/labs/4/check.sh TREE      (mk/labs.mk: make lab-4-check, make test-lab-4-ref)
# Runs, in TREE: the generated files are up to date (test-gen-check); the model's ABS against this
# lab's own reference (tests/labs/4/test_abs.c); TREE's model instruction tests; TREE's VPU harness
# (its op list comes from the spec) runs ABS and its RTL-vs-model random test passes at N = 4; VPU
# and tensor-core lint; the lite core's directed test at N = 4, which refuses ABS with
# ERR_BAD_OPCODE (or, if the spec gives ABS to the lite core, computes it against the model); the
# SDK compiles an ABS program for the control core. Each step prints "N passed, M failed".
set -u
TREE=$1
LAB=$(cd "$(dirname "$0")" && pwd)
MAKE=${MAKE:-make}
fails=0
step() { # step NAME PASSED(0|1) [message]
  if [ "$2" -eq 0 ]; then echo "$1: 1 passed, 0 failed"; else echo "$1: ${3:-failed}"; echo "$1: 0 passed, 1 failed"; fails=1; fi
}
[ -f "$TREE/hw/spec/tessel.toml" ] || { step lab4_tree 1 "$TREE is not a Tessel source tree (make lab-4-start)"; exit 1; }
grep -q '"ABS"' "$TREE/hw/spec/tessel.toml"
step lab4_spec $? "hw/spec/tessel.toml has no VPU op ABS"

$MAKE -C "$TREE" -s --no-print-directory BUILD=build test-gen-check || fails=1
$MAKE -C "$TREE" -s --no-print-directory BUILD=build build/model/libtessel_model.a >/dev/null || fails=1
if ${CC:-cc} -std=c11 -O2 -Wall -Wextra -Werror -I"$TREE/hw/model" -I"$TREE/hw/include" "$LAB/test_abs.c" \
     "$TREE/build/model/libtessel_model.a" -o "$TREE/build/lab4_test_abs"; then
  "$TREE/build/lab4_test_abs" || fails=1
else
  step lab4_model_abs 1 "tests/labs/4/test_abs.c does not build against the tree (TSL_VPU_OP_ABS?)"
fi
$MAKE -C "$TREE" -s --no-print-directory BUILD=build test-model-insn || fails=1

$MAKE -C "$TREE" -s --no-print-directory BUILD=build VPU_RUNS=8 test-vpu-lint test-vpu-n4 test-tc-lint \
  >"$TREE/build/lab4_vpu.log" 2>&1 || fails=1
cat "$TREE/build/lab4_vpu.log"
grep -q "^vpu_n4: ops .* ABS" "$TREE/build/lab4_vpu.log"
step lab4_vpu_harness $? "the VPU harness does not run ABS (its ops: the [[ops]] table of hw/spec/tessel.toml)"

# The lite core: its directed test pushes every op the core lacks and expects ERR_BAD_OPCODE, as
# the model running as the lite core says; with ABS on the lite core it computes ABS instead.
$MAKE -C "$TREE" -s --no-print-directory BUILD=build build/lite/n4/tc_sim || fails=1
"$TREE/build/lite/n4/tc_sim" directed >"$TREE/build/lab4_lite.log" 2>&1 || fails=1
cat "$TREE/build/lab4_lite.log"
if grep -q "^lite_n4 directed: ops this core lacks, ERR_BAD_OPCODE:.* VPU\.ABS" "$TREE/build/lab4_lite.log"; then
  step lab4_lite_abs 0
elif grep -qE '^ *\{ *name *= *"ABS".*"lite"' "$TREE/hw/spec/tessel.toml"; then
  grep -q "^lite_n4_directed: [0-9]* passed, 0 failed" "$TREE/build/lab4_lite.log"
  step lab4_lite_abs $? "the lite core implements ABS (hw/spec/tessel.toml) but its directed test fails"
else
  step lab4_lite_abs 1 "the lite core neither refuses ABS with ERR_BAD_OPCODE nor implements it"
fi

riscv64-unknown-elf-gcc -march=rv32im_zicsr -mabi=ilp32 --specs=picolibc.specs -std=c11 -Wall -Wextra -Werror \
  -fsyntax-only -I"$TREE/sdk/include" -I"$TREE/hw/include" "$LAB/vabs_fw.c"
step lab4_sdk $? "tests/labs/4/vabs_fw.c does not compile against the tree's SDK"
exit $fails
