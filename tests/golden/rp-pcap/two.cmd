# Two captures of the same 3 packets (testdata/pcap, cut from a
# bridge_incast.sh run): h1's egress and the switch's port 1 ingress, as
# `tcpdump -nn -v --time-stamp-precision=nano -r` shows them: ids 52298-52300
# (tos 0x28 = DSCP 10), 1042 bytes on the wire (1028 of IPv4 and 14 of
# Ethernet), h1 at .242535137, .243186406, .243855401 and the switch
# 5.7, 0.8 and 1.3 us later. Merged by time; two kinds from one capture.
rp-pcap --link h1:0=sw:1,10G,500 --name 10.77.0.2=h1 --name 10.77.0.1=r host_send+nic_tx@h1:0=testdata/pcap/h1.out.pcap switch_in@sw:1=testdata/pcap/sw1.in.pcap
