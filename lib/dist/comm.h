// The processes of a parallel analysis (mpirun -np P rp-<stage>-mpi), as
// the stages see them: who they are, and one collective exchange that
// carries every process's bytes to every process. Exchanges are made in
// lockstep; a process that fails sends its error in its next exchange, so
// every process learns of it there and stops, instead of waiting for it.
//
//   RP_ASSIGN_OR_RETURN(std::vector<std::string> all, dist::Exchange(comm, mine));
//   // all[p]: process p's bytes (an error of any process is returned instead)
//   RP_RETURN_IF_ERROR(comm.Allreduce(&slots, sizeof(Slot), Fold));  // a fixed size, whatever the processes
//   RP_ASSIGN_OR_RETURN(std::vector<std::string> in, comm.Alltoallv(out));  // out[q] to q; in[p] from p
//   RP_ASSIGN_OR_RETURN(in, comm.ExchangeAndSum(out, &counts));  // the same, and counts added up
#ifndef RP_LIB_DIST_COMM_H_
#define RP_LIB_DIST_COMM_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/status.h"

namespace rp::dist {

class Comm {
 public:
  virtual ~Comm() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Every process's `mine`, by process (MPI_Allgatherv).
  virtual Expected<std::vector<std::string>> Allgather(std::string_view mine) = 0;
  // Every process's `*inout` (as many slots of `slot_bytes` on each)
  // combined slot by slot into every process's (MPI_Allreduce with a user
  // operation): `combine` folds `in`'s slots into `inout`'s, and must be
  // associative and commutative. Every process must pass as many slots of
  // the same size (decide them from an earlier collective's result), or
  // the processes wait on each other.
  using Combine = void (*)(const char* in, char* inout, size_t slots);
  virtual Status Allreduce(std::string* inout, size_t slot_bytes, Combine combine) = 0;
  // `to[q]` (one per process, maybe empty) delivered to process q; returns
  // what each process sent this one, by process (MPI_Alltoallv): what
  // crosses between two processes only, not everything to everyone.
  virtual Expected<std::vector<std::string>> Alltoallv(const std::vector<std::string>& to) = 0;
  // One round of a replay: `to[q]` delivered to q, as Alltoallv, and
  // `*sums` added up slot by slot over every process (as many slots on
  // each). Over MPI one MPI_Alltoall carries the lengths and the sums, and
  // an MPI_Alltoallv the bytes only when some process sends some: a round
  // that was an Alltoallv and an Allreduce (four collectives) is one or two.
  virtual Expected<std::vector<std::string>> ExchangeAndSum(const std::vector<std::string>& to,
                                                            std::vector<int64_t>* sums) = 0;
  // Ends every process with exit status `code` (MPI_Abort): for an error
  // one process met where the others may be waiting in a collective.
  [[noreturn]] virtual void Abort(int code) = 0;
};

// An Allreduce's fold for slots of a trivially copyable T whose Add(in)
// combines `in` into it.
template <typename T>
void FoldSlots(const char* in, char* inout, size_t slots) {
  for (size_t i = 0; i < slots; ++i) {
    T a, b;
    std::memcpy(&a, in + i * sizeof a, sizeof a);
    std::memcpy(&b, inout + i * sizeof b, sizeof b);
    b.Add(a);
    std::memcpy(inout + i * sizeof b, &b, sizeof b);
  }
}

// A parallel stage's exit status, from its tool's: an error (2 or more)
// one process met may leave the others waiting for it in a collective, so
// it ends them all (Abort); exit 1 (nothing to analyse) is reached alike by
// every process after the last collective and is returned, since an abort
// could cut process 0's index short.
inline int EndStage(Comm& comm, int code) {
  if (code >= 2 && comm.size() > 1) comm.Abort(code);
  return code;
}

// One trivially copyable value combined over every process by its Add
// (an Allreduce of one slot).
template <typename T>
Expected<T> AllreduceValue(Comm& comm, const T& mine) {
  std::string slot(reinterpret_cast<const char*>(&mine), sizeof mine);
  RP_RETURN_IF_ERROR(comm.Allreduce(&slot, sizeof mine, &FoldSlots<T>));
  T all;
  std::memcpy(&all, slot.data(), sizeof all);
  return all;
}
// The commonest such value: a count added up.
struct Sum {
  int64_t value = 0;
  void Add(const Sum& o) { value += o.value; }
};

// Allgather with each process's status: the data of all, or the first
// failed process's error ("process 2: ...").
Expected<std::vector<std::string>> Exchange(Comm& comm, std::string_view mine);
// This process's error, sent in the exchange the others make next.
Status Fail(Comm& comm, const Status& error);
// After a reduction that said some process failed (its slots carry a
// flag): every process's status gathered, the first failed process's
// error returned on all ("process 2: ...").
Status GatherError(Comm& comm, const Status& local);

// Appends and reads fixed-size values and strings (an exchange's bytes).
class Packer {
 public:
  template <typename T> void Put(const T& value) {
    out_.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  void PutString(std::string_view s) {
    Put<uint64_t>(s.size());
    out_.append(s);
  }
  std::string& bytes() { return out_; }

 private:
  std::string out_;
};

class Unpacker {
 public:
  explicit Unpacker(std::string_view in) : in_(in) {}
  template <typename T> T Get() {
    T value{};
    if (in_.size() >= sizeof value) {
      std::memcpy(&value, in_.data(), sizeof value);
      in_.remove_prefix(sizeof value);
    } else {
      Fail();
    }
    return value;
  }
  std::string GetString() {
    const uint64_t n = Get<uint64_t>();
    if (n > in_.size()) {
      Fail();
      return {};
    }
    std::string s(in_.substr(0, n));
    in_.remove_prefix(n);
    return s;
  }
  bool done() const { return in_.empty(); }
  size_t left() const { return in_.size(); }  // bytes not read yet
  bool bad() const { return bad_; }
  // What was read does not fit (a count larger than the bytes left): bad.
  void Fail() {
    bad_ = true;
    in_ = {};
  }

 private:
  std::string_view in_;
  bool bad_ = false;
};

// Each process's packed bytes taken out of `out` (left empty for the next
// round), their size added to `*bytes_sent`.
inline std::vector<std::string> TakeBytes(std::vector<Packer>& out, int64_t* bytes_sent) {
  std::vector<std::string> bytes(out.size());
  for (size_t p = 0; p < out.size(); ++p) {
    *bytes_sent += static_cast<int64_t>(out[p].bytes().size());
    bytes[p] = std::move(out[p].bytes());
    out[p].bytes().clear();
  }
  return bytes;
}

}  // namespace rp::dist

#endif  // RP_LIB_DIST_COMM_H_
