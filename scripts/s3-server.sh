#!/usr/bin/env bash
# Starts the pinned SeaweedFS as a local S3-compatible server in the foreground,
# for trying vfskit on S3 by hand (`make s3-server`). Ctrl-C stops it.
#
# Settings (environment, all optional):
#   VFSKIT_S3_PORT     S3 port on 127.0.0.1            (default 8333)
#   VFSKIT_S3_BUCKET   bucket created at start         (default vfskit)
#   VFSKIT_S3_DIR      data directory, kept on restart (default ${TMPDIR:-/tmp}/vfskit-s3)
#   AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY
#                      the server's admin credentials  (default vfskit / vfskit-local-secret)
# The other SeaweedFS services use ports 9340-9343 and their gRPC twins 19340-19343
# (and the S3 port + 10000); it listens on 127.0.0.1 only.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="${VFSKIT_WEED_BIN:-$("$here/build-seaweedfs.sh")}"

port="${VFSKIT_S3_PORT:-8333}"
bucket="${VFSKIT_S3_BUCKET:-vfskit}"
dir="${VFSKIT_S3_DIR:-${TMPDIR:-/tmp}/vfskit-s3}"
key="${AWS_ACCESS_KEY_ID:-vfskit}"
secret="${AWS_SECRET_ACCESS_KEY:-vfskit-local-secret}"
mkdir -p "$dir"

cat <<MSG
SeaweedFS S3 server (local development only)
  endpoint: http://127.0.0.1:$port
  bucket:   $bucket
  data:     $dir
In another shell:
  export AWS_ENDPOINT_URL_S3=http://127.0.0.1:$port
  export AWS_ACCESS_KEY_ID=$key
  export AWS_SECRET_ACCESS_KEY=$secret
  export AWS_REGION=us-east-1
  export VFSKIT_S3_PATH_STYLE=true
  go run ./cmd/vfskit ls s3://$bucket/
The S3 endpoint answers about 10 seconds after start. Ctrl-C stops the server.
MSG

export AWS_ACCESS_KEY_ID="$key" AWS_SECRET_ACCESS_KEY="$secret"
exec "$bin" mini -dir="$dir" -ip=127.0.0.1 -ip.bind=127.0.0.1 \
  -admin.ui=false -webdav=false \
  -master.port=9340 -volume.port=9341 -filer.port=9342 -admin.port=9343 -admin.port.legacy=0 \
  -s3.port="$port" -s3.port.iceberg=0 -s3.port.lance=0 \
  -s3.autoCreateBucket=false -bucket="$bucket"
