//go:build unix

package server

// Hostile repositories whose own files (grafts, config keys that name a
// file or change a diff, symlinked or blocking files in the git directory)
// tried to make a reply lie or to lead the server out of its root, driven
// through the tools. Plain git is the control: the hostile thing happens
// there.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// A graft in .git/info/grafts hides a commit from plain git's history and
// gives its child another parent; the tools show the commits as they are
// (docs/security.md, finding 08).
func TestHostileGraftsIgnored(t *testing.T) {
	r := testrepo.New(t)
	commitOne(r, "f", "1\n", "c1")
	commitOne(r, "f", "2\n", "c2 adds the backdoor")
	commitOne(r, "f", "3\n", "c3")
	head, realParent, grafted := r.Head(), r.Git("rev-parse", "HEAD~1"), r.Git("rev-parse", "HEAD~2")
	realParent, grafted = strings.TrimSpace(realParent), strings.TrimSpace(grafted)
	if err := os.WriteFile(filepath.Join(r.Dir, ".git", "info", "grafts"), []byte(head+" "+grafted+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := r.Git("log", "--format=%s"); strings.Contains(got, "backdoor") {
		t.Fatalf("control: plain git log still lists the grafted-out commit:\n%s", got)
	}

	h := serve(t, r)
	if got := h.ok("list_commits", args()); !strings.Contains(got, "c2 adds the backdoor") {
		t.Errorf("list_commits hides the commit a graft cuts out:\n%s", got)
	}
	got := h.ok("get_commit", args("ref", head))
	if !strings.Contains(got, realParent) || strings.Contains(got, grafted) {
		t.Errorf("get_commit does not name the commit's real parent %s:\n%s", realParent, got)
	}
}

// configKey is one setting of a hostile repository config, and the plain
// git command that shows it takes effect there (nil: the project's
// command lines already say what it would change, or it changes only
// output no tool asks for; it is pinned all the same).
type configKey struct {
	key, value string
	control    []string
}

// Every config key that names a file or changes what a diff, a log, a
// blame or a grep prints, set in the repository's own config: each tool's
// reply equals its reply for the same repository with a clean config
// (docs/security.md, finding 09; README, "Safety").
func TestHostileConfigKeysPinned(t *testing.T) {
	r := testrepo.New(t)
	long := make([]string, 30)
	for i := range long {
		long[i] = fmt.Sprintf("line %d", i+1)
	}
	long[5] = "" // an empty context line: diff.suppressBlankEmpty drops its space
	r.Write("long.txt", strings.Join(long, "\n")+"\n")
	r.Write("alg.txt", "e\nc\nd\ne\nd\nd\n}\nb\ne\nb\n")
	r.Write("ind.txt", "}\nx\n}\n  y\n}\nif {\n}\n  y\n")
	for _, f := range []string{"a", "b", "c"} {
		r.Write(f+".txt", f+" one\n")
	}
	r.Git("add", "-A")
	r.Commit("one")
	long[7], long[19] = "line 8 changed", "line 20 changed"
	r.Write("long.txt", strings.Join(long, "\n")+"\n")
	r.Write("alg.txt", "e\nc\nd\n{\ne\nd\nd\n}\nb\nb\ne\n}\nb\n")
	r.Write("ind.txt", "}\nx\n}\n  y\n}\nif {\n  y\n}\n\nif {\n}\n  y\n")
	for _, f := range []string{"a", "b", "c"} {
		r.Write(f+".txt", f+" one\n"+f+" two\n")
	}
	r.Write("ünï.txt", "two\n")
	r.Git("add", "-A")
	r.Commit("two ünï")

	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mailmap := "Mapped Name <mapped@example.com> <author@example.com>\n"
	mailmapBlob := strings.TrimSpace(r.Git("hash-object", "-w", file("mailmap", mailmap)))
	diff := []string{"diff", "HEAD~1", "HEAD"}
	blame := []string{"blame", "--porcelain", "HEAD", "--", "long.txt"}
	keys := []configKey{
		// Keys that name a file.
		{"diff.orderFile", file("order", "c.txt\na.txt\n"), []string{"diff", "--name-only", "HEAD~1", "HEAD"}},
		{"core.attributesFile", file("attributes", "* -diff\n"), diff},
		{"core.excludesFile", file("excludes", "*.txt\n"), nil},
		{"mailmap.file", file("mailmap", mailmap), blame},
		{"mailmap.blob", mailmapBlob, blame},
		{"blame.ignoreRevsFile", file("ignore-revs", strings.TrimSpace(r.Git("rev-parse", "HEAD"))+"\n"), blame},
		// Keys that change a patch's order, hunks or lines.
		{"diff.context", "10", diff},
		{"diff.interHunkContext", "10", diff},
		{"diff.algorithm", "histogram", diff},
		{"diff.indentHeuristic", "false", diff},
		{"diff.suppressBlankEmpty", "true", diff},
		{"diff.noprefix", "true", diff},
		{"diff.mnemonicPrefix", "true", nil},
		{"diff.relative", "true", nil},
		{"diff.dirstat", "lines,cumulative,0", nil},
		{"diff.renames", "copies", nil},
		{"diff.colorMoved", "zebra", nil},
		{"core.abbrev", "20", diff},
		{"core.bigFileThreshold", "10", diff},
		{"core.quotePath", "false", []string{"diff", "--name-only", "HEAD~1", "HEAD"}},
		{"color.ui", "always", diff},
		{"color.diff", "always", diff},
		{"color.grep", "always", []string{"grep", "-e", "two", "HEAD"}},
		{"color.decorate", "always", nil},
		// Keys that change a log, a blame or a grep.
		{"i18n.logOutputEncoding", "ISO-8859-1", []string{"log", "-1", "--format=%s"}},
		{"log.showRoot", "false", nil},
		{"log.follow", "true", nil},
		{"log.mailmap", "true", nil},
		{"log.decorate", "full", nil},
		{"log.diffMerges", "combined", nil},
		{"blame.showRoot", "true", blame},
		{"blame.blankBoundary", "true", nil},
		{"blame.markUnblamableLines", "true", nil},
		{"blame.markIgnoredLines", "true", nil},
		{"grep.lineNumber", "true", []string{"grep", "-e", "two", "HEAD"}},
		{"grep.column", "true", []string{"grep", "-e", "two", "HEAD"}},
		{"grep.patternType", "perl", nil},
		{"grep.extendedRegexp", "true", nil},
		{"grep.threads", "64", nil},
	}
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"get_diff", args("base", "HEAD~1", "head", "HEAD", "mode", "direct")},
		{"list_changed_files", args("base", "HEAD~1", "head", "HEAD", "mode", "direct")},
		{"get_commit", args("ref", "HEAD")},
		{"list_commits", args()},
		{"blame", args("path", "long.txt")},
		{"search_code", args("query", "two")},
		{"search_code", args("query", "two", "ref", "HEAD")},
	}
	replies := func() []string {
		h := serve(t, r, withTextOnly())
		var out []string
		for _, c := range calls {
			out = append(out, textOf(h.call(c.tool, c.args)))
		}
		return out
	}
	clean := replies()
	for _, k := range keys {
		var before string
		if k.control != nil {
			before = r.Git(k.control...)
		}
		r.Git("config", k.key, k.value)
		if k.control != nil && r.Git(k.control...) == before {
			t.Errorf("control: %s=%s does not change plain git %s", k.key, k.value, strings.Join(k.control, " "))
		}
		for i, got := range replies() {
			if got != clean[i] {
				t.Errorf("with %s=%s, %s(%v) =\n%s\nwant, as with a clean config,\n%s", k.key, k.value, calls[i].tool, calls[i].args, got, clean[i])
			}
		}
		r.Git("config", "--unset-all", k.key)
	}
}

// serveUnsandboxed serves r as serve does, with the sandbox off: only the
// command line and environment stand between git and the host.
func serveUnsandboxed(t *testing.T, r *testrepo.Repo) *harness {
	t.Helper()
	env := testEnv(t)
	if _, err := env.UseSandbox(gitexec.SandboxOff); err != nil {
		t.Fatal(err)
	}
	served, err := repo.ServeOne(context.Background(), env, r.Dir, "acme/widgets")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(served.Close)
	cfg := Config{MaxBytes: DefaultMaxBytes, Timeout: 30 * time.Second, Policy: mustPolicy(nil), Version: "test"}
	return connectClient(t, New(served, cfg), r, cfg.MaxBytes)
}

// With the sandbox off, a diff.orderFile naming a host file does not order
// the reply: git's own order stays (docs/security.md, finding 09).
func TestHostileOrderFileWithoutSandbox(t *testing.T) {
	r := testrepo.New(t)
	for _, f := range []string{"a", "b", "c"} {
		commitOne(r, f+".txt", f+"\n", f)
	}
	for _, f := range []string{"a", "b", "c"} {
		r.Write(f+".txt", f+f+"\n")
	}
	r.Git("commit", "-qam", "two")
	host := filepath.Join(t.TempDir(), "host-file")
	if err := os.WriteFile(host, []byte("c.txt\na.txt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.Git("config", "diff.orderFile", host)
	if got := r.Git("diff", "--name-only", "HEAD~1", "HEAD"); got != "c.txt\na.txt\nb.txt\n" {
		t.Fatalf("control: plain git did not take its order from the host file: %q", got)
	}
	h := serveUnsandboxed(t, r)
	got := h.ok("list_changed_files", args("base", "HEAD~1", "head", "HEAD", "mode", "direct"))
	if a, c := strings.Index(got, "a.txt"), strings.Index(got, "c.txt"); a < 0 || c < 0 || c < a {
		t.Errorf("list_changed_files takes its order from the host file:\n%s", got)
	}
}

// Under --root, a HEAD symlinked to another repository's outside the root:
// list_repositories does not print that repository's branch, and the tools
// refuse the repository, saying why (docs/security.md, finding 12).
func TestHostileSymlinkedHEADUnderRoot(t *testing.T) {
	outside := testrepo.Init(t, filepath.Join(t.TempDir(), "priv"))
	outside.Git("symbolic-ref", "HEAD", "refs/heads/private-branch-OUTSIDE-ROOT")
	root := t.TempDir()
	r := testrepo.Init(t, filepath.Join(root, "evil", "hs"))
	commitOne(r, "a", "a\n", "a")
	head := filepath.Join(r.Dir, ".git", "HEAD")
	if err := os.Remove(head); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside.Dir, ".git", "HEAD"), head); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(head); err != nil || !strings.Contains(string(got), "OUTSIDE-ROOT") {
		t.Fatalf("control: reading HEAD does not read through the link: %q, %v", got, err)
	}

	h := serveRootDir(t, root, repo.RootOptions{})
	if got := h.ok("list_repositories", args()); strings.Contains(got, "OUTSIDE") {
		t.Errorf("list_repositories prints what a file outside the root says:\n%s", got)
	}
	msg := h.fails("read_file", args("owner", "evil", "repo", "hs", "path", "a", "ref", "main"), "PERMISSION_DENIED")
	if !strings.Contains(msg, "its HEAD is a symlink") || strings.Contains(msg, root) {
		t.Errorf("read_file: %q; want the refusal, naming HEAD and no path", msg)
	}
}

// A FIFO in place of a loose object: the read waits on it until the
// call's deadline, and the error names the file, not only the limit
// (docs/security.md, finding 10).
func TestHostileBlockedReadNamesTheFile(t *testing.T) {
	r := testrepo.New(t)
	commitOne(r, "a.txt", "a\n", "one")
	blob := strings.TrimSpace(r.Git("rev-parse", "HEAD:a.txt"))
	object := filepath.Join(r.Dir, ".git", "objects", blob[:2], blob[2:])
	if err := os.Remove(object); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(object, 0o644); err != nil {
		t.Fatal(err)
	}
	h := serve(t, r, withTimeout(2*time.Second))
	want := "git was waiting on objects/" + blob[:2] + "/" + blob[2:] + ", a FIFO"
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"read_file", args("path", "a.txt", "ref", "HEAD")},
		{"blame", args("path", "a.txt")},
	} {
		msg := h.fails(call.tool, call.args, "UNAVAILABLE")
		if !strings.Contains(msg, "limit") || !strings.Contains(msg, want) || strings.Contains(msg, r.Dir) {
			t.Errorf("%s: %q; want the limit and %q, and no path", call.tool, msg, want)
		}
	}
}

// A partial clone that never fetched a file's blob: the tools say the
// object is missing from a partial clone and is not fetched, not that the
// file does not exist (docs/security.md, finding 10's messages).
func TestHostilePartialCloneMissingBlob(t *testing.T) {
	src := testrepo.New(t)
	commitOne(src, "a.txt", "hello\n", "one")
	src.Git("config", "uploadpack.allowFilter", "true")
	dir := filepath.Join(t.TempDir(), "clone")
	src.Git("clone", "-q", "--filter=blob:none", "--no-checkout", "file://"+src.Dir, dir)
	clone := src.At(dir)
	if _, err := clone.TryGit("-c", "protocol.allow=never", "cat-file", "-e", "HEAD:a.txt"); err == nil {
		t.Fatal("control: the clone has the blob")
	}
	h := serve(t, clone)
	for _, call := range []struct {
		tool, code string
		args       map[string]any
	}{
		{"read_file", "NOT_FOUND", args("path", "a.txt", "ref", "HEAD")},
		{"blame", "NOT_FOUND", args("path", "a.txt")},
		{"get_commit", "NOT_FOUND", args("ref", "HEAD")},
	} {
		msg := h.fails(call.tool, call.args, call.code)
		if !strings.Contains(msg, "partial clone") || !strings.Contains(msg, "does not fetch") || strings.Contains(msg, "does not exist") {
			t.Errorf("%s: %q; want the object missing from a partial clone, not fetched", call.tool, msg)
		}
	}
}
