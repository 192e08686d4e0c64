rp-cat --lenient testdata/bad/not_json.ndjson
