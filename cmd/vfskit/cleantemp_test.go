package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCleanTempS3 kills (SIGKILL) a cp to SeaweedFS in the middle of its
// multipart upload, which leaves the upload and its marker; another tool's
// multipart upload sits next to it. clean-temp --older-than 1h removes
// nothing (the upload is younger); --dry-run names the marker and removes
// nothing; clean-temp --older-than 0s aborts vfskit's upload and deletes its
// marker, and leaves the other tool's upload.
func TestCleanTempS3(t *testing.T) {
	bin := buildVfskit(t)
	b := newS3Bucket(t)
	srv, bucket, flags := b.srv, b.name, b.flags
	client := srv.Client(nil)
	ctx := t.Context()
	work := t.TempDir()
	env := append(os.Environ(), srv.Env()...)

	fifo := filepath.Join(work, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	cp := exec.Command(bin, append(flags, "cp", fifo, "s3://"+bucket+"/dir/big.bin")...)
	cp.Env = env
	require.NoError(t, cp.Start())
	w := openWriter(t, fifo)
	defer w.Close()
	_, err := w.Write(bytes.Repeat([]byte("0123456789abcdef"), 20<<20/16))
	require.NoError(t, err)
	uploads := func() map[string]bool { return srv.MultipartUploads(t, bucket) }
	for i := 0; i < 600 && !uploads()["dir/big.bin"]; i++ {
		time.Sleep(50 * time.Millisecond)
	}
	require.NoError(t, cp.Process.Kill())
	_ = cp.Wait()
	foreign, err := client.CreateMultipartUpload(ctx, &awss3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("dir/other.bin")})
	require.NoError(t, err)
	t.Cleanup(func() {
		_, _ = client.AbortMultipartUpload(ctx, &awss3.AbortMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("dir/other.bin"), UploadId: foreign.UploadId})
	})
	require.Equal(t, map[string]bool{"dir/big.bin": true, "dir/other.bin": true}, uploads(), "the killed cp left its upload")

	run := runner(t, bin, work, srv.Env())
	out, stderr, code := run(append(flags, "clean-temp", "s3://"+bucket+"/dir")...)
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, out, "younger than --older-than (1h): nothing removed")
	assert.Len(t, uploads(), 2)

	time.Sleep(1100 * time.Millisecond) // past the listing's one-second precision
	out, stderr, code = run(append(flags, "clean-temp", "--dry-run", "--older-than", "0s", "s3://"+bucket+"/dir")...)
	require.Equal(t, 0, code, stderr)
	assert.True(t, strings.HasPrefix(out, "would remove s3://"+bucket+"/dir/.vfskit-upload-"), out)
	assert.Len(t, uploads(), 2, "a dry run removes nothing")

	out, stderr, code = run(append(flags, "clean-temp", "--older-than", "0s", "s3://"+bucket+"/dir")...)
	require.Equal(t, 0, code, stderr)
	assert.True(t, strings.HasPrefix(out, "removed s3://"+bucket+"/dir/.vfskit-upload-"), out)
	assert.Equal(t, 1, strings.Count(out, "\n"), out)
	assert.Equal(t, map[string]bool{"dir/other.bin": true}, uploads(), "only vfskit's upload was aborted")
	list, err := client.ListObjectsV2(ctx, &awss3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String("dir/")})
	require.NoError(t, err)
	assert.Empty(t, list.Contents, "the marker is gone and nothing was published")
}
