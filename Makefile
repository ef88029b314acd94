# vfskit — build, test and try it.
#
#   make test       gofmt check, go vet, and the whole suite with -race (and one iteration
#                   of every benchmark), including the conformance suite on a real S3
#                   server (SeaweedFS, built once into $(VFSKIT_CACHE_DIR) from the Go
#                   module proxy, started by the tests), on Azurite (the Azure Blob
#                   emulator, installed once into $(VFSKIT_CACHE_DIR) with npm; needs
#                   Node.js) and on fake-gcs-server (in the test process)
#   make bench      the Go benchmarks (benchstat-friendly, also kept in bench/gobench.txt:
#                   benchstat old.txt bench/gobench.txt), then cmd/vfsbench: the
#                   measures against their baselines (vfskit cp against rclone, built once
#                   into $(VFSKIT_CACHE_DIR) from the Go module proxy, among them), a
#                   Markdown table (bench/results.md)
#                   and bench/results.json; about 10-15 minutes on 2 busy cores
#   make chaos      the fault runs (every TestChaos* test: faults injected, nothing may be
#                   lost or misreported) at full length, CHAOS_CYCLES cycles each (minutes);
#                   make test runs their short form
#   make fuzz       a short run of every fuzz target
#   make flink-matrix  the Flink interop tests (interop/flink) on every Flink version the
#                   harness lists (make test runs them for 1.20 and the newest 2.x); the
#                   harness builds itself with Maven (JDK 17 and Maven needed; jars in ~/.m2)
#   make s3-server  SeaweedFS in the foreground on 127.0.0.1, for trying vfskit on S3
#   make demo       the demo job (same as go run ./cmd/vfskit demo)

GO          ?= go
GOTESTFLAGS ?= -race -count=1 -timeout 40m
BENCHFLAGS  ?= -run '^$$' -bench . -benchmem -count 3
VFSBENCHFLAGS ?=
BENCHSMOKE  ?= -bench . -benchtime 1x
FUZZTIME    ?= 20s
CHAOS_CYCLES ?= 100
export VFSKIT_CACHE_DIR ?= $(HOME)/.cache/vfskit

.PHONY: all test fmt-check vet seaweedfs rclone azurite bench fuzz chaos s3-server demo build flink-matrix

all: build test

build:
	$(GO) build ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# Builds (once) and prints the SeaweedFS binary used by the S3 tests.
seaweedfs:
	@scripts/build-seaweedfs.sh

# Builds (once) and prints the rclone binary make bench's copy measures run
# against vfskit cp.
rclone:
	@scripts/build-rclone.sh

# Installs (once) and prints the Azurite command used by the azblob tests.
azurite:
	@scripts/install-azurite.sh

# Under make test a missing S3 server, Azurite (no Node.js), Java or Maven is a failure,
# never a skip (VFSKIT_REQUIRE_S3=1, VFSKIT_REQUIRE_AZURITE=1, VFSKIT_REQUIRE_FLINK=1).
# Every Go benchmark runs once (BENCHSMOKE) and TestBenchSmoke runs every measure of
# cmd/vfsbench with tiny sizes, so the benchmarks cannot rot; make bench times them.
test: fmt-check vet
	@weed=$$(scripts/build-seaweedfs.sh) && azurite=$$(scripts/install-azurite.sh) && \
	rclone=$$(scripts/build-rclone.sh) && \
	VFSKIT_REQUIRE_S3=1 VFSKIT_WEED_BIN="$$weed" VFSKIT_RCLONE_BIN="$$rclone" VFSKIT_REQUIRE_FLINK=1 \
	VFSKIT_REQUIRE_AZURITE=1 VFSKIT_AZURITE_BIN="$$azurite" $(GO) test $(GOTESTFLAGS) $(BENCHSMOKE) ./...

# Every Flink version interop/flink/flink lists (VFSKIT_FLINK_VERSIONS=all); each
# version's harness is built once (interop/flink/flink VERSION build) into
# $(VFSKIT_CACHE_DIR)/flink.
FLINK_TIMEOUT ?= 120m
flink-matrix:
	@weed=$$(scripts/build-seaweedfs.sh) && \
	VFSKIT_FLINK_VERSIONS=all VFSKIT_REQUIRE_FLINK=1 VFSKIT_REQUIRE_S3=1 VFSKIT_WEED_BIN="$$weed" \
	$(GO) test -race -count=1 -timeout $(FLINK_TIMEOUT) -v -run '^TestFlink' ./interop/flink/

# Each TestChaos* test reads VFSKIT_CHAOS_CYCLES (internal/chaos.Cycles) and
# VFSKIT_CHAOS_SEED (a fresh seed when unset; every run prints the one it used)
# and prints its summary: one-line "chaos NAME: ..." counts, and the table of
# TestChaosCheckpoints between "chaos summary" and "chaos end". The full log is
# kept in a temporary file. Bounded: CHAOS_TIMEOUT for the whole run.
CHAOS_TIMEOUT ?= 45m
chaos:
	@weed=$$(scripts/build-seaweedfs.sh) && azurite=$$(scripts/install-azurite.sh) && \
	log=$$(mktemp -t vfskit-chaos.XXXXXX) && \
	echo "chaos: $(CHAOS_CYCLES) cycles per run; full log in $$log" && \
	{ VFSKIT_CHAOS_CYCLES=$(CHAOS_CYCLES) VFSKIT_REQUIRE_S3=1 VFSKIT_WEED_BIN="$$weed" \
	  VFSKIT_REQUIRE_AZURITE=1 VFSKIT_AZURITE_BIN="$$azurite" \
	  $(GO) test -race -count=1 -timeout $(CHAOS_TIMEOUT) -v -run '^TestChaos' ./... >"$$log" 2>&1; status=$$?; } ; \
	awk '/^chaos summary/ {t=1} t {print} /^chaos end/ {t=0; next} \
	  !t && /^(chaos |--- FAIL|FAIL|ok |.*chaos: seed )/ && !/no tests to run/ {print}' "$$log"; exit $$status

# Each step's output is shown when it ends (and kept in bench/); the exit status is
# the steps' own (a missed target is not a failure: the table says so).
bench:
	@mkdir -p bench && weed=$$(scripts/build-seaweedfs.sh) && rclone=$$(scripts/build-rclone.sh) && \
	echo "go test $(BENCHFLAGS) ./... > bench/gobench.txt" && \
	{ $(GO) test $(BENCHFLAGS) ./... > bench/gobench.txt 2>&1; s=$$?; cat bench/gobench.txt; [ $$s = 0 ]; } && \
	echo "go run ./cmd/vfsbench $(VFSBENCHFLAGS) > bench/results.md" && \
	VFSKIT_REQUIRE_S3=1 VFSKIT_WEED_BIN="$$weed" VFSKIT_RCLONE_BIN="$$rclone" $(GO) run ./cmd/vfsbench -out bench/results.json $(VFSBENCHFLAGS) > bench/results.md && \
	cat bench/results.md

fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

s3-server:
	@weed=$$(scripts/build-seaweedfs.sh) && VFSKIT_WEED_BIN="$$weed" scripts/s3-server.sh

demo:
	$(GO) run ./cmd/vfskit demo
