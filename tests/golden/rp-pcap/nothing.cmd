# Neither captures nor a topology.
rp-pcap
