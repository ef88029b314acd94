package s3test

import (
	"io"
	"maps"
	"net/http"
	"strings"
	"sync"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
)

// S3 operation names as Counter records them (the AWS API names).
const (
	OpPutObject               = "PutObject"
	OpGetObject               = "GetObject"
	OpHeadObject              = "HeadObject"
	OpDeleteObject            = "DeleteObject"
	OpDeleteObjects           = "DeleteObjects"
	OpCopyObject              = "CopyObject"
	OpListObjectsV2           = "ListObjectsV2"
	OpListObjects             = "ListObjects"
	OpCreateMultipartUpload   = "CreateMultipartUpload"
	OpUploadPart              = "UploadPart"
	OpCompleteMultipartUpload = "CompleteMultipartUpload"
	OpAbortMultipartUpload    = "AbortMultipartUpload"
	OpListMultipartUploads    = "ListMultipartUploads"
	OpHeadBucket              = "HeadBucket"
	OpCreateBucket            = "CreateBucket"
)

// Counter is an http.RoundTripper that counts requests by S3 operation and the
// body bytes sent and received. It is safe for concurrent use. The zero value is
// not usable; call NewCounter.
type Counter struct {
	base http.RoundTripper

	mu       sync.Mutex
	counts   map[string]int
	ifNone   map[string]int
	ifMatch  map[string]int
	sent     int64
	received int64
}

// NewCounter returns a Counter that sends requests through base (nil means
// http.DefaultTransport).
func NewCounter(base http.RoundTripper) *Counter {
	if base == nil {
		base = http.DefaultTransport
	}
	return &Counter{base: base, counts: map[string]int{}, ifNone: map[string]int{}, ifMatch: map[string]int{}}
}

// HTTPClient returns an *http.Client that sends through the counter.
func (c *Counter) HTTPClient() *http.Client { return &http.Client{Transport: c} }

// RoundTrip records the request's operation and bytes, then sends it.
func (c *Counter) RoundTrip(req *http.Request) (*http.Response, error) {
	op := Operation(req)
	c.mu.Lock()
	c.counts[op]++
	if req.Header.Get("If-None-Match") == "*" {
		c.ifNone[op]++
	}
	if req.Header.Get("If-Match") != "" {
		c.ifMatch[op]++
	}
	if req.ContentLength > 0 {
		c.sent += req.ContentLength
	}
	c.mu.Unlock()
	resp, err := c.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if req.Method == http.MethodHead {
		// A HEAD response declares the object's length but carries no body.
		return resp, nil
	}
	if resp.ContentLength > 0 {
		// Count what the server declared it sends, read or not: that is what
		// crosses the wire.
		c.mu.Lock()
		c.received += resp.ContentLength
		c.mu.Unlock()
	} else if resp.Body != nil {
		resp.Body = &countingBody{ReadCloser: resp.Body, c: c}
	}
	return resp, nil
}

type countingBody struct {
	io.ReadCloser
	c *Counter
}

// Read counts the bytes read from the response body.
func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.c.mu.Lock()
	b.c.received += int64(n)
	b.c.mu.Unlock()
	return n, err
}

// Count returns how many requests of operation op were sent.
func (c *Counter) Count(op string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts[op]
}

// Conditional returns how many requests of operation op carried
// If-None-Match: * (a write that must not replace an existing object).
func (c *Counter) Conditional(op string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ifNone[op]
}

// IfMatch returns how many requests of operation op carried an If-Match
// header (a read or write conditional on the object's ETag).
func (c *Counter) IfMatch(op string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ifMatch[op]
}

// Total returns the number of requests sent.
func (c *Counter) Total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.counts {
		n += v
	}
	return n
}

// Counts returns a copy of the per-operation counts.
func (c *Counter) Counts() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.counts)
}

// BytesSent returns the request body bytes sent.
func (c *Counter) BytesSent() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sent
}

// BytesReceived returns the response body bytes received (the declared length
// of each response body, or the bytes read when no length was declared).
func (c *Counter) BytesReceived() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.received
}

// Reset forgets everything counted so far.
func (c *Counter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts = map[string]int{}
	c.ifNone = map[string]int{}
	c.ifMatch = map[string]int{}
	c.sent, c.received = 0, 0
}

// Operation names the S3 operation of a request: the AWS SDK's operation name
// when the request came from the SDK, else a classification of its method, path
// (path-style addressing) and query.
func Operation(req *http.Request) string {
	if name := awsmiddleware.GetOperationName(req.Context()); name != "" {
		return name
	}
	q := req.URL.Query()
	has := func(k string) bool { _, ok := q[k]; return ok }
	objectLevel := strings.Contains(strings.Trim(req.URL.Path, "/"), "/")
	switch req.Method {
	case http.MethodGet:
		switch {
		case has("uploads"):
			return OpListMultipartUploads
		case !objectLevel && q.Get("list-type") == "2":
			return OpListObjectsV2
		case !objectLevel:
			return OpListObjects
		}
		return OpGetObject
	case http.MethodHead:
		if !objectLevel {
			return OpHeadBucket
		}
		return OpHeadObject
	case http.MethodPut:
		switch {
		case has("partNumber") && has("uploadId"):
			return OpUploadPart
		case req.Header.Get("X-Amz-Copy-Source") != "":
			return OpCopyObject
		case !objectLevel:
			return OpCreateBucket
		}
		return OpPutObject
	case http.MethodPost:
		switch {
		case has("delete"):
			return OpDeleteObjects
		case has("uploads"):
			return OpCreateMultipartUpload
		case has("uploadId"):
			return OpCompleteMultipartUpload
		}
	case http.MethodDelete:
		switch {
		case has("uploadId"):
			return OpAbortMultipartUpload
		case objectLevel:
			return OpDeleteObject
		}
		return "DeleteBucket"
	}
	return req.Method + " " + req.URL.Path
}
