rp-cat --version
