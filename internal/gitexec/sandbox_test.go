//go:build unix

package gitexec_test

// The hostile repositories of the outside review (docs/security.md lists
// them), each shown three ways: plain git falls for it (the control), our
// runner with every rule on does not, and our runner with the first wall
// down (no -c settings, no transport ban: withoutSettings) still does not,
// because the sandbox alone stops it. A last control runs that same command
// line with the sandbox off too, and the attack works again.

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// sandboxedAndNot opens r twice: with the sandbox (the default) and without.
func sandboxedAndNot(t *testing.T, r *testrepo.Repo) (on, off *Repo) {
	t.Helper()
	return sandboxedAndNotAt(t, r.GitDir(), r.Dir)
}

func sandboxedAndNotAt(t *testing.T, gitDir, workTree string) (on, off *Repo) {
	t.Helper()
	envOn, envOff := newEnv(t), newEnv(t)
	requireSandbox(t, envOn)
	if _, err := envOff.UseSandbox(gitexec.SandboxOff); err != nil {
		t.Fatal(err)
	}
	return openAt(t, envOn, gitDir, workTree), openAt(t, envOff, gitDir, workTree)
}

// Finding: a diff that enters a submodule starts a git child in the
// submodule's repository, which runs that repository's diff.external.
func TestHostileSubmoduleDiff(t *testing.T) {
	p := testrepo.SubmoduleBump(t, t.TempDir())
	c1 := strings.TrimSpace(p.Git("rev-parse", "HEAD"))
	c2 := p.Commit("bump")
	m := newMarker(t, "evil", "exit 0")
	p.Git("config", "diff.submodule", "diff")
	mustPlainGit(t, p.Dir, plainEnv(t), "--git-dir="+filepath.Join(p.Dir, ".git", "modules", "sub"), "config", "diff.external", m.Script)

	mustPlainGit(t, p.Dir, plainEnv(t), "diff", c1, c2)
	m.MustRun("plain git diff")

	on, off := sandboxedAndNot(t, p)
	out := output(t, on, projectDiff(c1, c2)...)
	m.MustNotRun("runner diff")
	if !strings.Contains(out, "-Subproject commit ") || !strings.Contains(out, "+Subproject commit ") {
		t.Fatalf("runner diff does not show the submodule as commit ids:\n%s", out)
	}

	settingsOff(t)
	// The command line of a plain diff, which lets git enter the submodule.
	streamAll(on, false, "diff", c1, c2)
	m.MustNotRun("sandboxed runner without its settings")
	if _, err := streamAll(off, false, "diff", c1, c2); err != nil {
		t.Fatal(err)
	}
	m.MustRun("runner without settings or sandbox")
}

// Finding: a partial clone fetches missing objects on demand, through a
// remote whose uploadpack is any program the repository's config names.
func TestHostilePartialCloneLazyFetch(t *testing.T) {
	r := testrepo.New(t)
	commitFile(r, "a.txt", "a\n", "one")
	m := newMarker(t, "uploadpack", "exit 1")
	r.Git("config", "core.repositoryformatversion", "1")
	r.Git("config", "extensions.partialClone", "origin")
	r.Git("config", "remote.origin.url", t.TempDir())
	r.Git("config", "remote.origin.promisor", "true")
	r.Git("config", "remote.origin.uploadpack", m.Script)
	missing := strings.Repeat("ab", 20)

	plainGit(t, r.Dir, plainEnv(t), "cat-file", "-t", missing)
	m.MustRun("plain git cat-file")

	on, off := sandboxedAndNot(t, r)
	if _, err := on.CommitID(context.Background(), missing); !errors.Is(err, git.ErrMissing) {
		t.Fatalf("runner: %s = %v, want git.ErrMissing", missing, err)
	}
	m.MustNotRun("runner cat-file")

	settingsOff(t)
	streamAll(on, false, "cat-file", "-t", missing)
	m.MustNotRun("sandboxed runner without its settings")
	streamAll(off, false, "cat-file", "-t", missing)
	m.MustRun("runner without settings or sandbox")
}

// Finding: an ordinary blobless clone served as it is fetches a missing
// blob when it is read, writing new packs into the served repository.
func TestHostileBloblessCloneWritesNothing(t *testing.T) {
	src := testrepo.New(t)
	commitFile(src, "big.txt", strings.Repeat("payload\n", 100), "one")
	src.Git("config", "uploadpack.allowFilter", "true")
	blob := strings.TrimSpace(src.Git("rev-parse", "HEAD:big.txt"))
	dir := filepath.Join(t.TempDir(), "clone")
	mustPlainGit(t, src.Dir, plainEnv(t), "clone", "-q", "--no-checkout", "--filter=blob:none", "file://"+src.Dir, dir)
	packs := func() int {
		entries, _ := os.ReadDir(filepath.Join(dir, ".git", "objects", "pack"))
		return len(entries)
	}
	before := packs()

	on, off := sandboxedAndNotAt(t, filepath.Join(dir, ".git"), dir)
	if _, err := streamAll(on, false, "cat-file", "blob", blob); err == nil {
		t.Fatal("runner read a blob the clone does not have")
	}
	if packs() != before {
		t.Fatal("runner fetched into the served repository")
	}
	settingsOff(t)
	if _, err := streamAll(on, false, "cat-file", "blob", blob); err == nil || packs() != before {
		t.Fatalf("sandboxed runner without its settings fetched the blob (err %v, packs %d → %d)", err, before, packs())
	}
	if _, err := streamAll(off, false, "cat-file", "blob", blob); err != nil || packs() == before {
		t.Fatalf("control: runner without settings or sandbox did not fetch (err %v); the test proves nothing", err)
	}
}

// Finding: a committed .gitmodules includes a file from anywhere on the
// host: a submodule's URL then comes from that file (another repository's
// config with a token), and a FIFO there hangs the call.
func TestHostileGitmodulesInclude(t *testing.T) {
	outside := testrepo.OutsideSubmoduleConfig(t)
	r := testrepo.New(t)
	r.Write(".gitmodules", "[submodule \"sub\"]\n\tpath = sub\n\turl = https://example.com/sub.git\n[include]\n\tpath = "+outside+"\n")
	r.Git("add", ".gitmodules")
	c := r.Commit("gitmodules")
	blobArgs := []string{"config", "--null", "--list", "--blob", c + ":.gitmodules"}

	if out := mustPlainGit(t, r.Dir, plainEnv(t), blobArgs...); !strings.Contains(out, "TOKEN") {
		t.Fatalf("control: plain git did not read the included file; the test proves nothing:\n%s", out)
	}
	on, off := sandboxedAndNot(t, r)
	if url := on.SubmoduleURL(context.Background(), c, "sub"); url != "https://example.com/sub.git" {
		t.Fatalf("runner: submodule URL %q, want the committed one", url)
	}

	settingsOff(t)
	if out, _ := streamAll(on, false, blobArgs...); strings.Contains(out, "TOKEN") {
		t.Fatalf("sandboxed runner without its settings read the outside file:\n%s", out)
	}
	if out, _ := streamAll(off, false, blobArgs...); !strings.Contains(out, "TOKEN") {
		t.Fatalf("control: runner without settings or sandbox did not read it:\n%s", out)
	}
}

func TestHostileGitmodulesIncludeFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	r := testrepo.New(t)
	r.Write(".gitmodules", "[submodule \"sub\"]\n\tpath = sub\n\turl = https://example.com/sub.git\n[include]\n\tpath = "+fifo+"\n")
	r.Git("add", ".gitmodules")
	c := r.Commit("gitmodules")
	g := open(t, r)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	if url := g.SubmoduleURL(ctx, c, "sub"); url != "https://example.com/sub.git" {
		t.Fatalf("submodule URL %q", url)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("reading .gitmodules took %v: the FIFO was opened", d)
	}
}

// The sandbox confines only the thread that starts git: the server itself
// can still run programs and read the host after many sandboxed children.
func TestSandboxLeavesTheServerFree(t *testing.T) {
	r := testrepo.New(t)
	commitFile(r, "a.txt", "a\n", "one")
	env := newEnv(t)
	requireSandbox(t, env)
	g := openIn(t, env, r)
	for range 50 {
		if _, err := streamAll(g, false, "rev-parse", "HEAD"); err != nil {
			t.Fatal(err)
		}
	}
	for range 20 { // on whatever thread Go picks
		if err := exec.Command("/bin/sh", "-c", "exit 0").Run(); err != nil {
			t.Fatalf("the server cannot run a program any more: %v", err)
		}
		if _, err := os.ReadFile("/etc/hostname"); err != nil && !os.IsNotExist(err) {
			t.Fatalf("the server cannot read the host any more: %v", err)
		}
	}
}

// Sandboxed git runs nothing but git: a shell alias is refused, and so is
// writing into the repository or reading beside it.
func TestSandboxRefusesShellWritesAndOutsideReads(t *testing.T) {
	r := testrepo.New(t)
	commitFile(r, "a.txt", "a\n", "one")
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("SECRET\n"), 0o644)
	m := newMarker(t, "alias", "exit 0")
	r.Git("config", "alias.evil", "!"+m.Script)
	on, off := sandboxedAndNot(t, r)

	streamAll(on, false, "evil")
	m.MustNotRun("sandboxed alias")
	streamAll(off, false, "evil")
	m.MustRun("unsandboxed alias")

	if _, err := streamAll(on, false, "update-ref", "refs/heads/written", "HEAD"); err == nil {
		t.Fatal("sandboxed git wrote a ref into the repository")
	}
	if _, err := streamAll(on, false, "hash-object", "--no-filters", secret); err == nil {
		t.Fatal("sandboxed git read a file outside the repository")
	}
	if out, err := streamAll(off, false, "hash-object", "--no-filters", secret); err != nil || len(strings.TrimSpace(out)) != 40 {
		t.Fatalf("control: unsandboxed hash-object = %q, %v", out, err)
	}
}

func TestParseSandboxMode(t *testing.T) {
	for in, want := range map[string]gitexec.SandboxMode{"auto": gitexec.SandboxAuto, " Required ": gitexec.SandboxRequired, "off": gitexec.SandboxOff} {
		if got, err := gitexec.ParseSandboxMode(in); err != nil || got != want {
			t.Errorf("ParseSandboxMode(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := gitexec.ParseSandboxMode("on"); err == nil {
		t.Error(`gitexec.ParseSandboxMode("on") succeeded`)
	}
	env := newEnv(t)
	if status, err := env.UseSandbox(gitexec.SandboxOff); err != nil || env.SandboxOn() || !strings.HasPrefix(status, "off") {
		t.Errorf("UseSandbox(off) = %q, %v", status, err)
	}
	status, err := env.UseSandbox(gitexec.SandboxRequired)
	if err == nil && !env.SandboxOn() || err != nil && env.SandboxOn() {
		t.Errorf("UseSandbox(required) = %q, %v with the sandbox on: %v", status, err, env.SandboxOn())
	}
}

// A repository that borrows objects from outside through alternates: with
// its reads confined, the sandbox keeps git from them, whatever package
// repo decides.
func TestSandboxConfinedReadsIgnoreOutsideAlternates(t *testing.T) {
	base := t.TempDir()
	outside := testrepo.Init(t, filepath.Join(base, "outside"))
	secret := commitFile(outside, "secret.txt", "SECRET\n", "secret")
	served := testrepo.Init(t, filepath.Join(base, "root", "acme", "widgets"))
	commitFile(served, "a.txt", "a\n", "one")
	alt := filepath.Join(served.Dir, ".git", "objects", "info", "alternates")
	if err := os.WriteFile(alt, []byte(filepath.Join(outside.Dir, ".git", "objects")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustPlainGit(t, served.Dir, plainEnv(t), "cat-file", "-e", secret) // control: git reads it

	on, off := sandboxedAndNot(t, served)
	root, _ := filepath.EvalSymlinks(filepath.Join(base, "root"))
	on.ConfineReads(root)
	off.ConfineReads(root) // no sandbox: confining has nothing to act on
	if oid, err := on.CommitID(context.Background(), secret); err == nil {
		t.Fatalf("confined, sandboxed runner read the outside commit %s", oid)
	}
	if _, err := off.CommitID(context.Background(), secret); err != nil {
		t.Fatalf("control: unsandboxed runner: %v", err)
	}
}
