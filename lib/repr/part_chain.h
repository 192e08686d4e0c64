// The tasks kept paths had in earlier windows, as parts shared by the
// paths that went through them (rp-repr's Track, and rp-repr-mpi's with
// each process's portion of a part): a part continues the part before it
// and is held by the heads (each rank's kept paths) and later parts that
// lead to it; freed when none does. A part only one later part leads to
// is folded into it, so a chain holds one part per branch of the kept
// paths, not one per window: memory follows the kept paths, not the run.
//
//   PartChain<Tasks> chain;                  // Tasks::Add(later) appends a later stretch
//   int32_t id = chain.New(prev, tasks);     // retains prev
//   chain.Retain(id); ... chain.Release(id);
//   chain.Fold(id);
#ifndef RP_LIB_REPR_PART_CHAIN_H_
#define RP_LIB_REPR_PART_CHAIN_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "lib/base/free_slots.h"

namespace rp::repr {

template <typename Content>
class PartChain {
 public:
  // A part continuing `prev` (-1: none), held by no one yet.
  int32_t New(int32_t prev, Content content) {
    Retain(prev);
    const int32_t id = TakeSlot(&parts_, &free_);
    parts_[id] = Part{prev, 0, std::move(content)};
    return id;
  }
  void Retain(int32_t id) {
    if (id >= 0) ++parts_[id].refs;
  }
  // Frees the part when no one holds it, and so on back.
  void Release(int32_t id) {
    while (id >= 0 && --parts_[id].refs == 0) {
      const int32_t prev = parts_[id].prev;
      parts_[id] = Part{};
      free_.push_back(id);
      id = prev;
    }
  }
  // The parts before `id` that lead to it alone, folded into it.
  void Fold(int32_t id) {
    Part& part = parts_[id];
    while (part.prev >= 0 && parts_[part.prev].refs == 1) {
      Part& prev = parts_[part.prev];
      prev.content.Add(part.content);
      part.content = std::move(prev.content);
      const int32_t gone = part.prev;
      part.prev = prev.prev;  // its reference passes to `part`
      prev = Part{};
      free_.push_back(gone);
    }
  }
  // Heads (by rank, a part each of its kept paths) become `next`, which
  // has retained its parts: the old ones are released, the new folded.
  void ReplaceHeads(std::vector<std::vector<int32_t>>* heads, std::vector<std::vector<int32_t>> next) {
    for (const auto& rank : *heads) {
      for (int32_t h : rank) Release(h);
    }
    *heads = std::move(next);
    for (const auto& rank : *heads) {
      for (int32_t h : rank) Fold(h);
    }
  }
  int32_t prev(int32_t id) const { return parts_[id].prev; }
  const Content& content(int32_t id) const { return parts_[id].content; }
  // fn(content) of every part held.
  template <typename F>
  void ForEachHeld(F&& fn) const {
    for (const Part& p : parts_) {
      if (p.refs > 0) fn(p.content);
    }
  }

 private:
  struct Part {
    int32_t prev = -1;
    int32_t refs = 0;
    Content content;
  };
  std::vector<Part> parts_;
  std::vector<int32_t> free_;
};

}  // namespace rp::repr

#endif  // RP_LIB_REPR_PART_CHAIN_H_
