# s2 and h2 log before s1, and s1 before h1 (their clocks behind): the
# orphans are joined link by link into one complete path h1 s1 s2 h2, each
# device 1 us, each link 0 (calibrated away).
rp-hops testdata/traces/hops_chain.ndjson
