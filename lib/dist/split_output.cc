#include "lib/dist/split_output.h"

#include <algorithm>
#include <vector>

namespace rp::dist {

Status SplitOutput::Open(std::string_view prelude, bool part) {
  parts_ = true;
  if (part) {
    RP_ASSIGN_OR_RETURN(part_, files_.open(trace::PartPath(files_.path, comm_.rank(), comm_.size())));
    RP_RETURN_IF_ERROR(part_->WriteRaw(prelude.substr(0, prelude.find('\n'))));
  }
  if (comm_.rank() == 0) {
    RP_ASSIGN_OR_RETURN(index_, files_.open(files_.path));
    RP_RETURN_IF_ERROR(index_->WriteText(prelude));
  }
  return OkStatus();
}

Status SplitOutput::OpenStream(std::string_view prelude) {
  parts_ = false;
  if (comm_.rank() != 0) return OkStatus();
  RP_ASSIGN_OR_RETURN(index_, files_.open(files_.path));
  return index_->WriteText(prelude);
}

Status SplitOutput::WriteLine(std::string_view line, int64_t time) {
  RP_RETURN_IF_ERROR(part_->WriteRaw(line));
  ++records_;
  if (time != INT64_MIN) t0_ = std::min(t0_, time), t1_ = std::max(t1_, time);
  return OkStatus();
}

void SplitOutput::Count(int64_t records, int64_t t0, int64_t t1) {
  records_ += records;
  t0_ = std::min(t0_, t0);
  t1_ = std::max(t1_, t1);
}

Status SplitOutput::Close(int64_t first_rank, int64_t last_rank) {
  if (part_) RP_RETURN_IF_ERROR(part_->Close());
  if (!parts_) return index_ ? index_->Close() : OkStatus();
  Packer out;
  for (int64_t v : {first_rank, last_rank, records_, t0_, t1_}) out.Put(v);
  RP_ASSIGN_OR_RETURN(std::vector<std::string> all, comm_.Allgather(out.bytes()));
  if (comm_.rank() != 0) return OkStatus();
  for (int process = 0; process < comm_.size(); ++process) {
    Unpacker in(all[process]);
    trace::RankGroup ranks;
    ranks.first = in.Get<int64_t>();
    ranks.last = in.Get<int64_t>();
    const int64_t records = in.Get<int64_t>(), t0 = in.Get<int64_t>(), t1 = in.Get<int64_t>();
    if (in.bad()) return InputError("process " + std::to_string(process) + " sent a damaged part count");
    if (ranks.last < ranks.first) continue;  // a process without parts
    RP_RETURN_IF_ERROR(
        index_->Write(trace::PartRecordOf(trace::PartPath(files_.path, process, comm_.size()), ranks, records, t0, t1)));
  }
  return index_->Close();
}

}  // namespace rp::dist
