// Read and write throughput of lib/trace on a generated 10-million-record
// halo-exchange stream (tests/synth/halo.h), plain NDJSON and zstd, 1 core.
//   make bench     (or bazel run -c opt //tests/bench:trace_bench)
// Counters: records/s, MB/s (uncompressed NDJSON), bytes/record on disk.
#include <benchmark/benchmark.h>
#include <sys/stat.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "lib/trace/codec.h"
#include "lib/trace/edit.h"
#include "lib/trace/reader.h"
#include "lib/trace/writer.h"
#include "tests/synth/halo.h"

namespace rp {
namespace {

int64_t Records() {
  const char* env = std::getenv("RP_BENCH_RECORDS");
  return env ? std::atoll(env) : 10'000'000;
}

std::string Dir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = std::string(tmp ? tmp : "/tmp") + "/rp-trace-bench";
  ::mkdir(dir.c_str(), 0755);
  return dir;
}

uint64_t FileSize(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_size : 0;
}

// The halo stream written once, plain and zstd, and its first 100k mpi
// records kept in memory as the write benchmarks' input.
struct Corpus {
  std::string plain = Dir() + "/halo.ndjson";
  std::string zstd = Dir() + "/halo.ndjson.zst";
  int64_t records = 0;
  int64_t mpi_records = 0;
  uint64_t plain_bytes = 0;
  std::vector<trace::MpiRecord> slice;

  Corpus() {
    trace::OutputOptions plain_options, zstd_options;
    zstd_options.zstd = true;
    auto p = trace::Writer::Open(plain, plain_options);
    auto z = trace::Writer::Open(zstd, zstd_options);
    if (!p.ok() || !z.ok()) std::abort();
    synth::HaloSpec spec;
    spec.events = Records();
    synth::GenerateHalo(spec, [&](const trace::Record& rec) {
      std::string line;
      trace::EncodeRecord(rec, &line);
      (void)(*p)->WriteText(line);
      (void)(*z)->WriteText(line);
      ++records;
      if (rec.type == trace::RecordType::kMpi) {
        ++mpi_records;
        if (slice.size() < 100'000) slice.push_back(rec.mpi);
      }
    });
    if (!(*p)->Close().ok() || !(*z)->Close().ok()) std::abort();
    plain_bytes = FileSize(plain);
  }
};

Corpus& TheCorpus() {
  static Corpus corpus;
  return corpus;
}

void Read(benchmark::State& state, bool zstd) {
  Corpus& corpus = TheCorpus();
  const std::string& path = zstd ? corpus.zstd : corpus.plain;
  int64_t n = 0;
  for (auto _ : state) {
    auto reader = trace::Reader::Open(path);
    if (!reader.ok()) state.SkipWithError(reader.status().message().c_str());
    trace::Record record;
    n = 0;
    int64_t ranks = 0;
    for (;;) {
      auto more = (*reader)->Next(&record);
      if (!more.ok()) {
        state.SkipWithError(more.status().message().c_str());
        break;
      }
      if (!*more) break;
      ranks += record.type == trace::RecordType::kMpi ? record.mpi.rank : 0;
      ++n;
    }
    benchmark::DoNotOptimize(ranks);
  }
  state.counters["records"] = n;
  state.counters["records/s"] = benchmark::Counter(n, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["MB/s"] =
      benchmark::Counter(corpus.plain_bytes / 1e6, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["file_bytes/record"] = static_cast<double>(FileSize(path)) / n;
}

// Encodes and writes Records() mpi records (the in-memory slice repeated
// with shifted times) to a file.
void Write(benchmark::State& state, bool zstd) {
  Corpus& corpus = TheCorpus();
  const std::string path = Dir() + (zstd ? "/out.ndjson.zst" : "/out.ndjson");
  const int64_t total = corpus.mpi_records;
  uint64_t bytes = 0;
  for (auto _ : state) {
    trace::OutputOptions options;
    options.zstd = zstd;
    auto writer = trace::Writer::Open(path, options);
    if (!writer.ok()) state.SkipWithError(writer.status().message().c_str());
    std::vector<trace::MpiRecord> slice = corpus.slice;
    const int64_t span = slice.back().t1 - slice.front().t0;
    for (int64_t i = 0; i < total;) {
      for (trace::MpiRecord& m : slice) {
        if (i++ == total) break;
        if (!(*writer)->Write(m).ok()) state.SkipWithError("write failed");
      }
      for (trace::MpiRecord& m : slice) {
        m.t0 += span;
        m.t1 += span;
        m.seq += static_cast<int64_t>(slice.size());
      }
    }
    bytes = (*writer)->bytes_written();
    if (!(*writer)->Close().ok()) state.SkipWithError("close failed");
  }
  state.counters["records"] = total;
  state.counters["records/s"] = benchmark::Counter(total, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["MB/s"] = benchmark::Counter(bytes / 1e6, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["file_bytes/record"] = static_cast<double>(FileSize(path)) / total;
}

// Decodes the slice's lines in memory with one decoder path: the cost of
// JSON alone, without file, zstd or line splitting.
void Decode(benchmark::State& state, trace::LineDecoder::Path path) {
  Corpus& corpus = TheCorpus();
  std::string text;
  std::vector<std::pair<size_t, size_t>> lines;
  for (const trace::MpiRecord& m : corpus.slice) {
    const size_t at = text.size();
    trace::Encode(m, &text);
    lines.emplace_back(at, text.size() - at - 1);
  }
  text.append(trace::kDecodePadding, ' ');
  trace::LineDecoder decoder(path);
  trace::Record record;
  int64_t ranks = 0;
  for (auto _ : state) {
    for (const auto& [at, length] : lines) {
      if (!decoder.Decode(std::string_view(text.data() + at, length), &record).ok()) {
        state.SkipWithError("decode failed");
      }
      ranks += record.mpi.rank;
    }
  }
  benchmark::DoNotOptimize(ranks);
  const double n = static_cast<double>(lines.size());
  state.counters["records/s"] = benchmark::Counter(n, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes/record"] = static_cast<double>(text.size() - trace::kDecodePadding) / n;
}

// Rewrites the slice's lines in memory (lib/trace/edit.h): new t0 and t1,
// or an appended phase id (marked absent, as for canonical lines), found by
// EditInts; and new t0 and t1 at the places the decoder found (EditSpans,
// what rp-clocksync does with canonical lines; the decoding is not timed).
enum class EditKind { kTimes, kPhase, kTimesAtSpans };
void Edit(benchmark::State& state, EditKind kind) {
  Corpus& corpus = TheCorpus();
  std::vector<std::string> lines;
  std::vector<std::pair<trace::ValueSpan, trace::ValueSpan>> spans;
  trace::LineDecoder decoder;
  trace::Record record;
  for (const trace::MpiRecord& m : corpus.slice) {
    lines.emplace_back();
    trace::Encode(m, &lines.back());
    lines.back().pop_back();  // the newline
    if (!decoder.Decode(lines.back(), &record).ok() || !record.canonical) std::abort();
    spans.emplace_back(record.spans[trace::MpiRecord::k_t0], record.spans[trace::MpiRecord::k_t1]);
  }
  std::string out;
  int64_t bytes = 0;
  for (auto _ : state) {
    out.clear();
    int64_t i = 0;
    for (const std::string& line : lines) {
      ++i;
      if (kind == EditKind::kTimesAtSpans) {
        const auto& [t0, t1] = spans[i - 1];
        const trace::SpanEdit times[] = {{t0, 1000000000000 + i}, {t1, 1000000000100 + i}};
        trace::EditSpans(line, times, &out);
      } else if (kind == EditKind::kTimes) {
        const trace::IntEdit times[] = {{"t0", 1000000000000 + i}, {"t1", 1000000000100 + i}};
        trace::EditInts(trace::RecordType::kMpi, line, times, &out);
      } else {
        const trace::IntEdit phase[] = {{"phase", i >> 10, true}};
        trace::EditInts(trace::RecordType::kMpi, line, phase, &out);
      }
      if (out.size() > (1 << 20)) bytes += out.size(), out.clear();
    }
    bytes += out.size();
  }
  benchmark::DoNotOptimize(bytes);
  const double n = static_cast<double>(lines.size());
  state.counters["records/s"] = benchmark::Counter(n, benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK_CAPTURE(Edit, times, EditKind::kTimes)->Unit(benchmark::kMillisecond)->Repetitions(5);
BENCHMARK_CAPTURE(Edit, phase, EditKind::kPhase)->Unit(benchmark::kMillisecond)->Repetitions(5);
BENCHMARK_CAPTURE(Edit, times_at_spans, EditKind::kTimesAtSpans)->Unit(benchmark::kMillisecond)->Repetitions(5);
BENCHMARK_CAPTURE(Decode, canonical_scan, trace::LineDecoder::Path::kCanonicalFirst)->Unit(benchmark::kMillisecond)->Repetitions(5);
BENCHMARK_CAPTURE(Decode, simdjson, trace::LineDecoder::Path::kValidating)->Unit(benchmark::kMillisecond)->Repetitions(5);
BENCHMARK_CAPTURE(Read, plain, false)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(Read, zstd, true)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(Write, plain, false)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(Write, zstd, true)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace rp

BENCHMARK_MAIN();
