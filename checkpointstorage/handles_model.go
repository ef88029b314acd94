package checkpointstorage

import (
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// MetadataHandle returns the handle as the metadata model records it.
func (h *ByteStreamStateHandle) MetadataHandle() metadata.Handle {
	return &metadata.ByteStreamStateHandle{Name: h.Name, Data: h.Data}
}

// MetadataHandle returns the handle as the metadata model records it.
func (h *FileStateHandle) MetadataHandle() metadata.Handle {
	var p string
	if !h.FilePath.IsZero() {
		p = h.FilePath.String()
	}
	return &metadata.FileStateHandle{Path: p, Size: h.Size, Shared: h.Scope == Shared}
}

// MetadataHandle returns the handle as the metadata model records it.
func (h *RelativeFileStateHandle) MetadataHandle() metadata.Handle {
	return &metadata.RelativeFileStateHandle{RelativePath: h.RelativePath, Size: h.Size}
}

// liveHandles replaces the stream handles of a vfskit-format metadata by this
// package's handles, which open their state through registry; relative ones
// resolve against dir.
func liveHandles(m *metadata.Metadata, dir vfs.Path, registry *vfs.Registry) {
	for i := range m.Operators {
		for j := range m.Operators[i].Subtasks {
			hs := m.Operators[i].Subtasks[j].Handles
			for k, h := range hs {
				switch h := h.(type) {
				case *metadata.ByteStreamStateHandle:
					hs[k] = &ByteStreamStateHandle{Name: h.Name, Data: h.Data}
				case *metadata.FileStateHandle:
					scope := Exclusive
					if h.Shared {
						scope = Shared
					}
					// The decoder accepted only paths in vfs.Path's normal form.
					p, _ := vfs.ParsePath(h.Path) // exact, as the encoder wrote Path.String()
					hs[k] = &FileStateHandle{FilePath: p, Size: h.Size, Scope: scope, registry: registry}
				case *metadata.RelativeFileStateHandle:
					l := &RelativeFileStateHandle{FileStateHandle: FileStateHandle{Size: h.Size, registry: registry}, RelativePath: h.RelativePath}
					if !dir.IsZero() {
						l.FilePath = dir.Join(h.RelativePath)
					}
					hs[k] = l
				}
			}
		}
	}
}
