package blobfs_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/vfs"
)

// pagedLister lists fixed pages of one directory from memory, so that
// BenchmarkList times blobfs's own work per listed key and nothing else.
type pagedLister struct{ pages [][]blob.ListObject }

func (pagedLister) CheckKey(string, bool) error { return nil }

func (l pagedLister) ListPage(_ context.Context, _, _ string, token []byte, _ int) ([]*blob.ListObject, []byte, error) {
	i := 0
	if token != nil {
		fmt.Sscan(string(token), &i)
	}
	page := make([]*blob.ListObject, len(l.pages[i]))
	for j := range page {
		page[j] = &l.pages[i][j]
	}
	var next []byte
	if i+1 < len(l.pages) {
		next = []byte(fmt.Sprint(i + 1))
	}
	return page, next, nil
}

// BenchmarkList lists a directory of 10,000 keys in pages of 1,000 from a
// store that answers from memory: blobfs's cost per key (ns/op ÷ 10,000).
func BenchmarkList(b *testing.B) {
	var l pagedLister
	now := time.Now()
	for p := range 10 {
		page := make([]blob.ListObject, 1000)
		for i := range page {
			page[i] = blob.ListObject{Key: fmt.Sprintf("many/key-%05d", p*1000+i), Size: 9, ModTime: now}
		}
		l.pages = append(l.pages, page)
	}
	fsys, err := blobfs.New(memblob.OpenBucket(nil), blobfs.Options{Scheme: "mem", Authority: "bench", Store: l})
	if err != nil {
		b.Fatal(err)
	}
	defer fsys.Close()
	b.ReportAllocs()
	for b.Loop() {
		st, err := fsys.List(context.Background(), vfs.MustPath("/many"))
		if err != nil || len(st) != 10000 {
			b.Fatalf("listed %d entries, %v", len(st), err)
		}
	}
}
