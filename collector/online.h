// The online critical path inside the collector (RP_ONLINE=1): each rank
// keeps the longest path ending at its current point (lib/online/path.h,
// rp-cpath's wall cost model) and sends it along with every message, so
// that at MPI_Finalize the longest of the ranks' paths is the run's
// critical path, with no trace (online-CP paper §2.2, Figure 3).
//
// Point to point: a send first starts a non-blocking send of the path (the
// piggyback) on a duplicate of the application's communicator with the
// application's tag, so it never blocks the application's send and MPI's
// non-overtaking order pairs it with the payload. A receive with a known
// source and tag pre-posts its piggyback receive, unless a receive still
// waits for its piggyback on that communicator (a wildcard, or one posted
// behind a wildcard): those take theirs once the payload is in, from the
// status's source and tag, in the order they were posted, and an earlier
// one whose payload already came from that source and tag first takes its
// own (MPI_Request_get_status). A matched probe takes the piggyback at
// once. A receive completing ends the longest of its own and the sender's
// path, plus the time after both had entered (lib/online's AtExit).
//
// Collectives exchange the paths in an extra collective on the duplicate
// with a user operation keeping the longest: an all-reduce (all-to-all
// collectives, barriers), a broadcast from the root (Bcast, Scatter), a
// reduction to the root (Reduce, Gather), a scan (Scan, Exscan): the same
// dependencies as rp-cpath's graph. Neighbourhood and inter-communicator
// collectives stay local, as in the graph.
//
// With samples (RP_SAMPLE_HZ > 0), each computation is split over the
// sampled functions inside it (innermost application frame; lib/online's
// FunctionKeys), as rp-cpath's attribution splits it: in proportion to the
// samples' weights, one without samples whole to the rank's last sampled
// function (or, before any sample, the function making the call). The
// path keeps its heaviest functions' shares; every rank its totals.
//
// With representative paths on (RP_ONLINE_PATHS=k), the piggyback carries
// the rank's Path-set too (lib/online/path_set.h), behind the path at a
// fixed offset: receives join the senders' sets, all-to-all collectives
// reduce the whole records (for repr's selection, not associative, rank
// 0's result is then broadcast), the rooted ones and scans as for the
// path; MPI_Finalize keeps k of every rank's set at rank 0.
//
// The work is the collector's own: it lies inside the call, is left out of
// the path (as rp-cpath leaves a traced call's `rp` out) and, with tracing
// on too, is the event's overhead.
//
// Not with MPI_THREAD_MULTIPLE: the path is one per process.
#ifndef RP_COLLECTOR_ONLINE_H_
#define RP_COLLECTOR_ONLINE_H_

#include <mpi.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rp::collector::online {

// RP_ONLINE=1, and a thread level below MPI_THREAD_MULTIPLE.
extern bool g_on;

// --- life cycle ----------------------------------------------------------------
// Collective over MPI_COMM_WORLD, at the end of MPI_Init: duplicates the
// world, learns this rank's offset to rank 0's clock (`leader`: the rank
// whose clock this one reads; `leader_offset`: the leader's measurement, or
// 0). `maps`: the executable mappings, for site keys. `paths`: k
// representative paths kept too (0: none; lib/online/path_set.h), chosen
// as the k/2 most and least costly when `topk`. `zeroing`: critical path
// zeroing too. `sample_hz` > 0: the sampler runs and hands its samples to
// OnSample, and the path's computation is split over sampled functions.
void Start(const std::string& maps, int rank, int leader, int64_t leader_offset, int paths, bool topk, bool zeroing,
           int sample_hz);
// A raw sample record (raw::SampleFixed) from the sampler's signal
// handler: kept until the computation it fell in ends. Async-signal-safe.
void OnSample(const void* record, size_t size);
// The path starts when MPI_Init returns to the application (local ns).
void Begin(int64_t start);
// Collective, at MPI_Finalize's entry `t` (local ns) at `site`: ends the
// path, combines the ranks' answers at rank 0 and returns rank 0's raw
// kOnline record (empty on the others).
std::vector<char> Finish(uint64_t site, int64_t t);
// This rank's path as a partial kOnline record (raw_format.h), for a rank
// that ends before MPI_Finalize: no allocation (a fatal signal's handler
// calls it). Empty when the path is being updated.
std::string_view PartialRecord();

// --- every call ---------------------------------------------------------------
// At the call's entry: the computation since the last exit, charged to
// `site` (a return address); `fn` names the MPI function there.
void Enter(uint64_t site, uint16_t fn, int64_t t0);
// At its end: `exit` is when MPI returned, `end` when the collector's work
// in the call ended (both local ns). The call's time after it and its
// partners had entered is charged to its site. Returns the collector's
// online work in the call (for the traced event's overhead).
int64_t Exit(int64_t t0, int64_t exit, int64_t end);
// The collector's work after Exit ended at `t` (a buffer write, tracing too).
void Resume(int64_t t);
// MPI_Pcontrol(level) at `t` (local ns): 0 stops measuring, any other
// level starts it again (online-CP §2.3; lib/online/path.h: regions).
// Measuring starts at MPI_Init.
void Control(int level, int64_t t);

// --- point to point -------------------------------------------------------------
// A send of any kind to `dest` of `comm` (before the payload's).
void Send(MPI_Comm comm, int dest, int tag);
// A blocking receive, Sendrecv's receive, that completed with `status`.
void Received(MPI_Comm comm, const MPI_Status* status);
// A request created: receives post (or defer) their piggyback; persistent
// sends and receives keep their partner for each MPI_Start.
void Posted(int32_t id, MPI_Request handle, MPI_Comm comm, int peer, int tag, bool send, bool persistent);
// MPI_Start of a persistent request.
void Started(int32_t id);
// A receive request completed with `status` (its payload is in); a
// collective request completed. Taken at Exit, in posting order.
void CompletedRecv(int32_t id, const MPI_Status* status);
void CompletedColl(int32_t id);
// MPI_Request_free.
void Freed(int32_t id);
// A matched probe (Mprobe, Improbe) found a message: its piggyback is
// taken now, for the receive of message `msg`.
void Matched(int32_t msg, MPI_Comm comm, const MPI_Status* status);
// MPI_Mrecv of message `msg`; MPI_Imrecv as request `id`.
void MatchedReceived(int32_t msg);
void MatchedPosted(int32_t msg, int32_t id);

// --- collectives ------------------------------------------------------------------
// A blocking collective `fn` on `comm` (root: the rooted ones' root;
// moved_nothing: Call::moved_nothing()).
void Collective(uint16_t fn, MPI_Comm comm, int root, bool moved_nothing);
// A non-blocking one, request `id`: its exchange starts now.
void CollectiveStarted(int32_t id, uint16_t fn, MPI_Comm comm, int root);

// --- communicators ------------------------------------------------------------------
// A communicator made by a collective call of all its members: gets its
// duplicate (collective too).
void CommCreated(MPI_Comm comm);
void CommFreed(MPI_Comm comm);

}  // namespace rp::collector::online

#endif  // RP_COLLECTOR_ONLINE_H_
