package s3_test

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

var benchSizes = []int{64 << 10, 16 << 20}

// BenchmarkWrite compares writing an object through vfskit (Create + Write +
// Close, streaming, multipart above 8 MiB) with one plain SDK PutObject of the
// same bytes, on an in-process gofakes3.
func BenchmarkWrite(b *testing.B) {
	srv := s3test.GoFakeS3(b)
	fsys, bucket := newFS(b, srv, optionsFor(srv, nil))
	strict := strictOn(b, srv, bucket)
	client := srv.Client(nil)
	for _, size := range benchSizes {
		data := bytes.Repeat([]byte{7}, size)
		for name, f := range map[string]vfs.FileSystem{"vfskit": fsys, "vfskit-strict": strict} {
			b.Run(fmt.Sprintf("%s/%dKiB", name, size>>10), func(b *testing.B) {
				b.SetBytes(int64(size))
				for i := 0; b.Loop(); i++ {
					if err := vfs.WriteFile(b.Context(), f, vfs.MustPath(fmt.Sprintf("/w/%d", i%4)), data, vfs.Overwrite); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		b.Run(fmt.Sprintf("sdk/%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(size))
			for i := 0; b.Loop(); i++ {
				_, err := client.PutObject(b.Context(), &awss3.PutObjectInput{
					Bucket: aws.String(bucket), Key: aws.String(fmt.Sprintf("sdk/%d", i%4)), Body: bytes.NewReader(data),
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRead compares reading a whole object through vfskit (Open + io.Copy)
// with a plain SDK GetObject, on an in-process gofakes3.
func BenchmarkRead(b *testing.B) {
	srv := s3test.GoFakeS3(b)
	fsys, bucket := newFS(b, srv, optionsFor(srv, nil))
	strict := strictOn(b, srv, bucket)
	client := srv.Client(nil)
	for _, size := range benchSizes {
		key := fmt.Sprintf("r/%d", size)
		if err := vfs.WriteFile(b.Context(), fsys, vfs.MustPath("/"+key), bytes.Repeat([]byte{9}, size), vfs.Overwrite); err != nil {
			b.Fatal(err)
		}
		for name, f := range map[string]vfs.FileSystem{"vfskit": fsys, "vfskit-strict": strict} {
			b.Run(fmt.Sprintf("%s/%dKiB", name, size>>10), func(b *testing.B) {
				b.SetBytes(int64(size))
				for b.Loop() {
					in, err := f.Open(b.Context(), vfs.MustPath("/"+key))
					if err != nil {
						b.Fatal(err)
					}
					if n, err := io.Copy(io.Discard, in); err != nil || n != int64(size) {
						b.Fatal(n, err)
					}
					_ = in.Close()
				}
			})
		}
		b.Run(fmt.Sprintf("sdk/%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				out, err := client.GetObject(b.Context(), &awss3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
				if err != nil {
					b.Fatal(err)
				}
				if n, err := io.Copy(io.Discard, out.Body); err != nil || n != int64(size) {
					b.Fatal(n, err)
				}
				_ = out.Body.Close()
			}
		})
	}
}

// strictOn returns a Strict file system on an existing bucket of srv.
func strictOn(b *testing.B, srv *s3test.Server, bucket string) vfs.FileSystem {
	o := optionsFor(srv, nil)
	o.Strict = true
	f, err := s3.New(b.Context(), bucket, o)
	if err != nil {
		b.Fatal(err)
	}
	return f
}
