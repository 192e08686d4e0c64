// rp-diagnose: findings with severity, cause and remedy.
#include "cmd/rp-diagnose/options.h"
#include "lib/cli/tool.h"
#include "lib/diagnose/compare.h"
#include "lib/diagnose/diagnose.h"
#include "lib/report/format_option.h"

int main(int argc, char** argv) {
  rp::cli::Tool tool("rp-diagnose",
                     "Diagnose why a run is slow: the problems that cost it time, most severe first, each with "
                     "where the time is lost, what causes it and what to do; and the run's POP efficiencies.");
  rp::cli::IoOptions io;
  rp::diagnose::Config config;
  tool.AddInputs(&io);
  tool.AddHold(&io);
  tool.AddOutput(&io);
  CLI::App& app = tool.app();
  rp::diagnose::DiagnoseOptions options(app, &config);
  bool no_passthrough = false;
  app.add_flag("--no-passthrough", no_passthrough, "write only the diagnosis records, not the input's");
  bool compare = false;
  app.add_flag("--compare", compare,
               "compare two runs, A B (rp-diagnose's output or traces to diagnose): each finding resolved, "
               "improved, unchanged, regressed or new; the efficiencies side by side");
  double band_percent = 1;
  app.add_option("--band", band_percent, "--compare: severity changes within this many % of run time are noise")
      ->type_name("PERCENT")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  rp::report::FormatOption format(tool);
  tool.SetFooter(
      "Reads: rp-trace/1, after rp-clocksync and rp-phases (and rp-cpath: its records are used,\n"
      "else the critical path is computed here).\n"
      "Writes: the input records, then efficiency records (POP's load balance, communication,\n"
      "serialisation, transfer and parallel efficiencies; the run's, then each phase cluster's),\n"
      "finding records, most severe first: category, severity (the share of run time the fix\n"
      "would save, a what-if on the graph where one applies), the MPI call and site where the\n"
      "time is lost, the causing functions and ranks, the numbers behind it and a remedy; and\n"
      "timeline records of a representative phase (for --format html).\n"
      "Categories: load_imbalance, serialisation, mpmd_imbalance; Scalasca's wait states\n"
      "late_sender, wrong_order, late_receiver, wait_nxn, wait_barrier, late_broadcast,\n"
      "early_reduce, early_scan (with delay costs); frequent_communication, polling,\n"
      "large_messages, io, serial_io; communication_on_path, critical_computation,\n"
      "off_path_hotspot.\n"
      "\n"
      "Examples:\n"
      "  rp-clocksync run.ndjson.zst | rp-phases | rp-diagnose --format text\n"
      "  rp-diagnose --no-passthrough phased.ndjson.zst | rp-cat -t finding | jq -c '{category, severity}'\n"
      "  rp-diagnose --compare --format text before.diag.ndjson after.diag.ndjson\n"
      "  rp-clocksync run.ndjson.zst | rp-phases | rp-diagnose --format html -o report.html\n"
      "\n"
      "--compare writes finding_change records (matched by category, phase cluster, MPI call,\n"
      "function, file and line), then both runs' efficiency records marked run \"a\" and \"b\".");
  return tool.Main(argc, argv, [&]() -> rp::Status {
    options.Finish();
    config.passthrough = !no_passthrough;
    if (compare) {
      if (io.inputs.size() != 2 || io.inputs[0] == "-" || io.inputs[1] == "-") {
        return rp::InputError("--compare takes two files, run A and run B (not stdin)");
      }
      RP_ASSIGN_OR_RETURN(std::unique_ptr<rp::trace::Writer> out, rp::cli::OpenWriter(io, io.inputs));
      rp::trace::ReaderOptions reader;
      reader.lenient = io.lenient;
      rp::trace::InputSet a({io.inputs[0]}, reader), b({io.inputs[1]}, reader);
      rp::diagnose::CompareConfig compare_config{config, band_percent / 100};
      return format.Run(*out, [&](rp::trace::Writer& records) {
        return rp::diagnose::Compare(compare_config, a, b, records);
      });
    }
    RP_ASSIGN_OR_RETURN(rp::cli::Streams streams, tool.OpenStreams());
    config.read = streams.read;
    // A report renders the stage's own records: the input's are not needed.
    if (!format.records()) config.passthrough = false;
    return format.Run(*streams.output, [&](rp::trace::Writer& records) {
      return rp::diagnose::Run(config, *streams.input, records);
    });
  });
}
