#include "lib/diagnose/compare.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "lib/base/version.h"
#include "lib/trace/record_sink.h"

namespace rp::diagnose {
namespace {

struct Diagnosis {
  std::vector<trace::FindingRecord> findings;
  std::vector<trace::EfficiencyRecord> efficiencies;
};

void Keep(const trace::Record& r, Diagnosis* d) {
  if (r.type == trace::RecordType::kFinding) d->findings.push_back(r.finding);
  if (r.type == trace::RecordType::kEfficiency) d->efficiencies.push_back(r.efficiency);
}

Expected<Diagnosis> Load(const Config& config, trace::InputSet& input) {
  Diagnosis d;
  trace::Record record;
  RP_ASSIGN_OR_RETURN(bool any, input.Next(&record));
  if (!any) return InputError(input.where() + ": empty stream");
  bool diagnosed = false;
  if (record.type == trace::RecordType::kHeader) {
    for (const std::string& p : record.header.producer) diagnosed |= p.starts_with("rp-diagnose");
  }
  if (diagnosed) {
    for (;;) {
      RP_ASSIGN_OR_RETURN(bool more, input.Next(&record));
      if (!more) break;
      Keep(record, &d);
    }
    if (d.efficiencies.empty()) {
      return InputError(input.where() + ": written by rp-diagnose but holds no efficiency records (cut short?)");
    }
    return d;
  }
  input.Rewind();
  Config quiet = config;
  quiet.passthrough = false;
  trace::Writer writer(trace::RecordSink(input.where(), [&d](const trace::Record& r) { Keep(r, &d); }));
  RP_RETURN_IF_ERROR(Run(quiet, input, writer));  // closes the writer
  return d;
}

// An MPMD group by its ranks, sorted.
using Key = std::tuple<std::string, int64_t, std::string, std::string, std::string, int64_t, std::vector<int64_t>>;
// Decoded records keep the values of absent fields from the record before:
// only fields present count.
Key KeyOf(const trace::FindingRecord& f) {
  std::vector<int64_t> group = f.has_group() ? f.group : std::vector<int64_t>{};
  std::sort(group.begin(), group.end());
  return {f.category, f.has_cluster() ? f.cluster : -1, f.has_call() ? f.call : "", f.has_fn() ? f.fn : "",
          f.has_file() ? f.file : "", f.has_line() ? f.line : -1, group};
}

}  // namespace

Status Compare(const CompareConfig& config, trace::InputSet& a, trace::InputSet& b, trace::Writer& out) {
  RP_ASSIGN_OR_RETURN(Diagnosis da, Load(config.diagnose, a));
  RP_ASSIGN_OR_RETURN(Diagnosis db, Load(config.diagnose, b));
  trace::HeaderRecord header;
  header.set_schema("rp-trace/1");
  header.set_producer({std::string("rp-diagnose ") + kVersion + " --compare"});
  RP_RETURN_IF_ERROR(out.Write(header));
  struct Pair {
    const trace::FindingRecord* a = nullptr;
    const trace::FindingRecord* b = nullptr;
  };
  // A run reports a site once per category and cluster; a second finding
  // with the same key (not written by rp-diagnose) pairs with nothing.
  std::map<Key, Pair> pairs;
  std::vector<const trace::FindingRecord*> extra_a, extra_b;
  for (const trace::FindingRecord& f : da.findings) {
    Pair& p = pairs[KeyOf(f)];
    (p.a ? extra_a.push_back(&f) : void(p.a = &f));
  }
  for (const trace::FindingRecord& f : db.findings) {
    Pair& p = pairs[KeyOf(f)];
    (p.b ? extra_b.push_back(&f) : void(p.b = &f));
  }
  std::vector<trace::FindingChangeRecord> changes;
  auto change = [&](const trace::FindingRecord* fa, const trace::FindingRecord* fb) {
    const trace::FindingRecord& f = fa ? *fa : *fb;
    trace::FindingChangeRecord c;
    c.set_category(f.category);
    if (f.has_cluster()) c.set_cluster(f.cluster);
    if (f.has_call()) c.set_call(f.call);
    if (f.has_fn()) c.set_fn(f.fn);
    if (f.has_file()) c.set_file(f.file);
    if (f.has_line()) c.set_line(f.line);
    if (f.has_group()) c.set_group(f.group);
    if (fa) c.set_severity_a(fa->severity), c.set_saved_a(fa->saved);
    if (fb) c.set_severity_b(fb->severity), c.set_saved_b(fb->saved);
    c.set_band(config.band);
    if (fa && fb) {
      const double d = fb->severity - fa->severity;
      c.set_delta(d);
      c.set_status(d < -config.band ? "improved" : d > config.band ? "regressed" : "unchanged");
    } else {
      c.set_status(fa ? "resolved" : "new");
    }
    changes.push_back(c);
  };
  for (const auto& [key, p] : pairs) change(p.a, p.b);
  for (const auto* f : extra_a) change(f, nullptr);
  for (const auto* f : extra_b) change(nullptr, f);
  // The largest severity in either run first; ties by key, so that the
  // output does not depend on the input's order.
  auto most = [](const trace::FindingChangeRecord& c) {
    return std::max(c.has_severity_a() ? c.severity_a : 0.0, c.has_severity_b() ? c.severity_b : 0.0);
  };
  std::stable_sort(changes.begin(), changes.end(),
                   [&](const auto& x, const auto& y) { return most(x) > most(y); });
  for (const trace::FindingChangeRecord& c : changes) RP_RETURN_IF_ERROR(out.Write(c));
  for (trace::EfficiencyRecord e : da.efficiencies) {
    e.set_run("a");
    RP_RETURN_IF_ERROR(out.Write(e));
  }
  for (trace::EfficiencyRecord e : db.efficiencies) {
    e.set_run("b");
    RP_RETURN_IF_ERROR(out.Write(e));
  }
  return out.Close();
}

}  // namespace rp::diagnose
