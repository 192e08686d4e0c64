# A capture spec with an unknown kind.
rp-pcap switch_through@sw:1=testdata/pcap/sw1.in.pcap
