package diff

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// sectionOfHunks is a modified file's section with hunks of n changed
// lines each, every changed line 40 bytes.
func sectionOfHunks(name string, hunks ...int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\nindex 1111111..2222222 100644\n--- a/%s\n+++ b/%s\n", name, name, name, name)
	line := 1
	for _, n := range hunks {
		fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", line, n, line, n)
		for i := range n {
			fmt.Fprintf(&b, "-old line %05d of the file, changed....\n", line+i)
		}
		for i := range n {
			fmt.Fprintf(&b, "+new line %05d of the file, changed....\n", line+i)
		}
		line += n + 100
	}
	return b.String()
}

// TestPartIsNotLeftEmptyForASection: a section moves whole to the next
// part only when the part is nearly full without it. Here the first
// section fills 80% of the room and the second, which would fit a part of
// its own, fills it past wholeFill before its third hunk does not fit: the
// part is filled with the second section's first hunks (split) rather than
// ended at 80% before it.
func TestPartIsNotLeftEmptyForASection(t *testing.T) {
	const room = 10_000
	first := sectionOfHunks("a.txt", 99)          // ~8,000 bytes
	second := sectionOfHunks("b.txt", 10, 10, 30) // ~4,000 bytes
	data := []byte(first + second)
	pg, err := ReadPage(bytes.NewReader(data), PageOptions{Room: room})
	if err != nil {
		t.Fatal(err)
	}
	if len(first)*100 >= room*wholeFill || len(second) > room {
		t.Fatalf("fixture: first section %d bytes, second %d, room %d", len(first), len(second), room)
	}
	if len(pg.Files) != 2 || pg.Next == nil || pg.Next.File != 1 || pg.Next.Line == 0 {
		t.Fatalf("the part ends at %+v with %d files, %d bytes of %d: want it to split b.txt after its first hunks", pg.Next, len(pg.Files), len(pg.Text), room)
	}
	if len(pg.Text)*100 < room*wholeFill {
		t.Errorf("the part holds %d bytes of %d", len(pg.Text), room)
	}
	parts, _ := drain(t, data, PageOptions{Room: room})
	if !bytes.Equal(mustJoin(t, parts), data) {
		t.Error("the parts joined are not the diff")
	}
}
