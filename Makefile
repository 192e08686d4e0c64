# rp: thin wrapper over Bazel. `make demo` and `make test` install the
# Debian packages they need first (idempotent; sudo when not root).
BAZEL ?= bazel
PREFIX ?= /usr/local

DEBIAN_PACKAGES := bazel-bootstrap bazel-platforms g++ zstd libzstd-dev \
  libsimdjson-dev libspdlog-dev libfmt-dev libcli11-dev libgtest-dev \
  libbenchmark-dev openmpi-bin libopenmpi-dev gfortran libunwind-dev \
  libdw-dev libelf-dev faketime libfaketime python3 bc chromium \
  lammps lammps-examples libns3-dev libgsl-dev libsqlite3-dev \
  tcpdump libpcap-dev iproute2 libotf2-trace-dev otf2-tools protobuf-compiler \
  zlib1g-dev libdeflate-dev

BINARIES := rp-cat rp-record rp-clocksync rp-phases rp-cpath rp-report rp-repr rp-diagnose rp-hops \
  rp-ns3-incast rp-pcap

.PHONY: deps build demo test lammps bench golden docs install clean

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

# The bundled example: a halo exchange on 8 ranks where rank 3 computes
# 1 ms longer per iteration, recorded and summarised.
DEMO_RUN := mpirun -np 8 --oversubscribe --mca btl self,vader \
  bazel-bin/tests/apps/halo -n 200 -u 2000 -s 3 -x 1000
demo: build
	@mkdir -p demo-out
	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
	  bazel-bin/cmd/rp-record/rp-record -o demo-out/halo.ndjson.zst -- $(DEMO_RUN)
	bazel-bin/cmd/rp-cat/rp-cat --validate demo-out/halo.ndjson.zst
	bazel-bin/cmd/rp-cat/rp-cat --summary demo-out/halo.ndjson.zst
	bazel-bin/cmd/rp-clocksync/rp-clocksync demo-out/halo.ndjson.zst \
	  | bazel-bin/cmd/rp-phases/rp-phases -o demo-out/phased.ndjson.zst
	bazel-bin/cmd/rp-cpath/rp-cpath -o demo-out/cpath.ndjson.zst demo-out/phased.ndjson.zst
	bazel-bin/cmd/rp-report/rp-report demo-out/cpath.ndjson.zst
	bazel-bin/cmd/rp-repr/rp-repr -k 5 --format text demo-out/phased.ndjson.zst
	bazel-bin/cmd/rp-diagnose/rp-diagnose --format text demo-out/phased.ndjson.zst
	bazel-bin/cmd/rp-ns3-incast/rp-ns3-incast -o demo-out/incast.ndjson.zst
	bazel-bin/cmd/rp-hops/rp-hops --format text demo-out/incast.ndjson.zst
	bazel-bin/cmd/rp-hops/rp-hops --format html -o demo-out/network.html demo-out/incast.ndjson.zst

test: deps
	$(BAZEL) test //...
	BAZEL=$(BAZEL) tests/build/mpi_free.sh
	$(BAZEL) build //cmd/...
	tests/apps/lammps/run_lammps.sh /tmp/rp-lammps-test 2

# LAMMPS (Debian's lammps) through the whole pipeline: reports in
# demo-out/lammps (report.txt, report.html).
lammps: build
	tests/apps/lammps/run_lammps.sh demo-out/lammps 2

# Speed and memory figures (README "Performance").
bench: build
	$(BAZEL) build //tests/bench:all
	bazel-bin/tests/bench/trace_bench
	tests/bench/collector_bench.sh
	tests/bench/init_bench.sh
	tests/bench/stages_bench.sh
	tests/bench/pipeline_bench.sh
	tests/bench/hops_bench.sh
	tests/bench/perfetto_bench.sh
	tests/bench/parallel_bench.sh
	tests/bench/online_bench.sh

# Regenerate the CLI golden files after an intended output change.
golden: build
	tests/golden/run_golden.sh --update

# Regenerate README's record-schema section from lib/trace/schema.h.
docs: build
	tests/docs/readme_schema.sh --update

# rp-record finds the collector at PREFIX/lib/rp/librpcollect.so.
install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/rp
	for b in $(BINARIES); do install -m 755 bazel-bin/cmd/$$b/$$b $(DESTDIR)$(PREFIX)/bin/; done
	install -m 755 bazel-bin/collector/librpcollect.so $(DESTDIR)$(PREFIX)/lib/rp/

clean:
	$(BAZEL) clean
