#include "lib/recorder/online_answer.h"

#include <cstring>
#include <functional>
#include <map>
#include <limits>
#include <optional>

#include "collector/raw_format.h"
#include "lib/cpath/records.h"
#include "lib/online/path.h"
#include "lib/online/path_set.h"
#include "lib/profile/context_tree.h"
#include "lib/repr/path_profile.h"
#include "lib/repr/path_records.h"
#include "lib/online/scope.h"
#include "lib/window/event.h"
#include "lib/window/window.h"

namespace rp::recorder {
namespace {

struct Parsed {
  raw::OnlineFixed fixed;
  std::string_view path;
  std::vector<raw::OnlineSite> sites;
  std::vector<raw::OnlineFunction> functions;  // sampled, over all ranks
  // Calling contexts: key -> total over all ranks and the chain (the
  // function's address, then its callers' return addresses).
  struct Context {
    int64_t total = 0;
    std::vector<uint64_t> chain;
  };
  std::map<uint64_t, Context> contexts;
  // Representative paths, when kept (set_bytes > 0).
  std::optional<online::PathSet> set;
  std::vector<int32_t> positions;
};

bool Parse(std::string_view record, Parsed* out) {
  if (record.size() < sizeof(raw::OnlineFixed)) return false;
  std::memcpy(&out->fixed, record.data(), sizeof out->fixed);
  const raw::OnlineFixed& f = out->fixed;
  if (f.path_bytes < 0 || f.n_sites < 0 || f.n_functions < 0 || f.context_words < 0) return false;
  const size_t padded = raw::Align8(static_cast<uint32_t>(f.path_bytes));
  const size_t sites_at = sizeof f + padded, functions_at = sites_at + f.n_sites * sizeof(raw::OnlineSite);
  const size_t contexts_at = functions_at + f.n_functions * sizeof(raw::OnlineFunction);
  size_t at = contexts_at + static_cast<size_t>(f.context_words) * sizeof(uint64_t);
  if (record.size() < at) return false;
  std::vector<uint64_t> words(static_cast<size_t>(f.context_words));
  std::memcpy(words.data(), record.data() + contexts_at, words.size() * sizeof(uint64_t));
  for (size_t w = 0; w + 3 <= words.size();) {
    const uint64_t n = words[w + 2];
    if (n > words.size() - w - 3) return false;
    Parsed::Context& c = out->contexts[words[w]];
    c.total = static_cast<int64_t>(words[w + 1]);
    c.chain.assign(words.begin() + w + 3, words.begin() + w + 3 + n);
    w += 3 + n;
  }
  out->path = record.substr(sizeof f, f.path_bytes);
  out->sites.resize(f.n_sites);
  std::memcpy(out->sites.data(), record.data() + sites_at, f.n_sites * sizeof(raw::OnlineSite));
  out->functions.resize(f.n_functions);
  std::memcpy(out->functions.data(), record.data() + functions_at, f.n_functions * sizeof(raw::OnlineFunction));
  if (f.set_bytes <= 0) return true;
  if (f.set_k < repr::kMinPaths || f.set_k > repr::kMaxPaths) return false;
  const online::SetConfig config{.k = f.set_k,
                                 .intervals = std::numeric_limits<uint16_t>::max(),
                                 .select = f.set_topk ? repr::Select::kTopK : repr::Select::kRepr,
                                 .functions = std::numeric_limits<uint16_t>::max()};
  out->set.emplace(config);
  if (record.size() < at + f.set_bytes ||
      !online::PathSet::Decode({reinterpret_cast<const uint8_t*>(record.data() + at), size_t(f.set_bytes)}, config,
                               &*out->set)) {
    return false;
  }
  at += raw::Align8(static_cast<uint32_t>(f.set_bytes));
  const size_t n = out->set->paths().size();
  if (record.size() < at + n * sizeof(int32_t)) return false;
  out->positions.resize(n);
  std::memcpy(out->positions.data(), record.data() + at, n * sizeof(int32_t));
  return true;
}

// The record and its path.
bool Parse(std::string_view record, Parsed* out, online::Path* path) {
  int64_t t = 0;
  return Parse(record, out) &&
         online::Path::Decode({reinterpret_cast<const uint8_t*>(out->path.data()), out->path.size()}, path, &t);
}

// The kept paths' profiles by sampled function and their differences, as
// rp-repr writes them for the run (lib/repr's PathProfiles): each path's
// functions (its heaviest, the rest of its cost "?"). Functions only: the
// online paths keep no calling contexts. Nothing without samples.
Status WriteOnlineProfiles(const online::PathSet& set, const std::vector<int32_t>& positions, int total,
                           profile::ContextTree& tree, const std::function<int32_t(uint64_t)>& id,
                           trace::Writer& writer) {
  const online::SetConfig& c = set.config();
  bool any = false;
  for (const online::SetPath& path : set.paths()) any = any || !path.code.empty();
  if (!any) return OkStatus();
  repr::PathProfiles profiles(c.k, /*contexts=*/false);
  std::vector<profile::Share> shares;
  for (size_t j = 0; j < set.paths().size(); ++j) {
    const online::SetPath& path = set.paths()[j];
    shares.clear();
    int64_t named = 0;
    for (const online::FunctionCost& f : path.code) {
      const int32_t site = id(f.function);
      shares.push_back({site != window::kNone ? tree.Intern({site}) : profile::ContextTree::kRoot, f.ns});
      named += f.ns;
    }
    if (path.cost > named) shares.push_back({profile::ContextTree::kRoot, path.cost - named});
    repr::OwnerCosts code;
    code.Add(shares.data(), shares.data() + shares.size(), tree);
    code.Normalize();
    profiles.AddPath(repr::PathProfiles::kRun, repr::ProfileSlot(c.select, c.k, positions[j], total), code, path.cost);
  }
  std::vector<double> percentiles;
  for (int j = 0; j < c.k; ++j) percentiles.push_back(repr::NominalPercentile(j, c.k));
  return profiles.Write(tree, repr::DiffPairs(c.select, c.k), percentiles, /*with_profiles=*/true, writer);
}

// The computation by calling context (cp_profile scope "context"), as
// rp-cpath writes it: each context's chain interned in a calling context
// tree as a sample's stack is (its callers' return addresses with their
// inlined levels), the function itself as its leaf.
Status WriteOnlineContexts(const Parsed& p, const online::Path& path,
                           const std::unordered_map<uint64_t, std::pair<int64_t, int64_t>>& site_of,
                           profile::ContextTree& tree, const cpath::Scope& scope, cpath::RecordWriter& out) {
  std::unordered_map<uint64_t, int64_t> on_path;
  for (const online::ContextShare& c : path.contexts()) on_path[c.context] += c.ns;
  std::vector<cpath::RecordWriter::Charged> charged;
  std::vector<int64_t> stack;
  for (const auto& [key, context] : p.contexts) {
    stack.clear();
    for (size_t i = 0; i < context.chain.size(); ++i) {
      auto it = site_of.find(context.chain[i]);
      if (it == site_of.end()) continue;
      const auto [first, levels] = it->second;
      if (i == 0) {
        stack.push_back(first + levels - 1);  // the function itself, not what is inlined at its start
        continue;
      }
      for (int64_t level = 0; level < levels; ++level) stack.push_back(first + level);
    }
    if (stack.empty()) continue;
    const profile::ContextTree::Node& leaf = tree.node(tree.Intern(stack));
    const auto ns = on_path.find(key);
    charged.push_back({leaf.parent, leaf.function, ns != on_path.end() ? ns->second : 0, context.total});
  }
  return out.WriteContexts(scope, tree, charged);
}

}  // namespace

bool PartialOnline(std::string_view record, bool* partial, int64_t* length) {
  Parsed p;
  online::Path path;
  if (!Parse(record, &p, &path)) {
    return false;
  }
  *partial = p.fixed.h.fn == raw::kOnlinePartial;
  *length = path.length();
  return true;
}

bool OnlineAddresses(std::string_view record, std::vector<uint64_t>* addresses) {
  Parsed p;
  online::Path path;
  if (!Parse(record, &p, &path)) {
    return false;
  }
  for (const online::SiteShare& s : path.sites()) addresses->push_back(s.site);
  for (const raw::OnlineSite& s : p.sites) addresses->push_back(s.address);
  for (const online::FunctionShare& f : path.functions()) addresses->push_back(f.function);
  for (const raw::OnlineFunction& f : p.functions) addresses->push_back(f.address);
  for (const auto& [key, c] : p.contexts) addresses->insert(addresses->end(), c.chain.begin(), c.chain.end());
  if (p.set) {
    for (const online::SetPath& kept : p.set->paths()) {
      for (const online::FunctionCost& f : kept.code) addresses->push_back(f.function);
    }
  }
  return true;
}

Expected<OnlineCounts> WriteOnlineAnswer(std::string_view record, int world,
                                         const std::unordered_map<uint64_t, std::pair<int64_t, int64_t>>& site_of,
                                         const std::vector<trace::SiteRecord>& sites, trace::Writer& writer) {
  Parsed p;
  online::Path path;
  if (!Parse(record, &p, &path)) {
    return InputError("the online answer is malformed");
  }
  std::vector<online::SiteTotal> totals;
  totals.reserve(p.sites.size());
  for (const raw::OnlineSite& s : p.sites) totals.push_back({s.address, s.compute, s.mpi, s.calls, s.fn});
  auto id = [&](uint64_t address) -> int32_t {
    auto it = address != 0 ? site_of.find(address) : site_of.end();
    return it == site_of.end() ? window::kNone : static_cast<int32_t>(it->second.first);
  };
  const raw::OnlineFixed& f = p.fixed;
  cpath::Scope scope = online::ToScope(path, totals, id, f.start, f.end);
  if (world > 0) scope.Rank(world - 1);  // rank_share names every rank
  const bool sampled = !p.functions.empty() || !path.functions().empty();
  if (sampled) {
    using NamedBy = online::Path::NamedBy;
    scope.sampled = cpath::Scope::Sampled{p.fixed.samples, path.compute_named(NamedBy::kSamples),
                                          path.compute_named(NamedBy::kLastSample),
                                          path.compute_named(NamedBy::kCallSite)};
  }
  // Measured in MPI_Pcontrol regions: the application's time is their
  // spans added up.
  cpath::RecordWriter::Span span{f.start, f.end};
  if (f.regions > 1) {
    scope.regions = f.regions;
    span.end = f.start + f.measured;
  }

  cpath::Problems problems;
  problems.unmatched_receives = f.unpaired_receives;
  problems.unmatched_sends = f.unpaired_sends;
  problems.incomplete_ranks = world - f.ranks;
  if (f.unpaired_receives > 0) {
    problems.examples.push_back(std::to_string(f.unpaired_receives) +
                                " receives completed without their sender's path (freed or cancelled requests, "
                                "communicators the collector did not see created)");
  }
  if (f.unpaired_sends > 0) {
    problems.examples.push_back(std::to_string(f.unpaired_sends) + " paths sent were never received");
  }
  window::Dictionary dict;
  dict.ranks = world;
  dict.sites = sites;
  cpath::RecordWriter out(dict, writer);
  RP_RETURN_IF_ERROR(out.WriteScope(scope, window::kNone, span, "online", problems, false));
  // Sampled functions are named by their site records; one calling context
  // tree serves the contexts and the paths' profiles.
  const profile::Frames frames(sites);
  profile::ContextTree tree(frames);
  auto name = [&](uint64_t address) {
    const profile::Frame* frame = frames.Find(id(address));
    return frame != nullptr && !frame->fn.empty() ? frame->fn : std::string("?");
  };
  if (sampled) {
    // The computation by sampled function, on the path and over all ranks;
    // what the path kept of no function (its lightest, summed apart) is "?".
    std::map<std::string, std::pair<int64_t, int64_t>> computation;
    int64_t named = 0;
    for (const online::FunctionShare& f : path.functions()) computation[name(f.function)].first += f.ns, named += f.ns;
    if (path.compute() > named) computation["?"].first += path.compute() - named;
    for (const raw::OnlineFunction& f : p.functions) computation[name(f.address)].second += f.compute;
    RP_RETURN_IF_ERROR(out.WriteFunctions(scope, computation));
  }
  if (!p.contexts.empty()) RP_RETURN_IF_ERROR(WriteOnlineContexts(p, path, site_of, tree, scope, out));
  if (path.has_reductions()) {
    // The sites' what-ifs, then the sampled functions' (as rp-cpath writes
    // them for a trace with samples).
    std::vector<std::string> procedures;
    std::vector<uint64_t> functions;
    for (const raw::OnlineFunction& f : p.functions) functions.push_back(f.address);
    std::vector<graph::Zeroings::Result> results =
        online::ToZeroings(path, totals, id, functions, name, &procedures);
    RP_RETURN_IF_ERROR(out.WriteZeroings(scope, std::move(results), procedures));
  }
  if (p.set) {
    // The whole run's paths, as rp-repr writes them after its phases'.
    const online::SetConfig& c = p.set->config();
    const int kept = static_cast<int>(p.set->paths().size());
    for (int j = 0; j < kept; ++j) {
      const online::SetPath& path = p.set->paths()[j];
      RP_RETURN_IF_ERROR(repr::WritePath(
          {.order = j,
           .percentile = repr::Percentile(c.select, c.k, j, p.positions[j], f.set_total, kept),
           .cost = path.cost,
           .length = span.end - span.start},
          path.summary, writer));
    }
    RP_RETURN_IF_ERROR(WriteOnlineProfiles(*p.set, p.positions, f.set_total, tree, id, writer));
  }
  return OnlineCounts{f.ranks, f.unpaired_receives, f.unpaired_sends, f.skipped_calls, f.piggybacks,
                      f.piggyback_bytes};
}

}  // namespace rp::recorder
