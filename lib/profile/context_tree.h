// One calling context tree for the whole run (representative paths paper
// §6): a node is a call site (function, file, line) in the full context of
// its callers, the root's children being the outermost frames. Every
// sample's stack interns a path from the root to its leaf; time is charged
// to the leaf's owner, the innermost application frame of the stack, so
// that a function spending its time in memcpy or nanosleep is the one
// named, with the library frames kept below it (frames.h says which are
// library frames).
//
//   ContextTree tree(frames);
//   int32_t leaf = tree.Intern(sample.stack);    // innermost first
//   tree.node(tree.node(leaf).owner).function    // the function named
#ifndef RP_LIB_PROFILE_CONTEXT_TREE_H_
#define RP_LIB_PROFILE_CONTEXT_TREE_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "lib/profile/frames.h"

namespace rp::profile {

class ContextTree {
 public:
  static constexpr int32_t kRoot = 0;  // no frame: an empty stack

  struct Node {
    int32_t parent = -1;
    int64_t site = -1;     // -1 for the root
    int32_t owner = kRoot;  // the node time here is charged to
    int32_t function = 0;  // index in functions(): this frame's function
    int32_t line = 0;      // index in lines(): this frame's function:file:line
    int32_t depth = 0;     // frames above it, the root's children 1
    bool library = false;
  };
  struct Line {
    int32_t function;
    std::string file;
    int64_t line;
  };

  explicit ContextTree(const Frames& frames);
  // Numbers the functions `sites` name in their order, before any stack
  // is interned: function ids then follow the trace's site records, not
  // the order samples come in (alike in every process of a parallel
  // stage, whichever ranks it reads).
  void NumberFunctions(const std::vector<trace::SiteRecord>& sites);

  // The leaf of the path `stack` (site ids, innermost first) interns.
  // Sites no site record defines are left out and counted.
  int32_t Intern(const std::vector<int64_t>& stack);
  // A context of one frame: the MPI call site that ends a computation, for
  // computation no sample explains.
  int32_t InternSite(int64_t site);

  const Node& node(int32_t id) const { return nodes_[id]; }
  size_t size() const { return nodes_.size(); }
  // Function names ("?" when the site record gives none); [0] is the root's.
  const std::vector<std::string>& functions() const { return functions_; }
  const std::vector<Line>& lines() const { return lines_; }
  const Frames& frames() const { return frames_; }
  // Sites of the call path to `id`, innermost first (the root excluded).
  std::vector<int64_t> Path(int32_t id) const;
  // The functions of that path, outermost first, then `function`: a
  // function in the calling context `id` (its caller's node) as reports
  // name it.
  std::vector<std::string> FunctionPath(int32_t id, int32_t function) const;
  int64_t undefined_frames() const { return undefined_frames_; }
  // Function id of a name, -1 when no node has it.
  int32_t FindFunction(const std::string& name) const;

 private:
  struct Key {
    int32_t parent;
    int64_t site;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<int64_t>()(k.site * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(k.parent));
    }
  };
  int32_t Child(int32_t parent, int64_t site, const Frame& frame, bool inlined);
  int32_t FunctionId(const std::string& name);

  const Frames& frames_;
  std::vector<Node> nodes_;
  std::unordered_map<Key, int32_t, KeyHash> children_;
  std::vector<std::string> functions_;
  std::unordered_map<std::string, int32_t> function_ids_;
  std::vector<Line> lines_;
  std::unordered_map<std::string, int32_t> line_ids_;
  int64_t undefined_frames_ = 0;
};

}  // namespace rp::profile

#endif  // RP_LIB_PROFILE_CONTEXT_TREE_H_
