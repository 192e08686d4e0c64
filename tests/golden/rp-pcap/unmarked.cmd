# No packet carries DSCP 11: nothing to follow, exit 1.
rp-pcap --dscp 11 switch_in@sw:1=testdata/pcap/sw1.in.pcap
