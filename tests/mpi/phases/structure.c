/* A run with a known phase structure. Phases end at global
 * synchronizations (MPI_Barrier and MPI_Allreduce on MPI_COMM_WORLD):
 *   setup (Bcast, Barrier)                               1 phase
 *   3 x { A: halo exchange, Allreduce                    3 phases
 *         4 x { C: compute, Allreduce }                 12 phases
 *         B: send, Iprobe until it arrives (a rank- and  3 phases
 *            iteration-dependent number of polls), Recv, Barrier }
 *   final: Reduce (rooted: no phase boundary), Finalize  1 phase
 * = 20 phases in 5 clusters of 1, 3, 12, 3 and 1.
 * `structure B` runs other code (other call sites) between the same
 * synchronizations: run as `mpirun -np 2 structure : -np 2 structure B`
 * (MPMD) the structure is the same. `structure none` never synchronizes
 * globally: one phase. */
#include <mpi.h>
#include <string.h>
#include <time.h>

static void Sleep(long us) {
  struct timespec ts = {0, us * 1000};
  nanosleep(&ts, NULL);
}

/* Point-to-point traffic stays within the group of ranks running the same
 * role (`group`); the global synchronizations are on MPI_COMM_WORLD. */
static void Halo(MPI_Comm group) {
  int rank, size;
  MPI_Comm_rank(group, &rank);
  MPI_Comm_size(group, &size);
  double out = rank, in[2];
  MPI_Request r[4];
  MPI_Irecv(&in[0], 1, MPI_DOUBLE, (rank + size - 1) % size, 1, group, &r[0]);
  MPI_Irecv(&in[1], 1, MPI_DOUBLE, (rank + 1) % size, 2, group, &r[1]);
  MPI_Isend(&out, 1, MPI_DOUBLE, (rank + 1) % size, 1, group, &r[2]);
  MPI_Isend(&out, 1, MPI_DOUBLE, (rank + size - 1) % size, 2, group, &r[3]);
  MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
}

static void OtherWork(MPI_Comm group) {
  int rank, size;
  MPI_Comm_rank(group, &rank);
  MPI_Comm_size(group, &size);
  double out = rank, in;
  MPI_Sendrecv(&out, 1, MPI_DOUBLE, (rank + 1) % size, 7, &in, 1, MPI_DOUBLE, (rank + size - 1) % size, 7,
               group, MPI_STATUS_IGNORE);
}

static void Poll(MPI_Comm group, int iteration) {
  int rank, size;
  MPI_Comm_rank(group, &rank);
  MPI_Comm_size(group, &size);
  int value = rank, got, flag = 0;
  Sleep(100 * ((rank + iteration) % 3));  /* polls differ by rank and iteration */
  MPI_Send(&value, 1, MPI_INT, (rank + 1) % size, 3, group);
  while (!flag) MPI_Iprobe((rank + size - 1) % size, 3, group, &flag, MPI_STATUS_IGNORE);
  MPI_Recv(&got, 1, MPI_INT, (rank + size - 1) % size, 3, group, MPI_STATUS_IGNORE);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int other = argc > 1 && strcmp(argv[1], "B") == 0;
  const int none = argc > 1 && strcmp(argv[1], "none") == 0;
  double x = 1, sum;
  MPI_Comm group;
  MPI_Comm_split(MPI_COMM_WORLD, other, rank, &group);
  if (none) {
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    for (int i = 0; i < 3; ++i) {
      OtherWork(group);
      MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, half);
    }
    MPI_Comm_free(&half);
    MPI_Comm_free(&group);
    MPI_Finalize();
    return 0;
  }
  (void)size;
  int parameters[2] = {3, 4};
  MPI_Bcast(parameters, 2, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int outer = 0; outer < parameters[0]; ++outer) {
    if (other) OtherWork(group);
    else Halo(group);
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int inner = 0; inner < parameters[1]; ++inner) {
      Sleep(200);
      MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    if (other) OtherWork(group);
    else Poll(group, outer);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Reduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Comm_free(&group);
  MPI_Finalize();
  return 0;
}
