package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tree reads every file under root (symbolic links as "-> target") into a
// map keyed by slash-separated relative path; directories map to "/".
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		rel, err := filepath.Rel(root, p)
		require.NoError(t, err)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == ".":
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			require.NoError(t, err)
			out[rel] = "-> " + target
		case d.IsDir():
			out[rel] = "/"
		default:
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			out[rel] = string(b)
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

// plant creates files (content), directories (a value of "/") and symbolic
// links (a value "-> target") under root.
func plant(t *testing.T, root string, files map[string]string) {
	t.Helper()
	keys := make([]string, 0, len(files))
	for k := range files {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, rel := range keys {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		switch v := files[rel]; {
		case v == "/":
			require.NoError(t, os.MkdirAll(p, 0o755))
		case strings.HasPrefix(v, "-> "):
			require.NoError(t, os.Symlink(strings.TrimPrefix(v, "-> "), p))
		default:
			require.NoError(t, os.WriteFile(p, []byte(v), 0o644))
		}
	}
}

// without returns files minus the given paths (and everything below them).
func without(files map[string]string, gone ...string) map[string]string {
	out := map[string]string{}
next:
	for k, v := range files {
		for _, g := range gone {
			if k == g || strings.HasPrefix(k, g+"/") {
				continue next
			}
		}
		out[k] = v
	}
	return out
}

// built is the binary the tests run, built once per test process into binDir
// (which TestMain makes and removes).
var (
	binDir string
	built  struct {
		once sync.Once
		bin  string
		err  error
	}
)

// buildVfskit returns the path of the vfskit binary, which the first call
// builds (go build).
func buildVfskit(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		built.bin = filepath.Join(binDir, "vfskit")
		out, err := exec.Command("go", "build", "-o", built.bin, ".").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	require.NoError(t, built.err)
	return built.bin
}

// TestAccidents runs the built binary over each accident a destructive
// command must refuse ("touch only what was named") on a scratch directory and checks, byte for byte, that
// everything the command was not asked to touch is still there, and that what
// it refused is untouched.
func TestAccidents(t *testing.T) {
	bin := buildVfskit(t)

	base := map[string]string{
		"victim":          "the victim",
		"victim?keep":     "keep?",
		"d/results/x.csv": "results",
		"d/results?old":   "old results",
		"bs/file":         "under bs/",
		`bs\file`:         "backslash",
		`a\b`:             "a-backslash-b",
		"w/sub/f":         "deep",
		"loop/f":          "in loop",
		"loop/self":       "-> .",
		"loop/up":         "-> ..",
		"loop/in/back":    "-> ../..",
		"linked":          "-> w",
	}
	for _, tc := range []struct {
		name   string
		dir    string // working directory, relative to the scratch root
		args   []string
		code   int
		stdout string // exact, when not empty
		stderr string // substring, when not empty
		gone   []string
		check  func(t *testing.T, root string)
	}{
		{name: "rm -r .", dir: "w", args: []string{"rm", "-r", "."}, code: 1, stderr: "refusing to remove '.' or '..' directory"},
		{name: "rm -r ..", dir: "w/sub", args: []string{"rm", "-r", ".."}, code: 1, stderr: "refusing to remove '.' or '..' directory"},
		{name: "rm -r ./", dir: "w", args: []string{"rm", "-r", "./"}, code: 1, stderr: "refusing to remove '.' or '..' directory"},
		{name: "rm -r --no-preserve-root ..", dir: "w/sub", args: []string{"rm", "-r", "--no-preserve-root", ".."}, code: 1, stderr: "refusing to remove '.' or '..'"},
		{name: "rm -r cwd by path", dir: "w/sub", args: []string{"rm", "-r", "../sub"}, code: 1, stderr: "it is the current directory"},
		{name: "rm -r cwd ancestor", dir: "w/sub", args: []string{"rm", "-r", "../../w"}, code: 1, stderr: "it contains the current directory"},
		{name: "mv .", dir: "w", args: []string{"mv", ".", "../moved"}, code: 1, stderr: "refusing to move '.' or '..'"},
		{name: "mv cwd ancestor", dir: "w/sub", args: []string{"mv", "../../w", "../../moved"}, code: 1, stderr: "it contains the current directory"},
		{name: "rm -r a root", args: []string{"rm", "-r", "memory://scratch/"}, code: 1, stderr: "use --no-preserve-root"},
		{name: "rm victim?keep", args: []string{"rm", "victim?keep"}, gone: []string{"victim?keep"}},
		{name: "rm -r d/results?old", args: []string{"rm", "-r", "d/results?old"}, gone: []string{"d/results?old"}},
		{name: `rm bs\file`, args: []string{"rm", `bs\file`}, gone: []string{`bs\file`}},
		{name: `ls a\b`, args: []string{"ls", "."}, stdout: "a\\b\nbs/\nbs\\file\nd/\nlinked\nloop/\nvictim\nvictim?keep\nw/\n"},
		{name: `cat a\b`, args: []string{"cat", `a\b`}, stdout: "a-backslash-b"},
		{name: "cp to memory", args: []string{"cp", "victim", "memory://scratch/victim"}, code: 2, stderr: "memory:// file system lives only inside this vfskit process"},
		{name: "mv to memory", args: []string{"mv", "victim", "memory://scratch/victim"}, code: 2, stderr: "source deleted"},
		{name: "mv dir to memory", args: []string{"mv", "d", "memory://scratch/"}, code: 2, stderr: "memory://"},
		{name: "ls -R loop", args: []string{"ls", "-R", "loop"}, stdout: "f\nin/\nin/back\nself\nup\n"},
		{name: "ls -RL loop", args: []string{"ls", "-RL", "loop"}, code: 1, stderr: "symbolic link loop"},
		{name: "cp -r loop", args: []string{"cp", "-r", "loop", "copy"}, stderr: "skipping symbolic link",
			check: func(t *testing.T, root string) {
				assert.Equal(t, map[string]string{"f": "in loop", "in": "/"}, tree(t, filepath.Join(root, "copy")), "links are not followed")
			}},
		{name: "cp -rL loop", args: []string{"cp", "-rL", "loop", "copy"}, code: 1, stderr: "symbolic link loop",
			check: func(t *testing.T, root string) {
				assert.NoDirExists(t, filepath.Join(root, "copy"), "nothing is copied when the plan finds a loop")
			}},
		{name: "cp -r link to a directory", args: []string{"cp", "-r", "linked", "copy"}, code: 1, stderr: "a symbolic link to a directory is not followed without -L",
			check: func(t *testing.T, root string) {
				assert.NoFileExists(t, filepath.Join(root, "copy"), "nothing is copied")
				assert.NoDirExists(t, filepath.Join(root, "copy"), "nothing is copied")
			}},
		{name: "cp -rL link to a directory", args: []string{"cp", "-rL", "linked", "copy"},
			check: func(t *testing.T, root string) {
				assert.Equal(t, map[string]string{"sub": "/", "sub/f": "deep"}, tree(t, filepath.Join(root, "copy")), "-L copies what the link points to")
			}},
		{name: "cp -r link to a directory/", args: []string{"cp", "-r", "linked/", "copy"},
			check: func(t *testing.T, root string) {
				assert.Equal(t, map[string]string{"sub": "/", "sub/f": "deep"}, tree(t, filepath.Join(root, "copy")), "a trailing / names the directory")
			}},
		{name: "rm -r loop", args: []string{"rm", "-r", "loop/in"}, gone: []string{"loop/in"}},
		{name: "rm -r of a link to the tree", args: []string{"rm", "-r", "loop/up"}, gone: []string{"loop/up"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			plant(t, root, base)
			before := tree(t, root)
			run := runner(t, bin, filepath.Join(root, filepath.FromSlash(tc.dir)), nil)
			stdout, stderr, code := run(tc.args...)
			require.Equal(t, tc.code, code, "stdout %q stderr %q", stdout, stderr)
			if tc.stdout != "" {
				assert.Equal(t, tc.stdout, stdout)
			}
			if tc.stderr != "" {
				assert.Contains(t, stderr, tc.stderr)
			} else if tc.code == 0 {
				assert.Empty(t, stderr)
			}
			after := tree(t, root)
			delete(after, "copy")
			for k := range after {
				if strings.HasPrefix(k, "copy/") {
					delete(after, k)
				}
			}
			assert.Equal(t, without(before, tc.gone...), after, "everything not named is still there, byte for byte")
			if tc.check != nil {
				tc.check(t, root)
			}
		})
	}
}

// TestAccidentsOnS3 runs the built binary over the S3 accidents: keys that
// look like gocloud's escapes (written with the plain SDK) list as themselves,
// read back and are all deleted by rm -r (which re-lists to check); the bucket
// root is refused.
func TestAccidentsOnS3(t *testing.T) {
	b := newS3Bucket(t)
	bin := buildVfskit(t)
	run := runner(t, bin, t.TempDir(), b.s3Credentials())
	s3 := func(args ...string) (string, string, int) { return run(b.args(args...)...) }
	ctx := t.Context()
	client := b.srv.Client(nil)
	bucket := b.name
	// No '\' here: SeaweedFS itself stores "b\s" as "b/s".
	objects := map[string]string{
		"esc/a__0x41__b":  "A?",
		"esc/__0x2f__":    "slash?",
		"esc/x../y":       "dots",
		"esc/q?keep":      "q",
		"esc/d__0x41__/f": "in an escaped-looking dir",
		"keep/__0x41__":   "stays",
		"keep/other":      "stays too",
	}
	for k, v := range objects {
		_, err := client.PutObject(ctx, &awss3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(k), Body: strings.NewReader(v)})
		require.NoError(t, err)
	}
	keys := func() map[string]string {
		out, err := client.ListObjectsV2(ctx, &awss3.ListObjectsV2Input{Bucket: aws.String(bucket)})
		require.NoError(t, err)
		got := map[string]string{}
		for _, o := range out.Contents {
			r, err := client.GetObject(ctx, &awss3.GetObjectInput{Bucket: aws.String(bucket), Key: o.Key})
			require.NoError(t, err)
			var b bytes.Buffer
			_, err = b.ReadFrom(r.Body)
			require.NoError(t, err)
			require.NoError(t, r.Body.Close())
			got[aws.ToString(o.Key)] = b.String()
		}
		return got
	}
	root := "s3://" + bucket

	out, stderr, code := s3("ls", "-R", root+"/esc")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "__0x2f__\na__0x41__b\nd__0x41__/\nd__0x41__/f\nq?keep\nx../\nx../y\n", out, "every key lists as itself")
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasSuffix(line, "/") {
			continue
		}
		got, stderr, code := s3("cat", root+"/esc/"+line)
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, objects["esc/"+line], got, "the listed name %q reads its own object", line)
	}

	for _, arg := range []string{root, root + "/"} {
		_, stderr, code = s3("rm", "-r", arg)
		assert.Equal(t, 1, code)
		assert.Contains(t, stderr, "use --no-preserve-root")
	}
	_, stderr, code = s3("rm", "-r", root+"/esc/..")
	assert.Equal(t, 2, code, "on an object store a '..' segment names no key: a usage error")
	assert.Contains(t, stderr, `has the segment ".."`)
	assert.Equal(t, objects, keys(), "refusals touch nothing")

	_, stderr, code = s3("rm", "-r", root+"/esc")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, map[string]string{"keep/__0x41__": "stays", "keep/other": "stays too"}, keys(), "rm -r deleted every key under esc/ and nothing else")
}
