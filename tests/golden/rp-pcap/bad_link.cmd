# A link without the peer's port.
rp-pcap --link h1:0=sw switch_in@sw:1=testdata/pcap/sw1.in.pcap
