#!/bin/sh
# Runs one MPI rank under libfaketime with its own clock offset and rate:
# RP_SKEWS="OFFSET:RATE ..." gives, for rank 0, 1, ..., the seconds added
# to the clock and its speed (1.0001 = 100 ppm fast).
#   mpirun -np 4 -x RP_SKEWS skewed_rank.sh ./app
set -e
rank=${OMPI_COMM_WORLD_RANK:?not started by Open MPI}
spec=$(echo "$RP_SKEWS" | tr ' ' '\n' | sed -n "$((rank + 1))p")
[ -n "$spec" ] || spec="+0:1"
faketime=$(ls /usr/lib/*/faketime/libfaketime.so.1 2>/dev/null | head -1)
[ -n "$faketime" ] || { echo "libfaketime not found (Debian package libfaketime)" >&2; exit 2; }
export LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$faketime"
export FAKETIME="${spec%%:*} x${spec#*:}"
exec "$@"
