package suite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/internal/bench"
	"github.com/vfskit/vfskit/internal/testenv"
	"github.com/vfskit/vfskit/vfs"
)

// RcloneVersion is the rclone that scripts/build-rclone.sh builds.
const RcloneVersion = "v1.76.0"

// RcloneBinEnv names the environment variable that gives the rclone binary.
const RcloneBinEnv = "VFSKIT_RCLONE_BIN"

// CopyTools are the two command lines the copy measures run against each
// other, each at its defaults: vfskit's cp and rclone's copy.
type CopyTools struct {
	// Vfskit is a vfskit binary (go build ./cmd/vfskit).
	Vfskit string
	// Rclone is an rclone binary (FindRclone).
	Rclone string
}

// FindRclone returns the rclone binary: $VFSKIT_RCLONE_BIN, else the one
// scripts/build-rclone.sh built into the cache
// (${VFSKIT_CACHE_DIR:-$HOME/.cache/vfskit}/rclone-<version>/rclone), else,
// when build is set, the one the script builds now (minutes, once per
// machine).
func FindRclone(build bool) (string, error) {
	if p := os.Getenv(RcloneBinEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", RcloneBinEnv, p, err)
		}
		return p, nil
	}
	cached := filepath.Join(testenv.CacheDir(), "rclone-"+RcloneVersion, "rclone")
	if st, err := os.Stat(cached); err == nil && !st.IsDir() {
		return cached, nil
	}
	if !build {
		return "", fmt.Errorf("no rclone binary: %s is not set and %s does not exist (scripts/build-rclone.sh builds it)", RcloneBinEnv, cached)
	}
	root, err := testenv.RepoRoot()
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	cmd := exec.Command("bash", filepath.Join(root, "scripts", "build-rclone.sh"))
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("scripts/build-rclone.sh: %w", err)
	}
	bin := strings.TrimSpace(out.String())
	if bin == "" {
		return "", errors.New("scripts/build-rclone.sh printed no path")
	}
	return bin, nil
}

// BuildVfskit builds cmd/vfskit into dir and returns the binary's path.
func BuildVfskit(dir string) (string, error) {
	root, err := testenv.RepoRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "vfskit")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/vfskit")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/vfskit: %w\n%s", err, out)
	}
	return bin, nil
}

// copyEnv runs the two tools against c.S3: each reaches it through its own
// configuration from the environment (rclone's remote "bench").
type copyEnv struct {
	e            *s3env
	c            *Config
	dir          string // local files of the measure
	vfskitEnv    []string
	rcloneEnv    []string
	vfskit, rcln string
}

func newCopyEnv(ctx context.Context, c *Config) (*copyEnv, func(), error) {
	e, err := newS3(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	dir, err := os.MkdirTemp(c.Dir, "vfsbench-copy-")
	if err != nil {
		return nil, nil, err
	}
	conf := filepath.Join(dir, "rclone.conf")
	if err := os.WriteFile(conf, nil, 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	base := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + os.TempDir()}
	ce := &copyEnv{
		e: e, c: c, dir: dir, vfskit: c.Tools.Vfskit, rcln: c.Tools.Rclone,
		vfskitEnv: append(append([]string{}, base...), c.S3.Env()...),
		rcloneEnv: append(append([]string{}, base...),
			"RCLONE_CONFIG="+conf,
			"RCLONE_CONFIG_BENCH_TYPE=s3",
			"RCLONE_CONFIG_BENCH_PROVIDER=SeaweedFS",
			"RCLONE_CONFIG_BENCH_ACCESS_KEY_ID="+c.S3.AccessKeyID,
			"RCLONE_CONFIG_BENCH_SECRET_ACCESS_KEY="+c.S3.SecretAccessKey,
			"RCLONE_CONFIG_BENCH_REGION="+c.S3.Region,
			"RCLONE_CONFIG_BENCH_ENDPOINT="+c.S3.Endpoint),
	}
	return ce, func() { os.RemoveAll(dir) }, nil
}

// run runs one tool's command line and fails with its output when it fails.
func (ce *copyEnv) run(ctx context.Context, env []string, bin string, args ...string) error {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", filepath.Base(bin), strings.Join(args, " "), err, out)
	}
	return nil
}

func (ce *copyEnv) runVfskit(ctx context.Context, args ...string) error {
	return ce.run(ctx, ce.vfskitEnv, ce.vfskit, args...)
}

func (ce *copyEnv) runRclone(ctx context.Context, args ...string) error {
	return ce.run(ctx, ce.rcloneEnv, ce.rcln, args...)
}

// s3URI and remote name key in the bucket for each tool.
func (ce *copyEnv) s3URI(key string) string  { return "s3://" + ce.e.bucket + "/" + key }
func (ce *copyEnv) remote(key string) string { return "bench:" + ce.e.bucket + "/" + key }

// copyMeasure is one row: a source made once, then rounds of each tool
// copying it to a destination of its own, which is checked and removed
// (untimed) before the next run of either tool.
type copyMeasure struct {
	name          string
	ours, rclone  func() error
	check, remove func() error
	units         float64
	unit          string
}

func (ce *copyEnv) measure(m copyMeasure) (bench.Result, error) {
	before := func() error {
		if err := m.check(); err != nil {
			return err
		}
		return m.remove()
	}
	r := bench.Ratios{Before: before}
	for i := range ce.c.Rounds {
		if err := r.Round(i, m.ours, m.rclone); err != nil {
			return bench.Result{}, err
		}
	}
	if err := before(); err != nil {
		return bench.Result{}, err
	}
	res := speed(m.name, r.Summary(), m.units, m.unit, 1.0)
	// Both tools run as commands: this process's CPU time says nothing of theirs.
	res.CPURatio = 0
	res.Note = "baseline: rclone " + RcloneVersion + " at its defaults; both run as commands (process start included); ratio = rclone's time ÷ vfskit's"
	return res, nil
}

// copyUpload copies c.CopyFiles files of 4 KiB and then one file of c.Big
// bytes from file:// to s3:// with vfskit cp -r and rclone copy.
func copyUpload(ctx context.Context, c *Config) ([]bench.Result, error) {
	ce, cleanup, err := newCopyEnv(ctx, c)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	small, big := filepath.Join(ce.dir, "small"), filepath.Join(ce.dir, "big")
	if err := writeSmallFiles(small, c.CopyFiles); err != nil {
		return nil, err
	}
	if err := writeBig(big, c.Big, c.Chunk); err != nil {
		return nil, err
	}
	var results []bench.Result
	for _, m := range []struct {
		name, src   string
		dir         bool
		files, size int
	}{
		{fmt.Sprintf("upload %d files of 4 KiB, file:// to s3://", c.CopyFiles), small, true, c.CopyFiles, 4 * kib},
		{fmt.Sprintf("upload %d MiB, file:// to s3://", c.Big/mib), big, false, 1, c.Big},
	} {
		verb := "copyto"
		vargs := []string{"cp", m.src, ce.s3URI("vfskit")}
		if m.dir {
			verb, vargs = "copy", []string{"cp", "-r", m.src, ce.s3URI("vfskit")}
		}
		check := func() error {
			for _, k := range []string{"vfskit", "rclone"} {
				if err := ce.checkS3(ctx, k, m.dir, m.files, m.size); err != nil {
					return err
				}
			}
			return nil
		}
		remove := func() error {
			for _, k := range []string{"vfskit", "rclone"} {
				if err := ce.e.fsys.Delete(ctx, ce.e.path(k), true); err != nil {
					return err
				}
			}
			return nil
		}
		r, err := ce.measure(copyMeasure{
			name:   m.name + ", vfskit cp vs rclone " + verb,
			ours:   func() error { return ce.runVfskit(ctx, vargs...) },
			rclone: func() error { return ce.runRclone(ctx, verb, m.src, ce.remote("rclone")) },
			check:  check, remove: remove,
			units: float64(m.files*m.size) / mib, unit: "MiB/s",
		})
		if err != nil {
			return nil, err
		}
		results = append(results, r)
	}
	return results, nil
}

// copyDownload copies c.CopyFiles objects of 4 KiB and then one object of
// c.Big bytes from s3:// to file:// with vfskit cp -r and rclone copy.
func copyDownload(ctx context.Context, c *Config) ([]bench.Result, error) {
	ce, cleanup, err := newCopyEnv(ctx, c)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	data := pattern(4 * kib)
	for i := range c.CopyFiles {
		if err := ce.e.put(ctx, "small/f"+strconv.Itoa(i), data); err != nil {
			return nil, err
		}
	}
	if err := writeChunks(ctx, ce.e.fsys, ce.e.path("big"), pattern(c.Chunk), c.Big); err != nil {
		return nil, err
	}
	var results []bench.Result
	for _, m := range []struct {
		name, key   string
		dir         bool
		files, size int
	}{
		{fmt.Sprintf("download %d files of 4 KiB, s3:// to file://", c.CopyFiles), "small", true, c.CopyFiles, 4 * kib},
		{fmt.Sprintf("download %d MiB, s3:// to file://", c.Big/mib), "big", false, 1, c.Big},
	} {
		ours, theirs := filepath.Join(ce.dir, "vfskit"), filepath.Join(ce.dir, "rclone")
		verb := "copyto"
		vargs := []string{"cp", ce.s3URI(m.key), ours}
		if m.dir {
			verb, vargs = "copy", []string{"cp", "-r", ce.s3URI(m.key), ours}
		}
		check := func() error {
			for _, p := range []string{ours, theirs} {
				if err := checkLocal(p, m.dir, m.files, m.size); err != nil {
					return err
				}
			}
			return nil
		}
		remove := func() error {
			for _, p := range []string{ours, theirs} {
				if err := os.RemoveAll(p); err != nil {
					return err
				}
			}
			return syncDir(ce.dir)
		}
		r, err := ce.measure(copyMeasure{
			name:   m.name + ", vfskit cp vs rclone " + verb,
			ours:   func() error { return ce.runVfskit(ctx, vargs...) },
			rclone: func() error { return ce.runRclone(ctx, verb, ce.remote(m.key), theirs) },
			check:  check, remove: remove,
			units: float64(m.files*m.size) / mib, unit: "MiB/s",
		})
		if err != nil {
			return nil, err
		}
		results = append(results, r)
	}
	return results, nil
}

// writeSmallFiles writes n files of 4 KiB into the new directory dir.
func writeSmallFiles(dir string, n int) error {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	data := pattern(4 * kib)
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, "f"+strconv.Itoa(i)), data, 0o666); err != nil {
			return err
		}
	}
	return nil
}

// writeBig writes a file of size bytes at name, chunk at a time.
func writeBig(name string, size, chunk int) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	return writeClose(f, pattern(chunk), size, true)
}

// checkS3 checks what a tool copied to key: a directory of files objects
// of size bytes, or one object of size bytes (a missing key is fine: that
// tool has not run since the last removal).
func (ce *copyEnv) checkS3(ctx context.Context, key string, dir bool, files, size int) error {
	p := ce.e.path(key)
	if !dir {
		st, err := ce.e.fsys.Stat(ctx, p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil
		case err != nil:
			return err
		case st.Size != int64(size):
			return fmt.Errorf("%s holds %d bytes, want %d", p, st.Size, size)
		}
		return nil
	}
	sts, err := ce.e.fsys.List(ctx, p)
	if errors.Is(err, fs.ErrNotExist) || err == nil && len(sts) == 0 {
		return nil
	}
	if err != nil {
		return err
	}
	return checkSizes(p.String(), sts, files, size)
}

// checkLocal is checkS3 for a local path.
func checkLocal(name string, dir bool, files, size int) error {
	fsys := local.New()
	p := vfs.MustPath(name)
	st, err := fsys.Stat(context.Background(), p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !dir && st.Size != int64(size):
		return fmt.Errorf("%s holds %d bytes, want %d", name, st.Size, size)
	case !dir:
		return nil
	}
	sts, err := fsys.List(context.Background(), p)
	if err != nil {
		return err
	}
	return checkSizes(name, sts, files, size)
}

func checkSizes(dir string, sts []vfs.FileStatus, files, size int) error {
	if len(sts) != files {
		return fmt.Errorf("%s holds %d entries, want %d", dir, len(sts), files)
	}
	for _, st := range sts {
		if st.IsDir || st.Size != int64(size) {
			return fmt.Errorf("%s: %d bytes (directory: %v), want a file of %d", st.Path, st.Size, st.IsDir, size)
		}
	}
	return nil
}
