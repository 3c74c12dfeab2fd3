package server

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// shareRE reads where a part is in a file it splits, from its first line.
var shareRE = regexp.MustCompile(`(?:\(|; )(\S+) (?:continues from the previous part|goes on in the next part|continues from the previous part into the next): its part (\d+)(?: of (\d+))?, bytes (\d+)–(\d+) of (\d+)(?:, old lines (\d+)–(\d+))?(?:, new lines (\d+)–(\d+))?`)

// textShare is a share as a part's first line words it.
type textShare struct {
	name                   string
	part, parts            int
	from, to, size         int64 // from and to 1-based, both included
	oldF, oldL, newF, newL int64
}

func sharesOf(t *testing.T, first string) []textShare {
	t.Helper()
	var out []textShare
	for _, m := range shareRE.FindAllStringSubmatch(first, -1) {
		n := func(i int) int64 {
			if m[i] == "" {
				return 0
			}
			v, err := strconv.ParseInt(m[i], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		out = append(out, textShare{name: m[1], part: int(n(2)), parts: int(n(3)), from: n(4), to: n(5), size: n(6), oldF: n(7), oldL: n(8), newF: n(9), newL: n(10)})
	}
	return out
}

// withoutHunkHeads drops the "@@" lines of a patch: a part re-makes them
// where it splits a hunk.
func withoutHunkHeads(s string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if !strings.HasPrefix(line, "@@") {
			b.WriteString(line)
		}
	}
	return b.String()
}

// hunkSpan is the lines the "@@" lines of a patch span, old and new.
func hunkSpan(t *testing.T, patch string) (oldF, oldL, newF, newL int64) {
	t.Helper()
	re := regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)
	add := func(first, last *int64, start, count string) {
		a, _ := strconv.ParseInt(start, 10, 64)
		n := int64(1)
		if count != "" {
			n, _ = strconv.ParseInt(count, 10, 64)
		}
		if n == 0 {
			return
		}
		if *first == 0 || a < *first {
			*first = a
		}
		*last = max(*last, a+n-1)
	}
	for _, line := range strings.Split(patch, "\n") {
		if m := re.FindStringSubmatch(line); m != nil {
			add(&oldF, &oldL, m[1], m[2])
			add(&newF, &newL, m[3], m[4])
		}
	}
	return
}

// A file whose patch is split over many parts: every part says which of
// the file's parts it is, which bytes of git's section of the file it
// holds, and the lines its hunks span, and the numbers are git's: the
// parts' bytes follow each other from the section's first to its last,
// each part holds exactly those bytes ("@@" lines a split re-makes
// aside), and the last part says how many parts there were.
func TestDiffPartsSayWhereTheyAre(t *testing.T) {
	r := testrepo.New(t)
	var old, new strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&old, "line %04d of a big file, long enough to take some room\n", i)
		if i%9 == 0 {
			fmt.Fprintf(&new, "line %04d of a big file, changed\n", i)
		} else {
			fmt.Fprintf(&new, "line %04d of a big file, long enough to take some room\n", i)
		}
	}
	r.Write("a.txt", "a\n")
	r.Write("big.txt", old.String())
	r.Write("z.txt", "z\n")
	base := r.Commit("base")
	r.Git("checkout", "-q", "-b", "feature")
	r.Write("a.txt", "a changed\n")
	r.Write("big.txt", new.String())
	r.Write("z.txt", "z changed\n")
	head := r.Commit("head")
	r.Git("update-ref", "refs/pull/1/head", head)
	r.Git("checkout", "-q", "main")
	whole := r.Git("diff", "-M", base, head)
	var section string
	for _, sec := range sections(whole) {
		if strings.HasPrefix(sec, "diff --git a/big.txt ") {
			section = sec
		}
	}

	check := func(t *testing.T, texts []string) {
		t.Helper()
		next := int64(1)
		parts := 0
		for i, text := range texts {
			first, _, _ := strings.Cut(text, "\n")
			for _, line := range strings.Split(text, "\n") {
				if strings.HasPrefix(line, "Patch against ") { // get_commit's first part
					first = line
				}
			}
			for _, sh := range sharesOf(t, first) {
				if sh.name != "big.txt" {
					t.Fatalf("part %d names %q: %s", i, sh.name, first)
				}
				parts++
				if sh.part != parts || sh.from != next || sh.size != int64(len(section)) || sh.to < sh.from {
					t.Fatalf("part %d says part %d, bytes %d–%d of %d; want part %d from byte %d of %d: %s", i, sh.part, sh.from, sh.to, sh.size, parts, next, len(section), first)
				}
				next = sh.to + 1
				if (sh.to == int64(len(section))) != (sh.parts > 0) || sh.parts > 0 && sh.parts != parts {
					t.Fatalf("part %d: bytes to %d of %d, says %d parts (it is part %d): %s", i, sh.to, len(section), sh.parts, parts, first)
				}
				// The part's share of big.txt is git's bytes from..to.
				var got string
				for _, f := range paging.FilesOf([]byte(patchOf(text))) {
					if strings.HasPrefix(string(f), "diff --git a/big.txt ") {
						got = string(f)
					}
				}
				want := section[sh.from-1 : sh.to]
				if sh.part > 1 {
					_, got, _ = strings.Cut(got, "+++ b/big.txt\n") // the repeated header lines
				}
				if i == 0 && strings.Contains(first, "Patch against ") {
					_, got, _ = strings.Cut(text, "\ndiff --git a/big.txt ")
					got = string(paging.FilesOf([]byte(patchOf("diff --git a/big.txt " + got)))[0])
				}
				if withoutHunkHeads(got) != withoutHunkHeads(want) {
					t.Fatalf("part %d holds other bytes than git's %d–%d of big.txt's section", i, sh.from, sh.to)
				}
				if oF, oL, nF, nL := hunkSpan(t, got); oF != sh.oldF || oL != sh.oldL || nF != sh.newF || nL != sh.newL {
					t.Fatalf("part %d says old lines %d–%d, new lines %d–%d; its @@ lines span %d–%d, %d–%d", i, sh.oldF, sh.oldL, sh.newF, sh.newL, oF, oL, nF, nL)
				}
			}
		}
		if parts < 5 || next != int64(len(section))+1 {
			t.Fatalf("%d parts of big.txt reach byte %d of %d", parts, next-1, len(section))
		}
	}
	h := serve(t, r, withMaxBytes(8192), withTextOnly())
	t.Run("get_diff", func(t *testing.T) {
		_, texts, _ := drainWithin(t, h, "get_diff", diffArgs("base", base, "head", head))
		check(t, texts)
	})
	t.Run("get_pull_request_diff", func(t *testing.T) {
		_, texts, _ := drainWithin(t, h, "get_pull_request_diff", prArgs(1))
		check(t, texts)
	})
	t.Run("get_pull_request_diff file_path", func(t *testing.T) {
		_, texts, _ := drainWithin(t, h, "get_pull_request_diff", prArgs(1, "file_path", "big.txt"))
		check(t, texts)
	})
	t.Run("get_commit", func(t *testing.T) {
		_, texts, _ := drainWithin(t, h, "get_commit", args("ref", head))
		check(t, texts)
	})
	t.Run("structured", func(t *testing.T) {
		hs := serve(t, r, withMaxBytes(8192))
		next, parts := int64(0), 0
		for i, part := range drainStructured(t, hs, "get_diff", diffArgs("base", base, "head", head)) {
			for _, f := range part.Files {
				if f.Path != "big.txt" || !f.Partial {
					continue
				}
				parts++
				switch {
				case f.Part == nil || *f.Part != parts, f.PatchOffset == nil || *f.PatchOffset != next,
					f.PatchSize == nil || *f.PatchSize != int64(len(section)), f.PatchBytes == nil:
					t.Fatalf("part %d: part %v offset %v size %v bytes %v; want part %d at %d of %d", i, f.Part, f.PatchOffset, f.PatchSize, f.PatchBytes, parts, next, len(section))
				}
				next += *f.PatchBytes
				if last := next == int64(len(section)); last != (f.Parts != nil) || last && *f.Parts != parts {
					t.Fatalf("part %d: parts %v at byte %d of %d", i, f.Parts, next, len(section))
				}
				oF, oL, nF, nL := hunkSpan(t, *f.Patch)
				if f.OldLines == nil || f.NewLines == nil || f.OldLines.First != oF || f.OldLines.Last != oL || f.NewLines.First != nF || f.NewLines.Last != nL {
					t.Fatalf("part %d: lines %+v %+v; its @@ lines span %d–%d, %d–%d", i, f.OldLines, f.NewLines, oF, oL, nF, nL)
				}
			}
		}
		if parts < 3 || next != int64(len(section)) {
			t.Fatalf("%d parts of big.txt reach byte %d of %d", parts, next, len(section))
		}
	})
}
