/* Soak: random commands through libtessel in checking mode (TESSEL_OPEN_CHECK: every command is
 * mirrored on a golden-model device and the completion and the output rows are compared).
 *   soak BACKEND COUNT      BACKEND sim (the Verilated SoC + cp.elf) or model; SEED=... replays
 * Commands: GEMM (int8 -> int32 / requantised int8, bf16 -> fp32 / bf16; bias, ReLU, scale), ELTWISE
 * (every op; B full, broadcast or immediate; every legal dtype mix), COPY, FILL, NOP, FENCE, with
 * random shapes (mostly 1..48), strides and addresses, and about one in eight made invalid (bad
 * opcode, reserved bits, dtype, zero size, short stride, operand outside HBM, a stray word), which
 * must fail with the same CMD_ERR on both. They are submitted in batches of 1..8 and waited for in
 * a random order. Operands are read from one random area and written to another, each command of
 * a batch into its own slot of it: no command's result depends on the DMA's timing or on which
 * commands of its batch had completed when it was compared. Prints the commands by kind, invalid ones, mismatches (must
 * be 0) and the device cycles; "soak: N passed, M failed". */
#include <stdlib.h>

#include "rel_util.h"
#include "tsl_insn.h"

#define IN_BYTES (96u << 10)
#define MAX_BATCH 8
#define SLOT_BYTES (12u << 10)         /* output area per command of a batch */
#define OUT_BYTES (MAX_BATCH * SLOT_BYTES)

static tu_t T;
static tessel_addr_t in_base, out_base;

static uint32_t rnd(uint32_t n) { return (uint32_t)tu_below(&T.rng, n); }
static uint32_t dim(void) { return rnd(8) ? 1 + rnd(48) : 1 + rnd(96); }

/* A random float with a modest exponent (scale factors, immediates). */
static uint32_t small_float(void)
{
    return (rnd(2) << 31) | ((120u + rnd(14)) << 23) | rnd(1u << 23);
}

/* Place `rows` rows of `row` bytes, `*ld` apart (ld chosen >= row), aligned to `al`, in an area of
 * `size` bytes at `base`. Returns the address; 0 rows never happens. */
static uint32_t place(tessel_addr_t base, uint32_t size, uint32_t rows, uint32_t row, uint32_t al, uint32_t *ld)
{
    *ld = (row + rnd(3) * al + al - 1) / al * al;
    uint64_t span = (uint64_t)(rows - 1) * *ld + row;
    if (span > size) {              /* too big for the area: dense */
        *ld = row;
        span = (uint64_t)rows * row;
    }
    uint32_t slack = (uint32_t)(size - span) / al;
    return (uint32_t)base + rnd(slack + 1) * al;
}

static int fits(uint32_t rows, uint32_t row, uint32_t size) { return (uint64_t)rows * row <= size / 2; }

/* A valid random command writing into [out, out + SLOT_BYTES); *kind: 0 GEMM, 1 ELTWISE, 2 COPY,
 * 3 FILL, 4 NOP or FENCE. */
static tessel_cmd_t make_valid(tessel_addr_t out, int *kind)
{
    tessel_cmd_t c;
    uint32_t *w = c.w;
    memset(&c, 0, sizeof c);
    uint32_t ld, sel = rnd(20);
    if (sel < 9) {                                      /* GEMM */
        int fl = rnd(2);
        uint32_t m = dim(), n = dim(), k = dim(), es = fl ? 2 : 1;
        uint32_t cdt = fl ? (rnd(2) ? TSL_DTYPE_FP32 : TSL_DTYPE_BF16) : (rnd(2) ? TSL_DTYPE_INT32 : TSL_DTYPE_INT8);
        uint32_t ces = tsl_dtype_bytes(cdt), flags = 0;
        while (!fits(m, k * es, IN_BYTES) || !fits(k, n * es, IN_BYTES) || !fits(m, n * ces, SLOT_BYTES))
            m = (m + 1) / 2, n = (n + 1) / 2, k = (k + 1) / 2;
        TSL_SET(w, TSL_CMD_OPCODE, TSL_CMD_OP_GEMM);
        TSL_SET(w, TSL_CMD_A_DTYPE, fl ? TSL_DTYPE_BF16 : TSL_DTYPE_INT8);
        TSL_SET(w, TSL_CMD_B_DTYPE, fl ? TSL_DTYPE_BF16 : TSL_DTYPE_INT8);
        TSL_SET(w, TSL_CMD_C_DTYPE, cdt);
        w[TSL_CMD_M_WORD] = m;
        w[TSL_CMD_N_WORD] = n;
        w[TSL_CMD_K_WORD] = k;
        w[TSL_CMD_A_ADDR_WORD] = place(in_base, IN_BYTES / 2, m, k * es, es, &ld);
        w[TSL_CMD_LDA_WORD] = ld;
        w[TSL_CMD_B_ADDR_WORD] = place(in_base + IN_BYTES / 2, IN_BYTES / 2, k, n * es, es, &ld);
        w[TSL_CMD_LDB_WORD] = ld;
        w[TSL_CMD_C_ADDR_WORD] = place(out, SLOT_BYTES, m, n * ces, ces, &ld);
        w[TSL_CMD_LDC_WORD] = ld;
        if (rnd(2)) {
            flags |= 1u << TSL_CMD_FLAG_BIAS;
            w[TSL_CMD_BIAS_ADDR_WORD] = place(in_base, IN_BYTES, 1, 4 * n, 4, &ld);
        }
        if (rnd(2))
            flags |= 1u << TSL_CMD_FLAG_RELU;
        if (fl && rnd(3) == 0) {
            flags |= 1u << TSL_CMD_FLAG_SCALE;
            w[TSL_CMD_SCALE_WORD] = small_float();
        }
        if (cdt == TSL_DTYPE_INT8) {
            w[TSL_CMD_SCALE_WORD] = rnd(1u << 16);
            w[TSL_CMD_SHIFT_WORD] = 8 + rnd(20);
            w[TSL_CMD_ZERO_POINT_WORD] = rnd(21) - 10;
        }
        TSL_SET(w, TSL_CMD_FLAGS, flags);
        *kind = 0;
    } else if (sel < 15) {                              /* ELTWISE */
        static const uint32_t ops[] = {TSL_VPU_OP_ADD, TSL_VPU_OP_MUL, TSL_VPU_OP_MAX, TSL_VPU_OP_RELU,
                                       TSL_VPU_OP_MOV, TSL_VPU_OP_REQUANT};
        static const uint32_t idt[] = {TSL_DTYPE_INT8, TSL_DTYPE_INT32}, fdt[] = {TSL_DTYPE_BF16, TSL_DTYPE_FP32};
        uint32_t op = ops[rnd(6)], fl = op != TSL_VPU_OP_REQUANT && rnd(2);
        const uint32_t *dt = fl ? fdt : idt;
        uint32_t adt = dt[rnd(2)], bdt = dt[rnd(2)], cdt = dt[rnd(2)], m = dim(), n = dim() * (1 + rnd(4));
        int binary = op <= TSL_VPU_OP_MAX, mode = binary ? (int)rnd(3) : -1;   /* 0 full, 1 bcast, 2 imm */
        if (mode == 2)
            bdt = fl ? TSL_DTYPE_FP32 : TSL_DTYPE_INT32;
        uint32_t esa = tsl_dtype_bytes(adt), esb = tsl_dtype_bytes(bdt), esc = tsl_dtype_bytes(cdt);
        while (!fits(m, n * 4, IN_BYTES) || !fits(m, n * 4, SLOT_BYTES))
            m = (m + 1) / 2, n = (n + 1) / 2;
        TSL_SET(w, TSL_CMD_OPCODE, TSL_CMD_OP_ELTWISE);
        TSL_SET(w, TSL_CMD_VPU_OP, op);
        TSL_SET(w, TSL_CMD_A_DTYPE, adt);
        TSL_SET(w, TSL_CMD_B_DTYPE, binary ? bdt : 0);
        TSL_SET(w, TSL_CMD_C_DTYPE, cdt);
        w[TSL_CMD_M_WORD] = m;
        w[TSL_CMD_N_WORD] = n;
        w[TSL_CMD_A_ADDR_WORD] = place(in_base, IN_BYTES / 2, m, n * esa, esa, &ld);
        w[TSL_CMD_LDA_WORD] = ld;
        w[TSL_CMD_C_ADDR_WORD] = place(out, SLOT_BYTES, m, n * esc, esc, &ld);
        w[TSL_CMD_LDC_WORD] = ld;
        if (mode == 0) {
            w[TSL_CMD_B_ADDR_WORD] = place(in_base + IN_BYTES / 2, IN_BYTES / 2, m, n * esb, esb, &ld);
            w[TSL_CMD_LDB_WORD] = ld;
        } else if (mode == 1) {
            TSL_SET(w, TSL_CMD_FLAGS, 1u << TSL_CMD_FLAG_B_BCAST);
            w[TSL_CMD_B_ADDR_WORD] = place(in_base + IN_BYTES / 2, IN_BYTES / 2, 1, n * esb, esb, &ld);
        } else if (mode == 2) {
            TSL_SET(w, TSL_CMD_FLAGS, 1u << TSL_CMD_FLAG_B_IMM);
            w[TSL_CMD_SCALE_WORD] = fl ? small_float() : rnd(2001) - 1000;
        }
        if (op == TSL_VPU_OP_REQUANT) {
            w[TSL_CMD_SCALE_WORD] = rnd(1u << 16);
            w[TSL_CMD_SHIFT_WORD] = 8 + rnd(20);
            w[TSL_CMD_ZERO_POINT_WORD] = rnd(21) - 10;
        }
        *kind = 1;
    } else if (sel < 18) {                              /* COPY or FILL */
        uint32_t m = dim(), n = dim() * (1 + rnd(8)), fill = sel == 17;
        while (!fits(m, n, SLOT_BYTES))
            m = (m + 1) / 2, n = (n + 1) / 2;
        TSL_SET(w, TSL_CMD_OPCODE, fill ? TSL_CMD_OP_FILL : TSL_CMD_OP_COPY);
        w[TSL_CMD_M_WORD] = m;
        w[TSL_CMD_N_WORD] = n;
        if (fill) {
            w[TSL_CMD_SCALE_WORD] = (uint32_t)tu_next(&T.rng);
        } else {
            w[TSL_CMD_A_ADDR_WORD] = place(in_base, IN_BYTES, m, n, 1, &ld);
            w[TSL_CMD_LDA_WORD] = ld;
        }
        w[TSL_CMD_C_ADDR_WORD] = place(out, SLOT_BYTES, m, n, 1, &ld);
        w[TSL_CMD_LDC_WORD] = ld;
        *kind = 2 + (int)fill;
    } else {
        TSL_SET(w, TSL_CMD_OPCODE, rnd(2) ? TSL_CMD_OP_NOP : TSL_CMD_OP_FENCE);
        *kind = 4;
    }
    return c;
}

/* Break a valid command in one of several ways. */
static void make_invalid(tessel_cmd_t *c, uint64_t hbm_bytes)
{
    uint32_t *w = c->w, op = TSL_GET(w, TSL_CMD_OPCODE);
    switch (rnd(7)) {
    case 0: TSL_SET(w, TSL_CMD_OPCODE, TSL_CMD_OP_LIMIT + rnd(256 - TSL_CMD_OP_LIMIT)); break;
    case 1: w[0] |= 1u << (16 + rnd(16)); break;
    case 2: w[2] |= 1u << (16 + rnd(16)); break;
    case 3:
        if (op == TSL_CMD_OP_GEMM)
            TSL_SET(w, TSL_CMD_A_DTYPE, TSL_DTYPE_INT32);
        else
            w[TSL_CMD_K_WORD] = 1 + rnd(100);     /* a word the command does not use */
        break;
    case 4: w[TSL_CMD_M_WORD] = 0; break;
    case 5: w[TSL_CMD_C_ADDR_WORD] = (uint32_t)hbm_bytes + rnd(16); break;   /* C starts past HBM */
    default: w[TSL_CMD_LDC_WORD] = 0; break;   /* shorter than a row */
    }
    if (op == TSL_CMD_OP_NOP || op == TSL_CMD_OP_FENCE)
        w[TSL_CMD_M_WORD + rnd(13)] = 1 + rnd(1000);    /* NOP/FENCE use no operand word */
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "sim") && strcmp(argv[1], "model")) || atoi(argv[2]) <= 0) {
        fprintf(stderr, "usage: soak sim|model COUNT   (SEED=... replays)\n");
        return 2;
    }
    unsigned count = (unsigned)atoi(argv[2]), by_kind[5] = {0}, invalid = 0, mismatches = 0, done = 0;
    tu_init(&T, "soak", 1, argv);
    tessel_dev_t *d;
    tessel_open_opts_t opts;
    memset(&opts, 0, sizeof opts);
    opts.flags = TESSEL_OPEN_CHECK;
    int st = tessel_open(&d, argv[1], &opts);
    if (!tu_check(&T, st == 0, "open %s: %s", argv[1], tessel_strerror(st)))
        return tu_done(&T);
    tessel_info_t info;
    uint8_t *buf = malloc(IN_BYTES);
    if (tessel_info(d, &info) || !buf || tessel_alloc(d, IN_BYTES, 64, &in_base) ||
        tessel_alloc(d, OUT_BYTES, 64, &out_base)) {
        tu_check(&T, 0, "setup failed");
        return tu_done(&T);
    }
    for (uint32_t i = 0; i < IN_BYTES; i++)
        buf[i] = (uint8_t)tu_next(&T.rng);
    tu_check(&T, !tessel_write(d, in_base, buf, IN_BYTES) && !tessel_write(d, out_base, buf, OUT_BYTES),
             "fill the areas");
    uint64_t t0 = rel_now_ms();
    while (done < count) {
        tessel_handle_t h[MAX_BATCH];
        tessel_cmd_t cmd[MAX_BATCH];
        int bad[MAX_BATCH];
        unsigned nb = 1 + rnd(MAX_BATCH), left = count - done;
        nb = nb < left ? nb : left;
        for (unsigned i = 0; i < nb; i++) {
            int kind;
            tessel_cmd_t c = make_valid(out_base + i * SLOT_BYTES, &kind);
            bad[i] = rnd(8) == 0;
            if (bad[i]) {
                make_invalid(&c, info.hbm_bytes);
                invalid++;
            } else {
                by_kind[kind]++;
            }
            cmd[i] = c;
            st = tessel_submit(d, &c, &h[i]);
            if (!tu_check(&T, st == 0, "submit: %s: %s", tessel_strerror(st), tessel_last_error(d)))
                return tu_done(&T);
        }
        for (unsigned left_n = nb; left_n; left_n--) {   /* wait in a random order */
            unsigned i = rnd(left_n);
            tessel_completion_t cpl;
            st = tessel_wait(d, h[i], 600000, &cpl);
            if (st == TESSEL_EMISMATCH)
                mismatches++;
            int want_ok = !bad[i];
            if (!tu_check(&T, want_ok ? st == TESSEL_OK
                                      : (st == TESSEL_EDEVICE && cpl.status >= 1 && cpl.status <= 5),
                          "command %u (%s, %s): %s: %s", done + i, want_ok ? "valid" : "invalid",
                          tsl_cmd_op_name(cpl.opcode), tessel_strerror(st), tessel_last_error(d)))
                for (unsigned k = 0; k < 16; k++)
                    fprintf(stderr, "  w[%u] = 0x%08x\n", k, cmd[i].w[k]);
            h[i] = h[left_n - 1];
            cmd[i] = cmd[left_n - 1];
            bad[i] = bad[left_n - 1];
        }
        done += nb;
    }
    tessel_stats_t stats;
    (void)tessel_stats(d, &stats);
    printf("soak: %u commands on %s in %.1f s: %u gemm, %u eltwise, %u copy, %u fill, %u nop/fence, %u invalid; "
           "%u mismatches; %llu device cycles\n", done, argv[1], (rel_now_ms() - t0) / 1000.0, by_kind[0],
           by_kind[1], by_kind[2], by_kind[3], by_kind[4], invalid, mismatches, (unsigned long long)stats.cycles);
    free(buf);
    tessel_close(d);
    return tu_done(&T);
}
