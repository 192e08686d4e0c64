# A tool that fails leaves the previous output as it was and no partial
# file: output goes to a temporary file renamed into place only on success.
# First a missing second input (the first was written already), then a
# write error (a file size limit: EFBIG), then SIGTERM (a background job
# ignores SIGINT, and rp keeps what it ignores); then a run
# that succeeds replaces it.
t=$(mktemp -d); echo previous > $t/out.ndjson; rp-cat testdata/traces/cpath.ndjson nothere.ndjson -o $t/out.ndjson 2>&1 | sed "s|$t|T|"; echo "exit ${PIPESTATUS[0]}"; (trap '' XFSZ; ulimit -f 1; for i in 1 2 3 4; do cat testdata/traces/cpath.ndjson; done | rp-cat -o $t/out.ndjson 2>&1 | sed "s|$t|T|"; echo "exit ${PIPESTATUS[1]}"); (cat testdata/traces/tiny.ndjson; sleep 2) | rp-cat -o $t/out.ndjson & sleep 0.5; kill -TERM $!; wait; cat $t/out.ndjson; ls -A $t; rp-cat testdata/traces/tiny.ndjson -o $t/out.ndjson && cmp $t/out.ndjson testdata/traces/tiny.ndjson && echo replaced; rm -rf $t
