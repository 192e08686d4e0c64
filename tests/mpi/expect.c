#include "tests/mpi/expect.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static FILE* g_out;

void rp_expect_init(void) { rp_expect_init_as("MPI_Init"); }

void rp_expect_init_as(const char* init_fn) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char* dir = getenv("RP_EXPECT_DIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/expect-%d.ndjson", dir && *dir ? dir : ".", rank);
  g_out = fopen(path, "w");
  if (g_out == NULL) {
    perror(path);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  rp_expect(init_fn, " ");
}

void rp_expect(const char* fn, const char* fields, ...) {
  if (g_out == NULL) return;
  char body[8192];
  va_list args;
  va_start(args, fields);
  vsnprintf(body, sizeof body, fields, args);
  va_end(args);
  const int has_fields = body[0] != '\0' && body[0] != ' ';
  fprintf(g_out, "{\"fn\":\"%s\"%s%s}\n", fn, has_fields ? "," : "", has_fields ? body : "");
  fflush(g_out);
}

void rp_expect_finalize(void) {
  rp_expect("MPI_Finalize", " ");
  fclose(g_out);
  g_out = NULL;
}

/* Fortran: call rp_expect_f("MPI_Send", '"peer":1') with C-interoperable
 * strings (bind(C) interface in tests/mpi/expect_f.f90). */
void rp_expect_f(const char* fn, const char* fields) { rp_expect(fn, "%s", fields); }
