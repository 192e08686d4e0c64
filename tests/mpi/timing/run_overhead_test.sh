#!/usr/bin/env bash
# The collector's own work is recorded apart from MPI's: with a 16 KiB
# buffer it writes its file every ~300 calls, inside the call that filled
# it, and says how long (rp). MPI_Init and MPI_Finalize carry the set-up
# and tear-down. rp-cat --summary and rp-cpath count none of it as MPI
# or application time, and report it apart.
set -euo pipefail
source tests/mpi/testenv.sh
app=$1
rp-record --buffer-kb 16 -o "$work/run.ndjson" -- "${MPIRUN[@]}" -np 4 "$root/$app" -n 300 -u 200
rp-cpath --no-passthrough -o "$work/cpath.ndjson" "$work/run.ndjson"
rp-cat --summary "$work/run.ndjson" | tee "$work/summary"
python3 - "$work/run.ndjson" "$work/cpath.ndjson" "$work/summary" <<'PY' || fail "the collector's own work"
import json, re, sys
calls, in_calls, setup = 0, 0, {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["type"] != "mpi" or "rp" not in r:
        continue
    assert 0 < r["rp"] <= r["t1"] - r["t0"], r
    if r["fn"] in ("MPI_Init", "MPI_Finalize"):
        setup[r["rank"]] = setup.get(r["rank"], 0) + r["rp"]
    else:
        calls += 1
        in_calls += r["rp"]
assert sorted(setup) == [0, 1, 2, 3], "every rank's MPI_Init and MPI_Finalize say what was rp's: %s" % setup
assert calls >= 4 * 3, "buffer writes inside calls: %d, expected several per rank" % calls
(s,) = [r for r in map(json.loads, open(sys.argv[2])) if r["type"] == "cp_summary" and "phase" not in r]
assert s["rp_all"] == in_calls, (s["rp_all"], in_calls)
assert s["rp_setup"] == max(setup.values()), (s["rp_setup"], setup)
m = re.search(r"set-up and tear-down up to ([0-9.]+) ms a rank, ([0-9.]+) ms in calls", open(sys.argv[3]).read())
assert m and abs(float(m.group(2)) - in_calls / 1e6) < 0.002, (m and m.group(0), in_calls)
print("%d calls wrote the buffer, %.3f ms in all; set-up and tear-down up to %.3f ms a rank"
      % (calls, in_calls / 1e6, max(setup.values()) / 1e6))
PY
echo PASS
