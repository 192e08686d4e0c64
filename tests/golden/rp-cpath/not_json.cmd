rp-cpath testdata/bad/not_json.ndjson
