#include "lib/dist/judge.h"

#include <spdlog/spdlog.h>

#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace rp::dist {

static_assert(std::is_trivially_copyable_v<window::SyncParts>);

Expected<window::SyncParts> CommJudge::Judge(const window::SyncParts& mine) {
  ++calls_;
  return AllreduceValue(comm_, mine);
}

Status WarnAboutInputAcross(Comm& comm, const window::WindowReader& reader, bool speak, bool judged) {
  window::InputReport mine = reader.input_report();
  window::InputReport all;
  // Each kind of problem: its count, where its first was met, the first.
  struct Kind {
    int64_t window::InputReport::*count;
    window::InputReport::At window::InputReport::*at;
    int64_t window::InputReport::*rank;      // a rank as the first, or
    std::string window::InputReport::*text;  // a "rank R seq S"
  };
  const Kind kinds[] = {
      {&window::InputReport::given_up, &window::InputReport::first_given_up_at, &window::InputReport::first_given_up,
       nullptr},
      {&window::InputReport::late_ranks, &window::InputReport::first_late_rank_at,
       &window::InputReport::first_late_rank, nullptr},
      {&window::InputReport::beyond_count, &window::InputReport::first_beyond_count_at, nullptr,
       &window::InputReport::first_beyond_count},
      {&window::InputReport::ends_before_start, &window::InputReport::first_end_before_start_at, nullptr,
       &window::InputReport::first_end_before_start},
      {&window::InputReport::duplicate_seqs, &window::InputReport::first_duplicate_seq_at, nullptr,
       &window::InputReport::first_duplicate_seq},
  };
  Packer out;
  for (const Kind& k : kinds) {
    out.Put(mine.*k.count);
    out.Put(mine.*k.at);
    if (k.rank != nullptr) out.Put(mine.*k.rank);
    else out.PutString(mine.*k.text);
  }
  out.Put(mine.late_records);
  out.Put(mine.unclean_cuts);
  out.Put(mine.first_unclean_cut);
  RP_ASSIGN_OR_RETURN(std::vector<std::string> reports, comm.Allgather(out.bytes()));
  for (size_t p = 0; p < reports.size(); ++p) {
    Unpacker in(reports[p]);
    for (const Kind& k : kinds) {
      const int64_t count = in.Get<int64_t>();
      window::InputReport::At at = in.Get<window::InputReport::At>();
      if (!judged && at != window::InputReport::kNever) at[0] = 0;  // window numbers of its own
      int64_t rank = 0;
      std::string text;
      if (k.rank != nullptr) rank = in.Get<int64_t>();
      else text = in.GetString();
      if (count > 0 && (all.*k.count == 0 || at < all.*k.at)) {
        all.*k.at = at;
        if (k.rank != nullptr) all.*k.rank = rank;
        else all.*k.text = text;
      }
      all.*k.count += count;
    }
    all.late_records += in.Get<int64_t>();
    const int64_t cuts = in.Get<int64_t>(), first_cut = in.Get<int64_t>();
    if (judged) {
      // Windows are cut alike on every process: each counted every cut.
      if (cuts > all.unclean_cuts) all.unclean_cuts = cuts, all.first_unclean_cut = first_cut;
    } else {
      if (cuts > 0 && all.unclean_cuts == 0) all.first_unclean_cut = first_cut;
      all.unclean_cuts += cuts;
    }
    if (in.bad() || !in.done()) return InputError("process " + std::to_string(p) + " sent a damaged input report");
  }
  if (speak) {
    for (const std::string& warning : all.Warnings(reader.hold_limit())) spdlog::warn(warning);
  }
  return OkStatus();
}

}  // namespace rp::dist
