/* Calls the Fortran MPI entry points from C under every name mangling a
 * Fortran compiler may produce (mpi_send_, mpi_send, mpi_send__, MPI_SEND),
 * with Fortran handles (MPI_*_c2f) and Fortran statuses, as a Fortran
 * application built with another compiler would. The collector defines all
 * four names for each function: each call must be recorded exactly once
 * (once, not zero times through Open MPI's own alias, nor twice through
 * the C binding underneath), with the same fields as under the primary
 * name. C calls are mixed in to show the C binding is unaffected.
 * Links with Open MPI's Fortran library (-lmpi_mpifh) for the entry points.
 * 4 ranks: ring left/right neighbours and pair partners (0-1, 2-3). */
#include <mpi.h>
#include <stdio.h>

#include "tests/mpi/expect.h"

typedef MPI_Fint F;

/* Fortran bindings, as Open MPI's libmpi_mpifh exports them. */
void mpi_init(F* ierr);
void MPI_FINALIZE(F* ierr);
void mpi_send_(void* buf, F* count, F* type, F* dest, F* tag, F* comm, F* ierr);
void mpi_send(void* buf, F* count, F* type, F* dest, F* tag, F* comm, F* ierr);
void mpi_send__(void* buf, F* count, F* type, F* dest, F* tag, F* comm, F* ierr);
void MPI_SEND(void* buf, F* count, F* type, F* dest, F* tag, F* comm, F* ierr);
void mpi_recv_(void* buf, F* count, F* type, F* source, F* tag, F* comm, F* status, F* ierr);
void mpi_recv(void* buf, F* count, F* type, F* source, F* tag, F* comm, F* status, F* ierr);
void mpi_recv__(void* buf, F* count, F* type, F* source, F* tag, F* comm, F* status, F* ierr);
void MPI_RECV(void* buf, F* count, F* type, F* source, F* tag, F* comm, F* status, F* ierr);
void mpi_irecv__(void* buf, F* count, F* type, F* source, F* tag, F* comm, F* req, F* ierr);
void MPI_IRECV(void* buf, F* count, F* type, F* source, F* tag, F* comm, F* req, F* ierr);
void MPI_ISEND(void* buf, F* count, F* type, F* dest, F* tag, F* comm, F* req, F* ierr);
void mpi_isend__(void* buf, F* count, F* type, F* dest, F* tag, F* comm, F* req, F* ierr);
void mpi_waitall(F* count, F* reqs, F* statuses, F* ierr);
void MPI_WAITANY(F* count, F* reqs, F* index, F* status, F* ierr);
void mpi_waitany__(F* count, F* reqs, F* index, F* status, F* ierr);
void MPI_BARRIER(F* comm, F* ierr);
void mpi_barrier(F* comm, F* ierr);
void mpi_barrier__(F* comm, F* ierr);
void mpi_allreduce(void* sendbuf, void* recvbuf, F* count, F* type, F* op, F* comm, F* ierr);
void MPI_ALLREDUCE(void* sendbuf, void* recvbuf, F* count, F* type, F* op, F* comm, F* ierr);
void mpi_allreduce__(void* sendbuf, void* recvbuf, F* count, F* type, F* op, F* comm, F* ierr);
void MPI_BCAST(void* buf, F* count, F* type, F* root, F* comm, F* ierr);
void mpi_comm_dup__(F* comm, F* newcomm, F* ierr);
void MPI_COMM_FREE(F* comm, F* ierr);
void mpi_pcontrol(F* level); /* MPI_PCONTROL(LEVEL): no IERROR in Fortran */

/* Fortran's MPI_IN_PLACE: the address of Open MPI's common block. */
extern int mpi_fortran_in_place_;

enum { kFStatusSize = sizeof(MPI_Status) / sizeof(MPI_Fint) };

static int g_rank;

static void check(int ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "manglings: rank %d: check failed: %s\n", g_rank, what);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

static void check_ierr(F ierr, const char* what) { check(ierr == MPI_SUCCESS, what); }

/* Source and tag of a Fortran status. */
static void fstatus(F* status, int* source, int* tag) {
  MPI_Status c;
  MPI_Status_f2c(status, &c);
  *source = c.MPI_SOURCE;
  *tag = c.MPI_TAG;
}

#define W "\"comm_ranks\":[0,1,2,3]"

int main(void) {
  F ierr = -1;
  mpi_init(&ierr);
  check_ierr(ierr, "mpi_init");
  rp_expect_init();
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  g_rank = rank;
  check(size == 4, "needs 4 ranks");
  const int left = (rank + 3) % 4, right = (rank + 1) % 4, partner = rank ^ 1;

  F world = MPI_Comm_c2f(MPI_COMM_WORLD);
  F fint = MPI_Type_c2f(MPI_INT);
  F fdouble = MPI_Type_c2f(MPI_DOUBLE);
  F fsum = MPI_Op_c2f(MPI_SUM);
  F any_source = MPI_ANY_SOURCE, any_tag = MPI_ANY_TAG;
  F fpartner = partner, fleft = left, fright = right;
  F status[kFStatusSize], statuses[2 * kFStatusSize];
  int data[16], got[16];
  for (int i = 0; i < 16; ++i) data[i] = rank * 100 + i;
  int source, tag;

  /* --- Send under all four names (even ranks), Recv under all four (odd),
   * with Fortran statuses and MPI_F_STATUS_IGNORE; message k has k ints. */
  if (rank % 2 == 0) {
    mpi_send_(data, &(F){1}, &fint, &fpartner, &(F){1}, &world, &ierr);
    rp_expect("MPI_Send", "\"peer\":%d,\"tag\":1,\"bytes\":4," W, partner);
    mpi_send(data, &(F){2}, &fint, &fpartner, &(F){2}, &world, &ierr);
    rp_expect("MPI_Send", "\"peer\":%d,\"tag\":2,\"bytes\":8," W, partner);
    mpi_send__(data, &(F){3}, &fint, &fpartner, &(F){3}, &world, &ierr);
    rp_expect("MPI_Send", "\"peer\":%d,\"tag\":3,\"bytes\":12," W, partner);
    MPI_SEND(data, &(F){4}, &fint, &fpartner, &(F){4}, &world, &ierr);
    rp_expect("MPI_Send", "\"peer\":%d,\"tag\":4,\"bytes\":16," W, partner);
    check_ierr(ierr, "MPI_SEND");
    /* The C binding, for comparison. */
    MPI_Recv(got, 16, MPI_INT, partner, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    rp_expect("MPI_Recv", "\"peer\":%d,\"tag\":5,\"bytes\":20", partner);
  } else {
    mpi_recv_(got, &(F){16}, &fint, &fpartner, &(F){1}, &world, status, &ierr);
    rp_expect("MPI_Recv", "\"peer\":%d,\"tag\":1,\"bytes\":4," W, partner);
    mpi_recv(got, &(F){16}, &fint, &fpartner, &(F){2}, &world, MPI_F_STATUS_IGNORE, &ierr);
    rp_expect("MPI_Recv", "\"peer\":%d,\"tag\":2,\"bytes\":8", partner);
    mpi_recv__(got, &(F){16}, &fint, &fpartner, &any_tag, &world, status, &ierr);
    fstatus(status, &source, &tag);
    check(source == partner && tag == 3, "mpi_recv__ status");
    rp_expect("MPI_Recv", "\"peer\":%d,\"tag\":3,\"bytes\":12", partner);
    MPI_RECV(got, &(F){16}, &fint, &any_source, &any_tag, &world, MPI_F_STATUS_IGNORE, &ierr);
    rp_expect("MPI_Recv", "\"peer\":%d,\"tag\":4,\"bytes\":16", partner);
    check_ierr(ierr, "MPI_RECV");
    check(got[3] == partner * 100 + 3, "MPI_RECV data");
    MPI_Send(data, 5, MPI_INT, partner, 5, MPI_COMM_WORLD);
    rp_expect("MPI_Send", "\"peer\":%d,\"tag\":5,\"bytes\":20", partner);
  }

  /* --- Nonblocking under the other names: the Irecv is posted for 8 ints,
   * the left neighbour sends rank + 1; Waitall resolves the short message. */
  F reqs[2];
  mpi_irecv__(got, &(F){8}, &fint, &fleft, &(F){10}, &world, &reqs[0], &ierr);
  rp_expect("MPI_Irecv", "\"peer\":%d,\"tag\":10,\"bytes\":32,\"has_req\":true", left);
  MPI_ISEND(data, &(F){rank + 1}, &fint, &fright, &(F){10}, &world, &reqs[1], &ierr);
  rp_expect("MPI_Isend", "\"peer\":%d,\"tag\":10,\"bytes\":%d,\"has_req\":true", right, 4 * (rank + 1));
  mpi_waitall(&(F){2}, reqs, statuses, &ierr);
  rp_expect("MPI_Waitall", "\"ncompleted\":2,\"resolved\":[[%d,10,%d]]", left, 4 * (left + 1));
  check(reqs[0] == MPI_Request_c2f(MPI_REQUEST_NULL), "mpi_waitall frees");

  /* Waitany: 1-based indices through MPI_WAITANY, then mpi_waitany__ on
   * null requests (MPI_UNDEFINED, nothing completed). */
  double dgot[4], dsend[4] = {rank, rank, rank, rank};
  MPI_IRECV(dgot, &(F){4}, &fdouble, &fright, &(F){11}, &world, &reqs[0], &ierr);
  rp_expect("MPI_Irecv", "\"peer\":%d,\"tag\":11,\"bytes\":32", right);
  mpi_isend__(dsend, &(F){2}, &fdouble, &fleft, &(F){11}, &world, &reqs[1], &ierr);
  rp_expect("MPI_Isend", "\"peer\":%d,\"tag\":11,\"bytes\":16", left);
  for (int k = 0; k < 2; ++k) {
    F index = -1;
    MPI_WAITANY(&(F){2}, reqs, &index, status, &ierr);
    check(index == 1 || index == 2, "MPI_WAITANY index");
    if (index == 1) {
      rp_expect("MPI_Waitany", "\"ncompleted\":1,\"resolved\":[[%d,11,16]]", right);
    } else {
      rp_expect("MPI_Waitany", "\"ncompleted\":1,\"resolved\":[]");
    }
  }
  F index = -1;
  mpi_waitany__(&(F){2}, reqs, &index, status, &ierr);
  check(index == MPI_UNDEFINED, "mpi_waitany__ on null requests");
  rp_expect("MPI_Waitany", "\"ncompleted\":0,\"resolved\":[]");

  /* --- Collectives under the other names. */
  MPI_BARRIER(&world, &ierr);
  rp_expect("MPI_Barrier", W);
  mpi_barrier(&world, &ierr);
  rp_expect("MPI_Barrier", W);
  mpi_barrier__(&world, &ierr);
  rp_expect("MPI_Barrier", W);
  MPI_Barrier(MPI_COMM_WORLD);
  rp_expect("MPI_Barrier", W);
  int one = 1, sum = 0;
  mpi_allreduce(&one, &sum, &(F){1}, &fint, &fsum, &world, &ierr);
  rp_expect("MPI_Allreduce", W ",\"op\":\"MPI_SUM\",\"bytes\":4");
  check(sum == 4, "mpi_allreduce");
  int vals[3] = {rank, 1, 2};
  MPI_ALLREDUCE(&mpi_fortran_in_place_, vals, &(F){3}, &fint, &fsum, &world, &ierr);
  rp_expect("MPI_Allreduce", W ",\"op\":\"MPI_SUM\",\"bytes\":12");
  check(vals[0] == 6 && vals[1] == 4 && vals[2] == 8, "MPI_ALLREDUCE in place");
  F fmax = MPI_Op_c2f(MPI_MAX);
  mpi_allreduce__(&rank, &sum, &(F){1}, &fint, &fmax, &world, &ierr);
  rp_expect("MPI_Allreduce", W ",\"op\":\"MPI_MAX\",\"bytes\":4");
  check(sum == 3, "mpi_allreduce__");
  MPI_BCAST(dsend, &(F){4}, &fdouble, &(F){2}, &world, &ierr);
  rp_expect("MPI_Bcast", W ",\"root\":2,\"bytes\":32");
  check(dsend[3] == 2.0, "MPI_BCAST");

  /* --- Communicators: a dup and its free, under mixed names. */
  F dup = 0;
  mpi_comm_dup__(&world, &dup, &ierr);
  rp_expect("MPI_Comm_dup", W ",\"newcomm_ranks\":[0,1,2,3]");
  mpi_barrier(&dup, &ierr);
  rp_expect("MPI_Barrier", W);
  MPI_COMM_FREE(&dup, &ierr);
  rp_expect("MPI_Comm_free", W);
  check(dup == MPI_Comm_c2f(MPI_COMM_NULL), "MPI_COMM_FREE");

  mpi_pcontrol(&(F){7});
  rp_expect("MPI_Pcontrol", "\"tag\":7");

  rp_expect_finalize();
  MPI_FINALIZE(&ierr);
  return ierr == MPI_SUCCESS ? 0 : 1;
}
