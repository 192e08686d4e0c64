/* Cost of MPI calls that do (almost) nothing, to measure what the collector
 * adds per call: MPI_Iprobe with nothing pending, and a 0-byte MPI_Send to
 * self followed by its MPI_Recv. Prints ns per call for each.
 *   mpi_calls [CALLS]   (run as a single rank) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const long calls = argc > 1 ? atol(argv[1]) : 1000000;
  int flag;
  MPI_Status status;
  for (long i = 0; i < 1000; ++i) MPI_Iprobe(MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &flag, &status);
  double t0 = MPI_Wtime();
  for (long i = 0; i < calls; ++i) MPI_Iprobe(MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &flag, &status);
  const double iprobe = (MPI_Wtime() - t0) / calls * 1e9;
  t0 = MPI_Wtime();
  for (long i = 0; i < calls / 2; ++i) {
    MPI_Send(NULL, 0, MPI_BYTE, 0, 5, MPI_COMM_WORLD);
    MPI_Recv(NULL, 0, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  const double sendrecv = (MPI_Wtime() - t0) / (calls / 2 * 2) * 1e9;
  printf("iprobe_ns %.1f\nself_send_recv_ns %.1f\n", iprobe, sendrecv);
  MPI_Finalize();
  return 0;
}
