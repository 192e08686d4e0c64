# The paths of tests/golden/rp-repr/phases.cmd as people read them: per
# cluster each kept path's mean cost and share of its phase's time, then
# what the 100% path spent more than the 0% path, by function.
rp-phases testdata/traces/cpath.ndjson | rp-repr -k 3 --format text
