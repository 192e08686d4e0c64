#!/usr/bin/env bash
# A real application from Debian's archive through the whole pipeline:
# LAMMPS (package lammps) running its own Lennard-Jones melt example
# (lammps-examples: /usr/share/lammps/examples/melt/in.melt, 32,000 atoms,
# 250 steps) on RANKS ranks with 200 Hz samples, then rp-clocksync,
# rp-phases, rp-cpath and rp-diagnose; the reports (text and HTML) are
# written to OUT_DIR and checked for sanity (check_lammps.py).
#
#   tests/apps/lammps/run_lammps.sh [OUT_DIR] [RANKS]
# Run from the workspace root after `bazel build //...` (`make lammps`).
set -euo pipefail
out=${1:-demo-out/lammps}
ranks=${2:-2}
bin=$(pwd)/bazel-bin/cmd
input=/usr/share/lammps/examples/melt/in.melt
for need in lmp "$input"; do
  command -v "$need" >/dev/null || [ -e "$need" ] || { echo "missing $need: apt-get install lammps lammps-examples" >&2; exit 2; }
done
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
(cd "$out" && "$bin/rp-record/rp-record" -o melt.ndjson.zst -- \
  mpirun -np "$ranks" --oversubscribe --mca btl self,vader lmp -in "$input" -log none -screen none)
"$bin/rp-clocksync/rp-clocksync" "$out/melt.ndjson.zst" | "$bin/rp-phases/rp-phases" |
  "$bin/rp-cpath/rp-cpath" | "$bin/rp-diagnose/rp-diagnose" -o "$out/diagnosed.ndjson.zst"
"$bin/rp-report/rp-report" --format text "$out/diagnosed.ndjson.zst" >"$out/report.txt"
"$bin/rp-report/rp-report" --format html "$out/diagnosed.ndjson.zst" >"$out/report.html"
"$bin/rp-cat/rp-cat" -t finding -t efficiency -t cp_summary "$out/diagnosed.ndjson.zst" >"$out/diagnosis.ndjson"
sed -n '1,/^efficiencies/p' "$out/report.txt"
python3 tests/apps/lammps/check_lammps.py "$out/diagnosis.ndjson" "$ranks"
echo "reports: $out/report.txt, $out/report.html"
