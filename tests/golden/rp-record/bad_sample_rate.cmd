rp-record --sample-hz -5 -- true
