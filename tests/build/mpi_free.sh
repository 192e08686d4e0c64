#!/usr/bin/env bash
# rp-cat and the analysis stages must build where MPI is not installed:
# none of them may depend on @openmpi (only the collector, rp-record, which
# preloads it, and the stages' parallel -mpi binaries, e.g.
# //cmd/rp-phases:rp-phases-mpi, do). Run from the workspace root; `make
# test` runs it.
set -euo pipefail
tools=$(ls -d cmd/rp-*/ | sed 's|/$||' | grep -v '^cmd/rp-record$' | sed 's|^|//|' | paste -sd+ -)
found=$(${BAZEL:-bazel} query --noshow_progress "somepath($tools, @openmpi//:all)" 2>/dev/null)
if [ -n "$found" ]; then
  echo "FAIL: an analysis tool depends on Open MPI:" >&2
  echo "$found" >&2
  exit 1
fi
echo "ok: $(echo "$tools" | tr '+' ' ') build without MPI"
