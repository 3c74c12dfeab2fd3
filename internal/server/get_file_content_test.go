package server

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// hundred is a repository whose file hundred.txt has 100 lines.
func hundred(t *testing.T) *harness {
	r := testrepo.New(t)
	r.Write("hundred.txt", numberedLines(100))
	r.Commit("hundred lines")
	return serve(t, r)
}

// The get_file_content contract (docs/contracts.md, "get_file_content"):
// every scenario, against local repositories. TestGitea runs the same
// scenarios against a real Gitea.
func TestContentsContract(t *testing.T) {
	runContentsContract(t, hundred(t))
}

func join(lines []string, from, to int) string {
	return strings.Join(lines[from-1:to], "\n")
}

// runContentsContract runs the contract's scenarios through h, whose
// repository acme/widgets has hundred.txt (100 numbered lines) on main;
// h.repo holds the same history.
func runContentsContract(t *testing.T, h *harness) {
	full := numberedLines(100)
	lines := linesOf(full)

	t.Run("Both bounds omitted returns full file", func(t *testing.T) {
		if got := h.ok("get_file_content", fileArgs("hundred.txt", "ref", "main")); got != full {
			t.Fatalf("got %q, want the whole file", got)
		}
		// Both zero counts as omitted.
		if got := h.ok("get_file_content", fileArgs("hundred.txt", "ref", "main", "start_line", 0, "end_line", 0)); got != full {
			t.Fatalf("zero bounds: got %q, want the whole file", got)
		}
	})
	t.Run("In-range slice", func(t *testing.T) {
		got := h.ok("get_file_content", fileArgs("hundred.txt", "ref", "main", "start_line", 5, "end_line", 10))
		if want := join(lines, 5, 10); got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	})
	t.Run("start_line omitted defaults to 1", func(t *testing.T) {
		got := h.ok("get_file_content", fileArgs("hundred.txt", "ref", "main", "end_line", 10))
		if want := join(lines, 1, 10); got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	})
	t.Run("end_line omitted defaults to line count", func(t *testing.T) {
		got := h.ok("get_file_content", fileArgs("hundred.txt", "ref", "main", "start_line", 50))
		if want := join(lines, 50, 100); got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	})
	t.Run("end_line beyond file extent clamps", func(t *testing.T) {
		got := h.ok("get_file_content", fileArgs("hundred.txt", "ref", "main", "start_line", 90, "end_line", 999))
		if want := join(lines, 90, 100); got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	})
	t.Run("start_line below 1 clamps", func(t *testing.T) {
		got := h.ok("get_file_content", fileArgs("hundred.txt", "ref", "main", "start_line", -5, "end_line", 3))
		if want := join(lines, 1, 3); got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	})
	t.Run("Inverted range after clamping", func(t *testing.T) {
		msg := h.fails("get_file_content", fileArgs("hundred.txt", "ref", "main", "start_line", 20, "end_line", 10), "INVALID_ARGUMENT")
		if !strings.Contains(msg, "invert") {
			t.Fatalf("message does not explain the inversion: %q", msg)
		}
		// Inverted only once clamped: start past the last line.
		msg = h.fails("get_file_content", fileArgs("hundred.txt", "ref", "main", "start_line", 150, "end_line", 200), "INVALID_ARGUMENT")
		if !strings.Contains(msg, "invert") || !strings.Contains(msg, "100 lines") {
			t.Fatalf("message does not explain the clamped inversion: %q", msg)
		}
	})
	t.Run("with_metadata=true ignores slicing", func(t *testing.T) {
		got := h.ok("get_file_content", fileArgs("hundred.txt", "ref", "main", "with_metadata", true, "start_line", 5, "end_line", 10))
		var c forge.ContentsResponse
		if err := json.Unmarshal([]byte(got), &c); err != nil {
			t.Fatalf("not a ContentsResponse: %v\n%s", err, got)
		}
		content, err := base64.StdEncoding.DecodeString(deref(c.Content))
		if err != nil || string(content) != full {
			t.Fatalf("content is not the whole file base64-encoded: %q (%v)", content, err)
		}
		if deref(c.Encoding) != "base64" || c.Size != int64(len(full)) || c.Type != "file" {
			t.Fatalf("encoding/size/type = %q/%d/%q", deref(c.Encoding), c.Size, c.Type)
		}
		if want := strings.TrimSpace(h.repo.Git("rev-parse", "main:hundred.txt")); c.SHA != want {
			t.Fatalf("sha %s, want blob %s", c.SHA, want)
		}
		if want := strings.TrimSpace(h.repo.Git("log", "-1", "--format=%H", "main", "--", "hundred.txt")); deref(c.LastCommitSHA) != want {
			t.Fatalf("last_commit_sha %s, want %s", deref(c.LastCommitSHA), want)
		}
	})
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// fixture is a repository with the awkward files the tools must handle.
func fixture(t *testing.T) *testrepo.Repo {
	r := testrepo.New(t)
	r.Write("README.md", "# widgets\n")
	r.Write("src/main.go", "package main\n\nfunc main() {}\n")
	r.Write("docs/naïve café.md", "unicode name\nwith spaces\n")
	r.Write("crlf.txt", "one\r\ntwo\r\nthree\r\n")
	r.Write("no-newline.txt", "first\nlast")
	r.Write("empty.txt", "")
	r.Write("image.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00binary")
	r.Write(".env", "SECRET=1\n")
	r.Write("config/id_rsa", "-----BEGIN PRIVATE KEY-----\n")
	r.Symlink("src/main.go", "link-to-main")
	r.Symlink("../../outside", "link-outside")
	r.Commit("fixture")
	r.Git("tag", "v1.0")
	r.Git("tag", "-a", "v1.0-annotated", "-m", "annotated")
	r.Write("README.md", "# widgets v2\n")
	r.Commit("second")
	return r
}

func TestGetFileContentAwkwardFiles(t *testing.T) {
	r := fixture(t)
	h := serve(t, r)
	for _, path := range []string{"README.md", "src/main.go", "docs/naïve café.md", "crlf.txt", "no-newline.txt", "empty.txt"} {
		for _, ref := range []string{"main", "v1.0", "v1.0-annotated", "HEAD~1", r.Head()} {
			want := r.Show(ref, path)
			if got := h.ok("get_file_content", fileArgs(path, "ref", ref)); got != want {
				t.Errorf("%s at %s: got %q, want %q", path, ref, got, want)
			}
		}
	}
	// A committed symlink reads as its link text, never its target.
	if got := h.ok("get_file_content", fileArgs("link-outside", "ref", "main")); got != "../../outside" {
		t.Errorf("symlink: got %q, want its link text", got)
	}
	// Slices keep CR bytes; the last line has no newline to add.
	if got := h.ok("get_file_content", fileArgs("crlf.txt", "start_line", 2, "end_line", 3)); got != "two\r\nthree\r" {
		t.Errorf("crlf slice: got %q", got)
	}
	if got := h.ok("get_file_content", fileArgs("no-newline.txt", "start_line", 2)); got != "last" {
		t.Errorf("no-newline slice: got %q", got)
	}
	// The default ref is the default branch.
	if got := h.ok("get_file_content", fileArgs("README.md")); got != "# widgets v2\n" {
		t.Errorf("default ref: got %q", got)
	}
}

func TestGetFileContentErrors(t *testing.T) {
	r := fixture(t)
	h := serve(t, r)
	before := r.Snapshot()
	marker := filepath.Join(t.TempDir(), "written")
	cases := []struct {
		name string
		args map[string]any
		code string
		says string
	}{
		{"directory in text mode", fileArgs("src", "ref", "main"), "INVALID_ARGUMENT", `"src" is a directory`},
		{"root in text mode", fileArgs("", "ref", "main"), "INVALID_ARGUMENT", "filePath"},
		{"binary in text mode", fileArgs("image.png"), "INVALID_ARGUMENT", "binary"},
		{"missing file", fileArgs("nope.go", "ref", "main"), "NOT_FOUND", `"nope.go"`},
		{"file at an older ref", fileArgs("README.md", "ref", "HEAD~5"), "INVALID_REF", "HEAD~5"},
		{"unknown ref", fileArgs("README.md", "ref", "no-such-branch"), "INVALID_REF", "no-such-branch"},
		{"ref option injection", fileArgs("README.md", "ref", "--output="+marker), "INVALID_REF", "starts with"},
		{"ref with newline", fileArgs("README.md", "ref", "main\nHEAD"), "INVALID_REF", "control"},
		{"traversal", fileArgs("../outside", "ref", "main"), "PATH_DENIED", ".."},
		{"absolute path", fileArgs("/etc/passwd", "ref", "main"), "PATH_DENIED", "absolute"},
		{"NUL in path", fileArgs("README.md\x00x", "ref", "main"), "INVALID_ARGUMENT", "control"},
		{"secret", fileArgs(".env", "ref", "main"), "PATH_DENIED", "secrets"},
		{"private key", fileArgs("config/id_rsa", "ref", "main"), "PATH_DENIED", "secrets"},
		{"secret via metadata", fileArgs(".env", "with_metadata", true), "PATH_DENIED", "secrets"},
		{"wrong repository", args("owner", "acme", "repo", "gadgets", "filePath", "README.md"), "NOT_FOUND", "acme/widgets"},
		{"owner missing", args("repo", "widgets", "filePath", "README.md"), "INVALID_ARGUMENT", "owner"},
		{"non-integer line", fileArgs("README.md", "start_line", 1.5), "INVALID_ARGUMENT", "start_line"},
		{"string line", fileArgs("README.md", "start_line", "five"), "INVALID_ARGUMENT", "start_line"},
		{"unknown parameter", fileArgs("README.md", "path", "x"), "INVALID_ARGUMENT", "path"},
		{"negative end alone", fileArgs("README.md", "end_line", -1), "INVALID_ARGUMENT", "invert"},
		{"range on empty file", fileArgs("empty.txt", "start_line", 1), "INVALID_ARGUMENT", "0 lines"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			msg := h.fails("get_file_content", c.args, c.code)
			if !strings.Contains(msg, c.says) {
				t.Fatalf("message %q does not say %q", msg, c.says)
			}
		})
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a ref made git write a file")
	}
	if after := r.Snapshot(); after != before {
		t.Fatalf("repository changed:\n%s\n---\n%s", before, after)
	}
}

func TestGetFileContentTooLarge(t *testing.T) {
	r := testrepo.New(t)
	big := numberedLines(2000) // ~19 KB
	r.Write("big.txt", big)
	r.Write("one-long-line.txt", strings.Repeat("x", 10000)+"\nshort\n")
	r.Commit("big")
	h := serve(t, r, withMaxBytes(8192))

	msg := h.fails("get_file_content", fileArgs("big.txt"), "TOO_LARGE")
	for _, want := range []string{"19", "2000 lines", "start_line", "read_file"} {
		if !strings.Contains(msg, want) {
			t.Errorf("TOO_LARGE message %q does not mention %q", msg, want)
		}
	}
	msg = h.fails("get_file_content", fileArgs("big.txt", "start_line", 100, "end_line", 1900), "TOO_LARGE")
	if !strings.Contains(msg, "end_line=") {
		t.Fatalf("range TOO_LARGE does not say how to continue: %q", msg)
	}
	// The suggested range fits and is exact.
	end, err := intAfter(msg, "end_line=")
	if err != nil {
		t.Fatalf("no end_line in %q: %v", msg, err)
	}
	got := h.ok("get_file_content", fileArgs("big.txt", "start_line", 100, "end_line", end))
	if want := join(linesOf(big), 100, end); got != want {
		t.Fatalf("suggested range returned %q", got)
	}
	// A line longer than a reply comes in pieces
	// (TestGetFileContentLongLineComesInPieces).
	if got := h.ok("get_file_content", fileArgs("one-long-line.txt", "start_line", 1, "end_line", 1)); !strings.HasPrefix(got, "[line 1 of one-long-line.txt, bytes 1–") {
		t.Fatalf("a long line's first piece: %.200q", got)
	}
	h.fails("get_file_content", fileArgs("big.txt", "with_metadata", true), "TOO_LARGE")
}

func TestGetFileContentMetadata(t *testing.T) {
	r := fixture(t)
	sub := testrepo.New(t)
	sub.Commit("submodule root")
	r.Git("-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.Dir, "vendor/sub")
	r.Commit("add submodule")
	h := serve(t, r, withBaseURL("https://git.example.com/"))

	var link forge.ContentsResponse
	mustJSON(t, h.ok("get_file_content", fileArgs("link-to-main", "with_metadata", true)), &link)
	if link.Type != "symlink" || deref(link.Target) != "src/main.go" || link.Content != nil || link.Size != int64(len("src/main.go")) {
		t.Errorf("symlink metadata: %+v", link)
	}

	var sm forge.ContentsResponse
	mustJSON(t, h.ok("get_file_content", fileArgs("vendor/sub", "with_metadata", true)), &sm)
	if sm.Type != "submodule" || deref(sm.SubmoduleGitURL) != sub.Dir || sm.SHA != sub.Head() || sm.HTMLURL != nil || sm.URL == nil {
		t.Errorf("submodule metadata: %+v", sm)
	}

	var bin forge.ContentsResponse
	mustJSON(t, h.ok("get_file_content", fileArgs("image.png", "with_metadata", true, "ref", "v1.0")), &bin)
	data, _ := base64.StdEncoding.DecodeString(deref(bin.Content))
	if string(data) != r.Show("v1.0", "image.png") {
		t.Errorf("binary content differs from git's")
	}
	if want := "https://git.example.com/api/v1/repos/acme/widgets/contents/image.png?ref=v1.0"; deref(bin.URL) != want {
		t.Errorf("url %s, want %s", deref(bin.URL), want)
	}
	if want := "https://git.example.com/acme/widgets/src/tag/v1.0/image.png"; deref(bin.HTMLURL) != want {
		t.Errorf("html_url %s, want %s", deref(bin.HTMLURL), want)
	}
	if want := "https://git.example.com/acme/widgets/raw/tag/v1.0/image.png"; deref(bin.DownloadURL) != want {
		t.Errorf("download_url %s, want %s", deref(bin.DownloadURL), want)
	}
	if deref(bin.Links.Self) != deref(bin.URL) || deref(bin.Links.HTML) != deref(bin.HTMLURL) || deref(bin.Links.Git) != deref(bin.GitURL) {
		t.Errorf("_links differ from the urls: %+v", bin.Links)
	}

	var uni forge.ContentsResponse
	mustJSON(t, h.ok("get_file_content", fileArgs("docs/naïve café.md", "with_metadata", true, "ref", r.Head())), &uni)
	if want := "https://git.example.com/acme/widgets/src/commit/" + r.Head() + "/docs/na%C3%AFve%20caf%C3%A9.md"; deref(uni.HTMLURL) != want {
		t.Errorf("html_url %s, want %s", deref(uni.HTMLURL), want)
	}

	// A directory lists its entries without content, secrets hidden.
	var list []forge.ContentsResponse
	mustJSON(t, h.ok("get_file_content", fileArgs("", "with_metadata", true)), &list)
	names := map[string]string{}
	for _, e := range list {
		names[e.Name] = e.Type
		if e.Content != nil {
			t.Errorf("listing entry %s has content", e.Name)
		}
		if e.LastCommitSHA == nil {
			t.Errorf("listing entry %s has no last_commit_sha", e.Name)
		}
	}
	if names["src"] != "dir" || names["README.md"] != "file" || names["link-to-main"] != "symlink" || names["vendor"] != "dir" {
		t.Errorf("listing: %v", names)
	}
	if _, ok := names[".env"]; ok {
		t.Errorf("listing shows the secret .env")
	}
	// The last commit of README.md is the second commit, not the first.
	for _, e := range list {
		if e.Name == "README.md" {
			if want := strings.TrimSpace(r.Git("log", "-1", "--format=%H", "--", "README.md")); deref(e.LastCommitSHA) != want {
				t.Errorf("README.md last_commit_sha %s, want %s", deref(e.LastCommitSHA), want)
			}
		}
	}
}

func TestGetFileContentBareRepository(t *testing.T) {
	r := fixture(t)
	bare := r.CloneBare(filepath.Join(t.TempDir(), "widgets.git"))
	h := serve(t, bare)
	if got, want := h.ok("get_file_content", fileArgs("README.md")), r.Show("main", "README.md"); got != want {
		t.Fatalf("bare: got %q, want %q", got, want)
	}
}

func mustJSON(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("decoding %s: %v", s, err)
	}
}
