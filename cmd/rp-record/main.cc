// rp-record: trace an MPI job and merge its per-rank files into one stream.
#include "lib/cli/tool.h"
#include "lib/recorder/recorder.h"

int main(int argc, char** argv) {
  rp::cli::Tool tool("rp-record", "Record an MPI job's calls and samples into one rp-trace stream.");
  rp::cli::IoOptions io;
  rp::recorder::Config options;
  io.output = options.output;
  tool.AddOutput(&io);
  auto& app = tool.app();
  app.get_option("--output")->description("the trace, or with --online the critical path (- for stdout)")->default_str(options.output);
  app.add_option("--merge", options.merge_dir,
                 "only merge the rank files in DIR (left by a job script, srun, or a crash)")
      ->type_name("DIR");
  app.add_option("--dir", options.raw_dir,
                 "where ranks write their files (default OUTPUT.raw; must be writable from every node)")
      ->type_name("DIR");
  app.add_flag("--keep", options.keep, "keep the per-rank files after merging");
  app.add_option("--sample-hz", options.sample_hz, "wall-clock stack samples per second and rank; 0 turns sampling off")
      ->type_name("HZ")
      ->check(rp::cli::Between(0, 10000));
  app.add_option("--buffer-kb", options.buffer_kb, "per-rank buffer written at once (a killed rank loses at most this)")
      ->type_name("KB")
      ->check(rp::cli::Between(16, 1 << 20));
  app.add_flag("--no-sites", [&](int64_t) { options.sites = false; }, "do not record call-site addresses");
  app.add_flag("--no-shared-clock", [&](int64_t) { options.shared_clock = false; },
               "measure every rank's clock offset, even of ranks on one host and boot (for clocks faked per "
               "process, or time namespaces)");
  app.add_flag("--online", options.online,
               "compute the critical path inside the run and write it (cp_summary, cp_profile) instead of a "
               "trace: the output does not grow with the run's length");
  app.add_option("--trace", options.trace_output, "with --online: trace the run too, into FILE")
      ->type_name("FILE");
  app.add_option("--online-paths", options.online_paths,
                 "with --online: keep K representative paths of the run too (path, path_interval records, as "
                 "rp-repr -k K writes for the run)")
      ->type_name("K")
      ->check(rp::cli::Between(2, 16))
      ->default_str("none");
  std::string select = "repr";
  app.add_option("--select", select,
                 "with --online-paths: the paths at uniformly spaced percentiles of cost (repr) or the K/2 most "
                 "and least costly (topk)")
      ->type_name("HOW")
      ->check(CLI::IsMember({"repr", "topk"}))
      ->default_str("repr");
  app.add_flag("--online-zeroing", options.online_zeroing,
               "with --online: critical path zeroing too (cp_zeroing: how much shorter the path would be if the "
               "computation before, or the calls at, each call site it keeps took no time)");
  app.add_option("--split", options.split,
                 "write the trace as N files of contiguous rank groups (OUTPUT's name with .partK) and an index "
                 "at OUTPUT; every rp tool reads the index as the whole trace")
      ->type_name("N")
      ->check(rp::cli::Between(1, 1 << 20))
      ->default_str("one file");
  app.add_option("--collector", options.collector, "librpcollect.so to preload (default: installed with rp-record)")
      ->type_name("PATH");
  app.add_option("command", options.command, "the launch command, after --")->type_name("COMMAND");
  tool.SetFooter(
      "Writes: header, rank, comm, site, clock, then mpi and sample records in time order.\n"
      "The job's ranks write DIR/rank-<R>.rpraw while they run; rp-record merges them\n"
      "when the command ends. Without a wrappable launcher, preload the collector in the\n"
      "job script (LD_PRELOAD=.../librpcollect.so RP_DIR=DIR) and run rp-record --merge DIR.\n"
      "\n"
      "Examples:\n"
      "  rp-record -o run.ndjson.zst -- mpirun -np 8 ./app input.dat\n"
      "  rp-record --merge /scratch/job42/rp-raw -o run.ndjson.zst && rp-cat --count run.ndjson.zst\n"
      "  rp-record --split 16 -o run.ndjson.zst -- mpirun -np 4096 ./app   # run.part00.ndjson.zst ...\n"
      "  rp-record --online -o cp.ndjson -- mpirun -np 512 ./app && rp-report cp.ndjson\n"
      "  rp-record --online --trace run.ndjson.zst -o cp.ndjson -- mpirun -np 8 ./app\n"
      "  rp-record --online --online-zeroing -o cp.ndjson -- mpirun -np 64 ./app && rp-cat -t cp_zeroing cp.ndjson\n"
      "  rp-record --online --online-paths 5 -o cp.ndjson -- mpirun -np 64 ./app && rp-cat -t path cp.ndjson");
  return tool.Main(argc, argv, [&]() -> rp::Status {
    options.output = io.output;
    if (!options.trace_output.empty() && !options.online) {
      return rp::InputError("--trace goes with --online (without it, -o is the trace)");
    }
    if (options.online_paths > 0 && !options.online) {
      return rp::InputError("--online-paths goes with --online");
    }
    if (options.online_zeroing && !options.online) {
      return rp::InputError("--online-zeroing goes with --online");
    }
    options.online_topk = select == "topk";
    return rp::recorder::Run(options, [&](const std::string& path, const std::vector<std::string>& raw_files) {
      rp::cli::IoOptions file = io;
      file.output = path;
      return rp::cli::OpenWriter(file, raw_files);
    });
  });
}
