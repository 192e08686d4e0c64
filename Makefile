# rp: thin wrapper over Bazel. `make demo` and `make test` install the
# Debian packages they need first (idempotent; sudo when not root).
BAZEL ?= bazel
PREFIX ?= /usr/local

DEBIAN_PACKAGES := bazel-bootstrap bazel-platforms g++ zstd libzstd-dev \
  libsimdjson-dev libspdlog-dev libfmt-dev libcli11-dev libgtest-dev \
  libbenchmark-dev openmpi-bin libopenmpi-dev gfortran libunwind-dev \
  libdw-dev libelf-dev faketime libfaketime

BINARIES := rp-cat

.PHONY: deps build demo test bench golden docs install clean

deps:
	@missing=""; \
	for p in $(DEBIAN_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  sudo=""; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	  echo "installing Debian packages:$$missing"; \
	  $$sudo apt-get update -q && \
	  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -q --no-install-recommends $$missing; \
	fi

build: deps
	$(BAZEL) build //...

# Until rp-record lands, the demo generates a halo-exchange trace and checks it.
demo: build
	@mkdir -p demo-out
	bazel-bin/tests/synth/gen_halo --ranks 16 --events 200000 -o demo-out/halo.ndjson.zst
	bazel-bin/cmd/rp-cat/rp-cat --validate demo-out/halo.ndjson.zst
	bazel-bin/cmd/rp-cat/rp-cat --count demo-out/halo.ndjson.zst

test: deps
	$(BAZEL) test //...

# Speed and memory figures (README "Performance").
bench: deps
	$(BAZEL) build //tests/bench:all
	bazel-bin/tests/bench/trace_bench

# Regenerate the CLI golden files after an intended output change.
golden: build
	tests/golden/run_golden.sh --update

# Regenerate README's record-schema section from lib/trace/schema.h.
docs: build
	tests/docs/readme_schema.sh --update

install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	for b in $(BINARIES); do install -m 755 bazel-bin/cmd/$$b/$$b $(DESTDIR)$(PREFIX)/bin/; done

clean:
	$(BAZEL) clean
