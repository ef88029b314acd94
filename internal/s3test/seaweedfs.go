package s3test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/vfskit/vfskit/internal/testenv"
)

// SeaweedFSVersion is the pinned SeaweedFS module version; it must match
// scripts/build-seaweedfs.sh (a test checks this).
const SeaweedFSVersion = "v0.0.0-20261109003541-7506e5f91cd6"

// WeedBinEnv names an explicit `weed` binary, overriding the cache.
const WeedBinEnv = "VFSKIT_WEED_BIN"

// SeaweedOptions configures StartSeaweedFS. The zero value is ready to use.
type SeaweedOptions struct {
	// Bin is the `weed` binary; "" means FindWeed.
	Bin string
	// Bucket is the bucket created at start; "" means a random "vfskit-..." name.
	Bucket string
	// Build allows running scripts/build-seaweedfs.sh when no binary is found.
	Build bool
	// VolumeSizeLimitMB, when not 0, is the size in MB at which a volume is
	// full (weed mini's -master.volumeSizeLimitMB; by default mini sizes
	// volumes from the free disk, 1 GiB on a disk of some 40 GB).
	// When a bucket's volume fills, the master grows a new one and holds the
	// writes that need it for about a second: a benchmark that writes more
	// than a volume holds to one bucket sets a limit above what it writes, so
	// that no such pause falls into its timed rounds.
	VolumeSizeLimitMB int
}

// Readiness polling: the S3 endpoint answers about 10–15 s after start.
const (
	readyPolls    = 240
	readyInterval = 250 * time.Millisecond
	startAttempts = 3
)

// StartSeaweedFS starts `weed mini` on 127.0.0.1 with free random ports (whose
// gRPC twins at +10000 are free too), a fresh temporary data directory and fresh
// random credentials, creates the bucket and waits (a bounded number of polls)
// until the S3 endpoint serves it. Close stops the process with SIGTERM and
// removes the data directory. It retries with other ports when a start fails.
func StartSeaweedFS(ctx context.Context, opts SeaweedOptions) (*Server, error) {
	bin := opts.Bin
	if bin == "" {
		var err error
		if bin, err = FindWeed(opts.Build); err != nil {
			return nil, err
		}
	}
	bucket := opts.Bucket
	if bucket == "" {
		bucket = RandomName("vfskit-")
	}
	var errs []error
	for range startAttempts {
		srv, err := startSeaweedOnce(ctx, bin, bucket, opts.VolumeSizeLimitMB)
		if err == nil {
			return srv, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, fmt.Errorf("seaweedfs (%s) did not start: %w", bin, errors.Join(errs...))
}

func startSeaweedOnce(ctx context.Context, bin, bucket string, volumeMB int) (*Server, error) {
	ports, err := freePortsWithTwins(5, 10000)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "vfskit-seaweedfs-")
	if err != nil {
		return nil, err
	}
	srv := &Server{
		Name:            "seaweedfs",
		Endpoint:        "http://127.0.0.1:" + strconv.Itoa(ports[3]),
		Region:          Region,
		AccessKeyID:     strings.ToUpper(RandomName("VFSKIT")),
		SecretAccessKey: RandomName("secret-") + RandomName(""),
		Bucket:          bucket,
	}
	p := &weedProcess{bin: bin, dir: dir, ports: ports, srv: srv, volumeMB: volumeMB}
	var once sync.Once
	var stopErr error
	srv.stop = func() error {
		once.Do(func() {
			p.signal(syscall.SIGTERM, 30*time.Second)
			stopErr = os.RemoveAll(dir)
		})
		return stopErr
	}
	srv.kill = func() error {
		p.signal(syscall.SIGKILL, 0)
		return nil
	}
	srv.restart = p.launch
	if err := p.launch(ctx); err != nil {
		_ = srv.stop()
		return nil, err
	}
	return srv, nil
}

// weedProcess is one SeaweedFS server: its data directory and ports stay the
// same across kills and restarts.
type weedProcess struct {
	bin, dir string
	ports    []int
	srv      *Server
	// volumeMB is SeaweedOptions.VolumeSizeLimitMB.
	volumeMB int

	mu      sync.Mutex
	cmd     *exec.Cmd
	exited  chan struct{} // closed when cmd is gone; waitErr then tells why
	waitErr error
}

// launch starts the process (again) and waits until it serves the bucket.
func (p *weedProcess) launch(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil {
		select {
		case <-p.exited:
		default:
			return fmt.Errorf("seaweedfs at %s is still running; Kill it first", p.srv.Endpoint)
		}
	}
	logPath := filepath.Join(p.dir, "weed.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(p.bin, p.args()...)
	cmd.Dir = p.dir
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Env = append(cleanEnv(), "AWS_ACCESS_KEY_ID="+p.srv.AccessKeyID, "AWS_SECRET_ACCESS_KEY="+p.srv.SecretAccessKey)
	setDeathSignal(cmd)
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return err
	}
	exited := make(chan struct{})
	p.cmd, p.exited = cmd, exited
	go func() {
		err := cmd.Wait()
		_ = logFile.Close()
		p.waitErr = err
		close(exited)
	}()
	if err := waitReady(ctx, p.srv, exited, func() error { return p.waitErr }); err != nil {
		_ = cmd.Process.Kill()
		<-exited
		return fmt.Errorf("%w\n--- weed log (tail) ---\n%s", err, tail(logPath))
	}
	return nil
}

// args are the arguments of `weed` for this server.
func (p *weedProcess) args() []string {
	ports := p.ports
	args := []string{"mini",
		"-dir=" + filepath.Join(p.dir, "data"),
		"-ip=127.0.0.1", "-ip.bind=127.0.0.1",
		"-admin.ui=false", "-webdav=false",
		"-master.port=" + strconv.Itoa(ports[0]),
		"-volume.port=" + strconv.Itoa(ports[1]),
		"-filer.port=" + strconv.Itoa(ports[2]),
		"-s3.port=" + strconv.Itoa(ports[3]),
		"-admin.port=" + strconv.Itoa(ports[4]),
		"-admin.port.legacy=0",
		"-s3.port.iceberg=0", "-s3.port.lance=0",
		"-bucket=" + p.srv.Bucket,
		// Like S3, refuse uploads to a bucket that does not exist (SeaweedFS
		// creates it by default), so missing-bucket errors are tested.
		"-s3.autoCreateBucket=false",
		// Each bucket is a collection with volumes of its own, and by default
		// the volume count is limited to free disk / volume size: with 45 GB
		// free, the 42nd bucket's first write failed with 500 InternalError.
		// Volumes are not preallocated, so a high limit costs no disk.
		"-volume.max=2000",
	}
	if p.volumeMB > 0 {
		args = append(args, "-master.volumeSizeLimitMB="+strconv.Itoa(p.volumeMB))
	}
	return args
}

// signal sends sig to the running process, if any, and waits until it is gone:
// with grace > 0, for at most grace before it sends SIGKILL.
func (p *weedProcess) signal(sig syscall.Signal, grace time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return
	}
	_ = p.cmd.Process.Signal(sig)
	if grace > 0 {
		select {
		case <-p.exited:
			return
		case <-time.After(grace):
			_ = p.cmd.Process.Kill()
		}
	}
	<-p.exited
}

// waitReady polls HeadBucket until the server serves the bucket. exited is
// closed when the process is gone, and exitErr then tells why.
func waitReady(ctx context.Context, srv *Server, exited <-chan struct{}, exitErr func() error) error {
	client := srv.Client(nil)
	var last error
	for range readyPolls {
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, last = client.HeadBucket(pctx, &s3.HeadBucketInput{Bucket: aws.String(srv.Bucket)})
		cancel()
		if last == nil {
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("weed exited before serving S3 at %s: %v", srv.Endpoint, exitErr())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(readyInterval):
		}
	}
	return fmt.Errorf("S3 endpoint %s not ready after %d polls: %w", srv.Endpoint, readyPolls, last)
}

// cleanEnv is the process environment without AWS settings, so the developer's
// credentials or profile never reach the test server.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") {
			env = append(env, kv)
		}
	}
	return env
}

func tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// freePortsWithTwins returns n distinct ports on 127.0.0.1 that are free, and
// whose twin port+offset is free too, chosen at random (a bounded number of tries).
func freePortsWithTwins(n, offset int) ([]int, error) {
	var ports []int
	seen := map[int]bool{}
	for range 1000 {
		if len(ports) == n {
			return ports, nil
		}
		p := 15000 + rand.IntN(15000) // twins in 25000..39999
		if seen[p] || seen[p+offset] || seen[p-offset] {
			continue
		}
		if portFree(p) && portFree(p+offset) {
			ports = append(ports, p)
			seen[p] = true
		}
	}
	if len(ports) == n {
		return ports, nil
	}
	return nil, fmt.Errorf("could not find %d free ports with free +%d twins on 127.0.0.1", n, offset)
}

func portFree(p int) bool {
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
	if err != nil {
		return false
	}
	_ = l.Close()
	return true
}

// FindWeed returns the path of the `weed` binary: $VFSKIT_WEED_BIN, else the
// build script's cache path; when neither exists and build is true, it runs
// scripts/build-seaweedfs.sh (which prints the path).
func FindWeed(build bool) (string, error) {
	if p := os.Getenv(WeedBinEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", WeedBinEnv, p, err)
		}
		return p, nil
	}
	cached := CachedWeedPath()
	if st, err := os.Stat(cached); err == nil && !st.IsDir() {
		return cached, nil
	}
	if !build {
		return "", fmt.Errorf("no SeaweedFS binary: %s is not set and %s does not exist", WeedBinEnv, cached)
	}
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	cmd := exec.Command("bash", filepath.Join(root, "scripts", "build-seaweedfs.sh"))
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("scripts/build-seaweedfs.sh: %w", err)
	}
	lines := strings.Fields(out.String())
	if len(lines) == 0 {
		return "", errors.New("scripts/build-seaweedfs.sh printed no path")
	}
	return lines[len(lines)-1], nil
}

// CachedWeedPath is where scripts/build-seaweedfs.sh puts the binary:
// ${VFSKIT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/vfskit}/seaweedfs-<version>/weed.
func CachedWeedPath() string {
	return filepath.Join(testenv.CacheDir(), "seaweedfs-"+SeaweedFSVersion, "weed")
}

// repoRoot finds the vfskit module root above the working directory.
func repoRoot() (string, error) { return testenv.RepoRoot() }

var shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// SeaweedFS returns the test binary's shared SeaweedFS server, starting it on
// first use (building the binary first when VFSKIT_REQUIRE_S3=1 and none is
// found). When it cannot start, the test fails under VFSKIT_REQUIRE_S3=1 and is
// skipped otherwise. Call Main from TestMain so the server stops at the end.
// Tests share the server: each should use its own bucket (Server.NewBucket) or
// its own prefix.
func SeaweedFS(t testing.TB) *Server {
	t.Helper()
	shared.once.Do(func() {
		shared.srv, shared.err = StartSeaweedFS(context.Background(), SeaweedOptions{Build: Required()})
	})
	if shared.err != nil {
		unavailable(t, "SeaweedFS", shared.err)
	}
	return shared.srv
}

// PrivateSeaweedFS starts a SeaweedFS server of the test's own (see
// StartSeaweedFS), for tests that Kill and Restart it; t.Cleanup stops it and
// removes its data. Like SeaweedFS it fails the test under VFSKIT_REQUIRE_S3=1
// when the server cannot start, and skips it otherwise. Never kill the shared
// server that SeaweedFS returns: other tests use it.
func PrivateSeaweedFS(t testing.TB) *Server {
	t.Helper()
	srv, err := StartSeaweedFS(context.Background(), SeaweedOptions{Build: Required()})
	if err != nil {
		unavailable(t, "SeaweedFS", err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// Main runs the tests and then stops the shared SeaweedFS server, if one was
// started. Use it as os.Exit(s3test.Main(m)) in TestMain.
func Main(m *testing.M) int {
	code := m.Run()
	if shared.srv != nil {
		_ = shared.srv.Close()
	}
	return code
}
