// Package flinktest drives the Flink harness (interop/flink/flink) from Go tests
// and benchmarks: it finds the script, applies the project's skip-or-fail policy
// for Java and Maven, runs the harness's commands and decodes their JSON.
//
// # Policy: skip or fail
//
// With VFSKIT_REQUIRE_FLINK=1 (set by `make test` and `make flink-matrix`) a
// missing Java or Maven, or a harness that cannot be built, fails the test.
// Without it (a plain `go test`) such a test is skipped with a message saying
// what is missing.
//
// # Which versions
//
// [Versions] returns what the tests run: by default the 1.20 release and the
// newest the harness lists; VFSKIT_FLINK_VERSIONS=all (`make flink-matrix`)
// every version it lists, or a comma-separated list of versions.
package flinktest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vfskit/vfskit/internal/testenv"
)

// RequireEnv turns a missing Java or Maven from a skip into a failure.
const RequireEnv = "VFSKIT_REQUIRE_FLINK"

// VersionsEnv selects the Flink versions: "all", or a comma-separated list.
const VersionsEnv = "VFSKIT_FLINK_VERSIONS"

// Harness runs one Flink version of the harness.
type Harness struct {
	// Script is the path of interop/flink/flink.
	Script string
	// Version is the Flink version, one of those `flink versions` lists.
	Version string
	// Env is added to the process's environment for every command (S3 settings).
	Env []string
}

// Written is what `write` and `restore --checkpoints N` print.
type Written struct {
	JobID       string   `json:"jobId"`
	Checkpoints []string `json:"checkpoints"`
	Savepoint   *string  `json:"savepoint"`
}

// Latest is the newest retained checkpoint.
func (w Written) Latest() string { return w.Checkpoints[len(w.Checkpoints)-1] }

// Description is what `describe` prints: Flink's own reading of a _metadata.
type Description struct {
	CheckpointID int64      `json:"checkpointId"`
	Operators    []Operator `json:"operators"`
	Files        []string   `json:"files"`
}

// Operator is one operator's state as describe reports it.
type Operator struct {
	ID             string `json:"id"`
	Parallelism    int    `json:"parallelism"`
	MaxParallelism int    `json:"maxParallelism"`
	SubtaskStates  int    `json:"subtaskStates"`
}

// Script returns the harness script's path, after checking that java and mvn
// are on PATH (see the package doc for what happens when they are not).
func Script(t testing.TB) string {
	t.Helper()
	script, err := FindScript()
	if errors.Is(err, errMissingTool) {
		unavailable(t, err.Error())
	} else if err != nil {
		t.Fatalf("flinktest: %v", err)
	}
	return script
}

var errMissingTool = errors.New("not on PATH (the Flink harness needs a JDK 17 and Maven 3.8)")

// FindScript returns the harness script's path in the repository the working
// directory is in; an error when java or mvn is not on PATH.
func FindScript() (string, error) {
	for _, tool := range []string{"java", "mvn"} {
		if _, err := exec.LookPath(tool); err != nil {
			return "", fmt.Errorf("%s is %w", tool, errMissingTool)
		}
	}
	root, err := testenv.RepoRoot()
	if err != nil {
		return "", err
	}
	script := filepath.Join(root, "interop", "flink", "flink")
	if _, err := os.Stat(script); err != nil {
		return "", fmt.Errorf("the harness script: %w", err)
	}
	return script, nil
}

// ListVersions returns what `flink versions` lists, oldest first.
func ListVersions(script string) ([]string, error) {
	out, err := exec.Command(script, "versions").Output()
	if err != nil {
		return nil, fmt.Errorf("%s versions: %w", script, err)
	}
	all := strings.Fields(string(out))
	if len(all) == 0 {
		return nil, fmt.Errorf("%s versions listed none", script)
	}
	return all, nil
}

func unavailable(t testing.TB, what string) {
	t.Helper()
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("flinktest: %s; %s=1 makes this a failure", what, RequireEnv)
	}
	t.Skipf("flinktest: %s; skipping (make test requires it)", what)
}

// Versions returns the Flink versions to test (see the package doc), oldest first.
func Versions(t testing.TB, script string) []string {
	t.Helper()
	all, err := ListVersions(script)
	if err != nil {
		t.Fatalf("flinktest: %v", err)
	}
	switch sel := os.Getenv(VersionsEnv); sel {
	case "all":
		return all
	case "":
		var picked []string
		for _, v := range all {
			if strings.HasPrefix(v, "1.20.") {
				picked = append(picked, v)
			}
		}
		if newest := all[len(all)-1]; !slices.Contains(picked, newest) {
			picked = append(picked, newest)
		}
		return picked
	default:
		var picked []string
		for _, v := range strings.Split(sel, ",") {
			if v = strings.TrimSpace(v); !slices.Contains(all, v) {
				t.Fatalf("flinktest: %s names %q; the harness runs %v", VersionsEnv, v, all)
			}
			picked = append(picked, v)
		}
		return picked
	}
}

// New returns the harness for version, built (once per machine and source
// change, by the script itself) before it returns.
func New(t testing.TB, script, version string, env ...string) *Harness {
	t.Helper()
	h := &Harness{Script: script, Version: version, Env: env}
	if _, stderr, err := h.Run("build"); err != nil {
		if os.Getenv(RequireEnv) != "1" && strings.Contains(stderr, "Could not resolve") {
			t.Skipf("flinktest: Flink %s cannot be built here (Maven): %s", version, stderr)
		}
		t.Fatalf("flinktest: building the harness for Flink %s: %v\n%s", version, err, stderr)
	}
	return h
}

// Run runs one harness command for h's version and returns its standard output
// and standard error.
func (h *Harness) Run(args ...string) (stdout, stderr string, err error) {
	cmd := exec.Command(h.Script, append([]string{h.Version}, args...)...)
	cmd.Env = append(os.Environ(), h.Env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// Write runs `write` with args and decodes its JSON; the test fails if it does not succeed.
func (h *Harness) Write(t testing.TB, args ...string) Written {
	t.Helper()
	return h.written(t, append([]string{"write"}, args...))
}

// RestoreCheckpoints runs `restore --checkpoints N ...` and decodes its JSON.
func (h *Harness) RestoreCheckpoints(t testing.TB, args ...string) Written {
	t.Helper()
	return h.written(t, append([]string{"restore"}, args...))
}

func (h *Harness) written(t testing.TB, args []string) Written {
	t.Helper()
	out, stderr, err := h.Run(args...)
	if err != nil {
		t.Fatalf("flink %s %q: %v\n%s", h.Version, args, err, tail(stderr))
	}
	var w Written
	if err := json.Unmarshal([]byte(out), &w); err != nil || len(w.Checkpoints) == 0 {
		t.Fatalf("flink %s %q: output %q: want the JSON with checkpoints (%v)", h.Version, args, out, err)
	}
	return w
}

// Restore runs `restore` to the end of the input: nil when Flink restored and
// the result was exactly right, else an error with the harness's last words.
func (h *Harness) Restore(args ...string) error {
	_, stderr, err := h.Run(append([]string{"restore"}, args...)...)
	if err != nil {
		return fmt.Errorf("flink %s restore %q: %w\n%s", h.Version, args, err, tail(stderr))
	}
	return nil
}

// Describe runs `describe uri` and decodes its JSON.
func (h *Harness) Describe(t testing.TB, uri string) Description {
	t.Helper()
	out, stderr, err := h.Run("describe", uri)
	if err != nil {
		t.Fatalf("flink %s describe %s: %v\n%s", h.Version, uri, err, tail(stderr))
	}
	var d Description
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("flink %s describe %s: output %q: %v", h.Version, uri, out, err)
	}
	return d
}

// tail keeps the end of a long standard error (stack traces), where the cause is.
func tail(s string) string {
	const n = 6000
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
