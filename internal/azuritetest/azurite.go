// Package azuritetest starts Azurite, the Azure Storage emulator, for the
// azblob:// tests: its blob service on 127.0.0.1 with a port the system picks,
// a fresh temporary data directory and the well-known development account, and
// points gocloud's azureblob driver at it with AZURE_STORAGE_CONNECTION_STRING,
// the way a user points a program at an emulator.
//
// Azurite is the npm package azurite, installed once by
// scripts/install-azurite.sh into the cache directory (VFSKIT_CACHE_DIR, else
// ~/.cache/vfskit); it needs Node.js. When it cannot start, a test fails under
// VFSKIT_REQUIRE_AZURITE=1 (make test sets it) and is skipped otherwise, with
// the reason.
package azuritetest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"

	"github.com/vfskit/vfskit/internal/testenv"
)

// Version is the pinned Azurite version; it must match
// scripts/install-azurite.sh (a test checks this).
const Version = "3.37.0"

// Environment variables.
const (
	// RequireEnv set to 1 makes an Azurite that cannot start a failure, not a skip.
	RequireEnv = "VFSKIT_REQUIRE_AZURITE"
	// BinEnv names an explicit azurite-blob command, overriding the cache.
	BinEnv = "VFSKIT_AZURITE_BIN"
	// ConnectionStringEnv is what gocloud's azureblob driver reads.
	ConnectionStringEnv = "AZURE_STORAGE_CONNECTION_STRING"
)

// Azurite's well-known development account (public, documented by Microsoft;
// it only opens emulators).
const (
	Account = "devstoreaccount1"
	Key     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// startTimeout bounds how long Azurite may take to say it listens.
const startTimeout = 60 * time.Second

// Server is a running Azurite blob service.
type Server struct {
	// Endpoint is the blob service's URL, http://127.0.0.1:PORT/devstoreaccount1.
	Endpoint string
	// ConnectionString reaches Endpoint with the development account.
	ConnectionString string

	cmd    *exec.Cmd
	dir    string
	client *azblob.Client
	exited chan struct{}
}

var listening = regexp.MustCompile(`listens on (http://\S+)`)

// Start starts Azurite's blob service with bin (the azurite-blob command) and
// waits until it listens.
func Start(ctx context.Context, bin string) (*Server, error) {
	dir, err := os.MkdirTemp("", "vfskit-azurite-")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--blobHost", "127.0.0.1", "--blobPort", "0", "--location", dir,
		"--silent", "--skipApiVersionCheck", "--disableTelemetry", "--loose")
	setDeathSignal(cmd)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("azuritetest: start %s: %w", bin, err)
	}
	s := &Server{cmd: cmd, dir: dir, exited: make(chan struct{})}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, out)
		_ = cmd.Wait()
		close(s.exited)
	}()
	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case base := <-found:
		s.Endpoint = strings.TrimSuffix(base, "/") + "/" + Account
	case <-s.exited:
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("azuritetest: %s exited before listening: %s", bin, strings.TrimSpace(stderr.String()))
	case <-timer.C:
		_ = s.Close()
		return nil, fmt.Errorf("azuritetest: %s did not listen within %s", bin, startTimeout)
	case <-ctx.Done():
		_ = s.Close()
		return nil, ctx.Err()
	}
	s.ConnectionString = fmt.Sprintf("DefaultEndpointsProtocol=http;AccountName=%s;AccountKey=%s;BlobEndpoint=%s;", Account, Key, s.Endpoint)
	s.client, err = azblob.NewClientFromConnectionString(s.ConnectionString, nil)
	if err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("azuritetest: client for %s: %w", s.Endpoint, err)
	}
	return s, nil
}

// Client is the Azure SDK client of the development account at Endpoint, for
// tests that look at what a blob holds beyond what gocloud shows.
func (s *Server) Client() *azblob.Client { return s.client }

// NewContainer creates a container with a fresh random name and returns the
// name.
func (s *Server) NewContainer(ctx context.Context) (string, error) {
	var b [8]byte
	_, _ = rand.Read(b[:])
	name := "vfskit-" + hex.EncodeToString(b[:])
	if _, err := s.client.CreateContainer(ctx, name, nil); err != nil {
		return "", fmt.Errorf("azuritetest: create container %q at %s: %w", name, s.Endpoint, err)
	}
	return name, nil
}

// Close stops Azurite (SIGTERM, then SIGKILL after a grace period) and removes
// its data directory.
func (s *Server) Close() error {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
	return os.RemoveAll(s.dir)
}

// Required reports whether VFSKIT_REQUIRE_AZURITE=1.
func Required() bool { return os.Getenv(RequireEnv) == "1" }

// Find returns the azurite-blob command: $VFSKIT_AZURITE_BIN, else the one
// scripts/install-azurite.sh installed into the cache. With install, it runs
// that script when there is none.
func Find(install bool) (string, error) {
	if bin := os.Getenv(BinEnv); bin != "" {
		return bin, nil
	}
	bin := cachedBin()
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if _, err := exec.LookPath("node"); err != nil {
		return "", errors.New("Node.js (node) is not installed; Azurite needs it")
	}
	if !install {
		return "", fmt.Errorf("no Azurite at %s (install it with scripts/install-azurite.sh, or set %s)", bin, BinEnv)
	}
	root, err := testenv.RepoRoot()
	if err != nil {
		return "", err
	}
	out, err := exec.Command(filepath.Join(root, "scripts", "install-azurite.sh")).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%w: %s", err, bytes.TrimSpace(ee.Stderr))
		}
		return "", fmt.Errorf("scripts/install-azurite.sh: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// cachedBin is where scripts/install-azurite.sh installs azurite-blob.
func cachedBin() string {
	return filepath.Join(testenv.CacheDir(), "azurite-"+Version, "node_modules", ".bin", "azurite-blob")
}

var shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// Shared returns the test binary's Azurite, starting it on first use (installing
// it first under VFSKIT_REQUIRE_AZURITE=1) and setting
// AZURE_STORAGE_CONNECTION_STRING for the whole process, so azblob:// reaches it
// through vfs's default registry. When it cannot start, t fails under
// VFSKIT_REQUIRE_AZURITE=1 and is skipped otherwise. Call Stop from TestMain.
func Shared(t testing.TB) *Server {
	t.Helper()
	shared.once.Do(func() {
		bin, err := Find(Required())
		if err != nil {
			shared.err = err
			return
		}
		shared.srv, shared.err = Start(context.Background(), bin)
		if shared.err == nil {
			shared.err = os.Setenv(ConnectionStringEnv, shared.srv.ConnectionString)
		}
	})
	if shared.err != nil {
		if Required() {
			t.Fatalf("azuritetest: Azurite cannot start (%s=1, so this is a failure): %v", RequireEnv, shared.err)
		}
		t.Skipf("azuritetest: skipping: Azurite is not available: %v\n"+
			"  To run this test: `make test` (installs the pinned Azurite with npm and sets %s=1),\n"+
			"  or run scripts/install-azurite.sh (needs Node.js) and rerun.", shared.err, RequireEnv)
	}
	return shared.srv
}

// Stop stops the shared Azurite, if one was started.
func Stop() {
	if shared.srv != nil {
		_ = shared.srv.Close()
	}
}

// Main runs the tests and then stops the shared Azurite. Use it as
// os.Exit(azuritetest.Main(m)) in TestMain.
func Main(m *testing.M) int {
	code := m.Run()
	Stop()
	return code
}
