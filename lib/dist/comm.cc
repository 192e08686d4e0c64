#include "lib/dist/comm.h"

namespace rp::dist {

Expected<std::vector<std::string>> Exchange(Comm& comm, std::string_view mine) {
  std::string sent(1, '\0');  // 0: ok, then the data; 1: failed, then the message
  sent.append(mine);
  RP_ASSIGN_OR_RETURN(std::vector<std::string> all, comm.Allgather(sent));
  for (size_t p = 0; p < all.size(); ++p) {
    if (all[p].empty() || all[p][0] != '\0') {
      const std::string why = all[p].empty() ? "sent nothing" : all[p].substr(1);
      return InputError("process " + std::to_string(p) + ": " + why);
    }
    all[p].erase(0, 1);
  }
  return all;
}

Status GatherError(Comm& comm, const Status& local) {
  std::string sent(1, local.ok() ? '\0' : '\1');
  if (!local.ok()) sent.append(local.message());
  RP_ASSIGN_OR_RETURN(std::vector<std::string> all, comm.Allgather(sent));
  for (size_t p = 0; p < all.size(); ++p) {
    if (!all[p].empty() && all[p][0] != '\0') return InputError("process " + std::to_string(p) + ": " + all[p].substr(1));
  }
  return InputError("a process failed and said nothing");
}

Status Fail(Comm& comm, const Status& error) {
  std::string sent(1, '\1');
  sent.append(error.message());
  (void)comm.Allgather(sent);
  return error;
}

}  // namespace rp::dist
