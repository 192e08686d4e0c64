# Shared set-up of the MPI test scripts (sourced from the workspace root,
# where Bazel runs them): rp tools on PATH, Open MPI allowed to run as root
# with unix sockets under a short TMPDIR, a scratch directory $work removed
# on exit, the launcher prefix $MPIRUN and fail().
root=$(pwd)
export PATH="$root/cmd/rp-record:$root/cmd/rp-cat:$root/cmd/rp-clocksync:$root/cmd/rp-phases:$root/cmd/rp-cpath:$root/cmd/rp-report:$root/cmd/rp-repr:$root/cmd/rp-diagnose:$PATH"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Bazel's TMPDIR is too long for Open MPI's unix socket paths.
export TMPDIR=/tmp
work=$(mktemp -d /tmp/rp-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
MPIRUN=(mpirun --oversubscribe --mca btl self,vader)
fail() {
  echo "FAIL: $*"
  exit 1
}
