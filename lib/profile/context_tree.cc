#include "lib/profile/context_tree.h"

#include <algorithm>

namespace rp::profile {

ContextTree::ContextTree(const Frames& frames) : frames_(frames) {
  nodes_.emplace_back();  // the root
  FunctionId("?");
  lines_.push_back({0, "", 0});
}

void ContextTree::NumberFunctions(const std::vector<trace::SiteRecord>& sites) {
  for (const trace::SiteRecord& s : sites) FunctionId(s.has_fn() && !s.fn.empty() ? s.fn : "?");
}

int32_t ContextTree::FunctionId(const std::string& name) {
  auto [it, inserted] = function_ids_.emplace(name, static_cast<int32_t>(functions_.size()));
  if (inserted) functions_.push_back(name);
  return it->second;
}

int32_t ContextTree::FindFunction(const std::string& name) const {
  auto it = function_ids_.find(name);
  return it != function_ids_.end() ? it->second : -1;
}

int32_t ContextTree::Child(int32_t parent, int64_t site, const Frame& frame, bool inlined) {
  auto [it, inserted] = children_.emplace(Key{parent, site}, static_cast<int32_t>(nodes_.size()));
  if (!inserted) return it->second;
  Node n;
  n.parent = parent;
  n.site = site;
  n.depth = nodes_[parent].depth + 1;
  n.function = FunctionId(frame.fn.empty() ? "?" : frame.fn);
  const std::string key = std::to_string(n.function) + '\0' + frame.file + '\0' + std::to_string(frame.line);
  auto [line, fresh] = line_ids_.emplace(key, static_cast<int32_t>(lines_.size()));
  if (fresh) lines_.push_back({n.function, frame.file, frame.line});
  n.line = line->second;
  n.library = frame.system_module || (inlined && IsSystemSource(frame.file));
  // Library frames are charged to the innermost application frame above
  // them; a stack of library frames only, to its innermost frame.
  const int32_t above = nodes_[parent].owner;
  n.owner = n.library && above != kRoot && !nodes_[above].library ? above : static_cast<int32_t>(nodes_.size());
  nodes_.push_back(n);
  return it->second;
}

int32_t ContextTree::Intern(const std::vector<int64_t>& stack) {
  int32_t node = kRoot;
  for (size_t i = stack.size(); i-- > 0;) {
    const Frame* frame = frames_.Find(stack[i]);
    if (frame == nullptr) {
      ++undefined_frames_;
      continue;
    }
    const bool inlined = i + 1 < stack.size() && frames_.InlinedInto(stack[i], stack[i + 1]);
    node = Child(node, stack[i], *frame, inlined);
  }
  return node;
}

int32_t ContextTree::InternSite(int64_t site) {
  const Frame* frame = frames_.Find(site);
  if (frame == nullptr) return kRoot;
  return Child(kRoot, site, *frame, false);
}

std::vector<int64_t> ContextTree::Path(int32_t id) const {
  std::vector<int64_t> out;
  for (; id != kRoot && id >= 0; id = nodes_[id].parent) out.push_back(nodes_[id].site);
  return out;
}

std::vector<std::string> ContextTree::FunctionPath(int32_t id, int32_t function) const {
  std::vector<std::string> out;
  for (; id != kRoot && id >= 0; id = nodes_[id].parent) out.push_back(functions_[nodes_[id].function]);
  std::reverse(out.begin(), out.end());
  out.push_back(functions_[function]);
  return out;
}

}  // namespace rp::profile
