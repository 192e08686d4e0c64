// The rp-trace/1 record model: the one description of every record type.
//
// Each record type is a list of fields written once below (RP_FIELDS_<type>).
// From these lists come the C++ record structs, the NDJSON decoder and
// encoder (codec.h), the validator's required-field checks and the schema
// table printed by `rp-cat --schema` (which README's schema section is
// generated from and checked against). To add a field or a record type, edit
// the lists here; nothing else needs to know.
//
// A field is X(kind, name, presence, "doc"):
//   kind      Int (int64), Real (double), Bool, Str, Ints, Reals, Strs,
//             Done (array of completed requests, see Completion)
//   name      the JSON key and the C++ member name
//   presence  Req (decoding fails without it) or Opt
//
// Records are plain structs with a presence bit per field:
//   rp::trace::MpiRecord m;
//   m.set_rank(3); m.set_fn("MPI_Send"); ...
//   if (m.has_peer()) use(m.peer);
#ifndef RP_LIB_TRACE_SCHEMA_H_
#define RP_LIB_TRACE_SCHEMA_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rp::trace {

inline constexpr std::string_view kSchemaName = "rp-trace";
inline constexpr int kSchemaMajor = 1;
inline constexpr std::string_view kSchemaVersion = "rp-trace/1";

// ---------------------------------------------------------------- header ---
#define RP_FIELDS_header(X)                                                    \
  X(Str, schema, Req, "schema name and major version, \"rp-trace/1\"")        \
  X(Strs, producer, Req,                                                       \
    "every tool that wrote this stream, oldest first, as \"name version\"")   \
  X(Str, app, Opt, "path of the traced application")                           \
  X(Strs, argv, Opt, "the application's command line")                         \
  X(Int, ranks, Opt, "number of MPI ranks (size of MPI_COMM_WORLD)")           \
  X(Str, clock, Opt,                                                           \
    "\"local\": times are each rank's own clock; \"global\": rank 0's clock "  \
    "(after rp-clocksync)")                                                    \
  X(Str, order, Opt,                                                           \
    "\"time\" when events and samples are sorted by start time across ranks")  \
  X(Str, run, Opt,                                                             \
    "rp-record: the recorded run's identity (a hash of its ranks' hosts, "    \
    "boots and process ids), equal in every file of a split trace")

// ------------------------------------------------------------------ rank ---
#define RP_FIELDS_rank(X)                                                      \
  X(Int, rank, Req, "rank in MPI_COMM_WORLD")                                  \
  X(Str, host, Opt, "host name")                                               \
  X(Str, boot, Opt,                                                            \
    "boot id of the host's kernel: ranks with the same host and boot read "    \
    "one CLOCK_MONOTONIC")                                                     \
  X(Int, pid, Opt, "process id")                                               \
  X(Int, events, Opt, "mpi records written for this rank")                     \
  X(Int, samples, Opt, "sample records written for this rank")                 \
  X(Int, rp, Opt,                                                              \
    "ns the collector spent on its own work outside the rank's MPI calls "     \
    "(taking samples; inside calls: mpi records' rp)")                         \
  X(Bool, complete, Opt,                                                       \
    "false when the rank's data ends before MPI_Finalize (killed, crashed)")

// ------------------------------------------------------------------ comm ---
#define RP_FIELDS_comm(X)                                                      \
  X(Int, id, Req, "global communicator id; 0 is MPI_COMM_WORLD")              \
  X(Int, size, Req, "number of ranks in the (local) group")                    \
  X(Ints, ranks, Req, "world rank of each member, in communicator rank order") \
  X(Ints, remote, Opt, "world ranks of an inter-communicator's remote group")  \
  X(Str, kind, Opt, "how it was made: world, self, dup, split, create, ...")   \
  X(Int, parent, Opt, "id of the communicator it was derived from")

// ------------------------------------------------------------------ site ---
#define RP_FIELDS_site(X)                                                      \
  X(Int, id, Req, "call-site id, referenced by mpi.site and sample.stack")     \
  X(Str, fn, Opt, "function containing the call site")                         \
  X(Str, file, Opt, "source file")                                             \
  X(Int, line, Opt, "source line")                                             \
  X(Str, module, Opt, "executable or shared object")                           \
  X(Str, addr, Opt, "return address inside module, hex")

// ------------------------------------------------------------------- mpi ---
// "phase" stays the last field of mpi and sample records: split traces
// read a line's phase where it ends (trace::Reader::PeekOrder).
#define RP_FIELDS_mpi(X)                                                       \
  X(Int, rank, Req, "world rank that made the call")                           \
  X(Int, seq, Req, "per-rank call number, from 0, increasing")                 \
  X(Str, fn, Req, "MPI function, e.g. \"MPI_Isend\"")                          \
  X(Int, t0, Req, "entry time, ns")                                            \
  X(Int, t1, Req, "exit time, ns (t1 >= t0)")                                  \
  X(Int, site, Opt, "call-site id (site record)")                              \
  X(Int, comm, Opt, "global communicator id (comm record)")                    \
  X(Int, peer, Opt,                                                            \
    "world rank of the partner (destination or source; -1 MPI_ANY_SOURCE, "   \
    "-2 MPI_PROC_NULL)")                                                       \
  X(Int, tag, Opt, "message tag (-1 MPI_ANY_TAG)")                             \
  X(Int, bytes, Opt, "bytes sent (receives: bytes received or posted)")        \
  X(Int, rpeer, Opt, "Sendrecv: world rank of the source")                     \
  X(Int, rtag, Opt, "Sendrecv: receive tag")                                   \
  X(Int, rbytes, Opt, "bytes received (Sendrecv, collectives)")                \
  X(Int, root, Opt, "world rank of a rooted collective's root")                \
  X(Str, op, Opt, "reduction operation, e.g. \"MPI_SUM\"")                     \
  X(Int, req, Opt,                                                             \
    "id of the request this call creates, starts or frees; ids are unique "    \
    "among a rank's live requests and reused after completion")                \
  X(Ints, reqs, Opt, "ids of the requests a Startall starts")                  \
  X(Ints, completed, Opt, "ids of the requests this call completed")           \
  X(Done, resolved, Opt,                                                       \
    "completed receives whose status says more than the posted receive "       \
    "(wildcard source or tag, fewer bytes): [{req, peer, tag, bytes}]")        \
  X(Int, msg, Opt, "matched-message handle id (Mprobe, Improbe, Mrecv)")       \
  X(Int, newcomm, Opt, "id of the communicator this call creates")             \
  X(Int, win, Opt, "one-sided window id")                                      \
  X(Int, fh, Opt, "MPI-IO file handle id")                                     \
  X(Int, offset, Opt, "MPI-IO explicit file offset, bytes")                    \
  X(Int, rp, Opt,                                                              \
    "ns of [t0, t1] the collector spent on its own work, not MPI's: set-up "   \
    "and clock handshake in MPI_Init, closing handshake and last write in "    \
    "MPI_Finalize, writing its buffer in other calls")                         \
  X(Int, phase, Opt, "phase id (added by rp-phases)")

// ---------------------------------------------------------------- sample ---
#define RP_FIELDS_sample(X)                                                    \
  X(Int, rank, Req, "world rank")                                              \
  X(Int, t, Req, "sample time, ns")                                            \
  X(Ints, stack, Req, "call stack as site ids, innermost frame first")         \
  X(Int, weight, Opt,                                                          \
    "ns of wall time this sample stands for (the period, times the timer "     \
    "expirations it absorbed while the rank was not running)")                 \
  X(Int, phase, Opt, "phase id (added by rp-phases)")

// ----------------------------------------------------------------- clock ---
#define RP_FIELDS_clock(X)                                                     \
  X(Int, rank, Req, "world rank")                                              \
  X(Str, method, Req,                                                          \
    "\"pingpong\": one offset measurement by the collector; \"linear\", "      \
    "\"gaps\" or \"identity\": rp-clocksync's summary for the rank")           \
  X(Str, when, Opt, "pingpong: \"init\" or \"finalize\"")                      \
  X(Int, t, Opt, "pingpong: local time of the measurement, ns")                \
  X(Int, offset, Opt,                                                          \
    "ns to add to the rank's local time to get rank 0's time (summary: at "    \
    "the rank's first event)")                                                 \
  X(Int, rtt, Opt, "pingpong: round-trip time bounding the error, ns")         \
  X(Real, drift, Opt, "summary: clock drift relative to rank 0, ppm")          \
  X(Int, moved, Opt, "summary: events moved to repair causality")              \
  X(Int, max_shift, Opt, "summary: largest repair shift, ns")                  \
  X(Int, shares, Opt,                                                          \
    "summary: the lowest rank whose clock this rank reads (same host and "     \
    "boot), when it is not itself: both get the same mapping")

// ----------------------------------------------------------------- phase ---
#define RP_FIELDS_phase(X)                                                     \
  X(Int, id, Req, "phase id, from 0 in time order")                            \
  X(Int, t0, Req,                                                              \
    "start: latest exit of the global synchronization before it (phase 0: "    \
    "the first return from MPI_Init, or its first call), ns")                  \
  X(Int, t1, Req,                                                              \
    "end: latest exit of the global synchronization closing it (the last "     \
    "phase: the last call of MPI_Finalize, or its last call's end), ns")       \
  X(Str, kind, Opt, "\"run\": the only phase of a run without global "       \
    "synchronization")                                                         \
  X(Str, signature, Opt, "hash of the call-site sequence of the phase")        \
  X(Int, cluster, Opt, "id of the cluster of phases with the same signature")  \
  X(Int, iteration, Opt, "iteration number within its cluster, from 0")        \
  X(Int, events, Opt, "mpi records in the phase")

// ------------------------------------------------------------ cp_segment ---
#define RP_FIELDS_cp_segment(X)                                                \
  X(Int, rank, Req, "world rank the time was spent on")                        \
  X(Int, t0, Req, "start, ns")                                                 \
  X(Int, t1, Req, "end, ns")                                                   \
  X(Str, kind, Req,                                                            \
    "\"compute\" (between calls), \"mpi\" (a call after it was ready), "      \
    "\"transfer\" (from a partner's entry to this call's end), \"wait\" "       \
    "(waiting nothing on the path explains), \"rp\" (the collector's own "     \
    "work at the end of a call); the last two add nothing to the length")      \
  X(Int, length, Req, "ns it adds to the critical path (0 for wait and rp)")   \
  X(Int, site, Opt, "call site of the call (compute: of the call it leads to)") \
  X(Str, call, Opt, "MPI function of that call")                               \
  X(Int, peer, Opt, "transfer and wait: the rank the path came from")          \
  X(Int, phase, Opt, "phase of the call (rp-phases)")

// ------------------------------------------------------------ cp_summary ---
#define RP_FIELDS_cp_summary(X)                                                \
  X(Int, phase, Opt, "phase id; absent for the whole run")                     \
  X(Str, algo, Req,                                                            \
    "\"exact\" (longest path), \"replay\" (backward replay) or \"heuristic\" " \
    "(topological sorting)")                                                   \
  X(Int, length, Req, "critical path length, ns")                             \
  X(Int, run_time, Req,                                                        \
    "the application's time: from the first return from MPI_Init to the last " \
    "call of MPI_Finalize (without them: the first call's entry and the last " \
    "one's exit), or the phase's, ns")                                         \
  X(Int, start, Opt, "start of the run (or phase), ns")                        \
  X(Int, regions, Opt,                                                         \
    "online: the MPI_Pcontrol regions measured, the one from MPI_Init "        \
    "counted (absent: the whole run); run_time is then their spans (first "  \
    "rank in to last rank out) added up")                                      \
  X(Int, end_rank, Opt, "rank where the critical path ends")                   \
  X(Int, compute, Opt, "ns of the path in computation")                        \
  X(Int, mpi, Opt, "ns of the path in MPI calls")                              \
  X(Int, transfer, Opt, "ns of the path in transfers between ranks")           \
  X(Int, wait, Opt, "ns of unexplained waiting along the path (not in length)") \
  X(Int, rp, Opt,                                                              \
    "ns of the collector's own work in MPI calls along the path (not in "      \
    "length)")                                                                 \
  X(Int, rp_all, Opt,                                                          \
    "ns of the collector's own work in the MPI calls of all ranks in the "     \
    "application's time (not in time)")                                        \
  X(Int, init, Opt,                                                            \
    "run: the longest MPI_Init of a rank, its MPI part, ns (before the "       \
    "application's time)")                                                     \
  X(Int, finalize, Opt,                                                        \
    "run: the longest MPI_Finalize of a rank, its MPI part, ns (after it)")    \
  X(Int, rp_setup, Opt,                                                        \
    "run: the collector's set-up and tear-down in MPI_Init and MPI_Finalize, " \
    "the longest rank's, ns")                                                  \
  X(Int, segments, Opt, "cp_segment records of the path")                      \
  X(Int, samples, Opt, "run: sample records read")                             \
  X(Int, samples_outside, Opt,                                                 \
    "run: samples in no computation of their rank (inside calls, before "      \
    "MPI_Init returned, after MPI_Finalize was called)")                       \
  X(Int, samples_unweighted, Opt,                                              \
    "run: samples without a positive weight, counted with their rank's last "  \
    "weight")                                                                  \
  X(Int, undefined_frames, Opt,                                                \
    "run: sample frames naming a site no site record defines, left out")      \
  X(Int, unsampled_ranks, Opt, "run: ranks with calls but no samples")         \
  X(Int, compute_sampled, Opt,                                                 \
    "run: ns of the path's computation split by the samples inside it")        \
  X(Int, compute_nearest, Opt,                                                 \
    "run: ns of it without a sample inside, charged to the rank's nearest "    \
    "sample")                                                                  \
  X(Int, compute_by_site, Opt,                                                 \
    "run: ns of it with no sample of its rank to go by (none yet, or none "   \
    "at all), charged to the call that ends it")                               \
  X(Reals, rank_share, Opt, "share of the path's length on each rank, by rank") \
  X(Bool, partial, Opt,                                                        \
    "true when the counts below say the graph misses dependencies")            \
  X(Int, backward_edges, Opt,                                                  \
    "dependencies going back in time (unsynchronized clocks), dropped")        \
  X(Int, cycle_edges, Opt, "dependencies dropped to break cycles")             \
  X(Int, unmatched_sends, Opt, "sends without a receive in the trace")         \
  X(Int, unmatched_receives, Opt, "receives without a send in the trace")      \
  X(Int, unresolved_receives, Opt,                                             \
    "wildcard receives whose source the trace never says")                     \
  X(Int, incomplete_ranks, Opt, "ranks whose data ends before MPI_Finalize")   \
  X(Int, neighbour_collectives, Opt,                                           \
    "neighbourhood collectives, modelled without cross-rank edges")

// ------------------------------------------------------------ cp_profile ---
#define RP_FIELDS_cp_profile(X)                                                \
  X(Int, phase, Opt, "phase id; absent for the whole run")                     \
  X(Str, scope, Req,                                                           \
    "\"site\" (one call site: the computation leading to its calls and the "  \
    "calls), \"function\" (a function: the computation samples charge to it "  \
    "and its MPI calls), \"line\" (the same for one source line) or "          \
    "\"context\" (a function in one calling context: its computation)")        \
  X(Int, site, Opt, "call site (scope site)")                                  \
  X(Str, fn, Opt, "function: containing the site, or named by the samples")    \
  X(Str, call, Opt, "MPI function called at the site")                         \
  X(Str, file, Opt, "source file (scopes site and line)")                      \
  X(Int, line, Opt, "source line (scopes site and line)")                      \
  X(Ints, context, Opt,                                                        \
    "scope context: the call sites of the path to the function, innermost "    \
    "first (site ids)")                                                        \
  X(Strs, path, Opt,                                                           \
    "scope context: the functions of that path, outermost first, ending "     \
    "with fn")                                                                 \
  X(Int, cp, Req, "ns on the critical path: computation and MPI calls")        \
  X(Int, cp_compute, Opt, "of which computation")                              \
  X(Int, cp_mpi, Opt, "of which MPI calls and transfers")                      \
  X(Real, cp_share, Req, "cp / critical path length (CP%)")                    \
  X(Int, time, Req, "ns summed over all ranks, on the path or not")            \
  X(Int, time_compute, Opt, "of which computation")                            \
  X(Int, time_mpi, Opt, "of which MPI calls")                                  \
  X(Real, time_share, Req, "time / all ranks' time (the CPU% of the paper)")   \
  X(Int, calls, Opt, "calls at the site(s)")

// ------------------------------------------------------------ cp_zeroing ---
#define RP_FIELDS_cp_zeroing(X)                                                \
  X(Int, site, Opt, "call site (kinds compute and mpi)")                       \
  X(Str, kind, Req,                                                            \
    "\"compute\": the computation leading to calls at the site took no time; " \
    "\"mpi\": the calls (and transfers they complete) took no time; "          \
    "\"function\": the function's share of every computation (by the "        \
    "samples) took no time")                                                   \
  X(Str, fn, Opt, "function containing the site, or the function (kind function)") \
  X(Str, call, Opt, "MPI function called at the site")                        \
  X(Int, length, Req, "critical path length in that case, ns")                 \
  X(Int, reduction, Req, "how much shorter than the critical path, ns")

// ---------------------------------------------------------------- cp_top ---
#define RP_FIELDS_cp_top(X)                                                    \
  X(Int, m, Req, "the m of --top: items with more than 1/m of the path")       \
  X(Int, order, Req, "1 for the largest share, within its scope")             \
  X(Str, scope, Opt, "\"site\" (a call site) or \"function\"")                 \
  X(Int, site, Opt, "call site (scope site)")                                  \
  X(Str, fn, Opt, "function containing the site, or the function")            \
  X(Str, call, Opt, "MPI function called at the site")                         \
  X(Int, cp, Req, "ns on the critical path")                                   \
  X(Real, share, Req, "cp / critical path length")

// ---------------------------------------------------------- cp_imbalance ---
#define RP_FIELDS_cp_imbalance(X)                                              \
  X(Int, phase, Opt, "phase id; absent for the whole run")                     \
  X(Str, scope, Req, "\"call\" (one call site), \"process\" (one rank) or "   \
    "\"program\"")                                                            \
  X(Int, site, Opt, "call site (scope call)")                                  \
  X(Str, call, Opt, "MPI function (scope call)")                               \
  X(Str, fn, Opt, "function containing the site (scope call)")                 \
  X(Int, rank, Opt, "world rank (scope process)")                              \
  X(Int, wait_before, Req, "ns waiting for others before the calls could proceed") \
  X(Int, wait_after, Req, "ns waiting after the call's own part was done")     \
  X(Int, execution, Req, "ns executing the calls")                             \
  X(Int, compute, Opt, "ns of computation (process, program)")                 \
  X(Real, imbalance, Opt,                                                      \
    "(wait_before + wait_after) / (execution + compute); absent when 0/0")

// ------------------------------------------------------------------ path ---
#define RP_FIELDS_path(X)                                                      \
  X(Int, phase, Opt, "phase id; absent for the whole run's paths")             \
  X(Int, cluster, Opt, "the phase's cluster (rp-phases)")                      \
  X(Int, order, Req, "1 for the most costly of the phase's kept paths")        \
  X(Real, percentile, Req,                                                     \
    "of path cost this path stands for: 100 the most costly, 0 the least")    \
  X(Int, cost, Req,                                                            \
    "ns: the computation on the path (--cost compute), or its length with "    \
    "MPI time (--cost wall)")                                                  \
  X(Real, share, Opt, "cost / the phase's time")                               \
  X(Ints, ranks, Opt, "ranks the path visits, ascending")                      \
  X(Int, tasks, Opt, "computations (tasks) on the path")                       \
  X(Int, intervals, Opt, "path_interval records that follow")

// --------------------------------------------------------- path_interval ---
#define RP_FIELDS_path_interval(X)                                             \
  X(Int, phase, Opt, "phase id; absent for the whole run")                     \
  X(Int, path, Req, "the path's order")                                        \
  X(Int, rank, Req, "world rank")                                              \
  X(Int, first, Req, "seq of the call the interval's first task leads to")     \
  X(Int, last, Req, "seq of the call its last task leads to")                  \
  X(Int, t0, Req, "start of its first task, ns")                               \
  X(Int, t1, Req, "end of its last task (that call's entry), ns")              \
  X(Int, cost, Req, "ns of computation in its tasks")                          \
  X(Int, tasks, Req, "tasks in it")

// ---------------------------------------------------------- path_profile ---
#define RP_FIELDS_path_profile(X)                                              \
  X(Int, cluster, Opt, "phase cluster (else the phase id); absent: the run")   \
  X(Str, scope, Req, "\"function\" or \"context\" (a function in one calling context)") \
  X(Str, fn, Req, "function, as the samples name it")                          \
  X(Strs, path, Opt, "scope context: the functions from the outermost to fn")  \
  X(Ints, costs, Req,                                                          \
    "ns of each kept path's tasks in it, by path order (100% first), summed "  \
    "over the cluster's phases")

// ------------------------------------------------------------- path_diff ---
#define RP_FIELDS_path_diff(X)                                                 \
  X(Int, cluster, Opt, "phase cluster (else the phase id); absent: the run")   \
  X(Real, a, Req, "percentile of the costlier path")                           \
  X(Real, b, Req, "percentile of the other")                                   \
  X(Str, fn, Opt, "function; absent for the whole paths")                      \
  X(Int, diff, Req, "ns path a spent in it more than path b")                  \
  X(Real, share, Opt, "diff / path a's whole cost (for a = 100: of the critical path)")

// ------------------------------------------------------------ efficiency ---
#define RP_FIELDS_efficiency(X)                                                \
  X(Str, run, Opt, "rp-diagnose --compare: \"a\" or \"b\", the run it is of") \
  X(Int, cluster, Opt, "phase cluster (else the phase id); absent: the run")   \
  X(Int, phases, Req, "phases in it")                                          \
  X(Int, ranks, Req, "ranks with calls in it")                                 \
  X(Int, runtime, Req, "ns of wall time: its phases' time")                    \
  X(Int, ideal, Req, "ns: its longest path of computation alone (MPI taking no time)") \
  X(Int, compute_avg, Req, "ns of computation, mean over ranks")               \
  X(Int, compute_max, Req, "ns of computation, most on a rank")                \
  X(Real, load_balance, Req, "compute_avg / compute_max")                      \
  X(Real, communication, Req, "compute_max / runtime (serialisation x transfer)") \
  X(Real, serialisation, Req, "compute_max / ideal")                           \
  X(Real, transfer, Req, "ideal / runtime")                                    \
  X(Real, parallel, Req, "compute_avg / runtime (load_balance x communication)") \
  X(Ints, rank_compute, Opt, "run: ns of computation by rank")                 \
  X(Ints, rank_mpi, Opt, "run: ns in MPI calls by rank, waiting included")    \
  X(Ints, rank_wait, Opt, "run: ns of that waiting, by rank")

// --------------------------------------------------------------- finding ---
#define RP_FIELDS_finding(X)                                                   \
  X(Str, category, Req,                                                        \
    "load_imbalance, serialisation, mpmd_imbalance, late_sender, wrong_order, " \
    "late_receiver, frequent_communication, polling, large_messages, io, "     \
    "serial_io, communication_on_path, critical_computation, "                \
    "off_path_hotspot, "                                                       \
    "wait_nxn, wait_barrier, late_broadcast, early_reduce, early_scan")        \
  X(Real, severity, Req, "share of run time the fix would save")               \
  X(Int, saved, Req, "ns of run time the fix would save")                      \
  X(Real, wasted, Opt, "share of all ranks' time lost to it")                  \
  X(Int, cluster, Opt, "phase cluster (else the phase id); absent: the run")   \
  X(Int, phases, Opt, "phases of the cluster")                                 \
  X(Str, call, Opt, "MPI function where the time is lost")                     \
  X(Int, site, Opt, "its call site")                                           \
  X(Str, fn, Opt, "function containing the site")                              \
  X(Str, file, Opt, "the site's source file")                                  \
  X(Int, line, Opt, "the site's line")                                         \
  X(Strs, causes, Opt, "functions that cause it, the largest first")           \
  X(Ints, cause_ns, Opt, "ns each cause adds (imbalance: sum of max - mean)")  \
  X(Bool, partial, Opt, "the causes add up to more than the loss: partly evened out") \
  X(Ints, ranks, Opt, "ranks that cause it, ascending")                        \
  X(Ints, group, Opt, "MPMD: the ranks of the group of the same control flow it is about") \
  X(Str, evidence, Req, "the numbers behind it, in words")                     \
  X(Str, remedy, Req, "what to do about it")                                   \
  X(Ints, rank_values, Opt, "the evidence by rank, ns (what rank_label names)") \
  X(Str, rank_label, Opt, "what rank_values measure")

// -------------------------------------------------------------- timeline ---
#define RP_FIELDS_timeline(X)                                                  \
  X(Int, cluster, Opt, "the phase's cluster (rp-phases); absent without one")  \
  X(Int, phase, Opt, "the phase drawn; absent: the run without phases")       \
  X(Int, t0, Req, "start of the time drawn, ns")                               \
  X(Int, t1, Req, "its end, ns")                                               \
  X(Int, lane, Req, "lane, from 0; -1: the critical path through the phase")   \
  X(Int, first, Opt, "first rank of the lane")                                 \
  X(Int, last, Opt, "last rank of the lane (lanes group ranks beyond 64)")     \
  X(Ints, compute, Opt,                                                        \
    "lane: ns computing in each of the equal time bins, summed over its ranks") \
  X(Ints, mpi, Opt, "lane: ns in MPI calls, not waiting, per bin")             \
  X(Ints, wait, Opt, "lane: ns waiting in MPI calls, per bin")                 \
  X(Ints, ranks, Opt, "path: the rank of each step")                           \
  X(Ints, starts, Opt, "path: each step's start, ns")                          \
  X(Ints, ends, Opt, "path: each step's end, ns")

// -------------------------------------------------------- finding_change ---
#define RP_FIELDS_finding_change(X)                                            \
  X(Str, status, Req,                                                          \
    "resolved (in run a only), improved, unchanged, regressed (severity "      \
    "down, within, up by more than the noise band) or new (in run b only)")    \
  X(Str, category, Req, "the finding's category")                              \
  X(Int, cluster, Opt, "phase cluster; absent: the run")                       \
  X(Str, call, Opt, "MPI function where the time is lost")                     \
  X(Str, fn, Opt, "function containing the site")                              \
  X(Str, file, Opt, "the site's source file")                                  \
  X(Int, line, Opt, "the site's line")                                         \
  X(Ints, group, Opt, "MPMD: the ranks of the group it is about")              \
  X(Real, severity_a, Opt, "severity in run a (absent: below the threshold)")  \
  X(Real, severity_b, Opt, "severity in run b (absent: below the threshold)")  \
  X(Int, saved_a, Opt, "ns the fix would save in run a")                       \
  X(Int, saved_b, Opt, "ns the fix would save in run b")                       \
  X(Real, delta, Opt, "severity_b - severity_a, when both are present")       \
  X(Real, band, Req, "the noise band: changes within it are unchanged")

// ------------------------------------------------------------------ link ---
#define RP_FIELDS_link(X)                                                      \
  X(Str, device, Req, "transmitting device (host, NIC or switch name)")       \
  X(Int, port, Req, "its port")                                                \
  X(Str, peer, Req, "receiving device at the link's other end")               \
  X(Int, peer_port, Req, "the peer's port")                                    \
  X(Int, rate, Opt, "bits per second (serialisation: size * 8 / rate)")       \
  X(Int, delay, Opt, "propagation delay, ns")

// ------------------------------------------------------------------- net ---
#define RP_FIELDS_net(X)                                                       \
  X(Str, device, Req, "device that logged the packet")                        \
  X(Str, kind, Req,                                                            \
    "host_send, nic_tx, switch_in, switch_out, nic_rx, host_recv (the "       \
    "packet arriving at or leaving the device) or drop")                      \
  X(Int, port, Opt, "port it arrived on (in) or left by (out)")              \
  X(Str, src, Req, "sending host")                                             \
  X(Str, dst, Req, "destination host")                                         \
  X(Int, id, Req, "packet id (need not be unique: matched near in time)")     \
  X(Int, size, Opt, "bytes on the wire")                                       \
  X(Int, t, Req, "ns, the device's own clock")                                 \
  X(Int, rank, Opt, "MPI rank that sent it")                                   \
  X(Int, site, Opt, "call site of the MPI call that sent it")                 \
  X(Int, seq, Opt, "that call's seq on its rank")

// -------------------------------------------------------------- hop_path ---
#define RP_FIELDS_hop_path(X)                                                  \
  X(Str, src, Req, "sending host")                                             \
  X(Str, dst, Req, "destination host")                                         \
  X(Int, id, Req, "packet id")                                                 \
  X(Int, size, Opt, "bytes")                                                   \
  X(Str, status, Req,                                                          \
    "complete (host_send to host_recv), dropped (in the last device), "       \
    "gap (telemetry missing before, after or inside it), loop (a device "     \
    "seen twice)")                                                             \
  X(Strs, devices, Req, "the devices passed, in order")                       \
  X(Ints, arrive, Req, "ns each device saw it arrive (its clock, corrected "  \
    "by the estimated offset; -1: not logged)")                                \
  X(Ints, depart, Req, "ns each device saw it leave (-1: not logged)")        \
  X(Ints, link_ns, Req, "ns on the link into each device (the first: 0)")     \
  X(Ints, device_ns, Req, "ns inside each device, arrival to departure")      \
  X(Int, latency, Opt, "ns from first to last time logged")                   \
  X(Str, dropped_at, Opt, "dropped: the device it was last seen in")          \
  X(Int, rank, Opt, "MPI rank that sent it")                                   \
  X(Int, site, Opt, "its MPI call site")                                       \
  X(Int, seq, Opt, "that call's seq")

// ----------------------------------------------------------- hop_summary ---
#define RP_FIELDS_hop_summary(X)                                               \
  X(Str, kind, Req,                                                            \
    "device (one device's delay), link (one link's), sender (one "            \
    "sending host's paths) or run")                                            \
  X(Str, device, Opt, "device: its name; link: the transmitting device")      \
  X(Int, port, Opt, "link: the transmitting port")                            \
  X(Str, peer, Opt, "link: the receiving device")                             \
  X(Str, sender, Opt, "sender: the host")                                      \
  X(Int, packets, Req, "packets through it")                                   \
  X(Int, drops, Opt, "packets dropped in it")                                  \
  X(Int, p50, Opt, "ns, median delay (sender, run: end-to-end latency)")     \
  X(Int, p90, Opt, "ns, 90th percentile")                                      \
  X(Int, p99, Opt, "ns, 99th percentile")                                      \
  X(Int, max, Opt, "ns, largest")                                              \
  X(Int, total, Opt, "ns, sum over the packets of complete paths")           \
  X(Real, share, Opt, "total over the complete paths' end-to-end latency")    \
  X(Int, offset, Opt, "device: its clock's estimated offset from the clock furthest ahead, ns (<= 0, subtracted)") \
  X(Strs, devices, Opt, "sender: the devices of its paths, in path order")    \
  X(Ints, device_total, Opt, "sender: ns in each of those devices, summed")   \
  X(Int, complete, Opt, "run, sender: complete paths")                       \
  X(Int, gaps, Opt, "run: paths with telemetry missing")                     \
  X(Int, loops, Opt, "run: paths that passed a device twice")                \
  X(Int, duplicates, Opt, "run: tuples logged twice, dropped")               \
  X(Int, unknown, Opt, "run: tuples of devices no link names, of unknown kinds, or with negative times")               \
  X(Int, no_link, Opt, "run: departures by a port without a link")           \
  X(Int, backwards, Opt, "run: tuples older than the reorder window allows") \
  X(Int, one_hop, Opt, "run: packets seen at one device only")              \
  X(Int, late, Opt,                                                            \
    "run: packets that left a device after the window had declared them "    \
    "dropped there (they queued longer: raise --window)")

// ------------------------------------------------------------------ part ---
// In the index of a split trace (rp-record --split), after the records
// before the first event: the files holding the rest, by rank group.
// Readers merge them; the records never reach a stage.
#define RP_FIELDS_part(X)                                                      \
  X(Str, file, Req, "the part's file, relative to the index's directory")     \
  X(Int, first_rank, Req, "its ranks: first_rank..last_rank")                  \
  X(Int, last_rank, Req, "last of its ranks")                                  \
  X(Int, records, Req, "records it holds (its ranks' events and the records that follow them)") \
  X(Int, t0, Opt, "earliest mpi t0 or sample t, ns")                          \
  X(Int, t1, Opt, "latest mpi t0 or sample t, ns")

// The record types, in the order the schema documents them.
#define RP_RECORD_TYPES(R)                                                     \
  R(Header, header, "first line of every stream: what wrote it and how")      \
  R(Rank, rank, "one per MPI rank: where it ran")                              \
  R(Comm, comm, "one per communicator: its members as world ranks")           \
  R(Site, site, "call-site dictionary: return address to function:line")      \
  R(Mpi, mpi, "one MPI call on one rank")                                      \
  R(Sample, sample, "one wall-clock sample of the call stack")                 \
  R(Clock, clock, "clock offset measurement or synchronisation summary")      \
  R(Phase, phase, "one phase of the run between global synchronisations")     \
  R(CpSegment, cp_segment, "one step of the critical path (rp-cpath)")        \
  R(CpSummary, cp_summary, "critical path of the run or a phase (rp-cpath)")  \
  R(CpProfile, cp_profile, "a site's or function's share of the critical path and of all time") \
  R(CpZeroing, cp_zeroing, "critical path length if a site or function took no time") \
  R(CpTop, cp_top, "sites and functions with more than 1/m of the critical path") \
  R(Path, path, "a representative path of a phase (rp-repr)")                 \
  R(PathInterval, path_interval, "consecutive tasks of a path on one rank (rp-repr)") \
  R(PathProfile, path_profile, "kept paths' costs by function or context (rp-repr --space prof)") \
  R(PathDiff, path_diff, "what one kept path spent more than another, by function (rp-repr)") \
  R(CpImbalance, cp_imbalance, "wait and execution split of calls, ranks, run") \
  R(Efficiency, efficiency, "POP efficiencies of the run or a phase cluster (rp-diagnose)") \
  R(Finding, finding, "one diagnosed problem: where, how much, why, what to do (rp-diagnose)") \
  R(FindingChange, finding_change, "a finding of two runs compared (rp-diagnose --compare)") \
  R(Timeline, timeline, "one lane of a representative phase's timeline (rp-diagnose)") \
  R(Link, link, "one direction of a network link: device/port to peer/port") \
  R(Net, net, "one packet logged at one device (path-synchronous telemetry)") \
  R(HopPath, hop_path, "one packet's path rebuilt through the network (rp-hops)") \
  R(HopSummary, hop_summary, "delays and drops by device, link, sender or run (rp-hops)") \
  R(Part, part, "one file of a split trace, named by its index (rp-record --split)")

// ------------------------------------------------------------- machinery ---

enum class FieldKind : uint8_t { kInt, kReal, kBool, kStr, kInts, kReals, kStrs, kDone };
enum class Presence : uint8_t { Req, Opt };

// A completed receive as its status resolved it (mpi.resolved).
struct Completion {
  int64_t req = 0;
  int64_t peer = -1;
  int64_t tag = -1;
  int64_t bytes = 0;
  bool operator==(const Completion&) const = default;
};

template <FieldKind K> struct FieldTypeOf;
template <> struct FieldTypeOf<FieldKind::kInt> { using type = int64_t; };
template <> struct FieldTypeOf<FieldKind::kReal> { using type = double; };
template <> struct FieldTypeOf<FieldKind::kBool> { using type = bool; };
template <> struct FieldTypeOf<FieldKind::kStr> { using type = std::string; };
template <> struct FieldTypeOf<FieldKind::kInts> { using type = std::vector<int64_t>; };
template <> struct FieldTypeOf<FieldKind::kReals> { using type = std::vector<double>; };
template <> struct FieldTypeOf<FieldKind::kStrs> { using type = std::vector<std::string>; };
template <> struct FieldTypeOf<FieldKind::kDone> { using type = std::vector<Completion>; };
template <FieldKind K> using FieldType = typename FieldTypeOf<K>::type;

enum class RecordType : uint8_t {
#define RP_RECORD_ENUM(Camel, lower, doc) k##Camel,
  RP_RECORD_TYPES(RP_RECORD_ENUM)
#undef RP_RECORD_ENUM
  kUnknown,  // a type this version does not know: passed through unchanged
};
inline constexpr int kKnownRecordTypes = static_cast<int>(RecordType::kUnknown);

// Fields a newer producer added that this version does not know, kept as
// raw JSON so that re-encoding a record loses nothing. Pairs of (key, value).
using Extras = std::vector<std::pair<std::string, std::string>>;

#define RP_FIELD_ENUM(kind, name, presence, doc) k_##name,
#define RP_FIELD_MEMBER(kind, name, presence, doc) \
  FieldType<FieldKind::k##kind> name{};
#define RP_FIELD_REQUIRED_BIT(kind, name, presence, doc) \
  | (Presence::presence == Presence::Req ? uint64_t{1} << k_##name : 0)
#define RP_FIELD_ACCESSORS(kind, name, presence, doc)                   \
  bool has_##name() const { return (present >> k_##name) & 1; }         \
  void set_##name(FieldType<FieldKind::k##kind> v) {                    \
    name = std::move(v);                                                \
    present |= uint64_t{1} << k_##name;                                 \
  }                                                                     \
  FieldType<FieldKind::k##kind>& mutable_##name() {                     \
    present |= uint64_t{1} << k_##name;                                 \
    return name;                                                        \
  }                                                                     \
  void clear_##name() { present &= ~(uint64_t{1} << k_##name); }

#define RP_DECLARE_RECORD(Camel, lower, doc)                               \
  struct Camel##Record {                                                   \
    static constexpr RecordType kType = RecordType::k##Camel;              \
    static constexpr std::string_view kTypeName = #lower;                  \
    enum Field : int { RP_FIELDS_##lower(RP_FIELD_ENUM) kFieldCount };     \
    static constexpr uint64_t kRequiredMask =                              \
        0 RP_FIELDS_##lower(RP_FIELD_REQUIRED_BIT);                        \
    RP_FIELDS_##lower(RP_FIELD_MEMBER)                                     \
    uint64_t present = 0;                                                  \
    Extras extra;                                                          \
    RP_FIELDS_##lower(RP_FIELD_ACCESSORS)                                  \
    /* Forgets every field; keeps allocated capacity for reuse. */         \
    void Clear() {                                                         \
      present = 0;                                                         \
      if (!extra.empty()) extra.clear();  /* a call, even when empty */    \
    }                                                                      \
  };                                                                       \
  static_assert(Camel##Record::kFieldCount <= 64);

RP_RECORD_TYPES(RP_DECLARE_RECORD)

#undef RP_DECLARE_RECORD
#undef RP_FIELD_ACCESSORS
#undef RP_FIELD_REQUIRED_BIT
#undef RP_FIELD_MEMBER
#undef RP_FIELD_ENUM

// The schema as data, for docs and validation messages.
struct FieldSpec {
  std::string_view name;
  FieldKind kind;
  Presence presence;
  std::string_view doc;
};

struct RecordSpec {
  RecordType type;
  std::string_view name;
  std::string_view doc;
  std::span<const FieldSpec> fields;
};

// All known record types in schema order.
std::span<const RecordSpec> Schema();
const RecordSpec& SpecOf(RecordType type);
// RecordType::kUnknown when the name is not a known type.
RecordType RecordTypeFromName(std::string_view name);
// Index of the field `name` in SpecOf(type).fields, or -1 (unknown, or
// "type"): a hashed lookup, for code that runs once per record.
int FieldIndex(RecordType type, std::string_view name);
std::string_view FieldKindName(FieldKind kind);

// The schema as a Markdown section (README's "Record schema"), one table
// per record type.
std::string SchemaMarkdown();

}  // namespace rp::trace

#endif  // RP_LIB_TRACE_SCHEMA_H_
