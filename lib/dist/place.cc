#include "lib/dist/place.h"

#include "lib/trace/reader.h"

namespace rp::dist {

Expected<Place> Placer::Of(std::string_view line, int process) {
  RP_RETURN_IF_ERROR(decoder_.DecodeCopy(line, &record_));
  trace::Reader::OrderKey key;
  trace::Reader::OrderKeyOf(record_, &key);
  return Place{key.phase, key.time, key.rank, process};
}

}  // namespace rp::dist
