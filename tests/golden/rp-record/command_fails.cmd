rm -rf /tmp/rp-golden-fail.ndjson.raw; rp-record -o /tmp/rp-golden-fail.ndjson -- false; echo "exit $?"; rm -rf /tmp/rp-golden-fail.ndjson.raw
