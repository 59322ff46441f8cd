/* Portable trap and CSR test: ecall, ebreak, illegal instructions, misaligned jump/branch targets,
 * CSR read/write/set/clear (register and immediate forms), mret and mstatus.MIE/MPIE, counters.
 * Expected values follow the RISC-V privileged spec; the same binary logic runs on QEMU, which
 * confirms them. Prints `trap: N passed, M failed`. */
#include "trap_rec.h"

/* Execute one raw instruction word with a known value in a5; returns the address of the word. */
#define EXEC_WORD(word, a5_io)                                                       \
  ({                                                                                 \
    uint32_t at_;                                                                    \
    register uint32_t a5_ __asm__("a5") = (a5_io);                                   \
    __asm__ volatile("la %0, 1f\n1: .word " TR_STR(word) : "=&r"(at_), "+r"(a5_)::"memory"); \
    (a5_io) = a5_;                                                                   \
    at_;                                                                             \
  })

static void expect_trap_tval(const char *name, uint32_t cause, uint32_t epc, uint32_t tval,
                             uint32_t count_before, int tval_core_only) {
  char buf[64];
  snprintf(buf, sizeof buf, "%s count", name);
  check(buf, trap_rec.count, count_before + 1);
  snprintf(buf, sizeof buf, "%s mcause", name);
  check(buf, trap_rec.mcause, cause);
  snprintf(buf, sizeof buf, "%s mepc", name);
  check(buf, trap_rec.mepc, epc);
  snprintf(buf, sizeof buf, "%s mtval", name);
  if (tval_core_only) {
    check_core_only(buf, trap_rec.mtval, tval);
  } else {
    check(buf, trap_rec.mtval, tval);
  }
}

static void expect_trap(const char *name, uint32_t cause, uint32_t epc, uint32_t tval,
                        uint32_t count_before) {
  expect_trap_tval(name, cause, epc, tval, count_before, 0);
}

#define ILLEGAL(word, name)                                       \
  do {                                                            \
    uint32_t ill_c_ = trap_rec.count, a5v_ = 0x5a5a5a5a;          \
    uint32_t ill_at_ = EXEC_WORD(word, a5v_);                     \
    expect_trap(name, 2, ill_at_, (uint32_t)(word), ill_c_);      \
    check(name " keeps a5", a5v_, 0x5a5a5a5a);                   \
  } while (0)

static void test_ecall_ebreak(void) {
  uint32_t c = trap_rec.count, at;
  __asm__ volatile("la %0, 1f\n1: ecall" : "=r"(at)::"memory");
  expect_trap("ecall", 11, at, 0, c);
  c = trap_rec.count;
  __asm__ volatile("la %0, 1f\n1: ebreak" : "=r"(at)::"memory");
  expect_trap("ebreak", 3, at, 0, c);
}

static void test_illegal(void) {
  ILLEGAL(0x00000000, "all-zero word");
  ILLEGAL(0xffffffff, "all-ones word");
  ILLEGAL(0x04000033, "OP funct7=2");
  ILLEGAL(0x40079793, "SLLI funct7=0x20");
  ILLEGAL(0x8007d793, "SRLI funct7=0x40");
  ILLEGAL(0x0007b783, "LD (RV64)");
  ILLEGAL(0x0007e783, "load funct3=6");
  ILLEGAL(0x0007b023, "SD (RV64)");
  ILLEGAL(0x00079067, "JALR funct3=1");
  ILLEGAL(0x00002063, "branch funct3=2");
  ILLEGAL(0x0000200f, "fence funct3=2");
  ILLEGAL(0x00104073, "system funct3=4");
  ILLEGAL(0x00200073, "uret");
  ILLEGAL(0x10200073, "sret");
  ILLEGAL(0x00000173, "ecall with rd");
  ILLEGAL(0x0000200b, "custom-0");
  ILLEGAL(0x0000007b, "custom-3");
  ILLEGAL(0x7c0027f3, "csrr unknown 0x7c0");
  ILLEGAL(0x001027f3, "csrr fflags");
  ILLEGAL(0xc0079073, "csrw cycle");
  ILLEGAL(0xf1479073, "csrw mhartid");
  ILLEGAL(0xf1416073, "csrrsi mhartid, 2");
}

/* Reading a read-only CSR with CSRRS/CSRRC rs1=x0 or CSRRSI zimm=0 does not write, so no trap. */
static void test_csr_readonly_reads(void) {
  uint32_t c = trap_rec.count, v = 0x5a5a5a5a;
  EXEC_WORD(0xf14027f3, v); /* csrrs a5, mhartid, x0 */
  check("csrrs mhartid,x0", v, 0);
  v = 0;
  EXEC_WORD(0x301067f3, v); /* csrrsi a5, misa, 0 */
  check("misa (RV32IM)", v, 0x40001100);
  EXEC_WORD(0xc00037f3, v); /* csrrc a5, cycle, x0 */
  check("read-only reads do not trap", trap_rec.count, c);
}

static void test_csr_ops(void) {
  uint32_t old, now;
  CSR_WRITE(mscratch, 0x12345678);
  __asm__ volatile("csrrw %0, mscratch, %1" : "=r"(old) : "r"(0xffffffffu));
  check("csrrw old", old, 0x12345678);
  check("csrrw new", CSR_READ(mscratch), 0xffffffff);
  CSR_WRITE(mscratch, 0x00ff0000);
  __asm__ volatile("csrrs %0, mscratch, %1" : "=r"(old) : "r"(0x000000f0u));
  check("csrrs old", old, 0x00ff0000);
  check("csrrs new", CSR_READ(mscratch), 0x00ff00f0);
  __asm__ volatile("csrrc %0, mscratch, %1" : "=r"(old) : "r"(0x00f00000u));
  check("csrrc old", old, 0x00ff00f0);
  check("csrrc new", CSR_READ(mscratch), 0x000f00f0);
  __asm__ volatile("csrrwi %0, mscratch, 0x1f" : "=r"(old));
  check("csrrwi old", old, 0x000f00f0);
  check("csrrwi new", CSR_READ(mscratch), 0x1f);
  __asm__ volatile("csrrsi %0, mscratch, 0" : "=r"(old));
  check("csrrsi 0 old", old, 0x1f);
  check("csrrsi 0 keeps", CSR_READ(mscratch), 0x1f);
  __asm__ volatile("csrrci %0, mscratch, 3" : "=r"(old));
  check("csrrci new", CSR_READ(mscratch), 0x1c);
  __asm__ volatile("csrrsi %0, mscratch, 0x10\n csrr %1, mscratch" : "=r"(old), "=r"(now));
  check("csrrsi old", old, 0x1c);
  check("csrrsi new", now, 0x1c);
  __asm__ volatile("csrrw x0, mscratch, %1\n csrrs %0, mscratch, x0" : "=r"(now) : "r"(0xa5u));
  check("csrrw rd=x0 writes", now, 0xa5);
  CSR_WRITE(mcause, 0xdeadbeef);
  check("mcause rw", CSR_READ(mcause), 0xdeadbeef);
  CSR_WRITE(mtval, 0x87654321);
  check("mtval rw", CSR_READ(mtval), 0x87654321);
  CSR_WRITE(mepc, 0x80001234);
  check("mepc rw", CSR_READ(mepc), 0x80001234);
  CSR_WRITE(mie, 0x880);
  check("mie MTIE|MEIE", CSR_READ(mie) & 0x880, 0x880);
  CSR_WRITE(mie, 0);
  check("mie clear", CSR_READ(mie) & 0x880, 0);
  uint32_t vec = CSR_READ(mtvec);
  CSR_WRITE(mtvec, 0x80000100);
  check("mtvec rw", CSR_READ(mtvec), 0x80000100);
  CSR_WRITE(mtvec, vec);
  check("mhartid", CSR_READ(mhartid), 0);
}

static void test_mret_and_mstatus(void) {
  uint32_t st, c;
  /* mret: MIE <- MPIE, MPIE <- 1, pc <- mepc. mie is 0, so enabling MIE takes no interrupt. */
  CSR_WRITE(mie, 0);
  CSR_WRITE(mstatus, 0x1880); /* MPP=M, MPIE=1, MIE=0 */
  __asm__ volatile("la t0, 1f\n csrw mepc, t0\n mret\n li %0, 0\n 1: csrr %0, mstatus"
                   : "=r"(st)::"t0");
  check("mret MIE<-MPIE, MPIE<-1", st & 0x88, 0x88);
  CSR_WRITE(mstatus, 0x1800); /* MPIE=0, MIE=0 */
  __asm__ volatile("la t0, 1f\n csrw mepc, t0\n mret\n li %0, 0\n 1: csrr %0, mstatus"
                   : "=r"(st)::"t0");
  check("mret MIE<-0, MPIE<-1", st & 0x88, 0x80);
  /* Trap entry: MPIE <- MIE, MIE <- 0; the recorder's mret restores MIE. */
  CSR_WRITE(mstatus, 0x1808);
  c = trap_rec.count;
  __asm__ volatile("ecall" ::: "memory");
  check("trap entry count", trap_rec.count, c + 1);
  check("in handler MPIE=1 MIE=0", trap_rec.mstatus & 0x88, 0x80);
  check("after mret MIE=1", CSR_READ(mstatus) & 0x88, 0x88);
  CSR_WRITE(mstatus, 0x1800);
  check("MIE cleared", CSR_READ(mstatus) & 0x88, 0);
}

/* Jumps and taken branches to a target that is not 4-byte aligned trap on the jump itself,
 * with mtval = target and the link register unwritten; a not-taken branch never traps. */
static void test_misaligned_targets(void) {
  uint32_t c = trap_rec.count, at, v = 0x5a5a5a5a;
  register uint32_t a5 __asm__("a5") = v;
  __asm__ volatile("la t0, 2f + 2\n la %0, 1f\n 1: jalr a5, 0(t0)\n 2: nop"
                   : "=&r"(at), "+r"(a5)::"t0", "memory");
  v = a5; /* copy out at once: a local register variable does not survive calls */
  expect_trap("jalr misaligned", 0, at, at + 6, c);
  check("jalr misaligned keeps rd", v, 0x5a5a5a5a);
  c = trap_rec.count;
  v = 0x5a5a5a5a;
  at = EXEC_WORD(0x002007ef, v); /* jal a5, .+2 */
  expect_trap_tval("jal misaligned", 0, at, at + 2, c, 1);
  check("jal misaligned keeps rd", v, 0x5a5a5a5a);
  c = trap_rec.count;
  at = EXEC_WORD(0x00000363, v); /* beq x0, x0, .+6 */
  expect_trap_tval("beq misaligned taken", 0, at, at + 6, c, 1);
  c = trap_rec.count;
  at = EXEC_WORD(0x00001363, v); /* bne x0, x0, .+6: not taken */
  check("bne misaligned not taken", trap_rec.count, c);
}

static void test_counters(void) {
  uint32_t c0 = CSR_READ(cycle), i0 = CSR_READ(instret);
  uint32_t m0 = CSR_READ(mcycle), n0 = CSR_READ(minstret);
  for (volatile int i = 0; i < 10; i++) {
  }
  check("cycle increases", CSR_READ(cycle) - c0 > 10, 1);
  check("instret increases", CSR_READ(instret) - i0 > 10, 1);
  check("mcycle increases", CSR_READ(mcycle) - m0 > 10, 1);
  check("minstret increases", CSR_READ(minstret) - n0 > 10, 1);
  (void)CSR_READ(cycleh);
  (void)CSR_READ(mcycleh);
  (void)CSR_READ(instreth);
  (void)CSR_READ(minstreth);
}

int main(void) {
  trap_rec_install();
  test_ecall_ebreak();
  test_illegal();
  test_csr_readonly_reads();
  test_csr_ops();
  test_mret_and_mstatus();
  test_misaligned_targets();
  test_counters();
  check("no unexpected traps", trap_rec.count, 2 + 22 + 1 + 3);
  printf("trap: %u passed, %u failed\n", tr_passed, tr_failed);
  int bad = tr_failed != 0;
#ifdef TSL_SOC
  printf("core_only: %u passed, %u failed\n", tr_core_passed, tr_core_failed);
  bad |= tr_core_failed != 0;
#endif
  return bad;
}
