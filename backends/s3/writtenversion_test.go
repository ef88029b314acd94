package s3_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/vfskit/vfskit/backends/internal/buckettest"
	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// TestWrittenVersion: a stream tells the ETag S3 answered the request that
// published its object with, for a small file (PutObject) and a multipart
// upload (CompleteMultipartUpload), and it is the ETag a read tells; telling
// it sends no request.
func TestWrittenVersion(t *testing.T) {
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			srv := s.start(t)
			c := s3test.NewCounter(nil)
			o := optionsFor(srv, c)
			o.PartSize = s3.MinPartSize
			fsys, _ := newFS(t, srv, o)
			for name, size := range map[string]int{"small": 5, "multipart": 2*s3.MinPartSize + 1} {
				t.Run(name, func(t *testing.T) {
					if srv.Name == "gofakes3" && name == "multipart" {
						// Its CompleteMultipartUpload answers "<md5 of the parts' md5s>-3",
						// and a read then tells the MD5 of the whole object: a version
						// that never matches, so an undo leaves the file.
						t.Skip("gofakes3 stores another ETag than the one it answers CompleteMultipartUpload with")
					}
					c.Reset()
					buckettest.WrittenVersion(t, fsys, vfs.MustPath("/"+name), size)
					assert.Zero(t, c.Count(s3test.OpHeadObject), "no HEAD")
				})
			}
		})
	}
}
