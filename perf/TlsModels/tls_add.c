/*
 * The add of a per-thread cell and of a shared counter, built three times as a shared library,
 * once per x86-64 thread-local-storage access model (see run.sh and perf/README.md):
 *
 *   general-dynamic  each thread-local read calls __tls_get_addr (what the .NET 10 JIT emits for
 *                    a [ThreadStatic] on linux-x64: libcoreclr.so is loaded with dlopen)
 *   tls-descriptor   each read calls through a TLS descriptor (-mtls-dialect=gnu2)
 *   initial-exec     each read is one %fs-relative load at an offset fixed at load time
 *
 * The per-thread add mirrors PartitionedSeries.AddSum's per-thread path: the thread's index, kept
 * plus one so that 0 reads as "none", a bounds check, and a plain store of the cell's value plus
 * one (a release store, which is a plain mov on x86-64, as Volatile.Write is).
 */
#include <stdint.h>

#define CELL_COUNT 64

/* One 128-byte cell per thread index, as PaddedCell. */
typedef struct
{
    int64_t value;
    char padding[120];
} padded_cell;

__thread int t_index_plus_one;

static padded_cell cells[CELL_COUNT];
static int64_t shared_total;

void set_thread_index(int index)
{
    t_index_plus_one = index + 1;
}

/* One lock add to a counter every thread shares: shared-interlocked. */
void add_shared(void)
{
    __atomic_fetch_add(&shared_total, 1, __ATOMIC_SEQ_CST);
}

/* One plain add to the calling thread's cell: partitioned-per-thread. */
void add_per_thread(void)
{
    unsigned index = (unsigned)(t_index_plus_one - 1);
    if (index < CELL_COUNT)
    {
        __atomic_store_n(&cells[index].value, cells[index].value + 1, __ATOMIC_RELEASE);
    }
}

int64_t read_shared(void)
{
    return __atomic_load_n(&shared_total, __ATOMIC_ACQUIRE);
}

int64_t read_per_thread(void)
{
    int64_t total = 0;
    for (int i = 0; i < CELL_COUNT; i++)
    {
        total += __atomic_load_n(&cells[i].value, __ATOMIC_ACQUIRE);
    }

    return total;
}
