// rp-cat: concatenate, filter, validate, count and convert rp-trace streams.
#include "lib/cat/cat.h"
#include "lib/cli/tool.h"

int main(int argc, char** argv) {
  rp::cli::Tool tool("rp-cat", "Concatenate, filter, validate, count and convert rp-trace streams.");
  rp::cli::IoOptions io;
  rp::cat::Config options;
  tool.AddInputs(&io);
  tool.AddOutput(&io);
  auto& app = tool.app();
  app.add_flag("--validate", options.validate,
               "check every record and the stream as a whole; print problems or \"ok\"");
  app.add_flag("--count", options.count, "print the number of records of each type");
  app.add_flag("--summary", options.summary, "print MPI time per function and per rank");
  app.add_option("-t,--type", options.types, "keep only records of TYPE (repeatable; header kept)")
      ->type_name("TYPE")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->check(CLI::IsMember(rp::cat::TypeNames()));
  app.add_flag("--schema", options.schema, "print the rp-trace/1 record schema as Markdown");
  tool.SetFooter(
      "Reads: any rp-trace/1 stream. Writes: the same records, unchanged (the header\n"
      "of the first input opens the output; later inputs' headers are dropped).\n"
      "\n"
      "Examples:\n"
      "  rp-cat run.ndjson -o run.ndjson.zst        # compress\n"
      "  rp-cat --validate run.ndjson.zst           # check a stream, exit 2 on problems\n"
      "  rp-cat -t mpi run.ndjson.zst | jq -c 'select(.rank == 3)' | head\n"
      "  rp-cat --count run.ndjson.zst\n"
      "  rp-cat --summary run.ndjson.zst            # calls and MPI time per function, rank");
  return tool.Main(argc, argv, [&]() -> rp::Status {
    RP_ASSIGN_OR_RETURN(rp::cli::Streams streams, tool.OpenStreams());
    options.progress = streams.progress;
    return rp::cat::Run(options, *streams.input, *streams.output);
  });
}
