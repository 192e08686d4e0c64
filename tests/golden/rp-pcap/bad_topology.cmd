# A topology line without a port: the file and line are named, exit 2.
rp-pcap --topology testdata/pcap/bad_fabric.txt
