/* Every MPI call family the collector wraps (lib/mpi/functions.txt),
 * one small section each, with what the trace must say about each call
 * written next to it (tests/mpi/expect.h). Run with exactly 4 ranks on one
 * node.
 *
 * Conventions: "partner" is rank ^ 1 (pairs 0-1 and 2-3), "next"/"prev"
 * are (rank +/- 1) mod 4. Peers, roots and communicator members in the
 * expectations are WORLD ranks, derived from how each communicator was
 * built, never asked of MPI. Calls the collector does not wrap (ranks,
 * sizes, groups, datatypes, Buffer_attach, Get_count, File_delete ...) get no
 * expectation. Completion calls name the requests they complete in
 * "ncompleted" and list "resolved" only for receives whose status differs
 * from what was posted; where MPI decides the completion order
 * (Waitany/Testany/Waitsome/Testsome), the expectation is built from the
 * indices MPI returned. Polling loops (Test, Iprobe, ...) expect every call.
 *
 * Sizes: int is 4 bytes, double 8. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tests/mpi/expect.h"

enum { kRanks = 4 };

static int rank, partner, next, prev;
static const char* const kWorld = "[0,1,2,3]";

/* --- formatting helpers (rotating static buffers) ------------------------ */

static char* scratch(void) {
  static char bufs[16][512];
  static int i;
  i = (i + 1) % 16;
  bufs[i][0] = '\0';
  return bufs[i];
}

/* JSON list of n ints. */
static const char* list(int n, const int* v) {
  char* out = scratch();
  size_t len = 0;
  len += snprintf(out + len, 512 - len, "[");
  for (int i = 0; i < n; ++i) len += snprintf(out + len, 512 - len, "%s%d", i ? "," : "", v[i]);
  snprintf(out + len, 512 - len, "]");
  return out;
}

/* What a receive request resolves to at completion, if anything. */
typedef struct {
  int resolves; /* 0: completes as posted (or is a send): no resolved entry */
  int peer, tag, bytes;
} Resolve;

/* "resolved" list of the requests idx[0..n) (in completion order). */
static const char* resolved(int n, const int* idx, const Resolve* r) {
  char* out = scratch();
  size_t len = snprintf(out, 512, "[");
  int first = 1;
  for (int j = 0; j < n; ++j) {
    const Resolve* e = &r[idx[j]];
    if (!e->resolves) continue;
    len += snprintf(out + len, 512 - len, "%s[%d,%d,%d]", first ? "" : ",", e->peer, e->tag, e->bytes);
    first = 0;
  }
  snprintf(out + len, 512 - len, "]");
  return out;
}

static const Resolve kNone = {0, 0, 0, 0};

/* Polling loops sleep a little between calls (every call is recorded) and
 * give up after a few seconds rather than fill the disk. */
static void pause_poll(void) {
  static long polls;
  if (++polls > 20000) {
    fprintf(stderr, "families: rank %d: polled %ld times, giving up\n", rank, polls);
    MPI_Abort(MPI_COMM_WORLD, 4);
  }
  usleep(200);
}

/* ======================================================================= */
/* 1. Blocking point to point                                               */
/* ======================================================================= */
static void blocking_p2p(void) {
  const int even = rank % 2 == 0;
  int ibuf[128] = {0};
  double dbuf[8] = {0};

  /* Send/Recv: even -> odd, 10 ints, tag 10. */
  if (even) {
    MPI_Send(ibuf, 10, MPI_INT, partner, 10, MPI_COMM_WORLD);
    rp_expect("MPI_Send", "\"peer\":%d,\"tag\":10,\"bytes\":40,\"comm_ranks\":%s", partner, kWorld);
  } else {
    MPI_Recv(ibuf, 10, MPI_INT, partner, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    rp_expect("MPI_Recv", "\"peer\":%d,\"tag\":10,\"bytes\":40,\"comm_ranks\":%s", partner, kWorld);
  }

  /* Ssend: odd -> even, 3 doubles, tag 11. */
  if (!even) {
    MPI_Ssend(dbuf, 3, MPI_DOUBLE, partner, 11, MPI_COMM_WORLD);
    rp_expect("MPI_Ssend", "\"peer\":%d,\"tag\":11,\"bytes\":24", partner);
  } else {
    MPI_Recv(dbuf, 3, MPI_DOUBLE, partner, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    rp_expect("MPI_Recv", "\"peer\":%d,\"tag\":11,\"bytes\":24", partner);
  }

  /* Bsend through the buffer attached in main: even -> odd, 5 ints, tag 12. */
  if (even) {
    MPI_Bsend(ibuf, 5, MPI_INT, partner, 12, MPI_COMM_WORLD);
    rp_expect("MPI_Bsend", "\"peer\":%d,\"tag\":12,\"bytes\":20", partner);
  } else {
    MPI_Status st;
    MPI_Recv(ibuf, 5, MPI_INT, partner, 12, MPI_COMM_WORLD, &st);
    rp_expect("MPI_Recv", "\"peer\":%d,\"tag\":12,\"bytes\":20", partner);
  }

  /* Rsend: the receiver posts its Irecv before the Barrier, the sender sends
   * after it, so the receive is known to be posted. Even -> odd, 4 ints. */
  MPI_Request req = MPI_REQUEST_NULL;
  if (!even) {
    MPI_Irecv(ibuf, 4, MPI_INT, partner, 13, MPI_COMM_WORLD, &req);
    rp_expect("MPI_Irecv", "\"peer\":%d,\"tag\":13,\"bytes\":16,\"has_req\":true", partner);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  rp_expect("MPI_Barrier", "\"comm_ranks\":%s", kWorld);
  if (even) {
    MPI_Rsend(ibuf, 4, MPI_INT, partner, 13, MPI_COMM_WORLD);
    rp_expect("MPI_Rsend", "\"peer\":%d,\"tag\":13,\"bytes\":16", partner);
  } else {
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    rp_expect("MPI_Wait", "\"ncompleted\":1,\"resolved\":[],\"absent\":[\"peer\",\"tag\"]");
  }

  /* A receive posted for 100 ints that gets 2: bytes are what arrived. */
  if (even) {
    MPI_Send(ibuf, 2, MPI_INT, partner, 14, MPI_COMM_WORLD);
    rp_expect("MPI_Send", "\"peer\":%d,\"tag\":14,\"bytes\":8", partner);
  } else {
    MPI_Recv(ibuf, 100, MPI_INT, partner, 14, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    rp_expect("MPI_Recv", "\"peer\":%d,\"tag\":14,\"bytes\":8", partner);
  }

  /* MPI_PROC_NULL: a send records the posted size; a receive completes at
   * once with source MPI_PROC_NULL, tag MPI_ANY_TAG and count 0. */
  MPI_Send(ibuf, 3, MPI_INT, MPI_PROC_NULL, 15, MPI_COMM_WORLD);
  rp_expect("MPI_Send", "\"peer\":-2,\"tag\":15,\"bytes\":12");
  MPI_Recv(ibuf, 3, MPI_INT, MPI_PROC_NULL, 15, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  rp_expect("MPI_Recv", "\"peer\":-2,\"tag\":%d,\"bytes\":0", MPI_ANY_TAG);
}

/* ======================================================================= */
/* 2. Nonblocking point to point and every completion call                  */
/* ======================================================================= */
static void nonblocking_p2p(void) {
  const int even = rank % 2 == 0;
  int a[64] = {0}, b[64] = {0};
  double d[8] = {0}, e[8] = {0};
  MPI_Request reqs[2];
  MPI_Status sts[2];

  /* Isend/Irecv + Wait: even -> odd, 6 ints, tag 20. */
  if (even) {
    MPI_Isend(a, 6, MPI_INT, partner, 20, MPI_COMM_WORLD, &reqs[0]);
    rp_expect("MPI_Isend", "\"peer\":%d,\"tag\":20,\"bytes\":24,\"has_req\":true", partner);
  } else {
    MPI_Irecv(a, 6, MPI_INT, partner, 20, MPI_COMM_WORLD, &reqs[0]);
    rp_expect("MPI_Irecv", "\"peer\":%d,\"tag\":20,\"bytes\":24,\"has_req\":true", partner);
  }
  MPI_Wait(&reqs[0], &sts[0]);
  rp_expect("MPI_Wait", "\"ncompleted\":1,\"resolved\":[],\"absent\":[\"peer\",\"tag\"]");

  /* Irecv + Issend both ways, Waitall: 8 ints, tag 21. */
  MPI_Irecv(a, 8, MPI_INT, partner, 21, MPI_COMM_WORLD, &reqs[0]);
  rp_expect("MPI_Irecv", "\"peer\":%d,\"tag\":21,\"bytes\":32,\"has_req\":true", partner);
  MPI_Issend(b, 8, MPI_INT, partner, 21, MPI_COMM_WORLD, &reqs[1]);
  rp_expect("MPI_Issend", "\"peer\":%d,\"tag\":21,\"bytes\":32,\"has_req\":true", partner);
  MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  rp_expect("MPI_Waitall", "\"ncompleted\":2,\"resolved\":[],\"absent\":[\"peer\",\"tag\"]");

  /* Irecv posted for 16 ints that gets 4 (resolved: fewer bytes) + Ibsend,
   * completed one at a time with Waitany, in whatever order MPI says. */
  {
    const Resolve r[2] = {{1, partner, 22, 16}, kNone};
    MPI_Irecv(a, 16, MPI_INT, partner, 22, MPI_COMM_WORLD, &reqs[0]);
    rp_expect("MPI_Irecv", "\"peer\":%d,\"tag\":22,\"bytes\":64,\"has_req\":true", partner);
    MPI_Ibsend(b, 4, MPI_INT, partner, 22, MPI_COMM_WORLD, &reqs[1]);
    rp_expect("MPI_Ibsend", "\"peer\":%d,\"tag\":22,\"bytes\":16,\"has_req\":true", partner);
    for (int k = 0; k < 2; ++k) {
      int index;
      MPI_Waitany(2, reqs, &index, MPI_STATUS_IGNORE);
      rp_expect("MPI_Waitany", "\"ncompleted\":1,\"resolved\":%s,\"absent\":[\"peer\",\"tag\"]",
                resolved(1, &index, r));
    }
  }

  /* Irsend: both post an Irecv, Barrier, then Irsend; Waitsome until done.
   * 3 doubles, tag 23. */
  {
    const Resolve r[2] = {kNone, kNone};
    MPI_Irecv(d, 3, MPI_DOUBLE, partner, 23, MPI_COMM_WORLD, &reqs[0]);
    rp_expect("MPI_Irecv", "\"peer\":%d,\"tag\":23,\"bytes\":24,\"has_req\":true", partner);
    MPI_Barrier(MPI_COMM_WORLD);
    rp_expect("MPI_Barrier", "\"comm_ranks\":%s", kWorld);
    MPI_Irsend(e, 3, MPI_DOUBLE, partner, 23, MPI_COMM_WORLD, &reqs[1]);
    rp_expect("MPI_Irsend", "\"peer\":%d,\"tag\":23,\"bytes\":24,\"has_req\":true", partner);
    int done = 0;
    while (done < 2) {
      int outcount, idx[2];
      MPI_Waitsome(2, reqs, &outcount, idx, sts);
      rp_expect("MPI_Waitsome", "\"ncompleted\":%d,\"resolved\":%s", outcount, resolved(outcount, idx, r));
      done += outcount;
    }
  }

  /* Test in a loop: odd sends late, so even's first Tests find nothing.
   * 1 int, tag 24, odd -> even. */
  if (even) {
    MPI_Irecv(a, 1, MPI_INT, partner, 24, MPI_COMM_WORLD, &reqs[0]);
    rp_expect("MPI_Irecv", "\"peer\":%d,\"tag\":24,\"bytes\":4,\"has_req\":true", partner);
  } else {
    usleep(5000);
    MPI_Isend(a, 1, MPI_INT, partner, 24, MPI_COMM_WORLD, &reqs[0]);
    rp_expect("MPI_Isend", "\"peer\":%d,\"tag\":24,\"bytes\":4,\"has_req\":true", partner);
  }
  for (int flag = 0; !flag;) {
    MPI_Test(&reqs[0], &flag, MPI_STATUS_IGNORE);
    rp_expect("MPI_Test", "\"ncompleted\":%d,\"resolved\":[],\"absent\":[\"peer\",\"tag\"]", flag ? 1 : 0);
    if (!flag) pause_poll();
  }

  /* Testall in a loop: 2 ints both ways, tag 25. */
  MPI_Irecv(a, 2, MPI_INT, partner, 25, MPI_COMM_WORLD, &reqs[0]);
  rp_expect("MPI_Irecv", "\"peer\":%d,\"tag\":25,\"bytes\":8,\"has_req\":true", partner);
  MPI_Isend(b, 2, MPI_INT, partner, 25, MPI_COMM_WORLD, &reqs[1]);
  rp_expect("MPI_Isend", "\"peer\":%d,\"tag\":25,\"bytes\":8,\"has_req\":true", partner);
  for (int flag = 0; !flag;) {
    MPI_Testall(2, reqs, &flag, sts);
    rp_expect("MPI_Testall", "\"ncompleted\":%d,\"resolved\":[]", flag ? 2 : 0);
    if (!flag) pause_poll();
  }

  /* Testany in a loop; the receive has MPI_ANY_TAG, so it resolves its tag.
   * 5 ints, tag 26. */
  {
    const Resolve r[2] = {{1, partner, 26, 20}, kNone};
    MPI_Irecv(a, 5, MPI_INT, partner, MPI_ANY_TAG, MPI_COMM_WORLD, &reqs[0]);
    rp_expect("MPI_Irecv", "\"peer\":%d,\"tag\":%d,\"bytes\":20,\"has_req\":true", partner, MPI_ANY_TAG);
    MPI_Isend(b, 5, MPI_INT, partner, 26, MPI_COMM_WORLD, &reqs[1]);
    rp_expect("MPI_Isend", "\"peer\":%d,\"tag\":26,\"bytes\":20,\"has_req\":true", partner);
    int done = 0;
    while (done < 2) {
      int index, flag;
      MPI_Testany(2, reqs, &index, &flag, MPI_STATUS_IGNORE);
      const int got = flag && index != MPI_UNDEFINED;
      rp_expect("MPI_Testany", "\"ncompleted\":%d,\"resolved\":%s", got, got ? resolved(1, &index, r) : "[]");
      if (got) ++done;
      else pause_poll();
    }
  }

  /* Testsome in a loop; the receive is posted for 10 ints and gets 2. Tag 27. */
  {
    const Resolve r[2] = {{1, partner, 27, 8}, kNone};
    MPI_Irecv(a, 10, MPI_INT, partner, 27, MPI_COMM_WORLD, &reqs[0]);
    rp_expect("MPI_Irecv", "\"peer\":%d,\"tag\":27,\"bytes\":40,\"has_req\":true", partner);
    MPI_Isend(b, 2, MPI_INT, partner, 27, MPI_COMM_WORLD, &reqs[1]);
    rp_expect("MPI_Isend", "\"peer\":%d,\"tag\":27,\"bytes\":8,\"has_req\":true", partner);
    int done = 0;
    while (done < 2) {
      int outcount, idx[2];
      MPI_Testsome(2, reqs, &outcount, idx, MPI_STATUSES_IGNORE);
      rp_expect("MPI_Testsome", "\"ncompleted\":%d,\"resolved\":%s", outcount, resolved(outcount, idx, r));
      done += outcount;
      if (outcount == 0) pause_poll();
    }
  }

  /* Irecv from MPI_ANY_SOURCE with MPI_ANY_TAG, completed by a Wait with
   * MPI_STATUS_IGNORE: the collector still resolves source, tag and size.
   * Ring: each rank sends 3 ints with tag 28 to next; 8 ints posted. All
   * earlier messages have been received and the Barrier after the Wait
   * holds back later ones, so only prev's can match. */
  MPI_Irecv(a, 8, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &reqs[0]);
  rp_expect("MPI_Irecv", "\"peer\":-1,\"tag\":%d,\"bytes\":32,\"has_req\":true", MPI_ANY_TAG);
  MPI_Send(b, 3, MPI_INT, next, 28, MPI_COMM_WORLD);
  rp_expect("MPI_Send", "\"peer\":%d,\"tag\":28,\"bytes\":12", next);
  MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
  rp_expect("MPI_Wait", "\"ncompleted\":1,\"resolved\":[[%d,28,12]]", prev);
  /* Nobody sends again before every wildcard receive has matched. */
  MPI_Barrier(MPI_COMM_WORLD);
  rp_expect("MPI_Barrier", " ");

  /* Request_get_status polls without completing; the Wait completes. */
  MPI_Irecv(a, 1, MPI_INT, partner, 29, MPI_COMM_WORLD, &reqs[0]);
  rp_expect("MPI_Irecv", "\"peer\":%d,\"tag\":29,\"bytes\":4,\"has_req\":true", partner);
  MPI_Send(b, 1, MPI_INT, partner, 29, MPI_COMM_WORLD);
  rp_expect("MPI_Send", "\"peer\":%d,\"tag\":29,\"bytes\":4", partner);
  for (int flag = 0; !flag;) {
    MPI_Request_get_status(reqs[0], &flag, MPI_STATUS_IGNORE);
    rp_expect("MPI_Request_get_status", "\"has_req\":true,\"ncompleted\":0");
    if (!flag) pause_poll();
  }
  MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
  rp_expect("MPI_Wait", "\"ncompleted\":1,\"resolved\":[]");
}

/* ======================================================================= */
/* 3. Persistent requests                                                   */
/* ======================================================================= */
static void persistent(void) {
  int a[16] = {0}, b[16] = {0}, c[16] = {0}, d[16] = {0};
  MPI_Request reqs[4];

  MPI_Recv_init(a, 4, MPI_INT, partner, 30, MPI_COMM_WORLD, &reqs[0]);
  rp_expect("MPI_Recv_init", "\"peer\":%d,\"tag\":30,\"bytes\":16,\"has_req\":true", partner);
  MPI_Send_init(b, 4, MPI_INT, partner, 30, MPI_COMM_WORLD, &reqs[1]);
  rp_expect("MPI_Send_init", "\"peer\":%d,\"tag\":30,\"bytes\":16,\"has_req\":true", partner);
  /* A wildcard-tag receive posted for 16 ints; the partner Ssends 2. */
  MPI_Recv_init(c, 16, MPI_INT, partner, MPI_ANY_TAG, MPI_COMM_WORLD, &reqs[2]);
  rp_expect("MPI_Recv_init", "\"peer\":%d,\"tag\":%d,\"bytes\":64,\"has_req\":true", partner, MPI_ANY_TAG);
  MPI_Ssend_init(d, 2, MPI_INT, partner, 31, MPI_COMM_WORLD, &reqs[3]);
  rp_expect("MPI_Ssend_init", "\"peer\":%d,\"tag\":31,\"bytes\":8,\"has_req\":true", partner);

  /* Round 1: Start one by one. */
  MPI_Start(&reqs[0]);
  rp_expect("MPI_Start", "\"has_req\":true");
  MPI_Start(&reqs[1]);
  rp_expect("MPI_Start", "\"has_req\":true");
  MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  rp_expect("MPI_Waitall", "\"ncompleted\":2,\"resolved\":[]");

  /* Round 1b: the same two started, but Waitall over all four: the two
   * inactive ones return at once with an empty status; nothing of theirs
   * completes. */
  MPI_Start(&reqs[0]);
  rp_expect("MPI_Start", "\"has_req\":true");
  MPI_Start(&reqs[1]);
  rp_expect("MPI_Start", "\"has_req\":true");
  MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
  rp_expect("MPI_Waitall", "\"ncompleted\":2,\"resolved\":[]");

  /* Round 2: the same two with Startall. */
  MPI_Startall(2, reqs);
  rp_expect("MPI_Startall", " ");
  MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  rp_expect("MPI_Waitall", "\"ncompleted\":2,\"resolved\":[]");

  /* Rounds 3 and 4: all four; the wildcard receive resolves every time. */
  for (int round = 0; round < 2; ++round) {
    MPI_Startall(4, reqs);
    rp_expect("MPI_Startall", " ");
    MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
    rp_expect("MPI_Waitall", "\"ncompleted\":4,\"resolved\":[[%d,31,8]]", partner);
  }

  for (int i = 0; i < 4; ++i) {
    MPI_Request_free(&reqs[i]);
    rp_expect("MPI_Request_free", "\"has_req\":true");
  }

  /* Bsend_init (attached buffer) and Rsend_init (its receive is started
   * before the Barrier, the Rsend after it). */
  double x[2] = {0}, y[2] = {0};
  MPI_Request more[4];
  MPI_Recv_init(a, 3, MPI_INT, partner, 32, MPI_COMM_WORLD, &more[0]);
  rp_expect("MPI_Recv_init", "\"peer\":%d,\"tag\":32,\"bytes\":12,\"has_req\":true", partner);
  MPI_Bsend_init(b, 3, MPI_INT, partner, 32, MPI_COMM_WORLD, &more[1]);
  rp_expect("MPI_Bsend_init", "\"peer\":%d,\"tag\":32,\"bytes\":12,\"has_req\":true", partner);
  MPI_Recv_init(x, 2, MPI_DOUBLE, partner, 33, MPI_COMM_WORLD, &more[2]);
  rp_expect("MPI_Recv_init", "\"peer\":%d,\"tag\":33,\"bytes\":16,\"has_req\":true", partner);
  MPI_Rsend_init(y, 2, MPI_DOUBLE, partner, 33, MPI_COMM_WORLD, &more[3]);
  rp_expect("MPI_Rsend_init", "\"peer\":%d,\"tag\":33,\"bytes\":16,\"has_req\":true", partner);
  MPI_Start(&more[0]);
  rp_expect("MPI_Start", "\"has_req\":true");
  MPI_Start(&more[2]);
  rp_expect("MPI_Start", "\"has_req\":true");
  MPI_Barrier(MPI_COMM_WORLD);
  rp_expect("MPI_Barrier", " ");
  MPI_Start(&more[1]);
  rp_expect("MPI_Start", "\"has_req\":true");
  MPI_Start(&more[3]);
  rp_expect("MPI_Start", "\"has_req\":true");
  MPI_Waitall(4, more, MPI_STATUSES_IGNORE);
  rp_expect("MPI_Waitall", "\"ncompleted\":4,\"resolved\":[]");
  for (int i = 0; i < 4; ++i) {
    MPI_Request_free(&more[i]);
    rp_expect("MPI_Request_free", "\"has_req\":true");
  }
}

/* ======================================================================= */
/* 4. Sendrecv and Sendrecv_replace                                         */
/* ======================================================================= */
static void sendrecv(void) {
  int s[8] = {0}, r[16] = {0};
  double x[4] = {0};
  /* Ring forward: 5 ints to next, up to 16 from prev. */
  MPI_Sendrecv(s, 5, MPI_INT, next, 40, r, 16, MPI_INT, prev, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  rp_expect("MPI_Sendrecv", "\"peer\":%d,\"tag\":40,\"bytes\":20,\"rpeer\":%d,\"rtag\":40,\"rbytes\":20",
            next, prev);
  /* Ring backward, in place, receiving from anyone with any tag. */
  MPI_Sendrecv_replace(x, 4, MPI_DOUBLE, prev, 41, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE);
  rp_expect("MPI_Sendrecv_replace",
            "\"peer\":%d,\"tag\":41,\"bytes\":32,\"rpeer\":%d,\"rtag\":41,\"rbytes\":32", prev, next);
  /* Both sides MPI_PROC_NULL: the receive is empty. */
  MPI_Sendrecv(s, 2, MPI_INT, MPI_PROC_NULL, 42, r, 4, MPI_INT, MPI_PROC_NULL, 42, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  rp_expect("MPI_Sendrecv", "\"peer\":-2,\"tag\":42,\"bytes\":8,\"rpeer\":-2,\"rtag\":%d,\"rbytes\":0",
            MPI_ANY_TAG);
  /* Keep later messages away from the wildcard receive. */
  MPI_Barrier(MPI_COMM_WORLD);
  rp_expect("MPI_Barrier", " ");
}

/* ======================================================================= */
/* 5. Probes                                                                */
/* ======================================================================= */
static void probes(void) {
  const int even = rank % 2 == 0;
  int a[16] = {0};
  double d[4] = {0};
  MPI_Status st;

  /* Probe: odd -> even, 7 ints, tag 50; even probes with MPI_ANY_TAG. */
  if (!even) {
    MPI_Send(a, 7, MPI_INT, partner, 50, MPI_COMM_WORLD);
    rp_expect("MPI_Send", "\"peer\":%d,\"tag\":50,\"bytes\":28", partner);
  } else {
    MPI_Probe(partner, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    rp_expect("MPI_Probe", "\"peer\":%d,\"tag\":50,\"bytes\":28", partner);
    MPI_Recv(a, 7, MPI_INT, partner, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    rp_expect("MPI_Recv", "\"peer\":%d,\"tag\":50,\"bytes\":28", partner);
  }

  /* Iprobe until found: even -> odd (sent late), 2 doubles, tag 51. An
   * unsuccessful Iprobe records what it looked for. */
  if (even) {
    usleep(5000);
    MPI_Send(d, 2, MPI_DOUBLE, partner, 51, MPI_COMM_WORLD);
    rp_expect("MPI_Send", "\"peer\":%d,\"tag\":51,\"bytes\":16", partner);
  } else {
    for (int flag = 0; !flag;) {
      MPI_Iprobe(MPI_ANY_SOURCE, 51, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      if (flag) {
        rp_expect("MPI_Iprobe", "\"peer\":%d,\"tag\":51,\"bytes\":16", partner);
      } else {
        rp_expect("MPI_Iprobe", "\"peer\":-1,\"tag\":51,\"absent\":[\"bytes\",\"msg\"]");
        pause_poll();
      }
    }
    MPI_Recv(d, 2, MPI_DOUBLE, partner, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    rp_expect("MPI_Recv", "\"peer\":%d,\"tag\":51,\"bytes\":16", partner);
  }

  /* Probes of MPI_PROC_NULL find an empty message at once: source
   * MPI_PROC_NULL, tag MPI_ANY_TAG, count 0; Mrecv of it likewise. */
  {
    int flag = 0;
    MPI_Probe(MPI_PROC_NULL, 54, MPI_COMM_WORLD, &st);
    rp_expect("MPI_Probe", "\"peer\":-2,\"tag\":%d,\"bytes\":0", MPI_ANY_TAG);
    MPI_Iprobe(MPI_PROC_NULL, 54, MPI_COMM_WORLD, &flag, &st);
    rp_expect("MPI_Iprobe", "\"peer\":-2,\"tag\":%d,\"bytes\":0", MPI_ANY_TAG);
    MPI_Message none;
    /* The message is MPI_MESSAGE_NO_PROC: there is no matched message to
     * name, so no "msg" id, on the Mprobe as on the Mrecv. */
    MPI_Mprobe(MPI_PROC_NULL, 54, MPI_COMM_WORLD, &none, &st);
    rp_expect("MPI_Mprobe", "\"peer\":-2,\"tag\":%d,\"bytes\":0,\"absent\":[\"msg\"]", MPI_ANY_TAG);
    MPI_Mrecv(a, 1, MPI_INT, &none, &st);
    rp_expect("MPI_Mrecv", "\"peer\":-2,\"tag\":%d,\"bytes\":0,\"absent\":[\"msg\"]", MPI_ANY_TAG);
  }

  /* Mprobe + Mrecv: even -> odd, 3 ints, tag 52. */
  if (even) {
    MPI_Send(a, 3, MPI_INT, partner, 52, MPI_COMM_WORLD);
    rp_expect("MPI_Send", "\"peer\":%d,\"tag\":52,\"bytes\":12", partner);
  } else {
    MPI_Message msg;
    MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st);
    rp_expect("MPI_Mprobe", "\"peer\":%d,\"tag\":52,\"bytes\":12", partner);
    MPI_Mrecv(a, 16, MPI_INT, &msg, MPI_STATUS_IGNORE);
    rp_expect("MPI_Mrecv", "\"peer\":%d,\"tag\":52,\"bytes\":12", partner);
  }

  /* Improbe until found + Imrecv + Wait: odd -> even (sent late), 4 ints,
   * tag 53. */
  if (!even) {
    usleep(5000);
    MPI_Send(a, 4, MPI_INT, partner, 53, MPI_COMM_WORLD);
    rp_expect("MPI_Send", "\"peer\":%d,\"tag\":53,\"bytes\":16", partner);
  } else {
    MPI_Message msg = MPI_MESSAGE_NULL;
    for (int flag = 0; !flag;) {
      MPI_Improbe(partner, 53, MPI_COMM_WORLD, &flag, &msg, MPI_STATUS_IGNORE);
      if (flag) {
        rp_expect("MPI_Improbe", "\"peer\":%d,\"tag\":53,\"bytes\":16", partner);
      } else {
        rp_expect("MPI_Improbe", "\"peer\":%d,\"tag\":53,\"absent\":[\"bytes\",\"msg\"]", partner);
        pause_poll();
      }
    }
    MPI_Request req;
    MPI_Imrecv(a, 16, MPI_INT, &msg, &req);
    rp_expect("MPI_Imrecv", "\"peer\":%d,\"tag\":53,\"bytes\":16,\"has_req\":true", partner);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    rp_expect("MPI_Wait", "\"ncompleted\":1,\"resolved\":[]");
  }
}

/* ======================================================================= */
/* 6. Cancel                                                                */
/* ======================================================================= */
static void cancel(void) {
  int a[1];
  MPI_Request req;
  MPI_Status st;
  /* Nobody ever sends tag 999: the receive is cancelled, and a cancelled
   * receive resolves nothing. */
  MPI_Irecv(a, 1, MPI_INT, partner, 999, MPI_COMM_WORLD, &req);
  rp_expect("MPI_Irecv", "\"peer\":%d,\"tag\":999,\"bytes\":4,\"has_req\":true", partner);
  MPI_Cancel(&req);
  rp_expect("MPI_Cancel", "\"has_req\":true");
  MPI_Wait(&req, &st);
  rp_expect("MPI_Wait", "\"ncompleted\":1,\"resolved\":[]");
  int cancelled = 0;
  MPI_Test_cancelled(&st, &cancelled);
  if (!cancelled) fprintf(stderr, "rank %d: receive not cancelled\n", rank);
}

/* ======================================================================= */
/* 7. Blocking collectives (MPI_COMM_WORLD, world rank == comm rank)        */
/* ======================================================================= */
static void blocking_collectives(void) {
  int s[64], r[64];
  double ds[16], dr[16];
  for (int i = 0; i < 64; ++i) s[i] = rank + i;
  for (int i = 0; i < 16; ++i) ds[i] = rank + i;
  const int v1234[4] = {1, 2, 3, 4}, d1234[4] = {0, 1, 3, 6};

  MPI_Barrier(MPI_COMM_WORLD);
  rp_expect("MPI_Barrier", "\"comm_ranks\":%s,\"absent\":[\"bytes\",\"rbytes\",\"root\"]", kWorld);

  MPI_Bcast(s, 3, MPI_INT, 1, MPI_COMM_WORLD);
  rp_expect("MPI_Bcast", "\"root\":1,\"bytes\":12,\"comm_ranks\":%s,\"absent\":[\"rbytes\"]", kWorld);

  MPI_Reduce(ds, dr, 2, MPI_DOUBLE, MPI_SUM, 2, MPI_COMM_WORLD);
  rp_expect("MPI_Reduce", "\"root\":2,\"op\":\"MPI_SUM\",\"bytes\":16");

  MPI_Allreduce(s, r, 4, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  rp_expect("MPI_Allreduce", "\"op\":\"MPI_MAX\",\"bytes\":16,\"comm_ranks\":%s,\"absent\":[\"root\"]", kWorld);
  MPI_Allreduce(MPI_IN_PLACE, s, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  rp_expect("MPI_Allreduce", "\"op\":\"MPI_SUM\",\"bytes\":16");

  /* Gather 2 ints to root 0: only the root has a receive buffer. */
  MPI_Gather(s, 2, MPI_INT, r, 2, MPI_INT, 0, MPI_COMM_WORLD);
  rp_expect("MPI_Gather", "\"root\":0,\"bytes\":8,\"rbytes\":%d", rank == 0 ? 32 : 0);
  /* The same with MPI_IN_PLACE at the root (send size = its recvcount). */
  MPI_Gather(rank == 0 ? MPI_IN_PLACE : s, 2, MPI_INT, r, 2, MPI_INT, 0, MPI_COMM_WORLD);
  rp_expect("MPI_Gather", "\"root\":0,\"bytes\":8,\"rbytes\":%d", rank == 0 ? 32 : 0);

  /* Gatherv to root 3: rank i sends i+1 ints. */
  MPI_Gatherv(s, rank + 1, MPI_INT, r, v1234, d1234, MPI_INT, 3, MPI_COMM_WORLD);
  rp_expect("MPI_Gatherv", "\"root\":3,\"bytes\":%d,\"rbytes\":%d", 4 * (rank + 1), rank == 3 ? 40 : 0);

  /* Scatter 3 ints each from root 0. */
  MPI_Scatter(s, 3, MPI_INT, r, 3, MPI_INT, 0, MPI_COMM_WORLD);
  rp_expect("MPI_Scatter", "\"root\":0,\"bytes\":%d,\"rbytes\":12", rank == 0 ? 48 : 0);

  /* Scatterv from root 1: rank i gets 4-i ints. */
  {
    const int counts[4] = {4, 3, 2, 1}, displs[4] = {0, 4, 7, 9};
    MPI_Scatterv(s, counts, displs, MPI_INT, r, 4 - rank, MPI_INT, 1, MPI_COMM_WORLD);
    rp_expect("MPI_Scatterv", "\"root\":1,\"bytes\":%d,\"rbytes\":%d", rank == 1 ? 40 : 0, 4 * (4 - rank));
  }

  MPI_Allgather(s, 2, MPI_INT, r, 2, MPI_INT, MPI_COMM_WORLD);
  rp_expect("MPI_Allgather", "\"bytes\":8,\"rbytes\":32,\"absent\":[\"root\"]");

  MPI_Allgatherv(s, rank + 1, MPI_INT, r, v1234, d1234, MPI_INT, MPI_COMM_WORLD);
  rp_expect("MPI_Allgatherv", "\"bytes\":%d,\"rbytes\":40", 4 * (rank + 1));

  MPI_Alltoall(s, 2, MPI_INT, r, 2, MPI_INT, MPI_COMM_WORLD);
  rp_expect("MPI_Alltoall", "\"bytes\":32,\"rbytes\":32");

  /* Alltoallv: rank i sends j+1 ints to rank j, so receives i+1 from each. */
  {
    const int rc[4] = {rank + 1, rank + 1, rank + 1, rank + 1};
    const int rd[4] = {0, rank + 1, 2 * (rank + 1), 3 * (rank + 1)};
    MPI_Alltoallv(s, v1234, d1234, MPI_INT, r, rc, rd, MPI_INT, MPI_COMM_WORLD);
    rp_expect("MPI_Alltoallv", "\"bytes\":40,\"rbytes\":%d", 16 * (rank + 1));
  }

  /* Alltoallw: one element to each rank j, an int to even j and a double to
   * odd j; so a rank receives four ints (even) or four doubles (odd). */
  {
    const int ones[4] = {1, 1, 1, 1}, displs[4] = {0, 8, 16, 24};
    const MPI_Datatype st[4] = {MPI_INT, MPI_DOUBLE, MPI_INT, MPI_DOUBLE};
    const MPI_Datatype mine = rank % 2 ? MPI_DOUBLE : MPI_INT;
    const MPI_Datatype rt[4] = {mine, mine, mine, mine};
    MPI_Alltoallw(ds, ones, displs, st, dr, ones, displs, rt, MPI_COMM_WORLD);
    rp_expect("MPI_Alltoallw", "\"bytes\":24,\"rbytes\":%d", rank % 2 ? 32 : 16);
  }

  /* Reduce_scatter: rank i gets i+1 ints of the sum of 10. */
  MPI_Reduce_scatter(s, r, v1234, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  rp_expect("MPI_Reduce_scatter", "\"op\":\"MPI_SUM\",\"bytes\":40,\"rbytes\":%d", 4 * (rank + 1));

  MPI_Reduce_scatter_block(ds, dr, 2, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  rp_expect("MPI_Reduce_scatter_block", "\"op\":\"MPI_MIN\",\"bytes\":64,\"rbytes\":16");

  MPI_Scan(s, r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  rp_expect("MPI_Scan", "\"op\":\"MPI_SUM\",\"bytes\":4");

  MPI_Exscan(s, r, 2, MPI_INT, MPI_PROD, MPI_COMM_WORLD);
  rp_expect("MPI_Exscan", "\"op\":\"MPI_PROD\",\"bytes\":8");
}

/* ======================================================================= */
/* 8. Nonblocking collectives: same shapes as section 7                     */
/* ======================================================================= */
static void nonblocking_collectives(void) {
  enum { kOps = 18 };
  static int s[kOps][64], r[kOps][64];
  static double ds[kOps][16], dr[kOps][16];
  for (int k = 0; k < kOps; ++k) {
    for (int i = 0; i < 64; ++i) s[k][i] = rank + i;
    for (int i = 0; i < 16; ++i) ds[k][i] = rank + i;
  }
  const int v1234[4] = {1, 2, 3, 4}, d1234[4] = {0, 1, 3, 6};
  MPI_Request q[kOps];
  int n = 0;

  /* Ibarrier on its own, completed by Wait. */
  MPI_Request bq;
  MPI_Ibarrier(MPI_COMM_WORLD, &bq);
  rp_expect("MPI_Ibarrier", "\"has_req\":true,\"comm_ranks\":%s", kWorld);
  MPI_Wait(&bq, MPI_STATUS_IGNORE);
  rp_expect("MPI_Wait", "\"ncompleted\":1,\"resolved\":[],\"absent\":[\"peer\",\"tag\"]");

  MPI_Ibcast(s[n], 3, MPI_INT, 1, MPI_COMM_WORLD, &q[n]), ++n;
  rp_expect("MPI_Ibcast", "\"root\":1,\"bytes\":12,\"has_req\":true");
  MPI_Ireduce(ds[n], dr[n], 2, MPI_DOUBLE, MPI_SUM, 2, MPI_COMM_WORLD, &q[n]), ++n;
  rp_expect("MPI_Ireduce", "\"root\":2,\"op\":\"MPI_SUM\",\"bytes\":16,\"has_req\":true");
  MPI_Iallreduce(s[n], r[n], 4, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &q[n]), ++n;
  rp_expect("MPI_Iallreduce", "\"op\":\"MPI_MAX\",\"bytes\":16,\"has_req\":true");
  MPI_Iallreduce(MPI_IN_PLACE, s[n], 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[n]), ++n;
  rp_expect("MPI_Iallreduce", "\"op\":\"MPI_SUM\",\"bytes\":16,\"has_req\":true");
  MPI_Igather(s[n], 2, MPI_INT, r[n], 2, MPI_INT, 0, MPI_COMM_WORLD, &q[n]), ++n;
  rp_expect("MPI_Igather", "\"root\":0,\"bytes\":8,\"rbytes\":%d,\"has_req\":true", rank == 0 ? 32 : 0);
  MPI_Igatherv(s[n], rank + 1, MPI_INT, r[n], v1234, d1234, MPI_INT, 3, MPI_COMM_WORLD, &q[n]), ++n;
  rp_expect("MPI_Igatherv", "\"root\":3,\"bytes\":%d,\"rbytes\":%d,\"has_req\":true", 4 * (rank + 1),
            rank == 3 ? 40 : 0);
  MPI_Iscatter(s[n], 3, MPI_INT, r[n], 3, MPI_INT, 0, MPI_COMM_WORLD, &q[n]), ++n;
  rp_expect("MPI_Iscatter", "\"root\":0,\"bytes\":%d,\"rbytes\":12,\"has_req\":true", rank == 0 ? 48 : 0);
  {
    static const int counts[4] = {4, 3, 2, 1}, displs[4] = {0, 4, 7, 9};
    MPI_Iscatterv(s[n], counts, displs, MPI_INT, r[n], 4 - rank, MPI_INT, 1, MPI_COMM_WORLD, &q[n]), ++n;
    rp_expect("MPI_Iscatterv", "\"root\":1,\"bytes\":%d,\"rbytes\":%d,\"has_req\":true", rank == 1 ? 40 : 0,
              4 * (4 - rank));
  }
  MPI_Iallgather(s[n], 2, MPI_INT, r[n], 2, MPI_INT, MPI_COMM_WORLD, &q[n]), ++n;
  rp_expect("MPI_Iallgather", "\"bytes\":8,\"rbytes\":32,\"has_req\":true");
  MPI_Iallgatherv(s[n], rank + 1, MPI_INT, r[n], v1234, d1234, MPI_INT, MPI_COMM_WORLD, &q[n]), ++n;
  rp_expect("MPI_Iallgatherv", "\"bytes\":%d,\"rbytes\":40,\"has_req\":true", 4 * (rank + 1));
  MPI_Ialltoall(s[n], 2, MPI_INT, r[n], 2, MPI_INT, MPI_COMM_WORLD, &q[n]), ++n;
  rp_expect("MPI_Ialltoall", "\"bytes\":32,\"rbytes\":32,\"has_req\":true");
  /* Arrays of pending nonblocking collectives must outlive them: static. */
  static int rc[4], rd[4];
  for (int j = 0; j < 4; ++j) rc[j] = rank + 1, rd[j] = j * (rank + 1);
  MPI_Ialltoallv(s[n], v1234, d1234, MPI_INT, r[n], rc, rd, MPI_INT, MPI_COMM_WORLD, &q[n]), ++n;
  rp_expect("MPI_Ialltoallv", "\"bytes\":40,\"rbytes\":%d,\"has_req\":true", 16 * (rank + 1));
  {
    static const int ones[4] = {1, 1, 1, 1}, displs[4] = {0, 8, 16, 24};
    static MPI_Datatype st[4], rt[4];
    for (int j = 0; j < 4; ++j) st[j] = j % 2 ? MPI_DOUBLE : MPI_INT, rt[j] = rank % 2 ? MPI_DOUBLE : MPI_INT;
    MPI_Ialltoallw(ds[n], ones, displs, st, dr[n], ones, displs, rt, MPI_COMM_WORLD, &q[n]), ++n;
    rp_expect("MPI_Ialltoallw", "\"bytes\":24,\"rbytes\":%d,\"has_req\":true", rank % 2 ? 32 : 16);
  }
  MPI_Ireduce_scatter(s[n], r[n], v1234, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[n]), ++n;
  rp_expect("MPI_Ireduce_scatter", "\"op\":\"MPI_SUM\",\"bytes\":40,\"rbytes\":%d,\"has_req\":true",
            4 * (rank + 1));
  MPI_Ireduce_scatter_block(ds[n], dr[n], 2, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD, &q[n]), ++n;
  rp_expect("MPI_Ireduce_scatter_block", "\"op\":\"MPI_MIN\",\"bytes\":64,\"rbytes\":16,\"has_req\":true");
  MPI_Iscan(s[n], r[n], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[n]), ++n;
  rp_expect("MPI_Iscan", "\"op\":\"MPI_SUM\",\"bytes\":4,\"has_req\":true");
  MPI_Iexscan(s[n], r[n], 2, MPI_INT, MPI_PROD, MPI_COMM_WORLD, &q[n]), ++n;
  rp_expect("MPI_Iexscan", "\"op\":\"MPI_PROD\",\"bytes\":8,\"has_req\":true");

  /* All 17 at once; collective requests never resolve. */
  MPI_Waitall(n, q, MPI_STATUSES_IGNORE);
  rp_expect("MPI_Waitall", "\"ncompleted\":%d,\"resolved\":[]", n);
}

/* ======================================================================= */
/* 9. Neighbourhood collectives on a periodic 1-D ring                      */
/* ======================================================================= */
/* Neighbours of a 1-D Cart are [source, dest] of MPI_Cart_shift(0, 1):
 * [prev, next]; in- and out-degree 2. Returns the Cart communicator
 * (freed in section 10). */
static MPI_Comm neighbourhood(void) {
  MPI_Comm ring;
  const int dims[1] = {kRanks}, periods[1] = {1};
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
  rp_expect("MPI_Cart_create", "\"comm_ranks\":%s,\"newcomm_ranks\":%s", kWorld, kWorld);

  int s[8] = {0}, r[16] = {0};
  double ds[4] = {0}, dr[4] = {0};

  MPI_Neighbor_allgather(s, 2, MPI_INT, r, 2, MPI_INT, ring);
  rp_expect("MPI_Neighbor_allgather", "\"bytes\":8,\"rbytes\":16,\"comm_ranks\":%s", kWorld);

  {
    const int rc[2] = {3, 3}, rd[2] = {0, 3};
    MPI_Neighbor_allgatherv(s, 3, MPI_INT, r, rc, rd, MPI_INT, ring);
    rp_expect("MPI_Neighbor_allgatherv", "\"bytes\":12,\"rbytes\":24");
  }

  MPI_Neighbor_alltoall(ds, 1, MPI_DOUBLE, dr, 1, MPI_DOUBLE, ring);
  rp_expect("MPI_Neighbor_alltoall", "\"bytes\":16,\"rbytes\":16");

  /* 1 int to prev, 3 to next; so 3 from prev (its "next") and 1 from next. */
  {
    const int sc[2] = {1, 3}, sd[2] = {0, 1}, rc[2] = {3, 1}, rd[2] = {0, 3};
    MPI_Neighbor_alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, ring);
    rp_expect("MPI_Neighbor_alltoallv", "\"bytes\":16,\"rbytes\":16");
  }

  /* An int to prev and a double to next; so a double from prev and an int
   * from next. Displacements in bytes. */
  {
    const int ones[2] = {1, 1};
    const MPI_Aint sd[2] = {0, 8}, rd[2] = {0, 8};
    const MPI_Datatype st[2] = {MPI_INT, MPI_DOUBLE}, rt[2] = {MPI_DOUBLE, MPI_INT};
    MPI_Neighbor_alltoallw(ds, ones, sd, st, dr, ones, rd, rt, ring);
    rp_expect("MPI_Neighbor_alltoallw", "\"bytes\":12,\"rbytes\":12");
  }

  MPI_Request req;
  MPI_Ineighbor_alltoall(s, 2, MPI_INT, r, 2, MPI_INT, ring, &req);
  rp_expect("MPI_Ineighbor_alltoall", "\"bytes\":16,\"rbytes\":16,\"has_req\":true");
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  rp_expect("MPI_Wait", "\"ncompleted\":1,\"resolved\":[]");

  MPI_Ineighbor_allgather(s, 1, MPI_INT, r, 1, MPI_INT, ring, &req);
  rp_expect("MPI_Ineighbor_allgather", "\"bytes\":4,\"rbytes\":8,\"has_req\":true");
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  rp_expect("MPI_Wait", "\"ncompleted\":1,\"resolved\":[]");

  /* The nonblocking v and w forms, the shapes of the blocking ones above:
   * counts over the 2 neighbours, not the 4 members. Each is waited for
   * inside the block that holds its arrays. */
  {
    const int rc[2] = {3, 3}, rd[2] = {0, 3};
    MPI_Ineighbor_allgatherv(s, 3, MPI_INT, r, rc, rd, MPI_INT, ring, &req);
    rp_expect("MPI_Ineighbor_allgatherv", "\"bytes\":12,\"rbytes\":24,\"has_req\":true,\"comm_ranks\":%s",
              kWorld);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    rp_expect("MPI_Wait", "\"ncompleted\":1,\"resolved\":[]");
  }
  {
    const int sc[2] = {1, 3}, sd[2] = {0, 1}, rc[2] = {3, 1}, rd[2] = {0, 3};
    MPI_Ineighbor_alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, ring, &req);
    rp_expect("MPI_Ineighbor_alltoallv", "\"bytes\":16,\"rbytes\":16,\"has_req\":true");
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    rp_expect("MPI_Wait", "\"ncompleted\":1,\"resolved\":[]");
  }
  {
    const int ones[2] = {1, 1};
    const MPI_Aint sd[2] = {0, 8}, rd[2] = {0, 8};
    const MPI_Datatype st[2] = {MPI_INT, MPI_DOUBLE}, rt[2] = {MPI_DOUBLE, MPI_INT};
    MPI_Ineighbor_alltoallw(ds, ones, sd, st, dr, ones, rd, rt, ring, &req);
    rp_expect("MPI_Ineighbor_alltoallw", "\"bytes\":12,\"rbytes\":12,\"has_req\":true");
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    rp_expect("MPI_Wait", "\"ncompleted\":1,\"resolved\":[]");
  }

  /* A star, where in- and out-degree differ: rank 0 sends to 1, 2 and 3
   * (out 3, in 0); the others receive from 0 (out 0, in 1). */
  {
    MPI_Comm star;
    const int leaves[3] = {1, 2, 3}, centre[1] = {0}, w3[3] = {1, 1, 1};
    const int is_centre = rank == 0;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, is_centre ? 0 : 1, centre, w3, is_centre ? 3 : 0, leaves,
                                   w3, MPI_INFO_NULL, 0, &star);
    rp_expect("MPI_Dist_graph_create_adjacent", "\"comm_ranks\":%s,\"newcomm_ranks\":%s", kWorld, kWorld);
    /* Allgatherv: the send buffer once (2 ints), 2 ints from each source. */
    const int rc[1] = {2}, rd[1] = {0};
    MPI_Ineighbor_allgatherv(s, 2, MPI_INT, r, rc, rd, MPI_INT, star, &req);
    rp_expect("MPI_Ineighbor_allgatherv", "\"bytes\":8,\"rbytes\":%d,\"has_req\":true", is_centre ? 0 : 8);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    rp_expect("MPI_Wait", "\"ncompleted\":1,\"resolved\":[]");
    /* Alltoallv: 1, 2 and 3 ints to leaves 1, 2, 3; leaf i gets i. */
    const int sc[3] = {1, 2, 3}, sd[3] = {0, 1, 3}, lc[1] = {rank};
    MPI_Ineighbor_alltoallv(s, sc, sd, MPI_INT, r, lc, rd, MPI_INT, star, &req);
    rp_expect("MPI_Ineighbor_alltoallv", "\"bytes\":%d,\"rbytes\":%d,\"has_req\":true", is_centre ? 24 : 0,
              4 * rank);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    rp_expect("MPI_Wait", "\"ncompleted\":1,\"resolved\":[]");
    /* Alltoallw: a double to leaf 1, an int to leaves 2 and 3. */
    const int ones[3] = {1, 1, 1};
    const MPI_Aint wd[3] = {0, 8, 16}, wr[1] = {0};
    const MPI_Datatype wt[3] = {MPI_DOUBLE, MPI_INT, MPI_INT};
    const MPI_Datatype leaf_t[1] = {rank == 1 ? MPI_DOUBLE : MPI_INT};
    MPI_Ineighbor_alltoallw(ds, ones, wd, wt, dr, ones, wr, leaf_t, star, &req);
    rp_expect("MPI_Ineighbor_alltoallw", "\"bytes\":%d,\"rbytes\":%d,\"has_req\":true", is_centre ? 16 : 0,
              is_centre ? 0 : rank == 1 ? 8 : 4);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    rp_expect("MPI_Wait", "\"ncompleted\":1,\"resolved\":[]");
    MPI_Comm_free(&star);
    rp_expect("MPI_Comm_free", "\"comm_ranks\":%s", kWorld);
  }
  return ring;
}

/* ======================================================================= */
/* 10. Communicators                                                         */
/* ======================================================================= */
static void communicators(MPI_Comm ring) {
  const int colour = rank % 2;
  int a[8] = {0};

  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  rp_expect("MPI_Comm_dup", "\"comm_ranks\":%s,\"newcomm_ranks\":%s", kWorld, kWorld);

  MPI_Comm dupi;
  MPI_Comm_dup_with_info(dup, MPI_INFO_NULL, &dupi);
  rp_expect("MPI_Comm_dup_with_info", "\"comm_ranks\":%s,\"newcomm_ranks\":%s", kWorld, kWorld);

  /* Split by parity, key -rank: the higher world rank comes first, so comm
   * rank 0 is world 2 (colour 0) or 3 (colour 1), comm rank 1 is 0 or 1. */
  MPI_Comm half;
  const int half_ranks[2] = {colour + 2, colour};
  MPI_Comm_split(MPI_COMM_WORLD, colour, -rank, &half);
  rp_expect("MPI_Comm_split", "\"comm_ranks\":%s,\"newcomm_ranks\":%s", kWorld, list(2, half_ranks));
  const int half_rank = rank >= 2 ? 0 : 1;
  /* Comm rank 0 sends to comm rank 1: peers are world ranks. */
  if (half_rank == 0) {
    MPI_Send(a, 2, MPI_INT, 1, 60, half);
    rp_expect("MPI_Send", "\"peer\":%d,\"tag\":60,\"bytes\":8,\"comm_ranks\":%s", half_ranks[1],
              list(2, half_ranks));
  } else {
    MPI_Recv(a, 2, MPI_INT, MPI_ANY_SOURCE, 60, half, MPI_STATUS_IGNORE);
    rp_expect("MPI_Recv", "\"peer\":%d,\"tag\":60,\"bytes\":8,\"comm_ranks\":%s", half_ranks[0],
              list(2, half_ranks));
  }
  /* A rooted collective on it: comm root 1 is world 0 or 1. */
  MPI_Bcast(a, 1, MPI_INT, 1, half);
  rp_expect("MPI_Bcast", "\"root\":%d,\"bytes\":4,\"comm_ranks\":%s", half_ranks[1], list(2, half_ranks));

  /* Split by node: one node, so everybody. */
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  rp_expect("MPI_Comm_split_type", "\"comm_ranks\":%s,\"newcomm_ranks\":%s", kWorld, kWorld);

  /* Comm_create from the group {3, 1, 2} (in that order): rank 0 gets
   * MPI_COMM_NULL, so no new communicator. */
  MPI_Group world_group, trio_group, pair_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  const int trio[3] = {3, 1, 2};
  MPI_Group_incl(world_group, 3, trio, &trio_group);
  MPI_Comm created;
  MPI_Comm_create(MPI_COMM_WORLD, trio_group, &created);
  if (rank == 0) {
    rp_expect("MPI_Comm_create", "\"comm_ranks\":%s,\"absent\":[\"newcomm\"]", kWorld);
  } else {
    rp_expect("MPI_Comm_create", "\"comm_ranks\":%s,\"newcomm_ranks\":%s", kWorld, list(3, trio));
    /* Barrier on it: its members, as created. */
    MPI_Barrier(created);
    rp_expect("MPI_Barrier", "\"comm_ranks\":%s", list(3, trio));
  }

  /* Comm_create_group: only the members {2, 0} call it. */
  const int pair[2] = {2, 0};
  MPI_Group_incl(world_group, 2, pair, &pair_group);
  MPI_Comm grouped = MPI_COMM_NULL;
  if (rank == 0 || rank == 2) {
    MPI_Comm_create_group(MPI_COMM_WORLD, pair_group, 61, &grouped);
    rp_expect("MPI_Comm_create_group", "\"comm_ranks\":%s,\"newcomm_ranks\":%s", kWorld, list(2, pair));
  }
  MPI_Group_free(&world_group);
  MPI_Group_free(&trio_group);
  MPI_Group_free(&pair_group);

  /* 2x2 Cart (row-major: rank r at (r/2, r%2)) and its rows. */
  MPI_Comm grid, row;
  const int dims[2] = {2, 2}, periods[2] = {0, 0}, keep[2] = {0, 1};
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
  rp_expect("MPI_Cart_create", "\"comm_ranks\":%s,\"newcomm_ranks\":%s", kWorld, kWorld);
  MPI_Cart_sub(grid, keep, &row);
  const int row_ranks[2] = {rank / 2 * 2, rank / 2 * 2 + 1};
  rp_expect("MPI_Cart_sub", "\"comm_ranks\":%s,\"newcomm_ranks\":%s", kWorld, list(2, row_ranks));
  /* Allreduce on a row. */
  MPI_Allreduce(MPI_IN_PLACE, a, 1, MPI_INT, MPI_SUM, row);
  rp_expect("MPI_Allreduce", "\"op\":\"MPI_SUM\",\"bytes\":4,\"comm_ranks\":%s", list(2, row_ranks));

  /* Graph: the ring again, each node linked to prev and next (degree 2). */
  MPI_Comm graph;
  const int index[4] = {2, 4, 6, 8}, edges[8] = {3, 1, 0, 2, 1, 3, 2, 0};
  MPI_Graph_create(MPI_COMM_WORLD, kRanks, index, edges, 0, &graph);
  rp_expect("MPI_Graph_create", "\"comm_ranks\":%s,\"newcomm_ranks\":%s", kWorld, kWorld);
  MPI_Neighbor_allgather(a, 1, MPI_INT, a + 2, 1, MPI_INT, graph);
  rp_expect("MPI_Neighbor_allgather", "\"bytes\":4,\"rbytes\":8,\"comm_ranks\":%s", kWorld);

  /* Distributed graphs: a one-way ring prev -> me -> next (degrees 1). */
  MPI_Comm dist, dist_adj;
  const int src[1] = {prev}, dst[1] = {next}, me[1] = {rank}, one[1] = {1};
  /* Unit weights rather than MPI_UNWEIGHTED, which GCC mistakes for an
   * empty array (-Wstringop-overread). */
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, one, 1, dst, one, MPI_INFO_NULL, 0, &dist_adj);
  rp_expect("MPI_Dist_graph_create_adjacent", "\"comm_ranks\":%s,\"newcomm_ranks\":%s", kWorld, kWorld);
  MPI_Neighbor_alltoall(a, 2, MPI_INT, a + 2, 2, MPI_INT, dist_adj);
  rp_expect("MPI_Neighbor_alltoall", "\"bytes\":8,\"rbytes\":8");
  MPI_Dist_graph_create(MPI_COMM_WORLD, 1, me, one, dst, one, MPI_INFO_NULL, 0, &dist);
  rp_expect("MPI_Dist_graph_create", "\"comm_ranks\":%s,\"newcomm_ranks\":%s", kWorld, kWorld);

  /* Inter-communicator between the two halves: local leader is comm rank 0
   * of `half` (world 2 or 3), the remote leader is the other one, named in
   * MPI_COMM_WORLD. Its local group is `half`. */
  MPI_Comm inter, merged;
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, colour ? 2 : 3, 62, &inter);
  rp_expect("MPI_Intercomm_create", "\"comm_ranks\":%s,\"newcomm_ranks\":%s", list(2, half_ranks),
            list(2, half_ranks));
  /* Across it: colour 0's local rank i sends to colour 1's rank i (world
   * 2 -> 3, 0 -> 1); ranks name the remote group. */
  {
    const int other[2] = {(1 - colour) + 2, 1 - colour}; /* the remote group */
    if (colour == 0) {
      MPI_Send(a, 3, MPI_INT, half_rank, 63, inter);
      rp_expect("MPI_Send", "\"peer\":%d,\"tag\":63,\"bytes\":12", other[half_rank]);
    } else {
      MPI_Recv(a, 8, MPI_INT, half_rank, 63, inter, MPI_STATUS_IGNORE);
      rp_expect("MPI_Recv", "\"peer\":%d,\"tag\":63,\"bytes\":12", other[half_rank]);
    }
  }
  /* Collectives across it. Bcast from world 2: in its group it passes
   * MPI_ROOT and world 0 MPI_PROC_NULL; the other group names remote rank
   * 0. Allgather: each receives one int from each of the 2 remote ranks. */
  if (colour == 0) {
    MPI_Bcast(a, 2, MPI_INT, half_rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
    if (half_rank == 0) rp_expect("MPI_Bcast", "\"root\":2,\"bytes\":8");
    else rp_expect("MPI_Bcast", "\"bytes\":8");
  } else {
    MPI_Bcast(a, 2, MPI_INT, 0, inter);
    rp_expect("MPI_Bcast", "\"root\":2,\"bytes\":8");
  }
  MPI_Allgather(a, 1, MPI_INT, a + 4, 1, MPI_INT, inter);
  rp_expect("MPI_Allgather", "\"bytes\":4,\"rbytes\":8,\"comm_ranks\":%s", list(2, half_ranks));

  /* Merge with colour 0 low: [2, 0, 3, 1]. */
  MPI_Intercomm_merge(inter, colour, &merged);
  {
    const int merged_ranks[4] = {2, 0, 3, 1};
    rp_expect("MPI_Intercomm_merge", "\"comm_ranks\":%s,\"newcomm_ranks\":%s", list(2, half_ranks),
              list(4, merged_ranks));
    /* Bcast from merged rank 2 = world 3. */
    MPI_Bcast(a, 1, MPI_INT, 2, merged);
    rp_expect("MPI_Bcast", "\"root\":3,\"bytes\":4,\"comm_ranks\":%s", list(4, merged_ranks));
  }

  /* Comm_idup: a request, completed by a Wait; the new communicator is
   * usable (and named in the trace) from then on. */
  MPI_Comm idup;
  MPI_Request req;
  MPI_Comm_idup(MPI_COMM_WORLD, &idup, &req);
  rp_expect("MPI_Comm_idup", "\"comm_ranks\":%s,\"has_req\":true", kWorld);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  rp_expect("MPI_Wait", "\"ncompleted\":1,\"resolved\":[]");
  MPI_Barrier(idup);
  rp_expect("MPI_Barrier", "\"comm_ranks\":%s", kWorld);

  /* Comm_disconnect of a dup that carried a message round the ring: like
   * Comm_free, it names the communicator it ends. */
  MPI_Comm linked;
  MPI_Comm_dup(MPI_COMM_WORLD, &linked);
  rp_expect("MPI_Comm_dup", "\"comm_ranks\":%s,\"newcomm_ranks\":%s", kWorld, kWorld);
  MPI_Sendrecv(a, 1, MPI_INT, next, 64, a + 1, 1, MPI_INT, prev, 64, linked, MPI_STATUS_IGNORE);
  rp_expect("MPI_Sendrecv", "\"peer\":%d,\"tag\":64,\"bytes\":4,\"rpeer\":%d,\"rtag\":64,\"rbytes\":4,"
            "\"comm_ranks\":%s", next, prev, kWorld);
  MPI_Comm_disconnect(&linked);
  rp_expect("MPI_Comm_disconnect", "\"comm_ranks\":%s", kWorld);
  if (linked != MPI_COMM_NULL) fprintf(stderr, "rank %d: Comm_disconnect left a handle\n", rank);

  /* Free everything, each Comm_free naming what it frees. */
  MPI_Comm_free(&idup);
  rp_expect("MPI_Comm_free", "\"comm_ranks\":%s", kWorld);
  MPI_Comm_free(&merged);
  rp_expect("MPI_Comm_free", "\"comm_ranks\":[2,0,3,1]");
  MPI_Comm_free(&inter);
  rp_expect("MPI_Comm_free", "\"comm_ranks\":%s", list(2, half_ranks));
  MPI_Comm_free(&dist);
  rp_expect("MPI_Comm_free", "\"comm_ranks\":%s", kWorld);
  MPI_Comm_free(&dist_adj);
  rp_expect("MPI_Comm_free", "\"comm_ranks\":%s", kWorld);
  MPI_Comm_free(&graph);
  rp_expect("MPI_Comm_free", "\"comm_ranks\":%s", kWorld);
  MPI_Comm_free(&row);
  rp_expect("MPI_Comm_free", "\"comm_ranks\":%s", list(2, row_ranks));
  MPI_Comm_free(&grid);
  rp_expect("MPI_Comm_free", "\"comm_ranks\":%s", kWorld);
  if (grouped != MPI_COMM_NULL) {
    MPI_Comm_free(&grouped);
    rp_expect("MPI_Comm_free", "\"comm_ranks\":%s", list(2, pair));
  }
  if (created != MPI_COMM_NULL) {
    MPI_Comm_free(&created);
    rp_expect("MPI_Comm_free", "\"comm_ranks\":%s", list(3, trio));
  }
  MPI_Comm_free(&node);
  rp_expect("MPI_Comm_free", "\"comm_ranks\":%s", kWorld);
  MPI_Comm_free(&half);
  rp_expect("MPI_Comm_free", "\"comm_ranks\":%s", list(2, half_ranks));
  MPI_Comm_free(&dupi);
  rp_expect("MPI_Comm_free", "\"comm_ranks\":%s", kWorld);
  MPI_Comm_free(&dup);
  rp_expect("MPI_Comm_free", "\"comm_ranks\":%s", kWorld);
  MPI_Comm_free(&ring);
  rp_expect("MPI_Comm_free", "\"comm_ranks\":%s", kWorld);
}

/* ======================================================================= */
/* 11. One-sided communication                                              */
/* ======================================================================= */
static void one_sided(void) {
  /* Window memory: 32 ints, disp_unit 4 (offsets below are in ints). */
  static int mem[32];
  int o[8] = {1, 2, 3, 4, 5, 6, 7, 8}, res[8] = {0};
  MPI_Win win;
  MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  rp_expect("MPI_Win_create", "\"bytes\":128,\"comm_ranks\":%s", kWorld);

  /* Active target, fences. */
  MPI_Win_fence(0, win);
  rp_expect("MPI_Win_fence", "\"absent\":[\"peer\"]");
  MPI_Put(o, 2, MPI_INT, next, 0, 2, MPI_INT, win);
  rp_expect("MPI_Put", "\"peer\":%d,\"bytes\":8", next);
  MPI_Get(res, 3, MPI_INT, prev, 4, 3, MPI_INT, win);
  rp_expect("MPI_Get", "\"peer\":%d,\"bytes\":12", prev);
  MPI_Accumulate(o, 2, MPI_INT, (rank + 2) % kRanks, 8, 2, MPI_INT, MPI_SUM, win);
  rp_expect("MPI_Accumulate", "\"peer\":%d,\"bytes\":8,\"op\":\"MPI_SUM\"", (rank + 2) % kRanks);
  MPI_Win_fence(0, win);
  rp_expect("MPI_Win_fence", "\"absent\":[\"peer\"]");

  /* Passive target, one lock. */
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, win);
  rp_expect("MPI_Win_lock", "\"peer\":%d", next);
  MPI_Put(o, 1, MPI_INT, next, 10, 1, MPI_INT, win);
  rp_expect("MPI_Put", "\"peer\":%d,\"bytes\":4", next);
  MPI_Win_flush(next, win);
  rp_expect("MPI_Win_flush", "\"peer\":%d", next);
  MPI_Get_accumulate(o, 1, MPI_INT, res, 1, MPI_INT, next, 11, 1, MPI_INT, MPI_SUM, win);
  rp_expect("MPI_Get_accumulate", "\"peer\":%d,\"bytes\":4,\"rbytes\":4,\"op\":\"MPI_SUM\"", next);
  MPI_Win_unlock(next, win);
  rp_expect("MPI_Win_unlock", "\"peer\":%d", next);

  /* Passive target, lock_all: request-based RMA and atomics. Everyone
   * touches distinct locations: 12-13 (Rput, from prev of prev), 16 + rank
   * (Fetch_and_op and Compare_and_swap on ranks 0 and 1), 20-21 (Rget),
   * 22 (Raccumulate), 23 (Rget_accumulate). */
  MPI_Win_lock_all(0, win);
  rp_expect("MPI_Win_lock_all", "\"absent\":[\"peer\"]");
  MPI_Request req;
  MPI_Rput(o, 2, MPI_INT, (rank + 2) % kRanks, 12, 2, MPI_INT, win, &req);
  rp_expect("MPI_Rput", "\"peer\":%d,\"bytes\":8,\"has_req\":true", (rank + 2) % kRanks);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  rp_expect("MPI_Wait", "\"ncompleted\":1,\"resolved\":[]");
  MPI_Rget(res, 2, MPI_INT, next, 20, 2, MPI_INT, win, &req);
  rp_expect("MPI_Rget", "\"peer\":%d,\"bytes\":8,\"has_req\":true", next);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  rp_expect("MPI_Wait", "\"ncompleted\":1,\"resolved\":[]");
  MPI_Raccumulate(o, 1, MPI_INT, prev, 22, 1, MPI_INT, MPI_MAX, win, &req);
  rp_expect("MPI_Raccumulate", "\"peer\":%d,\"bytes\":4,\"op\":\"MPI_MAX\",\"has_req\":true", prev);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  rp_expect("MPI_Wait", "\"ncompleted\":1,\"resolved\":[]");
  MPI_Rget_accumulate(o, 1, MPI_INT, res, 1, MPI_INT, next, 23, 1, MPI_INT, MPI_SUM, win, &req);
  rp_expect("MPI_Rget_accumulate", "\"peer\":%d,\"bytes\":4,\"rbytes\":4,\"op\":\"MPI_SUM\",\"has_req\":true",
            next);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  rp_expect("MPI_Wait", "\"ncompleted\":1,\"resolved\":[]");
  MPI_Fetch_and_op(o, res, MPI_INT, 0, 16 + rank, MPI_SUM, win);
  rp_expect("MPI_Fetch_and_op", "\"peer\":0,\"bytes\":4,\"op\":\"MPI_SUM\"");
  MPI_Compare_and_swap(o, o + 1, res, MPI_INT, 1, 16 + rank, win);
  rp_expect("MPI_Compare_and_swap", "\"peer\":1,\"bytes\":4,\"absent\":[\"op\"]");
  MPI_Win_flush_local(1, win);
  rp_expect("MPI_Win_flush_local", "\"peer\":1");
  MPI_Win_flush_local_all(win);
  rp_expect("MPI_Win_flush_local_all", "\"absent\":[\"peer\"]");
  MPI_Win_flush_all(win);
  rp_expect("MPI_Win_flush_all", "\"absent\":[\"peer\"]");
  MPI_Win_sync(win);
  rp_expect("MPI_Win_sync", " ");
  MPI_Win_unlock_all(win);
  rp_expect("MPI_Win_unlock_all", "\"absent\":[\"peer\"]");

  /* Generalized active target: even ranks expose to their odd partner,
   * which puts one int. */
  MPI_Group world_group, peer_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  MPI_Group_incl(world_group, 1, &partner, &peer_group);
  if (rank % 2 == 0) {
    MPI_Win_post(peer_group, 0, win);
    rp_expect("MPI_Win_post", "\"absent\":[\"peer\"]");
    MPI_Win_wait(win);
    rp_expect("MPI_Win_wait", "\"absent\":[\"peer\"]");
  } else {
    MPI_Win_start(peer_group, 0, win);
    rp_expect("MPI_Win_start", "\"absent\":[\"peer\"]");
    MPI_Put(o, 1, MPI_INT, partner, 3, 1, MPI_INT, win);
    rp_expect("MPI_Put", "\"peer\":%d,\"bytes\":4", partner);
    MPI_Win_complete(win);
    rp_expect("MPI_Win_complete", "\"absent\":[\"peer\"]");
  }
  /* Again, the targets polling with Win_test (the origin starts late). */
  if (rank % 2 == 0) {
    MPI_Win_post(peer_group, 0, win);
    rp_expect("MPI_Win_post", " ");
    for (int flag = 0; !flag;) {
      MPI_Win_test(win, &flag);
      rp_expect("MPI_Win_test", "\"absent\":[\"peer\"]");
      if (!flag) pause_poll();
    }
  } else {
    usleep(5000);
    MPI_Win_start(peer_group, 0, win);
    rp_expect("MPI_Win_start", " ");
    MPI_Accumulate(o, 1, MPI_INT, partner, 3, 1, MPI_INT, MPI_REPLACE, win);
    rp_expect("MPI_Accumulate", "\"peer\":%d,\"bytes\":4,\"op\":\"MPI_REPLACE\"", partner);
    MPI_Win_complete(win);
    rp_expect("MPI_Win_complete", " ");
  }
  MPI_Group_free(&peer_group);
  MPI_Group_free(&world_group);

  MPI_Win_free(&win);
  rp_expect("MPI_Win_free", " ");

  /* Win_allocate over ranks {3, 2, 1} (Comm_split with key -rank; rank 0
   * is MPI_UNDEFINED and gets MPI_COMM_NULL): comm rank i is world 3 - i, so
   * targets are world ranks in the trace. (Not over two disjoint halves at
   * once: Open MPI 4.1's osc/rdma names its shared-memory segment by
   * communicator id only, and the halves would collide.) */
  MPI_Comm trio;
  const int trio_ranks[3] = {3, 2, 1};
  MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, -rank, &trio);
  if (rank == 0) {
    rp_expect("MPI_Comm_split", "\"comm_ranks\":%s,\"absent\":[\"newcomm\"]", kWorld);
  } else {
    rp_expect("MPI_Comm_split", "\"comm_ranks\":%s,\"newcomm_ranks\":%s", kWorld, list(3, trio_ranks));
    const int me = 3 - rank, target = (me + 1) % 3;
    double* base;
    MPI_Win awin;
    MPI_Win_allocate(4 * sizeof(double), sizeof(double), MPI_INFO_NULL, trio, &base, &awin);
    rp_expect("MPI_Win_allocate", "\"bytes\":32,\"comm_ranks\":%s", list(3, trio_ranks));
    for (int i = 0; i < 4; ++i) base[i] = rank;
    MPI_Win_fence(0, awin);
    rp_expect("MPI_Win_fence", " ");
    double got[2];
    MPI_Get(got, 2, MPI_DOUBLE, target, 1, 2, MPI_DOUBLE, awin);
    rp_expect("MPI_Get", "\"peer\":%d,\"bytes\":16", trio_ranks[target]);
    MPI_Win_fence(0, awin);
    rp_expect("MPI_Win_fence", " ");
    if (got[0] != trio_ranks[target]) fprintf(stderr, "rank %d: Get read %g\n", rank, got[0]);
    MPI_Win_free(&awin);
    rp_expect("MPI_Win_free", " ");
    MPI_Comm_free(&trio);
    rp_expect("MPI_Comm_free", "\"comm_ranks\":%s", list(3, trio_ranks));
  }

  /* Dynamic window: no size. */
  MPI_Win dwin;
  MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dwin);
  rp_expect("MPI_Win_create_dynamic", "\"comm_ranks\":%s,\"absent\":[\"bytes\"]", kWorld);
  MPI_Win_free(&dwin);
  rp_expect("MPI_Win_free", " ");

  /* Shared-memory window (one node): 2 ints per rank; read next's. */
  int* shared;
  MPI_Win swin;
  MPI_Win_allocate_shared(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &shared, &swin);
  rp_expect("MPI_Win_allocate_shared", "\"bytes\":8,\"comm_ranks\":%s", kWorld);
  MPI_Win_lock(MPI_LOCK_SHARED, next, 0, swin);
  rp_expect("MPI_Win_lock", "\"peer\":%d", next);
  MPI_Get(res, 2, MPI_INT, next, 0, 2, MPI_INT, swin);
  rp_expect("MPI_Get", "\"peer\":%d,\"bytes\":8", next);
  MPI_Win_unlock(next, swin);
  rp_expect("MPI_Win_unlock", "\"peer\":%d", next);
  MPI_Win_free(&swin);
  rp_expect("MPI_Win_free", " ");
}

/* ======================================================================= */
/* 12. MPI-IO                                                               */
/* ======================================================================= */
static void file_io(void) {
  const char* dir = getenv("RP_EXPECT_DIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/families.dat", dir && *dir ? dir : ".");
  int w[4] = {rank, rank, rank, rank}, r[8] = {0};
  MPI_File fh;
  MPI_Status st;

  MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  rp_expect("MPI_File_open", "\"comm_ranks\":%s", kWorld);
  /* View: ints from byte 0, so offsets count ints. The file: 16 ints
   * written by independent writes (4 per rank), then 8 by a collective. */
  MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
  rp_expect("MPI_File_set_view", "\"offset\":0");
  MPI_File_write_at(fh, 4 * rank, w, 4, MPI_INT, &st);
  rp_expect("MPI_File_write_at", "\"offset\":%d,\"bytes\":16", 4 * rank);
  /* sync-barrier-sync makes the others' writes visible. */
  MPI_File_sync(fh);
  rp_expect("MPI_File_sync", " ");
  MPI_Barrier(MPI_COMM_WORLD);
  rp_expect("MPI_Barrier", " ");
  MPI_File_sync(fh);
  rp_expect("MPI_File_sync", " ");
  MPI_File_read_at(fh, 4 * next, r, 4, MPI_INT, &st);
  rp_expect("MPI_File_read_at", "\"offset\":%d,\"bytes\":16", 4 * next);
  if (r[0] != next) fprintf(stderr, "rank %d: read %d at %d\n", rank, r[0], 4 * next);
  /* A short read: 4 ints asked at 14, the file has 16: 2 come back. */
  MPI_File_read_at(fh, 14, r, 4, MPI_INT, MPI_STATUS_IGNORE);
  rp_expect("MPI_File_read_at", "\"offset\":14,\"bytes\":8");
  /* Nobody writes more before everybody has read the 16-int file. */
  MPI_Barrier(MPI_COMM_WORLD);
  rp_expect("MPI_Barrier", " ");

  MPI_File_write_at_all(fh, 16 + 2 * rank, w, 2, MPI_INT, &st);
  rp_expect("MPI_File_write_at_all", "\"offset\":%d,\"bytes\":8", 16 + 2 * rank);
  MPI_File_read_at_all(fh, 16 + 2 * rank, r, 2, MPI_INT, &st);
  rp_expect("MPI_File_read_at_all", "\"offset\":%d,\"bytes\":8", 16 + 2 * rank);

  /* Nonblocking: bytes are the request's size; the Wait completes it. */
  MPI_Request req;
  MPI_File_iwrite_at(fh, 24 + rank, w, 1, MPI_INT, &req);
  rp_expect("MPI_File_iwrite_at", "\"offset\":%d,\"bytes\":4,\"has_req\":true", 24 + rank);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  rp_expect("MPI_Wait", "\"ncompleted\":1,\"resolved\":[]");

  /* Individual file pointer: seek, then write (no offset recorded). */
  MPI_File_seek(fh, 28 + rank, MPI_SEEK_SET);
  rp_expect("MPI_File_seek", "\"offset\":%d", 28 + rank);
  MPI_File_write(fh, w, 1, MPI_INT, &st);
  rp_expect("MPI_File_write", "\"bytes\":4,\"absent\":[\"offset\"]");

  /* Collective with the individual pointer (now at 29 + rank), split
   * collective (the begin has no status: bytes asked; the end: bytes read),
   * nonblocking read. */
  MPI_File_seek(fh, 32 + rank, MPI_SEEK_SET);
  rp_expect("MPI_File_seek", "\"offset\":%d", 32 + rank);
  MPI_File_write_all(fh, w, 1, MPI_INT, &st);
  rp_expect("MPI_File_write_all", "\"bytes\":4,\"absent\":[\"offset\"]");
  MPI_File_read_at_all_begin(fh, 4 * rank, r, 4, MPI_INT);
  rp_expect("MPI_File_read_at_all_begin", "\"offset\":%d,\"bytes\":16", 4 * rank);
  MPI_File_read_at_all_end(fh, r, &st);
  rp_expect("MPI_File_read_at_all_end", "\"bytes\":16,\"absent\":[\"offset\"]");
  MPI_File_iread_at(fh, 4 * rank, r, 2, MPI_INT, &req);
  rp_expect("MPI_File_iread_at", "\"offset\":%d,\"bytes\":8,\"has_req\":true", 4 * rank);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  rp_expect("MPI_Wait", "\"ncompleted\":1,\"resolved\":[]");
  /* Size operations record the size as bytes. 64, less than the file's
   * 144, on purpose: asked for more than the file holds, Open MPI 4.1's
   * ompio has rank 0 read the file back and rewrite it through its
   * individual pointer, which grows it past the size asked for while the
   * other ranks are still reading its size; a rank that sees it already
   * too big returns at once and skips two Bcasts rank 0 makes (one on the
   * file's communicator, one on MPI_COMM_WORLD). The stray Bcasts then
   * match later collectives: an MPI_File_set_size here hung
   * MPI_File_close, and the shared file pointer set-up of section 13 took
   * a wrong pid from one and died of SIGBUS. Asked for less than the file
   * holds, every rank returns at once. */
  MPI_File_preallocate(fh, 64);
  rp_expect("MPI_File_preallocate", "\"bytes\":64");

  MPI_File_close(&fh);
  rp_expect("MPI_File_close", " ");
  if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL);
}

/* ======================================================================= */
/* 13. MPI-IO: file pointers, nonblocking and split collective access       */
/* ======================================================================= */
/* A read brought back n ints, all equal to want; complain if not. */
static void check_ints(const char* what, const int* got, int n, int want) {
  for (int i = 0; i < n; ++i) {
    if (got[i] != want) {
      fprintf(stderr, "rank %d: %s read %d at %d, not %d\n", rank, what, got[i], i, want);
      return;
    }
  }
}

/* Another file, in ints again (view from byte 0), sized up front so no
 * read comes back short. Layout: individual pointers at 16 * rank (10 ints
 * each), explicit offsets at 64 + 2 * rank and 72 + 2 * rank, shared
 * pointer from 96 (24 ints). Every rank writes its rank number, so what a
 * read brings back is known except after the unordered shared accesses. */
static void file_pointers(void) {
  const char* dir = getenv("RP_EXPECT_DIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/families-pointers.dat", dir && *dir ? dir : ".");
  int w[2] = {rank, rank}, r[2] = {-1, -1};
  MPI_File fh;
  MPI_Status st;
  MPI_Request req;

  MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  rp_expect("MPI_File_open", "\"comm_ranks\":%s", kWorld);
  /* The size is in bytes, whatever the view: 128 ints. */
  MPI_File_set_size(fh, 512);
  rp_expect("MPI_File_set_size", "\"bytes\":512,\"absent\":[\"offset\"]");
  MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
  rp_expect("MPI_File_set_view", "\"offset\":0");

  /* Individual pointer: 5 writes of 2 ints from 16 * rank, in every form;
   * none records an offset. Blocking and split-collective ends record the
   * status's bytes, nonblocking calls and begins the bytes asked. */
  MPI_File_seek(fh, 16 * rank, MPI_SEEK_SET);
  rp_expect("MPI_File_seek", "\"offset\":%d", 16 * rank);
  MPI_File_write(fh, w, 2, MPI_INT, &st);
  rp_expect("MPI_File_write", "\"bytes\":8,\"absent\":[\"offset\"]");
  MPI_File_iwrite(fh, w, 2, MPI_INT, &req);
  rp_expect("MPI_File_iwrite", "\"bytes\":8,\"has_req\":true,\"absent\":[\"offset\"]");
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  rp_expect("MPI_Wait", "\"ncompleted\":1,\"resolved\":[]");
  MPI_File_iwrite_all(fh, w, 2, MPI_INT, &req);
  rp_expect("MPI_File_iwrite_all", "\"bytes\":8,\"has_req\":true,\"absent\":[\"offset\"]");
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  rp_expect("MPI_Wait", "\"ncompleted\":1,\"resolved\":[]");
  MPI_File_write_all_begin(fh, w, 2, MPI_INT);
  rp_expect("MPI_File_write_all_begin", "\"bytes\":8,\"absent\":[\"offset\"]");
  MPI_File_write_all_end(fh, w, &st);
  rp_expect("MPI_File_write_all_end", "\"bytes\":8,\"absent\":[\"offset\"]");
  MPI_File_write_all(fh, w, 2, MPI_INT, MPI_STATUS_IGNORE);
  rp_expect("MPI_File_write_all", "\"bytes\":8,\"absent\":[\"offset\"]");

  /* Explicit offsets, collective: nonblocking and split. */
  MPI_File_iwrite_at_all(fh, 64 + 2 * rank, w, 2, MPI_INT, &req);
  rp_expect("MPI_File_iwrite_at_all", "\"offset\":%d,\"bytes\":8,\"has_req\":true", 64 + 2 * rank);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  rp_expect("MPI_Wait", "\"ncompleted\":1,\"resolved\":[]");
  MPI_File_write_at_all_begin(fh, 72 + 2 * rank, w, 2, MPI_INT);
  rp_expect("MPI_File_write_at_all_begin", "\"offset\":%d,\"bytes\":8", 72 + 2 * rank);
  MPI_File_write_at_all_end(fh, w, &st);
  rp_expect("MPI_File_write_at_all_end", "\"bytes\":8,\"absent\":[\"offset\"]");

  /* Shared pointer, set collectively to 96: ordered (rank order, 2 ints
   * each: 96-103), shared (1 int each, any order: 104-111), split ordered
   * (112-119). */
  MPI_File_seek_shared(fh, 96, MPI_SEEK_SET);
  rp_expect("MPI_File_seek_shared", "\"offset\":96");
  MPI_File_write_ordered(fh, w, 2, MPI_INT, &st);
  rp_expect("MPI_File_write_ordered", "\"bytes\":8,\"absent\":[\"offset\"]");
  MPI_File_write_shared(fh, w, 1, MPI_INT, &st);
  rp_expect("MPI_File_write_shared", "\"bytes\":4,\"absent\":[\"offset\"]");
  MPI_File_iwrite_shared(fh, w, 1, MPI_INT, &req);
  rp_expect("MPI_File_iwrite_shared", "\"bytes\":4,\"has_req\":true,\"absent\":[\"offset\"]");
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  rp_expect("MPI_Wait", "\"ncompleted\":1,\"resolved\":[]");
  MPI_File_write_ordered_begin(fh, w, 2, MPI_INT);
  rp_expect("MPI_File_write_ordered_begin", "\"bytes\":8,\"absent\":[\"offset\"]");
  MPI_File_write_ordered_end(fh, w, &st);
  rp_expect("MPI_File_write_ordered_end", "\"bytes\":8,\"absent\":[\"offset\"]");

  /* sync-barrier-sync: everybody's writes visible to everybody. */
  MPI_File_sync(fh);
  rp_expect("MPI_File_sync", " ");
  MPI_Barrier(MPI_COMM_WORLD);
  rp_expect("MPI_Barrier", " ");
  MPI_File_sync(fh);
  rp_expect("MPI_File_sync", " ");

  /* Read it all back the same ways. */
  MPI_File_seek(fh, 16 * rank, MPI_SEEK_SET);
  rp_expect("MPI_File_seek", "\"offset\":%d", 16 * rank);
  MPI_File_read(fh, r, 2, MPI_INT, &st);
  rp_expect("MPI_File_read", "\"bytes\":8,\"absent\":[\"offset\"]");
  check_ints("File_read", r, 2, rank);
  MPI_File_iread(fh, r, 2, MPI_INT, &req);
  rp_expect("MPI_File_iread", "\"bytes\":8,\"has_req\":true,\"absent\":[\"offset\"]");
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  rp_expect("MPI_Wait", "\"ncompleted\":1,\"resolved\":[]");
  check_ints("File_iread", r, 2, rank);
  MPI_File_read_all(fh, r, 2, MPI_INT, &st);
  rp_expect("MPI_File_read_all", "\"bytes\":8,\"absent\":[\"offset\"]");
  check_ints("File_read_all", r, 2, rank);
  MPI_File_iread_all(fh, r, 2, MPI_INT, &req);
  rp_expect("MPI_File_iread_all", "\"bytes\":8,\"has_req\":true,\"absent\":[\"offset\"]");
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  rp_expect("MPI_Wait", "\"ncompleted\":1,\"resolved\":[]");
  check_ints("File_iread_all", r, 2, rank);
  MPI_File_read_all_begin(fh, r, 2, MPI_INT);
  rp_expect("MPI_File_read_all_begin", "\"bytes\":8,\"absent\":[\"offset\"]");
  MPI_File_read_all_end(fh, r, MPI_STATUS_IGNORE);
  rp_expect("MPI_File_read_all_end", "\"bytes\":8,\"absent\":[\"offset\"]");
  check_ints("File_read_all_end", r, 2, rank);

  MPI_File_iread_at_all(fh, 72 + 2 * next, r, 2, MPI_INT, &req);
  rp_expect("MPI_File_iread_at_all", "\"offset\":%d,\"bytes\":8,\"has_req\":true", 72 + 2 * next);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  rp_expect("MPI_Wait", "\"ncompleted\":1,\"resolved\":[]");
  check_ints("File_iread_at_all", r, 2, next);

  MPI_File_seek_shared(fh, 96, MPI_SEEK_SET);
  rp_expect("MPI_File_seek_shared", "\"offset\":96");
  MPI_File_read_ordered(fh, r, 2, MPI_INT, &st);
  rp_expect("MPI_File_read_ordered", "\"bytes\":8,\"absent\":[\"offset\"]");
  check_ints("File_read_ordered", r, 2, rank);
  MPI_File_read_shared(fh, r, 1, MPI_INT, &st);
  rp_expect("MPI_File_read_shared", "\"bytes\":4,\"absent\":[\"offset\"]");
  MPI_File_iread_shared(fh, r, 1, MPI_INT, &req);
  rp_expect("MPI_File_iread_shared", "\"bytes\":4,\"has_req\":true,\"absent\":[\"offset\"]");
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  rp_expect("MPI_Wait", "\"ncompleted\":1,\"resolved\":[]");
  MPI_File_read_ordered_begin(fh, r, 2, MPI_INT);
  rp_expect("MPI_File_read_ordered_begin", "\"bytes\":8,\"absent\":[\"offset\"]");
  MPI_File_read_ordered_end(fh, r, &st);
  rp_expect("MPI_File_read_ordered_end", "\"bytes\":8,\"absent\":[\"offset\"]");
  check_ints("File_read_ordered_end", r, 2, rank);

  /* Cut it to the 120 ints written, after all those accesses. */
  MPI_File_set_size(fh, 480);
  rp_expect("MPI_File_set_size", "\"bytes\":480");

  MPI_File_close(&fh);
  rp_expect("MPI_File_close", " ");
  if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL);
}

/* ======================================================================= */
/* 14. Nonblocking MPI_PROC_NULL (last: see the note)                        */
/* ======================================================================= */
/* Two receives and a send, all complete at once; a receive's status
 * (source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0) differs from the posted
 * tag and size, so it resolves. Open MPI hands out one shared request
 * object for all of them, which can confuse a collector that keys requests
 * by handle; this runs last so that nothing else depends on it. */
static void proc_null_requests(void) {
  int a[4] = {0}, b[4] = {0};
  double d[1] = {0};
  MPI_Request pn[3];
  MPI_Irecv(a, 2, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &pn[0]);
  rp_expect("MPI_Irecv", "\"peer\":-2,\"tag\":5,\"bytes\":8,\"has_req\":true");
  MPI_Irecv(b, 3, MPI_INT, MPI_PROC_NULL, 6, MPI_COMM_WORLD, &pn[1]);
  rp_expect("MPI_Irecv", "\"peer\":-2,\"tag\":6,\"bytes\":12,\"has_req\":true");
  MPI_Isend(d, 1, MPI_DOUBLE, MPI_PROC_NULL, 7, MPI_COMM_WORLD, &pn[2]);
  rp_expect("MPI_Isend", "\"peer\":-2,\"tag\":7,\"bytes\":8,\"has_req\":true");
  MPI_Waitall(3, pn, MPI_STATUSES_IGNORE);
  rp_expect("MPI_Waitall", "\"ncompleted\":3,\"resolved\":[[-2,%d,0],[-2,%d,0]]", MPI_ANY_TAG, MPI_ANY_TAG);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  rp_expect_init();
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != kRanks) {
    if (rank == 0) fprintf(stderr, "families: run with %d ranks, not %d\n", kRanks, size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  partner = rank ^ 1;
  next = (rank + 1) % kRanks;
  prev = (rank + kRanks - 1) % kRanks;

  /* Buffered sends (sections 1 to 3) need an attached buffer. */
  static char bsend_buffer[4096 + 4 * MPI_BSEND_OVERHEAD];
  MPI_Buffer_attach(bsend_buffer, sizeof bsend_buffer);

  MPI_Pcontrol(1);
  rp_expect("MPI_Pcontrol", "\"tag\":1");

  blocking_p2p();
  nonblocking_p2p();
  void* detached;
  int detached_size;
  persistent();
  MPI_Buffer_detach(&detached, &detached_size);
  sendrecv();
  probes();
  cancel();
  blocking_collectives();
  nonblocking_collectives();
  MPI_Comm ring = neighbourhood();
  communicators(ring);
  one_sided();
  file_io();
  file_pointers();
  proc_null_requests();

  rp_expect_finalize();
  MPI_Finalize();
  return 0;
}
