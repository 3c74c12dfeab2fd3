package diff

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// A part read from a checkpoint (From, which SectionAt told an earlier
// read) is the part read from the diff's start: the same text, files and
// next position, at every room and with hidden sections; so a stream read
// part after part need not be read again up to each.
func TestPageFromCheckpointIsThePageFromTheStart(t *testing.T) {
	hide := func(h Header) bool { return strings.HasSuffix(h.NewPath, ".txt") }
	fromLater := 0
	for _, data := range readSamples(t) {
		for _, room := range []int{300, 1500, 9000} {
			for _, o := range []PageOptions{{Room: room}, {Room: room, Hide: hide, Cost: jsonCost}} {
				var from Checkpoint
				for pos := (Pos{}); ; {
					o.Start, o.From, o.SectionAt = pos, Checkpoint{}, nil
					want, err := ReadPage(bytes.NewReader(data), o)
					if err != nil {
						t.Fatal(err)
					}
					var seen []Checkpoint
					o.From, o.SectionAt = from, func(c Checkpoint) { seen = append(seen, c) }
					got, err := ReadPage(bytes.NewReader(data[from.Offset:]), o)
					if from.File > 0 {
						fromLater++
					}
					if err != nil {
						t.Fatalf("room %d at %+v from %+v: %v", room, pos, from, err)
					}
					want.Total, got.Total = nil, nil // counted from From on
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("room %d at %+v from %+v: the part differs:\n%s\nwant\n%s", room, pos, from, got.Text, want.Text)
					}
					for _, c := range seen {
						if !bytes.HasPrefix(data[c.Offset:], []byte("diff --git ")) {
							t.Fatalf("checkpoint %+v is not at a section's start", c)
						}
						if c.File <= pos.File {
							from = c
						}
					}
					if want.Next == nil {
						break
					}
					pos = *want.Next
				}
			}
		}
	}
	if fromLater < 10 {
		t.Fatalf("%d parts read from a later section: the samples test nothing", fromLater)
	}
	if _, err := ReadPage(bytes.NewReader(nil), PageOptions{Room: 10, Start: Pos{File: 1}, From: Checkpoint{File: 2}}); err == nil {
		t.Error("From past Start: no error")
	}
}
