package diff

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

var validStatus = map[string]bool{
	StatusAdded: true, StatusModified: true, StatusDeleted: true,
	StatusRenamed: true, StatusCopied: true, StatusTypeChanged: true,
}

func FuzzParseHeader(f *testing.F) {
	for _, data := range readSamples(f) {
		for _, sec := range refSplit(data) {
			f.Add(string(headerOf(sec)))
		}
	}
	f.Add("diff --git a/ö b/ä.txt b/ü b/ä.txt\nrename from ö b/ä.txt\nrename to ü b/ä.txt\n")
	f.Add("diff --git a/p b/q b/r b/s\n--- a/p b/q\t2024-01-01\n+++ b/r b/s\t\n")
	f.Add("diff --git \"a/\\303\" b/x\nBinary files \"a/\\303\" and /dev/null differ\n")
	f.Fuzz(func(t *testing.T, header string) {
		h, err := ParseHeader(strings.SplitAfter(header, "\n"))
		if err != nil {
			return
		}
		if h.OldPath == "" || h.NewPath == "" || !h.Matches(h.OldPath) || !h.Matches(h.NewPath) {
			t.Fatalf("parsed without names: %+v", h)
		}
		if !validStatus[h.Status] {
			t.Fatalf("bad status %q", h.Status)
		}
		if (h.Status == StatusAdded || h.Status == StatusDeleted) && h.OldPath != h.NewPath {
			t.Fatalf("%s with two names: %+v", h.Status, h)
		}
	})
}

// headerOf returns the header lines of a section as the splitter passes them.
func headerOf(sec []byte) []byte {
	t := tracker{st: inHeader}
	n := bytes.IndexByte(sec, '\n') + 1
	if n == 0 {
		return sec
	}
	for rest := sec[n:]; len(rest) > 0; {
		l := len(rest)
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			l = i + 1
		}
		if t.classify(rest[:l]) != classHeader {
			break
		}
		n += l
		rest = rest[l:]
	}
	return sec[:n]
}

// FuzzPathRoundTrip checks that any path survives git's header forms, both
// quoted (git) and, where possible, unquoted raw bytes (Gitea/Forgejo).
func FuzzPathRoundTrip(f *testing.F) {
	for _, p := range []string{"naïve.md", "x b/y", "with space.txt", "tab\tname", `quo"te\`, "a b/c b/d", " lead", "trail ", "\"q"} {
		f.Add(p, p+"2", uint8(0))
	}
	f.Fuzz(func(t *testing.T, oldPath, newPath string, kind uint8) {
		if oldPath == "" || newPath == "" || strings.ContainsAny(oldPath+newPath, "\n\x00") {
			return // git paths never hold NUL; git always quotes LF, and so must any producer
		}
		for _, quote := range []bool{true, false} {
			if !quote && (strings.ContainsAny(oldPath+newPath, "\t\r\"") || !utf8.ValidString(oldPath+newPath)) {
				continue // an unquoted name is only unambiguous without these
			}
			q := func(prefix, p string) string {
				if quote {
					return quoteC(prefix + p)
				}
				return prefix + p
			}
			var hdr string
			want := Header{OldPath: oldPath, NewPath: newPath}
			switch kind % 3 {
			case 0: // modification: one name
				want.NewPath, want.Status = oldPath, StatusModified
				hdr = "diff --git " + q("a/", oldPath) + " " + q("b/", oldPath) + "\n--- " + q("a/", oldPath) + "\t\n+++ " + q("b/", oldPath) + "\t\n"
			case 1: // rename
				want.Status, want.Similarity = StatusRenamed, 50
				hdr = "diff --git " + q("a/", oldPath) + " " + q("b/", newPath) + "\nsimilarity index 50%\nrename from " + q("", oldPath) + "\nrename to " + q("", newPath) + "\n"
			case 2: // addition
				want.OldPath, want.Status, want.IsNew, want.NewMode = newPath, StatusAdded, true, "100644"
				hdr = "diff --git " + q("a/", newPath) + " " + q("b/", newPath) + "\nnew file mode 100644\n--- /dev/null\n+++ " + q("b/", newPath) + "\t\n"
			}
			got, err := ParseHeader(strings.SplitAfter(hdr, "\n"))
			if err != nil || got != want {
				t.Fatalf("quote=%v %q:\n got %+v, %v\nwant %+v", quote, hdr, got, err, want)
			}
		}
	})
}

// quoteC quotes a path as git does with core.quotePath=true.
func quoteC(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\a', '\b', '\f', '\n', '\r', '\t', '\v':
			b.WriteByte('\\')
			b.WriteByte("abtnvfr"[strings.IndexByte("\a\b\t\n\v\f\r", c)])
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			if c < 0x20 || c >= 0x7f {
				b.WriteByte('\\')
				b.WriteByte('0' + c>>6)
				b.WriteByte('0' + c>>3&7)
				b.WriteByte('0' + c&7)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

func FuzzSplitter(f *testing.F) {
	for _, data := range readSamples(f) {
		f.Add(data)
	}
	f.Add([]byte("pre\ndiff --git a/x b/x\n@@ -1,9 +1 @@\n-a\ndiff --git a/y b/y\r\n+b\n\\ x\ndiff --git "))
	f.Add([]byte("diff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b\n-c\n+diff --git a/z b/z\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ref := refSplit(data)
		want := firstSection(data)

		var secs []*Section
		var cat []byte
		for _, size := range []int{16, readBufSize} {
			got := splitAll(t, newSplitterSize(bytes.NewReader(data), size))
			if len(got) != len(ref) {
				t.Fatalf("buffer %d: %d sections, reference %d", size, len(got), len(ref))
			}
			if secs == nil {
				secs = got
			}
			for i, sec := range got {
				if !bytes.HasPrefix(sec.Raw, []byte(diffGitPrefix)) {
					t.Fatalf("section does not start with diff --git: %q", sec.Raw)
				}
				if !bytes.Equal(sec.Raw, ref[i]) || sec.Header != secs[i].Header {
					t.Fatalf("buffer %d: section %d differs:\n%q\nreference:\n%q", size, i, sec.Raw, ref[i])
				}
			}
		}
		for _, sec := range secs {
			cat = append(cat, sec.Raw...)
			// A section split again is itself.
			again := splitAll(t, NewSplitter(bytes.NewReader(sec.Raw)))
			if len(again) != 1 || !bytes.Equal(again[0].Raw, sec.Raw) {
				t.Fatalf("re-splitting a section gave %d sections", len(again))
			}
		}
		if !bytes.Equal(cat, want) {
			t.Fatalf("concatenation differs from input after the preamble")
		}

		s := NewSplitter(bytes.NewReader(data))
		var total int64
		for i := 0; ; i++ {
			h, n, err := s.NextHeader()
			if err == io.EOF {
				if i != len(secs) {
					t.Fatalf("NextHeader: %d sections, Next: %d", i, len(secs))
				}
				break
			}
			var he *HeaderError
			if err != nil && !errors.As(err, &he) {
				t.Fatal(err)
			}
			if i >= len(secs) || h != secs[i].Header || n != int64(len(secs[i].Raw)) {
				t.Fatalf("NextHeader %d: %+v, %d", i, h, n)
			}
			total += n
		}
		if total != int64(len(want)) {
			t.Fatalf("sizes sum to %d, want %d", total, len(want))
		}
	})
}
