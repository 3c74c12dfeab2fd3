package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// Seed 003: with --structured, "files that don't fit have patchOmitted:
// size_limit". A part of get_diff with a small maxBytes listed only its
// own 2 files of 300, and no omitted ones; now it lists after them the
// files after it, paths and fields without a patch, as many as the reply
// has room for, and counts the rest. Drained, every file comes exactly
// once with its patch, and every part's omitted files are the ones after
// it, in git's order. The text is what it was.
func TestGetDiffListsSizeLimitFiles(t *testing.T) {
	r := testrepo.New(t)
	name := func(i int) string { return fmt.Sprintf("dir%d/file%03d.txt", i%10, i) }
	for i := range 300 {
		r.Write(name(i), fmt.Sprintf("file %d\n", i))
	}
	base := r.Commit("base")
	for i := range 300 {
		r.Write(name(i), fmt.Sprintf("file %d\n%s", i, strings.Repeat("a changed line\n", 5)))
	}
	head := r.Commit("head")
	var order []string // git's order
	for _, sec := range sections(r.Git("diff", "-M", base, head)) {
		order = append(order, sectionPaths(sec)[1])
	}
	h := serve(t, r)
	text := serve(t, r, withTextOnly())
	args := diffArgs("base", base, "head", head, "maxBytes", 600)
	withPatch := map[string]int{}
	listedSome := false
	parts := drainStructured(t, h, "get_diff", args)
	for i, part := range parts {
		var own, omitted []string
		for _, f := range part.Files {
			switch {
			case f.PatchOmitted != nil && *f.PatchOmitted == "size_limit":
				if f.Patch != nil || f.Status != "modified" {
					t.Fatalf("part %d: size_limit entry %+v", i, f)
				}
				omitted = append(omitted, f.Path)
			case len(omitted) > 0:
				t.Fatalf("part %d: %s with its patch after the size_limit entries", i, f.Path)
			default:
				own = append(own, f.Path)
				if f.Patch != nil && !f.Partial {
					withPatch[f.Path]++
				}
			}
		}
		if len(own) == 0 {
			t.Fatalf("part %d holds no file", i)
		}
		after := 0
		for j, p := range order {
			if p == own[len(own)-1] {
				after = j + 1
			}
		}
		if !part.Truncated {
			after = len(order)
		}
		want := order[after:]
		if len(omitted) > len(want) || strings.Join(omitted, " ") != strings.Join(want[:len(omitted)], " ") || part.OmittedNotListed != len(want)-len(omitted) {
			t.Fatalf("part %d (last file %s): %d size_limit files, %d not listed; want the %d after it", i, own[len(own)-1], len(omitted), part.OmittedNotListed, len(want))
		}
		listedSome = listedSome || len(omitted) > 0
	}
	if !listedSome || len(parts) < 10 {
		t.Fatalf("%d parts, none lists a size_limit file", len(parts))
	}
	for _, p := range order {
		if withPatch[p] != 1 {
			t.Fatalf("%s comes %d times with its patch", p, withPatch[p])
		}
	}
	// The listed files take the room the reply leaves, no more: every
	// part stays within the limit, the smallest too.
	drainWithin(t, h, "get_diff", args)
	drainWithin(t, serve(t, r, withMaxBytes(MinMaxBytes)), "get_diff", args)
	// The text of a part is the same with and without --structured (but
	// for the cursor, which each server signs with its own key).
	res, plain := h.call("get_diff", args), text.call("get_diff", args)
	if a, b := patchOf(textOf(res)), patchOf(textOf(plain)); a != b || strings.SplitN(textOf(res), "\n", 2)[0] != strings.SplitN(textOf(plain), "\n", 2)[0] {
		t.Fatalf("the text differs with --structured:\n%q\nwithout:\n%q", a, b)
	}
}
