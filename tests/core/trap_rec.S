/* Minimal trap recorder for the portable tests (runs on the Tessel core and on QEMU): stores
   mcause, mepc, mtval and mstatus in trap_rec, counts traps, and resumes at trap_resume if that is
   non-zero (then clears it), else at mepc + 4. Saves only the two registers it uses. */
  .section .text.trap_rec, "ax"
  .balign 4
  .globl trap_rec_entry
trap_rec_entry:
  csrw  mscratch, t0
  la    t0, trap_rec
  sw    t1, 20(t0)
  csrr  t1, mcause
  sw    t1, 0(t0)
  csrr  t1, mepc
  sw    t1, 4(t0)
  csrr  t1, mtval
  sw    t1, 8(t0)
  csrr  t1, mstatus
  sw    t1, 12(t0)
  lw    t1, 16(t0)
  addi  t1, t1, 1
  sw    t1, 16(t0)
  lw    t1, 24(t0)
  beqz  t1, 1f
  sw    zero, 24(t0)
  csrw  mepc, t1
  j     2f
1:
  csrr  t1, mepc
  addi  t1, t1, 4
  csrw  mepc, t1
2:
  lw    t1, 20(t0)
  csrr  t0, mscratch
  mret

  .section .bss.trap_rec, "aw", @nobits
  .balign 4
  .globl trap_rec
trap_rec:
  .space 28   /* mcause, mepc, mtval, mstatus, count, saved t1, resume address */
