/*
 * Loads each build of tls_add.c with dlopen (as the .NET host loads libcoreclr.so) and measures,
 * on one thread, adds per millisecond of add_shared and add_per_thread, alternately, each called
 * through the same kind of function pointer. The builds take turns within each repeat; prints every measurement and the median ratio per build.
 * Exits 2 if a total does not match the number of adds.
 *
 *   usage: compare LIBRARY... (each LIBRARY a path to one build)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { Repeats = 7 };
static const long AddsPerRepeat = 200000000;

typedef void (*add_fn)(void);
typedef int64_t (*read_fn)(void);

static double seconds_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec + now.tv_nsec / 1e9;
}

static double adds_per_ms(add_fn add, long adds)
{
    double start = seconds_now();
    for (long i = 0; i < adds; i++)
    {
        add();
    }

    return adds / ((seconds_now() - start) * 1000.0);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void *symbol(void *library, const char *name)
{
    void *address = dlsym(library, name);
    if (address == NULL)
    {
        fprintf(stderr, "%s\n", dlerror());
        exit(1);
    }

    return address;
}

typedef struct
{
    const char *path;
    add_fn add_shared;
    add_fn add_per_thread;
    read_fn read_shared;
    read_fn read_per_thread;
    double ratios[Repeats];
} build;

int main(int argc, char **argv)
{
    if (argc < 2)
    {
        fprintf(stderr, "usage: %s LIBRARY...\n", argv[0]);
        return 1;
    }

    int count = argc - 1;
    build *builds = calloc(count, sizeof(build));
    for (int b = 0; b < count; b++)
    {
        void *library = dlopen(argv[b + 1], RTLD_NOW | RTLD_LOCAL);
        if (library == NULL)
        {
            fprintf(stderr, "%s\n", dlerror());
            return 1;
        }

        ((void (*)(int))symbol(library, "set_thread_index"))(0);
        builds[b].path = argv[b + 1];
        builds[b].add_shared = (add_fn)symbol(library, "add_shared");
        builds[b].add_per_thread = (add_fn)symbol(library, "add_per_thread");
        builds[b].read_shared = (read_fn)symbol(library, "read_shared");
        builds[b].read_per_thread = (read_fn)symbol(library, "read_per_thread");
    }

    /* The lock add is several times slower: fewer of them keep the measurements' times alike. */
    long shared_adds = AddsPerRepeat / 4;

    /* The builds take turns within each repeat, so that whatever else the machine runs meanwhile
       falls on all of them alike. */
    printf("%-28s %6s %14s %14s %8s\n", "library", "repeat", "shared adds/ms", "per-thread", "ratio");
    for (int r = 0; r < Repeats; r++)
    {
        for (int b = 0; b < count; b++)
        {
            double shared = adds_per_ms(builds[b].add_shared, shared_adds);
            double per_thread = adds_per_ms(builds[b].add_per_thread, AddsPerRepeat);
            builds[b].ratios[r] = per_thread / shared;
            printf("%-28s %6d %14.0f %14.0f %7.2fx\n", builds[b].path, r + 1, shared, per_thread, builds[b].ratios[r]);
        }
    }

    printf("\n");
    for (int b = 0; b < count; b++)
    {
        if (builds[b].read_shared() != (int64_t)Repeats * shared_adds
            || builds[b].read_per_thread() != (int64_t)Repeats * AddsPerRepeat)
        {
            fprintf(stderr, "%s: a total does not match the adds made\n", builds[b].path);
            return 2;
        }

        qsort(builds[b].ratios, Repeats, sizeof(double), by_value);
        printf("%-28s median per-thread / shared: %.2fx\n", builds[b].path, builds[b].ratios[Repeats / 2]);
    }

    return 0;
}
