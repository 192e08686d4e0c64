rp-cat testdata/bad/mid_record.ndjson
