// gen-halo: writes a synthetic halo-exchange rp-trace stream (see halo.h),
// the input of the benchmarks.
//   gen-halo --ranks 64 --events 10000000 -o /tmp/halo.ndjson.zst
//   gen-halo --clock-offset 1000000 --clock-drift 10 --clock-error 500 -o local.ndjson
#include "lib/cli/tool.h"
#include "tests/synth/halo.h"

int main(int argc, char** argv) {
  rp::cli::Tool tool("gen-halo", "Write a synthetic halo-exchange rp-trace stream.");
  rp::cli::IoOptions io;
  rp::synth::HaloSpec spec;
  tool.AddOutput(&io);
  auto& app = tool.app();
  app.add_option("--ranks", spec.ranks, "ranks on the ring")->check(CLI::Range(2, 1 << 20));
  app.add_option("--events", spec.events, "approximate number of mpi records");
  app.add_option("--sync-every", spec.sync_every, "iterations between Allreduces")->check(CLI::PositiveNumber);
  app.add_option("--seed", spec.seed, "jitter seed");
  app.add_option("--slow-rank", spec.slow_rank, "rank that computes --slow-ns longer per iteration");
  app.add_option("--slow-ns", spec.slow_extra_ns, "extra compute of --slow-rank, ns");
  app.add_option("--clock-offset", spec.clock_offset_ns, "local clocks: largest offset of a rank's clock, ns")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--clock-drift", spec.clock_drift_ppm, "local clocks: largest drift of a rank's clock, ppm")
      ->check(CLI::Range(0.0, 1000.0));
  app.add_option("--sample-hz", spec.sample_hz, "wall-clock samples of each rank's computation per second")
      ->check(CLI::Range(0, 100000));
  app.add_option("--clock-error", spec.clock_error_ns, "largest error of a clock offset measurement, ns")
      ->check(CLI::NonNegativeNumber);
  return tool.Main(argc, argv, [&]() -> rp::Status {
    RP_ASSIGN_OR_RETURN(auto writer, rp::cli::OpenWriter(io));
    rp::Status status;
    rp::synth::GenerateHalo(spec, [&](const rp::trace::Record& rec) {
      if (status.ok()) {
        std::string line;
        rp::trace::EncodeRecord(rec, &line);
        status = writer->WriteText(line);
      }
    });
    RP_RETURN_IF_ERROR(status);
    return writer->Close();
  });
}
