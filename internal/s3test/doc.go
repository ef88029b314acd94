// Package s3test runs S3-compatible servers for vfskit's tests and counts the
// requests a client sends them. It is internal test support: the s3 backend's,
// checkpointstorage's and the command's tests use it.
//
// Two servers are offered, both on 127.0.0.1 only:
//
//   - SeaweedFS (the real server): [SeaweedFS] starts one `weed mini` process per
//     test binary, on first use, with free random ports, a fresh data directory,
//     its own credentials and a bucket; [Main] stops it when the tests end.
//     [StartSeaweedFS] starts a private one for callers that need control, and
//     [PrivateSeaweedFS] one of the test's own; such a server can be killed with
//     SIGKILL ([Server.Kill], as a crash would) and started again on the same
//     ports, data and credentials ([Server.Restart]), for crash tests. The fault
//     proxy in internal/faultproxy goes in front of either.
//   - gofakes3 (in process, fast): [GoFakeS3] starts a fresh one per test.
//
// Both return a [*Server] that tells the endpoint, region, credentials and
// default bucket, makes fresh buckets ([Server.NewBucket]) and builds plain AWS
// SDK clients for them ([Server.Client]).
//
// # Finding the SeaweedFS binary
//
// The `weed` binary is taken from $VFSKIT_WEED_BIN, else from the cache that
// scripts/build-seaweedfs.sh fills (${VFSKIT_CACHE_DIR:-$HOME/.cache/vfskit}/
// seaweedfs-<version>/weed). When neither exists and VFSKIT_REQUIRE_S3=1, the
// script is run to build it (about five minutes, once per machine).
//
// # Policy: skip or fail
//
// With VFSKIT_REQUIRE_S3=1 (set by `make test` and so by CI) a server that
// cannot start fails the test. Without it (a plain `go test`) the test is
// skipped with a message saying how to get the server: `make s3-server`
// builds it, `make test` builds and uses it.
//
// # Counting requests
//
// [Counter] is an http.RoundTripper that records every request by S3
// operation (PutObject, GetObject, ListObjectsV2, DeleteObjects, UploadPart, ...)
// and the body bytes sent and received, so tests can assert how many requests an
// operation costs. [Breaker] is a RoundTripper that fails chosen requests, to
// simulate a server that goes away.
//
// # Example
//
//	func TestMain(m *testing.M) { os.Exit(s3test.Main(m)) }
//
//	func TestSomething(t *testing.T) {
//		srv := s3test.SeaweedFS(t) // or s3test.GoFakeS3(t)
//		bucket := srv.NewBucket(t)
//		counter := s3test.NewCounter(nil)
//		client := srv.Client(counter.HTTPClient())
//		_, err := client.PutObject(t.Context(), &s3.PutObjectInput{
//			Bucket: aws.String(bucket), Key: aws.String("a/b"), Body: strings.NewReader("hi"),
//		})
//		require.NoError(t, err)
//		require.Equal(t, 1, counter.Count(s3test.OpPutObject))
//	}
package s3test
