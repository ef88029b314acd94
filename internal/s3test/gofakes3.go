package s3test

import (
	"io"
	"log"
	"net/http/httptest"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// GoFakeS3 starts an in-process gofakes3 server (in memory) on 127.0.0.1 for the
// duration of the test, with a bucket (Server.Bucket) and fixed test
// credentials. It is fast and needs nothing installed; t.Cleanup stops it.
func GoFakeS3(t testing.TB) *Server {
	t.Helper()
	srv, err := StartGoFakeS3()
	if err != nil {
		t.Fatalf("s3test: start gofakes3: %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// StartGoFakeS3 starts an in-process gofakes3 server on 127.0.0.1 and creates a
// bucket. Close stops it.
func StartGoFakeS3() (*Server, error) {
	backend := s3mem.New()
	faker := gofakes3.New(backend, gofakes3.WithAutoBucket(false))
	hs := httptest.NewUnstartedServer(faker.Server()) // httptest listens on 127.0.0.1
	// gofakes3 writes some error headers twice; net/http's complaint is noise.
	hs.Config.ErrorLog = log.New(io.Discard, "", 0)
	hs.Start()
	srv := &Server{
		Name:            "gofakes3",
		Endpoint:        hs.URL,
		Region:          Region,
		AccessKeyID:     "GOFAKES3KEY",
		SecretAccessKey: "gofakes3-secret",
		Bucket:          RandomName("vfskit-"),
		stop: func() error {
			hs.CloseClientConnections()
			hs.Close()
			return nil
		},
	}
	if err := backend.CreateBucket(srv.Bucket); err != nil {
		hs.Close()
		return nil, err
	}
	return srv, nil
}
