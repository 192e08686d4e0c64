#include "lib/mpi/functions.h"

#include <iterator>

#include "lib/base/name_table.h"

namespace rp::mpi {

int32_t FindFunction(std::string_view name) {
  static const auto* index = [] {
    auto* table = new NameTable();
    for (size_t i = 0; i < std::size(kFunctions); ++i) table->Add(kFunctions[i].name, static_cast<int>(i));
    return table;
  }();
  return index->Find(name);
}

bool CountsAlike(int32_t fn) {
  switch (fn) {
    case kFn_MPI_Allreduce:
    case kFn_MPI_Allgather:
    case kFn_MPI_Allgatherv:
    case kFn_MPI_Alltoall:
    case kFn_MPI_Reduce_scatter:
    case kFn_MPI_Reduce_scatter_block:
      return true;
    default:
      return false;
  }
}

}  // namespace rp::mpi
