package s3_test

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// TestStreamReadsOneVersion replaces an object, from another client, while a
// stream is reading it: every later Read, ReadAt and Seek+Read of the stream
// fails with vfs.ErrChanged, and no byte of the new version is ever returned.
func TestStreamReadsOneVersion(t *testing.T) {
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			srv := s.start(t)
			c := s3test.NewCounter(nil)
			fsys, bucket := newFS(t, srv, optionsFor(srv, c))
			other := srv.Client(nil)
			ctx := t.Context()
			put := func(key string, data []byte) {
				t.Helper()
				_, err := other.PutObject(ctx, &awss3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(data)})
				require.NoError(t, err, "PutObject %q from another client", key)
			}
			const size = 64 << 10
			v1 := bytes.Repeat([]byte{'1'}, size)
			// v2 has v1's size, so only the version (ETag) tells them apart, and a
			// shorter v3 checks a shrunk object too.
			v2 := bytes.Repeat([]byte{'2'}, size)
			v3 := bytes.Repeat([]byte{'3'}, size/2)

			// first reads 1 KiB at 4 KiB the way each case starts a stream.
			type start struct {
				name  string
				first func(in vfs.InputStream) error
			}
			starts := []start{
				{"Read", func(in vfs.InputStream) error {
					_, err := in.Seek(4096, io.SeekStart)
					require.NoError(t, err)
					_, err = io.ReadFull(in, make([]byte, 1024))
					return err
				}},
				{"ReadAt", func(in vfs.InputStream) error {
					_, err := in.ReadAt(make([]byte, 1024), 4096)
					return err
				}},
				{"SeekEnd", func(in vfs.InputStream) error { // a HEAD pins the version
					_, err := in.Seek(-size+4096, io.SeekEnd)
					return err
				}},
			}
			// then reads again after the replacement, in each way.
			thens := map[string]func(in vfs.InputStream, buf []byte) (int, error){
				"SeekRead": func(in vfs.InputStream, buf []byte) (int, error) {
					if _, err := in.Seek(100, io.SeekStart); err != nil {
						return 0, err
					}
					return io.ReadFull(in, buf)
				},
				"ReadAt": func(in vfs.InputStream, buf []byte) (int, error) { return in.ReadAt(buf, 100) },
			}
			for _, st := range starts {
				for thenName, then := range thens {
					for _, repl := range []struct {
						name string
						data []byte
					}{{"SameSize", v2}, {"Shorter", v3}, {"Deleted", nil}} {
						t.Run(st.name+"/"+thenName+"/"+repl.name, func(t *testing.T) {
							p := vfs.MustPath("/f-" + st.name + "-" + thenName + "-" + repl.name)
							key := p.Path()[1:]
							put(key, v1)
							in, err := fsys.Open(ctx, p)
							require.NoError(t, err)
							defer in.Close()
							require.NoError(t, st.first(in), "the stream's first request")

							if repl.data == nil {
								_, err = other.DeleteObject(ctx, &awss3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
								require.NoError(t, err)
							} else {
								put(key, repl.data)
							}
							c.Reset()
							buf := make([]byte, 2048)
							n, err := then(in, buf)
							require.ErrorIs(t, err, vfs.ErrChanged, "reading after the object was replaced (%d bytes returned)", n)
							require.Zero(t, n, "no byte of the new version is returned")
							switch {
							case repl.data == nil:
							case s.name == "SeaweedFS": // honours If-Match
								assert.Contains(t, err.Error(), "refused a read conditional on it", "SeaweedFS refuses the conditional GET")
							default: // gofakes3 ignores If-Match: the ETags are compared
								assert.Contains(t, err.Error(), "now answers with another", "the response's ETag is checked")
							}
							var pe *fs.PathError
							require.ErrorAs(t, err, &pe)
							assert.Equal(t, "s3://"+bucket+p.Path(), pe.Path, "the error names the path")
							assert.Contains(t, err.Error(), "changed while it was being read")
							if repl.data == nil {
								assert.ErrorIs(t, err, fs.ErrNotExist, "a deleted object is also ErrNotExist")
							}
							assert.Equal(t, map[string]int{s3test.OpGetObject: 1}, c.Counts(), "one GET finds the change")
							assert.Equal(t, 1, c.IfMatch(s3test.OpGetObject), "the GET is conditional on the pinned ETag")

							// The stream stays refused; a new stream reads the new version.
							_, err = in.ReadAt(buf[:1], 0)
							require.ErrorIs(t, err, vfs.ErrChanged, "a second read after the change")
							if repl.data != nil {
								got, err := vfs.ReadFile(ctx, fsys, p)
								require.NoError(t, err)
								require.True(t, bytes.Equal(repl.data, got), "a new stream reads the new version")
							}
						})
					}
				}
			}
		})
	}
}

// TestOpenBodyKeepsItsVersion replaces an object while a stream's GET is open:
// the open response keeps streaming the version it started with (S3 serves one
// response from one version), and the stream's next GET fails with
// vfs.ErrChanged. Every byte the stream returned is the first version's.
func TestOpenBodyKeepsItsVersion(t *testing.T) {
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			srv := s.start(t)
			fsys, bucket := newFS(t, srv, optionsFor(srv, nil))
			ctx := t.Context()
			const size = 4 << 20
			v1 := bytes.Repeat([]byte("first version..."), size/16)
			v2 := bytes.Repeat([]byte("SECOND VERSION!!"), size/16)
			p := vfs.MustPath("/big")
			require.NoError(t, vfs.WriteFile(ctx, fsys, p, v1, vfs.Overwrite))
			in, err := fsys.Open(ctx, p)
			require.NoError(t, err)
			defer in.Close()
			buf := make([]byte, 1000)
			_, err = io.ReadFull(in, buf)
			require.NoError(t, err)
			_, err = srv.Client(nil).PutObject(ctx, &awss3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("big"), Body: bytes.NewReader(v2)})
			require.NoError(t, err)

			// Read on through the open GET, then seek back: the next GET fails.
			var got []byte
			got = append(got, buf...)
			rest, err := io.ReadAll(in)
			got = append(got, rest...)
			if err != nil {
				require.ErrorIs(t, err, vfs.ErrChanged, "the open GET may only fail with ErrChanged")
			}
			require.True(t, bytes.Equal(v1[:len(got)], got), "the %d bytes read are the first version's", len(got))
			_, err = in.Seek(0, io.SeekStart)
			require.NoError(t, err)
			n, err := in.Read(buf)
			require.ErrorIs(t, err, vfs.ErrChanged)
			require.Zero(t, n)
		})
	}
}

// TestUnchangedObjectReadsAsBefore reads an unchanged object through one
// stream in every way: the bytes are exact, and the requests are those of
// TestRequestCounts (one GET per Read after a Seek, per ReadAt), every GET
// after the first conditional on its ETag.
func TestUnchangedObjectReadsAsBefore(t *testing.T) {
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			srv := s.start(t)
			c := s3test.NewCounter(nil)
			fsys, _ := newFS(t, srv, optionsFor(srv, c))
			ctx := t.Context()
			data := make([]byte, 3<<20+17)
			for i := range data {
				data[i] = byte(i*31 + i>>10)
			}
			p := vfs.MustPath("/multi")
			require.NoError(t, vfs.WriteFile(ctx, fsys, p, data, vfs.Overwrite))
			in, err := fsys.Open(ctx, p)
			require.NoError(t, err)
			defer in.Close()
			c.Reset()
			buf := make([]byte, 4096)
			for i, off := range []int64{0, 1 << 20, 17, int64(len(data)) - 4096, 2 << 20} {
				_, err := in.Seek(off, io.SeekStart)
				require.NoError(t, err)
				_, err = io.ReadFull(in, buf)
				require.NoError(t, err, "Read at %d", off)
				require.True(t, bytes.Equal(data[off:off+4096], buf), "Read at %d", off)
				_, err = in.ReadAt(buf, off+1)
				if off+1+4096 > int64(len(data)) {
					require.ErrorIs(t, err, io.EOF)
				} else {
					require.NoError(t, err, "ReadAt at %d", off+1)
				}
				end := min(off+1+4096, int64(len(data)))
				require.True(t, bytes.Equal(data[off+1:end], buf[:end-off-1]), "ReadAt at %d", off+1)
				assert.Equal(t, map[string]int{s3test.OpGetObject: 2 * (i + 1)}, c.Counts(), "one GET per Read after a Seek and per ReadAt")
			}
			assert.Equal(t, c.Count(s3test.OpGetObject)-1, c.IfMatch(s3test.OpGetObject), "every GET but the first is conditional")
			_, err = in.Seek(-10, io.SeekEnd)
			require.NoError(t, err, "the size is known: no HEAD")
			rest, err := io.ReadAll(in)
			require.NoError(t, err)
			assert.Equal(t, data[len(data)-10:], rest)
			assert.Zero(t, c.Count(s3test.OpHeadObject))
		})
	}
}

// TestChangedErrorOnCancelledStreamIsNotChanged checks that a failure that is
// not a change (a cancelled context) is not reported as vfs.ErrChanged.
func TestChangedErrorOnCancelledStreamIsNotChanged(t *testing.T) {
	srv := s3test.GoFakeS3(t)
	fsys, _ := newFS(t, srv, optionsFor(srv, nil))
	p := vfs.MustPath("/f")
	require.NoError(t, vfs.WriteFile(t.Context(), fsys, p, []byte("0123456789"), vfs.Overwrite))
	ctx, cancel := context.WithCancel(t.Context())
	in, err := fsys.Open(ctx, p)
	require.NoError(t, err)
	defer in.Close()
	_, err = in.ReadAt(make([]byte, 3), 0)
	require.NoError(t, err)
	cancel()
	_, err = in.ReadAt(make([]byte, 3), 5)
	require.ErrorIs(t, err, context.Canceled)
	require.NotErrorIs(t, err, vfs.ErrChanged)
}

// TestMultipartObjectPinnedByHeadReadsAsBefore pins a multipart object's
// version with Strict's HEAD: the GETs that follow carry If-Match with the
// HEAD's ETag (a multipart ETag, "…-N") and the unchanged object reads byte for
// byte.
func TestMultipartObjectPinnedByHeadReadsAsBefore(t *testing.T) {
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			srv := s.start(t)
			c := s3test.NewCounter(nil)
			o := optionsFor(srv, c)
			o.PartSize, o.Strict = s3.MinPartSize, true
			fsys, _ := newFS(t, srv, o)
			ctx := t.Context()
			data := make([]byte, 2*s3.MinPartSize+99)
			for i := range data {
				data[i] = byte(i*7 + i>>13)
			}
			p := vfs.MustPath("/parts")
			require.NoError(t, vfs.WriteFile(ctx, fsys, p, data, vfs.Overwrite))
			require.Positive(t, c.Count(s3test.OpUploadPart), "the object is a multipart upload")
			c.Reset()
			in, err := fsys.Open(ctx, p)
			require.NoError(t, err)
			defer in.Close()
			buf := make([]byte, 1000)
			for _, off := range []int64{0, s3.MinPartSize - 500, int64(len(data)) - 1000} {
				_, err := in.ReadAt(buf, off)
				require.NoError(t, err, "ReadAt %d", off)
				require.Equal(t, data[off:off+1000], buf, "ReadAt %d", off)
			}
			assert.Equal(t, map[string]int{s3test.OpHeadObject: 1, s3test.OpGetObject: 3}, c.Counts())
			assert.Equal(t, 3, c.IfMatch(s3test.OpGetObject), "every GET is conditional on the HEAD's ETag")
		})
	}
}
