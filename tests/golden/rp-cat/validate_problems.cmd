rp-cat --validate testdata/bad/inconsistent.ndjson
