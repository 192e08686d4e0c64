# A capture cut inside its first packet: a warning naming the file, the
# packets before the cut kept (none here), so nothing marked: exit 1.
rp-pcap switch_in@sw:1=testdata/pcap/cut.pcap
