rp-record --help | grep -c -- "--merge"
