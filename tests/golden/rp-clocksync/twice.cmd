# rp-clocksync on its own output (header "clock":"global"): the ping-pong
# records describe local times no longer in the stream, so --method auto
# maps nothing again (said on stderr); rank 1's Recv stays at 2596-3000 as
# in repair.expected, not shifted by its offset a second time.
rp-clocksync testdata/traces/skewed.ndjson | rp-clocksync | rp-cat -t mpi | grep '"rank":1,"seq":0'
