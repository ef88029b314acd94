package azblob

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	azblobblob "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/backends/internal/plainkey"
)

// defaultBlockSize is the size of a recoverable stream's blocks when
// Options.PartSize is zero.
const defaultBlockSize = 8 << 20

// maxBlocks is the most blocks one blob may have (Azure's limit).
const maxBlocks = 50000

// writeIDKey is blobfs.WriteIDMetadata, a C# identifier as Azure's metadata
// keys must be: the committed blob carries it for blobfs to recognise a
// commit already made.
const writeIDKey = blobfs.WriteIDMetadata

var _ blobfs.RecoverableStore = store{}

// blocksState is the state of a recoverable stream on Azure: the ids of the
// blocks staged on the target blob, in order.
type blocksState struct {
	Blocks []string `json:"b,omitempty"`
}

// RecoverableKind is the format of the state: staged block ids.
func (store) RecoverableKind() string { return "azblob-blocks/1" }

// OpenRecoverable starts a recoverable stream of key as blocks staged on the
// target blob (Put Block), each Options.PartSize bytes (8 MiB by default),
// staged as it fills; Persist stages what is buffered as a smaller block.
// Staged blocks are invisible until Commit puts the block list. Azure
// discards a blob's uncommitted blocks after seven days, or when anyone
// commits the blob: the recovery window is at most seven days, and a stream
// whose target is written meanwhile can no longer be recovered or
// committed.
func (s store) OpenRecoverable(ctx context.Context, key string, o blobfs.RecoverableOptions) (blobfs.RecoverableUpload, error) {
	bc, err := s.blockClient(key)
	if err != nil {
		return nil, err
	}
	return &blockUpload{bc: bc, ctx: ctx, o: o, size: cmp.Or(o.PartSize, defaultBlockSize)}, nil
}

// blockClient returns the block blob client of key. Without a client that
// sends exact names it refuses keys gocloud's driver would store escaped
// (the stream could not name the blob the driver names).
func (s store) blockClient(key string) (*blockblob.Client, error) {
	if s.client == nil {
		return nil, errors.New("azblob: the bucket is not an Azure container of gocloud's azureblob driver, so it has no staged blocks")
	}
	if s.exact {
		return s.client.NewBlockBlobClient(sdkName(key)), nil
	}
	if !plainkey.Plain(key) {
		return nil, fmt.Errorf("%w: the recoverable writer on Azure cannot name the blob %q exactly through a container client vfskit did not make; choose another name", fs.ErrInvalid, key)
	}
	return s.client.NewBlockBlobClient(key), nil
}

// ResumeRecoverable continues the stream of state after checking (one Get
// Block List) that its blocks are still staged.
func (s store) ResumeRecoverable(ctx context.Context, key string, state []byte, o blobfs.RecoverableOptions) (blobfs.RecoverableUpload, error) {
	st, err := decodeBlocks(key, state)
	if err != nil {
		return nil, err
	}
	bc, err := s.blockClient(key)
	if err != nil {
		return nil, err
	}
	if len(st.Blocks) > 0 {
		list, err := bc.GetBlockList(ctx, blockblob.BlockListTypeUncommitted, nil)
		if err != nil {
			return nil, err
		}
		staged := map[string]bool{}
		for _, b := range list.UncommittedBlocks {
			if b != nil && b.Name != nil {
				staged[*b.Name] = true
			}
		}
		for _, id := range st.Blocks {
			if !staged[id] {
				return nil, fmt.Errorf("%w: block %s of %q is no longer staged (the blob was committed meanwhile, or its uncommitted blocks expired after seven days)", fs.ErrNotExist, id, key)
			}
		}
	}
	return &blockUpload{bc: bc, ctx: ctx, o: o, size: cmp.Or(o.PartSize, defaultBlockSize), blocks: st.Blocks}, nil
}

// CommitRecoverable puts the block list: the blob appears whole, replacing
// an existing one, with the commit id in its metadata, and Azure drops the
// blob's uncommitted blocks. Blocks no longer staged (the blob was committed
// since, by this stream or anyone) fail with fs.ErrNotExist, writing
// nothing. Every stream closed for commit has a block, an empty one a block
// of no bytes.
func (s store) CommitRecoverable(ctx context.Context, key, id string, state []byte) error {
	st, err := decodeBlocks(key, state)
	if err != nil {
		return err
	}
	bc, err := s.blockClient(key)
	if err != nil {
		return err
	}
	if len(st.Blocks) == 0 {
		return fmt.Errorf("%w: the commit state of %q names no block (every stream closed for commit has one, an empty one too)", fs.ErrNotExist, key)
	}
	ct := "application/octet-stream"
	_, err = bc.CommitBlockList(ctx, st.Blocks, &blockblob.CommitBlockListOptions{
		Metadata:    map[string]*string{writeIDKey: &id},
		HTTPHeaders: &azblobblob.HTTPHeaders{BlobContentType: &ct},
	})
	if bloberror.HasCode(err, bloberror.InvalidBlockList) {
		return fmt.Errorf("%w: the blocks of %q are no longer staged (the blob was committed since, or they expired): %v", fs.ErrNotExist, key, err)
	}
	return err
}

// CleanupRecoverable keeps everything: every block of a state is a block of
// the stream's later states too, and Azure drops uncommitted blocks at
// commit.
func (store) CleanupRecoverable(context.Context, string, []byte) error { return nil }

// decodeBlocks decodes and checks a state of key.
func decodeBlocks(key string, state []byte) (blocksState, error) {
	var st blocksState
	if err := json.Unmarshal(state, &st); err != nil {
		return st, fmt.Errorf("%w: block state of %q: %v", fs.ErrInvalid, key, err)
	}
	if len(st.Blocks) > maxBlocks {
		return st, fmt.Errorf("%w: block state of %q lists %d blocks; Azure allows %d", fs.ErrInvalid, key, len(st.Blocks), maxBlocks)
	}
	for _, id := range st.Blocks {
		if raw, err := base64.StdEncoding.DecodeString(id); err != nil || len(raw) != blockIDLen {
			return st, fmt.Errorf("%w: block state of %q holds the block id %q", fs.ErrInvalid, key, id)
		}
	}
	return st, nil
}

// blockIDLen is the length of every block id before base64 (Azure wants one
// length for all the blocks of a blob): write id, epoch, number.
const blockIDLen = 32 + 1 + 8 + 1 + 8

// blockID is the id of block n of the incarnation o.Epoch of the stream
// o.WriteID.
func blockID(o blobfs.RecoverableOptions, n int) string {
	return base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "%32s-%8s-%08d", o.WriteID, o.Epoch, n))
}

// blockUpload stages a stream's blocks, one at a time from one buffer.
type blockUpload struct {
	bc     *blockblob.Client
	ctx    context.Context
	o      blobfs.RecoverableOptions
	size   int
	buf    []byte
	blocks []string // staged so far (of earlier incarnations too)
	n      int      // blocks staged by this incarnation
}

func (u *blockUpload) Write(p []byte) (int, error) {
	written := 0
	for len(p) > 0 {
		if len(u.buf) == u.size {
			if err := u.stage(u.ctx); err != nil {
				return written, err
			}
		}
		if u.buf == nil {
			u.buf = make([]byte, 0, u.size)
		}
		k := copy(u.buf[len(u.buf):cap(u.buf)], p)
		u.buf = u.buf[:len(u.buf)+k]
		p, written = p[k:], written+k
	}
	return written, nil
}

// stage puts the buffer as the next block.
func (u *blockUpload) stage(ctx context.Context) error {
	if len(u.blocks) == maxBlocks {
		return fmt.Errorf("azblob: a blob holds at most %d blocks; raise Options.PartSize", maxBlocks)
	}
	id := blockID(u.o, u.n)
	if _, err := u.bc.StageBlock(ctx, id, streaming.NopCloser(bytes.NewReader(u.buf)), nil); err != nil {
		return err
	}
	u.n++
	u.blocks = append(u.blocks, id)
	u.buf = u.buf[:0]
	return nil
}

// Persist stages what is buffered and returns the block list.
func (u *blockUpload) Persist(ctx context.Context) ([]byte, error) {
	if len(u.buf) > 0 {
		if err := u.stage(ctx); err != nil {
			return nil, err
		}
	}
	return json.Marshal(blocksState{Blocks: u.blocks})
}

// CloseForCommit stages what is buffered. An empty stream stages one block
// of no bytes: committing consumes the staged blocks, so that a stream whose
// blocks are gone is known to be committed, an empty one too.
func (u *blockUpload) CloseForCommit(ctx context.Context) ([]byte, error) {
	if len(u.blocks) == 0 && len(u.buf) == 0 {
		if err := u.stage(ctx); err != nil {
			return nil, err
		}
	}
	st, err := u.Persist(ctx)
	u.buf = nil
	return st, err
}

// Close drops the buffer; the staged blocks stay for Recover.
func (u *blockUpload) Close() error {
	u.buf = nil
	return nil
}
