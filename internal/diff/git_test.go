package diff

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

func numbered(prefix string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s line %02d with some text to compare\n", prefix, i)
	}
	return b.String()
}

func binaryBlob(seed byte, n int) string {
	b := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	for i := 0; i < n; i++ {
		b = append(b, byte(i*7)^seed, 0)
	}
	return string(b)
}

// fixture builds two commits covering the cases the splitter must handle
// and returns them with the expected header of every section, keyed by
// Status and NewPath.
func fixture(t *testing.T, quotePath bool) (g *gitRepo, c1, c2 string, want map[string]Header) {
	g = newGitRepo(t, quotePath)
	const (
		uni      = "naïve.md"
		tab      = "tab\tname.txt"
		quoteBS  = "quo\"te\\back.txt"
		sp       = "with space.txt"
		bdir     = "x b/y"
		bdir2    = "dir b/sub b/f.txt"
		renOld   = "renamed dir b/old name.txt"
		renNew   = "renamed dir b/new name.txt"
		uniOld   = "ünï old.txt"
		uniNew   = "ünï new.txt"
		ctl      = "ctl\x01.txt"
		addSpace = "new file with space.txt"
	)
	src := numbered("src", 20)
	for _, name := range []string{uni, tab, quoteBS, sp, bdir, bdir2} {
		g.write(name, "one\ntwo\nthree\n", 0o644)
	}
	g.write("old-name.txt", numbered("pure", 10), 0o644)
	g.write(renOld, numbered("spaced", 10), 0o644)
	g.write(uniOld, numbered("unicode", 10), 0o644)
	g.write("rename-src.txt", src, 0o644)
	g.write("copy-src.txt", numbered("copy", 20), 0o644)
	g.write("deleted.txt", "gone\n", 0o644)
	g.write("deleted bin.dat", binaryBlob(1, 50), 0o644)
	g.write("script.sh", "#!/bin/sh\necho hi\n", 0o644)
	g.symlink(uni, "link")
	g.write("file2link", "regular\n", 0o644)
	g.write("img.png", binaryBlob(2, 300), 0o644)
	g.write("evil.txt", "a\ndiff --git a/evil b/evil\nb\nc\n", 0o644)
	g.write("crlf.txt", "one\r\ntwo\r\nthree\r\n", 0o644)
	g.write("nonl.txt", "a\nb", 0o644)
	g.write("nonl-add.txt", "x\n", 0o644)
	c1 = g.commit("first")

	for _, name := range []string{uni, tab, quoteBS, sp, bdir, bdir2} {
		g.write(name, "one\nTWO\nthree\n", 0o644)
	}
	g.remove("old-name.txt")
	g.write("new-name.txt", numbered("pure", 10), 0o644)
	g.remove(renOld)
	g.write(renNew, numbered("spaced", 10), 0o644)
	g.remove(uniOld)
	g.write(uniNew, numbered("unicode", 10), 0o644)
	g.remove("rename-src.txt")
	g.write("rename-dst.txt", strings.Replace(src, "src line 10", "SRC LINE 10", 1), 0o644)
	g.write("copy-dst.txt", strings.Replace(numbered("copy", 20), "copy line 05", "COPY LINE 05", 1), 0o644)
	g.remove("deleted.txt")
	g.remove("deleted bin.dat")
	g.write("script.sh", "#!/bin/sh\necho hi\n", 0o755)
	g.write("link", "now a file\n", 0o644)
	g.symlink("img.png", "file2link")
	g.write("img.png", binaryBlob(3, 300), 0o644)
	g.write("evil.txt", "a\ndiff --git a/evil b/evil\nB\ndiff --git a/evil b/evil\n@@ -1,2 +1,2 @@\nc\n", 0o644)
	g.write("crlf.txt", "one\r\nTWO\r\nthree\r\n", 0o644)
	g.write("nonl.txt", "a\nc", 0o644)
	g.write("nonl-add.txt", "x\ny", 0o644)
	g.write("added.txt", "hello\n", 0o644)
	g.write(addSpace, "hello\n", 0o644)
	g.write(ctl, "hello\n", 0o644)
	g.write("empty.txt", "", 0o644)
	g.write("new.bin", binaryBlob(4, 40), 0o644)
	c2 = g.commit("second\n\n    diff --git a/in-message b/in-message\n")

	mod := func(p string) Header {
		return Header{OldPath: p, NewPath: p, Status: StatusModified, OldMode: "100644", NewMode: "100644"}
	}
	add := func(p, mode string) Header {
		return Header{OldPath: p, NewPath: p, Status: StatusAdded, IsNew: true, NewMode: mode}
	}
	del := func(p, mode string) Header {
		return Header{OldPath: p, NewPath: p, Status: StatusDeleted, IsDeleted: true, OldMode: mode}
	}
	ren := func(o, n string) Header {
		return Header{OldPath: o, NewPath: n, Status: StatusRenamed, Similarity: 100}
	}
	bin := func(h Header) Header { h.IsBinary = true; return h }
	list := []Header{
		mod(uni), mod(tab), mod(quoteBS), mod(sp), mod(bdir), mod(bdir2),
		mod("evil.txt"), mod("crlf.txt"), mod("nonl.txt"), mod("nonl-add.txt"),
		bin(mod("img.png")),
		ren("old-name.txt", "new-name.txt"), ren(renOld, renNew), ren(uniOld, uniNew),
		// Similarity is checked loosely below for edited renames and copies.
		{OldPath: "rename-src.txt", NewPath: "rename-dst.txt", Status: StatusRenamed, OldMode: "100644", NewMode: "100644", Similarity: -1},
		{OldPath: "copy-src.txt", NewPath: "copy-dst.txt", Status: StatusCopied, OldMode: "100644", NewMode: "100644", Similarity: -1},
		del("deleted.txt", "100644"), bin(del("deleted bin.dat", "100644")),
		{OldPath: "script.sh", NewPath: "script.sh", Status: StatusModified, OldMode: "100644", NewMode: "100755"},
		// Git prints a type change as a deletion and an addition.
		del("link", "120000"), add("link", "100644"),
		del("file2link", "100644"), add("file2link", "120000"),
		add("added.txt", "100644"), add(addSpace, "100644"), add(ctl, "100644"), add("empty.txt", "100644"),
		bin(add("new.bin", "100644")),
	}
	want = map[string]Header{}
	for _, h := range list {
		want[h.Status+"\x00"+h.NewPath] = h
	}
	return g, c1, c2, want
}

// firstSection returns data from its first line that starts with
// "diff --git ", or nil.
func firstSection(data []byte) []byte {
	for i := 0; i < len(data); {
		if bytes.HasPrefix(data[i:], []byte(diffGitPrefix)) {
			return data[i:]
		}
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return nil
}

func splitAll(t testing.TB, s *Splitter) []*Section {
	t.Helper()
	var out []*Section
	for {
		sec, err := s.Next()
		if err == io.EOF {
			return out
		}
		var he *HeaderError
		if err != nil && !errors.As(err, &he) {
			t.Fatalf("Next: %v", err)
		}
		out = append(out, sec)
	}
}

func headersAll(t testing.TB, s *Splitter) (hs []Header, total int64) {
	t.Helper()
	for {
		h, n, err := s.NextHeader()
		if err == io.EOF {
			return hs, total
		}
		var he *HeaderError
		if err != nil && !errors.As(err, &he) {
			t.Fatalf("NextHeader: %v", err)
		}
		hs = append(hs, h)
		total += n
	}
}

func TestGitOutput(t *testing.T) {
	for _, quotePath := range []bool{true, false} {
		t.Run(fmt.Sprintf("quotePath=%v", quotePath), func(t *testing.T) {
			g, c1, c2, want := fixture(t, quotePath)
			flags := []string{"-M", "-C", "--find-copies-harder"}
			variants := []struct {
				name    string
				args    []string
				perPath bool // each section must equal "git diff -- <its paths>"
			}{
				{"diff", append([]string{"diff"}, flags...), true},
				{"diff --binary", append([]string{"diff", "--binary"}, flags...), true},
				{"show", append([]string{"show", "--format=fuller"}, flags...), false},
				{"format-patch", append([]string{"format-patch", "--stdout"}, flags...), false},
			}
			for _, v := range variants {
				t.Run(v.name, func(t *testing.T) {
					rev := []string{c1, c2}
					switch v.name {
					case "show":
						rev = []string{c2}
					case "format-patch":
						rev = []string{c1 + ".." + c2}
					}
					out := g.git(append(append([]string{}, v.args...), rev...)...)
					checkGitSplit(t, g, out, v.args, rev, v.perPath, want)
				})
			}
		})
	}
}

func checkGitSplit(t *testing.T, g *gitRepo, out []byte, args, rev []string, perPath bool, want map[string]Header) {
	tail := firstSection(out)
	if tail == nil {
		t.Fatal("no diff --git line in git output")
	}
	secs := splitAll(t, NewSplitter(bytes.NewReader(out)))
	var cat []byte
	seen := map[string]bool{}
	for _, sec := range secs {
		cat = append(cat, sec.Raw...)
		key := sec.Header.Status + "\x00" + sec.Header.NewPath
		w, ok := want[key]
		if !ok {
			t.Errorf("unexpected section %+v:\n%s", sec.Header, sec.Raw)
			continue
		}
		seen[key] = true
		got := sec.Header
		if w.Similarity < 0 {
			if got.Similarity < 50 || got.Similarity >= 100 {
				t.Errorf("%q: similarity %d, want 50..99", got.NewPath, got.Similarity)
			}
			got.Similarity = -1
		}
		if got != w {
			t.Errorf("header mismatch\n got %+v\nwant %+v\n%s", got, w, sec.Raw)
		}
	}
	for key := range want {
		if !seen[key] {
			t.Errorf("no section for %q", key)
		}
	}
	if !bytes.Equal(cat, tail) {
		t.Fatalf("concatenated sections differ from git output:\n%s\n----\n%s", cat, tail)
	}

	// NextHeader agrees, and a tiny read buffer changes nothing.
	hs, total := headersAll(t, NewSplitter(bytes.NewReader(out)))
	if total != int64(len(tail)) || len(hs) != len(secs) {
		t.Errorf("NextHeader: %d sections, %d bytes; want %d, %d", len(hs), total, len(secs), len(tail))
	}
	for i := range min(len(hs), len(secs)) {
		if hs[i] != secs[i].Header {
			t.Errorf("NextHeader %d: %+v, Next: %+v", i, hs[i], secs[i].Header)
		}
	}
	small := splitAll(t, newSplitterSize(bytes.NewReader(out), 16))
	if len(small) != len(secs) {
		t.Fatalf("16-byte buffer: %d sections, want %d", len(small), len(secs))
	}
	for i := range small {
		if !bytes.Equal(small[i].Raw, secs[i].Raw) || small[i].Header != secs[i].Header {
			t.Errorf("16-byte buffer: section %d differs", i)
		}
	}

	if !perPath {
		return
	}
	// Each section is what git prints for its paths alone. A type change is
	// two sections for one path, so compare with all sections matching.
	for _, sec := range secs {
		paths := []string{sec.Header.OldPath}
		if sec.Header.NewPath != sec.Header.OldPath {
			paths = append(paths, sec.Header.NewPath)
		}
		var wantRaw []byte
		for _, other := range secs {
			for _, p := range paths {
				if other.Header.Matches(p) {
					wantRaw = append(wantRaw, other.Raw...)
					break
				}
			}
		}
		cmd := append(append(append([]string{}, args...), rev...), "--")
		got := g.git(append(cmd, paths...)...)
		if !bytes.Equal(got, wantRaw) {
			t.Errorf("git diff -- %q:\n%s\nsections:\n%s", paths, got, wantRaw)
		}
	}
}
