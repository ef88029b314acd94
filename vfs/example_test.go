package vfs_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"

	_ "github.com/vfskit/vfskit/backends/local" // file:// and plain paths
	_ "github.com/vfskit/vfskit/backends/memfs" // memory://
	_ "github.com/vfskit/vfskit/backends/s3"    // s3://, s3a://, s3p://
	"github.com/vfskit/vfskit/vfs"
)

// run is the README's "library at a glance" (TestREADMESnippets in
// internal/readme checks that the README shows this code).
func run(ctx context.Context) error {
	p := vfs.MustPath("memory://demo/reports/today.txt") // or file:///tmp/..., s3://bucket/...
	fsys, err := p.FileSystem(ctx)                       // one cached instance per scheme+authority
	if err != nil {
		return err
	}
	if err := vfs.WriteFile(ctx, fsys, p, []byte("hello"), vfs.Overwrite); err != nil {
		return err // with vfs.NoOverwrite: errors.Is(err, fs.ErrExist) if it is already there
	}
	data, err := vfs.ReadFile(ctx, fsys, p)
	if err != nil {
		return err
	}
	entries, err := fsys.List(ctx, p.Parent()) // sorted by name
	if err != nil {
		return err
	}
	fmt.Printf("%s: %q; %d entry in %s\n", p, data, len(entries), p.Parent())
	return nil
}

// Example writes, reads and lists a file through the URI alone: the scheme
// picks the backend.
func Example() {
	if err := run(context.Background()); err != nil {
		fmt.Println(err)
	}
	// Output: memory://demo/reports/today.txt: "hello"; 1 entry in memory://demo/reports
}

// NewPath parses with Flink's rules; Join appends names exactly as given.
func ExampleNewPath() {
	p, err := vfs.NewPath(`s3://bucket//logs\2026/./a/../day.txt/`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p)
	fmt.Println(p.Scheme(), p.Authority(), p.Path(), p.Name(), p.Depth())
	fmt.Println(p.Parent().Join("what?#%.txt"))
	_, err = vfs.NewPath("")
	fmt.Println(errors.Is(err, fs.ErrInvalid))
	// Output:
	// s3://bucket/logs/2026/day.txt
	// s3 bucket /logs/2026/day.txt day.txt 3
	// s3://bucket/logs/2026/what?#%.txt
	// true
}

// A file written with NoOverwrite appears only when Close returns nil; an
// existing target is fs.ErrExist. Discard (Abort) publishes nothing.
func ExampleFileSystem_Create() {
	ctx := context.Background()
	p := vfs.MustPath("memory://example-create/out.txt")
	fsys, err := p.FileSystem(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = fsys.Delete(ctx, p, false) // a previous run (go test -count=2)
	out, err := fsys.Create(ctx, p, vfs.NoOverwrite)
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := io.WriteString(out, "half a result"); err != nil {
		vfs.Discard(out, nil)
		fmt.Println(err)
		return
	}
	vfs.Discard(out, nil) // changed our mind: abort, nothing is published
	ok, err := vfs.Exists(ctx, fsys, p)
	fmt.Println(ok, err)

	if err := vfs.WriteFile(ctx, fsys, p, []byte("v1"), vfs.NoOverwrite); err != nil {
		fmt.Println(err)
		return
	}
	err = vfs.WriteFile(ctx, fsys, p, []byte("v2"), vfs.NoOverwrite)
	fmt.Println(errors.Is(err, fs.ErrExist))
	data, _ := vfs.ReadFile(ctx, fsys, p)
	fmt.Println(string(data))
	// Output:
	// false <nil>
	// true
	// v1
}

// Walk visits a tree in lexical order, directories before what they hold.
func ExampleWalk() {
	ctx := context.Background()
	root := vfs.MustPath("memory://example-walk/tree")
	fsys, err := root.FileSystem(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range []string{"b/2.txt", "a.txt", "b/1.txt"} {
		if err := vfs.WriteFile(ctx, fsys, vfs.MustPath(root.String()+"/"+name), []byte(name), vfs.Overwrite); err != nil {
			fmt.Println(err)
			return
		}
	}
	err = vfs.Walk(ctx, fsys, root, func(st vfs.FileStatus, err error) error {
		if err != nil {
			return err
		}
		fmt.Println(st.Path.Path(), st.IsDir)
		return nil
	})
	fmt.Println(err)
	// Output:
	// /tree true
	// /tree/a.txt false
	// /tree/b true
	// /tree/b/1.txt false
	// /tree/b/2.txt false
	// <nil>
}

// A Registry of your own dispatches only the schemes registered on it; its
// error for another scheme says what to do.
func ExampleNewRegistry() {
	ctx := context.Background()
	r := vfs.NewRegistry()
	err := r.Register("mine", func(ctx context.Context, u *url.URL) (vfs.FileSystem, error) {
		return vfs.Get(ctx, "memory://mine-"+u.Host+"/") // any vfs.FileSystem
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fsys, err := r.Get(ctx, "mine://a/x/y")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(fsys.URI())
	_, err = r.Get(ctx, "memory://b/")
	fmt.Println(errors.Is(err, vfs.ErrUnsupportedScheme))
	fmt.Println(err)
	// Output:
	// memory://mine-a/
	// true
	// vfs: unsupported file system scheme 'memory' in 'memory://b/' (registered schemes: mine; this registry is not vfs.DefaultRegistry(), where the imported backend registered 'memory': register the scheme on this registry (Register) or use vfs.DefaultRegistry())
}

// ExampleNewRecoverableWriter writes a file exactly once across a crash (see
// docs/exactly-once.md): persist at a checkpoint, continue from the token in
// the next process, commit, and commit again safely after a crash around the
// commit.
func ExampleNewRecoverableWriter() {
	ctx := context.Background()
	p := vfs.MustPath("memory://example-rw/out/part-0-0") // or file:///..., s3://bucket/...
	data, err := exactlyOnce(ctx, p)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s", data)
	// Output: first half, second half
}

func exactlyOnce(ctx context.Context, p vfs.Path) ([]byte, error) {
	fsys, err := p.FileSystem(ctx)
	if err != nil {
		return nil, err
	}
	w, err := vfs.NewRecoverableWriter(fsys) // errors.ErrUnsupported where there is none
	if err != nil {
		return nil, err
	}
	out, err := w.Open(ctx, p)
	if err != nil {
		return nil, err
	}
	if _, err := out.Write([]byte("first half, ")); err != nil {
		return nil, err
	}
	resume, err := out.Persist(ctx) // keep the token in the checkpoint
	if err != nil {
		return nil, err
	}
	if _, err := out.Write([]byte("not persisted: gone after the crash")); err != nil {
		return nil, err
	}
	// The process dies here; the next one continues from the token.
	out, err = w.Recover(ctx, resume)
	if err != nil {
		return nil, err
	}
	if _, err := out.Write([]byte("second half\n")); err != nil {
		return nil, err
	}
	c, err := out.CloseForCommit(ctx)
	if err != nil {
		return nil, err
	}
	commit := c.Recoverable() // keep it in the next checkpoint, commit when that completes
	if err := c.Commit(ctx); err != nil {
		return nil, err
	}
	// After a crash around the commit, the restored job commits again: once.
	again, err := w.RecoverForCommit(ctx, commit)
	if err != nil {
		return nil, err
	}
	if err := again.CommitAfterRecovery(ctx); err != nil {
		return nil, err
	}
	return vfs.ReadFile(ctx, fsys, p)
}

// CopyTree copies a directory tree between two file systems; MoveTree moves
// one, deleting at the source only what it copied and is unchanged.
func ExampleMoveTree() {
	ctx := context.Background()
	src, _ := vfs.Get(ctx, "memory://example-move-src/")
	dst, _ := vfs.Get(ctx, "memory://example-move-dst/")
	_ = vfs.WriteFile(ctx, src, vfs.MustPath("/in/a.txt"), []byte("alpha"), vfs.NoOverwrite)
	_ = vfs.WriteFile(ctx, src, vfs.MustPath("/in/sub/b.txt"), []byte("beta"), vfs.NoOverwrite)

	res, err := vfs.MoveTree(ctx, dst, vfs.MustPath("/out"), src, vfs.MustPath("/in"), vfs.CopyOptions{})
	if err != nil {
		fmt.Println(err) // a *vfs.LeftError names what stayed at the source
		return
	}
	fmt.Println(len(res.Files), "files,", res.Bytes, "bytes moved")
	data, _ := vfs.ReadFile(ctx, dst, vfs.MustPath("/out/sub/b.txt"))
	fmt.Println(string(data))
	gone, _ := vfs.Exists(ctx, src, vfs.MustPath("/in"))
	fmt.Println("source exists:", gone)
	// Output:
	// 2 files, 9 bytes moved
	// beta
	// source exists: false
}
