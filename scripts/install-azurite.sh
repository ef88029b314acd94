#!/usr/bin/env bash
# Installs the pinned Azurite (the Azure Storage emulator, an npm package) into a
# cache directory outside the repository, once, with the ordinary npm client.
# Prints the path of its azurite-blob command. Needs Node.js and npm.
set -euo pipefail

version="${AZURITE_VERSION:-3.37.0}"
cache="${VFSKIT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/vfskit}"
dir="$cache/azurite-$version"
bin="$dir/node_modules/.bin/azurite-blob"

if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi
for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "install-azurite: $tool is not installed; Azurite (the Azure Blob emulator the azblob:// tests use) needs Node.js and npm" >&2; exit 1; }
done

mkdir -p "$cache"
exec 9>"$cache/azurite-$version.lock"
flock 9
if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi

echo "installing Azurite $version into $dir (first time only)" >&2
rm -rf "$dir.tmp"
npm install --prefix "$dir.tmp" --no-audit --no-fund --loglevel=error "azurite@$version" >&2
rm -rf "$dir"
mv "$dir.tmp" "$dir"
echo "$bin"
