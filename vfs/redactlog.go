package vfs

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
)

// LogValue implements slog.LogValuer: a Path logs as p.Redacted(), with any
// slog handler.
func (p Path) LogValue() slog.Value { return slog.StringValue(p.Redacted()) }

// RedactingHandler returns a slog.Handler that hides secrets (see Redact) in
// every record before h sees it: in the message, in every string attribute, in
// URLs (*url.URL, url.URL), which it logs as their redacted text, in any other
// value whose text (Error, String, fmt.Sprint) shows a secret, which it logs as
// that text redacted, and in whole attributes whose key suggests a secret (see
// IsSecretName), whose value becomes "xxxxx". Groups are redacted member by
// member. Values with nothing to hide (numbers, times, most structs) pass
// unchanged.
func RedactingHandler(h slog.Handler) slog.Handler { return &redactingHandler{h: h} }

type redactingHandler struct{ h slog.Handler }

// Enabled reports whether the wrapped handler handles level.
func (r *redactingHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return r.h.Enabled(ctx, l)
}

// Handle passes a redacted copy of rec to the wrapped handler.
func (r *redactingHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, Redact(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(redactAttr(a))
		return true
	})
	return r.h.Handle(ctx, out)
}

// WithAttrs redacts attrs and passes them to the wrapped handler.
func (r *redactingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		red[i] = redactAttr(a)
	}
	return &redactingHandler{h: r.h.WithAttrs(red)}
}

// WithGroup opens a group on the wrapped handler.
func (r *redactingHandler) WithGroup(name string) slog.Handler {
	return &redactingHandler{h: r.h.WithGroup(name)}
}

func redactAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	if v.Kind() == slog.KindGroup {
		members := v.Group()
		red := make([]slog.Attr, len(members))
		for i, m := range members {
			red[i] = redactAttr(m)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(red...)}
	}
	if IsSecretName(a.Key) {
		return slog.String(a.Key, redactedText)
	}
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, Redact(v.String()))
	case slog.KindAny:
		var text string
		switch x := v.Any().(type) {
		case *url.URL:
			return slog.String(a.Key, RedactURL(x))
		case url.URL:
			return slog.String(a.Key, RedactURL(&x))
		case error:
			text = x.Error()
		case fmt.Stringer:
			text = x.String()
		default:
			text = fmt.Sprint(x)
		}
		if red := Redact(text); red != text {
			return slog.String(a.Key, red)
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
