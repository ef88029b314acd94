// Package faultproxy is an HTTP proxy on 127.0.0.1 that injects faults between a
// client and a server: it can forward a request and swallow the response
// (cutting the client's connection, as a lost response looks to the client),
// delay responses, cut a response in the middle of its body, and answer a
// fraction of requests itself with S3's "503 SlowDown", after their whole body
// or before most of it, and answer every request it selects with a fixed
// response (a server refusing the credentials). It counts what it did.
// vfskit's fault tests put it in front of SeaweedFS (internal/s3test) and
// fake-gcs-server (internal/gcstest); it is internal test support.
//
//	p, _ := faultproxy.Start("http://127.0.0.1:8333")
//	defer p.Close()
//	p.Set(faultproxy.Faults{Drop: 0.05, SlowDown: 0.2, Seed: 1})
//	// point the client at p.URL()
//
// The proxy keeps the request's Host header, so AWS signatures made for the
// proxy's address stay valid at the server. Faults apply to the requests that
// Faults.Match selects (all when nil); the random choices come from a PRNG seeded
// with Faults.Seed, so a run is reproducible up to goroutine scheduling.
package faultproxy

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Faults says which faults the proxy injects. The zero value forwards everything
// unchanged. The fractions are probabilities between 0 and 1 per selected
// request, tried in the order SlowDown, Early, Drop, Cut (their sum should not
// exceed 1).
type Faults struct {
	// Match selects the requests faults apply to; nil selects all. Requests it
	// does not select are forwarded unchanged (and still counted).
	Match func(*http.Request) bool
	// Answer, when set, answers every selected request itself, without
	// forwarding it, once its body was read: the fractions below and Delay
	// then do not apply.
	Answer *Answer
	// SlowDown is the fraction of requests the proxy answers itself, without
	// forwarding, with 503 and an S3 "SlowDown" XML error.
	SlowDown float64
	// Early is the fraction of requests the proxy answers itself with 503
	// SlowDown after reading at most the first 4 KiB of their body, and then
	// closes the connection: the client's transport is still sending the body
	// when the answer arrives, and may go on reading it after the client has
	// the answer (net/http's RoundTrip returns as soon as a response arrives).
	Early float64
	// Drop is the fraction of requests that are forwarded and whose response is
	// read from the server and then swallowed: the client's connection is cut
	// without an answer. The server did the work; the client cannot know.
	Drop float64
	// Cut is the fraction of responses cut in the middle of their body: the
	// status, headers (with the full Content-Length) and half the body (of a
	// chunked body, 512 bytes) are sent, then the connection is cut.
	Cut float64
	// Delay is added before every selected response is sent (a stalled server).
	// A client that gives up earlier sees its own timeout.
	Delay time.Duration
	// Seed seeds the PRNG that picks the faulted requests.
	Seed uint64
	// After, when set, is called for every selected request that was
	// forwarded, once the server answered it and before the answer is
	// passed on (or dropped): the client has not heard the answer yet, so
	// what After does to the server lands between this request and the
	// client's next one (another client's write, for example).
	After func(*http.Request)
	// Before, when set, is called for every selected request that is to be
	// forwarded, before it is: the request waits for it, and then reaches
	// the server even when the client gave up meanwhile, as a request
	// already on the wire arrives late (a body the client had not sent
	// by then is cut short).
	Before func(*http.Request)
}

// Answer is a response the proxy gives itself (Faults.Answer).
type Answer struct {
	Status int         // the HTTP status code
	Header http.Header // sent as is; Content-Length is set from Body
	Body   string
}

// Counts is what the proxy did so far.
type Counts struct {
	Requests  int // requests received
	Forwarded int // requests sent on to the server
	SlowDowns int // requests answered 503 SlowDown by the proxy
	Early     int // requests answered 503 SlowDown before their body was read
	Answered  int // requests answered with Faults.Answer
	Dropped   int // responses swallowed, connection cut
	Cut       int // responses cut in the middle of the body
	Delayed   int // responses delayed by Faults.Delay
	Errors    int // requests the server could not be reached for (answered 502)
}

// Proxy is a running fault-injecting proxy. It is safe for concurrent use.
type Proxy struct {
	target *url.URL
	ln     net.Listener
	srv    *http.Server
	tr     *http.Transport

	mu     sync.Mutex
	faults Faults
	rng    *rand.Rand
	counts Counts
}

// Start starts a proxy on a free port of 127.0.0.1 that forwards to target (a
// base URL such as http://127.0.0.1:8333). Close stops it.
func Start(target string) (*Proxy, error) {
	u, err := url.Parse(target)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("faultproxy: target %q is not a base URL such as http://127.0.0.1:8333", target)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("faultproxy: listen on 127.0.0.1: %w", err)
	}
	p := &Proxy{
		target: u,
		ln:     ln,
		tr:     &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 64, DisableCompression: true},
		rng:    rand.New(rand.NewPCG(0, 0)),
	}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: time.Minute}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// URL is the proxy's base URL, http://127.0.0.1:PORT: give it to the client as
// the endpoint.
func (p *Proxy) URL() string { return "http://" + p.ln.Addr().String() }

// Set replaces the faults (and reseeds the PRNG with f.Seed).
func (p *Proxy) Set(f Faults) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.faults = f
	p.rng = rand.New(rand.NewPCG(f.Seed, f.Seed^0x9e3779b97f4a7c15))
}

// Counts returns what the proxy did so far.
func (p *Proxy) Counts() Counts {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.counts
}

// Reset zeroes the counts.
func (p *Proxy) Reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.counts = Counts{}
}

// CloseIdleConnections closes the proxy's idle connections to the server (a
// leak check then sees only what clients hold).
func (p *Proxy) CloseIdleConnections() { p.tr.CloseIdleConnections() }

// Close stops the proxy, cutting every open connection.
func (p *Proxy) Close() error {
	err := p.srv.Close()
	p.tr.CloseIdleConnections()
	return err
}

// fault is the decision for one request.
type fault int

const (
	none fault = iota
	answer
	slowDown
	early
	drop
	cut
)

// decide picks the fault for r and counts the request. It returns the faults
// in force for r: a request Match does not select gets none (no Delay, no
// After).
func (p *Proxy) decide(r *http.Request) (fault, Faults) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.counts.Requests++
	f := p.faults
	if f.Match != nil && !f.Match(r) {
		return none, Faults{}
	}
	if f.Answer != nil {
		p.counts.Answered++
		return answer, f
	}
	x := p.rng.Float64()
	switch {
	case x < f.SlowDown:
		p.counts.SlowDowns++
		return slowDown, f
	case x < f.SlowDown+f.Early:
		p.counts.Early++
		return early, f
	case x < f.SlowDown+f.Early+f.Drop:
		return drop, f
	case x < f.SlowDown+f.Early+f.Drop+f.Cut:
		return cut, f
	}
	return none, f
}

func (p *Proxy) count(fn func(c *Counts)) {
	p.mu.Lock()
	fn(&p.counts)
	p.mu.Unlock()
}

// ServeHTTP forwards r, injecting the fault decide picks.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f, faults := p.decide(r)
	delay, after := faults.Delay, faults.After
	if f == answer {
		_, _ = io.Copy(io.Discard, r.Body)
		writeAnswer(w, faults.Answer)
		return
	}
	if f == slowDown {
		_, _ = io.Copy(io.Discard, r.Body)
		if !p.wait(r.Context(), delay) {
			return
		}
		writeSlowDown(w, r)
		return
	}
	if f == early {
		_, _ = io.CopyN(io.Discard, r.Body, 4<<10)
		if !p.wait(r.Context(), delay) {
			return
		}
		w.Header().Set("Connection", "close")
		writeSlowDown(w, r)
		return
	}
	ctx := r.Context()
	if faults.Before != nil {
		faults.Before(r)
		ctx = context.WithoutCancel(ctx)
	}
	out := r.Clone(ctx)
	out.RequestURI = ""
	out.URL.Scheme, out.URL.Host = p.target.Scheme, p.target.Host
	out.Host = r.Host // the client signed the Host it sent
	if r.ContentLength == 0 {
		out.Body = nil
	}
	p.count(func(c *Counts) { c.Forwarded++ })
	resp, err := p.tr.RoundTrip(out)
	if err != nil {
		p.count(func(c *Counts) { c.Errors++ })
		http.Error(w, "faultproxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	if after != nil {
		after(r)
	}
	if f == drop {
		// Let the server finish as if the client had read everything, then cut
		// the client off without an answer.
		_, _ = io.Copy(io.Discard, resp.Body)
		p.count(func(c *Counts) { c.Dropped++ })
		hangUp(w)
		return
	}
	if !p.wait(r.Context(), delay) {
		return
	}
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	if f == cut {
		// Half of a body of known length; of a chunked one, its first bytes.
		n := int64(512)
		if resp.ContentLength >= 0 {
			n = resp.ContentLength / 2
		}
		_, _ = io.CopyN(w, resp.Body, n)
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
		p.count(func(c *Counts) { c.Cut++ })
		hangUp(w)
		return
	}
	_, _ = io.Copy(w, resp.Body)
}

// wait sleeps for d unless the client goes away first; it reports whether the
// client is still there.
func (p *Proxy) wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	p.count(func(c *Counts) { c.Delayed++ })
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// hangUp closes the client's connection without (the rest of) a response.
func hangUp(w http.ResponseWriter) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler) // net/http closes the connection
	}
	_ = buf.Flush()
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0) // RST, as a dead peer or a middlebox would
	}
	_ = conn.Close()
}

// writeAnswer sends a.
func writeAnswer(w http.ResponseWriter, a *Answer) {
	for k, vs := range a.Header {
		w.Header()[k] = vs
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(a.Body)))
	w.WriteHeader(a.Status)
	_, _ = io.WriteString(w, a.Body)
}

// writeSlowDown answers as S3 does when it throttles.
func writeSlowDown(w http.ResponseWriter, r *http.Request) {
	body := `<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message>` +
		`<Resource>` + escape(r.URL.Path) + `</Resource><RequestId>faultproxy</RequestId></Error>`
	writeAnswer(w, &Answer{Status: http.StatusServiceUnavailable, Header: http.Header{"Content-Type": {"application/xml"}}, Body: body})
}

func escape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
