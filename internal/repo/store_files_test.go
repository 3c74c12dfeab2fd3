//go:build unix

package repo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// Under --root, a HEAD that is a symlink, out of the root or within it, is
// refused like the store's other links: the server never reads through it,
// and list_repositories never prints what a file outside the root says
// (docs/security.md, finding 12).
func TestServeRootRefusesSymlinkedHEAD(t *testing.T) {
	outside := testrepo.Init(t, filepath.Join(t.TempDir(), "priv"))
	outside.Git("symbolic-ref", "HEAD", "refs/heads/private-branch-OUTSIDE-ROOT")
	root := t.TempDir()
	good := testrepo.Init(t, filepath.Join(root, "acme", "good"))
	good.Commit("good")
	targets := map[string]string{
		"out": filepath.Join(outside.Dir, ".git", "HEAD"),
		"in":  filepath.Join(good.Dir, ".git", "HEAD"),
	}
	for name, target := range targets {
		r := testrepo.Init(t, filepath.Join(root, "evil", name))
		r.Commit("x")
		head := filepath.Join(r.Dir, ".git", "HEAD")
		must(t, os.Remove(head))
		must(t, os.Symlink(target, head))
	}
	s := serveRoot(t, root)
	ctx := context.Background()
	list, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Owner+"/"+list[0].Name != "acme/good" {
		t.Errorf("List = %+v; want acme/good only", list)
	}
	for name := range targets {
		_, err := s.Get(ctx, "evil", name, true)
		msg := errString(err)
		if errcode.Of(err) != errcode.PermissionDenied || !strings.Contains(msg, "its HEAD is a symlink") || strings.Contains(msg, "OUTSIDE") || strings.Contains(msg, root) {
			t.Errorf("evil/%s: %v; want PERMISSION_DENIED saying its HEAD is a symlink, naming no path", name, err)
		}
	}
}

// A FIFO in place of a file git reads whole at start (HEAD, packed-refs,
// config, commondir, alternates) is named in the refusal, as what it is.
func TestServeRootNamesTheFileThatWouldBlock(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"head":       "HEAD",
		"packed":     "packed-refs",
		"config":     "config",
		"commondir":  "commondir",
		"alternates": "objects/info/alternates",
	}
	for name, file := range files {
		r := testrepo.Init(t, filepath.Join(root, "fifo", name))
		r.Commit(name)
		p := filepath.Join(r.Dir, ".git", filepath.FromSlash(file))
		os.Remove(p)
		must(t, syscall.Mkfifo(p, 0o644))
	}
	s := serveRoot(t, root)
	for name, file := range files {
		_, err := s.Get(context.Background(), "fifo", name, true)
		msg := errString(err)
		if errcode.Of(err) != errcode.PermissionDenied || !strings.Contains(msg, "its "+file+" is a FIFO") || strings.Contains(msg, root) {
			t.Errorf("fifo/%s: %v; want PERMISSION_DENIED naming %s as a FIFO, and no path", name, err, file)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// A branch whose loose ref file is a FIFO is INVALID_REF at once, naming
// the file, rather than a call that waits until its deadline
// (docs/security.md, finding 10).
func TestFIFORefNamesTheFile(t *testing.T) {
	root := t.TempDir()
	r := testrepo.Init(t, filepath.Join(root, "evil", "fifo"))
	r.Commit("one")
	must(t, syscall.Mkfifo(filepath.Join(r.Dir, ".git", "refs", "heads", "evil"), 0o644))
	repo, err := serveRoot(t, root).Get(context.Background(), "evil", "fifo", true)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = repo.ResolveCommit(ctx, "evil")
	if errcode.Of(err) != errcode.InvalidRef || !strings.Contains(errString(err), "its ref file refs/heads/evil is a FIFO") || strings.Contains(errString(err), root) {
		t.Fatalf("ResolveCommit(evil) = %v; want INVALID_REF naming refs/heads/evil as a FIFO, and no path", err)
	}
	if _, err := repo.ResolveCommit(ctx, "main"); err != nil {
		t.Fatalf("main beside it: %v", err)
	}
}

// A branch whose loose ref is a symlink to a file outside the store: the
// sandbox keeps git from reading it and git takes the branch for none;
// the error says the link leads out and the sandbox refused, naming the
// ref file and no path, rather than that "main" names no commit.
func TestRefSymlinkOutOfStoreSaysSo(t *testing.T) {
	root := t.TempDir()
	r := testrepo.Init(t, filepath.Join(root, "evil", "link"))
	head := r.Commit("one")
	outside := filepath.Join(t.TempDir(), "ref")
	must(t, os.WriteFile(outside, []byte(head+"\n"), 0o644))
	ref := filepath.Join(r.Dir, ".git", "refs", "heads", "main")
	must(t, os.Remove(ref))
	must(t, os.Symlink(outside, ref))
	if got := strings.TrimSpace(r.Git("rev-parse", "main")); got != head {
		t.Fatalf("control: plain git reads main through the link as %q", got)
	}
	served := serveRoot(t, root)
	if !served.env.SandboxOn() {
		t.Skip("the sandbox is off: git reads the ref through the link")
	}
	repo, err := served.Get(context.Background(), "evil", "link", true)
	if err != nil {
		t.Fatal(err)
	}
	for _, rev := range []string{"main", "HEAD", "main~0"} {
		_, err = repo.ResolveCommit(context.Background(), rev)
		msg := errString(err)
		if errcode.Of(err) != errcode.InvalidRef || !strings.Contains(msg, "refs/heads/main is a symlink leading out") || !strings.Contains(msg, "sandbox") || strings.Contains(msg, outside) || strings.Contains(msg, root) {
			t.Errorf("ResolveCommit(%s) = %v; want INVALID_REF naming refs/heads/main as a symlink the sandbox refused, and no path", rev, err)
		}
	}
}
