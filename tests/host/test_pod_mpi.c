/* The Open MPI pod (docs/pod.md, "The Open MPI pod"), run by `mpirun -np 2`: a 4-chip sim ring whose
 * chips 0-1 are rank 0's and 2-3 rank 1's (tessel_pod_open_mpi), against the same ring in one
 * process. Five collectives with random inputs (every rank draws the same, from rank 0's seed):
 * an fp32 all-reduce, a bf16 reduce-scatter, an int32 all-gather, an int32 broadcast from chip 3 and
 * an int32 all-reduce. Rank 1 sends its chips' outputs and its cycles to rank 0, which then runs the
 * same collectives on a pod of its own and checks, for every chip, the same bits, and for every
 * collective the same cycles on both ranks and in one process; and the int32 all-reduce against the
 * wrapping sum of the inputs. Rank 0 prints the counts. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "tessel.h"
#include "tessel_mpi.h"
#include "test_util.h"

static tu_t T;

#define CHIPS 4
#define CASES 5

typedef struct {
    tessel_coll_t kind;
    tessel_dtype_t dtype;
    uint32_t root;
} case_t;

static const case_t cases[CASES] = {{TESSEL_ALL_REDUCE, TESSEL_FP32, 0},   {TESSEL_REDUCE_SCATTER, TESSEL_BF16, 0},
                                    {TESSEL_ALL_GATHER, TESSEL_INT32, 0},  {TESSEL_BROADCAST, TESSEL_INT32, 3},
                                    {TESSEL_ALL_REDUCE, TESSEL_INT32, 0}};

typedef struct {
    uint64_t count, in_bytes, out_bytes, cycles;
    uint8_t *in[CHIPS], *out[CHIPS];
} result_t;

/* Every case on pod, inputs drawn from *rng (normal floats of either sign, as test_pod's); each chip
 * this process holds writes its input and reads its output. 0, or -1 when a call failed. */
static int run_cases(tessel_pod_t *pod, tu_rng_t *rng, result_t res[CASES], const char *where)
{
    for (int k = 0; k < CASES; k++) {
        const case_t *c = &cases[k];
        result_t *x = &res[k];
        uint32_t es = c->dtype == TESSEL_BF16 ? 2u : 4u;
        x->count = 200u + tu_below(rng, 2800);
        x->in_bytes = x->count * es * (c->kind == TESSEL_REDUCE_SCATTER ? CHIPS : 1u);
        x->out_bytes = x->count * es * (c->kind == TESSEL_ALL_GATHER ? CHIPS : 1u);
        for (int i = 0; i < CHIPS; i++) {
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
            fprintf(stderr, "%s: case %d: alloc: %s\n", where, k, tessel_pod_last_error(pod));
            return -1;
        }
        for (int i = 0; i < CHIPS; i++)
            if (tessel_pod_device(pod, (uint32_t)i) &&
                tessel_write(tessel_pod_device(pod, (uint32_t)i), in, x->in[i], x->in_bytes))
                return -1;
        tessel_collective_t col = {.kind = c->kind, .dtype = c->dtype, .op = TESSEL_REDUCE_SUM, .count = x->count,
                                   .root = c->root, .in = in, .out = out};
        (void)tessel_pod_stats(pod, &before);
        if (tessel_pod_collective(pod, &col)) {
            fprintf(stderr, "%s: case %d: %s\n", where, k, tessel_pod_last_error(pod));
            return -1;
        }
        (void)tessel_pod_stats(pod, &after);
        x->cycles = after.cycles - before.cycles;
        for (int i = 0; i < CHIPS; i++)
            if (tessel_pod_device(pod, (uint32_t)i) &&
                tessel_read(tessel_pod_device(pod, (uint32_t)i), x->out[i], out, x->out_bytes))
                return -1;
        (void)tessel_pod_free(pod, out);
        (void)tessel_pod_free(pod, in);
    }
    return 0;
}

/* One shape on 2 ranks against one process: the results and cycles of the cases, compared on rank 0. */
static void shape(int rank, uint64_t seed, tessel_topology_t topo, uint32_t dx, uint32_t dy)
{
    const char *what = topo == TESSEL_POD_TORUS ? "the 2x2 torus" : "the 4-chip ring";
    tu_rng_t rng;
    tu_seed(&rng, seed);
    static result_t mpi[CASES], one[CASES];
    tessel_pod_t *pod;
    int r = tessel_pod_open_mpi(&pod, CHIPS, topo, dx, dy);
    if (!r) {
        int mine = 1;   /* this rank holds its two chips, and only them */
        for (int i = 0; i < CHIPS; i++)
            mine &= !tessel_pod_device(pod, (uint32_t)i) == (i / 2 != rank);
        if (rank == 0)
            tu_check(&T, mine, "%s: rank 0 holds chips 0 and 1 only", what);
        r = run_cases(pod, &rng, mpi, "mpi");
        tessel_pod_close(pod);
    } else {
        fprintf(stderr, "rank %d: open: %s\n", rank, tessel_pod_last_error(NULL));
    }
    int bad = r != 0, any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        tu_check(&T, !any, "%s on 2 ranks runs the five collectives", what);
    if (any)
        return;
    for (int k = 0; k < CASES; k++) {   /* rank 1's chips and cycles to rank 0 */
        for (int i = CHIPS / 2; i < CHIPS; i++) {
            if (rank == 1)
                MPI_Send(mpi[k].out[i], (int)mpi[k].out_bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
            else
                MPI_Recv(mpi[k].out[i], (int)mpi[k].out_bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        uint64_t c1 = mpi[k].cycles;
        if (rank == 1)
            MPI_Send(&c1, 1, MPI_UINT64_T, 0, 1, MPI_COMM_WORLD);
        else
            MPI_Recv(&c1, 1, MPI_UINT64_T, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rank == 0)
            tu_check(&T, c1 == mpi[k].cycles, "%s: case %d: rank 0 counts %llu cycles, rank 1 %llu", what, k,
                     (unsigned long long)mpi[k].cycles, (unsigned long long)c1);
    }
    if (rank != 0)
        return;
    tu_seed(&rng, seed);
    int ok = !tessel_pod_open(&pod, "sim", CHIPS, topo, dx, dy);
    ok = ok && !run_cases(pod, &rng, one, "one process");
    if (ok)
        tessel_pod_close(pod);
    tu_check(&T, ok, "%s: the same collectives in one process", what);
    for (int k = 0; k < CASES && ok; k++) {
        static const char *const name[] = {"all-reduce", "reduce-scatter", "all-gather", "broadcast"};
        printf("test_pod_mpi: %s: case %d: %s of %llu: %llu cycles on 2 ranks, %llu in one process\n", what, k,
               name[cases[k].kind], (unsigned long long)mpi[k].count, (unsigned long long)mpi[k].cycles,
               (unsigned long long)one[k].cycles);
        tu_check(&T, mpi[k].cycles == one[k].cycles && mpi[k].cycles > 0, "%s: case %d: the same cycles", what, k);
        for (int i = 0; i < CHIPS; i++)
            tu_check(&T, !memcmp(mpi[k].out[i], one[k].out[i], mpi[k].out_bytes), "%s: case %d: chip %d: the same bits",
                     what, k, i);
    }
    const result_t *x = &mpi[CASES - 1];   /* the int32 all-reduce: the wrapping sum */
    uint64_t wrong = 0;
    for (uint64_t j = 0; j < x->count; j++) {
        uint32_t want = 0, got;
        for (int i = 0; i < CHIPS; i++) {
            uint32_t v;
            memcpy(&v, x->in[i] + 4 * j, 4);
            want += v;
        }
        for (int i = 0; i < CHIPS; i++) {
            memcpy(&got, x->out[i] + 4 * j, 4);
            wrong += got != want;
        }
    }
    tu_check(&T, !wrong, "%s: the int32 all-reduce is the sum of the inputs on every chip: %llu wrong", what,
             (unsigned long long)wrong);
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
    if (ranks == 2) {
        shape(rank, T.seed, TESSEL_POD_RING, 0, 0);
        shape(rank, T.seed + 1, TESSEL_POD_TORUS, 2, 2);
    } else if (rank == 0) {
        tu_check(&T, 0, "run on 2 ranks (mpirun -np 2), not %d", ranks);
    }
    MPI_Finalize();
    return rank == 0 ? tu_done(&T) : 0;
}
