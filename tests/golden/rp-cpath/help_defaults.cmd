# Every option that takes a value shows its default and allowed values;
# no flag shows a "{false}".
for t in rp-cat rp-clocksync rp-phases rp-cpath rp-repr rp-diagnose rp-report rp-record; do echo "== $t"; $t --help | grep -E "\(.*default|\{false\}" | sed 's/  */ /g'; done
