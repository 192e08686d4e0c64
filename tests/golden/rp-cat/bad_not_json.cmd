rp-cat testdata/bad/not_json.ndjson
