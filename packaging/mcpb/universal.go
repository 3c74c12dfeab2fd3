package main

import (
	"bytes"
	"debug/macho"
	"encoding/binary"
	"fmt"
	"math"
	"os"
)

// fatAlign is log2 of where each architecture's binary starts in a
// universal file: 16 KiB, the page size of arm64 macOS (and a multiple of
// x86_64's 4 KiB), so every slice can be mapped as it lies.
const fatAlign = 14

// writeUniversal writes to out one macOS executable made of the thin
// Mach-O executables in (one per CPU): the layout of a "fat" file is a
// big-endian header (magic, count), one record per slice (CPU type and
// subtype, offset, size, alignment), then each slice unchanged at its
// aligned offset. macOS runs the slice of its CPU; each slice keeps its
// own code signature (Go signs darwin/arm64 binaries when linking), which
// covers only the slice's bytes.
func writeUniversal(out string, in []string) error {
	type slice struct {
		cpu    macho.Cpu
		subCpu uint32
		data   []byte
	}
	var slices []slice
	for _, path := range in {
		data, err := os.ReadFile(path) //nolint:gosec // G304: a darwin binary scripts/mcpb names
		if err != nil {
			return err
		}
		f, err := macho.NewFile(bytes.NewReader(data))
		if err != nil {
			return fmt.Errorf("%s: not a thin Mach-O file: %w", path, err)
		}
		if f.Type != macho.TypeExec {
			return fmt.Errorf("%s: Mach-O type %v, want an executable", path, f.Type)
		}
		for _, s := range slices {
			if s.cpu == f.Cpu {
				return fmt.Errorf("%s: a second binary for CPU %v", path, f.Cpu)
			}
		}
		slices = append(slices, slice{f.Cpu, f.SubCpu, data})
	}
	const headerSize, archSize = 8, 20
	var buf bytes.Buffer
	put := func(v uint32) { _ = binary.Write(&buf, binary.BigEndian, v) }
	put(macho.MagicFat)
	put(uint32(len(slices)))
	offset := alignUp(headerSize+archSize*len(slices), 1<<fatAlign)
	for _, s := range slices {
		if offset+len(s.data) > math.MaxUint32 {
			return fmt.Errorf("universal file over 4 GiB")
		}
		put(uint32(s.cpu))
		put(s.subCpu)
		put(uint32(offset))
		put(uint32(len(s.data)))
		put(fatAlign)
		offset = alignUp(offset+len(s.data), 1<<fatAlign)
	}
	for _, s := range slices {
		buf.Write(make([]byte, alignUp(buf.Len(), 1<<fatAlign)-buf.Len()))
		buf.Write(s.data)
	}
	return os.WriteFile(out, buf.Bytes(), 0o755)
}

func alignUp(n, to int) int { return (n + to - 1) / to * to }
