package diff

import (
	"strings"
	"testing"
)

func TestParseHeader(t *testing.T) {
	tests := []struct {
		name    string
		header  string
		want    Header
		wantErr bool
	}{
		{
			name:   "gitea unquoted UTF-8 with spaces and TAB-terminated file lines",
			header: "diff --git a/docs/naïve file.md b/docs/naïve file.md\nindex 1111111..2222222 100644\n--- a/docs/naïve file.md\t\n+++ b/docs/naïve file.md\t\n",
			want:   Header{OldPath: "docs/naïve file.md", NewPath: "docs/naïve file.md", Status: StatusModified, OldMode: "100644", NewMode: "100644"},
		},
		{
			name:   "gitea unquoted UTF-8 added file",
			header: "diff --git a/日本語 ファイル.txt b/日本語 ファイル.txt\nnew file mode 100644\nindex 0000000..2222222\n--- /dev/null\n+++ b/日本語 ファイル.txt\t\n",
			want:   Header{OldPath: "日本語 ファイル.txt", NewPath: "日本語 ファイル.txt", Status: StatusAdded, IsNew: true, NewMode: "100644"},
		},
		{
			name:   "gitea unquoted UTF-8 rename with spaces",
			header: "diff --git a/ö b/ä.txt b/ü b/ä.txt\nsimilarity index 88%\nrename from ö b/ä.txt\nrename to ü b/ä.txt\n",
			want:   Header{OldPath: "ö b/ä.txt", NewPath: "ü b/ä.txt", Status: StatusRenamed, Similarity: 88},
		},
		{
			name:   "CRLF header lines",
			header: "diff --git a/x.txt b/x.txt\r\nindex 1111111..2222222 100644\r\n--- a/x.txt\r\n+++ b/x.txt\r\n",
			want:   Header{OldPath: "x.txt", NewPath: "x.txt", Status: StatusModified, OldMode: "100644", NewMode: "100644"},
		},
		{
			name:   "lines without terminators",
			header: "diff --git a/x b/x\nold mode 100644\nnew mode 100755",
			want:   Header{OldPath: "x", NewPath: "x", Status: StatusModified, OldMode: "100644", NewMode: "100755"},
		},
		{
			name:   "type change from old mode/new mode",
			header: "diff --git a/l b/l\nold mode 100644\nnew mode 120000\nindex 1111111..2222222\n",
			want:   Header{OldPath: "l", NewPath: "l", Status: StatusTypeChanged, OldMode: "100644", NewMode: "120000"},
		},
		{
			name:   "quoted old name, unquoted new name",
			header: "diff --git \"a/t\\tb\" b/plain\nsimilarity index 100%\nrename from \"t\\tb\"\nrename to plain\n",
			want:   Header{OldPath: "t\tb", NewPath: "plain", Status: StatusRenamed, Similarity: 100},
		},
		{
			name:   "unquoted old name, quoted new name, no rename lines",
			header: "diff --git a/plain \"b/t\\tb\"\n",
			want:   Header{OldPath: "plain", NewPath: "t\tb", Status: StatusModified},
		},
		{
			name:   "all escapes",
			header: "diff --git \"a/\\a\\b\\f\\n\\r\\t\\v\\\\\\\"\\303\\251\" \"b/\\a\\b\\f\\n\\r\\t\\v\\\\\\\"\\303\\251\"\n",
			want:   Header{OldPath: "\a\b\f\n\r\t\v\\\"é", NewPath: "\a\b\f\n\r\t\v\\\"é", Status: StatusModified},
		},
		{
			name:   "copy",
			header: "diff --git a/a b/b\nsimilarity index 90%\ncopy from a\ncopy to b\nindex 1111111..2222222 100644\n--- a/a\n+++ b/b\n",
			want:   Header{OldPath: "a", NewPath: "b", Status: StatusCopied, Similarity: 90, OldMode: "100644", NewMode: "100644"},
		},
		{
			name:   "binary added from Binary files line",
			header: "diff --git a/img b/x.png b/img b/x.png\nnew file mode 100644\nindex 0000000..2222222\nBinary files /dev/null and b/img b/x.png differ\n",
			want:   Header{OldPath: "img b/x.png", NewPath: "img b/x.png", Status: StatusAdded, IsNew: true, NewMode: "100644", IsBinary: true},
		},
		{
			name:   "GIT binary patch",
			header: "diff --git a/x.bin b/x.bin\ndeleted file mode 100755\nindex 2222222..0000000\nGIT binary patch\n",
			want:   Header{OldPath: "x.bin", NewPath: "x.bin", Status: StatusDeleted, IsDeleted: true, OldMode: "100755", IsBinary: true},
		},
		{
			// The diff --git line is ambiguous (names differ and contain
			// " b/" twice); the ---/+++ lines decide.
			name:   "ambiguous git line resolved by file lines with GNU timestamps",
			header: "diff --git a/p b/q b/r b/s\n--- a/p b/q\t2024-01-01 00:00:00.000000000 +0000\n+++ b/r b/s\t2024-01-01 00:00:00.000000000 +0000\n",
			want:   Header{OldPath: "p b/q", NewPath: "r b/s", Status: StatusModified},
		},
		{
			name:   "deleted, names from --- with quoted name and trailing tab",
			header: "diff --git a/x y b/z \"b/x y b/z\"\ndeleted file mode 100644\n--- \"a/x y b/z\"\t\n+++ /dev/null\n",
			want:   Header{OldPath: "x y b/z", NewPath: "x y b/z", Status: StatusDeleted, IsDeleted: true, OldMode: "100644"},
		},
		{
			name:   "unique b/ separator as last resort",
			header: "diff --git a/one b/two\n",
			want:   Header{OldPath: "one", NewPath: "two", Status: StatusModified},
		},
		{
			name:    "no names",
			header:  "diff --git a/x y/z c/w\n",
			want:    Header{Status: StatusModified},
			wantErr: true,
		},
		{
			name:    "not a diff --git line",
			header:  "diff --cc x\n",
			wantErr: true,
		},
		{
			name:    "empty names",
			header:  "diff --git a/ b/\n",
			want:    Header{Status: StatusModified},
			wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseHeader(strings.SplitAfter(tt.header, "\n"))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseHeaderEmpty(t *testing.T) {
	if _, err := ParseHeader(nil); err == nil {
		t.Error("want error for no lines")
	}
}

func TestMatches(t *testing.T) {
	h := Header{OldPath: "old name", NewPath: "new name"}
	for path, want := range map[string]bool{"old name": true, "new name": true, "old": false, "": false, "new name/": false} {
		if got := h.Matches(path); got != want {
			t.Errorf("Matches(%q) = %v, want %v", path, got, want)
		}
	}
	if (Header{}).Matches("") {
		t.Error("an unparsed header must not match the empty path")
	}
}

func TestUnquoteC(t *testing.T) {
	tests := []struct {
		in   string
		want string
		n    int
		ok   bool
	}{
		{`"a/na\303\257ve.md" rest`, "a/naïve.md", 19, true},
		{`"\a\b\f\n\r\t\v\\\""`, "\a\b\f\n\r\t\v\\\"", 20, true},
		{`"\000\377"`, "\x00\xff", 10, true},
		{`""`, "", 2, true},
		{`"unterminated`, "", 0, false},
		{`"bad \q escape"`, "", 0, false},
		{`"\4xx"`, "", 0, false},
		{`"\12"`, "", 0, false},
		{`"\`, "", 0, false},
		{`no quote`, "", 0, false},
		{``, "", 0, false},
	}
	for _, tt := range tests {
		got, n, err := UnquoteC(tt.in)
		if (err == nil) != tt.ok || got != tt.want || n != tt.n {
			t.Errorf("UnquoteC(%q) = %q, %d, %v; want %q, %d, ok=%v", tt.in, got, n, err, tt.want, tt.n, tt.ok)
		}
	}
}

func TestFileLineName(t *testing.T) {
	tests := []struct {
		in, prefix string
		path       string
		null, ok   bool
	}{
		{"a/with space.txt\t", "a/", "with space.txt", false, true},
		{"b/x\t2002-02-21 23:30:39.942229878 -0800", "b/", "x", false, true},
		{"b/plain", "b/", "plain", false, true},
		{"\"b/t\\tb\"", "b/", "t\tb", false, true},
		{"\"b/q\"\t", "b/", "q", false, true},
		{"/dev/null", "a/", "", true, true},
		{"/dev/null\t1970-01-01 00:00:00 +0000", "b/", "", true, true},
		{"c/x", "a/", "", false, false},
	}
	for _, tt := range tests {
		path, null, ok := fileLineName(tt.in, tt.prefix)
		if path != tt.path || null != tt.null || ok != tt.ok {
			t.Errorf("fileLineName(%q) = %q, %v, %v; want %q, %v, %v", tt.in, path, null, ok, tt.path, tt.null, tt.ok)
		}
	}
}
