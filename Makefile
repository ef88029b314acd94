# vfskit — build, test and try it.
#
#   make test       gofmt check, go vet, and the whole suite with -race, including the
#                   conformance suite on a real S3 server (SeaweedFS, built once into
#                   $(VFSKIT_CACHE_DIR) from the Go module proxy, started by the tests)
#   make bench      benchmarks, benchstat-friendly (make bench > new.txt; benchstat old.txt new.txt)
#   make fuzz       a short run of every fuzz target
#   make s3-server  SeaweedFS in the foreground on 127.0.0.1, for trying vfskit on S3
#   make demo       the demo job (same as go run ./cmd/vfskit demo)

GO          ?= go
GOTESTFLAGS ?= -race -count=1 -timeout 40m
BENCHFLAGS  ?= -run '^$$' -bench . -benchmem -count 6
FUZZTIME    ?= 20s
export VFSKIT_CACHE_DIR ?= $(HOME)/.cache/vfskit

.PHONY: all test fmt-check vet seaweedfs bench fuzz s3-server demo build

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

# Under make test a missing S3 server is a failure, never a skip (VFSKIT_REQUIRE_S3=1).
test: fmt-check vet
	@weed=$$(scripts/build-seaweedfs.sh) && \
	VFSKIT_REQUIRE_S3=1 VFSKIT_WEED_BIN="$$weed" $(GO) test $(GOTESTFLAGS) ./...

bench:
	$(GO) test $(BENCHFLAGS) ./...

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
