#include "lib/cli/split_io.h"

#include <string>

namespace rp::cli {

Expected<SplitIo> OpenSplitIo(std::string_view stage, const IoOptions& io, bool one_stream, std::string_view hint) {
  const std::string name(stage);
  if (io.output == "-" && !one_stream) {
    return InputError(name + " writes a split trace: give -o FILE" + std::string(hint));
  }
  if (io.inputs.size() != 1 || io.inputs[0] == "-") {
    return InputError(name + " reads one split trace, its index given by name (every process opens it)");
  }
  trace::ReaderOptions reader;
  reader.lenient = io.lenient;
  SplitIo split;
  split.input = std::make_unique<trace::InputSet>(io.inputs, reader);
  split.output.path = io.output;
  split.output.open = [io](const std::string& path) {
    IoOptions file = io;
    file.output = path;
    return OpenWriter(file, io.inputs);
  };
  return split;
}

}  // namespace rp::cli
