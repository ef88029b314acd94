#!/usr/bin/env bash
# Builds the pinned SeaweedFS `weed` binary from the Go module proxy into a cache
# directory outside the repository, once. Prints the binary's path.
#
# SeaweedFS's go.mod has replace directives, so `go install pkg@version` refuses it:
# we download the module, copy its source to a writable directory and build there.
set -euo pipefail

version="${SEAWEEDFS_VERSION:-v0.0.0-20261109003541-7506e5f91cd6}"
cache="${VFSKIT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/vfskit}"
bin="$cache/seaweedfs-$version/weed"

if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi

mkdir -p "$cache"
lock="$cache/seaweedfs-$version.lock"
exec 9>"$lock"
flock 9
if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi

echo "building SeaweedFS $version into $bin (first time only, about 5 minutes)" >&2
dir=$(GOFLAGS=-mod=mod go mod download -json "github.com/seaweedfs/seaweedfs@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -n "$dir" ] && [ -d "$dir" ] || { echo "go mod download of seaweedfs@$version failed" >&2; exit 1; }

src="$cache/seaweedfs-$version/src"
rm -rf "$src"
mkdir -p "$src"
cp -R "$dir/." "$src/"
chmod -R u+w "$src"
(cd "$src" && GOFLAGS=-buildvcs=false go build -o "$bin.tmp" ./weed)
mv "$bin.tmp" "$bin"
rm -rf "$src"
echo "$bin"
