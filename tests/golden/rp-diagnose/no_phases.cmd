# Without rp-phases the run is one phase, ending at MPI_Finalize: no
# synchronization closes it, so no imbalance is measured, and rp-diagnose
# says to run rp-phases. The efficiencies are the run's.
rp-diagnose --no-passthrough testdata/traces/cpath.ndjson
