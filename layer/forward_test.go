package layer_test

import (
	"bytes"
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/layer/fault"
	"github.com/vfskit/vfskit/layer/limit"
	"github.com/vfskit/vfskit/layer/otel"
	"github.com/vfskit/vfskit/layer/readonly"
	"github.com/vfskit/vfskit/layer/record"
	"github.com/vfskit/vfskit/layer/sub"
	"github.com/vfskit/vfskit/vfs"
)

// The interfaces package vfs declares, each in one class. TestLayersForward
// reads vfs's source and fails on an interface in none of them, so that a
// new optional interface cannot be added without every layer being checked
// for it.
var (
	// fsOptional are the optional interfaces of a FileSystem (io.Closer,
	// which Base forwards too, is added in the test).
	fsOptional = map[string]reflect.Type{
		"OpenBeneathFS":       reflect.TypeFor[vfs.OpenBeneathFS](),
		"ReadFileFS":          reflect.TypeFor[vfs.ReadFileFS](),
		"WriteFileFS":         reflect.TypeFor[vfs.WriteFileFS](),
		"CopyFS":              reflect.TypeFor[vfs.CopyFS](),
		"TempCleaner":         reflect.TypeFor[vfs.TempCleaner](),
		"RealPathFS":          reflect.TypeFor[vfs.RealPathFS](),
		"DirSyncer":           reflect.TypeFor[vfs.DirSyncer](),
		"RecoverableWriterFS": reflect.TypeFor[vfs.RecoverableWriterFS](),
		"DeleteVersionFS":     reflect.TypeFor[vfs.DeleteVersionFS](),
		"UnnameableFS":        reflect.TypeFor[vfs.UnnameableFS](),
	}
	// inputOptional and outputOptional are the optional interfaces of the
	// streams.
	inputOptional = map[string]reflect.Type{
		"StreamStater":  reflect.TypeFor[vfs.StreamStater](),
		"VersionStater": reflect.TypeFor[vfs.VersionStater](),
		"VersionPinner": reflect.TypeFor[vfs.VersionPinner](),
		"RangeReader":   reflect.TypeFor[vfs.RangeReader](),
	}
	outputOptional = map[string]reflect.Type{
		"Aborter":          reflect.TypeFor[vfs.Aborter](),
		"WrittenVersioner": reflect.TypeFor[vfs.WrittenVersioner](),
		"RangeWriter":      reflect.TypeFor[vfs.RangeWriter](),
	}
	// notOptional are the interfaces that are not optional, and why.
	notOptional = map[string]string{
		"FileSystem":              "the interface itself",
		"InputStream":             "what Open returns",
		"OutputStream":            "what Create returns",
		"RecoverableWriter":       "what RecoverableWriterFS returns; WrapRecoverable wraps it",
		"RecoverableOutputStream": "a RecoverableWriter's stream; WrapRecoverable wraps it",
		"Committer":               "a RecoverableWriter's committer; WrapRecoverable wraps it",
		"TB":                      "testing.TB's subset for RegisterTest",
	}
)

// layers are every layer of the module, by package (TestLayersForward fails
// on a package below layer/ that is not here), each over inner; layer/sub
// shows the subtree at root (see view).
var layers = map[string]func(t *testing.T, inner vfs.FileSystem, root vfs.Path) vfs.FileSystem{
	"layer": func(_ *testing.T, inner vfs.FileSystem, _ vfs.Path) vfs.FileSystem {
		return &empty{layer.Base{Inner: inner}}
	},
	"limit": func(t *testing.T, inner vfs.FileSystem, _ vfs.Path) vfs.FileSystem {
		f, err := limit.New(inner, limit.Settings{Total: 4})
		require.NoError(t, err)
		return f
	},
	"readonly": func(_ *testing.T, inner vfs.FileSystem, _ vfs.Path) vfs.FileSystem { return readonly.New(inner) },
	"sub": func(t *testing.T, inner vfs.FileSystem, root vfs.Path) vfs.FileSystem {
		f, err := sub.New(inner, root)
		require.NoError(t, err)
		return f
	},
	"otel": func(t *testing.T, inner vfs.FileSystem, _ vfs.Path) vfs.FileSystem {
		f, err := otel.New(inner, otel.Options{})
		require.NoError(t, err)
		return f
	},
	"fault": func(t *testing.T, inner vfs.FileSystem, _ vfs.Path) vfs.FileSystem {
		f, err := fault.New(inner, 1)
		require.NoError(t, err)
		return f
	},
	"record": func(_ *testing.T, inner vfs.FileSystem, _ vfs.Path) vfs.FileSystem { return record.New(inner) },
}

// view returns the path through layer lname (made by layers with root) of
// the path p below it.
func view(t *testing.T, lname string, root, p vfs.Path) vfs.Path {
	t.Helper()
	if lname != "sub" {
		return p
	}
	rel, ok := p.Rel(root)
	require.True(t, ok, "%s is not below %s", p, root)
	return vfs.MustPath("/").Join(rel)
}

// readonlyRefuses are the optional methods layer/readonly refuses (with the
// arguments TestLayersForward gives: CleanTemp without dryRun).
var readonlyRefuses = []string{"WriteFile", "CopyFile", "CreateUnsynced", "DeleteVersion", "CleanTemp", "RecoverableWriter"}

// vfsInterfaces returns the exported interface types declared in package
// vfs's source (tests excluded).
func vfsInterfaces(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "vfs", "*.go"))
	require.NoError(t, err)
	var names []string
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, d := range file.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				ts := s.(*ast.TypeSpec)
				if _, ok := ts.Type.(*ast.InterfaceType); ok && ts.Name.IsExported() {
					names = append(names, ts.Name.Name)
				}
			}
		}
	}
	require.NotEmpty(t, names, "no interface found in ../vfs")
	return names
}

// TestLayersForward: every optional interface declared in package vfs — of a
// file system and of its streams — is implemented by every layer of the
// module, and each of its methods reaches the file system below (or, for
// layer/readonly's mutations, is refused with fs.ErrPermission without
// reaching it); the streams a layer returns keep the optional interfaces of
// the streams below.
func TestLayersForward(t *testing.T) {
	for _, name := range vfsInterfaces(t) {
		_, a := fsOptional[name]
		_, b := inputOptional[name]
		_, c := outputOptional[name]
		_, d := notOptional[name]
		require.True(t, a || b || c || d, "vfs.%s is an interface this test does not know: add it to fsOptional, inputOptional, outputOptional or notOptional, "+
			"forward it in layer.Base (or layer.Input, layer.Output) and in every layer that changes what it goes around, and implement it on full", name)
	}
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	for _, e := range entries {
		if e.IsDir() && e.Name() != "internal" && e.Name() != "testdata" {
			require.Contains(t, layers, e.Name(), "layer/%s is a layer this test does not check: add it to layers", e.Name())
		}
	}
	optional := maps.Clone(fsOptional)
	optional["io.Closer"] = reflect.TypeFor[io.Closer]()
	fsMethods := methodNames(reflect.TypeFor[vfs.FileSystem]())
	ctx := t.Context()
	for lname, wrap := range layers {
		t.Run(lname, func(t *testing.T) {
			for iname, it := range optional {
				inner := newFull()
				require.True(t, reflect.TypeOf(inner).Implements(it), "the test's full file system lacks %s: implement it", iname)
				fsys := wrap(t, inner, vfs.MustPath("/root"))
				require.True(t, reflect.TypeOf(fsys).Implements(it), "layer %s does not implement %s", lname, iname)
				for m := range it.NumMethod() {
					method := it.Method(m)
					if fsMethods[method.Name] {
						continue
					}
					out := reflect.ValueOf(fsys).MethodByName(method.Name).Call(args(t, ctx, method.Type))
					err, _ := out[len(out)-1].Interface().(error)
					refused := lname == "readonly" && slices.Contains(readonlyRefuses, method.Name)
					if refused {
						require.ErrorIs(t, err, fs.ErrPermission, "%s.%s", lname, method.Name)
						assert.Zero(t, inner.calls(method.Name), "%s.%s reached the file system below", lname, method.Name)
						continue
					}
					assert.Equal(t, 1, inner.calls(method.Name), "%s.%s (%s) does not reach the file system below (error %v)", lname, method.Name, iname, err)
					if got := inner.path(method.Name); !got.IsZero() {
						want := vfs.MustPath("/d/f0")
						if lname == "sub" {
							want = vfs.MustPath("/root/d/f0")
						}
						assert.Equal(t, want.MakeQualified(inner).String(), got.MakeQualified(inner).String(), "%s.%s gave the file system below another path", lname, method.Name)
					}
					for _, v := range out[:len(out)-1] {
						checkStream(t, lname+"."+method.Name, v.Interface())
					}
				}
			}
			// The streams of the FileSystem methods themselves.
			fsys := wrap(t, newFull(), vfs.MustPath("/root"))
			in, err := fsys.Open(ctx, vfs.MustPath("/d/f"))
			require.NoError(t, err)
			checkStream(t, lname+".Open", in)
			if lname != "readonly" {
				out, err := fsys.Create(ctx, vfs.MustPath("/d/f"), vfs.NoOverwrite)
				require.NoError(t, err)
				checkStream(t, lname+".Create", out)
			}
		})
	}
}

// checkStream checks that v, a stream from the layer (or anything else,
// ignored), has every optional interface of its kind, and closes it.
func checkStream(t *testing.T, what string, v any) {
	t.Helper()
	var want map[string]reflect.Type
	switch v.(type) {
	case vfs.InputStream:
		want = inputOptional
	case vfs.OutputStream:
		want = outputOptional
	default:
		return
	}
	for name, it := range want {
		assert.True(t, reflect.TypeOf(v).Implements(it), "the stream of %s (%T) lacks vfs.%s", what, v, name)
	}
	require.NoError(t, v.(io.Closer).Close())
}

// args returns arguments for a method of type mt (receiver excluded).
func args(t *testing.T, ctx context.Context, mt reflect.Type) []reflect.Value {
	t.Helper()
	var out []reflect.Value
	paths := 0
	for i := range mt.NumIn() {
		var v any
		switch at := mt.In(i); at {
		case reflect.TypeFor[context.Context]():
			v = ctx
		case reflect.TypeFor[vfs.Path]():
			v = vfs.MustPath("/d/f" + string(rune('0'+paths)))
			paths++
		case reflect.TypeFor[string]():
			v = "f"
		case reflect.TypeFor[int]():
			v = 10
		case reflect.TypeFor[bool]():
			v = false
		case reflect.TypeFor[time.Time]():
			v = time.Now()
		case reflect.TypeFor[[]byte]():
			v = []byte("x")
		case reflect.TypeFor[vfs.WriteMode]():
			v = vfs.NoOverwrite
		case reflect.TypeFor[vfs.Version]():
			v = vfs.Version{Size: 1, ID: "1:2"}
		default:
			t.Fatalf("TestLayersForward has no argument of type %s: add one to args", at)
		}
		out = append(out, reflect.ValueOf(v))
	}
	return out
}

func methodNames(it reflect.Type) map[string]bool {
	m := map[string]bool{}
	for i := range it.NumMethod() {
		m[it.Method(i).Name] = true
	}
	return m
}

// full is a file system with every optional interface of vfs (memory:// for
// the rest), each of whose optional methods counts its calls and succeeds,
// and whose streams have every optional stream interface.
type full struct {
	vfs.FileSystem
	mu    sync.Mutex
	n     map[string]int
	paths map[string]vfs.Path // the first path each method was given
}

func newFull() *full {
	return &full{FileSystem: memfs.New(), n: map[string]int{}, paths: map[string]vfs.Path{}}
}

func (f *full) count(m string, p ...vfs.Path) {
	f.mu.Lock()
	f.n[m]++
	if len(p) > 0 {
		f.paths[m] = p[0]
	}
	f.mu.Unlock()
}

func (f *full) path(m string) vfs.Path {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.paths[m]
}

func (f *full) calls(m string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n[m]
}

// nopInput and nopOutput are streams of nothing.
type nopInput struct{ *bytes.Reader }

func (nopInput) Close() error { return nil }

type nopOutput struct{ bytes.Buffer }

func (o *nopOutput) Pos() int64   { return int64(o.Len()) }
func (o *nopOutput) Flush() error { return nil }
func (o *nopOutput) Sync() error  { return nil }
func (o *nopOutput) Close() error { return nil }

func (f *full) input() vfs.InputStream {
	return layer.Input{InputStream: nopInput{bytes.NewReader(nil)}}
}

func (f *full) output() vfs.OutputStream { return layer.Output{OutputStream: &nopOutput{}} }

func (f *full) Open(context.Context, vfs.Path) (vfs.InputStream, error) {
	return f.input(), nil
}

func (f *full) Create(context.Context, vfs.Path, vfs.WriteMode) (vfs.OutputStream, error) {
	return f.output(), nil
}

func (f *full) OpenBeneath(_ context.Context, dir vfs.Path, _ string) (vfs.InputStream, error) {
	f.count("OpenBeneath", dir)
	return f.input(), nil
}

func (f *full) ReadFile(_ context.Context, p vfs.Path) ([]byte, error) {
	f.count("ReadFile", p)
	return nil, nil
}

func (f *full) WriteFile(_ context.Context, p vfs.Path, _ []byte, _ vfs.WriteMode) error {
	f.count("WriteFile", p)
	return nil
}

func (f *full) CopyFile(_ context.Context, dst, _ vfs.Path, _ vfs.WriteMode) (int64, error) {
	f.count("CopyFile", dst)
	return 0, nil
}

func (f *full) CleanTemp(_ context.Context, dir vfs.Path, _ time.Time, _ bool) ([]vfs.Path, error) {
	f.count("CleanTemp", dir)
	return nil, nil
}

func (f *full) RealPath(_ context.Context, p vfs.Path) (vfs.Path, error) {
	f.count("RealPath", p)
	return p.MakeQualified(f), nil
}

func (f *full) CreateUnsynced(_ context.Context, p vfs.Path, _ vfs.WriteMode) (vfs.OutputStream, error) {
	f.count("CreateUnsynced", p)
	return f.output(), nil
}

func (f *full) SyncDir(_ context.Context, dir vfs.Path) error {
	f.count("SyncDir", dir)
	return nil
}

func (f *full) RecoverableWriter() (vfs.RecoverableWriter, error) {
	f.count("RecoverableWriter")
	return vfs.NewRecoverableWriter(f.FileSystem)
}

func (f *full) DeleteVersion(_ context.Context, p vfs.Path, _ vfs.Version) error {
	f.count("DeleteVersion", p)
	return nil
}

func (f *full) Unnameable(_ context.Context, dir vfs.Path, _ int) ([]string, error) {
	f.count("Unnameable", dir)
	return nil, nil
}

func (f *full) Close() error {
	f.count("Close")
	return nil
}

// TestOpenBeneathUnsupported: over a file system that cannot open beneath a
// directory, every layer's OpenBeneath fails with errors.ErrUnsupported and
// does nothing else (layer/record records nothing, layer/limit holds no
// slot), so the caller's Open that follows is the one open the layer sees;
// over one that can (memory://, through another layer), CanOpenBeneath says
// so and the file opens.
func TestOpenBeneathUnsupported(t *testing.T) {
	ctx := t.Context()
	for lname, wrap := range layers {
		t.Run(lname, func(t *testing.T) {
			inner := plain{memfs.New()}
			fsys := wrap(t, inner, vfs.MustPath("/"))
			require.False(t, layer.CanOpenBeneath(fsys))
			_, err := fsys.(vfs.OpenBeneathFS).OpenBeneath(ctx, vfs.MustPath("/d"), "f")
			require.ErrorIs(t, err, errors.ErrUnsupported)
			switch f := fsys.(type) {
			case *record.FS:
				assert.Empty(t, f.Calls())
			case *limit.FS:
				in, out := f.Streams()
				assert.Zero(t, in+out)
			}

			mem := memfs.New()
			require.NoError(t, vfs.WriteFile(ctx, mem, vfs.MustPath("/d/f"), []byte("x"), vfs.NoOverwrite))
			fsys = wrap(t, &empty{layer.Base{Inner: mem}}, vfs.MustPath("/"))
			require.True(t, layer.CanOpenBeneath(fsys))
			in, err := fsys.(vfs.OpenBeneathFS).OpenBeneath(ctx, vfs.MustPath("/d"), "f")
			require.NoError(t, err)
			require.NoError(t, in.Close())
		})
	}
}
