//go:build unix

package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostileCase is one input an attacker (or a confused agent) might send.
type hostileCase struct {
	name string
	tool string
	args any    // map[string]any, or json.RawMessage to put exact bytes on the wire
	code string // the stable code the error must start with; "" means the call must succeed
	// protocolOK: a protocol error (the SDK refusing the request) is an
	// acceptable answer too. Only for bytes that are not valid JSON text.
	protocolOK bool
	// check, when set, looks further at a successful result.
	check func(t *testing.T, res *mcp.CallToolResult)
	// shortDeadline runs the case on a second server whose per-call
	// deadline is 500 ms instead of 30 s: for inputs that make git itself
	// burn memory and time, so that the test stays cheap (and the machine
	// alive) until they are refused. The case also checks that git was
	// stopped.
	shortDeadline bool
}

// hostileWatch is what must not change while hostile calls run.
type hostileWatch struct {
	dirs    []string // trees listed with sizes and mtimes (symlinks not followed)
	markers []string // files an injected option would create
}

// listing records every entry under the watched trees: path, mode, size and
// modification time. Directory mtimes catch files created and removed again.
func (w *hostileWatch) listing(t *testing.T) string {
	t.Helper()
	var lines []string
	for _, root := range w.dirs {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "searches" && strings.HasPrefix(filepath.Base(filepath.Dir(p)), "mcp-repo-tools-git-") {
				// A work-tree search's private copies are made and
				// removed there: what is left would show as lines.
				lines = append(lines, fmt.Sprintf("%s %v", p, fi.Mode()))
				return nil
			}
			lines = append(lines, fmt.Sprintf("%s %v %d %d", p, fi.Mode(), fi.Size(), fi.ModTime().UnixNano()))
			return nil
		})
		if err != nil {
			t.Fatalf("listing %s: %v", root, err)
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func (w *hostileWatch) noMarkers(t *testing.T) {
	t.Helper()
	for _, m := range w.markers {
		if _, err := os.Lstat(m); err == nil {
			t.Errorf("an injected option created %s", m)
		}
	}
}

// hostileCall calls a tool without failing on a protocol error, so a case
// can decide whether one is acceptable; it also measures the call.
func hostileCall(h *harness, tool string, arguments any) (*mcp.CallToolResult, time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	res, err := h.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: arguments})
	d := time.Since(start)
	if err == nil {
		h.checkOutput(tool, arguments, res)
	}
	return res, d, err
}

// hostileMaxCall is how long one call may take: hostile input must be
// refused quickly, not worked on.
const hostileMaxCall = 5 * time.Second

func TestHostileInputs(t *testing.T) {
	secretBytes := make([]byte, 16)
	rand.Read(secretBytes)
	secret := "CANARY-" + hex.EncodeToString(secretBytes)

	// The private git home the server creates (os.MkdirTemp) is git's
	// working directory: a relative --output=x would land there. TMPDIR
	// points at gitHomes (below) while the servers start, so that it lands
	// where the test watches. (This test's TempDir root exists by then.)
	gitHomes := t.TempDir()

	r := newPRRepo(t)
	parent := filepath.Dir(r.Dir) // the temporary directory holding the repository
	outside := t.TempDir()        // another directory, outside the repository
	mustWrite := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Canaries: outside the repository, next to it, and inside .git.
	parentCanary := filepath.Join(parent, "canary.txt")
	outsideCanary := filepath.Join(outside, "canary.txt")
	mustWrite(parentCanary, secret+" parent\n")
	mustWrite(outsideCanary, secret+" outside\n")
	mustWrite(filepath.Join(outside, "dir", "canary.txt"), secret+" outside dir\n")
	mustWrite(filepath.Join(r.Dir, ".git", "canary"), secret+" in .git\n")

	// Symlinks leading out of the work tree, committed (the index and the
	// commit hold them as links) ...
	r.Symlink(outsideCanary, "escape")
	r.Symlink("../canary.txt", "escape-rel")
	r.Symlink(filepath.Join(outside, "dir"), "escapedir")
	r.Symlink(".git/canary", "gitlink")
	// ... and regular files committed, then swapped in the work tree for a
	// symlink (a file) and a symlinked directory: git itself (grep on the
	// work tree) opens these through the link.
	r.Write("sub/canary.txt", "harmless\n")
	r.Write("looks-fine.txt", "harmless\n")
	r.Commit("links")
	if err := os.RemoveAll(filepath.Join(r.Dir, "sub")); err != nil {
		t.Fatal(err)
	}
	r.Symlink(filepath.Join(outside, "dir"), "sub")
	if err := os.Remove(filepath.Join(r.Dir, "looks-fine.txt")); err != nil {
		t.Fatal(err)
	}
	r.Symlink(outsideCanary, "looks-fine.txt")

	// Work-tree traps that are not committed: a FIFO (an open would block),
	// links to it and to a device, a symlink loop, and a link that leaves
	// the work tree and comes back in (legitimate).
	if err := syscall.Mkfifo(filepath.Join(r.Dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.Symlink("fifo", "fifo-link")
	r.Symlink("/dev/zero", "zero")
	// Denials that tell nothing (issue 10): a link to a missing outside
	// file, and a hard link to an outside file.
	r.Symlink(filepath.Join(outside, "missing.txt"), "escape-missing")
	if err := os.Link(outsideCanary, filepath.Join(r.Dir, "hardlink.txt")); err != nil {
		t.Fatal(err)
	}
	r.Symlink("loop", "loop")
	r.Symlink(filepath.Join("..", filepath.Base(r.Dir), "cmd", "main.go"), "out-and-in")
	r.Symlink(filepath.Join(r.Dir, "cmd", "main.go"), "abs-in")

	t.Setenv("TMPDIR", gitHomes)
	h := serve(t, r.Repo) // default options
	hShort := serve(t, r.Repo, withTimeout(500*time.Millisecond))
	if homes, _ := filepath.Glob(filepath.Join(gitHomes, "mcp-repo-tools-git-*")); len(homes) != 2 {
		t.Fatalf("the servers' git homes are not under the watched %s: %v", gitHomes, homes)
	}
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	pwned := func(name string) string { return filepath.Join(parent, "pwned-"+name) }
	watch := &hostileWatch{
		dirs: []string{parent, outside, gitHomes},
		markers: []string{
			pwned("ref"), pwned("pager"), pwned("exec"), pwned("head"), pwned("path"),
			pwned("paths"), pwned("query"), pwned("glob"), pwned("upload"), pwned("file_path"),
			filepath.Join(cwd, "pwned"), filepath.Join(cwd, "x"),
		},
	}
	for _, m := range watch.markers {
		if _, err := os.Lstat(m); err == nil {
			t.Fatalf("%s exists before the test", m)
		}
	}

	a := func(kv ...any) map[string]any { return args(kv...) }
	gfc := func(path string, kv ...any) map[string]any { return fileArgs(path, kv...) }
	pr := func(index any, kv ...any) map[string]any {
		m := args(kv...)
		m["owner"], m["repo"], m["index"] = "acme", "widgets", index
		return m
	}
	q := func(query string, kv ...any) map[string]any { return searchArgs(query, kv...) }
	many := func(n int, f func(i int) string) []string {
		s := make([]string, n)
		for i := range s {
			s[i] = f(i)
		}
		return s
	}
	mb := strings.Repeat("a/", 512<<10)           // a 1 MiB path
	mbRef := strings.Repeat("main", 256<<10)      // a 1 MiB ref
	kb100 := strings.Repeat("needle ", 100<<10/7) // a 100 KB query
	// A search for the secret must not echo it: ask for all of it but its
	// last characters; a match would show the whole line.
	needle := secret[:len(secret)-4]
	// noMatches checks a search that must find nothing.
	noMatches := func(t *testing.T, res *mcp.CallToolResult) {
		t.Helper()
		var out searchCodeOut
		hostileDecode(t, res, &out)
		if len(out.Matches) != 0 {
			t.Errorf("want no matches, got %+v", out.Matches)
		}
	}
	noFiles := func(t *testing.T, res *mcp.CallToolResult) {
		t.Helper()
		var out struct {
			Files []json.RawMessage `json:"files"`
		}
		hostileDecode(t, res, &out)
		if len(out.Files) != 0 {
			t.Errorf("want no files, got %d", len(out.Files))
		}
	}
	// envDenied checks that .env is listed without its patch.
	// envHiddenInText: a whole diff leaves .env's section out and says so.
	envHiddenInText := func(t *testing.T, res *mcp.CallToolResult) {
		t.Helper()
		text := textOf(res)
		if strings.Contains(text, "diff --git a/.env") || !strings.Contains(text, "[hidden by the server's secrets policy: .env]") {
			t.Errorf(".env is not hidden, or not said to be:\n%s", text)
		}
	}
	envDenied := func(t *testing.T, res *mcp.CallToolResult) {
		t.Helper()
		var out getDiffOut
		hostileDecode(t, res, &out)
		for _, f := range out.Files {
			if f.Path == ".env" && (f.Patch != nil || f.PatchOmitted == nil || *f.PatchOmitted != "denied") {
				t.Errorf(".env: %+v", f)
			}
		}
		if len(out.Files) != 2 {
			t.Errorf("want .env and ok.txt, got %+v", out.Files)
		}
	}
	mainGo := func(t *testing.T, res *mcp.CallToolResult) {
		t.Helper()
		var out readFileOut
		hostileDecode(t, res, &out)
		if !strings.HasPrefix(out.Content, "package main") {
			t.Errorf("want cmd/main.go, got %+v", out)
		}
	}
	// linkText checks that a committed symlink read at a ref is its link
	// text, never its target.
	linkText := func(t *testing.T, res *mcp.CallToolResult) {
		t.Helper()
		if got := textOf(res); got != outsideCanary {
			t.Errorf("committed symlink at a ref: got %q, want its link text %q", got, outsideCanary)
		}
	}

	cases := []hostileCase{
		// --- Traversal: paths, symlinks, .git, owner/repo.
		{name: "read_file ../ to the parent canary", tool: "read_file", args: a("path", "../canary.txt"), code: "PATH_DENIED"},
		{name: "read_file ../../etc/passwd", tool: "read_file", args: a("path", "../../etc/passwd"), code: "PATH_DENIED"},
		{name: "read_file absolute /etc/passwd", tool: "read_file", args: a("path", "/etc/passwd"), code: "PATH_DENIED"},
		{name: "read_file absolute canary path", tool: "read_file", args: a("path", parentCanary), code: "PATH_DENIED"},
		{name: "read_file a/../../x", tool: "read_file", args: a("path", "cmd/../../canary.txt"), code: "PATH_DENIED"},
		{name: "read_file ./../ at a ref", tool: "read_file", args: a("path", "./../canary.txt", "ref", "main"), code: "PATH_DENIED"},
		// %2e%2e is not decoded: it is a literal (missing) name.
		{name: "read_file URL-encoded %2e%2e/", tool: "read_file", args: a("path", "%2e%2e/canary.txt"), code: "NOT_FOUND"},
		// On Linux a backslash is part of a name: "..\canary.txt" is one segment.
		{name: "read_file backslash ..\\", tool: "read_file", args: a("path", `..\canary.txt`), code: "NOT_FOUND"},
		{name: "read_file .git/config", tool: "read_file", args: a("path", ".git/config"), code: "PATH_DENIED"},
		{name: "read_file .git/canary", tool: "read_file", args: a("path", ".git/canary"), code: "PATH_DENIED"},
		{name: "read_file .GIT/canary other case", tool: "read_file", args: a("path", ".GIT/canary"), code: "PATH_DENIED"},
		{name: "read_file ./.git//canary", tool: "read_file", args: a("path", "./.git//canary"), code: "PATH_DENIED"},
		{name: "read_file .git/canary at a ref", tool: "read_file", args: a("path", ".git/canary", "ref", "main"), code: "PATH_DENIED"},
		{name: "read_file symlink to an absolute outside file", tool: "read_file", args: a("path", "escape"), code: "PATH_DENIED"},
		{name: "read_file relative symlink to the parent", tool: "read_file", args: a("path", "escape-rel"), code: "PATH_DENIED"},
		{name: "read_file through a symlinked directory", tool: "read_file", args: a("path", "escapedir/canary.txt"), code: "PATH_DENIED"},
		{name: "read_file the symlinked directory itself", tool: "read_file", args: a("path", "escapedir"), code: "PATH_DENIED"},
		{name: "read_file symlink to a missing outside file", tool: "read_file", args: a("path", "escape-missing"), code: "PATH_DENIED"},
		{name: "read_file a missing file through a symlinked directory", tool: "read_file", args: a("path", "escapedir/missing.txt"), code: "PATH_DENIED"},
		{name: "read_file hard link to an outside file", tool: "read_file", args: a("path", "hardlink.txt"), code: "PATH_DENIED"},
		{name: "read_file tracked file under a dir swapped for a symlink", tool: "read_file", args: a("path", "sub/canary.txt"), code: "PATH_DENIED"},
		{name: "read_file tracked file swapped for a symlink", tool: "read_file", args: a("path", "looks-fine.txt"), code: "PATH_DENIED"},
		{name: "read_file symlink into .git", tool: "read_file", args: a("path", "gitlink"), code: "PATH_DENIED"},
		{name: "read_file a FIFO", tool: "read_file", args: a("path", "fifo"), code: "INVALID_ARGUMENT"},
		{name: "read_file a symlink to a FIFO", tool: "read_file", args: a("path", "fifo-link"), code: "INVALID_ARGUMENT"},
		{name: "read_file a symlink to /dev/zero", tool: "read_file", args: a("path", "zero"), code: "PATH_DENIED"},
		{name: "read_file a symlink loop", tool: "read_file", args: a("path", "loop"), code: "PATH_DENIED"},
		// README: work-tree reads follow symlinks whose real path stays
		// inside the work tree. These two do (they are not escapes).
		{name: "read_file a symlink out and back in", tool: "read_file", args: a("path", "out-and-in"), check: mainGo},
		{name: "read_file an absolute symlink to a file inside", tool: "read_file", args: a("path", "abs-in"), check: mainGo},
		{name: "read_file path . is the root", tool: "read_file", args: a("path", "."), code: "INVALID_ARGUMENT"},
		{name: "read_file path / is the root", tool: "read_file", args: a("path", "/"), code: "INVALID_ARGUMENT"},
		{name: "read_file beyond a committed symlink at a ref", tool: "read_file", args: a("path", "escapedir/canary.txt", "ref", "main"), code: "NOT_FOUND"},
		{name: "read_file committed symlink at a ref is link text", tool: "read_file", args: a("path", "escape", "ref", "main"), check: func(t *testing.T, res *mcp.CallToolResult) {
			var out readFileOut
			hostileDecode(t, res, &out)
			if out.Content != outsideCanary {
				t.Errorf("committed symlink at a ref: got %q, want its link text %q", out.Content, outsideCanary)
			}
		}},
		{name: "get_file_content ../", tool: "get_file_content", args: gfc("../canary.txt"), code: "PATH_DENIED"},
		{name: "get_file_content absolute /etc/passwd", tool: "get_file_content", args: gfc("/etc/passwd"), code: "PATH_DENIED"},
		{name: "get_file_content .git/canary", tool: "get_file_content", args: gfc(".git/canary"), code: "PATH_DENIED"},
		{name: "get_file_content .git/config with metadata", tool: "get_file_content", args: gfc(".git/config", "with_metadata", true), code: "PATH_DENIED"},
		{name: "get_file_content .git directory listing", tool: "get_file_content", args: gfc(".git", "with_metadata", true), code: "PATH_DENIED"},
		{name: "get_file_content beyond a committed symlink", tool: "get_file_content", args: gfc("escapedir/canary.txt"), code: "NOT_FOUND"},
		{name: "get_file_content committed symlink is link text", tool: "get_file_content", args: gfc("escape"), check: linkText},
		{name: "get_file_content committed symlink metadata", tool: "get_file_content", args: gfc("escape", "with_metadata", true)},
		{name: "get_file_content root listing hides secrets", tool: "get_file_content", args: gfc("", "ref", "refs/pull/9/head", "with_metadata", true), check: func(t *testing.T, res *mcp.CallToolResult) {
			if got := textOf(res); strings.Contains(got, `".env"`) || !strings.Contains(got, `"ok.txt"`) {
				t.Errorf("root listing at #9: %.500s", got)
			}
		}},
		{name: "get_file_content owner ..", tool: "get_file_content", args: a("owner", "..", "repo", "widgets", "filePath", "cmd/main.go"), code: "NOT_FOUND"},
		{name: "get_file_content repo ../widgets", tool: "get_file_content", args: a("owner", "acme", "repo", "../widgets", "filePath", "cmd/main.go"), code: "NOT_FOUND"},
		{name: "get_file_content slash in repo", tool: "get_file_content", args: a("owner", "acme", "repo", "widgets/../../x", "filePath", "cmd/main.go"), code: "NOT_FOUND"},
		{name: "read_file owner /etc repo passwd", tool: "read_file", args: a("owner", "/etc", "repo", "passwd", "path", "cmd/main.go"), code: "NOT_FOUND"},
		{name: "get_pull_request_diff file_path ../", tool: "get_pull_request_diff", args: pr(7, "file_path", "../canary.txt"), code: "PATH_DENIED"},
		{name: "get_pull_request_diff file_path .git/canary", tool: "get_pull_request_diff", args: pr(7, "file_path", ".git/canary"), code: "PATH_DENIED"},
		{name: "list_pull_request_files repo ..", tool: "list_pull_request_files", args: a("owner", "acme", "repo", "..", "index", 7), code: "NOT_FOUND"},
		{name: "get_diff paths ../", tool: "get_diff", args: a("base", "main", "paths", []string{"../canary.txt"}), code: "PATH_DENIED"},
		{name: "get_diff paths absolute", tool: "get_diff", args: a("base", "main", "paths", []string{"cmd", parentCanary}), code: "PATH_DENIED"},
		{name: "list_changed_files paths a/../../x", tool: "list_changed_files", args: a("base", "main", "paths", []string{"cmd/../../x"}), code: "PATH_DENIED"},
		{name: "list_changed_files owner ../acme", tool: "list_changed_files", args: a("owner", "../acme", "repo", "widgets", "base", "main"), code: "NOT_FOUND"},
		{name: "search_code glob ../**", tool: "search_code", args: q("canary", "pathGlobs", []string{"../**"}), code: "PATH_DENIED"},
		// A leading "/" anchors a glob at the repository's root, as in .gitignore.
		{name: "search_code glob absolute", tool: "search_code", args: q("canary", "pathGlobs", []string{outside + "/**"}), check: noMatches},
		{name: "search_code glob **/../..", tool: "search_code", args: q("canary", "pathGlobs", []string{"**/../../*"}), code: "PATH_DENIED"},
		{name: "search_code owner .. repo ..", tool: "search_code", args: q("x", "owner", "..", "repo", ".."), code: "NOT_FOUND"},
		// The work tree search must not follow the symlinked directory out.
		{name: "search_code the secret in the work tree", tool: "search_code", args: q(needle), check: noMatches},
		{name: "search_code the secret under the swapped directory", tool: "search_code", args: q(needle, "pathGlobs", []string{"sub/**"}), check: noMatches},
		{name: "search_code the secret in .git", tool: "search_code", args: q(needle, "pathGlobs", []string{".git/**"}), check: noMatches},
		{name: "search_code the repository's .env by glob", tool: "search_code", args: q("TOKEN", "pathGlobs", []string{".e*"}), check: noMatches},
		{name: "search_code the repository's .env at a ref", tool: "search_code", args: q("TOKEN", "ref", "refs/pull/9/head"), check: noMatches},
		// The repository's own secret (.env, TOKEN=...) through diffs and rev:path refs.
		{name: "get_file_content ref rev:path to a secret", tool: "get_file_content", args: gfc("cmd/main.go", "ref", "refs/pull/9/head:.env"), code: "INVALID_REF"},
		{name: "read_file ref rev:path to a secret", tool: "read_file", args: a("path", "cmd/main.go", "ref", "main:.env"), code: "INVALID_REF"},
		{name: "get_file_content .ENV other case", tool: "get_file_content", args: gfc(".ENV", "ref", "refs/pull/9/head"), code: "PATH_DENIED"},
		{name: "get_pull_request_diff whole diff touching .env", tool: "get_pull_request_diff", args: pr(9), check: envHiddenInText},
		{name: "get_diff touching .env hides its patch", tool: "get_diff", args: a("base", "main", "head", "refs/pull/9/head", "paths", []string{".env", "ok.txt"}), check: envDenied},
		{name: "list_changed_files touching .env", tool: "list_changed_files", args: a("base", "main", "head", "refs/pull/9/head")},

		// --- Option injection: refs, paths, queries, globs.
		{name: "get_file_content ref --output", tool: "get_file_content", args: gfc("cmd/main.go", "ref", "--output="+pwned("ref")), code: "INVALID_REF"},
		{name: "read_file ref -c core.pager", tool: "read_file", args: a("path", "cmd/main.go", "ref", "-c core.pager=touch "+pwned("pager")), code: "INVALID_REF"},
		{name: "read_file ref --exec", tool: "read_file", args: a("path", "cmd/main.go", "ref", "--exec=touch "+pwned("exec")), code: "INVALID_REF"},
		{name: "get_diff base HEAD --output", tool: "get_diff", args: a("base", "HEAD --output="+pwned("head")), code: "INVALID_REF"},
		{name: "get_diff head --output", tool: "get_diff", args: a("base", "main", "head", "--output="+pwned("head")), code: "INVALID_REF"},
		{name: "get_diff base relative --output", tool: "get_diff", args: a("base", "--output=pwned"), code: "INVALID_REF"},
		{name: "get_diff base a tree", tool: "get_diff", args: a("base", "main^{tree}"), code: "INVALID_REF"},
		// git resolves a bare name against files in .git too: .git/canary
		// holds the secret, which must not come back in git's complaint.
		{name: "get_file_content ref naming a file in .git", tool: "get_file_content", args: gfc("cmd/main.go", "ref", "canary"), code: "INVALID_REF"},
		{name: "read_file ref config", tool: "read_file", args: a("path", "cmd/main.go", "ref", "config"), code: "INVALID_REF"},
		{name: "get_diff head ../canary.txt", tool: "get_diff", args: a("base", "main", "head", "../canary.txt"), code: "INVALID_REF"},
		{name: "get_diff base a range", tool: "get_diff", args: a("base", "main..feature"), code: "INVALID_REF"},
		{name: "list_changed_files base --upload-pack", tool: "list_changed_files", args: a("base", "--upload-pack=touch "+pwned("upload")), code: "INVALID_REF"},
		{name: "list_changed_files head -p", tool: "list_changed_files", args: a("base", "main", "head", "-p"), code: "INVALID_REF"},
		{name: "search_code ref --open-files-in-pager", tool: "search_code", args: q("x", "ref", "--open-files-in-pager=touch "+pwned("ref")), code: "INVALID_REF"},
		{name: "search_code ref -O", tool: "search_code", args: q("x", "ref", "-O"), code: "INVALID_REF"},
		{name: "search_code ref --no-index", tool: "search_code", args: q("x", "ref", "--no-index"), code: "INVALID_REF"},
		{name: "get_diff mode --output", tool: "get_diff", args: a("base", "main", "mode", "--output="+pwned("head")), code: "INVALID_ARGUMENT"},
		{name: "get_diff mode with a newline", tool: "get_diff", args: a("base", "main", "mode", "direct\n--output="+pwned("head")), code: "INVALID_ARGUMENT"},
		{name: "get_file_content filePath --output", tool: "get_file_content", args: gfc("--output=" + pwned("path")), code: "NOT_FOUND"},
		{name: "read_file path --output", tool: "read_file", args: a("path", "--output="+pwned("path")), code: "NOT_FOUND"},
		{name: "read_file path --output at a ref", tool: "read_file", args: a("path", "--output=x", "ref", "main"), code: "NOT_FOUND"},
		{name: "get_pull_request_diff file_path --output", tool: "get_pull_request_diff", args: pr(7, "file_path", "--output="+pwned("file_path")), code: "NOT_FOUND"},
		// A path that looks like an option is a literal path: no file matches.
		{name: "get_diff paths --output is a literal path", tool: "get_diff", args: a("base", "main", "head", "feature", "paths", []string{"--output=" + pwned("paths")}), check: noFiles},
		{name: "list_changed_files paths -p --output are literal", tool: "list_changed_files", args: a("base", "main", "head", "feature", "paths", []string{"-p", "--output=" + pwned("paths")}), check: noFiles},
		{name: "get_diff paths pathspec magic is literal", tool: "get_diff", args: a("base", "main", "head", "feature", "paths", []string{":(top)../x", ":(exclude)cmd", ":!cmd"}), check: noFiles},
		// A query reaches git only through -e: these are patterns.
		{name: "search_code query --open-files-in-pager", tool: "search_code", args: q("--open-files-in-pager=touch " + pwned("query")), check: noMatches},
		{name: "search_code query -O", tool: "search_code", args: q("-O"), check: noMatches},
		{name: "search_code query -e", tool: "search_code", args: q("-e"), check: noMatches},
		{name: "search_code query --no-index as regex", tool: "search_code", args: q("--no-index", "regex", true), check: noMatches},
		{name: "search_code glob --output", tool: "search_code", args: q("package", "pathGlobs", []string{"--output=" + pwned("glob")}), check: noMatches},
		{name: "search_code glob :(top)../**", tool: "search_code", args: q("package", "pathGlobs", []string{":(top)../**"}), check: noMatches},
		{name: "search_code glob :(exclude)", tool: "search_code", args: q("package", "pathGlobs", []string{":(exclude)cmd/**"}), check: noMatches},
		{name: "search_code glob :(exclude) alone", tool: "search_code", args: q("package", "pathGlobs", []string{":(exclude)"}), check: noMatches},

		// --- NUL and control characters.
		{name: "read_file NUL in path", tool: "read_file", args: a("path", "cmd/main.go\x00../../canary.txt"), code: "INVALID_ARGUMENT"},
		{name: "read_file newline in path", tool: "read_file", args: a("path", "cmd/main.go\nHEAD:.env", "ref", "main"), code: "INVALID_ARGUMENT"},
		{name: "get_file_content NUL in ref", tool: "get_file_content", args: gfc("cmd/main.go", "ref", "main\x00--output="+pwned("ref")), code: "INVALID_REF"},
		{name: "get_diff newline in base", tool: "get_diff", args: a("base", "main\n--output="+pwned("head")), code: "INVALID_REF"},
		{name: "list_changed_files tab in paths", tool: "list_changed_files", args: a("base", "main", "paths", []string{"cmd\tmain.go"}), code: "INVALID_ARGUMENT"},
		{name: "search_code NUL in query", tool: "search_code", args: q("package\x00x"), code: "INVALID_ARGUMENT"},
		{name: "search_code CR in query", tool: "search_code", args: q("package\r"), code: "INVALID_ARGUMENT"},
		{name: "search_code control char in glob", tool: "search_code", args: q("x", "pathGlobs", []string{"cmd/\x01*"}), code: "INVALID_ARGUMENT"},
		{name: "search_code escape in ref", tool: "search_code", args: q("x", "ref", "main\x1b[2J"), code: "INVALID_REF"},
		{name: "get_pull_request_diff escape in file_path", tool: "get_pull_request_diff", args: pr(7, "file_path", "cmd/main.go\x1b[31m"), code: "INVALID_ARGUMENT"},
		{name: "get_file_content NUL in owner", tool: "get_file_content", args: a("owner", "acme\x00", "repo", "widgets", "filePath", "cmd/main.go"), code: "NOT_FOUND"},
		{name: "read_file newline in repo", tool: "read_file", args: a("owner", "acme", "repo", "widgets\n", "path", "cmd/main.go"), code: "NOT_FOUND"},

		// --- Invalid UTF-8. The go-sdk client encodes arguments with
		// encoding/json, which turns invalid bytes into U+FFFD: the server
		// sees a valid (unknown) name. Raw bytes put on the wire as they
		// are either decode the same way or are refused: both are fine, as
		// long as nothing is read and the server stays up.
		{name: "read_file invalid UTF-8 path", tool: "read_file", args: a("path", "cmd/\xff\xfe.go"), code: "NOT_FOUND"},
		{name: "get_file_content invalid UTF-8 ref", tool: "get_file_content", args: gfc("cmd/main.go", "ref", "main\xc3\x28"), code: "INVALID_REF"},
		{name: "get_diff invalid UTF-8 in paths", tool: "get_diff", args: a("base", "main", "head", "feature", "paths", []string{"\xed\xa0\x80"}), check: noFiles},
		{name: "search_code invalid UTF-8 query", tool: "search_code", args: q("\xff\xfepackage"), check: noMatches},
		{name: "list_pull_request_files invalid UTF-8 owner", tool: "list_pull_request_files", args: a("owner", "\xffacme", "repo", "widgets", "index", 7), code: "NOT_FOUND"},
		{name: "read_file raw invalid UTF-8 bytes on the wire", tool: "read_file", args: json.RawMessage("{\"path\":\"cmd/\xff\xfe.go\"}"), code: "NOT_FOUND", protocolOK: true},

		// --- Enormous strings and arrays.
		{name: "read_file 1 MiB path", tool: "read_file", args: a("path", mb), code: "INVALID_ARGUMENT"},
		{name: "get_file_content 1 MiB filePath", tool: "get_file_content", args: gfc(mb), code: "INVALID_ARGUMENT"},
		{name: "get_file_content 1 MiB ref", tool: "get_file_content", args: gfc("cmd/main.go", "ref", mbRef), code: "INVALID_REF"},
		{name: "get_diff 1 MiB base", tool: "get_diff", args: a("base", mbRef), code: "INVALID_REF"},
		{name: "search_code 100 KB query", tool: "search_code", args: q(kb100), code: "INVALID_ARGUMENT"},
		{name: "get_pull_request_diff 1 MiB file_path", tool: "get_pull_request_diff", args: pr(7, "file_path", mb), code: "INVALID_ARGUMENT"},
		{name: "get_diff 10,000 paths", tool: "get_diff", args: a("base", "main", "paths", many(10000, func(i int) string { return fmt.Sprintf("p%d", i) })), code: "INVALID_ARGUMENT"},
		{name: "list_changed_files 10,000 paths", tool: "list_changed_files", args: a("base", "main", "paths", many(10000, func(i int) string { return "../x" })), code: "INVALID_ARGUMENT"},
		{name: "search_code 10,000 globs", tool: "search_code", args: q("x", "pathGlobs", many(10000, func(i int) string { return "**/*.go" })), code: "INVALID_ARGUMENT"},
		{name: "read_file 1 MiB owner", tool: "read_file", args: a("owner", mbRef, "repo", "widgets", "path", "cmd/main.go"), code: "NOT_FOUND"},
		// A 27-character ERE whose nested counted repetitions make glibc's
		// regcomp (inside git grep) allocate gigabytes: ~3.4 GB and ~10 s with
		// plain git 2.39; one more level of nesting grows until killed.
		{name: "search_code regex memory bomb, nested counts", tool: "search_code", args: q("((a{1,100}){1,100}){1,100}", "regex", true), code: "INVALID_ARGUMENT", shortDeadline: true},
		{name: "search_code regex memory bomb, one big count", tool: "search_code", args: q("a{1,32767}", "regex", true), code: "INVALID_ARGUMENT", shortDeadline: true},
		{name: "search_code the same as a fixed string", tool: "search_code", args: q("a{1,32767}"), check: noMatches},
		{name: "get_diff 200 paths of 4 KiB", tool: "get_diff", args: a("base", "main", "head", "feature", "paths", many(200, func(i int) string { return fmt.Sprintf("%04d", i) + strings.Repeat("x", 4000) })), check: noFiles},

		// --- Numbers: negative, huge, fractional, strings; other wrong types.
		{name: "read_file negative startLine", tool: "read_file", args: a("path", "cmd/main.go", "startLine", -1), code: "INVALID_ARGUMENT"},
		{name: "read_file endLine 1e18", tool: "read_file", args: a("path", "cmd/main.go", "endLine", 1e18), code: "INVALID_ARGUMENT"},
		{name: "read_file startLine 1e300", tool: "read_file", args: a("path", "cmd/main.go", "startLine", 1e300), code: "INVALID_ARGUMENT"},
		{name: "get_file_content start_line 1e300", tool: "get_file_content", args: gfc("cmd/main.go", "start_line", 1e300), code: "INVALID_ARGUMENT"},
		{name: "get_file_content end_line 2.5", tool: "get_file_content", args: gfc("cmd/main.go", "end_line", 2.5), code: "INVALID_ARGUMENT"},
		// start_line below 1 clamps to 1 (docs/contracts.md, get_file_content): not an error.
		{name: "get_file_content start_line -1e18 clamps", tool: "get_file_content", args: gfc("cmd/main.go", "start_line", -1e18, "end_line", 2), check: func(t *testing.T, res *mcp.CallToolResult) {
			if got := textOf(res); got != "package main\n" {
				t.Errorf("lines 1-2: %q", got)
			}
		}},
		{name: "get_file_content start_line -1e300", tool: "get_file_content", args: gfc("cmd/main.go", "start_line", -1e300), code: "INVALID_ARGUMENT"},
		{name: "get_file_content with_metadata string", tool: "get_file_content", args: gfc("cmd/main.go", "with_metadata", "yes"), code: "INVALID_ARGUMENT"},
		{name: "get_diff contextLines string", tool: "get_diff", args: a("base", "main", "contextLines", "five"), code: "INVALID_ARGUMENT"},
		{name: "get_diff maxBytes 1e300", tool: "get_diff", args: a("base", "main", "maxBytes", 1e300), code: "INVALID_ARGUMENT"},
		{name: "get_diff contextLines 1e18", tool: "get_diff", args: a("base", "main", "contextLines", 1e18), code: "INVALID_ARGUMENT"},
		{name: "get_diff base a number", tool: "get_diff", args: a("base", 123), code: "INVALID_ARGUMENT"},
		{name: "get_diff paths a number", tool: "get_diff", args: a("base", "main", "paths", 7), code: "INVALID_ARGUMENT"},
		{name: "list_changed_files limit -1", tool: "list_changed_files", args: a("base", "main", "limit", -1), code: "INVALID_ARGUMENT"},
		{name: "list_changed_files offset 1e18", tool: "list_changed_files", args: a("base", "main", "offset", 1e18), code: "INVALID_ARGUMENT"},
		{name: "list_pull_request_files page 0", tool: "list_pull_request_files", args: pr(7, "page", 0), code: "INVALID_ARGUMENT"},
		{name: "list_pull_request_files limit 1e300", tool: "list_pull_request_files", args: pr(7, "limit", 1e300), code: "INVALID_ARGUMENT"},
		{name: "search_code maxResults 2.5", tool: "search_code", args: q("x", "maxResults", 2.5), code: "INVALID_ARGUMENT"},
		{name: "search_code contextLines -1", tool: "search_code", args: q("x", "contextLines", -1), code: "INVALID_ARGUMENT"},
		{name: "search_code regex a string", tool: "search_code", args: q("x", "regex", "yes"), code: "INVALID_ARGUMENT"},
		{name: "search_code glob numbers", tool: "search_code", args: q("x", "pathGlobs", []any{1, 2}), code: "INVALID_ARGUMENT"},
		{name: "read_file ref a boolean", tool: "read_file", args: a("path", "cmd/main.go", "ref", true), code: "INVALID_ARGUMENT"},
		{name: "read_file path null", tool: "read_file", args: a("path", nil), code: "INVALID_ARGUMENT"},
		{name: "get_file_content filePath an object", tool: "get_file_content", args: a("owner", "acme", "repo", "widgets", "filePath", map[string]any{"path": "../canary.txt"}), code: "INVALID_ARGUMENT"},
		{name: "list_repositories offset -1", tool: "list_repositories", args: a("offset", -1), code: "INVALID_ARGUMENT"},
		{name: "list_repositories limit 1e18", tool: "list_repositories", args: a("limit", 1e18), code: "INVALID_ARGUMENT"},
		{name: "list_repositories limit string", tool: "list_repositories", args: a("limit", "five"), code: "INVALID_ARGUMENT"},
		{name: "list_repositories offset boolean", tool: "list_repositories", args: a("offset", true), code: "INVALID_ARGUMENT"},
		{name: "list_repositories offset 1e9 is past the end", tool: "list_repositories", args: a("offset", 1e9), check: func(t *testing.T, res *mcp.CallToolResult) {
			var out listRepositoriesOut
			hostileDecode(t, res, &out)
			if len(out.Repositories) != 0 || out.NextOffset != nil || out.Total != 1 {
				t.Errorf("past the end: %+v", out)
			}
			if got := textOf(res); strings.Contains(got, "1–1 shown") {
				t.Errorf("an empty page claims to show repository 1: %q", got)
			}
		}},
		{name: "list_repositories limit 2.5", tool: "list_repositories", args: a("limit", 2.5), code: "INVALID_ARGUMENT"},

		// --- Pull request indexes.
		{name: "get_pull_request_diff index 7/../../x", tool: "get_pull_request_diff", args: pr("7/../../x"), code: "INVALID_ARGUMENT"},
		{name: "get_pull_request_diff index -1", tool: "get_pull_request_diff", args: pr(-1), code: "INVALID_ARGUMENT"},
		{name: "get_pull_request_diff index 0", tool: "get_pull_request_diff", args: pr(0), code: "INVALID_ARGUMENT"},
		{name: "get_pull_request_diff index 1e9", tool: "get_pull_request_diff", args: pr(1e9), code: "NOT_FOUND"},
		{name: "get_pull_request_diff index string #7", tool: "get_pull_request_diff", args: pr("#7"), code: "INVALID_ARGUMENT"},
		{name: "get_pull_request_diff index 2^31", tool: "get_pull_request_diff", args: pr(1 << 31), code: "INVALID_ARGUMENT"},
		{name: "get_pull_request_diff index true", tool: "get_pull_request_diff", args: pr(true), code: "INVALID_ARGUMENT"},
		{name: "list_pull_request_files index 7/../../x", tool: "list_pull_request_files", args: pr("7/../../x"), code: "INVALID_ARGUMENT"},
		{name: "list_pull_request_files index 1e18", tool: "list_pull_request_files", args: pr(1e18), code: "INVALID_ARGUMENT"},
		{name: "list_pull_request_files index 2.5", tool: "list_pull_request_files", args: pr(2.5), code: "INVALID_ARGUMENT"},
		{name: "list_pull_request_files index --output", tool: "list_pull_request_files", args: pr("--output=" + pwned("ref")), code: "INVALID_ARGUMENT"},
		{name: "list_pull_request_files index 1e9", tool: "list_pull_request_files", args: pr(1e9), code: "NOT_FOUND"},

		// --- Unknown parameters.
		{name: "read_file unknown cwd", tool: "read_file", args: a("path", "cmd/main.go", "cwd", "/"), code: "INVALID_ARGUMENT"},
		{name: "get_diff unknown gitDir", tool: "get_diff", args: a("base", "main", "gitDir", "/etc"), code: "INVALID_ARGUMENT"},
		{name: "search_code unknown noIndex", tool: "search_code", args: q("x", "noIndex", true), code: "INVALID_ARGUMENT"},
		{name: "list_repositories unknown root", tool: "list_repositories", args: a("root", "/"), code: "INVALID_ARGUMENT"},
		{name: "get_pull_request_diff filePath wrong spelling", tool: "get_pull_request_diff", args: pr(7, "filepath", "cmd/main.go"), code: "INVALID_ARGUMENT"},
		{name: "get_file_content file_path wrong spelling", tool: "get_file_content", args: a("owner", "acme", "repo", "widgets", "filepath", "cmd/main.go"), code: "INVALID_ARGUMENT"},

		// --- Missing required parameters.
		{name: "get_file_content no filePath", tool: "get_file_content", args: a("owner", "acme", "repo", "widgets"), code: "INVALID_ARGUMENT"},
		{name: "get_pull_request_diff no index", tool: "get_pull_request_diff", args: a("owner", "acme", "repo", "widgets"), code: "INVALID_ARGUMENT"},
		{name: "list_pull_request_files no owner", tool: "list_pull_request_files", args: a("repo", "widgets", "index", 7), code: "INVALID_ARGUMENT"},
		{name: "search_code no query", tool: "search_code", args: a("pathGlobs", []string{"**"}), code: "INVALID_ARGUMENT"},
		{name: "get_diff no arguments at all", tool: "get_diff", args: nil, code: "INVALID_ARGUMENT"},
		{name: "list_changed_files no base", tool: "list_changed_files", args: a("head", "feature"), code: "INVALID_ARGUMENT"},
		{name: "read_file no path", tool: "read_file", args: a("ref", "main"), code: "INVALID_ARGUMENT"},
		{name: "search_code owner without repo", tool: "search_code", args: q("x", "owner", "acme"), code: "INVALID_ARGUMENT"},

		// --- Wrong owner or repo.
		{name: "get_pull_request_diff wrong owner", tool: "get_pull_request_diff", args: a("owner", "evil", "repo", "widgets", "index", 7), code: "NOT_FOUND"},
		{name: "list_pull_request_files repo .git.git", tool: "list_pull_request_files", args: a("owner", "acme", "repo", "widgets.git.git", "index", 7), code: "NOT_FOUND"},
		{name: "get_diff wrong repo", tool: "get_diff", args: a("owner", "acme", "repo", "gadgets", "base", "main"), code: "NOT_FOUND"},
		{name: "list_changed_files names in other case", tool: "list_changed_files", args: a("owner", "ACME", "repo", "Widgets.git", "base", "main", "head", "feature")},
	}

	nErr := 0
	for _, c := range cases {
		if c.code != "" {
			nErr++
		}
	}
	if nErr < 40 {
		t.Fatalf("only %d error cases", nErr)
	}

	// The repository's own secret (.env) must not leak either.
	leaks := []string{secret, "TOKEN=old", "TOKEN=new"}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before, beforeList := r.Snapshot(), watch.listing(t)
			server := h
			if c.shortDeadline {
				server = hShort
			}
			res, took, err := hostileCall(server, c.tool, c.args)
			if took > hostileMaxCall {
				t.Errorf("%s took %v (limit %v)", c.tool, took, hostileMaxCall)
			}
			switch {
			case err != nil && c.protocolOK:
				t.Logf("protocol error (acceptable here): %v", err)
			case err != nil:
				t.Errorf("protocol error: %v", err)
			default:
				hostileCheckResult(t, h, c, res, leaks)
			}
			if c.shortDeadline {
				hostileGitStopped(t, r.Dir)
			}
			watch.noMarkers(t)
			if after := r.Snapshot(); after != before {
				t.Errorf("the repository changed:\n%s\n---\n%s", before, after)
			}
			if afterList := watch.listing(t); afterList != beforeList {
				t.Errorf("files changed:\n%s", hostileDiffLines(beforeList, afterList))
			}
		})
	}

	// The server survived all of it.
	if got := h.ok("read_file", args("path", "cmd/main.go")); !strings.Contains(got, `println("one")`) {
		t.Fatalf("read_file after the table: %q", got)
	}
	if got := h.ok("get_pull_request_diff", prArgs(7, "file_path", "cmd/main.go")); !strings.Contains(got, `+	println("two")`) {
		t.Fatalf("get_pull_request_diff after the table: %q", got)
	}
	var found searchCodeOut
	h.structured("search_code", searchArgs("println", "pathGlobs", []string{"cmd/**"}), &found)
	if len(found.Matches) != 1 {
		t.Fatalf("search_code after the table: %+v", found)
	}
	if got := hShort.ok("read_file", args("path", "cmd/main.go", "ref", "main")); !strings.Contains(got, `println("one")`) {
		t.Fatalf("read_file on the short-deadline server after the table: %q", got)
	}
	var repos listRepositoriesOut
	h.structured("list_repositories", args(), &repos)
	if repos.Total != 1 {
		t.Fatalf("list_repositories after the table: %+v", repos)
	}
	watch.noMarkers(t)
}

func hostileCheckResult(t *testing.T, h *harness, c hostileCase, res *mcp.CallToolResult, leaks []string) {
	t.Helper()
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > h.maxBytes {
		t.Errorf("reply is %d bytes, over the %d-byte limit", len(data), h.maxBytes)
	}
	msg := textOf(res)
	if testing.Verbose() {
		t.Logf("isError=%v %.200q", res.IsError, msg)
	}
	for _, s := range leaks {
		if strings.Contains(string(data), s) || strings.Contains(msg, s) {
			t.Errorf("the reply leaks %q: %.300q", s, msg)
		}
	}
	if c.code == "" {
		if res.IsError {
			t.Errorf("want success, got %.300q", msg)
			return
		}
		if c.check != nil {
			c.check(t, res)
		}
		return
	}
	if !res.IsError {
		t.Errorf("succeeded, want %s; got %.300q", c.code, msg)
		return
	}
	if !strings.HasPrefix(msg, c.code+": ") {
		t.Errorf("error %.300q, want code %s", msg, c.code)
	}
	// One line the agent can act on (docs/contracts.md, "Errors"): input echoed in
	// it must be quoted, never raw control characters.
	if strings.ContainsFunc(msg, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		t.Errorf("error message holds raw control characters (not one clean line): %.300q", msg)
	}
}

func hostileDecode(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("failed: %s", textOf(res))
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decoding %s: %v", data, err)
	}
}

// hostileDiffLines shows the lines of two listings that differ.
func hostileDiffLines(before, after string) string {
	in := map[string]bool{}
	for _, l := range strings.Split(before, "\n") {
		in[l] = true
	}
	out := map[string]bool{}
	var b strings.Builder
	for _, l := range strings.Split(after, "\n") {
		out[l] = true
		if !in[l] {
			b.WriteString("+ " + l + "\n")
		}
	}
	for _, l := range strings.Split(before, "\n") {
		if !out[l] {
			b.WriteString("- " + l + "\n")
		}
	}
	return b.String()
}

// hostileGitStopped waits for every git grep of the repository at dir to
// have ended: a call past its deadline must not leave git running.
func hostileGitStopped(t *testing.T, dir string) {
	t.Helper()
	gitDir := "--git-dir=" + filepath.Join(dir, ".git")
	running := func() []string {
		var found []string
		procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, p := range procs {
			data, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			argv := strings.Split(string(data), "\x00")
			if slices.Contains(argv, gitDir) && slices.Contains(argv, "grep") {
				found = append(found, p)
			}
		}
		return found
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := running()
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("git grep still running 5 s after the call returned: %v", left)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}
