#include "lib/dist/mpi_comm.h"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>

namespace rp::dist {
namespace {

class MpiComm : public Comm {
 public:
  MpiComm() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  Expected<std::vector<std::string>> Allgather(std::string_view mine) override {
    const int64_t length = static_cast<int64_t>(mine.size());
    std::vector<int64_t> lengths(size_);
    if (MPI_Allgather(&length, 1, MPI_INT64_T, lengths.data(), 1, MPI_INT64_T, MPI_COMM_WORLD) != MPI_SUCCESS) {
      return InputError("MPI_Allgather failed");
    }
    // MPI counts and displacements are ints: large exchanges go in rounds
    // whose total fits one.
    const int64_t kRound = std::max<int64_t>(INT32_MAX / size_, 1);
    std::vector<std::string> all(size_);
    for (int p = 0; p < size_; ++p) all[p].resize(lengths[p]);
    for (int64_t done = 0;; done += kRound) {
      std::vector<int> counts(size_), displs(size_);
      int64_t total = 0;
      for (int p = 0; p < size_; ++p) {
        counts[p] = static_cast<int>(std::clamp<int64_t>(lengths[p] - done, 0, kRound));
        total += counts[p];
      }
      if (total == 0 && done > 0) break;
      std::string packed(total, '\0');
      for (int p = 1; p < size_; ++p) displs[p] = displs[p - 1] + counts[p - 1];
      const int send = static_cast<int>(std::clamp<int64_t>(length - done, 0, kRound));
      if (MPI_Allgatherv(mine.data() + std::min(done, length), send, MPI_BYTE, packed.data(), counts.data(),
                         displs.data(), MPI_BYTE, MPI_COMM_WORLD) != MPI_SUCCESS) {
        return InputError("MPI_Allgatherv failed");
      }
      for (int p = 0; p < size_; ++p) std::copy_n(packed.data() + displs[p], counts[p], all[p].data() + done);
      if (total == 0) break;
    }
    return all;
  }

  Status Allreduce(std::string* inout, size_t slot_bytes, Combine combine) override {
    if (slot_bytes == 0 || inout->size() % slot_bytes != 0) return InputError("Allreduce: a partial slot");
    const size_t slots = inout->size() / slot_bytes;
    if (slots == 0) return OkStatus();
    if (slots > static_cast<size_t>(INT32_MAX)) return InputError("Allreduce: too many slots");
    MPI_Datatype type;
    MPI_Op op;
    MPI_Type_contiguous(static_cast<int>(slot_bytes), MPI_BYTE, &type);
    MPI_Type_commit(&type);
    g_combine = combine;
    MPI_Op_create(&Fold, 1, &op);
    std::string in = *inout;
    const int rc = MPI_Allreduce(in.data(), inout->data(), static_cast<int>(slots), type, op, MPI_COMM_WORLD);
    MPI_Op_free(&op);
    MPI_Type_free(&type);
    return rc == MPI_SUCCESS ? OkStatus() : InputError("MPI_Allreduce failed");
  }

 private:
  // MPI user operations are plain functions: the call's fold, one at a time.
  static inline Combine g_combine = nullptr;
  static void Fold(void* in, void* inout, int* len, MPI_Datatype*) {
    g_combine(static_cast<const char*>(in), static_cast<char*>(inout), static_cast<size_t>(*len));
  }

  int rank_ = 0, size_ = 1;
};

}  // namespace

MpiSession::MpiSession(int* argc, char*** argv) {
  MPI_Init(argc, argv);
  comm_ = std::make_unique<MpiComm>();
}

MpiSession::~MpiSession() {
  comm_.reset();
  MPI_Finalize();
}

}  // namespace rp::dist
