#!/usr/bin/env bash
# Builds the pinned rclone binary (the baseline of make bench's copy rows) from
# the Go module proxy into a cache directory outside the repository, once.
# Prints the binary's path.
set -euo pipefail

version="${RCLONE_VERSION:-v1.76.0}"
cache="${VFSKIT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/vfskit}"
bin="$cache/rclone-$version/rclone"

if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi

mkdir -p "$cache"
lock="$cache/rclone-$version.lock"
exec 9>"$lock"
flock 9
if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi

echo "building rclone $version into $bin (first time only, a few minutes)" >&2
mkdir -p "$(dirname "$bin")"
GOBIN="$(dirname "$bin")/gobin" GOFLAGS=-mod=mod go install "github.com/rclone/rclone@$version"
mv "$(dirname "$bin")/gobin/rclone" "$bin"
rmdir "$(dirname "$bin")/gobin"
echo "$bin"
