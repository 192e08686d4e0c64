seq 1 5000 | gzip -n | rp-cat
