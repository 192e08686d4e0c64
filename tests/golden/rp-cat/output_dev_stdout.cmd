# -o /dev/stdout writes through standard output as the shell opened it
# (appending after >>), never renamed over the file it points to.
t=$(mktemp); echo before > $t; rp-cat --count testdata/traces/tiny.ndjson -o /dev/stdout >> $t; cat $t; rm -f $t
