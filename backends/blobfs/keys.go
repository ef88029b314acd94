package blobfs

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"gocloud.dev/blob"

	"github.com/vfskit/vfskit/vfs"
)

// Exact keys on S3
//
// gocloud's s3blob driver rewrites some keys on their way to S3 (control
// characters, "../", and text that looks like its own "__0x41__" escapes) and
// undoes the rewrite on keys it lists. That is a faithful round trip for keys
// the driver wrote, but not for keys any other client wrote: a key "a__0x41__b"
// written with the AWS SDK lists as "aAb", which then names nothing. So on an
// S3 bucket whose name is known (Options.BucketName) blobfs sends every key as
// is: listings report the keys S3 returned (through the driver's As escape
// hatch), and every request carries the key of the path exactly, set through
// the driver's Before* hooks, or sent with the S3 client itself where the
// driver has no hook (HEAD, DELETE). A name that a listing shows then always
// reaches the same object, whoever wrote it. On other buckets keys go through
// the driver.

// keyOf returns the object key for a qualified path: exactly the path without its
// leading "/" ("" for the root).
func keyOf(p vfs.Path) string { return strings.TrimPrefix(p.Path(), "/") }

// dirPrefix returns the listing prefix of the directory with key k: "k/", or ""
// for the root.
func dirPrefix(k string) string {
	if k == "" {
		return ""
	}
	return k + "/"
}

// qualifiedKey is vfs.Qualify followed by checkKey: the path of p on f, for op,
// and its object key.
func (f *FileSystem) qualifiedKey(op string, p vfs.Path) (vfs.Path, string, error) {
	return f.qualified(op, p, f.checkKey)
}

// qualifiedNewKey is qualifiedKey with checkNewKey, for a key to be written.
func (f *FileSystem) qualifiedNewKey(op string, p vfs.Path) (vfs.Path, string, error) {
	return f.qualified(op, p, f.checkNewKey)
}

func (f *FileSystem) qualified(op string, p vfs.Path, check func(string, vfs.Path) (string, error)) (vfs.Path, string, error) {
	q, err := vfs.Qualify(op, f, p)
	if err != nil {
		return vfs.Path{}, "", err
	}
	k, err := check(op, q)
	if err != nil {
		return vfs.Path{}, "", err
	}
	return q, k, nil
}

// checkKey validates the key of p for the bucket: valid UTF-8 and, when the store
// has a limit, not longer than Options.MaxKeyLength bytes. That is the length
// of the key sent: on S3 keys are sent exactly, and through s3blob's own
// escaping (an S3 bucket without Options.BucketName) a key the driver would
// rewrite is refused.
func (f *FileSystem) checkKey(op string, p vfs.Path) (string, error) {
	k := keyOf(p)
	if !utf8.ValidString(k) {
		return "", invalid(op, p, "object key %q is not valid UTF-8, which object stores require of every key", k)
	}
	if f.opts.RefuseBackslash && strings.Contains(k, `\`) {
		return "", invalid(op, p, "object key %q holds '\\', which this store turns into '/', so it would name another object (on a store that keeps '\\', such as AWS S3, set s3.Options.AllowBackslash)", k)
	}
	if f.driverEscapes && needsDriverEscaping(k) {
		return "", invalid(op, p, "object key %q would be rewritten by the S3 driver (set Options.BucketName to send keys exactly)", k)
	}
	if max := f.opts.MaxKeyLength; max > 0 && len(k) > max {
		return "", invalid(op, p, "object key is %d bytes long; the store allows at most %d", len(k), max)
	}
	return k, nil
}

// checkNewKey is checkKey for a key about to be written: on S3 it also refuses
// control characters, which S3 stores but cannot return in a listing (XML).
func (f *FileSystem) checkNewKey(op string, p vfs.Path) (string, error) {
	k, err := f.checkKey(op, p)
	if err != nil || f.s3 == nil {
		return k, err
	}
	if i := strings.IndexFunc(k, func(r rune) bool { return r < 32 || r == 0x7f }); i >= 0 {
		return "", invalid(op, p, "object key %q holds the control character %U, which S3 can store but not list (its listings are XML); choose another name", k, k[i])
	}
	return k, nil
}

// needsDriverEscaping reports whether s3blob would (or might) rewrite key k
// before sending it: control characters, "../", text that looks like its hex
// escapes.
func needsDriverEscaping(k string) bool {
	for _, r := range k {
		if r < 32 {
			return true
		}
	}
	return strings.Contains(k, "../") || strings.Contains(k, "__0x")
}

// childName returns the entry name of a listed key under prefix and whether it
// is a directory, and whether that name is a single path segment that a
// vfs.Path can represent (a directory marker "dir/", empty segments, "." and
// "..", and names that Path would not keep as they are, are not).
//
// A listed object whose name still holds a '/' can only come from a driver that
// stores some keys escaped (s3blob stores "a../b" as "a..__0x2f__b", which a
// delimiter listing cannot split): its first segment is reported as a
// directory, so List agrees with Stat.
func childName(parent vfs.Path, prefix, key string, isDir bool) (string, bool, bool) {
	name := strings.TrimPrefix(key, prefix)
	if isDir {
		name = strings.TrimSuffix(name, "/")
	}
	if first, _, found := strings.Cut(name, "/"); found && !isDir {
		name, isDir = first, true
	}
	if name == "" || name == "." || name == ".." || strings.Contains(name, "/") {
		return "", false, false
	}
	if parent.Join(name).Name() != name {
		return "", false, false
	}
	return name, isDir, true
}

// listPage lists one page of keys under prefix (with delimiter, if any). On S3
// with exact keys the prefix is sent as is and every object's Key is the key S3
// returned.
func (f *FileSystem) listPage(ctx context.Context, token []byte, n int, prefix, delimiter string) ([]*blob.ListObject, []byte, error) {
	opts := &blob.ListOptions{Prefix: prefix, Delimiter: delimiter}
	if f.s3 != nil && prefix != "" {
		opts.BeforeList = func(as func(any) bool) error {
			var in *s3.ListObjectsV2Input
			var legacy *s3.ListObjectsInput
			switch {
			case as(&in):
				in.Prefix = aws.String(prefix)
			case as(&legacy):
				legacy.Prefix = aws.String(prefix)
			default:
				return errors.New("blobfs: the S3 driver did not expose its listing request, so the prefix cannot be sent exactly")
			}
			return nil
		}
	}
	objs, next, err := f.b.ListPage(ctx, token, n, opts)
	if err != nil || f.s3 == nil {
		return objs, next, err
	}
	for _, o := range objs {
		var obj s3types.Object
		var dir s3types.CommonPrefix
		switch {
		case o.As(&obj):
			o.Key = aws.ToString(obj.Key)
		case o.As(&dir):
			o.Key = aws.ToString(dir.Prefix)
		default:
			return nil, nil, errors.New("blobfs: the S3 driver did not expose a listed key, so it cannot be named exactly")
		}
	}
	return objs, next, nil
}

// attributes HEADs the object k: its size and modification time.
func (f *FileSystem) attributes(ctx context.Context, k string) (*blob.Attributes, error) {
	if f.s3 == nil {
		return f.b.Attributes(ctx, k)
	}
	out, err := f.s3.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(f.opts.BucketName), Key: aws.String(k)})
	if err != nil {
		return nil, err
	}
	return &blob.Attributes{Size: aws.ToInt64(out.ContentLength), ModTime: aws.ToTime(out.LastModified), ETag: aws.ToString(out.ETag)}, nil
}

// rangeReader GETs length bytes (-1: to the end) of the object k from offset.
func (f *FileSystem) rangeReader(ctx context.Context, k string, offset, length int64) (*blob.Reader, error) {
	var opts *blob.ReaderOptions
	if f.s3 != nil {
		opts = &blob.ReaderOptions{BeforeRead: func(as func(any) bool) error {
			var in *s3.GetObjectInput
			if !as(&in) {
				return errors.New("blobfs: the S3 driver did not expose its GET request, so the key cannot be sent exactly")
			}
			in.Key = aws.String(k)
			return nil
		}}
	}
	return f.b.NewRangeReader(ctx, k, offset, length, opts)
}

// beforeWrite returns the writer hook for the object k: the exact key on S3,
// then Options.BeforeWrite.
func (f *FileSystem) beforeWrite(k string) func(func(any) bool) error {
	if f.s3 == nil {
		return f.opts.BeforeWrite
	}
	return func(as func(any) bool) error {
		var in *transfermanager.UploadObjectInput
		if !as(&in) {
			return errors.New("blobfs: the S3 driver did not expose its upload request, so the key cannot be sent exactly")
		}
		in.Key = aws.String(k)
		if f.opts.BeforeWrite != nil {
			return f.opts.BeforeWrite(as)
		}
		return nil
	}
}

// copy copies the object src to dst server-side.
func (f *FileSystem) copy(ctx context.Context, dst, src string) error {
	opts := &blob.CopyOptions{BeforeCopy: f.opts.BeforeCopy}
	if f.s3 != nil {
		opts.BeforeCopy = func(as func(any) bool) error {
			var in *s3.CopyObjectInput
			if !as(&in) {
				return errors.New("blobfs: the S3 driver did not expose its copy request, so the keys cannot be sent exactly")
			}
			in.Key = aws.String(dst)
			// The driver's encoding of the source (Options.BeforeCopy may re-encode it).
			in.CopySource = aws.String(url.QueryEscape(f.opts.BucketName + "/" + src))
			if f.opts.BeforeCopy != nil {
				return f.opts.BeforeCopy(as)
			}
			return nil
		}
	}
	return f.b.Copy(ctx, dst, src, opts)
}
