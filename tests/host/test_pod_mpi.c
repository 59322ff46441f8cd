/* The Open MPI pod (docs/pod.md, "The Open MPI pod"), run by `mpirun -np R`: a sim ring of C chips,
 * then a torus of them (2x2 for 4 chips, 2x4 for 8), whose chips are split between the R ranks
 * (tessel_pod_open_mpi: rank r holds chips r*C/R .. (r+1)*C/R - 1), against the same pod in one
 * process. Rounds of five collectives with random inputs (every rank draws the same, from rank 0's
 * seed): an fp32 all-reduce, a bf16 reduce-scatter, an int32 all-gather, an int32 broadcast from the
 * last chip and an int32 all-reduce. The other ranks send their chips' outputs and their cycles to
 * rank 0, which then runs the same collectives on a pod of its own and checks, for every chip, the
 * same bits, and for every collective the same cycles on every rank and in one process; and each
 * int32 all-reduce against the wrapping sum of the inputs. Rank 0 prints the counts.
 * C is $POD_MPI_CHIPS (4 or 8; default 4), the rounds $POD_MPI_ROUNDS (default 1), a collective's
 * elements below $POD_MPI_COUNT (default 3000); make test runs C = 4 on 2 ranks, make soak C = 8 on
 * 4. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "tessel.h"
#include "tessel_mpi.h"
#include "test_util.h"

static tu_t T;

#define CHIPS_MAX 8
#define KINDS 5
#define CASES_MAX (KINDS * 16)

typedef struct {
    tessel_coll_t kind;
    tessel_dtype_t dtype;
    uint32_t root;
} case_t;

/* Case k is kinds[k % KINDS]; a broadcast's root is the last chip. */
static const case_t kinds[KINDS] = {{TESSEL_ALL_REDUCE, TESSEL_FP32, 0},  {TESSEL_REDUCE_SCATTER, TESSEL_BF16, 0},
                                    {TESSEL_ALL_GATHER, TESSEL_INT32, 0}, {TESSEL_BROADCAST, TESSEL_INT32, 1},
                                    {TESSEL_ALL_REDUCE, TESSEL_INT32, 0}};
static uint32_t chips = 4, cases = KINDS, max_count = 3000;   /* from the environment (main) */

typedef struct {
    uint64_t count, in_bytes, out_bytes, cycles;
    uint8_t *in[CHIPS_MAX], *out[CHIPS_MAX];
} result_t;

/* Every case on pod, inputs drawn from *rng (normal floats of either sign, as test_pod's); each chip
 * this process holds writes its input and reads its output. 0, or -1 when a call failed. */
static int run_cases(tessel_pod_t *pod, tu_rng_t *rng, result_t *res, const char *where)
{
    for (uint32_t k = 0; k < cases; k++) {
        const case_t *c = &kinds[k % KINDS];
        result_t *x = &res[k];
        uint32_t es = c->dtype == TESSEL_BF16 ? 2u : 4u;
        x->count = 200u + tu_below(rng, max_count - 200u);
        x->in_bytes = x->count * es * (c->kind == TESSEL_REDUCE_SCATTER ? chips : 1u);
        x->out_bytes = x->count * es * (c->kind == TESSEL_ALL_GATHER ? chips : 1u);
        for (uint32_t i = 0; i < chips; i++) {
            x->in[i] = malloc(x->in_bytes);
            x->out[i] = calloc(1, x->out_bytes);
            for (uint64_t j = 0; j < x->in_bytes / es; j++) {
                uint32_t v = (uint32_t)tu_next(rng);
                if (c->dtype != TESSEL_INT32)   /* exponent 117..136: far from overflow and subnormals */
                    v = (v & 0x807FFFFFu) | ((117u + (uint32_t)tu_below(rng, 20)) << 23);
                memcpy(x->in[i] + j * es, (uint8_t *)&v + (es == 2u ? 2 : 0), es);
            }
        }
        tessel_addr_t in, out;
        tessel_pod_stats_t before, after;
        if (tessel_pod_alloc(pod, x->in_bytes, &in) || tessel_pod_alloc(pod, x->out_bytes, &out)) {
            fprintf(stderr, "%s: case %u: alloc: %s\n", where, k, tessel_pod_last_error(pod));
            return -1;
        }
        for (uint32_t i = 0; i < chips; i++)
            if (tessel_pod_device(pod, i) && tessel_write(tessel_pod_device(pod, i), in, x->in[i], x->in_bytes))
                return -1;
        tessel_collective_t col = {.kind = c->kind, .dtype = c->dtype, .op = TESSEL_REDUCE_SUM, .count = x->count,
                                   .root = c->root ? chips - 1u : 0u, .in = in, .out = out};
        (void)tessel_pod_stats(pod, &before);
        if (tessel_pod_collective(pod, &col)) {
            fprintf(stderr, "%s: case %u: %s\n", where, k, tessel_pod_last_error(pod));
            return -1;
        }
        (void)tessel_pod_stats(pod, &after);
        x->cycles = after.cycles - before.cycles;
        for (uint32_t i = 0; i < chips; i++)
            if (tessel_pod_device(pod, i) && tessel_read(tessel_pod_device(pod, i), x->out[i], out, x->out_bytes))
                return -1;
        (void)tessel_pod_free(pod, out);
        (void)tessel_pod_free(pod, in);
    }
    return 0;
}

/* The first chip rank r holds, of `ranks`. */
static uint32_t first_chip(int r, int ranks) { return (uint32_t)r * chips / (uint32_t)ranks; }

/* One shape on the ranks against one process: the results and cycles of the cases, compared on
 * rank 0. */
static void shape(int rank, int ranks, uint64_t seed, tessel_topology_t topo, uint32_t dx, uint32_t dy)
{
    char what[64];
    snprintf(what, sizeof what, topo == TESSEL_POD_TORUS ? "the %ux%u torus" : "the %u-chip ring",
             topo == TESSEL_POD_TORUS ? dx : chips, dy);
    tu_rng_t rng;
    tu_seed(&rng, seed);
    static result_t mpi[CASES_MAX], one[CASES_MAX];
    tessel_pod_t *pod;
    int r = tessel_pod_open_mpi(&pod, chips, topo, dx, dy);
    if (!r) {
        int mine = 1;   /* this rank holds its chips, and only them */
        for (uint32_t i = 0; i < chips; i++)
            mine &= !tessel_pod_device(pod, i) == (i < first_chip(rank, ranks) || i >= first_chip(rank + 1, ranks));
        int all;
        MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (rank == 0)
            tu_check(&T, all, "%s: each of the %d ranks holds its %u chips only", what, ranks, chips / (uint32_t)ranks);
        r = run_cases(pod, &rng, mpi, "mpi");
        tessel_pod_close(pod);
    } else {
        fprintf(stderr, "rank %d: open: %s\n", rank, tessel_pod_last_error(NULL));
    }
    int bad = r != 0, any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        tu_check(&T, !any, "%s on %d ranks runs the %u collectives", what, ranks, cases);
    if (any)
        return;
    for (uint32_t k = 0; k < cases; k++) {   /* the other ranks' chips and cycles to rank 0 */
        for (int from = 1; from < ranks; from++) {
            for (uint32_t i = first_chip(from, ranks); i < first_chip(from + 1, ranks); i++) {
                if (rank == from)
                    MPI_Send(mpi[k].out[i], (int)mpi[k].out_bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
                else if (rank == 0)
                    MPI_Recv(mpi[k].out[i], (int)mpi[k].out_bytes, MPI_BYTE, from, 0, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
            }
            uint64_t c1 = mpi[k].cycles;
            if (rank == from)
                MPI_Send(&c1, 1, MPI_UINT64_T, 0, 1, MPI_COMM_WORLD);
            else if (rank == 0)
                MPI_Recv(&c1, 1, MPI_UINT64_T, from, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (rank == 0)
                tu_check(&T, c1 == mpi[k].cycles, "%s: case %u: rank 0 counts %llu cycles, rank %d %llu", what, k,
                         (unsigned long long)mpi[k].cycles, from, (unsigned long long)c1);
        }
    }
    if (rank != 0)
        return;
    tu_seed(&rng, seed);
    int ok = !tessel_pod_open(&pod, "sim", chips, topo, dx, dy);
    ok = ok && !run_cases(pod, &rng, one, "one process");
    if (ok)
        tessel_pod_close(pod);
    tu_check(&T, ok, "%s: the same collectives in one process", what);
    for (uint32_t k = 0; k < cases && ok; k++) {
        static const char *const name[] = {"all-reduce", "reduce-scatter", "all-gather", "broadcast"};
        printf("test_pod_mpi: %s: case %u: %s of %llu: %llu cycles on %d ranks, %llu in one process\n", what, k,
               name[kinds[k % KINDS].kind], (unsigned long long)mpi[k].count, (unsigned long long)mpi[k].cycles,
               ranks, (unsigned long long)one[k].cycles);
        tu_check(&T, mpi[k].cycles == one[k].cycles && mpi[k].cycles > 0, "%s: case %u: the same cycles", what, k);
        for (uint32_t i = 0; i < chips; i++)
            tu_check(&T, !memcmp(mpi[k].out[i], one[k].out[i], mpi[k].out_bytes),
                     "%s: case %u: chip %u: the same bits", what, k, i);
    }
    for (uint32_t k = KINDS - 1; k < cases; k += KINDS) {   /* the int32 all-reduces: the wrapping sum */
        const result_t *x = &mpi[k];
        uint64_t wrong = 0;
        for (uint64_t j = 0; j < x->count; j++) {
            uint32_t want = 0, got;
            for (uint32_t i = 0; i < chips; i++) {
                uint32_t v;
                memcpy(&v, x->in[i] + 4 * j, 4);
                want += v;
            }
            for (uint32_t i = 0; i < chips; i++) {
                memcpy(&got, x->out[i] + 4 * j, 4);
                wrong += got != want;
            }
        }
        tu_check(&T, !wrong, "%s: case %u: the int32 all-reduce is the sum of the inputs on every chip: %llu wrong",
                 what, k, (unsigned long long)wrong);
    }
}

/* An environment variable's value, or `dflt` when it is unset or empty. */
static uint32_t env_u32(const char *name, uint32_t dflt)
{
    const char *v = getenv(name);
    return v && *v ? (uint32_t)strtoul(v, NULL, 10) : dflt;
}

int main(int argc, char **argv)
{
    int level, rank, ranks;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &level);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (rank == 0)
        tu_init(&T, "test_pod_mpi", argc, argv);
    MPI_Bcast(&T.seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    chips = env_u32("POD_MPI_CHIPS", 4);
    uint32_t rounds = env_u32("POD_MPI_ROUNDS", 1);
    cases = KINDS * rounds;
    max_count = env_u32("POD_MPI_COUNT", 3000);
    if ((chips == 4 || chips == 8) && ranks >= 2 && (uint32_t)ranks <= chips && rounds >= 1 &&
        cases <= CASES_MAX && max_count > 200) {
        shape(rank, ranks, T.seed, TESSEL_POD_RING, 0, 0);
        shape(rank, ranks, T.seed + 1, TESSEL_POD_TORUS, 2, chips / 2);
    } else if (rank == 0) {
        tu_check(&T, 0, "POD_MPI_CHIPS %u (4 or 8) on %d ranks (2 to the chips), POD_MPI_ROUNDS %u (1 to %d), "
                 "POD_MPI_COUNT %u (above 200)", chips, ranks, rounds, CASES_MAX / KINDS, max_count);
    }
    MPI_Finalize();
    return rank == 0 ? tu_done(&T) : 0;
}
