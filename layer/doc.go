// Package layer is the way to write a vfs.FileSystem that wraps another one:
// a layer, as OpenDAL and afero call them. [Base] forwards every method of
// vfs.FileSystem and of vfs's optional interfaces ([vfs.OpenBeneathFS],
// [vfs.ReadFileFS], [vfs.WriteFileFS], [vfs.CopyFS], [vfs.TempCleaner],
// [vfs.RealPathFS], [vfs.DirSyncer], [vfs.RecoverableWriterFS],
// [vfs.DeleteVersionFS], [vfs.UnnameableFS] and io.Closer) to the file
// system below, so a layer embeds it and overrides only what it changes, and a
// helper such as vfs.ReadFile still reaches the fast path of the backend under
// any number of layers. [Input] and [Output] do the
// same for streams (an Input forwards vfs.StreamStater, vfs.VersionStater and
// vfs.VersionPinner; an Output vfs.Aborter and vfs.WrittenVersioner).
//
// The layers themselves are packages below this one:
//
//   - layer/limit: Flink's LimitedConnectionsFileSystem, a maximum of open
//     streams (in total, for input, for output), configured per scheme with
//     Flink's fs.<scheme>.limit.* options;
//   - layer/readonly: every mutation fails with fs.ErrPermission;
//   - layer/sub: a subtree as a file system of its own, like io/fs.Sub;
//   - layer/otel: OpenTelemetry spans and metrics;
//   - layer/record: every call recorded (operation, paths, error) and counted,
//     for tests;
//   - layer/fault: injected errors, latency, short reads and failed closes,
//     for tests.
//
// # Writing a layer
//
// Embed Base and override methods. One rule: Base's optional methods
// (OpenBeneath, ReadFile, WriteFile, CopyFile, CleanTemp, RealPath) go
// straight to the file system below, not through the layer's own Open or
// Create, so that no optimisation (and no refusal of a symbolic link) is
// hidden. A layer that changes what Open or Create do (counts, limits,
// refuses, maps paths or rewrites them) must override the matching optional
// methods too: OpenBeneath and ReadFile with Open, WriteFile, CopyFile and CreateUnsynced
// with Create, RecoverableWriter with Create ([WrapRecoverable] puts the
// layer's hooks around the writer below, its streams and its tokens),
// CleanTemp with Delete, and its input streams' Stat
// (vfs.StreamStater, which [Input] forwards) with Stat when it changes sizes; [Streams] makes vfs's helpers go through the layer's
// own Open and Create for that. Wrap a stream with [Input] or [Output] to
// forward what the layer does not change.
//
// Base gains a method whenever vfs gains an optional interface, and a layer
// written before that inherits it without knowing. Run the conformance suite
// over your layer: its FastPaths group writes with each of the streams and
// the optional methods and reads back with the others, so a layer that
// changes the bytes in Create or Open (encryption, compression) and inherits
// a fast path that goes around the change fails there, naming the path.
package layer
