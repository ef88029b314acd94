package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/internal/faultproxy"
	"github.com/vfskit/vfskit/internal/s3test"
)

// TestInterruptedCopyResumes interrupts the built binary's cp -r of 150
// files from SeaweedFS with SIGINT, as Ctrl-C does (or SIGTERM), and finishes the copy
// with each way a user re-runs it. A proxy holds back the download of the
// last 50 files, so the interrupt always comes after the first 100 were
// copied and before the rest were. cp must exit with 130 (143), keep the 100 whole
// and nothing else (no partial, no temporary file), say in one line, and
// nothing else, what it copied and the command that finishes the copy; that command (and the same with -n) copies the rest and keeps
// what is there byte for byte, a file edited meanwhile included.
func TestInterruptedCopyResumes(t *testing.T) {
	bin := buildVfskit(t)
	srv := s3test.SeaweedFS(t)
	bucket := srv.NewBucket(t)
	proxy, err := faultproxy.Start(srv.Endpoint)
	require.NoError(t, err)
	t.Cleanup(func() { _ = proxy.Close() })

	client := srv.Client(nil)
	want := map[string][]byte{} // relative path in the tree -> content
	for i := range 150 {
		dir := "early"
		if i >= 100 {
			dir = "late"
		}
		rel := fmt.Sprintf("%s/f%03d", dir, i)
		want[rel] = bytes.Repeat([]byte(fmt.Sprintf("file %d;", i)), 1+i*37)
		_, err := client.PutObject(t.Context(), &awss3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("tree/" + rel), Body: bytes.NewReader(want[rel])})
		require.NoError(t, err)
	}
	env := append(cleanCloudEnv(), "AWS_ACCESS_KEY_ID="+srv.AccessKeyID, "AWS_SECRET_ACCESS_KEY="+srv.SecretAccessKey,
		"AWS_REGION="+srv.Region, "AWS_ENDPOINT_URL_S3="+proxy.URL(), "VFSKIT_S3_PATH_STYLE=true", "AWS_EC2_METADATA_DISABLED=true")
	holdLate := faultproxy.Faults{Delay: 10 * time.Minute, Match: func(r *http.Request) bool {
		return r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/tree/late/")
	}}
	finish := regexp.MustCompile(`^vfskit: cp: interrupted: copied (\d+) files \([^)]*\) of (\d+) to (\S+); to copy the rest, re-run with --update=none: (vfskit cp -r -T --update=none \S+ \S+)\n$`)

	for _, resume := range []struct {
		name  string
		flags []string // what replaces --update=none in the printed command
		sig   os.Signal
		code  int
	}{
		{"update=none", []string{"--update=none"}, os.Interrupt, 130},
		{"n-SIGTERM", []string{"-n"}, syscall.SIGTERM, 143},
	} {
		t.Run(resume.name, func(t *testing.T) {
			work := t.TempDir()
			dst := filepath.Join(work, "dst")
			proxy.Set(holdLate)
			cmd := exec.Command(bin, "cp", "-r", "s3://"+bucket+"/tree", dst)
			cmd.Env, cmd.Dir = env, work
			var errOut bytes.Buffer
			cmd.Stderr = &errOut
			require.NoError(t, cmd.Start())
			whole := func() int { // files copied whole so far
				n := 0
				for rel, data := range files(t, dst) {
					if w, ok := want[rel]; ok && bytes.Equal(w, data) {
						n++
					}
				}
				return n
			}
			for i := 0; i < 1200 && whole() < 100; i++ {
				time.Sleep(50 * time.Millisecond)
			}
			require.Equal(t, 100, whole(), "the first 100 files were copied")
			require.NoError(t, cmd.Process.Signal(resume.sig))
			require.Equal(t, resume.code, exitCode(t, cmd), errOut.String())

			m := finish.FindStringSubmatch(errOut.String())
			require.NotNil(t, m, "one line, saying what was copied and how to finish, and nothing else: %q", errOut.String())
			assert.Equal(t, "100", m[1])
			assert.Equal(t, "150", m[2])
			assert.Equal(t, "file://"+filepath.ToSlash(dst), m[3])
			got := files(t, dst)
			require.Len(t, got, 100, "only the files copied whole are there: no partial file, no temporary file")
			for rel, data := range got {
				assert.True(t, strings.HasPrefix(rel, "early/"), rel)
				assert.True(t, bytes.Equal(want[rel], data), "%s is the source's byte for byte", rel)
			}

			edited := []byte("edited after the interrupted copy")
			require.NoError(t, os.WriteFile(filepath.Join(dst, "early", "f007"), edited, 0o644))
			proxy.Set(faultproxy.Faults{})
			args := strings.Fields(m[4])[1:]
			for i, a := range args {
				if a == "--update=none" {
					args = append(append(append([]string(nil), args[:i]...), resume.flags...), args[i+1:]...)
					break
				}
			}
			again := exec.Command(bin, args...)
			again.Env, again.Dir = env, work
			stdout, stderr, code := runCmd(t, again)
			require.Equal(t, 0, code, "vfskit %q: stdout %q stderr %q", args, stdout, stderr)
			assert.Empty(t, stderr)

			got = files(t, dst)
			assert.Len(t, got, 150, "the copy is complete")
			for rel, data := range want {
				if rel == "early/f007" {
					data = edited
				}
				assert.True(t, bytes.Equal(data, got[rel]), "%s: kept or copied byte for byte", rel)
			}
		})
	}
}

// files returns every file below dir by slash-separated relative path, with
// its content (none when dir does not exist).
func files(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil && p == dir && os.IsNotExist(err):
			return filepath.SkipDir
		case err != nil:
			return err
		case d.IsDir():
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if os.IsNotExist(err) {
			return nil // a temporary file renamed or removed meanwhile
		}
		out[filepath.ToSlash(rel)] = b
		return err
	})
	require.NoError(t, err)
	return out
}
