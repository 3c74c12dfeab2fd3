package gitexec_test

// One test per rule of the first safety layer (docs/architecture.md,
// "Safety layers"; README, "Safety"). Each builds a hostile
// repository, runs plain git in it first (the control step: the hostile
// thing does happen), then our runner (it does not). Where a rule is one
// setting of the runner's command line, the test also runs that command line
// with only this setting removed, and the hostile thing happens again.
//
// These tests prove the first wall alone (the command line and environment),
// so the runner here has the sandbox off; sandbox_test.go proves the second.

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// diffFlags are the safety flags the project puts on every diff.
var diffFlags = []string{"--no-ext-diff", "--no-textconv", "--no-color"}

// projectDiff is the command line the project's diffs run with
// (internal/git's diffArgs; its TestDiffArgsAreTheSafetyTests' holds it to
// this list).
func projectDiff(from, to string) []string {
	return []string{"diff", "--no-color", "--no-ext-diff", "--no-textconv", "--submodule=short", "--ignore-submodules=none",
		"--src-prefix=a/", "--dst-prefix=b/", "--indent-heuristic", "-M", "-l1000", "-U3", "-p", "--end-of-options", from, to, "--"}
}

// Rule: no fsmonitor. core.fsmonitor names a program git runs whenever it
// reads the index together with a work tree.
func TestSafetyFSMonitor(t *testing.T) {
	r, _, _ := twoCommits(t)
	m := newMarker(t, "fsmonitor", "exit 1")
	r.Git("config", "core.fsmonitor", m.Script)
	g := openSettingsOnly(t, r)

	for _, args := range [][]string{{"ls-files"}, {"grep", "-e", "two"}, {"status", "--porcelain"}} {
		mustPlainGit(t, r.Dir, plainEnv(t), args...)
		m.MustRun("plain git " + strings.Join(args, " "))
	}

	out, err := workTreeOutput(t, g, "grep", "-e", "two")
	if err != nil || out != "a.txt:two\n" {
		t.Fatalf("StreamWorkTree grep = %q, %v", out, err)
	}
	m.MustNotRun("StreamWorkTree grep")
	// The runner's command line for any command on the work tree.
	for _, args := range [][]string{{"ls-files"}, {"status", "--porcelain"}} {
		if _, err := streamAll(g, true, args...); err != nil {
			t.Fatal(err)
		}
		m.MustNotRun("runner " + args[0])
	}
	if _, err := runWithout(t, g, true, []string{"core.fsmonitor"}, "ls-files"); err != nil {
		t.Fatal(err)
	}
	m.MustRun("runner without -c core.fsmonitor=false")
}

// Rule: no hooks, and reads never write the index (GIT_OPTIONAL_LOCKS=0).
// `git status` on a stale index refreshes it, writes it and runs the
// post-index-change hook; update-ref runs reference-transaction.
func TestSafetyHooks(t *testing.T) {
	for _, where := range []string{"core.hooksPath", ".git/hooks"} {
		t.Run(where, func(t *testing.T) {
			r, c1, _ := twoCommits(t)
			dir := filepath.Join(r.Dir, ".git", "hooks")
			if where == "core.hooksPath" {
				dir = t.TempDir()
				r.Git("config", "core.hooksPath", dir)
			}
			hooks := map[string]*testrepo.Marker{}
			for _, h := range []string{"post-index-change", "reference-transaction", "post-checkout"} {
				m := newMarker(t, h, "exit 0")
				script := "#!/bin/sh\nexec '" + m.Script + "' \"$@\"\n"
				if err := os.WriteFile(filepath.Join(dir, h), []byte(script), 0o755); err != nil {
					t.Fatal(err)
				}
				hooks[h] = m
			}
			g := openSettingsOnly(t, r)
			index := filepath.Join(r.Dir, ".git", "index")
			hours := 0
			stale := func() {
				// A new mtime, same content: git refreshes the entry.
				hours++
				old := time.Now().Add(-time.Duration(hours) * time.Hour)
				if err := os.Chtimes(filepath.Join(r.Dir, "a.txt"), old, old); err != nil {
					t.Fatal(err)
				}
			}
			readIndex := func() ([]byte, time.Time) {
				data, err := os.ReadFile(index)
				if err != nil {
					t.Fatal(err)
				}
				fi, err := os.Stat(index)
				if err != nil {
					t.Fatal(err)
				}
				return data, fi.ModTime()
			}
			noHook := func(what string) {
				t.Helper()
				for _, m := range hooks {
					m.MustNotRun(what)
				}
			}

			stale()
			before, mtime := readIndex()
			if out, err := streamAll(g, true, "status", "--porcelain"); err != nil || out != "" {
				t.Fatalf("runner status = %q, %v", out, err)
			}
			if _, err := workTreeOutput(t, g, "grep", "-e", "one"); err != nil {
				t.Fatal(err)
			}
			noHook("runner status/grep")
			if after, mt := readIndex(); !bytes.Equal(after, before) || !mt.Equal(mtime) {
				t.Fatal("runner status rewrote the index")
			}
			// Without GIT_OPTIONAL_LOCKS=0 the same command line writes the
			// index (and only core.hooksPath keeps the hook from running).
			if _, err := runWithout(t, g, true, []string{"GIT_OPTIONAL_LOCKS"}, "status", "--porcelain"); err != nil {
				t.Fatal(err)
			}
			if after, _ := readIndex(); bytes.Equal(after, before) {
				t.Fatal("control: status without GIT_OPTIONAL_LOCKS=0 left the index alone")
			}
			noHook("runner status without GIT_OPTIONAL_LOCKS")

			// A command that writes the index anyway runs no hook either...
			stale()
			if _, err := streamAll(g, true, "update-index", "--refresh"); err != nil {
				t.Fatal(err)
			}
			noHook("runner update-index --refresh")
			// ...unless core.hooksPath=/dev/null is taken off.
			stale()
			if _, err := runWithout(t, g, true, []string{"core.hooksPath"}, "update-index", "--refresh"); err != nil {
				t.Fatal(err)
			}
			hooks["post-index-change"].MustRun("runner without core.hooksPath=/dev/null")

			// Control: plain git status on a stale index.
			stale()
			before, _ = readIndex()
			mustPlainGit(t, r.Dir, plainEnv(t), "status", "--porcelain")
			hooks["post-index-change"].MustRun("plain git status")
			if after, _ := readIndex(); bytes.Equal(after, before) {
				t.Fatal("control: plain git status did not write the index")
			}

			// reference-transaction: plain update-ref runs it, ours does not.
			if _, err := streamAll(g, false, "update-ref", "refs/heads/ours", c1); err != nil {
				t.Fatal(err)
			}
			noHook("runner update-ref")
			mustPlainGit(t, r.Dir, plainEnv(t), "update-ref", "refs/heads/theirs", c1)
			hooks["reference-transaction"].MustRun("plain git update-ref")

			// post-checkout: plain git switch runs it.
			mustPlainGit(t, r.Dir, plainEnv(t), "switch", "-q", "theirs")
			hooks["post-checkout"].MustRun("plain git switch")
		})
	}
}

// Rule: --no-ext-diff on every diff. diff.external, and a diff driver's
// command chosen by attributes, name programs git diff runs.
func TestSafetyExternalDiff(t *testing.T) {
	for _, how := range []string{"diff.external", "diff.<driver>.command"} {
		t.Run(how, func(t *testing.T) {
			r, c1, c2 := twoCommits(t)
			m := newMarker(t, "extdiff", "exit 0")
			if how == "diff.external" {
				r.Git("config", "diff.external", m.Script)
			} else {
				if err := os.WriteFile(filepath.Join(r.Dir, ".git", "info", "attributes"), []byte("*.txt diff=ext\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				r.Git("config", "diff.ext.command", m.Script)
			}
			g := openSettingsOnly(t, r)

			mustPlainGit(t, r.Dir, plainEnv(t), "diff", c1, c2)
			m.MustRun("plain git diff")

			out := output(t, g, projectDiff(c1, c2)...)
			m.MustNotRun("runner diff " + strings.Join(diffFlags, " "))
			if want := mustPlainGit(t, r.Dir, plainEnv(t), projectDiff(c1, c2)...); out != want || !strings.Contains(out, "+two") {
				t.Fatalf("runner diff = %q, plain git = %q", out, want)
			}

			output(t, g, "diff", c1, c2)
			m.MustRun("runner diff without --no-ext-diff")
		})
	}
}

// Rule: --no-textconv on every diff. Attributes pick a diff driver whose
// textconv program the repository's config names: a committed .gitattributes
// (read from the work tree: plain git in a checkout) and info/attributes
// (read always, so also by the runner, which gives git no work tree here).
func TestSafetyTextconv(t *testing.T) {
	r := testrepo.New(t)
	r.Write(".gitattributes", "*.txt diff=conv\n")
	c1 := commitFile(r, "a.txt", "one\n", "one")
	c2 := commitFile(r, "a.txt", "one\ntwo\n", "two")
	if err := os.WriteFile(filepath.Join(r.Dir, ".git", "info", "attributes"), []byte("*.txt diff=conv\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := newMarker(t, "textconv", `cat "$1"`)
	r.Git("config", "diff.conv.textconv", m.Script)
	g := openSettingsOnly(t, r)

	for _, args := range [][]string{
		{"diff", c1, c2}, {"log", "-p", "-1", c2}, {"show", c2}, {"grep", "--textconv", "-e", "two", c2},
	} {
		mustPlainGit(t, r.Dir, plainEnv(t), args...)
		m.MustRun("plain git " + strings.Join(args, " "))
	}

	for _, args := range [][]string{
		projectDiff(c1, c2),
		append(append([]string{"log", "-p", "-1"}, diffFlags...), c2),
		{"grep", "-e", "two", c2},
	} {
		output(t, g, args...)
		m.MustNotRun("runner " + strings.Join(args, " "))
	}
	if _, err := g.LastCommitFor(context.Background(), c2, "a.txt"); err != nil {
		t.Fatal(err)
	}
	m.MustNotRun("LastCommitFor")

	output(t, g, "diff", "--no-ext-diff", c1, c2)
	m.MustRun("runner diff without --no-textconv")
}

// Rule: no signature verification (log.showSignature=false on the command
// line, --no-show-signature in LastCommitFor). A repository that sets
// log.showSignature and gpg.program runs that program for every signed
// commit git log shows.
func TestSafetySignatures(t *testing.T) {
	r, c1, _ := twoCommits(t)
	tree := strings.TrimSpace(r.Git("rev-parse", c1+"^{tree}"))
	commit := "tree " + tree + "\nparent " + c1 + "\n" +
		"author A <a@example.com> 1700000000 +0000\ncommitter C <c@example.com> 1700000100 +0000\n" +
		"gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEEexample\n -----END PGP SIGNATURE-----\n\nsigned\n"
	file := filepath.Join(t.TempDir(), "commit")
	if err := os.WriteFile(file, []byte(commit), 0o644); err != nil {
		t.Fatal(err)
	}
	signed := strings.TrimSpace(r.Git("hash-object", "-t", "commit", "-w", file))
	r.Git("update-ref", "refs/heads/main", signed)
	m := newMarker(t, "gpg", "exit 1")
	r.Git("config", "log.showSignature", "true")
	r.Git("config", "gpg.program", m.Script)
	g := openSettingsOnly(t, r)

	mustPlainGit(t, r.Dir, plainEnv(t), "log", "-1", "--format=%H")
	m.MustRun("plain git log")

	last, err := g.LastCommitFor(context.Background(), signed, "")
	if err != nil || last.OID != signed || last.CommitterDate != "2023-11-14T22:15:00+00:00" || last.AuthorDate != "2023-11-14T22:13:20+00:00" {
		t.Fatalf("LastCommitFor = %+v, %v", last, err)
	}
	m.MustNotRun("LastCommitFor")
	// Any log through the runner, even without --no-show-signature.
	output(t, g, "log", "-1", "--format=%H", signed)
	m.MustNotRun("runner log")
	if _, err := runWithout(t, g, false, []string{"log.showSignature"}, "log", "-1", "--format=%H", signed); err != nil {
		t.Fatal(err)
	}
	m.MustRun("runner log without -c log.showSignature=false")
}

// Rule: no pager (GIT_PAGER=cat, core.pager=cat, and stdout is a pipe).
// git starts a pager only when stdout is a terminal: script(1) gives it one.
func TestSafetyPager(t *testing.T) {
	scriptBin, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) is not installed: git starts a pager only on a terminal, and nothing else here gives it one")
	}
	r, _, _ := twoCommits(t)
	m := newMarker(t, "pager", "cat >/dev/null")
	r.Git("config", "core.pager", m.Script)
	r.Git("config", "pager.log", m.Script)
	g := openSettingsOnly(t, r)
	onTerminal := func(dir string, env, argv []string) {
		t.Helper()
		quoted := make([]string, len(argv))
		for i, a := range argv {
			quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		cmd := exec.Command(scriptBin, "-qec", strings.Join(quoted, " "), "/dev/null")
		cmd.Dir = dir
		cmd.Env = append(env[:len(env):len(env)], "SHELL=/bin/sh", "TERM=xterm")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("script %v: %v\n%s", argv, err, out)
		}
	}

	onTerminal(r.Dir, plainEnv(t), []string{"git", "log", "-1"})
	m.MustRun("plain git log on a terminal")

	cmd := gitexec.ExecCmd(g.runner(), gitexec.Command("log", "-1"))
	onTerminal(cmd.Dir, cmd.Env, cmd.Args)
	m.MustNotRun("runner's git log on a terminal")
	output(t, g, "log", "-1")
	m.MustNotRun("runner log")

	// pager.log beats -c core.pager=cat: GIT_PAGER=cat is what holds.
	var env []string
	for _, kv := range cmd.Env {
		if !strings.HasPrefix(kv, "GIT_PAGER=") {
			env = append(env, kv)
		}
	}
	onTerminal(cmd.Dir, env, cmd.Args)
	m.MustRun("runner's git log on a terminal without GIT_PAGER=cat")
}

// Rule: a user-supplied revision never reaches a place where git parses
// options. `git log --output=FILE` writes FILE.
func TestSafetyOptionInjection(t *testing.T) {
	r, _, c2 := twoCommits(t)
	g := openSettingsOnly(t, r)
	ctx := context.Background()
	target := filepath.Join(t.TempDir(), "written")
	exists := func() bool { _, err := os.Stat(target); return err == nil }

	mustPlainGit(t, r.Dir, plainEnv(t), "log", "-1", "--output="+target)
	if !exists() {
		t.Fatal("control: plain git log --output did not write the file")
	}
	os.Remove(target)

	evil := "--output=" + target
	if _, err := g.CommitID(ctx, evil); !errors.Is(err, git.ErrMissing) {
		t.Errorf("CommitID(%q) = %v, want git.ErrMissing", evil, err)
	}
	if _, err := g.LastCommitFor(ctx, evil, ""); err == nil {
		t.Errorf("LastCommitFor(%q) succeeded", evil)
	}
	if _, err := g.LastCommitFor(ctx, evil, "a.txt"); err == nil {
		t.Errorf("LastCommitFor(%q, a.txt) succeeded", evil)
	}
	// After "--" it is a path (that no commit touched).
	if last, err := g.LastCommitFor(ctx, c2, evil); err == nil {
		t.Errorf("LastCommitFor(c2, %q) = %+v", evil, last)
	}
	if g.HasRef(ctx, evil) || g.HasRef(ctx, "--help") {
		t.Error("HasRef took an option for a ref")
	}
	if exists() {
		t.Fatal("the runner let a revision write a file")
	}

	// ConfigValue: a key is a key. Plain `git config --get -l` would list.
	r.Git("config", "user.name", "someone")
	if v := g.ConfigValue(ctx, "-l"); v != "" {
		t.Errorf("ConfigValue(-l) = %q", v)
	}
	if v := g.ConfigValue(ctx, "--list"); v != "" {
		t.Errorf("ConfigValue(--list) = %q", v)
	}
}

// Rule: paths go after "--" as literal pathspecs (--literal-pathspecs).
func TestSafetyLiteralPathspecs(t *testing.T) {
	r := testrepo.New(t)
	c1 := commitFile(r, "*.txt", "literal\n", "star")
	c2 := commitFile(r, "a.txt", "a\n", "a")
	g := openSettingsOnly(t, r)

	if got := strings.TrimSpace(mustPlainGit(t, r.Dir, plainEnv(t), "log", "-1", "--format=%H", "--", "*.txt")); got != c2 {
		t.Fatalf("control: plain git log -- '*.txt' = %s, want the glob to match a.txt (%s)", got, c2)
	}
	last, err := g.LastCommitFor(context.Background(), c2, "*.txt")
	if err != nil || last.OID != c1 {
		t.Fatalf("LastCommitFor(*.txt) = %+v, %v; want %s", last, err, c1)
	}
	// Pathspec magic is literal too.
	if _, err := g.LastCommitFor(context.Background(), c2, ":(exclude)a.txt"); err == nil {
		t.Error("LastCommitFor read :(exclude) as magic")
	}
}

// Rule: an argument vector, never a shell.
func TestSafetyNoShell(t *testing.T) {
	r, _, c2 := twoCommits(t)
	g := openSettingsOnly(t, r)
	target := filepath.Join(t.TempDir(), "pwned")
	evil := "$(touch " + target + ")"

	exec.Command("sh", "-c", "echo git log -1 -- "+evil).Run()
	if _, err := os.Stat(target); err != nil {
		t.Fatal("control: the shell did not run the substitution")
	}
	os.Remove(target)

	g.LastCommitFor(context.Background(), c2, evil)
	g.LastCommitFor(context.Background(), evil, "a.txt")
	g.CommitID(context.Background(), evil)
	if _, err := os.Stat(target); err == nil {
		t.Fatal("the runner went through a shell")
	}
}

// Rule: the server's own environment does not reach git. Each variable is
// set in this process (t.Setenv); plain git in this environment obeys it,
// the runner's children never see it.
func TestSafetyParentEnvironment(t *testing.T) {
	r, c1, c2 := twoCommits(t)
	other := testrepo.New(t)
	commitFile(other, "other.txt", "needle in the other repository\n", "other")
	other.Write("a.txt", "needle in the other work tree\n")
	ctx := context.Background()
	hostEnv := func() []string { return append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1") }

	extDiff := func(t *testing.T, set func(m *testrepo.Marker)) {
		m := newMarker(t, "extdiff", "exit 0")
		set(m)
		g := openSettingsOnly(t, r)
		mustPlainGit(t, r.Dir, hostEnv(), "diff", c1, c2)
		m.MustRun("plain git diff")
		// Without --no-ext-diff on purpose: the variable must not arrive.
		output(t, g, "diff", c1, c2)
		m.MustNotRun("runner diff")
	}
	t.Run("GIT_EXTERNAL_DIFF", func(t *testing.T) {
		extDiff(t, func(m *testrepo.Marker) { t.Setenv("GIT_EXTERNAL_DIFF", m.Script) })
	})
	t.Run("GIT_CONFIG_PARAMETERS", func(t *testing.T) {
		extDiff(t, func(m *testrepo.Marker) { t.Setenv("GIT_CONFIG_PARAMETERS", "'diff.external'='"+m.Script+"'") })
	})
	t.Run("GIT_CONFIG_COUNT", func(t *testing.T) {
		extDiff(t, func(m *testrepo.Marker) {
			t.Setenv("GIT_CONFIG_COUNT", "1")
			t.Setenv("GIT_CONFIG_KEY_0", "diff.external")
			t.Setenv("GIT_CONFIG_VALUE_0", m.Script)
		})
	})
	t.Run("GIT_CONFIG_GLOBAL", func(t *testing.T) {
		extDiff(t, func(m *testrepo.Marker) {
			cfg := filepath.Join(t.TempDir(), "gitconfig")
			os.WriteFile(cfg, []byte("[diff]\n\texternal = "+m.Script+"\n"), 0o644)
			t.Setenv("GIT_CONFIG_GLOBAL", cfg)
		})
	})
	t.Run("GIT_CONFIG_SYSTEM", func(t *testing.T) {
		m := newMarker(t, "extdiff", "exit 0")
		cfg := filepath.Join(t.TempDir(), "gitconfig")
		os.WriteFile(cfg, []byte("[diff]\n\texternal = "+m.Script+"\n"), 0o644)
		t.Setenv("GIT_CONFIG_SYSTEM", cfg)
		g := openSettingsOnly(t, r)
		mustPlainGit(t, r.Dir, os.Environ(), "diff", c1, c2)
		m.MustRun("plain git diff")
		output(t, g, "diff", c1, c2)
		m.MustNotRun("runner diff")
	})
	t.Run("GIT_DIR", func(t *testing.T) {
		t.Setenv("GIT_DIR", other.GitDir())
		g := openSettingsOnly(t, r)
		if got := strings.TrimSpace(mustPlainGit(t, r.Dir, hostEnv(), "rev-parse", "HEAD")); got != other.Head() {
			t.Fatalf("control: plain git rev-parse HEAD = %s, want the other repository's %s", got, other.Head())
		}
		if got, err := g.CommitID(ctx, "HEAD"); err != nil || got != c2 {
			t.Fatalf("CommitID(HEAD) = %s, %v; want %s", got, err, c2)
		}
		if got := output(t, g, "rev-parse", "HEAD"); strings.TrimSpace(got) != c2 {
			t.Fatalf("runner rev-parse HEAD = %s", got)
		}
	})
	t.Run("GIT_WORK_TREE", func(t *testing.T) {
		t.Setenv("GIT_WORK_TREE", other.Dir)
		g := openSettingsOnly(t, r)
		if got := mustPlainGit(t, r.Dir, hostEnv(), "grep", "-e", "needle"); !strings.Contains(got, "other work tree") {
			t.Fatalf("control: plain git grep = %q, want the other work tree", got)
		}
		if got, err := workTreeOutput(t, g, "grep", "-e", "two"); err != nil || got != "a.txt:two\n" {
			t.Fatalf("runner grep = %q, %v", got, err)
		}
	})
	t.Run("GIT_INDEX_FILE", func(t *testing.T) {
		t.Setenv("GIT_INDEX_FILE", filepath.Join(other.GitDir(), "index"))
		g := openSettingsOnly(t, r)
		if got := mustPlainGit(t, r.Dir, hostEnv(), "ls-files"); !strings.Contains(got, "other.txt") {
			t.Fatalf("control: plain git ls-files = %q, want the other index", got)
		}
		if got := output(t, g, "ls-files"); got != "a.txt\n" {
			t.Fatalf("runner ls-files = %q", got)
		}
		if got, err := workTreeOutput(t, g, "grep", "-l", "-e", "e"); err != nil || got != "a.txt\n" {
			t.Fatalf("runner grep -l = %q, %v", got, err)
		}
	})
}

// Rule: the user's config is not read (HOME, XDG_CONFIG_HOME and the system
// file are the server's: GIT_CONFIG_GLOBAL, GIT_CONFIG_NOSYSTEM).
func TestSafetyUserConfig(t *testing.T) {
	r, c1, c2 := twoCommits(t)
	ctx := context.Background()

	t.Run("HOME/.gitconfig", func(t *testing.T) {
		home := t.TempDir()
		m := newMarker(t, "extdiff", "exit 0")
		os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[diff]\n\texternal = "+m.Script+"\n"), 0o644)
		t.Setenv("HOME", home)
		t.Setenv("XDG_CONFIG_HOME", "")
		mustPlainGit(t, r.Dir, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1"}, "diff", c1, c2)
		m.MustRun("plain git diff with HOME")
		g := openSettingsOnly(t, r)
		output(t, g, "diff", c1, c2) // without --no-ext-diff on purpose
		m.MustNotRun("runner diff")
		if v := g.ConfigValue(ctx, "diff.external"); v != "" {
			t.Fatalf("ConfigValue(diff.external) = %q", v)
		}
	})
	t.Run("XDG_CONFIG_HOME", func(t *testing.T) {
		xdg := t.TempDir()
		m := newMarker(t, "textconv", `cat "$1"`)
		os.MkdirAll(filepath.Join(xdg, "git"), 0o755)
		os.WriteFile(filepath.Join(xdg, "git", "config"), []byte("[diff \"conv\"]\n\ttextconv = "+m.Script+"\n"), 0o644)
		// The default core.attributesFile is $XDG_CONFIG_HOME/git/attributes.
		os.WriteFile(filepath.Join(xdg, "git", "attributes"), []byte("*.txt diff=conv\n"), 0o644)
		t.Setenv("HOME", t.TempDir())
		t.Setenv("XDG_CONFIG_HOME", xdg)
		mustPlainGit(t, r.Dir, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "XDG_CONFIG_HOME=" + xdg, "GIT_CONFIG_NOSYSTEM=1"}, "diff", c1, c2)
		m.MustRun("plain git diff with XDG_CONFIG_HOME")
		g := openSettingsOnly(t, r)
		output(t, g, "diff", "--no-ext-diff", c1, c2) // without --no-textconv on purpose
		m.MustNotRun("runner diff")
	})
	t.Run("system", func(t *testing.T) {
		// The machine's own /etc/gitconfig (or whatever git was built with):
		// only readable here, never written.
		control, err := plainGit(t, r.Dir, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, "config", "--system", "--list", "--show-origin")
		if err != nil || strings.TrimSpace(control) == "" {
			t.Skip("this machine has no system git config to show that it is skipped")
		}
		g := openSettingsOnly(t, r)
		got := output(t, g, "config", "--list", "--show-origin")
		for _, line := range strings.Split(strings.TrimSpace(got), "\n") {
			if !strings.HasPrefix(line, "command line:") && !strings.HasPrefix(line, "file:"+r.GitDir()+"/config") {
				t.Errorf("runner read config from outside the repository and the command line: %q", line)
			}
		}
		without, err := runWithout(t, g, false, []string{"GIT_CONFIG_NOSYSTEM"}, "config", "--list", "--show-origin")
		if err != nil || !strings.Contains(without, strings.SplitN(control, "\n", 2)[0]) {
			t.Fatalf("control: runner without GIT_CONFIG_NOSYSTEM = %q, %v; want the system config %q", without, err, control)
		}
	})
}

// Rule: --git-dir and --work-tree are always given, so core.worktree in the
// repository's config chooses nothing.
func TestSafetyCoreWorktree(t *testing.T) {
	r := testrepo.New(t)
	commitFile(r, "a.txt", "one\ntwo\n", "a")
	commitFile(r, "b.txt", "bee\n", "b")
	elsewhere := t.TempDir()
	os.WriteFile(filepath.Join(elsewhere, "a.txt"), []byte("one\ntwo\n"), 0o644)
	os.WriteFile(filepath.Join(elsewhere, "b.txt"), []byte("bee elsewhere\n"), 0o644)
	os.WriteFile(filepath.Join(elsewhere, ".gitattributes"), []byte("*.txt filter=clean\n"), 0o644)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(elsewhere, "a.txt"), old, old) // same content, other stat: git hashes it
	m := newMarker(t, "clean", "cat")
	r.Git("config", "filter.clean.clean", m.Script)
	r.Git("config", "core.worktree", elsewhere)
	g := openSettingsOnly(t, r)
	outside := t.TempDir() // plain git given only --git-dir, from elsewhere
	plain := append(plainEnv(t), "GIT_OPTIONAL_LOCKS=0")

	if got := mustPlainGit(t, outside, plain, "--git-dir="+r.GitDir(), "grep", "-e", "elsewhere"); got != "b.txt:bee elsewhere\n" {
		t.Fatalf("control: plain git grep = %q, want the configured work tree", got)
	}
	if got, err := workTreeOutput(t, g, "grep", "-c", "-e", "."); err != nil || got != "a.txt:2\nb.txt:1\n" {
		t.Fatalf("runner grep = %q, %v; want the opened work tree", got, err)
	}

	// Commands run without the work tree do not fall back to core.worktree:
	// status there would run the clean filter on the changed a.txt.
	mustPlainGit(t, outside, plain, "--git-dir="+r.GitDir(), "status", "--porcelain")
	m.MustRun("plain git --git-dir status")
	if _, err := outputRaw(context.Background(), g, "status", "--porcelain"); err != nil {
		t.Fatal(err)
	}
	m.MustNotRun("runner status")
}

// Rule: the repository cannot run code through its clean filters. Commands
// that compare the work tree with the index (status, diff, ls-files -m) run
// filter.<driver>.clean on changed files, whatever -c says: StreamWorkTree
// takes only grep, which reads files as they are.
func TestSafetyWorkTreeFilters(t *testing.T) {
	r := testrepo.New(t)
	r.Write(".gitattributes", "*.txt filter=clean\n")
	commitFile(r, "a.txt", "one\n", "one")
	m := newMarker(t, "clean", "cat")
	r.Git("config", "filter.clean.clean", m.Script)
	g := openSettingsOnly(t, r)
	hours := 0
	stale := func() {
		// Same content, another mtime: git hashes the file, through the filter.
		hours++
		old := time.Now().Add(-time.Duration(hours) * time.Hour)
		if err := os.Chtimes(filepath.Join(r.Dir, "a.txt"), old, old); err != nil {
			t.Fatal(err)
		}
	}

	for _, args := range [][]string{{"status", "--porcelain"}, {"diff"}, {"ls-files", "-m"}} {
		stale()
		mustPlainGit(t, r.Dir, plainEnv(t), args...)
		m.MustRun("plain git " + strings.Join(args, " "))
		// With all of the runner's settings, the filter still runs...
		stale()
		if _, err := streamAll(g, true, args...); err != nil {
			t.Fatal(err)
		}
		m.MustRun("runner's command line for " + strings.Join(args, " "))
		// ...so StreamWorkTree refuses these commands.
		if _, err := workTreeOutput(t, g, args...); err == nil {
			t.Fatalf("StreamWorkTree accepted %v", args)
		}
		m.MustNotRun("StreamWorkTree " + args[0])
	}
	stale()
	if got, err := workTreeOutput(t, g, "grep", "-e", "one"); err != nil || got != "a.txt:one\n" {
		t.Fatalf("StreamWorkTree grep = %q, %v", got, err)
	}
	m.MustNotRun("StreamWorkTree grep")
	if _, err := workTreeOutput(t, g); err == nil {
		t.Fatal("StreamWorkTree accepted no command")
	}
}

// Rule: --git-dir also avoids "dubious ownership" refusals when the server
// runs as another user than the repository's owner.
func TestSafetyDubiousOwnership(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give the repository to another user")
	}
	r, _, c2 := twoCommits(t)
	err := filepath.Walk(r.Dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, 12345, 12345)
	})
	if err != nil {
		t.Skipf("cannot give the repository to uid 12345: %v", err)
	}
	out, err := plainGit(t, r.Dir, plainEnv(t), "log", "-1")
	if err == nil || !strings.Contains(out, "dubious ownership") {
		t.Fatalf("control: plain git log in another user's repository = %q, %v; want a refusal", out, err)
	}
	g := openSettingsOnly(t, r)
	ctx := context.Background()
	if got, err := g.CommitID(ctx, "HEAD"); err != nil || got != c2 {
		t.Fatalf("CommitID = %s, %v", got, err)
	}
	if last, err := g.LastCommitFor(ctx, c2, "a.txt"); err != nil || last.OID != c2 {
		t.Fatalf("LastCommitFor = %+v, %v", last, err)
	}
	if got, err := workTreeOutput(t, g, "grep", "-e", "two"); err != nil || got != "a.txt:two\n" {
		t.Fatalf("StreamWorkTree grep = %q, %v", got, err)
	}
}

// Rule: GIT_NO_REPLACE_OBJECTS=1: refs/replace/ cannot make an object read
// as another one.
func TestSafetyReplaceObjects(t *testing.T) {
	r := testrepo.New(t)
	commitFile(r, "a.txt", "real\n", "one")
	real := strings.TrimSpace(r.Git("rev-parse", "HEAD:a.txt"))
	fake := strings.TrimSpace(r.Git("hash-object", "-w", writeTemp(t, "fake\n")))
	r.Git("replace", real, fake)
	g := openSettingsOnly(t, r)

	if got := mustPlainGit(t, r.Dir, plainEnv(t), "cat-file", "blob", real); got != "fake\n" {
		t.Fatalf("control: plain git cat-file = %q, want the replacement", got)
	}
	if got := readBlob(t, g, real); got != "real\n" {
		t.Fatalf("ReadObject = %q", got)
	}
	if got := output(t, g, "cat-file", "blob", real); got != "real\n" {
		t.Fatalf("runner cat-file = %q", got)
	}
	if got, _ := runWithout(t, g, false, []string{"GIT_NO_REPLACE_OBJECTS"}, "cat-file", "blob", real); got != "fake\n" {
		t.Fatalf("control: runner without GIT_NO_REPLACE_OBJECTS = %q", got)
	}
}

// Rule: the long-lived cat-file reader takes NUL-separated requests and
// refuses names with a newline. Without -z, one name with a newline is two
// requests, and every reply after it belongs to the wrong caller.
func TestSafetyCatFileRequests(t *testing.T) {
	r := testrepo.New(t)
	for _, name := range []string{"a b.txt", "tab\there.txt", `quote"and\back.txt`, "ünï.txt"} {
		r.Write(name, name+"\n")
	}
	commit := r.Commit("names")
	g := openSettingsOnly(t, r)
	ctx := context.Background()

	cmd := exec.Command("git", "cat-file", "--batch-check")
	cmd.Dir, cmd.Env = r.Dir, plainEnv(t)
	cmd.Stdin = strings.NewReader("HEAD:a\nb.txt\n")
	out, _ := cmd.Output()
	if n := strings.Count(string(out), "\n"); n != 2 {
		t.Fatalf("control: plain cat-file --batch-check gave %d replies to one name with a newline: %q", n, out)
	}

	for _, name := range []string{"HEAD:a\nb.txt", "HEAD\x00", "HEAD:a b.txt\ninfo HEAD"} {
		if _, err := g.Info(ctx, name); err == nil || errors.Is(err, git.ErrMissing) {
			t.Errorf("Info(%q) = %v, want a refusal", name, err)
		}
	}
	for _, name := range []string{"a b.txt", "tab\there.txt", `quote"and\back.txt`, "ünï.txt"} {
		if got := readBlob(t, g, commit+":"+name); got != name+"\n" {
			t.Errorf("ReadObject(%q) = %q", name, got)
		}
	}
}

// Rule (the intent of the runner's -c list): the repository's config does
// not change what git prints. color.<command>=always beats color.ui=false,
// diff.noprefix drops the a/ b/ prefixes git apply expects, and grep.*
// settings add columns and line numbers or change the pattern syntax.
func TestSafetyOutputConfig(t *testing.T) {
	r, c1, c2 := twoCommits(t)
	commitFile(r, "b.txt", "x+y\nxxy\n", "b")
	plain := plainEnv(t)
	want := map[string]string{}
	cases := [][]string{
		{"diff", c1, c2},
		{"log", "-p", "-1", "--format=%H", c2},
		{"grep", "-e", "x+y", "HEAD"},
		{"grep", "-n", "-e", "x+y", "HEAD"},
	}
	for _, args := range cases {
		want[strings.Join(args, " ")] = mustPlainGit(t, r.Dir, plain, args...)
	}
	wantWT := mustPlainGit(t, r.Dir, plain, "grep", "-e", "x+y")
	for _, kv := range [][2]string{
		{"color.diff", "always"}, {"color.grep", "always"}, {"diff.noprefix", "true"}, {"diff.mnemonicPrefix", "true"},
		{"grep.column", "true"}, {"grep.lineNumber", "true"}, {"grep.patternType", "extended"},
	} {
		r.Git("config", kv[0], kv[1])
	}
	g := openSettingsOnly(t, r)
	for _, args := range cases {
		key := strings.Join(args, " ")
		if strings.Contains(key, "x+y") && mustPlainGit(t, r.Dir, plain, args...) == want[key] {
			t.Fatalf("control: the config did not change plain git %s", key)
		}
		if got := output(t, g, args...); got != want[key] {
			t.Errorf("runner %s =\n%q\nwant\n%q", key, got, want[key])
		}
	}
	if got, err := workTreeOutput(t, g, "grep", "-e", "x+y"); err != nil || got != wantWT {
		t.Errorf("StreamWorkTree grep = %q, %v; want %q", got, err, wantWT)
	}
	if got := mustPlainGit(t, r.Dir, plain, "diff", c1, c2); !strings.Contains(got, "diff --git a.txt a.txt") {
		t.Fatalf("control: diff.noprefix did not drop the prefixes: %q", got)
	}
}
