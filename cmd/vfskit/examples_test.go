package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/internal/fixtures"
	"github.com/vfskit/vfskit/internal/s3test"
)

// exampleJob is the job id of the demos the examples' "<job id>" names.
const exampleJob = "0123456789abcdef0123456789abcdef"

// exampleSavepoint is the savepoint directory name the examples use.
const exampleSavepoint = "savepoint-3f2a1b-0123456789ab"

// TestHelpExamplesRun runs every example that --help prints, of every
// command (found by walking "Available Commands" from the top help), as a
// one-shot command line through bash -o pipefail -c (sh -c without bash)
// with the built binary on PATH, in a
// sandbox: file:///... paths and /var/... under a temporary directory,
// s3://bucket/... in a SeaweedFS bucket holding the objects the examples
// read, "<job id>" a job the demo wrote. Each must exit 0.
func TestHelpExamplesRun(t *testing.T) {
	srv := s3test.SeaweedFS(t)
	bin := buildVfskit(t)
	bucket := srv.NewBucket(t)
	work := t.TempDir()
	env := []string{
		"AWS_ACCESS_KEY_ID=" + srv.AccessKeyID,
		"AWS_SECRET_ACCESS_KEY=" + srv.SecretAccessKey,
		"AWS_REGION=" + srv.Region,
		"AWS_ENDPOINT_URL_S3=" + srv.Endpoint, "AWS_ENDPOINT_URL=", "VFSKIT_S3_PATH_STYLE=true",
		"PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH"),
	}
	run := runner(t, bin, work, env)
	must := func(args ...string) {
		t.Helper()
		_, stderr, code := run(args...)
		require.Equal(t, 0, code, "vfskit %q: %s", args, stderr)
	}
	local, s3 := "file://"+work, "s3://"+bucket
	demo := func(base, savepoints string) {
		must("demo", "--storage", "fs", "--records", "20000", "-k", "2000", "-p", "3", "--rate", "0", "--vocabulary", "5000",
			"--job-id", exampleJob, "--checkpoint-dir", base, "--savepoint-dir", savepoints)
	}
	demo(local+"/tmp/vfskit-demo", local+"/tmp/vfskit-demo/savepoints")
	demo(local+"/flink/checkpoints", local+"/flink/sp")
	demo(local+"/old", local+"/old-savepoints")
	demo(local+"/backup/checkpoints", local+"/backup/savepoints")
	demo(s3+"/checkpoints", s3+"/demo-savepoints")
	sps, err := os.ReadDir(filepath.Join(work, "flink", "sp"))
	require.NoError(t, err)
	require.Len(t, sps, 1)
	must("cp", "-r", local+"/flink/sp/"+sps[0].Name(), local+"/flink/savepoints/"+exampleSavepoint)
	must("cp", "-r", local+"/flink/savepoints/"+exampleSavepoint, s3+"/savepoints/"+exampleSavepoint)
	// The operator-state examples read a savepoint of a Flink job with a Kafka
	// source, file:///flink/kafka-savepoint: a fixture's copy (fixtures stay in
	// ../shared; without them those examples are skipped with a message).
	kafkaSavepoint := ""
	t.Run("kafka-savepoint fixture", func(t *testing.T) {
		m, err := filepath.Glob(filepath.Join(fixtures.FlinkMetadataDir(t), "kafka-source-savepoint", "enum3-split0", "savepoint-*"))
		require.NoError(t, err)
		require.Len(t, m, 1, "the fixture kafka-source-savepoint/enum3-split0 holds one savepoint")
		kafkaSavepoint = m[0]
	})
	if kafkaSavepoint != "" {
		must("cp", "-r", "file://"+kafkaSavepoint, local+"/flink/kafka-savepoint")
	}

	// What the file examples read, put back before each example.
	files := map[string]string{
		"notes.txt": "notes\n", "a.bin": "a", "report.csv": "a,b\n", "dir/x.txt": "x",
		"tmp/checkpoints/old/x": "old", "var/data/keep": "k", "var/checkpoints/keep": "k",
		"logs/app.log": "log\n", "a.csv": "a\n", "b.csv": "b\n",
	}
	objects := map[string]string{
		"config.json": "{}", "body.txt": "body\n", "logs/a.log": "a", "logs/sub/b.log": "b", "data/part-0": "p",
		"a": "a", "b": "b", "tmp/out/x": "x", "tmp/part-0": "p", "reports/keep": "k",
	}
	client := srv.Client(nil)
	reset := func() {
		for name, data := range files {
			p := filepath.Join(work, filepath.FromSlash(name))
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
		}
		for key, data := range objects {
			_, err := client.PutObject(t.Context(), &awss3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader(data)})
			require.NoError(t, err)
		}
	}
	reset()
	tarred := exec.Command("sh", "-c", "tar c dir | vfskit cp - "+s3+"/dir.tar")
	tarred.Dir, tarred.Env = work, append(os.Environ(), env...)
	out, err := tarred.CombinedOutput()
	require.NoError(t, err, "%s", out)

	subst := strings.NewReplacer(
		"s3://bucket/", s3+"/",
		"file:///", local+"/",
		" /var/", " "+work+"/var/",
		"<job id>", exampleJob,
		"http://127.0.0.1:8333", srv.Endpoint,
	)
	examples := helpExamples(t, run)
	require.Greater(t, len(examples), 30, "every command's examples")
	for _, ex := range examples {
		t.Run(ex.command+": "+ex.line, func(t *testing.T) {
			if kafkaSavepoint == "" && strings.Contains(ex.line, "kafka-savepoint") {
				t.Skip("the fixture kafka-source-savepoint (../shared/fixtures/flink-metadata) is absent: this example reads it")
			}
			reset()
			line := subst.Replace(ex.line)
			cmd := exec.Command("sh", "-c", line)
			if _, err := exec.LookPath("bash"); err == nil { // a failing vfskit fails its pipeline too
				cmd = exec.Command("bash", "-o", "pipefail", "-c", line)
			}
			cmd.Dir, cmd.Env = work, append(os.Environ(), env...)
			stdout, stderr, code := runCmd(t, cmd)
			require.Equal(t, 0, code, "%s\nstdout: %s\nstderr: %s", line, stdout, stderr)
		})
	}
}

// helpExample is one example line of a command's help.
type helpExample struct {
	command, line string
}

// comment is a shell comment at the end of an example line.
var comment = regexp.MustCompile(`\s+#\s.*$`)

// helpExamples walks the commands from the top help and returns every
// example line, without its comment.
func helpExamples(t *testing.T, run func(args ...string) (string, string, int)) []helpExample {
	t.Helper()
	var out []helpExample
	var walk func(path []string)
	walk = func(path []string) {
		help, stderr, code := run(append(append([]string(nil), path...), "--help")...)
		require.Equal(t, 0, code, stderr)
		for _, line := range section(help, "Examples:") {
			if line = strings.TrimSpace(comment.ReplaceAllString(line, "")); line != "" {
				out = append(out, helpExample{command: strings.Join(path, " "), line: line})
			}
		}
		for _, line := range section(help, "Available Commands:") {
			if f := strings.Fields(line); len(f) > 0 && f[0] != "help" {
				walk(append(append([]string(nil), path...), f[0]))
			}
		}
	}
	walk(nil)
	return out
}

// section returns the lines of the help section that starts with title, up
// to the first blank line.
func section(help, title string) []string {
	_, rest, found := strings.Cut(help, "\n"+title+"\n")
	if !found {
		return nil
	}
	body, _, _ := strings.Cut(rest, "\n\n")
	return strings.Split(body, "\n")
}
