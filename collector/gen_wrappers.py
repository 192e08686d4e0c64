#!/usr/bin/env python3
"""Generates the collector's MPI wrappers from one table.

Inputs: lib/mpi/functions.txt (function name -> category, read through
lib/mpi/function_table.py, which must be on PYTHONPATH) and the installed
mpi.h (the exact C signatures). Output: wrappers.cc, the C wrappers
(MPI_X -> PMPI_X) and Fortran wrappers (mpi_x_, mpi_x, mpi_x__, MPI_X ->
pmpi_x_), all calling the runtime (runtime.h) the same way. The ids they
record are lib/mpi's (functions.h, generated from the same table); the
table's "nonblocking" column is checked against the signatures here.

Usage: PYTHONPATH=lib/mpi gen_wrappers.py functions.txt mpi.h wrappers.cc

A category says what a call records; the templates below read the MPI
standard's parameter names (dest, source, tag, comm, count, datatype,
request, status, ...) from the signature. Fortran wrappers convert handles
and statuses to C (MPI_*_f2c) only to record them; the application's
arguments are passed to the Fortran PMPI entry point untouched.
"""

import re
import sys

import function_table

HANDLES = {
    "MPI_Comm": "Comm", "MPI_Datatype": "Type", "MPI_Op": "Op", "MPI_Info": "Info",
    "MPI_Group": "Group", "MPI_Win": "Win", "MPI_File": "File", "MPI_Request": "Request",
    "MPI_Message": "Message", "MPI_Errhandler": "Errhandler",
}
SCALARS = {"MPI_Aint", "MPI_Offset", "MPI_Count"}
STATUS_ARRAYS = {"array_of_statuses"}
INT_ARRAYS = {"sendcounts", "recvcounts", "sdispls", "rdispls", "displs", "array_of_indices",
              "dims", "periods", "remain_dims", "sources", "degrees", "destinations",
              "sourceweights", "destweights", "edges", "index"}


class Param:
    def __init__(self, decl):
        decl = " ".join(decl.split())
        self.decl = decl
        m = re.match(r"^(const\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*(\**)\s*([A-Za-z_][A-Za-z0-9_]*)\s*(\[\])?$", decl)
        if not m:
            raise ValueError("cannot parse parameter: " + decl)
        self.const = bool(m.group(1))
        self.base = m.group(2)
        self.ptr = len(m.group(3))
        self.name = m.group(4)
        self.array = bool(m.group(5))
        self.kind = self.classify()

    def classify(self):
        b, p, n = self.base, self.ptr, self.name
        if b == "void" and p == 1:
            return "buffer"
        if b == "char" and p == 1:
            return "string"
        if b == "char" and p == 3:
            return "argv"
        if b == "int" and p == 1 and n == "argc":
            return "argc"
        if b == "int" and p == 0 and not self.array:
            return "int"
        if b == "int":
            return "ints"  # outputs and arrays alike: MPI_Fint is int
        if b in SCALARS and p == 0 and not self.array:
            return "scalar"
        if b in SCALARS:
            return "scalars"
        if b == "MPI_Status":
            return "statuses" if (self.array or n in STATUS_ARRAYS) else "status"
        if b in HANDLES and p == 0 and not self.array:
            return "handle"
        if b in HANDLES and self.array:
            return "handles"
        if b in HANDLES and p == 1:
            return "handle_out"
        raise ValueError("unsupported parameter type: " + self.decl)


class Function:
    def __init__(self, row, params):
        self.name = row.name
        self.category = row.category
        self.nonblocking = row.nonblocking
        self.params = params
        self.index = row.index
        self.by_name = {p.name: p for p in params}

    def has(self, *names):
        return all(n in self.by_name for n in names)

    def first(self, *names):
        for n in names:
            if n in self.by_name:
                return n
        return None

    @property
    def fn_id(self):
        return "kFn_" + self.name


# --------------------------------------------------------------- parsing ---

def parse_prototypes(mpi_h):
    text = open(mpi_h).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    protos = {}
    for m in re.finditer(r"\bint\s+(MPI_[A-Za-z0-9_]+)\s*\(([^;{]*?)\)\s*[A-Z_()0-9, ]*;", text):
        name, args = m.group(1), m.group(2)
        if name in protos:
            continue
        protos[name] = " ".join(args.split())
    return protos


def split_params(args):
    if args.strip() in ("", "void"):
        return []
    return [a.strip() for a in args.split(",")]


# ------------------------------------------------------------- templates ---
# Each template returns (pre, post): C++ statements run before and after the
# PMPI call, written against C-typed names (the C wrapper's parameters, or
# the Fortran wrapper's converted locals). `f` is True for Fortran.

def bytes_of(fn, count, dtype):
    return "rpc::Bytes(%s, %s)" % (count, dtype)


def t_send(fn, f):
    dtype = fn.first("datatype", "type")
    return [], ["call.Peer(comm, dest);", "call.Tag(tag);",
                "call.Bytes(%s);" % bytes_of(fn, "count", dtype)]


def t_recv(fn, f):
    return [], ["call.Peer(comm, status->MPI_SOURCE);", "call.Tag(status->MPI_TAG);",
                "call.Bytes(rpc::StatusBytes(status));"]


def t_isend(fn, f, persistent="false"):
    dtype = fn.first("datatype", "type")
    return [], ["call.Peer(comm, dest);", "call.Tag(tag);",
                "const int64_t rp_bytes = %s;" % bytes_of(fn, "count", dtype),
                "call.Bytes(rp_bytes);",
                "const int32_t rp_req = rpc::NewRequest(*request, rpc::ReqKind::kSend, call.peer(), tag, rp_bytes, comm, %s);" % persistent,
                "call.Req(rp_req);"]


def t_irecv(fn, f, persistent="false"):
    dtype = fn.first("datatype", "type")
    return [], ["call.Peer(comm, source);", "call.Tag(tag);",
                "const int64_t rp_bytes = %s;" % bytes_of(fn, "count", dtype),
                "call.Bytes(rp_bytes);",
                "const int32_t rp_req = rpc::NewRequest(*request, rpc::ReqKind::kRecv, call.peer(), tag, rp_bytes, comm, %s);" % persistent,
                "call.Req(rp_req);"]


def t_send_init(fn, f):
    return t_isend(fn, f, "true")


def t_recv_init(fn, f):
    return t_irecv(fn, f, "true")


def t_start(fn, f):
    return ["const int32_t rp_id = rpc::StartRequest(*request);"], ["if (rp_id >= 0) call.Req(rp_id);"]


def t_startall(fn, f):
    return ["for (int i = 0; i < count; ++i) call.Started(rpc::StartRequest(array_of_requests[i]));"], []


def t_sendrecv(fn, f):
    if fn.has("sendcount"):
        sent = bytes_of(fn, "sendcount", "sendtype")
    else:
        sent = bytes_of(fn, "count", "datatype")
    return [], ["call.Peer(comm, dest);", "call.Tag(sendtag);", "call.Bytes(%s);" % sent,
                "call.Rpeer(comm, status->MPI_SOURCE);", "call.Rtag(status->MPI_TAG);",
                "call.Rbytes(rpc::StatusBytes(status));"]


def t_probe(fn, f):
    found = ["call.Peer(comm, status->MPI_SOURCE);", "call.Tag(status->MPI_TAG);",
             "call.Bytes(rpc::StatusBytes(status));"]
    pre = []
    if fn.has("message"):
        # MPI_MESSAGE_NO_PROC (a probe of MPI_PROC_NULL) has no message id.
        pre = ["int32_t rp_msg = -1;"]
        found += ["rp_msg = rpc::NewMessage(*message, status, comm);",
                  "if (rp_msg >= 0) call.Msg(rp_msg);"]
    if fn.has("flag"):
        post = ["if (*flag) {"] + ["  " + s for s in found] + \
               ["} else {", "  call.Peer(comm, source);", "  call.Tag(tag);", "}"]
    else:
        post = found
    return pre, post


def t_mrecv(fn, f):
    pre = ["int rp_peer = -2, rp_tag = -1;", "int64_t rp_bytes = 0;",
           "const int32_t rp_msg = rpc::TakeMessage(*message, &rp_peer, &rp_tag, &rp_bytes);"]
    post = ["if (rp_msg >= 0) call.Msg(rp_msg);", "call.PeerWorld(rp_peer);", "call.Tag(rp_tag);",
            "call.Bytes(rp_bytes);"]
    if fn.has("request"):
        post.append("const int32_t rp_req = rpc::NewRequest(*request, rpc::ReqKind::kRecv, rp_peer, rp_tag, rp_bytes, MPI_COMM_NULL, false);")
        post.append("call.Req(rp_req);")
    return pre, post


def t_wait(fn, f):
    pre = ["const MPI_Request rp_handle = *request;", "const int32_t rp_id = rpc::RequestId(rp_handle);"]
    done = "rpc::CompleteRequest(call, rp_handle, rp_id, status);"
    post = ["if (*flag) " + done] if fn.has("flag") else [done]
    return pre, post


def requests_pre():
    return ["static thread_local std::vector<MPI_Request> rp_handles;",
            "static thread_local std::vector<int32_t> rp_ids;",
            "rp_handles.assign(array_of_requests, array_of_requests + rp_n);",
            "rp_ids.resize(rp_n);",
            "rpc::RequestIds(rp_handles.data(), rp_n, rp_ids.data());"]


def t_waitany(fn, f):
    pre = ["const int rp_n = count;"] + requests_pre()
    index = "(*index == MPI_UNDEFINED ? MPI_UNDEFINED : *index - 1)" if f else "*index"
    cond = "rp_index >= 0 && rp_index < rp_n"
    if fn.has("flag"):
        cond = "*flag && " + cond
    post = ["const int rp_index = %s;" % index,
            "if (%s) rpc::CompleteRequest(call, rp_handles[rp_index], rp_ids[rp_index], status);" % cond]
    return pre, post


def t_waitall(fn, f):
    pre = ["const int rp_n = count;"] + requests_pre()
    loop = "for (int i = 0; i < rp_n; ++i) rpc::CompleteRequest(call, rp_handles[i], rp_ids[i], &array_of_statuses[i]);"
    post = ["if (*flag) " + loop] if fn.has("flag") else [loop]
    return pre, post


def t_waitsome(fn, f):
    pre = ["const int rp_n = incount;"] + requests_pre()
    index = "array_of_indices[j] - 1" if f else "array_of_indices[j]"
    post = ["if (*outcount != MPI_UNDEFINED) {",
            "  for (int j = 0; j < *outcount; ++j) {",
            "    const int i = %s;" % index,
            "    if (i >= 0 && i < rp_n) rpc::CompleteRequest(call, rp_handles[i], rp_ids[i], &array_of_statuses[j]);",
            "  }", "}"]
    return pre, post


def t_request_free(fn, f):
    return (["const MPI_Request rp_handle = *request;", "const int32_t rp_id = rpc::RequestId(rp_handle);"],
            ["if (rp_id >= 0) call.Req(rp_id);", "rpc::FreeRequest(rp_handle);"])


def t_cancel(fn, f):
    return ["const int32_t rp_id = rpc::RequestId(*request);"], ["if (rp_id >= 0) call.Req(rp_id);"]


def t_request_get_status(fn, f):
    return ["const int32_t rp_id = rpc::RequestId(request);"], ["if (rp_id >= 0) call.Req(rp_id);"]


# Collectives: bytes = this rank's send buffer, rbytes = its receive buffer.
# N_OUT / N_IN: ranks addressed (group size, remote group size, or the
# topology's out/in degree for neighbourhood collectives).
COLLECTIVES = {
    "Barrier": (None, None),
    "Bcast": ("B(count, datatype)", None),
    "Reduce": ("B(count, datatype)", None),
    "Allreduce": ("B(count, datatype)", None),
    "Scan": ("B(count, datatype)", None),
    "Exscan": ("B(count, datatype)", None),
    "Gather": ("INPLACE(sendbuf) ? B(recvcount, recvtype) : B(sendcount, sendtype)",
               "ROOT ? B(recvcount, recvtype) * N_IN : 0"),
    "Gatherv": ("INPLACE(sendbuf) ? 0 : B(sendcount, sendtype)",
                "ROOT ? rpc::SumBytes(recvcounts, N_IN, recvtype) : 0"),
    "Scatter": ("ROOT ? B(sendcount, sendtype) * N_OUT : 0",
                "INPLACE(recvbuf) ? 0 : B(recvcount, recvtype)"),
    "Scatterv": ("ROOT ? rpc::SumBytes(sendcounts, N_OUT, sendtype) : 0",
                 "INPLACE(recvbuf) ? 0 : B(recvcount, recvtype)"),
    "Allgather": ("INPLACE(sendbuf) ? B(recvcount, recvtype) : B(sendcount, sendtype)",
                  "B(recvcount, recvtype) * N_IN"),
    "Allgatherv": ("INPLACE(sendbuf) ? 0 : B(sendcount, sendtype)",
                   "rpc::SumBytes(recvcounts, N_IN, recvtype)"),
    "Alltoall": ("INPLACE(sendbuf) ? B(recvcount, recvtype) * N_IN : B(sendcount, sendtype) * N_OUT",
                 "B(recvcount, recvtype) * N_IN"),
    "Alltoallv": ("INPLACE(sendbuf) ? rpc::SumBytes(recvcounts, N_IN, recvtype) : rpc::SumBytes(sendcounts, N_OUT, sendtype)",
                  "rpc::SumBytes(recvcounts, N_IN, recvtype)"),
    "Alltoallw": ("INPLACE(sendbuf) ? rpc::SumBytes(recvcounts, N_IN, MPI_DATATYPE_NULL, recvtypes) : rpc::SumBytes(sendcounts, N_OUT, MPI_DATATYPE_NULL, sendtypes)",
                  "rpc::SumBytes(recvcounts, N_IN, MPI_DATATYPE_NULL, recvtypes)"),
    "Reduce_scatter": ("rpc::SumBytes(recvcounts, N_OUT, datatype)",
                       "B(recvcounts[rpc::CommRank(comm)], datatype)"),
    "Reduce_scatter_block": ("B(recvcount, datatype) * N_OUT", "B(recvcount, datatype)"),
    "Neighbor_allgather": ("B(sendcount, sendtype)", "B(recvcount, recvtype) * N_IN"),
    "Neighbor_allgatherv": ("B(sendcount, sendtype)", "rpc::SumBytes(recvcounts, N_IN, recvtype)"),
    "Neighbor_alltoall": ("B(sendcount, sendtype) * N_OUT", "B(recvcount, recvtype) * N_IN"),
    "Neighbor_alltoallv": ("rpc::SumBytes(sendcounts, N_OUT, sendtype)",
                           "rpc::SumBytes(recvcounts, N_IN, recvtype)"),
    "Neighbor_alltoallw": ("rpc::SumBytes(sendcounts, N_OUT, MPI_DATATYPE_NULL, sendtypes)",
                           "rpc::SumBytes(recvcounts, N_IN, MPI_DATATYPE_NULL, recvtypes)"),
}


def collective_base(fn):
    return function_table.collective_base(fn.name)  # MPI_Ibarrier -> Barrier


def peer_count(fn, incoming):
    # collective_base: MPI_Ineighbor_x -> Neighbor_x, so both forms count
    # topology neighbours, not the group.
    nbr = "true" if collective_base(fn).startswith("Neighbor") else "false"
    return "rpc::PeerCount(comm, %s, %s)" % (nbr, "true" if incoming else "false")


def expand(expr, fn):
    expr = re.sub(r"\bB\(", "rpc::Bytes(", expr)
    expr = re.sub(r"INPLACE\((\w+)\)", r"rpc::IsInPlace(\1)", expr)
    expr = expr.replace("ROOT", "rp_root")
    expr = expr.replace("N_IN", peer_count(fn, True)).replace("N_OUT", peer_count(fn, False))
    return expr


def t_coll(fn, f):
    sent, received = COLLECTIVES[collective_base(fn)]
    post = []
    if fn.has("root"):
        post.append("call.Root(comm, root);")
        if "ROOT" in (sent or "") + (received or ""):
            post.append("const bool rp_root = rpc::IsRoot(comm, root);")
    else:
        post += ["call.Comm(comm);"]
    if fn.has("op"):
        post.append("call.Op(op);")
    if sent:
        post.append("const int64_t rp_bytes = %s;" % expand(sent, fn))
        post.append("call.Bytes(rp_bytes);")
    if received:
        post.append("call.Rbytes(%s);" % expand(received, fn))
    if fn.has("request"):
        post.append("const int32_t rp_req = rpc::NewRequest(*request, rpc::ReqKind::kColl, -1, -1, %s, comm, false);"
                    % ("rp_bytes" if sent else "0"))
        post.append("call.Req(rp_req);")
    return [], post


COMM_KINDS = {
    "MPI_Comm_dup": "kDup", "MPI_Comm_dup_with_info": "kDup", "MPI_Comm_idup": "kDup",
    "MPI_Comm_split": "kSplit", "MPI_Comm_split_type": "kSplitType", "MPI_Comm_create": "kCreate",
    "MPI_Comm_create_group": "kCreateGroup", "MPI_Cart_create": "kCart", "MPI_Cart_sub": "kCart",
    "MPI_Graph_create": "kGraph", "MPI_Dist_graph_create": "kDistGraph",
    "MPI_Dist_graph_create_adjacent": "kDistGraph", "MPI_Intercomm_create": "kIntercomm",
    "MPI_Intercomm_merge": "kMerge",
}


def comm_params(fn):
    parent = next(p.name for p in fn.params if p.kind == "handle" and p.base == "MPI_Comm")
    out = next(p.name for p in fn.params if p.kind == "handle_out" and p.base == "MPI_Comm")
    return parent, out


def t_comm_create(fn, f):
    parent, out = comm_params(fn)
    post = ["call.Comm(%s);" % parent]
    if fn.has("request"):
        # The new communicator is not usable before the request completes;
        # it is registered on first use.
        post.append("call.Req(rpc::NewRequest(*request, rpc::ReqKind::kColl, -1, -1, 0, %s, false));" % parent)
    else:
        post.append("const int32_t rp_new = rpc::RegisterComm(*%s, %s, rp::raw::%s);" % (out, parent, COMM_KINDS[fn.name]))
        post.append("if (rp_new >= 0) call.Newcomm(rp_new);")
    return [], post


def t_comm_free(fn, f):
    return ["const MPI_Comm rp_comm = *comm;", "call.Comm(rp_comm);"], ["rpc::ForgetComm(rp_comm);"]


def t_win_create(fn, f):
    post = ["if (*win != MPI_WIN_NULL) rpc::RegisterWin(*win, comm);", "call.Win(*win);", "call.Comm(comm);"]
    if fn.has("size"):
        post.append("call.Bytes(size);")
    return [], post


def t_win_free(fn, f):
    return ["const MPI_Win rp_win = *win;", "call.Win(rp_win);"], ["rpc::ForgetWin(rp_win);"]


def t_win_sync(fn, f):
    post = ["call.Win(win);"]
    if fn.has("rank"):
        post.append("call.PeerWorld(rpc::WinWorldRank(win, rank));")
    return [], post


def t_rma(fn, f):
    post = ["call.Win(win);", "call.PeerWorld(rpc::WinWorldRank(win, target_rank));"]
    if fn.has("origin_count"):
        post.append("const int64_t rp_bytes = rpc::Bytes(origin_count, origin_datatype);")
    else:
        post.append("const int64_t rp_bytes = rpc::Bytes(1, datatype);")
    post.append("call.Bytes(rp_bytes);")
    if fn.has("result_count"):
        post.append("call.Rbytes(rpc::Bytes(result_count, result_datatype));")
    if fn.has("op"):
        post.append("call.Op(op);")
    if fn.has("request"):
        post.append("call.Req(rpc::NewRequest(*request, rpc::ReqKind::kRma, call.peer(), -1, rp_bytes, MPI_COMM_NULL, false));")
    return [], post


def t_file_open(fn, f):
    return [], ["if (*fh != MPI_FILE_NULL) rpc::RegisterFile(*fh);", "call.Fh(*fh);", "call.Comm(comm);"]


def t_file_close(fn, f):
    return ["const MPI_File rp_fh = *fh;", "call.Fh(rp_fh);"], ["rpc::ForgetFile(rp_fh);"]


def t_file_op(fn, f):
    post = ["call.Fh(fh);"]
    where = fn.first("offset", "disp")
    if where:
        post.append("call.Offset(%s);" % where)
    if fn.has("size"):
        post.append("call.Bytes(size);")
    return [], post


def t_file_io(fn, f):
    post = ["call.Fh(fh);"]
    if fn.has("offset"):
        post.append("call.Offset(offset);")
    if fn.has("status"):
        post.append("const int64_t rp_bytes = rpc::StatusBytes(status);")
    elif fn.has("count"):
        post.append("const int64_t rp_bytes = rpc::Bytes(count, datatype);")
    else:
        post.append("const int64_t rp_bytes = 0;")
    post.append("call.Bytes(rp_bytes);")
    if fn.has("request"):
        post.append("call.Req(rpc::NewRequest(*request, rpc::ReqKind::kIo, -1, -1, rp_bytes, MPI_COMM_NULL, false));")
    return [], post


def t_abort(fn, f):
    return [], ["call.Comm(comm);", "call.Tag(errorcode);"]


# The online critical path's hooks (collector/online.h), by category:
# (lines inside the call before the PMPI call, lines after the template's).
# They run only with RP_ONLINE=1.
def online_hooks(fn):
    c = fn.category
    if c in ("send", "isend"):
        return ["rpc::online::Send(comm, dest, tag);"], []
    if c == "send_init":
        return [], ["rpc::online::Posted(rp_req, *request, comm, dest, tag, true, true);"]
    if c in ("irecv", "recv_init"):
        persistent = "true" if c == "recv_init" else "false"
        return [], ["rpc::online::Posted(rp_req, *request, comm, source, tag, false, %s);" % persistent]
    if c == "recv":
        return [], ["rpc::online::Received(comm, status);"]
    if c == "sendrecv":
        return ["rpc::online::Send(comm, dest, sendtag);"], ["rpc::online::Received(comm, status);"]
    if c == "start":
        return ["rpc::online::Started(rp_id);"], []
    if c == "startall":
        return ["for (int i = 0; i < count; ++i) rpc::online::Started(rpc::RequestId(array_of_requests[i]));"], []
    if c == "probe" and fn.has("message"):
        found = "rpc::online::Matched(rp_msg, comm, status);"
        return [], ["if (*flag) " + found] if fn.has("flag") else [found]
    if c == "mrecv":
        if fn.has("request"):
            return [], ["rpc::online::MatchedPosted(rp_msg, rp_req);"]
        return [], ["rpc::online::MatchedReceived(rp_msg);"]
    if c == "coll":
        root = "root" if fn.has("root") else "-1"
        if fn.has("request"):
            return [], ["rpc::online::CollectiveStarted(rp_req, %s, comm, %s);" % (fn.fn_id, root)]
        return [], ["rpc::online::Collective(%s, comm, %s, call.moved_nothing());" % (fn.fn_id, root)]
    return [], []


def guarded(lines):
    if not lines:
        return []
    return ["if (rpc::online::g_on) {"] + ["  " + s for s in lines] + ["}"]


TEMPLATES = {
    "send": t_send, "recv": t_recv, "isend": t_isend, "irecv": t_irecv,
    "send_init": t_send_init, "recv_init": t_recv_init, "start": t_start, "startall": t_startall,
    "sendrecv": t_sendrecv, "probe": t_probe, "mrecv": t_mrecv, "wait": t_wait,
    "waitany": t_waitany, "waitall": t_waitall, "waitsome": t_waitsome,
    "request_free": t_request_free, "cancel": t_cancel, "request_get_status": t_request_get_status,
    "coll": t_coll, "comm_create": t_comm_create, "comm_free": t_comm_free,
    "win_create": t_win_create, "win_free": t_win_free, "win_sync": t_win_sync, "rma": t_rma,
    "file_open": t_file_open, "file_close": t_file_close, "file_op": t_file_op,
    "file_io": t_file_io,
}


# ------------------------------------------------------------ emitting ---

def array_length(fn, p):
    if p.name == "array_of_requests" or p.kind == "statuses":
        return fn.first("count", "incount")
    if p.name in ("sendtypes", "recvtypes"):
        return peer_count(fn, p.name == "recvtypes")
    raise ValueError("no length for %s in %s" % (p.name, fn.name))


def c_substitutions(fn):
    """C wrapper: replace MPI_STATUS(ES)_IGNORE so statuses can be read."""
    lines = []
    for p in fn.params:
        if p.kind == "status":
            lines += ["MPI_Status rp_%s;" % p.name,
                      "if (%s == MPI_STATUS_IGNORE) %s = &rp_%s;" % (p.name, p.name, p.name)]
        elif p.kind == "statuses":
            n = array_length(fn, p)
            lines += ["static thread_local std::vector<MPI_Status> rp_%s;" % p.name,
                      "if (%s == MPI_STATUSES_IGNORE) {" % p.name,
                      "  rp_%s.resize(%s > 0 ? %s : 1);" % (p.name, n, n),
                      "  %s = rp_%s.data();" % (p.name, p.name), "}"]
    return lines


def pmpi_call(fn, args):
    return "PMPI_%s(%s)" % (fn.name[4:], ", ".join(args))


def emit_c_wrapper(fn):
    pre, post = TEMPLATES[fn.category](fn, False)
    args = [p.name for p in fn.params]
    proto = ", ".join(p.decl for p in fn.params)
    out = ['extern "C" RP_EXPORT int %s(%s) {' % (fn.name, proto),
           "  rpc::Call call(%s, __builtin_return_address(0));" % fn.fn_id,
           "  if (!call.recording()) return %s;" % pmpi_call(fn, args)]
    inside, after = online_hooks(fn)
    out += ["  " + s for s in c_substitutions(fn) + pre]
    out += ["  call.Start();"]
    out += ["  " + s for s in guarded(inside)]
    out += ["  const int rc = %s;" % pmpi_call(fn, args),
            "  call.Stop();"]
    out += ["  " + s for s in post + guarded(after)]
    out += ["  call.Commit();", "  return rc;", "}", ""]
    return out


def fortran_names(fn):
    lower = fn.name.lower()
    return [lower + "_", lower, lower + "__", fn.name.upper()]


class FortranParam:
    """How one C parameter looks in the Fortran binding, and its C view."""

    def __init__(self, fn, p):
        self.fn, self.p = fn, p

    def decl(self):
        p = self.p
        if p.kind == "buffer":
            return "void* %s" % p.name
        if p.kind == "string":
            return "char* %s" % p.name
        if p.kind in ("scalar", "scalars"):
            return "%s* %s_f" % (p.base, p.name)
        return "MPI_Fint* %s_f" % p.name

    def passed(self):
        p = self.p
        if p.kind in ("buffer", "string"):
            return p.name
        if p.kind in ("status", "statuses"):
            return "%s_fp" % p.name
        return "%s_f" % p.name

    def pre(self):
        p, n = self.p, self.p.name
        if p.kind in ("buffer", "string"):
            return []
        # Views the template does not read are fine: [[maybe_unused]].
        if p.kind == "int":
            return ["[[maybe_unused]] const int %s = *%s_f;" % (n, n)]
        if p.kind == "ints":
            return ["[[maybe_unused]] int* %s = %s_f;" % (n, n)]
        if p.kind == "scalar":
            return ["[[maybe_unused]] const %s %s = *%s_f;" % (p.base, n, n)]
        if p.kind == "scalars":
            return ["[[maybe_unused]] const %s* %s = %s_f;" % (p.base, n, n)]
        conv = "PMPI_%s_f2c" % HANDLES.get(p.base, "")
        if p.kind == "handle":
            return ["[[maybe_unused]] const %s %s = %s(*%s_f);" % (p.base, n, conv, n)]
        if p.kind == "handle_out":
            return ["%s %s_c = %s(*%s_f);" % (p.base, n, conv, n), "[[maybe_unused]] %s* %s = &%s_c;" % (p.base, n, n)]
        if p.kind == "handles":
            length = array_length(self.fn, p)
            return ["static thread_local std::vector<%s> %s_v;" % (p.base, n),
                    "%s_v.resize(%s > 0 ? %s : 1);" % (n, length, length),
                    "for (int i = 0; i < %s; ++i) %s_v[i] = %s(%s_f[i]);" % (length, n, conv, n),
                    "[[maybe_unused]] %s* %s = %s_v.data();" % (p.base, n, n)]
        if p.kind == "status":
            return ["MPI_Fint %s_fs[rpc::kFortranStatusSize] = {};" % n,
                    "MPI_Fint* %s_fp = %s_f == MPI_F_STATUS_IGNORE ? %s_fs : %s_f;" % (n, n, n, n),
                    "MPI_Status %s_c{};" % n, "[[maybe_unused]] MPI_Status* %s = &%s_c;" % (n, n)]
        if p.kind == "statuses":
            length = array_length(self.fn, p)
            return ["static thread_local std::vector<MPI_Fint> %s_fs;" % n,
                    "static thread_local std::vector<MPI_Status> %s_v;" % n,
                    "%s_fs.resize((%s > 0 ? %s : 1) * rpc::kFortranStatusSize);" % (n, length, length),
                    "%s_v.resize(%s > 0 ? %s : 1);" % (n, length, length),
                    "MPI_Fint* %s_fp = %s_f == MPI_F_STATUSES_IGNORE ? %s_fs.data() : %s_f;" % (n, n, n, n),
                    "[[maybe_unused]] MPI_Status* %s = %s_v.data();" % (n, n)]
        raise ValueError("no Fortran view of " + p.decl)

    def post(self):
        p, n = self.p, self.p.name
        conv = "PMPI_%s_f2c" % HANDLES.get(p.base, "")
        if p.kind == "handle_out":
            return ["%s_c = %s(*%s_f);" % (n, conv, n)]
        if p.kind == "handles" and p.base == "MPI_Request":
            length = array_length(self.fn, p)
            return ["for (int i = 0; i < %s; ++i) %s_v[i] = %s(%s_f[i]);" % (length, n, conv, n)]
        if p.kind == "status":
            return ["PMPI_Status_f2c(%s_fp, &%s_c);" % (n, n)]
        if p.kind == "statuses":
            length = array_length(self.fn, p)
            return ["for (int i = 0; i < %s; ++i) PMPI_Status_f2c(%s_fp + i * rpc::kFortranStatusSize, &%s_v[i]);"
                    % (length, n, n)]
        return []


def emit_fortran_wrapper(fn):
    fparams = [FortranParam(fn, p) for p in fn.params]
    strings = [p.name for p in fn.params if p.kind == "string"]
    decls = [fp.decl() for fp in fparams] + ["MPI_Fint* ierr"] + ["size_t %s_len" % s for s in strings]
    passed = [fp.passed() for fp in fparams] + ["ierr"] + ["%s_len" % s for s in strings]
    untouched = [re.split(r"[\s*]+", d)[-1] for d in decls]
    real = "pmpi_%s_" % fn.name[4:].lower()
    name = fortran_names(fn)[0]
    out = ['extern "C" void %s(%s) __attribute__((weak));' % (real, ", ".join(decls)),
           'extern "C" RP_EXPORT void %s(%s) {' % (name, ", ".join(decls)),
           "  rpc::Call call(%s, __builtin_return_address(0));" % fn.fn_id,
           "  if (%s == nullptr) rpc::MissingFortranMpi(\"%s\");" % (real, real),
           "  if (!call.recording()) return %s(%s);" % (real, ", ".join(untouched))]
    pre, post = TEMPLATES[fn.category](fn, True)
    # Scalars first: array lengths may depend on them (count, comm).
    for fp in sorted(fparams, key=lambda fp: fp.p.kind in ("handles", "statuses")):
        out += ["  " + s for s in fp.pre()]
    out += ["  " + s for s in pre]
    inside, after = online_hooks(fn)
    out += ["  call.Start();"] + ["  " + s for s in guarded(inside)]
    out += ["  %s(%s);" % (real, ", ".join(passed)), "  call.Stop();"]
    for fp in fparams:
        out += ["  " + s for s in fp.post()]
    out += ["  " + s for s in post + guarded(after)]
    out += ["  call.Commit();", "}"]
    for alias in fortran_names(fn)[1:]:
        out.append('extern "C" RP_EXPORT void %s(%s) __attribute__((alias("%s")));'
                   % (alias, ", ".join(decls), name))
    out.append("")
    return out


def emit_special(fn):
    """Init, Finalize, Abort and Pcontrol, in C and Fortran."""
    site = "__builtin_return_address(0)"
    c, f = [], []
    if fn.name == "MPI_Init":
        c = ['extern "C" RP_EXPORT int MPI_Init(int* argc, char*** argv) {',
             "  rpc::Call call(%s, %s);" % (fn.fn_id, site),
             "  const int64_t t0 = rpc::Now();", "  const int rc = PMPI_Init(argc, argv);",
             "  const int64_t t1 = rpc::Now();", "  int provided = MPI_THREAD_SINGLE;",
             "  PMPI_Query_thread(&provided);",
             "  rpc::StartRecording(%s, %s, t0, t1, provided);" % (fn.fn_id, site), "  return rc;", "}"]
        f = ['extern "C" void pmpi_init_(MPI_Fint* ierr) __attribute__((weak));',
             'extern "C" RP_EXPORT void mpi_init_(MPI_Fint* ierr) {',
             "  rpc::Call call(%s, %s);" % (fn.fn_id, site),
             '  if (pmpi_init_ == nullptr) rpc::MissingFortranMpi("pmpi_init_");',
             "  const int64_t t0 = rpc::Now();", "  pmpi_init_(ierr);", "  const int64_t t1 = rpc::Now();",
             "  int provided = MPI_THREAD_SINGLE;", "  PMPI_Query_thread(&provided);",
             "  rpc::StartRecording(%s, %s, t0, t1, provided);" % (fn.fn_id, site), "}"]
        decl = "MPI_Fint* ierr"
    elif fn.name == "MPI_Init_thread":
        c = ['extern "C" RP_EXPORT int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {',
             "  rpc::Call call(%s, %s);" % (fn.fn_id, site),
             "  const int64_t t0 = rpc::Now();",
             "  const int rc = PMPI_Init_thread(argc, argv, required, provided);",
             "  const int64_t t1 = rpc::Now();",
             "  rpc::StartRecording(%s, %s, t0, t1, *provided);" % (fn.fn_id, site), "  return rc;", "}"]
        f = ['extern "C" void pmpi_init_thread_(MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr) __attribute__((weak));',
             'extern "C" RP_EXPORT void mpi_init_thread_(MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr) {',
             "  rpc::Call call(%s, %s);" % (fn.fn_id, site),
             '  if (pmpi_init_thread_ == nullptr) rpc::MissingFortranMpi("pmpi_init_thread_");',
             "  const int64_t t0 = rpc::Now();", "  pmpi_init_thread_(required, provided, ierr);",
             "  const int64_t t1 = rpc::Now();",
             "  rpc::StartRecording(%s, %s, t0, t1, *provided);" % (fn.fn_id, site), "}"]
        decl = "MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr"
    elif fn.name == "MPI_Finalize":
        # The call starts when the application makes it, before the
        # collector's closing handshake.
        body = ["  const int64_t t0 = rpc::Now();", "  rpc::StopRecording(%s, t0);" % site,
                "  const int64_t mpi_t0 = rpc::Now();"]
        c = ['extern "C" RP_EXPORT int MPI_Finalize() {',
             "  rpc::Call call(%s, %s);" % (fn.fn_id, site),
             # Not recording (its file could not be created): the closing
             # handshake is collective all the same.
             "  if (!call.recording()) {", "    rpc::StopRecording(%s, rpc::Now());" % site, "    return PMPI_Finalize();", "  }"] + body + [
             "  const int rc = PMPI_Finalize();", "  const int64_t t1 = rpc::Now();",
             "  rpc::FinishRecording(%s, %s, t0, mpi_t0, t1);" % (fn.fn_id, site), "  return rc;", "}"]
        f = ['extern "C" void pmpi_finalize_(MPI_Fint* ierr) __attribute__((weak));',
             'extern "C" RP_EXPORT void mpi_finalize_(MPI_Fint* ierr) {',
             "  rpc::Call call(%s, %s);" % (fn.fn_id, site),
             '  if (pmpi_finalize_ == nullptr) rpc::MissingFortranMpi("pmpi_finalize_");',
             "  if (!call.recording()) {", "    rpc::StopRecording(%s, rpc::Now());" % site, "    return pmpi_finalize_(ierr);", "  }"] + body + [
             "  pmpi_finalize_(ierr);", "  const int64_t t1 = rpc::Now();",
             "  rpc::FinishRecording(%s, %s, t0, mpi_t0, t1);" % (fn.fn_id, site), "}"]
        decl = "MPI_Fint* ierr"
    elif fn.name == "MPI_Abort":
        c = ['extern "C" RP_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode) {',
             "  rpc::Call call(%s, %s);" % (fn.fn_id, site),
             "  if (call.recording()) {", "    call.Start();", "    call.Stop();",
             "    call.Comm(comm);", "    call.Tag(errorcode);", "    call.Commit();",
             "    rpc::Flush();", "  }", "  return PMPI_Abort(comm, errorcode);", "}"]
        f = ['extern "C" void pmpi_abort_(MPI_Fint* comm, MPI_Fint* errorcode, MPI_Fint* ierr) __attribute__((weak));',
             'extern "C" RP_EXPORT void mpi_abort_(MPI_Fint* comm_f, MPI_Fint* errorcode, MPI_Fint* ierr) {',
             "  rpc::Call call(%s, %s);" % (fn.fn_id, site),
             '  if (pmpi_abort_ == nullptr) rpc::MissingFortranMpi("pmpi_abort_");',
             "  if (call.recording()) {", "    call.Start();", "    call.Stop();",
             "    call.Comm(PMPI_Comm_f2c(*comm_f));", "    call.Tag(*errorcode);", "    call.Commit();",
             "    rpc::Flush();", "  }", "  pmpi_abort_(comm_f, errorcode, ierr);", "}"]
        decl = "MPI_Fint* comm_f, MPI_Fint* errorcode, MPI_Fint* ierr"
    elif fn.name == "MPI_Pcontrol":
        # Variadic in C; implementations ignore the extra arguments.
        c = ['extern "C" RP_EXPORT int MPI_Pcontrol(const int level, ...) {',
             "  rpc::Call call(%s, %s);" % (fn.fn_id, site),
             "  if (!call.recording()) return PMPI_Pcontrol(level);",
             "  call.Start();", "  const int rc = PMPI_Pcontrol(level);", "  call.Stop();",
             "  if (rpc::online::g_on) rpc::online::Control(level, rpc::Now());",
             "  call.Tag(level);", "  call.Commit();", "  return rc;", "}"]
        # Fortran's MPI_PCONTROL(LEVEL) has no IERROR argument.
        f = ['extern "C" void pmpi_pcontrol_(MPI_Fint* level) __attribute__((weak));',
             'extern "C" RP_EXPORT void mpi_pcontrol_(MPI_Fint* level) {',
             "  rpc::Call call(%s, %s);" % (fn.fn_id, site),
             '  if (pmpi_pcontrol_ == nullptr) rpc::MissingFortranMpi("pmpi_pcontrol_");',
             "  if (!call.recording()) return pmpi_pcontrol_(level);",
             "  call.Start();", "  pmpi_pcontrol_(level);", "  call.Stop();",
             "  if (rpc::online::g_on) rpc::online::Control(*level, rpc::Now());",
             "  call.Tag(*level);", "  call.Commit();", "}"]
        decl = "MPI_Fint* level"
    else:
        raise ValueError("no special wrapper for " + fn.name)
    first = fortran_names(fn)[0]
    f += ['extern "C" RP_EXPORT void %s(%s) __attribute__((alias("%s")));' % (alias, decl, first)
          for alias in fortran_names(fn)[1:]]
    return c + [""] + f + [""]


SPECIAL = {"init", "finalize", "abort", "pcontrol"}

def nonblocking(fn):
    """Calls that start an operation completed by a later Wait/Test, by their
    signature: what the table's "nonblocking" column must say."""
    if fn.category in ("start", "startall"):
        return True
    return any(p.name == "request" and p.kind == "handle_out" for p in fn.params) and \
        fn.category not in ("send_init", "recv_init", "wait", "request_free", "cancel")

HEADER = """// Generated by collector/gen_wrappers.py from lib/mpi/functions.txt
// and mpi.h. Do not edit; change the table or the generator.
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "collector/fortran.h"
#include "collector/online.h"
#include "collector/runtime.h"
#include "lib/mpi/functions.h"

#define RP_EXPORT __attribute__((visibility("default")))

namespace rpc = rp::collector;
using namespace rp::mpi;

"""


def main(argv):
    if len(argv) != 4:
        raise SystemExit("usage: gen_wrappers.py functions.txt mpi.h wrappers.cc")
    table, mpi_h, wrappers_out = argv[1:4]
    protos = parse_prototypes(mpi_h)
    functions = []
    for row in function_table.parse_table(table):
        if row.name not in protos:
            raise SystemExit("gen_wrappers: %s is not declared in %s" % (row.name, mpi_h))
        if row.category not in TEMPLATES and row.category not in SPECIAL:
            raise SystemExit("gen_wrappers: %s: no template for category %s" % (row.name, row.category))
        params = [] if row.category in SPECIAL else [Param(a) for a in split_params(protos[row.name])]
        fn = Function(row, params)
        if fn.category not in SPECIAL and fn.nonblocking != nonblocking(fn):
            raise SystemExit("gen_wrappers: %s: %s says %s, its signature in %s says otherwise" % (
                row.name, table, "nonblocking" if fn.nonblocking else "blocking", mpi_h))
        functions.append(fn)

    out = [HEADER]
    for fn in functions:
        if fn.category in SPECIAL:
            out += emit_special(fn)
        else:
            out += emit_c_wrapper(fn)
            out += emit_fortran_wrapper(fn)
    open(wrappers_out, "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main(sys.argv)
