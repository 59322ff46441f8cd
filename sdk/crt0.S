/* Tessel SDK start-up: runs from the reset PC (RAM base). Clears x1-x31, sets gp, sp and tp, points
   mtvec at the SDK trap entry, zeroes .bss, runs constructors, calls main(0, 0) and passes its
   return value to exit(), which ends in _exit() writing SYS.EXIT. */
  .section .text.init, "ax"
  .globl _start
_start:
  /* The register file is not reset: clear it, so that the callee-saved registers main() and its
     callees save and restore hold 0 rather than unknown values. */
  .irp r, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, \
         17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
  li    x\r, 0
  .endr
  .option push
  .option norelax
  la    gp, __global_pointer$
  .option pop
  la    sp, __stack
  la    tp, __tls_base
  la    t0, tsl_trap_entry
  csrw  mtvec, t0
  la    t0, __bss_start
  la    t1, __bss_end
1:
  bgeu  t0, t1, 2f
  sw    zero, 0(t0)
  addi  t0, t0, 4
  j     1b
2:
  call  __libc_init_array
  li    a0, 0
  li    a1, 0
  call  main
  call  exit
3:
  j     3b

/* Trap entry: saves the caller-saved registers and mepc in a tsl_trap_frame_t on the stack, calls
   tsl_trap_dispatch(frame), then restores them (a handler may change any of them) and returns. */
  .section .text, "ax"
  .balign 4
  .globl tsl_trap_entry
tsl_trap_entry:
  addi  sp, sp, -80
  sw    ra,  0(sp)
  sw    t0,  4(sp)
  sw    t1,  8(sp)
  sw    t2, 12(sp)
  sw    a0, 16(sp)
  sw    a1, 20(sp)
  sw    a2, 24(sp)
  sw    a3, 28(sp)
  sw    a4, 32(sp)
  sw    a5, 36(sp)
  sw    a6, 40(sp)
  sw    a7, 44(sp)
  sw    t3, 48(sp)
  sw    t4, 52(sp)
  sw    t5, 56(sp)
  sw    t6, 60(sp)
  csrr  t0, mepc
  sw    t0, 64(sp)
  csrr  t0, mcause
  sw    t0, 68(sp)
  csrr  t0, mtval
  sw    t0, 72(sp)
  mv    a0, sp
  call  tsl_trap_dispatch
  lw    t0, 64(sp)
  csrw  mepc, t0
  lw    ra,  0(sp)
  lw    t0,  4(sp)
  lw    t1,  8(sp)
  lw    t2, 12(sp)
  lw    a0, 16(sp)
  lw    a1, 20(sp)
  lw    a2, 24(sp)
  lw    a3, 28(sp)
  lw    a4, 32(sp)
  lw    a5, 36(sp)
  lw    a6, 40(sp)
  lw    a7, 44(sp)
  lw    t3, 48(sp)
  lw    t4, 52(sp)
  lw    t5, 56(sp)
  lw    t6, 60(sp)
  addi  sp, sp, 80
  mret
