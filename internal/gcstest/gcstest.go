// Package gcstest runs a Google Cloud Storage emulator (fake-gcs-server's
// fakestorage package) inside the test process, on 127.0.0.1 and a free port,
// and points the gocloud GCS driver at it with STORAGE_EMULATOR_HOST, the way a
// user points a program at an emulator.
//
// The emulator needs nothing outside the Go module, so it always runs: there
// is no skip.
package gcstest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"os"
	"sync"
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"
)

// EmulatorHostEnv is the variable that points Google's storage client (and so
// gocloud's gcsblob) at an emulator.
const EmulatorHostEnv = "STORAGE_EMULATOR_HOST"

// What GCS's JSON API answers, as JSON bodies, where fake-gcs-server checks
// nothing (a proxy in front of the emulator gives them, internal/faultproxy):
// InvalidCredentials with HTTP 401 to a key or token it refuses,
// NoListPermission with HTTP 403 to credentials that lack the permission.
const (
	InvalidCredentials = `{"error":{"code":401,"message":"Invalid Credentials","errors":[{"message":"Invalid Credentials",` +
		`"domain":"global","reason":"authError","locationType":"header","location":"Authorization"}]}}`
	NoListPermission = `{"error":{"code":403,"message":"sa@project.iam.gserviceaccount.com does not have storage.objects.list access ` +
		`to the Google Cloud Storage bucket. Permission 'storage.objects.list' denied on resource (or it may not exist).",` +
		`"errors":[{"message":"sa@project.iam.gserviceaccount.com does not have storage.objects.list access to the Google Cloud ` +
		`Storage bucket. Permission 'storage.objects.list' denied on resource (or it may not exist).","domain":"global","reason":"forbidden"}]}}`
)

// Server is a running emulator.
type Server struct {
	srv *fakestorage.Server
	// Endpoint is the emulator's base URL, http://127.0.0.1:PORT.
	Endpoint string
	// Host is Endpoint without its scheme: 127.0.0.1:PORT.
	Host string
}

// Start starts an emulator on 127.0.0.1 with a free port and no bucket. Close
// stops it.
func Start() (*Server, error) {
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{
		Scheme: "http",
		Host:   "127.0.0.1",
		// Reads go to the XML API at the emulator's own host
		// (http://127.0.0.1:PORT/bucket/object): without this it would take the
		// host for a bucket name.
		PublicHost: "127.0.0.1",
		Writer:     io.Discard,
	})
	if err != nil {
		return nil, fmt.Errorf("gcstest: start fake-gcs-server: %w", err)
	}
	u, err := url.Parse(srv.URL())
	if err != nil {
		srv.Stop()
		return nil, fmt.Errorf("gcstest: fake-gcs-server URL %q: %w", srv.URL(), err)
	}
	return &Server{srv: srv, Endpoint: srv.URL(), Host: u.Host}, nil
}

// NewBucket creates a bucket with a fresh random name and returns the name.
func (s *Server) NewBucket() string {
	name := RandomName("vfskit-")
	s.srv.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: name})
	return name
}

// Close stops the emulator.
func (s *Server) Close() { s.srv.Stop() }

var shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// Shared returns the test binary's emulator, starting it on first use and
// setting STORAGE_EMULATOR_HOST for the whole process (gs:// then reaches it
// through vfs's default registry). It fails t when the emulator cannot start.
func Shared(t testing.TB) *Server {
	t.Helper()
	shared.once.Do(func() {
		shared.srv, shared.err = Start()
		if shared.err == nil {
			shared.err = os.Setenv(EmulatorHostEnv, shared.srv.Host)
		}
	})
	if shared.err != nil {
		t.Fatalf("gcstest: %v", shared.err)
	}
	return shared.srv
}

// RandomName returns prefix followed by 16 random hex digits: a valid bucket
// name for GCS and a valid container name for Azure.
func RandomName(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// Fake returns the emulator itself, for tests that put or read objects under
// keys that no vfs path names.
func (s *Server) Fake() *fakestorage.Server { return s.srv }
