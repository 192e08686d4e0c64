# A topology file alone becomes link records, both directions of each line.
rp-pcap --topology testdata/pcap/fabric.txt
