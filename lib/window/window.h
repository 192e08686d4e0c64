// Streams an rp-trace in windows: the records between two clean global
// synchronizations, which every analysis stage can process independently
// and then forget, so memory follows the longest window, not the run.
//
// A global synchronization is an all-to-all collective (MPI_Barrier,
// MPI_Allreduce, MPI_Allgather, MPI_Alltoall, ...) on a communicator that
// spans every rank; its k-th instance is each rank's k-th such call (MPI
// orders collectives on a communicator), so no synchronized clock is needed
// to find it. It is clean, and ends a window, when at that point no rank has
// an active request and every message sent has been received (as the
// mpi-graph paper splits its graph, §graph construction). Stages that need
// no messages may cut at every global synchronization instead
// (Boundaries::kEverySync). A run that never synchronizes is one window.
//
//   WindowReader reader(inputs);
//   RP_RETURN_IF_ERROR(reader.Start());        // header and dictionaries
//   Window window;
//   for (;;) {
//     RP_ASSIGN_OR_RETURN(bool more, reader.Next(&window));
//     if (!more) break;
//     ... window.events, window.lines ...
//   }
#ifndef RP_LIB_WINDOW_WINDOW_H_
#define RP_LIB_WINDOW_WINDOW_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "lib/base/id_table.h"
#include "lib/base/status.h"
#include "lib/trace/input_set.h"
#include "lib/trace/record.h"
#include "lib/trace/writer.h"
#include "lib/window/event.h"

namespace rp::window {

// One line of the input as a window holds it: where its text lies, and
// what the reader decoded of it. 64 bytes, the flags first so that nothing
// is padding.
struct Line {
  trace::RecordType type = trace::RecordType::kUnknown;
  bool global_sync = false;  // an mpi record of a global synchronization
  bool canonical = false;    // the line is in Encode's form (trace::Record::canonical)
  int8_t last_field = -1;    // canonical mpi and sample lines: trace::Record::last_field
  int32_t rank = -1;         // mpi and sample records; -1 otherwise
  int32_t event = -1;        // index in Window::events for mpi records, else -1
  uint32_t length = 0;       // of the raw line at text
  const char* text = nullptr;  // in one of Window::blocks
  int64_t time = 0;          // mpi: t0, sample: t; 0 otherwise
  int64_t level = 0;         // global synchronizations its rank had completed before
                             // it: its phase (rp-phases); the window's for others
  uint64_t present = 0;      // mpi and sample records: the fields it has (bit k_<name>)
  // Canonical mpi lines: where t0 and t1 lie; sample lines: t, in [0]
  // (trace::Record::spans), for trace::EditSpans.
  trace::ValueSpan time_spans[2] = {};
};
static_assert(sizeof(Line) == 64);

struct Window {
  int64_t index = 0;              // 0, 1, ...
  bool ends_with_sync = false;    // false for the last window of the stream
  std::vector<Line> lines;     // input order
  // The input blocks the lines lie in (and maybe a few more),
  // held so that the lines stay where the reader read them: not copied.
  std::vector<std::shared_ptr<const trace::InputBlock>> blocks;  // by serial
  std::vector<Event> events;          // of the mpi lines, input order
  std::vector<int64_t> ids;           // completed and started request ids
  std::vector<trace::Completion> resolved;
  std::vector<std::vector<uint32_t>> by_rank;  // event indices per rank, seq order
  // Persistent requests started in this window but made (MPI_Send_init,
  // MPI_Recv_init) in an earlier one: what their starts send or receive,
  // by rank. Windows end where no request is active, not where none
  // exists: a persistent request lives across them.
  struct Persistent {
    int64_t rank, id;
    bool send;
    int64_t comm, peer, tag, bytes;
  };
  std::vector<Persistent> inherited;

  std::string_view text(const Line& line) const { return {line.text, line.length}; }
  void Clear();
};

// When the application's time starts, in the first window with calls: the
// earliest exit of MPI_Init, or without one the earliest entry of any call.
int64_t ApplicationStart(const Window& w);

// The dictionaries of the stream, from the records before the first event.
struct Dictionary {
  trace::HeaderRecord header;
  int64_t ranks = 0;
  std::unordered_map<int64_t, std::vector<int64_t>> comm_ranks;  // comm id -> world ranks
  // Every record before the first event, in order: its type and raw text
  // (WritePrelude), and the decoded ones stages use, by type. Not whole
  // trace::Records: one is kilobytes, and a run has a rank record per rank.
  std::vector<trace::RecordType> prelude_types;
  std::vector<std::string> prelude_lines;
  std::vector<trace::RankRecord> rank_records;
  std::vector<trace::SiteRecord> sites;
  std::vector<trace::ClockRecord> clocks;
  // A communicator's size: its comm record's, the world's for comm 0, 0
  // when no record says.
  int64_t CommSize(int64_t comm) const;
  // Comms that contain every rank of the world.
  bool SpansWorld(int64_t comm) const;
};

// A call of a global synchronization: a blocking all-to-all collective on
// a communicator that spans the world, which moved data (or whose record
// gives no sizes). Windows and phases end at them.
bool IsGlobalSync(const Event& e, const Dictionary& dict);

// What the reader found wrong with the stream without stopping, and what
// it did about ranks that held windows open (WindowReader::input_report()).
struct InputReport {
  int64_t given_up = 0;        // ranks taken as finished, silent for the hold limit
  int64_t first_given_up = -1;
  int64_t late_ranks = 0;      // ranks first seen after a window had ended
  int64_t first_late_rank = -1;
  int64_t late_records = 0;    // records of those ranks, put in the window being read
  int64_t unclean_cuts = 0;     // windows ended at an unclean synchronization (hold limit)
  int64_t first_unclean_cut = -1;  // its synchronization instance
  int64_t beyond_count = 0;       // mpi records beyond their rank record's `events`
  int64_t ends_before_start = 0;  // mpi records with t1 < t0
  int64_t duplicate_seqs = 0;     // mpi records whose rank has another with their seq in the window
  // The first of each of the three above: "rank R seq S".
  std::string first_beyond_count, first_end_before_start, first_duplicate_seq;
  // Where each first was met: (window, phase, time, rank), for choosing the
  // first over the processes of a parallel stage, each reading some ranks
  // (dist::WarnAboutInputAcross).
  using At = std::array<int64_t, 4>;
  static constexpr At kNever{INT64_MAX, 0, 0, 0};
  At first_given_up_at = kNever, first_late_rank_at = kNever, first_beyond_count_at = kNever,
     first_end_before_start_at = kNever, first_duplicate_seq_at = kNever;
  // Warnings for stderr, none when nothing happened.
  std::vector<std::string> Warnings(int64_t hold_limit) const;
};

// How many records a rank may stay silent while it holds a window open,
// by default (ReadConfig::hold_limit): ~400 MB of buffered records.
inline constexpr int64_t kDefaultHoldLimit = int64_t{1} << 20;

// The most ranks a stream may claim: more than any MPI run yet (the largest
// have a few million), few enough that an array per rank fits in memory.
inline constexpr int64_t kMostRanks = int64_t{1} << 24;
// Ranks that records may name beyond the header's count, or without one:
// tolerated (stages warn of what they break), not sizing arrays past it.
inline constexpr int64_t kRanksWithoutHeader = int64_t{1} << 20;

// Times (ns) lie within +-2^62 (146 years either side of their zero), so
// that no stage's difference of two times, or shift of one by another,
// overflows; the reader rejects mpi and sample records with others.
inline constexpr int64_t kMostTime = int64_t{1} << 62;
inline bool TimeInRange(int64_t t) {  // one comparison, no overflow
  return static_cast<uint64_t>(t) + uint64_t{kMostTime} < 2 * uint64_t{kMostTime};
}

// Where a window may end.
enum class Boundaries {
  // At clean global synchronizations only: no message or request crosses a
  // boundary, so message matching and graphs need nothing from other windows.
  kClean,
  // At every global synchronization: for stages that need only each
  // record's synchronization level (rp-phases). Requests and messages are
  // not tracked, and windows are as short as the run allows.
  kEverySync,
};

// How a stage's caller wants its windows read (the command line's --hold
// and progress line, or a test's).
struct ReadConfig {
  // A rank that sends nothing for `hold_limit` records while the others
  // have gone past a global synchronization it has not reached holds every
  // later record in memory: its records are missing (a lost file, a
  // producer that names ranks it never traced) or come much later (a trace
  // sorted by rank). After that many records it is taken as finished, so
  // that memory stays bounded, and reported (input_report()). Ranks whose
  // rank record gives their `events` are waited for: they will come.
  // Likewise a window that has held that many records ends at the next
  // global synchronization even when it is not clean.
  int64_t hold_limit = kDefaultHoldLimit;
  // Called after each window with the records read so far; may be empty.
  std::function<void(int64_t records_read)> progress;
};

// A distributed read (lib/dist): each process's reader reads some ranks
// (trace::InputSet::SelectParts) and the windows must end at the same
// synchronizations on all of them. At each global synchronization k in
// turn — once its ranks have all reached k, or its input is done — every
// process's reader gives its part of what decides k, and gets back the
// parts of all added up; then they decide alike. With its windows cut
// there, a process's window k holds its ranks' records of the window the
// one-process reader would give.
struct SyncParts {
  int64_t fewest = INT64_MAX;  // synchronizations of its ranks still delivering, the fewest
  int64_t most = 0;            // and the most any of its ranks completed
  int64_t active = 0;          // requests active at k
  int64_t sent = 0, received = 0;  // messages sent and received before k
  int64_t lines = 0;           // lines of the window k may end (the final call: all lines left)
  void Add(const SyncParts& o) {
    fewest = std::min(fewest, o.fewest);
    most = std::max(most, o.most);
    active += o.active;
    sent += o.sent;
    received += o.received;
    lines += o.lines;
  }
};
class BoundaryJudge {
 public:
  virtual ~BoundaryJudge() = default;
  // Every process calls it as often, in the same turn: for k = 1, 2, ...
  // until a k no rank will reach, then once more when its input is done.
  virtual Expected<SyncParts> Judge(const SyncParts& mine) = 0;
};

class WindowReader {
 public:
  explicit WindowReader(trace::InputSet& input, Boundaries boundaries = Boundaries::kClean,
                        ReadConfig config = {})
      : input_(input), boundaries_(boundaries), progress_(std::move(config.progress)),
        hold_limit_(std::max<int64_t>(config.hold_limit, 1)) {}

  // Reads the header and the dictionary records that precede the first
  // event (the usual order); later dictionary records are still honoured.
  Status Start();
  const Dictionary& dictionary() const { return dict_; }

  // The next window; false after the last.
  Expected<bool> Next(Window* window);

  // Reads as one process of a distributed read; `judge` must outlive the
  // reader. Ranks are not given up for --hold (that depends on the order
  // of the whole stream's records); a window that holds the hold limit's
  // lines over all processes still ends at the next synchronization. A
  // window may hold none of this process's lines: every process gets
  // every window.
  void SetJudge(BoundaryJudge* judge) { judge_ = judge; }

  int64_t hold_limit() const { return hold_limit_; }
  const InputReport& input_report() const { return report_; }

  // Records read so far, for progress lines.
  int64_t records_read() const { return records_read_; }
  // True once the window last returned was the stream's last.
  bool finished() const { return input_done_ && !Buffered() && !have_first_; }

 private:
  // What the reader tracks of each rank to tell a clean synchronization:
  // its requests, and the messages it has sent and received so far.
  struct Request {
    bool active = false;      // started, not yet completed
    bool persistent = false;
    bool sends = false;       // starting it sends a message
    bool receives = false;    // completing it receives a message
  };
  struct RankState {
    int64_t expected = -1;  // events, from the rank record (-1: unknown)
    int64_t seen = 0;
    int64_t syncs = 0;  // global synchronizations completed
    int64_t last_read = 0;  // records_read_ at its latest record
    bool given_up = false;  // taken as finished (ReadConfig::hold_limit), or first seen late
    int64_t active = 0;
    IdTable<Request> requests;  // by request id
    int64_t sent = 0, received = 0;  // messages, cumulative
    // At each global synchronization not yet judged: active requests,
    // messages sent and received (the first is synchronization `at_base` + 1).
    // A vector from `at_head` on, not a deque: an empty std::deque holds
    // ~600 bytes, per rank.
    struct AtSync {
      int64_t active, sent, received;
    };
    std::vector<AtSync> at;
    size_t at_head = 0;
    int64_t at_base = 0;
    int64_t pending() const { return static_cast<int64_t>(at.size() - at_head); }
    const AtSync& pending_at(int64_t k) const { return at[at_head + static_cast<size_t>(k - 1 - at_base)]; }
    void PopPending() {  // amortised O(1); the vector does not grow with the run
      ++at_base;
      if (++at_head == at.size()) {
        at.clear();
        at_head = 0;
      } else if (at_head >= 16 && 2 * at_head >= at.size()) {
        at.erase(at.begin(), at.begin() + static_cast<ptrdiff_t>(at_head));
        at_head = 0;
      }
    }
  };
  // Starts and completes the requests of event e (arrays in `ids`).
  void Account(const Event& e, const std::vector<int64_t>& ids, RankState& rank);
  int64_t Reached();  // fewest synchronizations completed by a rank still delivering
  bool Delivering(const RankState& r) const { return r.expected < 0 || r.seen < r.expected; }
  bool Clean(int64_t k) const;
  // Clean()'s sums over this process's ranks (SyncParts::active, sent, received).
  void CleanParts(int64_t k, SyncParts* parts) const;
  Expected<bool> NextJudged(Window* window);
  // Buffers the next record (input_done_ after the last).
  Status ReadRecord();
  // Judges synchronization k with the other processes; false when no rank
  // will reach it (no more boundaries).
  Expected<bool> JudgeNext(Window* window, bool* emitted);
  RankState& Rank(int64_t rank);
  int64_t RankLimit() const;
  Status RankError(int64_t rank) const;  // for record_, of rank outside 0..RankLimit() - 1
  // Header, rank and comm records size per-rank arrays: their ranks must
  // lie within a run's size (an error naming the record otherwise).
  Status CheckDictionaryRecord() const;
  Status TimeError(const char* type, const char* field, int64_t value) const;  // for record_
  Status WideFieldError() const;         // for record_, when ToEvent found a field too wide
  Status BufferRecord();
  void CountDuplicateSeq(const Event& e);
  // Gives up ranks silent for the hold limit that hold the next boundary.
  void GiveUpSilentRanks();
  // Records read but not yet in a window, by level (Line::level),
  // so that a record is copied at most once however far ahead of the
  // window its rank runs (local clocks put ranks milliseconds apart).
  // The live buckets are buckets_[first_...]: buckets_[first_] holds every
  // level up to next_boundary_ - 1 (levels whose boundary was not clean
  // stay together) and buckets_[first_ + i] level next_boundary_ - 1 + i.
  // A clean boundary hands buckets_[first_] over whole (swapped, not
  // copied); an unclean one merges the next bucket into it.
  struct Bucket {
    Window window;
    std::vector<int64_t> ordinal;  // each record's position in the input
    void Clear();
  };
  Bucket& BucketOf(int64_t level) {  // inline unless a bucket must be added
    const auto index = first_ + static_cast<size_t>(std::max<int64_t>(0, level - (next_boundary_ - 1)));
    return index < buckets_.size() ? *buckets_[index] : AddBuckets(index);
  }
  Bucket& AddBuckets(size_t index);  // through buckets_[index]
  size_t Live() const { return buckets_.size() - first_; }
  bool Buffered() const;
  void DropFront();  // buckets_[first_], emptied, to spare_
  void MergeNext();  // the second live bucket into the first, in input order
  // Every live bucket into one, in input order: at the end of the input,
  // when ranks may be many levels apart (a trace sorted by rank).
  void MergeAll();
  void Emit(bool ends_with_sync, Window* window);  // buckets_[first_]
  void CarryPersistent(Window* window);

  void HoldBlock(Window* window);  // the current record's block
  trace::InputSet& input_;
  const Boundaries boundaries_;
  const std::function<void(int64_t)> progress_;
  Dictionary dict_;
  trace::Record record_;
  bool have_first_ = false;  // record_ holds the first event, read by Start()
  bool input_done_ = false;
  int64_t records_read_ = 0;
  std::vector<RankState> ranks_;
  // Usually few (the levels ranks are apart): a vector indexes in one load
  // where a deque takes a division. Its front slots, emptied, are dropped
  // in bulk (first_), so that many levels cost no quadratic time.
  std::vector<std::unique_ptr<Bucket>> buckets_;
  size_t first_ = 0;
  std::vector<std::unique_ptr<Bucket>> spare_;  // a few emptied buckets: memory to reuse
  Bucket scratch_;
  std::vector<int64_t> last_seq_;  // Emit: each rank's last seq seen
  std::vector<bool> unsorted_;     // and whether its events need sorting
  // Live persistent requests by (rank << 32 | id), as of the windows
  // emitted, and the window that made each.
  struct PersistentDef {
    Window::Persistent def;
    int64_t window;
    int64_t carried;  // the last window it was carried into
  };
  std::unordered_map<uint64_t, PersistentDef> persistent_;
  // Reached() kept up to date without a pass over the ranks per record:
  // the fewest synchronizations among delivering ranks, how many ranks are
  // there, and the most any rank completed; recounted when the fewest move.
  int64_t fewest_ = 0, at_fewest_ = 0, most_ = 0;
  bool recount_ = true;
  const int64_t hold_limit_;
  int64_t next_hold_check_ = 0;  // records_read_ at which to look for silent ranks
  InputReport report_;
  int64_t next_boundary_ = 1;  // the synchronization instance that may end the window
  BoundaryJudge* judge_ = nullptr;
  bool judged_out_ = false;  // judged: no more boundaries
  bool finished_ = false;    // judged: the last window was given
  int64_t window_index_ = 0;
};

// The reader's warnings about its input (InputReport::Warnings), on the
// log (stderr in the tools), once the input is read.
void WarnAboutInput(const WindowReader& reader);

// Starts a stage's output: the stream's header with `tool` ("rp-phases 1.0")
// appended to its producers and `amend` applied, then every other record
// before the first event as it was read (unless header_only), except
// records of type `replaced` (a stage's own, from an earlier run of it).
Status WritePrelude(const Dictionary& dict, const std::string& tool, trace::Writer* out,
                    const std::function<void(trace::HeaderRecord&)>& amend = nullptr, bool header_only = false,
                    std::optional<trace::RecordType> replaced = std::nullopt);
// The same as text (a split output's index and parts start with it).
Expected<std::string> PreludeText(const Dictionary& dict, const std::string& tool,
                                  const std::function<void(trace::HeaderRecord&)>& amend = nullptr,
                                  bool header_only = false, std::optional<trace::RecordType> replaced = std::nullopt);

}  // namespace rp::window

#endif  // RP_LIB_WINDOW_WINDOW_H_
