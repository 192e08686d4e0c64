# A packet that left for a silent device whose only other link leads back:
# not joined to itself; one gap path.
rp-hops testdata/traces/hops_silentself.ndjson
