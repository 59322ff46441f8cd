/* Lab 7, a solution: a one-way ring all-reduce. Chunk c holds the values [c*count/n, (c+1)*count/n).
 * Reduce-scatter: at step s (0 .. n-2) chip i sends its partial of chunk (i - s) mod n to chip i+1,
 * which adds its own values to it; after n-1 steps chip i holds chunk (i + 1) mod n summed over
 * every chip. All-gather: at step s chip i sends the summed chunk (i + 1 - s) mod n on; it lands in
 * the next chip's buf. Partials land in the receiver's scratch, at the chunk's place. Semaphore 0
 * counts the reduce-scatter's arrivals, 1 the all-gather's; both sides walk chunks, then tiles, in
 * the same order, so the k-th arrival is the k-th tile sent. */
#include "lab7.h"

static uint32_t lo(const lab7_args_t *a, uint32_t c) { return (uint32_t)((uint64_t)c * a->count / a->chips); }

/* Tile t of chunk c: *off, its byte offset, and its bytes (0 past the chunk's end). */
static uint32_t tile_of(const lab7_args_t *a, uint32_t c, uint32_t t, uint32_t *off)
{
    uint32_t begin = 4u * lo(a, c), end = 4u * lo(a, c + 1u);
    *off = begin + t * a->tile;
    return *off >= end ? 0u : (end - *off < a->tile ? end - *off : a->tile);
}

void lab7_allreduce(lab7_t *p, const lab7_args_t *a)
{
    uint32_t n = a->chips, me = a->chip, next = (me + 1u) % n;
    for (uint32_t s = 0; s + 1u < n; s++) {   /* reduce-scatter */
        uint32_t c = (me + n - s) % n, off, bytes;
        for (uint32_t t = 0; (bytes = tile_of(a, c, t, &off)) != 0; t++) {
            lab7_load(p, a->vmem_a, a->buf + off, bytes);
            if (s > 0) {   /* the previous chip's partial of this chunk, plus mine */
                lab7_wait(p, 0, 1);
                lab7_load(p, a->vmem_b, a->scratch + off, bytes);
                lab7_add(p, a->vmem_a, a->vmem_a, a->vmem_b, bytes);
            }
            lab7_send(p, next, a->scratch + off, a->vmem_a, bytes, 0);
        }
    }
    uint32_t mine = next, off, bytes;   /* the last partial of my chunk arrives: add, keep, pass on */
    for (uint32_t t = 0; (bytes = tile_of(a, mine, t, &off)) != 0; t++) {
        lab7_wait(p, 0, 1);
        lab7_load(p, a->vmem_a, a->buf + off, bytes);
        lab7_load(p, a->vmem_b, a->scratch + off, bytes);
        lab7_add(p, a->vmem_a, a->vmem_a, a->vmem_b, bytes);
        lab7_store(p, a->buf + off, a->vmem_a, bytes);
        lab7_send(p, next, a->buf + off, a->vmem_a, bytes, 1);
    }
    for (uint32_t s = 1; s + 1u < n; s++) {   /* all-gather: forward what arrived */
        uint32_t c = (mine + n - s) % n;
        for (uint32_t t = 0; (bytes = tile_of(a, c, t, &off)) != 0; t++) {
            lab7_wait(p, 1, 1);
            lab7_load(p, a->vmem_a, a->buf + off, bytes);
            lab7_send(p, next, a->buf + off, a->vmem_a, bytes, 1);
        }
    }
    uint32_t c = (mine + 1u) % n;   /* the last chunk to arrive: nothing to forward */
    for (uint32_t t = 0; tile_of(a, c, t, &off) != 0; t++)
        lab7_wait(p, 1, 1);
}
