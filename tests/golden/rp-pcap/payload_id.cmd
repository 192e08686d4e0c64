# Ids from the UDP payload's first 4 bytes (all zero in these packets).
rp-pcap --id payload switch_in@sw=testdata/pcap/sw1.in.pcap
