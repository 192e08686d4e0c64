// What the Fortran wrappers need beyond mpi.h: the size of a Fortran
// status (INTEGER array; Open MPI defines MPI_STATUS_SIZE as the C status
// in MPI_Fint units) and a clear stop when a Fortran symbol is called but no
// Fortran MPI library is loaded.
#ifndef RP_COLLECTOR_FORTRAN_H_
#define RP_COLLECTOR_FORTRAN_H_

#include <mpi.h>

namespace rp::collector {

static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER arrays are read as int arrays");
static_assert(sizeof(MPI_Status) % sizeof(MPI_Fint) == 0);
inline constexpr int kFortranStatusSize = sizeof(MPI_Status) / sizeof(MPI_Fint);

[[noreturn]] void MissingFortranMpi(const char* symbol);

}  // namespace rp::collector

#endif  // RP_COLLECTOR_FORTRAN_H_
