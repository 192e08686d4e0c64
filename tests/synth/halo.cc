#include "tests/synth/halo.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace rp::synth {
namespace {

// splitmix64: a tiny deterministic generator, so traces are reproducible.
uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// A uniform draw from [-bound, bound], fixed by (seed, salt).
double Symmetric(uint64_t seed, uint64_t salt, double bound) {
  const double unit = static_cast<double>(Mix(seed ^ Mix(salt)) >> 11) / static_cast<double>(uint64_t{1} << 53);
  return (2 * unit - 1) * bound;
}

// Each rank's clock against rank 0's: local = global - offset - drift *
// (global - start), so rank 0's time minus local time is offset + drift *
// (global - start), the `offset` of lib/trace/schema.h's clock record.
struct RankClock {
  int64_t offset = 0;
  double drift = 0;  // per ns
  int64_t Local(int64_t global, int64_t start) const {
    return global - offset - std::llround(drift * static_cast<double>(global - start));
  }
};

enum Site : int64_t { kIrecvLeft = 2, kIrecvRight, kIsendRight, kIsendLeft, kWaitall, kAllreduce };
// The samples' frames: two kernels called from main, one calling memcpy.
enum SampleSite : int64_t { kStencil = 8, kBoundary, kMain, kMemcpy };

}  // namespace

void GenerateHalo(const HaloSpec& spec, const std::function<void(const trace::Record&)>& emit) {
  const int64_t n = spec.ranks;
  trace::Record rec;

  rec.type = trace::RecordType::kHeader;
  rec.header.set_schema(std::string(trace::kSchemaVersion));
  rec.header.set_producer({"rp-synth-halo 1"});
  rec.header.set_app("synthetic-halo");
  rec.header.set_ranks(n);
  rec.header.set_clock(spec.local_clocks() ? "local" : "global");
  rec.header.set_order("time");
  emit(rec);

  rec.type = trace::RecordType::kRank;
  for (int64_t r = 0; r < n; ++r) {
    rec.rank.Clear();
    rec.rank.set_rank(r);
    rec.rank.set_host("node" + std::to_string(r / 16));
    rec.rank.set_pid(1000 + r);
    emit(rec);
  }

  rec.type = trace::RecordType::kComm;
  rec.comm.set_id(0);
  rec.comm.set_size(n);
  std::vector<int64_t> world(n);
  for (int64_t r = 0; r < n; ++r) world[r] = r;
  rec.comm.set_ranks(world);
  rec.comm.set_kind("world");
  emit(rec);

  rec.type = trace::RecordType::kSite;
  const char* fns[] = {"", "", "exchange", "exchange", "exchange", "exchange", "exchange", "reduce"};
  for (int64_t id = kIrecvLeft; id <= kAllreduce; ++id) {
    rec.site.Clear();
    rec.site.set_id(id);
    rec.site.set_fn(fns[id]);
    rec.site.set_file("halo.c");
    rec.site.set_line(10 * id);
    emit(rec);
  }
  if (spec.sample_hz > 0) {
    const char* names[] = {"stencil", "boundary", "main", "__memmove_avx_unaligned_erms"};
    for (int64_t id = kStencil; id <= kMemcpy; ++id) {
      rec.site.Clear();
      rec.site.set_id(id);
      rec.site.set_fn(names[id - kStencil]);
      if (id == kMemcpy) {
        rec.site.set_module("/usr/lib/x86_64-linux-gnu/libc.so.6");
      } else {
        rec.site.set_file("halo.c");
        rec.site.set_line(10 * id);
      }
      emit(rec);
    }
  }

  const int64_t per_iteration = 5 * n;
  const int64_t iterations =
      std::max<int64_t>(1, spec.events * spec.sync_every / (per_iteration * spec.sync_every + n));
  const int64_t start = 1'000'000'000'000;

  // Ping-pong measurements at MPI_Init (start) and MPI_Finalize, whose time
  // is estimated from the compute alone: a line through two points needs
  // no more. Rank 0 is the reference.
  std::vector<RankClock> clocks(n);
  if (spec.local_clocks()) {
    const double max_drift = spec.clock_drift_ppm * 1e-6;
    for (int64_t r = 1; r < n; ++r) {
      clocks[r].offset = std::llround(Symmetric(spec.seed, 2 * r, static_cast<double>(spec.clock_offset_ns)));
      clocks[r].drift = Symmetric(spec.seed, 2 * r + 1, max_drift);
    }
    const int64_t finalize = start + iterations * (spec.compute_ns + spec.jitter_ns / 2);
    rec.type = trace::RecordType::kClock;
    for (int64_t r = 0; r < n; ++r) {
      for (const int64_t global : {start, finalize}) {
        const int64_t local = clocks[r].Local(global, start);
        const int64_t error =
            r == 0 ? 0 : std::llround(Symmetric(spec.seed ^ 0xC10C, 2 * r + (global != start),
                                                static_cast<double>(spec.clock_error_ns)));
        rec.clock.Clear();
        rec.clock.set_rank(r);
        rec.clock.set_method("pingpong");
        rec.clock.set_when(global == start ? "init" : "finalize");
        rec.clock.set_t(local);
        rec.clock.set_offset(global - local + error);
        rec.clock.set_rtt(2 * spec.clock_error_ns);
        emit(rec);
      }
    }
  }
  // No later event starts before a global time g, on any clock, than
  // this local time (g - drift * (g - start) grows with g).
  auto earliest_local = [&](int64_t global) {
    if (!spec.local_clocks()) return global;
    return global - spec.clock_offset_ns -
           static_cast<int64_t>(std::ceil(spec.clock_drift_ppm * 1e-6 * static_cast<double>(global - start))) - 1;
  };

  std::vector<int64_t> clock(n, start), seq(n, 0), send_right(n), send_left(n);
  std::vector<trace::MpiRecord> window, pending;
  // Samples: each rank's next one (global time), those of the window.
  const int64_t period = spec.sample_hz > 0 ? 1'000'000'000 / spec.sample_hz : 0;
  std::vector<int64_t> next_sample(n);
  for (int64_t r = 0; r < n; ++r) next_sample[r] = start + (period > 0 ? (r * 7919) % period : 0);
  std::vector<trace::SampleRecord> samples, samples_pending;
  auto sample = [&](int64_t r, int64_t it, int64_t from, int64_t to) {
    for (; period > 0 && next_sample[r] <= to; next_sample[r] += period) {
      if (next_sample[r] <= from) continue;  // in a call: not sampled
      trace::SampleRecord& s = samples.emplace_back();
      s.set_rank(r);
      s.set_t(next_sample[r]);
      const uint64_t pick = Mix(spec.seed ^ (r << 40) ^ (it << 8) ^ 0x5A);
      if (pick % 4 == 0) s.set_stack({kBoundary, kMain});
      else if (pick % 4 == 1) s.set_stack({kMemcpy, kStencil, kMain});
      else s.set_stack({kStencil, kMain});
      s.set_weight(period);
    }
  };
  auto event = [&](int64_t r, const char* fn, int64_t site, int64_t t0, int64_t duration) {
    trace::MpiRecord& m = window.emplace_back();
    m.set_rank(r);
    m.set_seq(seq[r]++);
    m.set_fn(fn);
    m.set_t0(t0);
    m.set_t1(t0 + duration);
    m.set_site(site);
    m.set_comm(0);
    clock[r] = t0 + duration;
    return &m;
  };
  auto jitter = [&](int64_t r, int64_t i, int64_t salt, int64_t range) {
    return range > 0 ? static_cast<int64_t>(Mix(spec.seed ^ (r << 40) ^ (i << 8) ^ salt) % range) : 0;
  };
  const int64_t transfer = spec.latency_ns + static_cast<int64_t>(spec.bytes * spec.ns_per_byte);

  rec.type = trace::RecordType::kMpi;
  for (int64_t it = 0; it < iterations; ++it) {
    for (int64_t r = 0; r < n; ++r) {
      const int64_t left = (r + n - 1) % n, right = (r + 1) % n;
      int64_t t = clock[r] + spec.compute_ns + jitter(r, it, 0, spec.jitter_ns) +
                  (r == spec.slow_rank ? spec.slow_extra_ns : 0);
      sample(r, it, clock[r], t);
      auto post = [&](const char* fn, int64_t site, int64_t peer, int64_t req) {
        trace::MpiRecord* m = event(r, fn, site, t, 300 + jitter(r, it, site, 200));
        m->set_peer(peer);
        m->set_tag(site <= kIrecvRight ? 100 + (site == kIrecvLeft) : 100 + (site == kIsendRight));
        m->set_bytes(spec.bytes);
        m->set_req(req);
        t = clock[r] + 50 + jitter(r, it, site + 10, 100);
        return m->t0;
      };
      post("MPI_Irecv", kIrecvLeft, left, 0);
      post("MPI_Irecv", kIrecvRight, right, 1);
      send_right[r] = post("MPI_Isend", kIsendRight, right, 2);
      send_left[r] = post("MPI_Isend", kIsendLeft, left, 3);
      clock[r] = t;
    }
    for (int64_t r = 0; r < n; ++r) {
      const int64_t left = (r + n - 1) % n, right = (r + 1) % n;
      const int64_t t0 = clock[r];
      const int64_t arrival = std::max(send_right[left], send_left[right]) + transfer;
      const int64_t t1 = std::max(t0 + 200, arrival) + 100 + jitter(r, it, 20, 100);
      trace::MpiRecord* m = event(r, "MPI_Waitall", kWaitall, t0, t1 - t0);
      m->set_completed({0, 1, 2, 3});
    }
    const bool sync = (it + 1) % spec.sync_every == 0 || it + 1 == iterations;
    if (!sync) continue;
    int64_t last_entry = 0;
    for (int64_t r = 0; r < n; ++r) last_entry = std::max(last_entry, clock[r] + 500);
    const int64_t exit = last_entry + 5'000 + 2 * spec.latency_ns;
    for (int64_t r = 0; r < n; ++r) {
      const int64_t t0 = clock[r] + 500;
      trace::MpiRecord* m = event(r, "MPI_Allreduce", kAllreduce, t0, exit + jitter(r, it, 30, 200) - t0);
      m->set_bytes(8);
      m->set_op("MPI_SUM");
    }
    // Every event of the window starts before the Allreduce exit, every later
    // event after it: sorting what is pending and writing what starts
    // before any later event can keeps the whole output in time order.
    for (trace::MpiRecord& m : window) {
      if (spec.local_clocks()) {
        m.t0 = clocks[m.rank].Local(m.t0, start);
        m.t1 = clocks[m.rank].Local(m.t1, start);
      }
      pending.push_back(std::move(m));
    }
    window.clear();
    for (trace::SampleRecord& m : samples) {
      if (spec.local_clocks()) m.t = clocks[m.rank].Local(m.t, start);
      samples_pending.push_back(std::move(m));
    }
    samples.clear();
    std::sort(samples_pending.begin(), samples_pending.end(),
              [](const trace::SampleRecord& a, const trace::SampleRecord& b) {
                return a.t != b.t ? a.t < b.t : a.rank < b.rank;
              });
    std::sort(pending.begin(), pending.end(), [](const trace::MpiRecord& a, const trace::MpiRecord& b) {
      return a.t0 != b.t0 ? a.t0 < b.t0 : a.rank != b.rank ? a.rank < b.rank : a.seq < b.seq;
    });
    const bool last = it + 1 == iterations;
    const int64_t bound = earliest_local(exit);
    size_t written = 0, sampled = 0;
    for (; written < pending.size() && (last || pending[written].t0 < bound); ++written) {
      // Samples before the call, then the call: by time, then rank, as
      // rp-record merges ranks (a rank's sample at its call's start first).
      auto before = [&](const trace::SampleRecord& s) {
        const trace::MpiRecord& m = pending[written];
        return s.t != m.t0 ? s.t < m.t0 : s.rank <= m.rank;
      };
      for (; sampled < samples_pending.size() && before(samples_pending[sampled]); ++sampled) {
        rec.type = trace::RecordType::kSample;
        std::swap(rec.sample, samples_pending[sampled]);
        emit(rec);
      }
      rec.type = trace::RecordType::kMpi;
      std::swap(rec.mpi, pending[written]);
      emit(rec);
    }
    for (; sampled < samples_pending.size() && (last || samples_pending[sampled].t < bound); ++sampled) {
      rec.type = trace::RecordType::kSample;
      std::swap(rec.sample, samples_pending[sampled]);
      emit(rec);
    }
    pending.erase(pending.begin(), pending.begin() + static_cast<ptrdiff_t>(written));
    samples_pending.erase(samples_pending.begin(), samples_pending.begin() + static_cast<ptrdiff_t>(sampled));
  }
}

}  // namespace rp::synth
