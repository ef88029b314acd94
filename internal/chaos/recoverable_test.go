package chaos_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/internal/chaos"
	"github.com/vfskit/vfskit/vfs"
)

// rwIncarnation is one incarnation of a recoverable stream in the model
// (Open, or one Recover): the bytes it holds so far.
type rwIncarnation struct {
	id   int
	out  vfs.RecoverableOutputStream
	data []byte
}

// rwToken is a token the model kept, with the bytes it stands for and the
// incarnation that made it.
type rwToken struct {
	inc    int
	data   []byte
	resume vfs.ResumeRecoverable
	commit vfs.CommitRecoverable
}

// TestChaosRecoverable is the property test of the recoverable writer on
// memory://, file://, s3:// (SeaweedFS), gs:// (fake-gcs-server) and
// azblob:// (Azurite): each cycle runs random steps on one target — streams
// opened and written (empty ones too), persisted at random points, closed for
// commit, committed, committed again after recovery from a random earlier
// commit token, recovered from a random earlier resume token, given up
// without a word (an in-process crash: the stream is dropped, not closed),
// and the target written or deleted by a foreign writer between steps.
//
// The invariant, checked after every step: the target holds exactly the
// bytes of the last stream whose commit returned nil, or what the foreign
// writer last put there, or nothing if it deleted it. A commit that returns
// nil left its own bytes there; one that fails left the target as it was;
// an incarnation that committed once never changes the target again.
func TestChaosRecoverable(t *testing.T) {
	cycles := chaos.Cycles(t, 3)
	seed := chaos.Seed(t)
	for si, st := range destructiveStores {
		t.Run(st.name, func(t *testing.T) {
			store := st.make(t)
			sum := chaos.NewSummary("recoverable-" + st.name)
			for c := range cycles {
				rng := rand.New(rand.NewPCG(seed, uint64(si)<<32|uint64(c)))
				what := fmt.Sprintf("seed %d (%s=%d), store %s, cycle %d", seed, chaos.SeedEnv, seed, st.name, c)
				recoverableCycle(t, store, store.root.Join(fmt.Sprintf("rw%d", c), "part"), rng, sum, what)
			}
			sum.Report(t)
			require.Equal(t, cycles, sum.Get("cycles"))
			require.Zero(t, sum.Get("violations"), "invariant violations")
		})
	}
}

// rwChildEnv names the environment variable that makes the test binary a
// killed writer (killedWriter): it holds the target and the seed of the bytes.
const rwChildEnv = "VFSKIT_CHAOS_RW_CHILD"

// rwChildData is the child's stream: n bytes of seed.
func rwChildData(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 11))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// rwChild writes a stream to the target in rwChildEnv ("PATH SEED SIZE
// PERSISTS"): writes, persisting PERSISTS times at even points and printing
// each token ("R LEN HEX"), closes for commit ("C HEX"), commits
// ("committed"), then waits to be killed. It runs only as the test binary's
// child (TestMain).
func rwChild() int {
	var (
		path           string
		seed           uint64
		size, persists int
	)
	if _, err := fmt.Sscan(os.Getenv(rwChildEnv), &path, &seed, &size, &persists); err != nil {
		fmt.Fprintln(os.Stderr, "rw child:", err)
		return 2
	}
	ctx := context.Background()
	die := func(err error) int {
		fmt.Fprintln(os.Stderr, "rw child:", err)
		return 3
	}
	w, err := vfs.NewRecoverableWriter(local.New())
	if err != nil {
		return die(err)
	}
	out, err := w.Open(ctx, vfs.MustPath(path))
	if err != nil {
		return die(err)
	}
	data := rwChildData(seed, size)
	for i := range persists + 1 {
		part := data[i*size/(persists+1) : (i+1)*size/(persists+1)]
		if _, err := out.Write(part); err != nil {
			return die(err)
		}
		if i < persists {
			tok, err := out.Persist(ctx)
			if err != nil {
				return die(err)
			}
			fmt.Printf("R %d %x\n", out.Pos(), []byte(tok))
		}
	}
	c, err := out.CloseForCommit(ctx)
	if err != nil {
		return die(err)
	}
	fmt.Printf("C %x\n", []byte(c.Recoverable()))
	if err := c.Commit(ctx); err != nil {
		return die(err)
	}
	fmt.Println("committed")
	time.Sleep(time.Hour) // killed long before
	return 0
}

// killedRun is what a killed writer printed: its bytes, its resume tokens
// (with the length each stands for), its commit token and whether its commit
// returned.
type killedRun struct {
	data    []byte
	resumes []struct {
		n   int
		tok vfs.ResumeRecoverable
	}
	commit    vfs.CommitRecoverable
	committed bool
}

// killedWriter runs rwChild on target and kills it with SIGKILL after a
// random number of its lines (or as soon as it started), then reads what it
// printed before it died: it prints each step before the next one, so a
// commit it made is always preceded by its commit token.
func killedWriter(t *testing.T, target vfs.Path, rng *rand.Rand) killedRun {
	t.Helper()
	seed, size, persists := rng.Uint64(), []int{0, 10, 200_000}[rng.IntN(3)], rng.IntN(3)
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %d %d %d", rwChildEnv, target.Path(), seed, size, persists))
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	res := killedRun{data: rwChildData(seed, size)}
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 1<<20)
	var seen []string
	for k := rng.IntN(persists + 3); k > 0 && lines.Scan(); k-- {
		seen = append(seen, lines.Text())
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	for lines.Scan() {
		seen = append(seen, lines.Text())
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "the killed writer")
	require.False(t, exit.Exited(), "the writer exited by itself (code %d) instead of being killed", exit.ExitCode())
	for _, line := range seen {
		kind, rest, _ := strings.Cut(line, " ")
		switch kind {
		case "R":
			ns, hx, _ := strings.Cut(rest, " ")
			n, err := strconv.Atoi(ns)
			require.NoError(t, err)
			tok, err := hex.DecodeString(hx)
			require.NoError(t, err)
			res.resumes = append(res.resumes, struct {
				n   int
				tok vfs.ResumeRecoverable
			}{n, tok})
		case "C":
			tok, err := hex.DecodeString(rest)
			require.NoError(t, err)
			res.commit = tok
		case "committed":
			res.committed = true
		}
	}
	return res
}

func recoverableCycle(t *testing.T, store destructiveStore, target vfs.Path, rng *rand.Rand, sum *chaos.Summary, what string) {
	ctx := t.Context()
	w, err := vfs.NewRecoverableWriter(store.fs)
	require.NoError(t, err)
	var (
		cur       []byte // what the target must hold; nil with !exists
		exists    bool
		active    *rwIncarnation
		incs      int
		committed = map[int]bool{} // incarnations whose commit returned nil
		resumes   []rwToken
		commits   []rwToken
		foreign   int
		trace     []string // what the cycle did, for the failure message
	)
	check := func(step string) {
		t.Helper()
		got, err := vfs.ReadFile(ctx, store.fs, target)
		switch {
		case !exists && errors.Is(err, fs.ErrNotExist):
			return
		case err != nil:
			sum.Add("violations", 1)
			require.NoError(t, err, "%s: %s: reading the target", what, step)
		case !exists || !bytes.Equal(got, cur):
			sum.Add("violations", 1)
			require.Failf(t, "invariant violated", "%s: after %s the target holds %d bytes (%.40q), want %v %d bytes (%.40q); the cycle: %s",
				what, step, len(got), got, exists, len(cur), cur, strings.Join(trace, "; "))
		}
	}
	// commit runs a commit of the token's incarnation and checks its answer.
	commit := func(step string, tok rwToken, run func() error) {
		t.Helper()
		before, had := cur, exists
		err := run()
		trace = append(trace, fmt.Sprintf("%s of incarnation %d (%d bytes): %v", step, tok.inc, len(tok.data), err))
		switch {
		case err == nil && committed[tok.inc] && !(had && bytes.Equal(before, tok.data)):
			sum.Add("violations", 1)
			require.Failf(t, "invariant violated", "%s: %s of an incarnation that committed before returned nil, but the target did not hold its bytes", what, step)
		case err == nil:
			cur, exists = tok.data, true
			committed[tok.inc] = true
			sum.Add("commits", 1)
		default:
			sum.Add("commits-refused", 1)
		}
		check(fmt.Sprintf("%s (%v)", step, err))
	}
	steps := 8 + rng.IntN(12)
	for s := range steps {
		step := fmt.Sprintf("step %d", s)
		r := rng.IntN(100)
		trace = append(trace, fmt.Sprintf("%s: r=%d active=%v", step, r, active != nil))
		switch {
		case active == nil && r < 40:
			out, err := w.Open(ctx, target)
			require.NoError(t, err, "%s: %s: Open", what, step)
			incs++
			active = &rwIncarnation{id: incs, out: out}
			sum.Add("opened", 1)
		case active != nil && r < 30:
			data := make([]byte, []int{0, 1, 100, 5000, 70_000}[rng.IntN(5)])
			for i := range data {
				data[i] = byte(rng.Uint32())
			}
			_, err := active.out.Write(data)
			require.NoError(t, err, "%s: %s: Write", what, step)
			active.data = append(active.data, data...)
		case active != nil && r < 45:
			tok, err := active.out.Persist(ctx)
			require.NoError(t, err, "%s: %s: Persist", what, step)
			resumes = append(resumes, rwToken{inc: active.id, data: bytes.Clone(active.data), resume: tok})
			sum.Add("persisted", 1)
		case active != nil && r < 60:
			c, err := active.out.CloseForCommit(ctx)
			require.NoError(t, err, "%s: %s: CloseForCommit", what, step)
			tok := rwToken{inc: active.id, data: bytes.Clone(active.data), commit: c.Recoverable()}
			commits = append(commits, tok)
			active = nil
			if rng.IntN(3) > 0 {
				commit(step+": Commit", tok, func() error { return c.Commit(ctx) })
				if rng.IntN(3) == 0 {
					commit(step+": Commit again", tok, func() error { return c.Commit(ctx) })
				}
			}
		case active != nil && r < 65:
			active = nil // the process dies: the stream is dropped, not closed
			sum.Add("crashes", 1)
		case r < 75 && len(commits) > 0:
			tok := commits[rng.IntN(len(commits))]
			commit(step+": CommitAfterRecovery", tok, func() error {
				c, err := w.RecoverForCommit(ctx, tok.commit)
				if err != nil {
					return err
				}
				return c.CommitAfterRecovery(ctx)
			})
		case r < 85 && len(resumes) > 0:
			tok := resumes[rng.IntN(len(resumes))]
			out, err := w.Recover(ctx, tok.resume)
			if err != nil {
				sum.Add("recover-refused", 1)
				break
			}
			require.Equal(t, int64(len(tok.data)), out.Pos(), "%s: %s: Pos after Recover", what, step)
			if active != nil {
				require.NoError(t, active.out.Close(), "%s: %s: Close", what, step)
			}
			incs++
			active = &rwIncarnation{id: incs, out: out, data: bytes.Clone(tok.data)}
			sum.Add("recovered", 1)
		case r < 88 && store.osRoot != "" && active == nil:
			// A child process writes a stream and is killed with SIGKILL at
			// a random point: persisting, closing for commit, committing.
			res := killedWriter(t, target, rng)
			sum.Add("sigkills", 1)
			incs++
			for _, n := range res.resumes {
				resumes = append(resumes, rwToken{inc: incs, data: res.data[:n.n], resume: n.tok})
			}
			if res.commit == nil {
				check(step + ": writer killed before it closed for commit")
				break
			}
			tok := rwToken{inc: incs, data: res.data, commit: res.commit}
			commits = append(commits, tok)
			if res.committed {
				cur, exists = tok.data, true
				committed[tok.inc] = true
				check(step + ": writer killed after its commit")
			}
			// Killed around its commit: the commit happened or not, and
			// CommitAfterRecovery makes it happen once.
			commit(step+": CommitAfterRecovery of the killed writer's commit", tok, func() error {
				c, err := w.RecoverForCommit(ctx, tok.commit)
				if err != nil {
					return err
				}
				return c.CommitAfterRecovery(ctx)
			})
			if !committed[tok.inc] {
				sum.Add("violations", 1)
				require.Failf(t, "invariant violated", "%s: %s: CommitAfterRecovery of a killed writer's commit token, the target untouched since, did not commit", what, step)
			}
		case r < 93:
			foreign++
			data := fmt.Appendf(nil, "foreign write %d", foreign)
			require.NoError(t, vfs.WriteFile(ctx, store.fs, target, data, vfs.Overwrite), "%s: %s: foreign write", what, step)
			cur, exists = data, true
			sum.Add("foreign-writes", 1)
		default:
			require.NoError(t, store.fs.Delete(ctx, target, false), "%s: %s: foreign delete", what, step)
			cur, exists = nil, false
			sum.Add("foreign-deletes", 1)
		}
		check(step)
	}
	if active != nil {
		require.NoError(t, active.out.Close(), "%s: Close", what)
	}
	for _, tok := range resumes {
		require.NoError(t, w.CleanupRecoverableState(ctx, tok.resume), "%s: CleanupRecoverableState", what)
	}
	check("cleanup")
	sum.Add("cycles", 1)
}
