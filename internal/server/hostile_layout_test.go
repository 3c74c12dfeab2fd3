package server

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// Hostile repositories (issue 10) through the tools: each test builds the
// repository with git, shows with plain git that the attack is real, and
// shows that the server blocks it. internal/repo tests every variant; these
// check what a client sees.

// serveRootDir starts a server for every repository under root.
func serveRootDir(t *testing.T, root string, opts repo.RootOptions) *harness {
	t.Helper()
	served, err := repo.ServeRoot(testEnv(t), root, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(served.Close)
	cfg := Config{MaxBytes: DefaultMaxBytes, Timeout: 30 * time.Second, Policy: mustPolicy(nil), Version: "test", Structured: true}
	return connectClient(t, New(served, cfg), nil, cfg.MaxBytes)
}

// listedNames lists the repositories list_repositories returns.
func listedNames(h *harness) string {
	var out listRepositoriesOut
	h.structured("list_repositories", args(), &out)
	var names []string
	for _, r := range out.Repositories {
		names = append(names, r.Owner+"/"+r.Name)
	}
	return strings.Join(names, " ")
}

// Finding 5: under --root, a repository reading objects from outside the
// root (alternates, commondir) is refused by every tool, with the reason,
// and not listed.
func TestHostileRootStoreOutside(t *testing.T) {
	outside := testrepo.Init(t, filepath.Join(t.TempDir(), "outside"))
	outside.Write("secret.txt", "outside secret 5e1d\n")
	secret := outside.Commit("secret")

	root := t.TempDir()
	testrepo.Init(t, filepath.Join(root, "acme", "good")).Commit("good")
	for _, how := range []string{testrepo.ViaAlternates, testrepo.ViaCommondir} {
		r := testrepo.Init(t, filepath.Join(root, "evil", strings.ReplaceAll(how, " ", "-")))
		r.Commit("x")
		r.Reach(how, outside, "")
		if got := r.Git("cat-file", "-p", secret+":secret.txt"); !strings.Contains(got, "5e1d") {
			t.Fatalf("control (%s): plain git read %q, not the outside secret", how, got)
		}
	}

	h := serveRootDir(t, root, repo.RootOptions{})
	for _, name := range []string{"alternates", "commondir"} {
		for _, call := range []struct {
			tool string
			args map[string]any
		}{
			{"read_file", args("owner", "evil", "repo", name, "path", "secret.txt", "ref", secret)},
			{"get_file_content", args("owner", "evil", "repo", name, "filePath", "secret.txt", "ref", secret)},
			{"search_code", args("owner", "evil", "repo", name, "query", "outside secret", "ref", secret)},
			{"get_diff", args("owner", "evil", "repo", name, "base", secret)},
		} {
			msg := h.fails(call.tool, call.args, "PERMISSION_DENIED")
			if !strings.Contains(msg, "lies outside the served root") || strings.Contains(msg, "5e1d") {
				t.Errorf("%s on evil/%s: %q; want the reason, not the secret", call.tool, name, msg)
			}
		}
	}
	if got := listedNames(h); got != "acme/good" {
		t.Errorf("list_repositories lists %q; want only acme/good", got)
	}
}

// Finding 3: under --root, another user's repository is served only with
// --allow-other-owners; plain git refuses it.
func TestHostileRootOtherOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a repository to another user")
	}
	root := t.TempDir()
	theirs := testrepo.Init(t, filepath.Join(root, "other", "theirs"))
	theirs.Write("a.txt", "theirs\n")
	theirs.Commit("theirs")
	testrepo.ChownAll(t, theirs.Dir, 65534, 65534)
	if out, err := theirs.TryGit("log", "-1"); err == nil || !strings.Contains(out, "dubious ownership") {
		t.Fatalf("control: plain git read another user's repository: %v %s", err, out)
	}

	h := serveRootDir(t, root, repo.RootOptions{})
	msg := h.fails("read_file", args("owner", "other", "repo", "theirs", "path", "a.txt"), "PERMISSION_DENIED")
	if !strings.Contains(msg, "--allow-other-owners") {
		t.Errorf("the refusal does not name the flag: %q", msg)
	}
	if got := listedNames(h); got != "" {
		t.Errorf("list_repositories lists %q; want nothing", got)
	}

	allowing := serveRootDir(t, root, repo.RootOptions{AllowOtherOwners: true})
	if got := allowing.ok("read_file", args("owner", "other", "repo", "theirs", "path", "a.txt")); !strings.Contains(got, "theirs") {
		t.Errorf("with --allow-other-owners: %q", got)
	}
}

// Finding 6: the git directory inside the work tree under another name is
// hidden from read_file and search_code on the work tree, whether the file
// asked for exists or not; plain git's work-tree grep reads it.
func TestHostileGitDirInWorkTreeTools(t *testing.T) {
	r := testrepo.InitSeparate(t, filepath.Join(t.TempDir(), "w"), "realgit")
	r.Write("a.txt", "a\n")
	r.Commit("everything, the git directory included")
	// Only the live config holds the token, not the committed copy.
	r.Git("config", "remote.origin.url", "https://user:TOKEN-77ab@host/acme/widgets.git")
	if out := r.Git("grep", "-l", "TOKEN-77ab"); !strings.Contains(out, "realgit/config") {
		t.Fatalf("control: plain git grep did not read the live git config: %q", out)
	}

	h := serve(t, r)
	exists := h.fails("read_file", args("path", "realgit/config"), "PATH_DENIED")
	missing := h.fails("read_file", args("path", "realgit/nope"), "PATH_DENIED")
	if strings.ReplaceAll(exists, "config", "X") != strings.ReplaceAll(missing, "nope", "X") {
		t.Errorf("the answers tell existing from missing:\n%s\n%s", exists, missing)
	}
	for _, a := range []map[string]any{searchArgs("TOKEN-77ab"), searchArgs("TOKEN-77ab", "ref", "main")} {
		var out searchCodeOut
		h.structured("search_code", a, &out)
		if len(out.Matches) != 0 {
			t.Errorf("search_code %v found %+v", a, out.Matches)
		}
	}
	// At a ref, the committed copy is the repository's content, not the
	// live directory.
	if got := h.ok("get_file_content", fileArgs("realgit/config")); strings.Contains(got, "TOKEN-77ab") {
		t.Errorf("get_file_content returned the live config: %q", got)
	}
}

// Finding 7a: a committed symlink to a file outside answers the same
// whether the file exists or not.
func TestHostileSymlinkOracleTools(t *testing.T) {
	outside := t.TempDir()
	target := filepath.Join(outside, "dir", "target.txt")
	r := testrepo.New(t)
	r.Symlink(target, "escape")
	r.Symlink(filepath.Dir(target), "escapedir")
	r.Commit("links")
	h := serve(t, r)
	ask := func() string {
		return h.fails("read_file", args("path", "escape"), "PATH_DENIED") + "\n" +
			h.fails("read_file", args("path", "escapedir/target.txt"), "PATH_DENIED")
	}
	missing := ask()
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, "escapedir", "target.txt")); err != nil {
		t.Fatalf("control: the link does not reach the file: %v", err)
	}
	if exists := ask(); exists != missing {
		t.Errorf("the answers tell existing from missing:\n%s\n---\n%s", exists, missing)
	}
}

// Finding 7c: a hard link in the work tree to a host file is not served from
// the work tree (at a ref the committed file still is); plain git's
// work-tree grep reads it.
func TestHostileHardLinkTools(t *testing.T) {
	host := filepath.Join(t.TempDir(), "host.txt")
	if err := os.WriteFile(host, []byte("HOST SECRET 3b9e\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := testrepo.New(t)
	r.Write("notes.txt", "harmless\n")
	r.Commit("notes")
	if err := os.Remove(filepath.Join(r.Dir, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(host, filepath.Join(r.Dir, "notes.txt")); err != nil {
		t.Skipf("cannot hard-link across these directories: %v", err)
	}
	if out := r.Git("grep", "-l", "3b9e"); strings.TrimSpace(out) != "notes.txt" {
		t.Fatalf("control: plain git grep did not read the host file: %q", out)
	}

	h := serve(t, r)
	if msg := h.fails("read_file", args("path", "notes.txt"), "PATH_DENIED"); !strings.Contains(msg, "hard-linked") {
		t.Errorf("read_file: %q; want it to say the file is hard-linked", msg)
	}
	var out searchCodeOut
	h.structured("search_code", searchArgs("3b9e"), &out)
	if len(out.Matches) != 0 {
		t.Errorf("search_code found %+v", out.Matches)
	}
	if got := h.ok("read_file", args("path", "notes.txt", "ref", "main")); !strings.Contains(got, "harmless") {
		t.Errorf("read_file at a ref: %q", got)
	}
}

// Finding 7b: a hidden file in a listing of changes shows its name, status
// and that it is hidden: not its counts, and not whether it is binary.
func TestHiddenFilesListedByNameOnly(t *testing.T) {
	r := testrepo.New(t)
	r.Write("a.txt", "a\n")
	base := r.Commit("base")
	r.Write("keys/store.p12", "\x00\x01binary key store")
	r.Write("img.bin", "\x00\x01binary image")
	head := r.Commit("head")
	r.Git("update-ref", "refs/pull/1/head", head)
	r.Git("reset", "-q", "--hard", base)
	if out := r.Git("diff", "--numstat", base, head); !strings.Contains(out, "-\t-\tkeys/store.p12") {
		t.Fatalf("control: git does not see the key store as binary: %q", out)
	}

	h := serve(t, r)
	var changed listChangedFilesOut
	text := h.structured("list_changed_files", args("base", base, "head", head), &changed)
	var pr listPullRequestFilesOut
	prText := h.structured("list_pull_request_files", prArgs(1), &pr)
	for _, f := range changed.Files {
		checkListedFile(t, "list_changed_files", f.Path, f.IsBinary, f.Additions, f.Deletions)
	}
	for _, f := range pr.Files {
		checkListedFile(t, "list_pull_request_files", f.Path, f.IsBinary, f.Additions, f.Deletions)
	}
	for _, txt := range []string{text, prText} {
		// list_pull_request_files gives the patch's size beside the counts.
		if !strings.Contains(txt, "hidden keys/store.p12") || !regexp.MustCompile(`binary (\d+ bytes )?img\.bin`).MatchString(txt) {
			t.Errorf("text listing:\n%s", txt)
		}
	}
}

func checkListedFile(t *testing.T, tool, path string, binary *bool, added, deleted *int) {
	t.Helper()
	hidden := path == "keys/store.p12"
	switch {
	case hidden && (binary != nil || added != nil || deleted != nil):
		t.Errorf("%s shows more of hidden %s than its name: binary %v, counts %v %v", tool, path, binary, added, deleted)
	case !hidden && path == "img.bin" && (binary == nil || !*binary):
		t.Errorf("%s: %s not shown as binary", tool, path)
	}
}
