/* planted: one performance problem of known size, chosen by -m, for
 * rp-diagnose to find.
 *
 * Each of ITERATIONS phases every rank works BASE microseconds, then all
 * meet in the MPI_Allreduce marked "closing". The problem adds EXTRA
 * microseconds a phase:
 *   imbalance    the ranks of -r work EXTRA more in solve_cells: the
 *                others wait at the Allreduce; balancing saves
 *                (P - k) / P * EXTRA a phase (k ranks of P).
 *   serial       rank 0 alone works EXTRA in write_checkpoint: the others
 *                wait at the Allreduce; (P - 1) / P * EXTRA a phase.
 *   late_sender  even ranks produce for BASE + EXTRA before sending to
 *                the odd rank after them, which prepared for BASE only
 *                and waits EXTRA in its MPI_Recv ("late sender"); both
 *                then finish for BASE, so all reach the Allreduce
 *                together. The odd ranks wait EXTRA a phase: EXTRA / 2
 *                per rank (P even).
 *   late_broadcast  rank 0 prepares EXTRA longer (prepare_input) before an
 *                MPI_Bcast; the others wait for it there: (P - 1) / P *
 *                EXTRA a phase.
 *   early_reduce the members of an MPI_Reduce to rank 0 produce EXTRA
 *                longer than rank 0, which waits for them: EXTRA / P.
 *   wait_nxn     the ranks split in halves, each with an MPI_Allreduce
 *                of its own; the first rank of each half works EXTRA more
 *                (solve_cells): the other ranks of the half wait for it,
 *                (P - 2) / P * EXTRA a phase.
 *   late_receiver  even ranks MPI_Ssend to the odd rank after them, which
 *                consumes for BASE + EXTRA before receiving: the sender
 *                waits EXTRA, EXTRA / 2 a phase per rank.
 *   wrong_order  in each group of three, the middle rank receives first
 *                from the one before it, which produces EXTRA longer, then
 *                from the one after it, which sent at once: it waits
 *                EXTRA with a message already there, EXTRA / 3 a phase.
 *   mpmd         two programs in one run: the first half of the ranks
 *                (fluid) pass a message round their ring and work BASE +
 *                EXTRA in solve_fluid, the others (solid) BASE in
 *                solve_solid and a broadcast among themselves: the solid
 *                ranks wait; evening out the two
 *                groups' work saves EXTRA / 2 a phase (P even).
 *   serial_io    rank 0 alone writes 64 MiB with MPI_File_write_at each
 *                phase (the others wait at the Allreduce); it measures
 *                its writes' time T and, with -w FILE, writes "io_ns T"
 *                there: spreading the writes over the ranks saves
 *                (P - 1) / P * T.
 *   large_messages  even ranks send 16 MiB to the odd rank after them each
 *                phase, whose receive is posted long before: the sends
 *                are all transfer, on the critical path; taken out, they
 *                save their time averaged over the ranks (Table 2's
 *                avg(N)), by the app's own clock;
 *   With -w FILE, serial_io and large_messages write "io_ns T":
 *   the measured time of the planted calls over all ranks.
 *   wait_barrier as wait_nxn, with an MPI_Barrier of each half in place
 *                of its Allreduce: (P - 2) / P * EXTRA a phase.
 *   frequent     after BASE, every rank calls MPI_Allreduce on 4 KiB 500
 *                times a phase (the ranks stay in step: the calls are
 *                their own cost, not waiting); taken out, they save their
 *                time averaged over the ranks, by the app's own clock.
 *   polling      every rank works BASE in 20 slices and polls for a
 *                request (MPI_Iprobe) 100 times after each, past 64
 *                updates queued for later; one request a phase arrives,
 *                from the rank before: the polls save their time averaged
 *                over the ranks, by the app's own clock.
 *   hotspot      rank 1 works BASE + EXTRA in solve_cells, the others BASE
 *                in smooth_field: smooth_field takes most of the ranks'
 *                time but none of the critical path's (an off-path hot
 *                spot, saving nothing); rank 1 alone working longer is a
 *                serialisation, and solve_cells balanced (BASE + EXTRA
 *                over P on every rank) saves EXTRA - (BASE + EXTRA) / P a
 *                phase.
 *   posix_io     rank 0 alone writes 32 MiB to a file in /dev/shm with
 *                write(2) (in write_file) each phase, timed by the app:
 *                the others wait (serialisation); spread over the ranks,
 *                the writes save (P - 1) / P of their time.
 *   rotating     in phase i rank i mod P works EXTRA more in solve_cells:
 *                over the run every rank works alike, phase by phase the
 *                others wait at the Allreduce, (P - 1) / P * EXTRA a phase.
 *   chain        rank r receives from r - 1, produces for EXTRA and sends
 *                to r + 1: the ranks compute one after another, and the
 *                critical path computes (P - 1) * EXTRA before the
 *                MPI_Send where an average sender computes EXTRA:
 *                (P - 2) * EXTRA a phase more.
 *   slow_collective  after BASE every rank calls an MPI_Allreduce whose
 *                operation naps EXTRA each time MPI applies it: the
 *                collective itself is slow, on the critical path; taken
 *                out, it saves its time averaged over the ranks, by the
 *                app's own clock.
 *   With -w FILE, frequent, polling, posix_io and slow_collective write
 *   "io_ns T" too, and every rank writes its naps as they really were
 *   to FILE.naps.RANK.
 *   balanced     none: every rank works BASE.
 * Every function sleeps in libc itself, so the samples name it.
 *
 *   planted -m MODE -n ITERATIONS -b BASE_US -e EXTRA_US [-r RANK,RANK..] [-w FILE]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

/* A macro, not a function: the samples' innermost application frame must
 * be the kernel itself, even with inlining. */
#define NAP(us)                                                      \
  do {                                                               \
    struct timespec ts = {(us) / 1000000, ((us) % 1000000) * 1000}; \
    while (nanosleep(&ts, &ts) != 0) {                               \
    }                                                                \
  } while (0)

/* Every nap as it really was: a busy machine wakes a sleeper late, by
 * a different amount each time, so the checker works out what a problem
 * costs from these spans (the monotonic clock, one for all ranks of a
 * machine), not from the nominal times. The closing Allreduces are
 * logged too. */
struct nap {
  long phase;
  const char* fn;
  long long begin, end;
};
static struct nap* g_naps;
static size_t g_nnaps, g_capacity;
static long g_phase;

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void logged(const char* fn, long long begin) {
  const long long end = now_ns();
  if (g_nnaps == g_capacity) {
    g_capacity = g_capacity ? 2 * g_capacity : 1024;
    g_naps = realloc(g_naps, g_capacity * sizeof *g_naps);
    if (!g_naps) abort();
  }
  g_naps[g_nnaps++] = (struct nap){g_phase, fn, begin, end};
}

/* The nap stays inline in its function: the samples name that function. */
#define TIMED_NAP(us)          \
  do {                         \
    const long long b = now_ns(); \
    NAP(us);                   \
    logged(__func__, b);       \
  } while (0)

__attribute__((noinline)) void solve_cells(long us) { TIMED_NAP(us); }
__attribute__((noinline)) void write_checkpoint(long us) { TIMED_NAP(us); }
__attribute__((noinline)) void produce(long us) { TIMED_NAP(us); }
__attribute__((noinline)) void prepare(long us) { TIMED_NAP(us); }
__attribute__((noinline)) void finish(long us) { TIMED_NAP(us); }
__attribute__((noinline)) void prepare_input(long us) { TIMED_NAP(us); }
__attribute__((noinline)) void consume(long us) { TIMED_NAP(us); }
__attribute__((noinline)) void solve_fluid(long us) { TIMED_NAP(us); }
__attribute__((noinline)) void solve_solid(long us) { TIMED_NAP(us); }
__attribute__((noinline)) void smooth_field(long us) { TIMED_NAP(us); }

/* slow_collective: a reduction operation that takes g_op_us each time
 * MPI applies it, so the collective itself costs a known time. */
static long g_op_us;
static void napping_sum(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  for (int i = 0; i < *len; ++i) ((double*)inout)[i] += ((double*)in)[i];
  NAP(g_op_us);
}

/* posix_io: rank 0's checkpoint with plain write(2), returning its time. */
__attribute__((noinline)) double write_file(int fd, const char* buf, size_t n) {
  const double t = MPI_Wtime();
  lseek(fd, 0, SEEK_SET);
  for (size_t done = 0; done < n;) {
    const ssize_t w = write(fd, buf + done, n - done);
    if (w <= 0) break;
    done += (size_t)w;
  }
  return MPI_Wtime() - t;
}

/* Whether `rank` is in the comma-separated list. */
static int listed(const char* list, int rank) {
  char buf[256];
  strncpy(buf, list, sizeof buf - 1);
  buf[sizeof buf - 1] = 0;
  for (char* tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
    if (atoi(tok) == rank) return 1;
  }
  return 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long iterations = 30, base = 10000, extra = 8000;
  const char* mode = "balanced";
  const char* heavy = "";
  const char* report = NULL;
  int opt;
  while ((opt = getopt(argc, argv, "m:n:b:e:r:w:")) != -1) {
    if (opt == 'm') mode = optarg;
    else if (opt == 'n') iterations = atol(optarg);
    else if (opt == 'b') base = atol(optarg);
    else if (opt == 'e') extra = atol(optarg);
    else if (opt == 'r') heavy = optarg;
    else if (opt == 'w') report = optarg;
  }
  double x = rank, sum = 0, msg = 0;
  /* Only wait_nxn makes the halves: set-up calls cost start-up time, on
   * the critical path, that a balanced run should not show. */
  MPI_Comm half = MPI_COMM_NULL;
  if (strcmp(mode, "wait_nxn") == 0 || strcmp(mode, "wait_barrier") == 0 || strcmp(mode, "mpmd") == 0) {
    MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &half);
  }
  /* large_messages: the message; the time of the planted calls. */
  static char big[16 << 20];
  double planted_time = 0;
  /* serial_io: rank 0's file, its buffer and the time of its writes. */
  MPI_File fh = MPI_FILE_NULL;
  char io_path[64];
  static char io_buf[64 << 20];
  double io_time = 0;
  if (strcmp(mode, "serial_io") == 0 && rank == 0) {
    snprintf(io_path, sizeof io_path, "/tmp/rp-planted-%d.bin", (int)getpid());
    MPI_File_open(MPI_COMM_SELF, io_path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  }
  int posix_fd = -1;
  if (strcmp(mode, "posix_io") == 0 && rank == 0) {
    /* In memory (tmpfs): a disk's writeback would stall some phases'
     * writes many times longer than others'. */
    snprintf(io_path, sizeof io_path, "/dev/shm/rp-planted-%d.bin", (int)getpid());
    posix_fd = open(io_path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
    /* The file's pages, and the first writes' set-up: each phase's write costs the same. */
    for (int i = 0; i < 3; ++i) write_file(posix_fd, io_buf, 32 << 20);
  }
  static double small[512], small_sum[512];
  MPI_Op slow_sum = MPI_OP_NULL;
  if (strcmp(mode, "slow_collective") == 0) {
    g_op_us = extra;
    MPI_Op_create(napping_sum, 1, &slow_sum);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (long it = 0; it < iterations; ++it) {
    g_phase = it;
    if (strcmp(mode, "imbalance") == 0) {
      solve_cells(base + (listed(heavy, rank) ? extra : 0));
    } else if (strcmp(mode, "serial") == 0) {
      solve_cells(base);
      if (rank == 0) write_checkpoint(extra);
    } else if (strcmp(mode, "late_sender") == 0) {
      if (rank % 2 == 0 && rank + 1 < size) {
        produce(base + extra);
        MPI_Send(&x, 1, MPI_DOUBLE, rank + 1, 7, MPI_COMM_WORLD); /* send */
      } else if (rank % 2 == 1) {
        prepare(base);
        MPI_Recv(&msg, 1, MPI_DOUBLE, rank - 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* late_sender */
      } else {
        prepare(base + extra);
      }
      finish(base);
    } else if (strcmp(mode, "late_broadcast") == 0) {
      if (rank == 0) prepare_input(base + extra);
      else solve_cells(base);
      MPI_Bcast(&msg, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD); /* late_broadcast */
    } else if (strcmp(mode, "early_reduce") == 0) {
      if (rank == 0) solve_cells(base);
      else produce(base + extra);
      MPI_Reduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD); /* early_reduce */
    } else if (strcmp(mode, "wait_nxn") == 0) {
      solve_cells(base + (rank == 0 || rank == size / 2 ? extra : 0));
      MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, half); /* wait_nxn */
    } else if (strcmp(mode, "wait_barrier") == 0) {
      solve_cells(base + (rank == 0 || rank == size / 2 ? extra : 0));
      MPI_Barrier(half); /* wait_barrier */
    } else if (strcmp(mode, "frequent") == 0) {
      solve_cells(base);
      const double t = MPI_Wtime();
      for (int i = 0; i < 500; ++i) {
        MPI_Allreduce(small, small_sum, 512, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* frequent */
      }
      planted_time += MPI_Wtime() - t;
    } else if (strcmp(mode, "polling") == 0) {
      /* Updates for later, queued unexpected at the next rank: each poll
       * searches past them, as a server's polls search a busy queue. */
      for (int i = 0; i < 64; ++i) MPI_Send(&x, 1, MPI_DOUBLE, (rank + 1) % size, 98, MPI_COMM_WORLD);
      int pending = 1;
      for (int slice = 0; slice < 20; ++slice) {
        solve_cells(base / 20);
        if (slice == 10) MPI_Send(&x, 1, MPI_DOUBLE, (rank + 1) % size, 99, MPI_COMM_WORLD);
        int found = 0;
        for (int i = 0; i < 100; ++i) {
          int hit = 0;
          /* Each call timed alone: a busy machine preempting the loop
           * between calls must not count as polling. */
          const double t = MPI_Wtime();
          MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &hit, MPI_STATUS_IGNORE); /* polling */
          planted_time += MPI_Wtime() - t;
          found |= hit;
        }
        if (found && pending) {
          MPI_Recv(&msg, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          pending = 0;
        }
      }
      if (pending) MPI_Recv(&msg, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (int i = 0; i < 64; ++i) {
        MPI_Recv(&msg, 1, MPI_DOUBLE, (rank + size - 1) % size, 98, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
    } else if (strcmp(mode, "chain") == 0) {
      /* A tag of its own: identical calls elsewhere may be merged into one
       * by the compiler, with one line for both. */
      if (rank > 0) MPI_Recv(&msg, 1, MPI_DOUBLE, rank - 1, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      produce(extra);
      if (rank + 1 < size) MPI_Send(&x, 1, MPI_DOUBLE, rank + 1, 11, MPI_COMM_WORLD); /* critical_computation */
    } else if (strcmp(mode, "rotating") == 0) {
      solve_cells(base + (it % size == rank ? extra : 0));
    } else if (strcmp(mode, "slow_collective") == 0) {
      solve_cells(base);
      const double t = MPI_Wtime();
      MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, slow_sum, MPI_COMM_WORLD); /* communication_on_path */
      planted_time += MPI_Wtime() - t;
    } else if (strcmp(mode, "hotspot") == 0) {
      if (rank == 1) solve_cells(base + extra);
      else smooth_field(base);
    } else if (strcmp(mode, "posix_io") == 0) {
      solve_cells(base);
      if (rank == 0) planted_time += write_file(posix_fd, io_buf, 32 << 20);
    } else if (strcmp(mode, "late_receiver") == 0) {
      if (rank % 2 == 0 && rank + 1 < size) {
        produce(base);
        MPI_Ssend(&x, 1, MPI_DOUBLE, rank + 1, 7, MPI_COMM_WORLD); /* late_receiver */
      } else if (rank % 2 == 1) {
        consume(base + extra);
        MPI_Recv(&msg, 1, MPI_DOUBLE, rank - 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        consume(base + extra);
      }
    } else if (strcmp(mode, "wrong_order") == 0) {
      const int first = rank - rank % 3;
      if (first + 2 >= size) {
        solve_cells(base + extra);  /* a rank outside a full group of three */
      } else if (rank == first) {
        produce(base + extra);
        MPI_Send(&x, 1, MPI_DOUBLE, first + 1, 7, MPI_COMM_WORLD);
      } else if (rank == first + 2) {
        MPI_Send(&x, 1, MPI_DOUBLE, first + 1, 7, MPI_COMM_WORLD);
        produce(base + extra);
      } else {
        prepare(base);
        MPI_Recv(&msg, 1, MPI_DOUBLE, first, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* wrong_order */
        MPI_Recv(&msg, 1, MPI_DOUBLE, first + 2, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
    } else if (strcmp(mode, "serial_io") == 0) {
      solve_cells(base);
      if (rank == 0) {
        const double t = MPI_Wtime();
        MPI_File_write_at(fh, 0, io_buf, sizeof io_buf, MPI_BYTE, MPI_STATUS_IGNORE); /* serial_io */
        io_time += MPI_Wtime() - t;
      }
    } else if (strcmp(mode, "large_messages") == 0) {
      MPI_Request req = MPI_REQUEST_NULL;
      if (rank % 2 == 1) MPI_Irecv(big, sizeof big, MPI_BYTE, rank - 1, 8, MPI_COMM_WORLD, &req);
      solve_cells(base);
      if (rank % 2 == 0 && rank + 1 < size) {
        const double t = MPI_Wtime();
        MPI_Send(big, sizeof big, MPI_BYTE, rank + 1, 8, MPI_COMM_WORLD); /* large_messages */
        planted_time += MPI_Wtime() - t;
      }
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "mpmd") == 0) {
      const int fluid = size / 2;
      if (rank < fluid) {
        solve_fluid(base + extra);
        MPI_Sendrecv(&x, 1, MPI_DOUBLE, (rank + 1) % fluid, 9, &msg, 1, MPI_DOUBLE, (rank + fluid - 1) % fluid, 9,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        const int solid = size - fluid;
        solve_solid(base);
        MPI_Bcast(&msg, 1, MPI_DOUBLE, 0, half);  /* the solid ranks' own exchange */
        (void)solid;
      }
    } else {
      solve_cells(base);
    }
    /* Logged as "closing": how long the ranks stayed after the last came. */
    const long long closing = now_ns();
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* closing */
    logged("closing", closing);
  }
  if (half != MPI_COMM_NULL) MPI_Comm_free(&half);
  if (posix_fd >= 0) {
    close(posix_fd);
    unlink(io_path);
  }
  if (fh != MPI_FILE_NULL) {
    MPI_File_close(&fh);
    unlink(io_path);
    planted_time = io_time;
  }
  /* The planted calls' time over all ranks, for the checker. */
  double all_time = 0;
  MPI_Reduce(&planted_time, &all_time, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (report && rank == 0 && all_time > 0) {
    FILE* f = fopen(report, "w");
    if (f) {
      fprintf(f, "io_ns %.0f\n", all_time * 1e9);
      fclose(f);
    }
  }
  /* Each rank's naps and closing Allreduces, "PHASE FUNCTION BEGIN_NS END_NS" a line, in
   * FILE.naps.RANK: written by each rank, so no MPI call adds to the run. */
  if (report) {
    char path[4096];
    snprintf(path, sizeof path, "%s.naps.%d", report, rank);
    FILE* f = fopen(path, "w");
    if (f) {
      for (size_t i = 0; i < g_nnaps; ++i) {
        fprintf(f, "%ld %s %lld %lld\n", g_naps[i].phase, g_naps[i].fn, g_naps[i].begin, g_naps[i].end);
      }
      fclose(f);
    }
  }
  free(g_naps);
  MPI_Finalize();
  return 0;
}
