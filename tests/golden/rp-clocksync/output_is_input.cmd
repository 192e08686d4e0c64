# An output that is one of the inputs is refused before anything is
# written: the trace is left as it was.
t=$(mktemp -d); cp testdata/traces/skewed.ndjson $t/run.ndjson; (cd $t && rp-clocksync run.ndjson -o run.ndjson); echo "exit $?"; cmp $t/run.ndjson testdata/traces/skewed.ndjson && echo unchanged; ls -A $t; rm -rf $t
