# An 802.11 capture: a clear error naming the file, exit 2.
rp-pcap switch_in@sw:1=testdata/pcap/wifi.pcap
