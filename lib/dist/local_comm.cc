#include "lib/dist/local_comm.h"

#include <barrier>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

namespace rp::dist {
namespace {

// What the threads share: one slot per thread and per peer, filled before
// a barrier and read after it, then a second barrier before reuse.
struct Shared {
  explicit Shared(int n) : size(n), sync(n), slots(n), matrix(n, std::vector<std::string>(n)) {}
  const int size;
  std::barrier<> sync;
  std::vector<std::string> slots;
  std::vector<std::vector<std::string>> matrix;  // [from][to]
};

class LocalComm : public Comm {
 public:
  LocalComm(Shared& shared, int rank) : s_(shared), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return s_.size; }

  Expected<std::vector<std::string>> Allgather(std::string_view mine) override {
    s_.slots[rank_] = std::string(mine);
    s_.sync.arrive_and_wait();
    std::vector<std::string> all = s_.slots;
    s_.sync.arrive_and_wait();
    return all;
  }

  Status Allreduce(std::string* inout, size_t slot_bytes, Combine combine) override {
    if (slot_bytes == 0 || inout->size() % slot_bytes != 0) return InputError("Allreduce: a partial slot");
    s_.slots[rank_] = *inout;
    s_.sync.arrive_and_wait();
    // Folded in process order on every thread: the same result everywhere.
    std::string result = s_.slots[0];
    for (int p = 1; p < s_.size; ++p) {
      if (s_.slots[p].size() != result.size()) return InputError("Allreduce: processes passed different sizes");
      combine(s_.slots[p].data(), result.data(), result.size() / slot_bytes);
    }
    s_.sync.arrive_and_wait();
    *inout = std::move(result);
    return OkStatus();
  }

  [[noreturn]] void Abort(int) override { std::abort(); }

  Expected<std::vector<std::string>> Alltoallv(const std::vector<std::string>& to) override {
    if (static_cast<int>(to.size()) != s_.size) return InputError("Alltoallv: one buffer per process");
    s_.matrix[rank_] = to;
    s_.sync.arrive_and_wait();
    std::vector<std::string> from(s_.size);
    for (int p = 0; p < s_.size; ++p) from[p] = s_.matrix[p][rank_];
    s_.sync.arrive_and_wait();
    return from;
  }

  Expected<std::vector<std::string>> ExchangeAndSum(const std::vector<std::string>& to,
                                                    std::vector<int64_t>* sums) override {
    RP_ASSIGN_OR_RETURN(std::vector<std::string> from, Alltoallv(to));
    std::string slots(sums->size() * sizeof(int64_t), '\0');
    if (!sums->empty()) std::memcpy(slots.data(), sums->data(), slots.size());
    RP_RETURN_IF_ERROR(Allreduce(&slots, sizeof(int64_t), &FoldSlots<Sum>));
    if (!sums->empty()) std::memcpy(sums->data(), slots.data(), slots.size());
    return from;
  }

 private:
  Shared& s_;
  const int rank_;
};

}  // namespace

void LocalGroup::Run(int processes, const std::function<void(Comm&)>& body) {
  Shared shared(processes);
  std::vector<std::thread> threads;
  for (int p = 0; p < processes; ++p) {
    threads.emplace_back([&shared, &body, p] {
      LocalComm comm(shared, p);
      body(comm);
    });
  }
  for (std::thread& t : threads) t.join();
}

}  // namespace rp::dist
