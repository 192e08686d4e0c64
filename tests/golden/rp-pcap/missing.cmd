# A capture that is not there.
rp-pcap switch_in@sw:1=testdata/pcap/none.pcap
