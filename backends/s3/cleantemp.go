package s3

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/vfs"
)

// UploadMarkerPrefix starts the name of the marker object that every
// multipart upload of a vfskit writer (a file larger than a part) keeps next
// to its target while it runs: dir/.vfskit-upload-<write id><check>, an empty
// object whose metadata holds the write id (blobfs.WriteIDMetadata) and the
// upload's id (UploadIDMetadata). The check is 8 hex digits of a hash of the
// write id, so that no user's file is taken for a marker by accident: only
// names of exactly that form (IsUploadMarker) are markers, which listings
// leave out (a cp -r or mv running beside the upload never copies one); any
// other name, ".vfskit-upload-notes.txt" included, is a user's file like any
// other. ListMultipartUploads shows no metadata, so the marker
// is how an incomplete upload is told to be vfskit's: the writer deletes it
// once the upload is completed or aborted (a DELETE that keeps failing leaves
// it, see MarkerLeftMessage), and a writer killed mid-upload
// leaves both, which vfs.CleanTemp (the CLI's clean-temp) removes once older
// than its age. A recoverable stream's upload (vfs.RecoverableWriter) has no
// marker: clean-temp never removes it, since a token may still resume it.
const UploadMarkerPrefix = ".vfskit-upload-"

// markerKey returns the key of the marker of the upload of key by the writer
// id.
func markerKey(key, id string) string {
	dir := key[:strings.LastIndexByte(key, '/')+1]
	return dir + markerName(id)
}

// markerName is the name of the marker of the writer id: the prefix, the id
// and its check.
func markerName(id string) string {
	sum := sha256.Sum256([]byte("vfskit upload marker " + id))
	return UploadMarkerPrefix + id + hex.EncodeToString(sum[:markerCheckLen/2])
}

// markerCheckLen is the length, in hex digits, of a marker name's check.
const markerCheckLen = 8

// IsUploadMarker reports whether name (a key's last segment) is the name of
// an upload's marker: UploadMarkerPrefix, a write id in lowercase hex and
// that id's check. Listings leave such names out.
func IsUploadMarker(name string) bool {
	rest, ok := strings.CutPrefix(name, UploadMarkerPrefix)
	if !ok || len(rest) <= markerCheckLen {
		return false
	}
	for _, c := range []byte(rest) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return name == markerName(rest[:len(rest)-markerCheckLen])
}

// mark sends the marker of the multipart upload just started. The PUT runs
// on a context of its own (bounded by failTimeout), not cancelled with the
// upload's: a PUT given up half-way could still reach the server after the
// DELETE that follows the upload's end, and leave the marker. Its outcome is
// known (sent, or refused) before the upload goes on, except when the server
// holds it past the bound; unmark deletes the marker whatever the outcome.
func (u *upload) mark() error {
	id := u.opts.Metadata[blobfs.WriteIDMetadata]
	if id == "" {
		return errors.New("s3: a multipart upload without a write id cannot be marked")
	}
	if err := u.ctx.Err(); err != nil {
		return err
	}
	u.marker = markerKey(u.key, id)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(u.ctx), failTimeout)
	defer cancel()
	// With the upload's encryption: a bucket policy may refuse a PUT
	// without it.
	sse, kms := u.s.encryption()
	_, err := u.s.client.PutObject(ctx, &awss3.PutObjectInput{
		Bucket: aws.String(u.s.bucket), Key: aws.String(u.marker), Body: strings.NewReader(""), ContentLength: aws.Int64(0),
		Metadata:             map[string]string{blobfs.WriteIDMetadata: id, UploadIDMetadata: aws.ToString(u.id)},
		ServerSideEncryption: sse, SSEKMSKeyId: kms,
	})
	return err
}

// unmark deletes the marker of an upload completed or gone (aborted, or
// unknown to the server), on a context of its own bounded by failTimeout:
// the upload's may have ended meanwhile. The client retries it (a DELETE
// whose answer was lost is sent again; S3 answers a DELETE of a missing key
// with success). When it still fails (the server unreachable for longer),
// the marker stays, the store's logger is told at Warn level, and
// vfs.CleanTemp removes it (its upload is gone); the write's result does not
// change.
func (u *upload) unmark() {
	if u.marker == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(u.ctx), failTimeout)
	defer cancel()
	_, err := u.s.client.DeleteObject(ctx, &awss3.DeleteObjectInput{Bucket: aws.String(u.s.bucket), Key: aws.String(u.marker)})
	if err == nil {
		return
	}
	log := u.s.log
	if log == nil {
		log = slog.Default()
	}
	log.LogAttrs(ctx, slog.LevelWarn, MarkerLeftMessage, slog.String("bucket", u.s.bucket), slog.String("key", u.marker),
		slog.String("error", vfs.Redact(err.Error())), slog.String("component", "s3"))
}

// MarkerLeftMessage is the message of the Warn record Options.Logger gets
// when the marker of an upload that completed or was aborted could not be
// deleted; its attributes "bucket" and "key" name the marker, "error" says
// why. vfs.CleanTemp (the CLI's clean-temp) removes such a marker.
const MarkerLeftMessage = "s3: an upload's marker object was left behind (clean-temp removes it)"

var (
	_ blobfs.TempStore = (*clientStore)(nil)
	_ blobfs.TempNamer = (*clientStore)(nil)
)

// IsTempName is IsUploadMarker: blobfs's listings leave markers out.
func (*clientStore) IsTempName(name string) bool { return IsUploadMarker(name) }

// CleanTemp finds the markers under prefix (UploadMarkerPrefix), and for each
// whose upload's last activity (the marker's and the upload's creation, its
// newest part) is before cutoff aborts the upload and deletes the marker. It
// returns the markers' keys. A multipart upload without a marker (another
// tool's, or a recoverable stream's) is never touched.
func (s *clientStore) CleanTemp(ctx context.Context, prefix string, cutoff time.Time, dryRun bool) ([]string, error) {
	var found []string
	p := awss3.NewListObjectsV2Paginator(s.client, &awss3.ListObjectsV2Input{Bucket: aws.String(s.bucket), Prefix: aws.String(prefix)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return found, err
		}
		for _, obj := range page.Contents {
			key := aws.ToString(obj.Key)
			name := key[strings.LastIndexByte(key, '/')+1:]
			if !strings.HasPrefix(name, UploadMarkerPrefix) || !aws.ToTime(obj.LastModified).Before(cutoff) {
				continue
			}
			stale, err := s.staleMarker(ctx, key, cutoff, dryRun)
			if err != nil {
				return found, fmt.Errorf("marker %q: %w", key, err)
			}
			if stale {
				found = append(found, key)
			}
		}
	}
	return found, nil
}

// staleMarker checks the marker key: when it is vfskit's (its metadata names
// its write id, as its name does) and its upload is idle since before
// cutoff, it aborts the upload and deletes the marker (unless dryRun) and
// returns true.
func (s *clientStore) staleMarker(ctx context.Context, key string, cutoff time.Time, dryRun bool) (bool, error) {
	head, err := s.client.HeadObject(ctx, &awss3.HeadObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err != nil {
		var nf *s3types.NotFound
		if errors.As(err, &nf) {
			return false, nil // removed meanwhile
		}
		return false, err
	}
	id, uploadID := blobfs.WriteID(head.Metadata), head.Metadata[UploadIDMetadata]
	if id == "" || uploadID == "" || !isMarkerOf(key, id) {
		return false, nil // not a marker vfskit wrote
	}
	up, err := s.findUpload(ctx, key[:strings.LastIndexByte(key, '/')+1], uploadID)
	if err != nil {
		return false, err
	}
	if up != nil {
		last, err := s.lastActivity(ctx, up)
		if err != nil {
			return false, err
		}
		if !last.Before(cutoff) {
			return false, nil
		}
	}
	if dryRun {
		return true, nil
	}
	if up != nil {
		if _, err := s.client.AbortMultipartUpload(ctx, &awss3.AbortMultipartUploadInput{
			Bucket: aws.String(s.bucket), Key: up.Key, UploadId: up.UploadId,
		}); err != nil && !isNoSuchUpload(err) {
			return false, err
		}
	}
	if _, err := s.client.DeleteObject(ctx, &awss3.DeleteObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)}); err != nil {
		return false, err
	}
	return true, nil
}

// isMarkerOf reports whether key is named as the marker of the writer id:
// markerName, or the prefix and the id alone (a marker without a check,
// which clean-temp removes too when its metadata names it).
func isMarkerOf(key, id string) bool {
	name := key[strings.LastIndexByte(key, '/')+1:]
	return name == markerName(id) || name == UploadMarkerPrefix+id
}

// findUpload returns the incomplete multipart upload id whose key is in dir,
// or nil when there is none (completed or aborted).
func (s *clientStore) findUpload(ctx context.Context, dir, id string) (*s3types.MultipartUpload, error) {
	in := &awss3.ListMultipartUploadsInput{Bucket: aws.String(s.bucket), Prefix: aws.String(dir)}
	for {
		out, err := s.client.ListMultipartUploads(ctx, in)
		if err != nil {
			return nil, err
		}
		for i, u := range out.Uploads {
			k := aws.ToString(u.Key)
			if aws.ToString(u.UploadId) == id && !strings.Contains(k[len(dir):], "/") {
				return &out.Uploads[i], nil
			}
		}
		if !aws.ToBool(out.IsTruncated) || out.NextKeyMarker == nil {
			return nil, nil
		}
		in.KeyMarker, in.UploadIdMarker = out.NextKeyMarker, out.NextUploadIdMarker
	}
}

// lastActivity returns when the upload was started or its newest part sent.
func (s *clientStore) lastActivity(ctx context.Context, up *s3types.MultipartUpload) (time.Time, error) {
	last := aws.ToTime(up.Initiated)
	p := awss3.NewListPartsPaginator(s.client, &awss3.ListPartsInput{Bucket: aws.String(s.bucket), Key: up.Key, UploadId: up.UploadId})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			if isNoSuchUpload(err) {
				return last, nil
			}
			return last, err
		}
		for _, part := range page.Parts {
			if t := aws.ToTime(part.LastModified); t.After(last) {
				last = t
			}
		}
	}
	return last, nil
}
