package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSignals: the first SIGTERM or SIGINT ends every command with 143 or
// 130, a command blocked reading a FIFO included, and a cp to S3 interrupted
// mid-upload aborts its multipart upload before the process exits.
func TestSignals(t *testing.T) {
	bin := buildVfskit(t)
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGTERM, 143}, {syscall.SIGINT, 130}} {
		t.Run("fifo-"+tc.sig.String(), func(t *testing.T) {
			work := t.TempDir()
			fifo := filepath.Join(work, "fifo")
			require.NoError(t, syscall.Mkfifo(fifo, 0o600))
			cmd := exec.Command(bin, "cat", fifo)
			var errOut bytes.Buffer
			cmd.Stderr = &errOut
			require.NoError(t, cmd.Start())
			w := openWriter(t, fifo) // cat has opened the FIFO: it waits for bytes
			defer w.Close()
			require.NoError(t, cmd.Process.Signal(tc.sig))
			assert.Equal(t, tc.code, exitCode(t, cmd), errOut.String())
			assert.Contains(t, errOut.String(), "vfskit: interrupted")
		})
	}
	t.Run("cp-s3-SIGTERM", func(t *testing.T) { testInterruptedUpload(t, bin) })
}

// testInterruptedUpload feeds cp more than a part through a FIFO, then stops
// writing: cp has a multipart upload open on SeaweedFS and waits for bytes.
// SIGTERM ends it with 143, and no upload and no object remain.
func testInterruptedUpload(t *testing.T, bin string) {
	b := newS3Bucket(t)
	srv, bucket := b.srv, b.name
	work := t.TempDir()
	fifo := filepath.Join(work, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	cmd := exec.Command(bin, b.args("cp", fifo, "s3://"+bucket+"/big.bin")...)
	cmd.Env = append(os.Environ(), srv.Env()...)
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	require.NoError(t, cmd.Start())
	w := openWriter(t, fifo)
	defer w.Close()
	_, err := w.Write(bytes.Repeat([]byte("0123456789abcdef"), 20<<20/16)) // 20 MiB: parts of 8 MiB
	require.NoError(t, err)

	client := srv.Client(nil)
	ctx := t.Context()
	uploads := func() int {
		out, err := client.ListMultipartUploads(ctx, &awss3.ListMultipartUploadsInput{Bucket: aws.String(bucket)})
		require.NoError(t, err)
		return len(out.Uploads)
	}
	for i := 0; i < 600 && uploads() == 0; i++ {
		time.Sleep(50 * time.Millisecond)
	}
	require.Equal(t, 1, uploads(), "cp started a multipart upload")

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	assert.Equal(t, 143, exitCode(t, cmd), errOut.String())
	assert.Equal(t, 0, uploads(), "the upload was aborted before the process exited")
	_, err = client.HeadObject(ctx, &awss3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("big.bin")})
	assert.Error(t, err, "nothing was published")
}

// openWriter opens fifo for writing once a reader has it open (bounded: a
// minute).
func openWriter(t *testing.T, fifo string) *os.File {
	t.Helper()
	for i := 0; i < 1200; i++ {
		fd, err := syscall.Open(fifo, syscall.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			require.NoError(t, syscall.SetNonblock(fd, false))
			return os.NewFile(uintptr(fd), fifo)
		}
		require.ErrorIs(t, err, syscall.ENXIO, "no reader yet is the only expected failure")
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("nobody opened %s for reading", fifo)
	return nil
}

// exitCode waits for cmd (bounded: two minutes, then it is killed and the test
// fails) and returns its exit status.
func exitCode(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		require.NoError(t, err)
		return 0
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		<-done
		t.Fatal("the command did not end after the signal")
		return -1
	}
}
