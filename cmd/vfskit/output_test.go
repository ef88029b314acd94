package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/internal/bigmeta"
)

// TestBinaryOutputErrors runs the built binary with a standard output that
// cannot be written: a pipe whose reader is gone ends it quietly with a
// failure (SIGPIPE, as coreutils: 141 in a shell), a full device (/dev/full)
// with exit status 1 and one line on standard error.
func TestBinaryOutputErrors(t *testing.T) {
	bin := buildVfskit(t)
	chk, _ := bigmeta.Write(t, 3000) // a JSON document of about 1 MB
	args := [][]string{
		{"checkpoints", "inspect", "--json", "file://" + filepath.ToSlash(chk)},
		{"checkpoints", "inspect", "file://" + filepath.ToSlash(chk)},
		{"ls", "--json", filepath.Dir(chk), chk},
	}
	for i, a := range args {
		t.Run(fmt.Sprint("closed pipe/", i), func(t *testing.T) {
			r, w, err := os.Pipe()
			require.NoError(t, err)
			require.NoError(t, r.Close()) // the reader is gone: vfskit ... | head -0
			defer w.Close()
			cmd := exec.Command(bin, a...)
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = w, &stderr
			err = cmd.Run()
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "a broken pipe is a failure")
			ws, ok := exit.Sys().(syscall.WaitStatus)
			require.True(t, ok)
			if ws.Signaled() {
				assert.Equal(t, syscall.SIGPIPE, ws.Signal())
			} else {
				assert.Equal(t, 1, ws.ExitStatus())
			}
			assert.Empty(t, stderr.String(), "a broken pipe is not reported")
		})
	}
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		t.Log("no /dev/full here: the full-disk case is tested in package cli only")
		return
	}
	require.NoError(t, err)
	defer full.Close()
	for i, a := range args {
		t.Run(fmt.Sprint("full device/", i), func(t *testing.T) {
			cmd := exec.Command(bin, a...)
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = full, &stderr
			var exit *exec.ExitError
			require.ErrorAs(t, cmd.Run(), &exit)
			assert.Equal(t, 1, exit.ExitCode())
			assert.Equal(t, "vfskit: write error on standard output: no space left on device\n", stderr.String(), "one message")
		})
	}
}
