#include "lib/dist/mpi_comm.h"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <map>

namespace rp::dist {
namespace {

class MpiComm : public Comm {
 public:
  MpiComm() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    MPI_Op_create(&Fold, 1, &fold_);
  }
  ~MpiComm() override {
    for (auto& [bytes, type] : slot_types_) MPI_Type_free(&type);
    MPI_Op_free(&fold_);
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

  Expected<std::vector<std::string>> Alltoallv(const std::vector<std::string>& to) override {
    if (static_cast<int>(to.size()) != size_) return InputError("Alltoallv: one buffer per process");
    // To each process: the length of its bytes, and the most this one
    // sends any process (so every process learns the most any sends).
    int64_t most_sent = 0;
    for (const std::string& bytes : to) most_sent = std::max<int64_t>(most_sent, static_cast<int64_t>(bytes.size()));
    std::vector<int64_t> send_lengths(2 * size_), lengths(2 * size_);
    for (int p = 0; p < size_; ++p) send_lengths[2 * p] = static_cast<int64_t>(to[p].size()), send_lengths[2 * p + 1] = most_sent;
    if (MPI_Alltoall(send_lengths.data(), 2, MPI_INT64_T, lengths.data(), 2, MPI_INT64_T, MPI_COMM_WORLD) !=
        MPI_SUCCESS) {
      return InputError("MPI_Alltoall failed");
    }
    std::vector<std::string> from(size_);
    for (int p = 0; p < size_; ++p) from[p].resize(lengths[2 * p]);
    // Counts and displacements are ints: rounds of at most kRound bytes
    // between any two processes, whose totals fit one. Every process makes
    // as many: for the most any process sends another.
    const int64_t kRound = std::max<int64_t>(INT32_MAX / size_, 1);
    int64_t most = 0;
    for (int p = 0; p < size_; ++p) most = std::max(most, lengths[2 * p + 1]);
    const int64_t rounds = (most + kRound - 1) / kRound;
    for (int64_t round = 0; round < rounds; ++round) {
      const int64_t done = round * kRound;
      std::vector<int> send_counts(size_), send_displs(size_), counts(size_), displs(size_);
      std::string packed_out, packed_in;
      for (int p = 0; p < size_; ++p) {
        send_counts[p] = static_cast<int>(std::clamp<int64_t>(send_lengths[2 * p] - done, 0, kRound));
        counts[p] = static_cast<int>(std::clamp<int64_t>(lengths[2 * p] - done, 0, kRound));
        send_displs[p] = static_cast<int>(packed_out.size());
        displs[p] = p == 0 ? 0 : displs[p - 1] + counts[p - 1];
        if (send_counts[p] > 0) packed_out.append(to[p], done, send_counts[p]);
      }
      packed_in.resize(static_cast<size_t>(displs[size_ - 1]) + counts[size_ - 1]);
      if (MPI_Alltoallv(packed_out.data(), send_counts.data(), send_displs.data(), MPI_BYTE, packed_in.data(),
                        counts.data(), displs.data(), MPI_BYTE, MPI_COMM_WORLD) != MPI_SUCCESS) {
        return InputError("MPI_Alltoallv failed");
      }
      for (int p = 0; p < size_; ++p) std::copy_n(packed_in.data() + displs[p], counts[p], from[p].data() + done);
    }
    return from;
  }

  Expected<std::vector<std::string>> ExchangeAndSum(const std::vector<std::string>& to,
                                                    std::vector<int64_t>* sums) override {
    if (static_cast<int>(to.size()) != size_) return InputError("ExchangeAndSum: one buffer per process");
    // One MPI_Alltoall carries to each process the length of its bytes, the
    // most this one sends any process and this one's sums; the bytes follow
    // in an Alltoallv only if some process sends some.
    const size_t n = sums->size(), stride = 2 + n;
    int64_t most_sent = 0;
    for (const std::string& bytes : to) most_sent = std::max<int64_t>(most_sent, static_cast<int64_t>(bytes.size()));
    std::vector<int64_t> head(stride * size_), heads(stride * size_);
    for (int p = 0; p < size_; ++p) {
      int64_t* h = &head[stride * p];
      h[0] = static_cast<int64_t>(to[p].size());
      h[1] = most_sent;
      std::copy(sums->begin(), sums->end(), h + 2);
    }
    if (MPI_Alltoall(head.data(), static_cast<int>(stride), MPI_INT64_T, heads.data(), static_cast<int>(stride),
                     MPI_INT64_T, MPI_COMM_WORLD) != MPI_SUCCESS) {
      return InputError("MPI_Alltoall failed");
    }
    std::fill(sums->begin(), sums->end(), 0);
    int64_t most = 0;
    for (int p = 0; p < size_; ++p) {
      const int64_t* h = &heads[stride * p];
      most = std::max(most, h[1]);
      for (size_t i = 0; i < n; ++i) (*sums)[i] += h[2 + i];
    }
    std::vector<std::string> from(size_);
    if (most == 0) return from;
    if (most > INT32_MAX / size_) return Alltoallv(to);  // large: in rounds
    std::vector<int> send_counts(size_), send_displs(size_), counts(size_), displs(size_);
    std::string packed_out, packed_in;
    for (int p = 0; p < size_; ++p) {
      send_counts[p] = static_cast<int>(to[p].size());
      send_displs[p] = static_cast<int>(packed_out.size());
      packed_out.append(to[p]);
      counts[p] = static_cast<int>(heads[stride * p]);
      displs[p] = p == 0 ? 0 : displs[p - 1] + counts[p - 1];
    }
    packed_in.resize(static_cast<size_t>(displs[size_ - 1]) + counts[size_ - 1]);
    if (MPI_Alltoallv(packed_out.data(), send_counts.data(), send_displs.data(), MPI_BYTE, packed_in.data(),
                      counts.data(), displs.data(), MPI_BYTE, MPI_COMM_WORLD) != MPI_SUCCESS) {
      return InputError("MPI_Alltoallv failed");
    }
    for (int p = 0; p < size_; ++p) from[p].assign(packed_in, displs[p], counts[p]);
    return from;
  }

  [[noreturn]] void Abort(int code) override {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::abort();
  }

  Status Allreduce(std::string* inout, size_t slot_bytes, Combine combine) override {
    if (slot_bytes == 0 || inout->size() % slot_bytes != 0) return InputError("Allreduce: a partial slot");
    const size_t slots = inout->size() / slot_bytes;
    if (slots == 0) return OkStatus();
    if (slots > static_cast<size_t>(INT32_MAX)) return InputError("Allreduce: too many slots");
    // A slot's type made once for each size; one operation serves every
    // fold (it calls the one set here).
    auto known = slot_types_.find(slot_bytes);
    if (known == slot_types_.end()) {
      MPI_Datatype made;
      MPI_Type_contiguous(static_cast<int>(slot_bytes), MPI_BYTE, &made);
      MPI_Type_commit(&made);
      known = slot_types_.emplace(slot_bytes, made).first;
    }
    const MPI_Datatype type = known->second;
    g_combine = combine;
    std::string in = *inout;
    const int rc = MPI_Allreduce(in.data(), inout->data(), static_cast<int>(slots), type, fold_, MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? OkStatus() : InputError("MPI_Allreduce failed");
  }

 private:
  // MPI user operations are plain functions: the call's fold, one at a time.
  static inline Combine g_combine = nullptr;
  static void Fold(void* in, void* inout, int* len, MPI_Datatype*) {
    g_combine(static_cast<const char*>(in), static_cast<char*>(inout), static_cast<size_t>(*len));
  }

  int rank_ = 0, size_ = 1;
  MPI_Op fold_;
  std::map<size_t, MPI_Datatype> slot_types_;
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
