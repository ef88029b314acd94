package suite

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/internal/bench"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// s3env is a fresh bucket seen through vfskit and through the SDK directly,
// each with its own request counter.
type s3env struct {
	bucket           string
	fsys             vfs.FileSystem
	client           *awss3.Client
	ours, base       *s3test.Counter
	opts             s3.Options
	partSize, concur int
}

func newS3(ctx context.Context, c *Config) (*s3env, error) {
	e := &s3env{
		bucket: s3test.RandomName("vfsbench-"),
		ours:   s3test.NewCounter(nil), base: s3test.NewCounter(nil),
		partSize: s3.DefaultPartSize, concur: s3.DefaultConcurrency,
	}
	if err := c.S3.CreateBucket(ctx, e.bucket); err != nil {
		return nil, err
	}
	e.opts = s3.Options{
		Endpoint: c.S3.Endpoint, Region: c.S3.Region,
		Credentials: credentials.NewStaticCredentialsProvider(c.S3.AccessKeyID, c.S3.SecretAccessKey, ""),
		HTTPClient:  e.ours.HTTPClient(),
		PartSize:    e.partSize, Concurrency: e.concur,
	}
	fsys, err := s3.New(ctx, e.bucket, e.opts)
	if err != nil {
		return nil, err
	}
	e.fsys, e.client = fsys, c.S3.Client(e.base.HTTPClient())
	if err := e.warmUp(ctx); err != nil {
		return nil, err
	}
	return e, nil
}

// warmUp writes and deletes an object, so that the bucket's first volume
// exists before any timed round: SeaweedFS grows it at the bucket's first
// write, which waits about a second for it, and would otherwise time that in
// the first round of whichever side goes first.
func (e *s3env) warmUp(ctx context.Context) error {
	key := "vfsbench-warm-up"
	if err := e.put(ctx, key, make([]byte, mib)); err != nil {
		return fmt.Errorf("warm-up write: %w", err)
	}
	_, err := e.client.DeleteObject(ctx, &awss3.DeleteObjectInput{Bucket: &e.bucket, Key: &key})
	return err
}

func (e *s3env) path(key string) vfs.Path { return vfs.MustPath("/" + key) }

// put writes data to key with the SDK (not counted as anyone's request).
func (e *s3env) put(ctx context.Context, key string, data []byte) error {
	_, err := e.client.PutObject(ctx, &awss3.PutObjectInput{Bucket: &e.bucket, Key: &key, Body: bytes.NewReader(data)})
	return err
}

// heapPeak samples the live heap every millisecond while f runs and returns
// the peak above the heap at the start (after a garbage collection).
func heapPeak(f func() error) (peak uint64, err error) {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	start := read()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			if v := read(); v > start {
				peak = max(peak, v-start)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	err = f()
	close(done)
	wg.Wait()
	return peak, err
}

// stream is a non-seekable reader of size bytes, buf repeated: what a program
// that generates data hands to an uploader.
func stream(buf []byte, size int) io.Reader {
	return io.LimitReader(&repeat{buf: buf}, int64(size))
}

type repeat struct {
	buf []byte
	off int
}

func (r *repeat) Read(p []byte) (int, error) {
	n := copy(p, r.buf[r.off:])
	r.off = (r.off + n) % len(r.buf)
	return n, nil
}

// s3Upload uploads c.Big bytes written in c.Chunk pieces through s3://
// against the SDK's transfer manager with the same part size and concurrency,
// and records the peak heap of each.
func s3Upload(ctx context.Context, c *Config) ([]bench.Result, error) {
	e, err := newS3(ctx, c)
	if err != nil {
		return nil, err
	}
	tm := transfermanager.New(e.client, func(o *transfermanager.Options) {
		o.PartSizeBytes = int64(e.partSize)
		o.MultipartUploadThreshold = int64(e.partSize)
		o.Concurrency = e.concur
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
	})
	buf := pattern(c.Chunk)
	var oursPeak, basePeak uint64
	var requests, baseRequests map[string]int
	s, err := bench.Interleave(c.Rounds, func() error {
		e.ours.Reset()
		peak, err := heapPeak(func() error { return writeChunks(ctx, e.fsys, e.path("up/ours"), buf, c.Big) })
		oursPeak, requests = max(oursPeak, peak), e.ours.Counts()
		return err
	}, func() error {
		e.base.Reset()
		peak, err := heapPeak(func() error {
			_, err := tm.UploadObject(ctx, &transfermanager.UploadObjectInput{
				Bucket: aws.String(e.bucket), Key: aws.String("up/sdk"), Body: stream(buf, c.Big)})
			return err
		})
		basePeak, baseRequests = max(basePeak, peak), e.base.Counts()
		return err
	})
	if err != nil {
		return nil, err
	}
	r := speed(fmt.Sprintf("s3 upload %d MiB (part %d MiB × %d)", c.Big/mib, e.partSize/mib, e.concur), s, float64(c.Big)/mib, "MiB/s", 0.95)
	limit := uint64(e.partSize*e.concur + 16*mib)
	r.Target += fmt.Sprintf(", peak heap ≤ %d MiB", limit/mib)
	r.Met = r.Met && oursPeak <= limit
	r.Requests, r.BaselineRequests = requests, baseRequests
	r.Note = fmt.Sprintf("peak heap %.1f MiB (SDK %.1f MiB)", float64(oursPeak)/mib, float64(basePeak)/mib)
	return []bench.Result{r}, nil
}

// s3Download reads a c.Big-byte object through s3:// (Open, Read to the end)
// against one SDK GetObject read to the end.
func s3Download(ctx context.Context, c *Config) ([]bench.Result, error) {
	e, err := newS3(ctx, c)
	if err != nil {
		return nil, err
	}
	if err := writeChunks(ctx, e.fsys, e.path("down"), pattern(c.Chunk), c.Big); err != nil {
		return nil, err
	}
	back := make([]byte, c.Chunk)
	var requests, baseRequests map[string]int
	s, err := bench.Interleave(c.Rounds, func() error {
		e.ours.Reset()
		in, err := e.fsys.Open(ctx, e.path("down"))
		if err == nil {
			err = readClose(in, back, c.Big)
		}
		requests = e.ours.Counts()
		return err
	}, func() error {
		e.base.Reset()
		out, err := e.client.GetObject(ctx, &awss3.GetObjectInput{Bucket: aws.String(e.bucket), Key: aws.String("down")})
		if err == nil {
			err = readClose(out.Body, back, c.Big)
		}
		baseRequests = e.base.Counts()
		return err
	})
	if err != nil {
		return nil, err
	}
	r := speed(fmt.Sprintf("s3 download %d MiB", c.Big/mib), s, float64(c.Big)/mib, "MiB/s", 0.95)
	r.Requests, r.BaselineRequests = requests, baseRequests
	return []bench.Result{r}, nil
}

// s3ReadAt makes c.ReadAts ReadAt calls of 1 MiB (c.Chunk) at random offsets
// in a c.Big-byte object and compares the bytes fetched with the bytes read.
func s3ReadAt(ctx context.Context, c *Config) ([]bench.Result, error) {
	e, err := newS3(ctx, c)
	if err != nil {
		return nil, err
	}
	data := pattern(c.Big)
	if err := vfs.WriteFile(ctx, e.fsys, e.path("ranged"), data, vfs.Overwrite); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, c.Chunk)
	in, err := e.fsys.Open(ctx, e.path("ranged"))
	if err != nil {
		return nil, err
	}
	defer in.Close()
	e.ours.Reset()
	start := time.Now()
	for range c.ReadAts {
		off := rng.IntN(c.Big - c.Chunk + 1)
		if n, err := in.ReadAt(buf, int64(off)); err != nil || n != len(buf) || !bytes.Equal(buf, data[off:off+n]) {
			return nil, fmt.Errorf("ReadAt(%d): %d bytes, %v (or wrong bytes)", off, n, err)
		}
	}
	elapsed := time.Since(start)
	read := float64(c.ReadAts * c.Chunk)
	ratio := float64(e.ours.BytesReceived()) / read
	return []bench.Result{{
		Name: fmt.Sprintf("s3 %d random ReadAt of %d KiB in %d MiB", c.ReadAts, c.Chunk/kib, c.Big/mib),
		Ours: ratio, Unit: "fetched ÷ read", Ratio: ratio, Rounds: 1,
		Target: "≤ 1.1", Met: ratio <= 1.1, Requests: e.ours.Counts(),
		Note: fmt.Sprintf("%.1f MiB/s", read/mib/elapsed.Seconds()),
	}}, nil
}

// s3ListDelete lists a directory of c.Keys objects through s3:// against the
// SDK's ListObjectsV2 paginator (with the same delimiter), then deletes the
// directory recursively through s3:// and counts the requests.
func s3ListDelete(ctx context.Context, c *Config) ([]bench.Result, error) {
	e, err := newS3(ctx, c)
	if err != nil {
		return nil, err
	}
	if err := e.fill(ctx, "many/", c.Keys); err != nil {
		return nil, err
	}
	var requests, baseRequests map[string]int
	s, err := bench.Interleave(c.Rounds, func() error {
		e.ours.Reset()
		st, err := e.fsys.List(ctx, e.path("many"))
		requests = e.ours.Counts()
		if err == nil && len(st) != c.Keys {
			err = fmt.Errorf("listed %d entries, want %d", len(st), c.Keys)
		}
		return err
	}, func() error {
		e.base.Reset()
		n := 0
		pages := awss3.NewListObjectsV2Paginator(e.client, &awss3.ListObjectsV2Input{
			Bucket: aws.String(e.bucket), Prefix: aws.String("many/"), Delimiter: aws.String("/")})
		for pages.HasMorePages() {
			page, err := pages.NextPage(ctx)
			if err != nil {
				return err
			}
			n += len(page.Contents) + len(page.CommonPrefixes)
		}
		baseRequests = e.base.Counts()
		if n != c.Keys {
			return fmt.Errorf("SDK listed %d entries, want %d", n, c.Keys)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	list := speed(fmt.Sprintf("s3 list %d keys", c.Keys), s, float64(c.Keys), "µs/key", 0.95)
	list.Target += ", same request count"
	oursN, baseN := sum(requests), sum(baseRequests)
	list.Met = list.Met && oursN <= baseN
	list.Requests, list.BaselineRequests = requests, baseRequests

	e.ours.Reset()
	start := time.Now()
	if err := e.fsys.Delete(ctx, e.path("many"), true); err != nil {
		return nil, err
	}
	elapsed := time.Since(start)
	del, delRequests := sum(e.ours.Counts()), e.ours.Counts()
	// The directory must be gone at once, as `ls` right after would show it.
	top, err := e.fsys.List(ctx, e.path(""))
	if err != nil {
		return nil, err
	}
	if len(top) != 0 {
		return nil, fmt.Errorf("after the recursive delete, / still lists %s", top[0].Path)
	}
	left, err := e.client.ListObjectsV2(ctx, &awss3.ListObjectsV2Input{Bucket: aws.String(e.bucket), Prefix: aws.String("many/")})
	if err != nil {
		return nil, err
	}
	if n := len(left.Contents); n != 0 {
		return nil, fmt.Errorf("recursive delete left %d keys", n)
	}
	return []bench.Result{list, {
		Name: fmt.Sprintf("s3 recursive delete of %d keys", c.Keys),
		Ours: float64(del), Baseline: float64(c.Keys), Unit: "requests", Rounds: 1,
		Target: "≤ 21 requests (SeaweedFS)", Met: del <= 21, Requests: delRequests,
		Note: fmt.Sprintf("%.2f s; baseline: one DELETE per key; SeaweedFS drops an emptied directory's entry only on one more request, so 21 there and 20 on flat stores", elapsed.Seconds()),
	}}, nil
}

// fill puts n small objects under prefix with the SDK, 16 at a time.
func (e *s3env) fill(ctx context.Context, prefix string, n int) error {
	keys := make(chan string)
	errs := make(chan error, 16)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range keys {
				if err := e.put(ctx, k, []byte(k)); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	var err error
feed:
	for i := range n {
		select {
		case keys <- prefix + "k" + strconv.Itoa(i):
		case err = <-errs:
			break feed
		}
	}
	close(keys)
	go func() { wg.Wait(); close(errs) }()
	for e := range errs {
		err = cmpErr(err, e)
	}
	return err
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

func sum(m map[string]int) int {
	n := 0
	for _, c := range m {
		n += c
	}
	return n
}

// checkpointS3 checkpoints through FsCheckpointStorage on s3:// against one
// SDK PutObject per file of the same bytes, and counts vfskit's requests.
func checkpointS3(ctx context.Context, c *Config) ([]bench.Result, error) {
	e, err := newS3(ctx, c)
	if err != nil {
		return nil, err
	}
	reg := vfs.NewRegistry()
	if err := reg.Register("s3", s3.Factory(e.opts)); err != nil {
		return nil, err
	}
	k, err := newCheckpointer(ctx, c, vfs.MustPath("s3://"+e.bucket+"/ckpt"), reg)
	if err != nil {
		return nil, err
	}
	if err := k.checkpoint(ctx); err != nil { // warm-up: learns the metadata size
		return nil, err
	}
	var requests, baseRequests map[string]int
	raws := 0
	s, err := bench.Interleave(c.Rounds, func() error {
		e.ours.Reset()
		err := k.checkpoint(ctx)
		requests = e.ours.Counts()
		return err
	}, func() error {
		e.base.Reset()
		raws++
		for i := range k.states + 1 {
			data := k.state
			if i == k.states {
				data = data[:min(k.metaSize, len(data))]
			}
			if err := e.put(ctx, fmt.Sprintf("raw/%d/%d", raws, i), data); err != nil {
				return err
			}
		}
		baseRequests = e.base.Counts()
		return nil
	})
	if err != nil {
		return nil, err
	}
	r := speed(fmt.Sprintf("checkpoint of %d × %d KiB states + metadata, s3://", c.States, c.StateSize/kib), s,
		float64(c.States)*float64(c.StateSize)/mib, "MiB/s", 0.9)
	puts := requests[s3test.OpPutObject] + requests[s3test.OpCreateMultipartUpload] + requests[s3test.OpUploadPart] +
		requests[s3test.OpCompleteMultipartUpload] + requests[s3test.OpCopyObject]
	looks := requests[s3test.OpHeadObject] + requests[s3test.OpListObjectsV2] + requests[s3test.OpListObjects]
	r.Target += fmt.Sprintf(", PUTs ≤ %d, HEAD+LIST ≤ 1", k.states+1)
	r.Met = r.Met && puts <= k.states+1 && looks <= 1
	r.Requests, r.BaselineRequests = requests, baseRequests
	r.Note = fmt.Sprintf("%d PUTs, %d HEAD+LIST", puts, looks)
	return []bench.Result{r}, nil
}
