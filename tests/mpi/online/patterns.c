/* patterns: dependency patterns whose critical path is known by
 * construction, written with every family of MPI calls, for the online
 * critical path (rp-record --online) and rp-cpath on the same run.
 *
 * Work is sleeping to a deadline, measured by the rank that does it; after
 * MPI_Finalize rank 0 prints "expect NS": the critical path's length from
 * the measured work (the path's MPI time, microseconds, is not in it), and
 * "mode MODE".
 *
 * Modes (-m), R rounds (-n), work W microseconds (-w):
 *   chain MODES   rank r receives two messages (tags 1, 2) from r - 1, works
 *                 W, sends two to r + 1; a barrier ends each round. The path
 *                 is every rank's work of every round. Written with:
 *                 blocking, nonblocking (Irecv/Isend, Waitall), waitany,
 *                 waitsome, test (Test loops), persistent (Startall), sendrecv
 *                 (MPI_PROC_NULL on the other side), anysource (ANY_SOURCE and
 *                 ANY_TAG), probe (Probe, Recv), mprobe (Mprobe/Mrecv, an
 *                 Improbe that finds nothing, then Improbe/Imrecv).
 *   wildcard      pairs (2i, 2i + 1): the sender works W, sends tag 1, works
 *                 W/2, sends tag 1 again; the receiver has posted a wildcard
 *                 receive, then one from the sender: the second message is
 *                 the specific one's. It waits for that one, works W, then
 *                 waits for the wildcard: the path is W + W/2 + W per round
 *                 (pairing the piggybacks the other way round would give
 *                 W + W).
 *   slow          R rounds of work W and an MPI_Allreduce; rank S (-s) works
 *                 W + D (-d): the path is R (W + D).
 *   pcontrol      MPI_Pcontrol regions (online-CP §2.3): measuring stops
 *                 after MPI_Init; each round rank 0 starts it, works W, sends
 *                 to rank 1; rank r receives, works W, only then calls
 *                 MPI_Pcontrol(1) (the message's marker started it), sends
 *                 on; the last rank stops and sends to rank 0, which works W
 *                 more (stopped by that marker) before its own stop; then
 *                 every rank works W unmeasured. Rank 1 sent rank 0 a message
 *                 before any start, received inside the first region (no
 *                 path: it starts nothing and stops nothing). The path is
 *                 the chain's P W a round; prints "unmeasured NS" too (the
 *                 least a rank worked outside the regions).
 *   comms         the application's own communicators and the largest tag:
 *                 each round a chain inside halves made by MPI_Comm_split
 *                 (ranks reversed) with tag MPI_TAG_UB, a barrier on an
 *                 MPI_Comm_dup, then a chain along a 1-D MPI_Cart_create
 *                 (MPI_Cart_shift's neighbours) and a barrier on it; the
 *                 communicators are freed at the end. The path is the
 *                 longer half's chain and the whole chain, each round.
 *   pingpong      R round trips of one int between ranks 0 and 1, no work
 *                 (the cost a message, for benchmarks).
 *   zeroing       critical path zeroing (online-CP §3): R rounds of work and
 *                 an MPI_Allreduce, called by rank 1 from one line after 3W,
 *                 by the others from another after W (rank 2: 2W). The path
 *                 is R 3W, all of it the computation before rank 1's call;
 *                 without that computation it would be rank 2's R 2W, so
 *                 zeroing it saves R W, not its R 3W share. Prints "zeroed
 *                 NS": the rounds' longest work of the ranks but rank 1.
 *   functions     sampled functions on the path: R rounds; rank 1 works 2W
 *                 in solve() (W called from predict(), W from correct())
 *                 and W in exchange_halo(), the others W/2 in solve() from
 *                 predict(), then an MPI_Allreduce. The path is R 3W, two
 *                 thirds of it solve() and one exchange_halo(); prints
 *                 "solved NS", "exchanged NS" and "predicted NS" (rank
 *                 1's, measured).
 *   bcast         R rounds of work and an MPI_Bcast from rank 0: the last
 *                 rank works 3W, the others W; then rank 1 works 5W. A late
 *                 non-root rank delays no one: the path is the last rank's
 *                 R 3W, not R 3W + 5W.
 *
 *   patterns -m MODE [-n R] [-w W] [-s S] [-d D] [-b]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int busy;  /* -b: spin instead of sleeping (one rank a core: no jitter of wake-ups) */

/* Sleeps (or spins) `us` to a deadline; returns the ns it took. A macro,
 * so that each function using it is the innermost frame of its samples
 * (an inlined function would keep its own name offline). */
#define SPEND(us)                                                            \
  do {                                                                       \
    const long long start_ = now_ns(), end_ = start_ + (us) * 1000LL;        \
    for (long long left = (us) * 1000LL; left > 0; left = end_ - now_ns()) { \
      if (!busy) usleep((useconds_t)((left + 999) / 1000));                  \
    }                                                                        \
    spent = now_ns() - start_;                                               \
  } while (0)

__attribute__((noinline)) long long work(long us) {
  long long spent;
  SPEND(us);
  return spent;
}

/* Two named functions for the "functions" mode. */
__attribute__((noinline)) long long solve(long us) {
  long long spent;
  SPEND(us);
  return spent;
}
__attribute__((noinline)) long long exchange_halo(long us) {
  long long spent;
  SPEND(us);
  return spent;
}

static int rank, size;

static void chain_receive(const char* how, int from, int* buf) {
  MPI_Status st;
  if (!strcmp(how, "blocking")) {
    MPI_Recv(&buf[0], 1, MPI_INT, from, 1, MPI_COMM_WORLD, &st);
    MPI_Recv(&buf[1], 1, MPI_INT, from, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (!strcmp(how, "nonblocking") || !strcmp(how, "waitany") || !strcmp(how, "waitsome") ||
             !strcmp(how, "test")) {
    MPI_Request r[2];
    MPI_Irecv(&buf[0], 1, MPI_INT, from, 1, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(&buf[1], 1, MPI_INT, from, 2, MPI_COMM_WORLD, &r[1]);
    if (!strcmp(how, "nonblocking")) {
      MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    } else if (!strcmp(how, "waitany")) {
      int index;
      MPI_Waitany(2, r, &index, &st);
      MPI_Waitany(2, r, &index, &st);
    } else if (!strcmp(how, "waitsome")) {
      int done = 0, out, idx[2];
      while (done < 2) {
        MPI_Waitsome(2, r, &out, idx, MPI_STATUSES_IGNORE);
        done += out;
      }
    } else {
      for (int i = 0; i < 2; ++i) {
        int flag = 0;
        while (!flag) MPI_Test(&r[i], &flag, MPI_STATUS_IGNORE);
      }
    }
  } else if (!strcmp(how, "sendrecv")) {
    MPI_Sendrecv(NULL, 0, MPI_INT, MPI_PROC_NULL, 0, &buf[0], 1, MPI_INT, from, 1, MPI_COMM_WORLD, &st);
    MPI_Sendrecv(NULL, 0, MPI_INT, MPI_PROC_NULL, 0, &buf[1], 1, MPI_INT, from, 2, MPI_COMM_WORLD, &st);
  } else if (!strcmp(how, "anysource")) {
    MPI_Recv(&buf[0], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    MPI_Recv(&buf[1], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
  } else if (!strcmp(how, "probe")) {
    for (int i = 0; i < 2; ++i) {
      MPI_Probe(from, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
      MPI_Recv(&buf[i], 1, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  } else if (!strcmp(how, "mprobe")) {
    MPI_Message m;
    MPI_Mprobe(from, 1, MPI_COMM_WORLD, &m, &st);
    MPI_Mrecv(&buf[0], 1, MPI_INT, &m, MPI_STATUS_IGNORE);
    int flag = 0;
    MPI_Improbe(from, 3, MPI_COMM_WORLD, &flag, &m, &st);  // tag 3 is never sent: a probe that finds nothing
    flag = 0;
    while (!flag) MPI_Improbe(from, 2, MPI_COMM_WORLD, &flag, &m, &st);
    MPI_Request r;
    MPI_Imrecv(&buf[1], 1, MPI_INT, &m, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  } else {
    fprintf(stderr, "patterns: unknown chain mode %s\n", how);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

static void chain_send(const char* how, int to, int* buf) {
  if (!strcmp(how, "nonblocking") || !strcmp(how, "waitany") || !strcmp(how, "waitsome") || !strcmp(how, "test")) {
    MPI_Request r[2];
    MPI_Isend(&buf[0], 1, MPI_INT, to, 1, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(&buf[1], 1, MPI_INT, to, 2, MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  } else if (!strcmp(how, "sendrecv")) {
    MPI_Sendrecv(&buf[0], 1, MPI_INT, to, 1, NULL, 0, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&buf[1], 1, MPI_INT, to, 2, NULL, 0, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Send(&buf[0], 1, MPI_INT, to, 1, MPI_COMM_WORLD);
    MPI_Send(&buf[1], 1, MPI_INT, to, 2, MPI_COMM_WORLD);
  }
}

/* Every rank's work of every round: the path of the chain. */
static long long chain(const char* how, long rounds, long w) {
  int buf[2] = {rank, rank};
  long long mine = 0;
  if (!strcmp(how, "persistent")) {
    MPI_Request r[4];
    int n = 0;
    if (rank > 0) {
      MPI_Recv_init(&buf[0], 1, MPI_INT, rank - 1, 1, MPI_COMM_WORLD, &r[n++]);
      MPI_Recv_init(&buf[1], 1, MPI_INT, rank - 1, 2, MPI_COMM_WORLD, &r[n++]);
    }
    int s = n;
    if (rank < size - 1) {
      MPI_Send_init(&buf[0], 1, MPI_INT, rank + 1, 1, MPI_COMM_WORLD, &r[n++]);
      MPI_Send_init(&buf[1], 1, MPI_INT, rank + 1, 2, MPI_COMM_WORLD, &r[n++]);
    }
    for (long k = 0; k < rounds; ++k) {
      if (s > 0) {
        MPI_Startall(s, r);
        MPI_Waitall(s, r, MPI_STATUSES_IGNORE);
      }
      mine += work(w);
      if (n > s) {
        MPI_Startall(n - s, r + s);
        MPI_Waitall(n - s, r + s, MPI_STATUSES_IGNORE);
      }
      MPI_Barrier(MPI_COMM_WORLD);
    }
    for (int i = 0; i < n; ++i) MPI_Request_free(&r[i]);
  } else {
    for (long k = 0; k < rounds; ++k) {
      if (rank > 0) chain_receive(how, rank - 1, buf);
      mine += work(w);
      if (rank < size - 1) chain_send(how, rank + 1, buf);
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }
  long long all = 0;
  MPI_Reduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  return all;
}

/* Per round: the longest pair's sender work, W/2, and receiver work. */
static long long wildcard(long rounds, long w) {
  long long total = 0;
  const int peer = rank ^ 1;
  for (long k = 0; k < rounds; ++k) {
    long long mine = 0;
    int a = 0, b = 0;
    if (peer < size && rank % 2 == 0) {
      mine += work(w);
      MPI_Send(&a, 1, MPI_INT, peer, 1, MPI_COMM_WORLD);
      mine += work(w / 2);
      MPI_Send(&b, 1, MPI_INT, peer, 1, MPI_COMM_WORLD);
    } else if (peer < size) {
      MPI_Request any, specific;
      MPI_Irecv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &any);
      MPI_Irecv(&b, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &specific);
      MPI_Wait(&specific, MPI_STATUS_IGNORE);
      mine += work(w);
      MPI_Wait(&any, MPI_STATUS_IGNORE);
    }
    /* the pair's sum, then the longest pair */
    long long pair = 0, longest = 0, sums[2] = {mine, 0};
    MPI_Sendrecv(&sums[0], 1, MPI_LONG_LONG, peer < size ? peer : MPI_PROC_NULL, 9, &sums[1], 1, MPI_LONG_LONG,
                 peer < size ? peer : MPI_PROC_NULL, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    pair = sums[0] + sums[1];
    MPI_Allreduce(&pair, &longest, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    total += longest;
  }
  return total;
}

/* Per round, the longest work: the slow rank's. */
static long long slow(long rounds, long w, int s, long d) {
  long long total = 0;
  for (long k = 0; k < rounds; ++k) {
    const long long mine = work(rank == s ? w + d : w);
    long long longest = 0;
    MPI_Allreduce(&mine, &longest, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    total += longest;
  }
  return total;
}

/* Rank 1's 3W a round, from its own call site; `zeroed` gets the rounds'
 * longest work of the other ranks. */
static long long zeroed;
/* Two functions, so that the compiler keeps two call sites. */
__attribute__((noinline)) static void heavy_step(long w, long long* mine, long long* longest) {
  mine[0] = work(3 * w);
  MPI_Allreduce(mine, longest, 2, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
}
__attribute__((noinline)) static void light_step(long w, long long* mine, long long* longest) {
  mine[0] = mine[1] = work(rank == 2 ? 2 * w : w);
  MPI_Allreduce(mine, longest, 2, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
}
static long long zeroing(long rounds, long w) {
  long long total = 0;
  for (long k = 0; k < rounds; ++k) {
    long long mine[2] = {0, 0}, longest[2];  /* {work, work of a rank but 1} */
    if (rank == 1) heavy_step(w, mine, longest);
    else light_step(w, mine, longest);
    total += longest[0];
    zeroed += longest[1];
  }
  return total;
}

/* solve() from two callers, so that it has two calling contexts (the
 * empty asm keeps the calls from becoming jumps, which would drop the
 * caller's frame). */
__attribute__((noinline)) long long predict(long us) {
  const long long spent = solve(us);
  __asm__ volatile("" ::: "memory");
  return spent;
}
__attribute__((noinline)) long long correct(long us) {
  const long long spent = solve(us);
  __asm__ volatile("" ::: "memory");
  return spent;
}

/* Rank 1's 2W in solve() (W from predict(), W from correct()) and W in
 * exchange_halo() a round; the others' W/2 in solve() from predict().
 * `solved`, `exchanged`, `predicted`: rank 1's measured times. */
static long long solved, exchanged, predicted;
__attribute__((noinline)) static long long functions(long rounds, long w) {
  long long total = 0, mine[4];
  for (long k = 0; k < rounds; ++k) {
    mine[3] = predict(rank == 1 ? w : w / 2);
    mine[1] = mine[3] + (rank == 1 ? correct(w) : 0);
    mine[2] = rank == 1 ? exchange_halo(w) : 0;
    mine[0] = mine[1] + mine[2];
    long long longest[4];
    MPI_Allreduce(mine, longest, 4, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    total += longest[0];
    solved += longest[1];
    exchanged += longest[2];
    predicted += longest[3];
  }
  return total;
}

/* The last rank's 3W a round; the others' W and rank 1's 5W at the end
 * fall short of it. */
static long long bcast(long rounds, long w) {
  long long mine = 0, extra = 0;
  int v = 0;
  for (long k = 0; k < rounds; ++k) {
    mine += work(rank == size - 1 ? 3 * w : w);
    MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  if (rank == 1) extra = work(5 * w);
  long long ends[2] = {mine + extra, 0};
  MPI_Reduce(&ends[0], &ends[1], 1, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
  return ends[1];
}

static long long comms(long rounds, long w) {
  MPI_Comm half, dup, line;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  int dims[1] = {size}, periods[1] = {0}, hrank, hsize, before, after, *tag_ub, flag;
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &line);
  MPI_Cart_shift(line, 0, 1, &before, &after);
  MPI_Comm_rank(half, &hrank);
  MPI_Comm_size(half, &hsize);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
  const int tag = flag ? *tag_ub : 32767;
  long long in_half = 0, along = 0;
  int v = 0;
  for (long k = 0; k < rounds; ++k) {
    if (hrank > 0) MPI_Recv(&v, 1, MPI_INT, hrank - 1, tag, half, MPI_STATUS_IGNORE);
    in_half += work(w);
    if (hrank < hsize - 1) MPI_Send(&v, 1, MPI_INT, hrank + 1, tag, half);
    MPI_Barrier(dup);
    MPI_Recv(&v, 1, MPI_INT, before, tag, line, MPI_STATUS_IGNORE);
    along += work(w);
    MPI_Send(&v, 1, MPI_INT, after, tag, line);
    MPI_Barrier(line);
  }
  long long half_total = 0, halves = 0, all = 0;
  MPI_Allreduce(&in_half, &half_total, 1, MPI_LONG_LONG, MPI_SUM, half);
  MPI_Reduce(&half_total, &halves, 1, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&along, &all, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Comm_free(&line);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&half);
  return halves + all;
}

static long long unmeasured;

static long long pcontrol(long rounds, long w) {
  long long mine = 0;
  int v = 0, early = 0;
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Pcontrol(0);
  unmeasured += work(w);
  if (rank == 1) MPI_Isend(&early, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &req);
  for (long k = 0; k < rounds && size > 1; ++k) {
    if (rank == 0) {
      MPI_Pcontrol(1);
      if (k == 0) MPI_Recv(&early, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      mine += work(w);
      MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(&v, 1, MPI_INT, size - 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      unmeasured += work(w);
      MPI_Pcontrol(0);
    } else {
      MPI_Recv(&v, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      mine += work(w);
      MPI_Pcontrol(1);
      if (rank < size - 1) {
        MPI_Send(&v, 1, MPI_INT, rank + 1, 0, MPI_COMM_WORLD);
        MPI_Pcontrol(0);
      } else {
        MPI_Pcontrol(0);
        MPI_Send(&v, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
      }
    }
    unmeasured += work(w);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  long long all = 0, least = 0;
  MPI_Reduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&unmeasured, &least, 1, MPI_LONG_LONG, MPI_MIN, 0, MPI_COMM_WORLD);
  unmeasured = least;
  return all;
}

static long long pingpong(long rounds) {
  int v = 0;
  for (long k = 0; k < rounds && size > 1; ++k) {
    if (rank == 0) {
      MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
  }
  return 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const long long start = now_ns();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* mode = "blocking";
  long rounds = 5, w = 2000, d = 3000;
  int s = 1, opt;
  while ((opt = getopt(argc, argv, "m:n:w:s:d:b")) != -1) {
    if (opt == 'b') busy = 1;
    else if (opt == 'm') mode = optarg;
    else if (opt == 'n') rounds = atol(optarg);
    else if (opt == 'w') w = atol(optarg);
    else if (opt == 's') s = atoi(optarg);
    else if (opt == 'd') d = atol(optarg);
  }
  long long expect;
  if (!strcmp(mode, "wildcard")) expect = wildcard(rounds, w);
  else if (!strcmp(mode, "slow")) expect = slow(rounds, w, s % size, d);
  else if (!strcmp(mode, "bcast")) expect = bcast(rounds, w);
  else if (!strcmp(mode, "zeroing")) expect = zeroing(rounds, w);
  else if (!strcmp(mode, "functions")) expect = functions(rounds, w);
  else if (!strcmp(mode, "pingpong")) expect = pingpong(rounds);
  else if (!strcmp(mode, "pcontrol")) expect = pcontrol(rounds, w);
  else if (!strcmp(mode, "comms")) expect = comms(rounds, w);
  else expect = chain(mode, rounds, w);
  const long long elapsed = now_ns() - start;
  MPI_Finalize();
  if (rank == 0) {
    printf("mode %s\nexpect %lld\nelapsed %lld\nunmeasured %lld\nzeroed %lld\nsolved %lld\nexchanged %lld\n"
           "predicted %lld\n", mode, expect, elapsed, unmeasured, zeroed, solved, exchanged, predicted);
  }
  return 0;
}
