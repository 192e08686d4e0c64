#!/bin/sh
# Runs a rank under another host name (its own UTS namespace): ranks of
# world rank < RP_SPLIT_AT are "host-a", the others "host-b". They still
# share the machine's boot id and clock, so that the measured offsets
# between the two "hosts" must come out near zero.
#   as_host.sh APP ARGS...
rank=${OMPI_COMM_WORLD_RANK:?not started by Open MPI}
if [ "$rank" -lt "${RP_SPLIT_AT:-1}" ]; then name=host-a; else name=host-b; fi
exec unshare --uts sh -c 'hostname "$0"; exec "$@"' "$name" "$@"
