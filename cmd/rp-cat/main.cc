// rp-cat: concatenate, filter, validate, count and convert rp-trace streams.
#include "lib/cat/cat.h"
#include "lib/cat/convert.h"
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
  std::string from = "rp";
  app.add_option("--from", from, "what the input is: an rp-trace stream, or an OTF2 archive (Score-P) "
                                 "given as its directory or traces.otf2")
      ->type_name("rp|otf2")
      ->check(CLI::IsMember({"rp", "otf2"}).description(""))
      ->default_str("rp");
  std::vector<std::string> to;
  auto* to_option =
      app.add_option("--to", to, "write the stream in another format instead: an OTF2 archive in directory PATH "
                                 "(Vampir, otf2-print), or a Perfetto trace in file PATH (ui.perfetto.dev)")
          ->expected(2)
          ->allow_extra_args(false)
          ->type_name("otf2|perfetto PATH")
          ->excludes("--from");
  rp::perfetto::ExportOptions window;
  app.add_option("--phase", window.phase, "--to perfetto: only phase N (rp-phases' phase ids)")
      ->type_name("N")
      ->check(CLI::Validator(CLI::NonNegativeNumber).description(">= 0"))
      ->default_str("every phase")
      ->needs(to_option);
  app.add_option("--begin", window.begin, "--to perfetto: only what overlaps [BEGIN, END] (ns)")
      ->type_name("NS")
      ->default_str("the start")
      ->needs(to_option)
      ->excludes("--phase");
  app.add_option("--end", window.end, "--to perfetto: see --begin")
      ->type_name("NS")
      ->default_str("the end")
      ->needs(to_option)
      ->excludes("--phase");
  int split = 0;
  app.add_option("--split", split,
                 "write the trace as N files of equal rank groups (OUTPUT's name with .partK) and an index at OUTPUT, "
                 "which every rp tool reads as the whole trace")
      ->type_name("N")
      ->check(rp::cli::Between(1, 1 << 20))
      ->excludes("--validate", "--count", "--summary", "--type", "--schema", "--from")
      ->excludes(to_option);
  tool.SetFooter(
      "Reads: any rp-trace/1 stream. Writes: the same records, unchanged (the header\n"
      "of the first input opens the output; later inputs' headers are dropped).\n"
      "\n"
      "Examples:\n"
      "  rp-cat run.ndjson -o run.ndjson.zst        # compress\n"
      "  rp-cat --validate run.ndjson.zst           # check a stream, exit 2 on problems\n"
      "  rp-cat -t mpi run.ndjson.zst | jq -c 'select(.rank == 3)' | head\n"
      "  rp-cat --count run.ndjson.zst\n"
      "  rp-cat --summary run.ndjson.zst            # calls and MPI time per function, rank\n"
      "  rp-cat --split 8 run.ndjson.zst -o split.ndjson.zst   # split.part0.ndjson.zst ... and the index\n"
      "  rp-cat --from otf2 scorep-run/ -o run.ndjson.zst   # a Score-P trace in\n"
      "  rp-cat --from otf2 scorep-run/traces.otf2 | rp-clocksync | rp-phases | rp-cpath\n"
      "  rp-clocksync run.ndjson.zst | rp-cat --to otf2 run-otf2/   # for Vampir, otf2-print\n"
      "  rp-clocksync run.ndjson.zst | rp-phases | rp-cpath | rp-cat --to perfetto run.pftrace\n"
      "  rp-cat --to perfetto it12.pftrace --phase 12 cp.ndjson.zst   # one phase; open at ui.perfetto.dev");
  return tool.Main(argc, argv, [&]() -> rp::Status {
    if (!to.empty()) {
      if (to[0] != "otf2" && to[0] != "perfetto") {
        return rp::InputError("--to: '" + to[0] + "' is not one of otf2, perfetto");
      }
      if (io.output != "-") return rp::InputError("--to writes to its PATH; -o is not used with it");
      if (to[0] == "otf2" && (window.phase >= 0 || window.begin != INT64_MIN || window.end != INT64_MAX)) {
        return rp::InputError("--phase, --begin and --end go with --to perfetto");
      }
      if (window.begin > window.end) return rp::InputError("--begin is after --end");
      RP_ASSIGN_OR_RETURN(rp::cli::Streams streams, tool.OpenStreams());
      if (to[0] == "perfetto") {
        window.read = streams.read;
        return rp::cat::ToPerfetto(*streams.input, io.inputs, to[1], window, io.force);
      }
      return rp::cat::ToOtf2(*streams.input, to[1], io.force);
    }
    if (from == "otf2") {
      if (io.inputs.size() != 1) return rp::InputError("--from otf2 reads one archive (its directory or traces.otf2)");
      RP_ASSIGN_OR_RETURN(auto out, rp::cli::OpenWriter(io, io.inputs));
      return rp::cat::FromOtf2(io.inputs[0], *out);
    }
    if (split > 0 && io.output == "-") return rp::InputError("--split writes files beside its index: give -o FILE");
    RP_ASSIGN_OR_RETURN(rp::cli::Streams streams, tool.OpenStreams());
    if (split > 0) {
      auto open_part = [&](const std::string& path) {
        rp::cli::IoOptions file = io;
        file.output = path;
        return rp::cli::OpenWriter(file);
      };
      return rp::cat::Split(split, io.output, open_part, *streams.input, *streams.output, streams.progress);
    }
    options.progress = streams.progress;
    return rp::cat::Run(options, *streams.input, *streams.output);
  });
}
