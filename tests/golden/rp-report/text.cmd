# A saved analysis renders as rp-cpath --format text showed it when it ran.
t=$(mktemp); rp-cpath -o $t testdata/traces/cpath.ndjson; rp-report $t; rp-cpath --format text testdata/traces/cpath.ndjson | diff - <(rp-report $t) && echo "same as rp-cpath --format text"; rm -f $t
