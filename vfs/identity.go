package vfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// Identity is a scheme's rule for which object a path names: it returns the
// canonical path of p (a path of the scheme it is registered for, absolute,
// with a scheme), the one path every spelling of the same object maps to.
// Two paths name the same object exactly when their canonical paths are
// equal, so a canonical path is a key for maps of locations. A rule must be a
// fixpoint on what it returns (the canonical path of a canonical path is
// itself) and answer the same for the same object while the object stays
// where it is. r is the registry asking (a rule may need the file system that
// serves p, r.GetPath). An error means the rule cannot tell which object p
// names; ErrForeign means p names an object of a store this process is not
// configured for.
//
// Backends register their schemes' rules beside their factories: s3's makes
// s3a:// and s3p:// of a bucket at the endpoint of s3:// that bucket's s3://
// paths, file://'s resolves symbolic links in a path's existing ancestors, and
// azblob's makes Flink's and Hadoop's Azure URIs (abfs[s]://, wasb[s]://) of
// the configured account azblob:// paths.
type Identity func(ctx context.Context, r *Registry, p Path) (Path, error)

// ErrForeign is the error (errors.Is) of a path that names an object in a
// store this process is not configured to reach, such as an Azure URI of
// another storage account: it is the same as nothing vfskit can reach.
var ErrForeign = errors.New("a location in a store this process is not configured for")

// RegisterIdentity adds the location rule of scheme (case-insensitive); a
// scheme without one compares as written. It fails when the scheme is invalid,
// id is nil or the scheme has a rule already.
func (r *Registry) RegisterIdentity(scheme string, id Identity) error {
	if err := checkScheme(scheme); err != nil {
		return fmt.Errorf("vfs: register identity: %w", err)
	}
	if id == nil {
		return fmt.Errorf("vfs: register identity of %q: %w: nil rule", scheme, fs.ErrInvalid)
	}
	scheme = strings.ToLower(scheme)
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.identities[scheme]; dup {
		return fmt.Errorf("vfs: register identity of %q: %w: the scheme has a rule already", scheme, fs.ErrExist)
	}
	r.identities[scheme] = id
	return nil
}

// Canonical returns the canonical path of the object p names (see Identity):
// p made absolute with the registry's default scheme and authority when it has
// no scheme, then given to its scheme's rule; a scheme without a rule (one
// that is not registered included) is its own canonical form. The zero Path
// and a relative path fail with fs.ErrInvalid; a rule's error is returned as
// it is (ErrForeign for a store this process is not configured for).
func (r *Registry) Canonical(ctx context.Context, p Path) (Path, error) {
	if p.IsZero() || !p.IsAbsolute() {
		return Path{}, &fs.PathError{Op: "canonical", Path: p.Redacted(), Err: fmt.Errorf(
			"%w: not an absolute path (expected a location such as s3://bucket/key or /dir/file)", fs.ErrInvalid)}
	}
	r.mu.Lock()
	if p.scheme == "" {
		d := r.defaultScheme
		p.scheme = d.scheme
		if p.authority == "" {
			p.authority = d.authority
		}
	}
	id := r.identities[p.scheme]
	r.mu.Unlock()
	if id == nil {
		return p, nil
	}
	return id(ctx, r, p)
}

// SameLocation reports whether a and b name the same object: equal paths do,
// and otherwise equal canonical paths (Canonical). When either cannot be
// resolved it returns false and the error: not knowing is no proof that
// they differ.
func (r *Registry) SameLocation(ctx context.Context, a, b Path) (bool, error) {
	if a == b && !a.IsZero() {
		return true, nil
	}
	ka, err := r.Canonical(ctx, a)
	if err != nil {
		return false, err
	}
	kb, err := r.Canonical(ctx, b)
	if err != nil {
		return false, err
	}
	return ka == kb, nil
}

// RegisterIdentity adds a location rule to the default registry (see
// Registry.RegisterIdentity). It panics when the scheme is invalid or has a
// rule already: it is meant for backend init functions.
func RegisterIdentity(scheme string, id Identity) {
	if err := defaultRegistry.RegisterIdentity(scheme, id); err != nil {
		panic(err)
	}
}

// Canonical returns the canonical path of p in the default registry (see
// Registry.Canonical).
func Canonical(ctx context.Context, p Path) (Path, error) {
	return defaultRegistry.Canonical(ctx, p)
}

// SameLocation reports whether a and b name the same object in the default
// registry (see Registry.SameLocation).
func SameLocation(ctx context.Context, a, b Path) (bool, error) {
	return defaultRegistry.SameLocation(ctx, a, b)
}

// WithScheme returns p with the scheme and authority given and its path kept,
// for Identity rules that map one spelling of a store to another. It fails
// with fs.ErrInvalid on an invalid scheme or an authority with a '/'.
func (p Path) WithScheme(scheme, authority string) (Path, error) {
	if err := checkScheme(scheme); err != nil {
		return Path{}, &fs.PathError{Op: "with scheme", Path: p.Redacted(), Err: err}
	}
	if strings.Contains(authority, "/") {
		return Path{}, &fs.PathError{Op: "with scheme", Path: p.Redacted(), Err: fmt.Errorf(
			"%w: authority %q has a '/' (expected host, bucket or user@host)", fs.ErrInvalid, RedactAuthority(authority))}
	}
	path := p.path
	if path == "" {
		path = "/"
	}
	return Path{scheme: strings.ToLower(scheme), authority: authority, path: path}, nil
}
