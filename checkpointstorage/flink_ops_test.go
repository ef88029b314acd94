package checkpointstorage_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/internal/fixtures"
	"github.com/vfskit/vfskit/vfs"
)

// gimralJobs are the three incremental RocksDB jobs of the gimral fixtures,
// whose shared files are recorded as file:/state/checkpoint/<job>/shared/...
var gimralJobs = map[string]string{
	"494ff033ac9eadd8d03630bec6e3fb42": "chk-6",
	"ccbd35aef7e98d9f7fc4f241cb0ee1cc": "chk-5",
	"fe70b46528a700492a57752c1e19e1bb": "chk-29",
}

const gimralBase = "gimral-offset-translator/state/checkpoint"

// copyFixtures copies the Flink fixtures below sub ("." for all) into a
// temporary directory, at the same relative place (they are read-only and
// never part of the repository), and returns it with the relative paths of
// every _metadata.
func copyFixtures(t testing.TB, sub string) (string, []string) {
	t.Helper()
	root, files := fixtures.FlinkMetadataFiles(t)
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(filepath.Join(dir, sub), os.DirFS(filepath.Join(root, sub))))
	return dir, files
}

func fileURI(p string) vfs.Path { return vfs.MustPath("file://" + filepath.ToSlash(p)) }

// TestVerifyFlinkFixtures: every fixture whose files are all there verifies;
// the ones that reference files elsewhere name exactly those: the zhisheng
// checkpoint's hdfs: files, and the gimral checkpoints' shared files recorded
// under /state/checkpoint, which verify once mapped to where they are.
func TestVerifyFlinkFixtures(t *testing.T) {
	root, files := copyFixtures(t, ".")
	for _, f := range files {
		dir := filepath.Dir(filepath.Join(root, f))
		v, err := cs.VerifyCheckpoint(t.Context(), fileURI(dir))
		require.NoError(t, err, f)
		absolute := map[string]bool{}
		for _, r := range v.Metadata.Files() {
			if r.Reference == metadata.Absolute {
				absolute[r.Path] = true
			}
		}
		var problems []string
		for _, p := range v.Problems() {
			problems = append(problems, p.Recorded)
		}
		switch {
		case strings.HasPrefix(f, "zhisheng"):
			require.Len(t, problems, len(absolute), f)
			for _, p := range problems {
				assert.True(t, strings.HasPrefix(p, "hdfs:/user/flink/checkpoints/") && absolute[p], p)
			}
			assert.Contains(t, v.Problems()[0].Problem(), "cannot check")
		case strings.HasPrefix(f, gimralBase):
			require.Len(t, problems, 3, f)
			for _, p := range v.Problems() {
				assert.Regexp(t, `^file:/state/checkpoint/[0-9a-f]{32}/shared/[0-9a-f-]{36}$`, p.Recorded)
				assert.Equal(t, "missing", p.Problem())
			}
			m, err := cs.ParsePathMapping("file:/state/checkpoint=" + fileURI(filepath.Join(root, gimralBase)).String())
			require.NoError(t, err)
			v, err = cs.VerifyCheckpoint(t.Context(), fileURI(dir), cs.WithPathMapping(m))
			require.NoError(t, err)
			assert.True(t, v.OK(), "%s with the mapping: %v", f, v.Problems())
			assert.Len(t, v.Files, 6, "3 relative files and 3 shared ones")
		default:
			assert.Empty(t, problems, f)
			assert.Empty(t, absolute, "%s has no absolute reference", f)
		}
	}
}

// TestVerifyNamesDamage removes one state file of a fixture and truncates
// another: verify names exactly those two.
func TestVerifyNamesDamage(t *testing.T) {
	const sp = "apache-flink/flink-tests/src/test/resources/new-stateful-broadcast-udf-migration-itcase-flink1.17-rocksdb-savepoint-native"
	root, _ := copyFixtures(t, sp)
	dir := filepath.Join(root, sp)
	v, err := cs.VerifyCheckpoint(t.Context(), fileURI(dir))
	require.NoError(t, err)
	require.True(t, v.OK(), v.Problems())
	require.Len(t, v.Files, 44)
	gone, cut := v.Files[3].Path, v.Files[7].Path
	require.NoError(t, os.Remove(gone.Path()))
	require.NoError(t, os.Truncate(cut.Path(), v.Files[7].Want-1))

	v, err = cs.VerifyCheckpoint(t.Context(), fileURI(filepath.Join(dir, "_metadata")))
	require.NoError(t, err)
	p := v.Problems()
	require.Len(t, p, 2)
	assert.Equal(t, gone, p[0].Path)
	assert.Equal(t, "missing", p[0].Problem())
	assert.Equal(t, cut, p[1].Path)
	assert.Equal(t, "size "+itoa(v.Files[7].Want-1)+", expected "+itoa(v.Files[7].Want), p[1].Problem())
}

// TestAuditGimralJob: with the mapping, the shared files are referenced and a
// job has no orphan; planted orphans are found, the old one deletable, the new
// one (maybe a checkpoint in progress) not; without the mapping nothing is
// deletable, since the references point nowhere.
func TestAuditGimralJob(t *testing.T) {
	root, _ := copyFixtures(t, gimralBase)
	base := filepath.Join(root, gimralBase)
	m, err := cs.ParsePathMapping("file:/state/checkpoint=" + fileURI(base).String())
	require.NoError(t, err)
	for job, chk := range gimralJobs {
		jobDir := fileURI(filepath.Join(base, job))
		a, err := cs.AuditJob(t.Context(), jobDir, cs.WithPathMapping(m))
		require.NoError(t, err)
		assert.Empty(t, a.Orphans, job)
		assert.Empty(t, a.Missing(), job)
		assert.Equal(t, 7, a.Files, "_metadata, 3 relative, 3 shared")
		assert.Equal(t, a.Bytes, a.ReferencedBytes+a.MetadataBytes)
		shared := 0
		for _, c := range a.Referenced {
			if strings.Contains(c.Path.String(), "/"+job+"/shared/") {
				shared++
				assert.True(t, c.Mapped && c.OK())
			}
		}
		assert.Equal(t, 3, shared, job)
		require.Len(t, a.Snapshots, 1)
		assert.Equal(t, chk, a.Snapshots[0].Dir.Name())

		// Plant an old orphan in shared/ and a new one in a chk directory
		// that has no _metadata yet.
		meta := filepath.Join(base, job, chk, "_metadata")
		st, err := os.Stat(meta)
		require.NoError(t, err)
		old := filepath.Join(base, job, "shared", "old-orphan")
		require.NoError(t, os.WriteFile(old, []byte("12345"), 0o644))
		require.NoError(t, os.Chtimes(old, st.ModTime().Add(-time.Hour), st.ModTime().Add(-time.Hour)))
		require.NoError(t, os.MkdirAll(filepath.Join(base, job, "chk-1000"), 0o755))
		fresh := filepath.Join(base, job, "chk-1000", "in-progress")
		require.NoError(t, os.WriteFile(fresh, []byte("123"), 0o644))
		require.NoError(t, os.Chtimes(fresh, st.ModTime().Add(time.Hour), st.ModTime().Add(time.Hour)))

		unmapped, err := cs.AuditJob(t.Context(), jobDir)
		require.NoError(t, err)
		require.Len(t, unmapped.Orphans, 5, "without the mapping the shared files look orphaned")
		deleted, err := cs.DeleteOrphans(t.Context(), unmapped)
		require.NoError(t, err)
		assert.Empty(t, deleted, "nothing is deletable while references point nowhere")

		a, err = cs.AuditJob(t.Context(), jobDir, cs.WithPathMapping(m))
		require.NoError(t, err)
		require.Len(t, a.Orphans, 2)
		assert.Equal(t, int64(8), a.OrphanBytes)
		byName := map[string]cs.Orphan{}
		for _, o := range a.Orphans {
			byName[o.Name()] = o
		}
		assert.True(t, byName["old-orphan"].Deletable)
		assert.False(t, byName["in-progress"].Deletable)
		assert.Contains(t, byName["in-progress"].Reason, "not older than the newest completed checkpoint")
		dry, err := cs.DeleteOrphans(t.Context(), a, cs.WithDryRun())
		require.NoError(t, err)
		assert.Len(t, dry, 1)
		assert.FileExists(t, old)
		deleted, err = cs.DeleteOrphans(t.Context(), a)
		require.NoError(t, err)
		require.Equal(t, []vfs.Path{fileURI(old)}, deleted)
		assert.NoFileExists(t, old)
		assert.FileExists(t, fresh)
		v, err := cs.VerifyCheckpoint(t.Context(), jobDir.Join(chk), cs.WithPathMapping(m))
		require.NoError(t, err)
		assert.True(t, v.OK(), "the checkpoint still verifies")
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestAuditRefusesWhatIsNotAJob: a base directory (its jobs' files would all
// look orphaned), a checkpoint directory and a file are refused, naming why.
func TestAuditRefusesWhatIsNotAJob(t *testing.T) {
	root, _ := copyFixtures(t, gimralBase)
	base := filepath.Join(root, gimralBase)
	for p, why := range map[string]string{
		base: "a base directory holding job",
		filepath.Join(base, "fe70b46528a700492a57752c1e19e1bb", "chk-29"):              "a checkpoint or savepoint directory",
		filepath.Join(base, "fe70b46528a700492a57752c1e19e1bb", "chk-29", "_metadata"): "a file",
	} {
		_, err := cs.AuditJob(t.Context(), fileURI(p))
		require.ErrorIs(t, err, fs.ErrInvalid, p)
		assert.Contains(t, err.Error(), why)
	}
}

// TestDeleteOrphansStaysInTheJob: whatever an Audit says, DeleteOrphans
// deletes nothing outside its job directory (another job, a sibling whose
// name starts like the job's, another scheme).
func TestDeleteOrphansStaysInTheJob(t *testing.T) {
	dir := t.TempDir()
	job := fileURI(filepath.Join(dir, "base", "job"))
	var victims []vfs.Path
	for _, p := range []string{"base/other-job/shared/x", "base/job2/x", "victim"} {
		full := filepath.Join(dir, p)
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte("keep"), 0o644))
		victims = append(victims, fileURI(full))
	}
	mem := memPath("memory://delete-orphans/base/job/x")
	fsys, err := vfs.DefaultRegistry().GetPath(t.Context(), mem)
	require.NoError(t, err)
	require.NoError(t, vfs.WriteFile(t.Context(), fsys, mem, []byte("keep"), vfs.NoOverwrite))
	victims = append(victims, mem)
	a := &cs.Audit{JobDir: job}
	for _, v := range victims {
		a.Orphans = append(a.Orphans, cs.Orphan{FileStatus: vfs.FileStatus{Path: v}, Deletable: true})
	}
	deleted, err := cs.DeleteOrphans(t.Context(), a)
	require.NoError(t, err)
	assert.Empty(t, deleted)
	for _, v := range victims {
		vf, err := vfs.DefaultRegistry().GetPath(t.Context(), v)
		require.NoError(t, err)
		ok, err := vfs.Exists(t.Context(), vf, v)
		require.NoError(t, err)
		assert.True(t, ok, "%s is still there", v)
	}
}

// TestAuditDoesNotFollowLinks: a symbolic link inside a job directory that
// leads to a directory elsewhere (shared/ -> a disk full of old files) does
// not make what lies behind it part of the job: an audit neither counts those
// files nor offers them for deletion, DeleteOrphans leaves them byte for byte,
// and the inventory does not count them.
func TestAuditDoesNotFollowLinks(t *testing.T) {
	root, _ := copyFixtures(t, gimralBase)
	base := filepath.Join(root, gimralBase)
	m, err := cs.ParsePathMapping("file:/state/checkpoint=" + fileURI(base).String())
	require.NoError(t, err)
	job := "fe70b46528a700492a57752c1e19e1bb"
	jobDir := fileURI(filepath.Join(base, job))
	before, err := cs.AuditJob(t.Context(), jobDir, cs.WithPathMapping(m))
	require.NoError(t, err)
	inv, err := cs.TakeInventory(t.Context(), jobDir)
	require.NoError(t, err)

	// Old files outside the job, older than every checkpoint: orphans, were
	// they inside it.
	outside := t.TempDir()
	victims := map[string]string{}
	for _, name := range []string{"a", "sub/b"} {
		p := filepath.Join(outside, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("precious "+name), 0o644))
		old := time.Now().Add(-24 * time.Hour)
		require.NoError(t, os.Chtimes(p, old, old))
		victims[p] = "precious " + name
	}
	require.NoError(t, os.Symlink(outside, filepath.Join(base, job, "shared", "linked")))
	require.NoError(t, os.Symlink(outside, filepath.Join(base, job, "elsewhere")))

	a, err := cs.AuditJob(t.Context(), jobDir, cs.WithPathMapping(m))
	require.NoError(t, err)
	assert.Empty(t, a.Orphans, "nothing behind a link is an orphan of the job")
	assert.Equal(t, before.Files, a.Files)
	assert.Equal(t, before.Bytes, a.Bytes)
	deleted, err := cs.DeleteOrphans(t.Context(), a)
	require.NoError(t, err)
	assert.Empty(t, deleted)
	for p, want := range victims {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Equal(t, want, string(b))
	}
	after, err := cs.TakeInventory(t.Context(), jobDir)
	require.NoError(t, err)
	assert.Equal(t, inv.Bytes, after.Bytes, "the inventory does not count what lies behind a link")
}
