//go:build unix

package server

// Hostile repositories that tried to run programs or read host files
// through git itself, driven through the tools with every rule on
// (internal/git's sandbox_test.go shows each wall alone).

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// hostileProgram writes a script that leaves a file when it runs.
func hostileProgram(t *testing.T) (script, ran string) {
	t.Helper()
	dir := t.TempDir()
	script, ran = filepath.Join(dir, "evil.sh"), filepath.Join(dir, "ran")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho ran >> '"+ran+"'\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return script, ran
}

func mustNotHaveRun(t *testing.T, ran, what string) {
	t.Helper()
	if _, err := os.Stat(ran); err == nil {
		t.Fatalf("%s ran the repository's program", what)
	}
}

func commitOne(r *testrepo.Repo, path, content, msg string) {
	r.Write(path, content)
	r.Git("add", path)
	r.Commit(msg)
}

// A submodule bump with diff.submodule=diff and the submodule's own
// diff.external: get_diff shows the submodule as commit ids and runs nothing.
func TestHostileSubmoduleDiffTools(t *testing.T) {
	r := testrepo.SubmoduleBump(t, t.TempDir())
	r.Commit("bump")
	script, ran := hostileProgram(t)
	r.Git("config", "diff.submodule", "diff")
	r.Git("--git-dir="+filepath.Join(r.Dir, ".git", "modules", "sub"), "config", "diff.external", script)

	h := serve(t, r)
	for _, args := range []map[string]any{
		{"base": "HEAD~1", "head": "HEAD", "mode": "direct"},
		{"base": "HEAD~1", "head": "HEAD", "mode": "direct", "paths": []string{"sub"}},
	} {
		out := h.ok("get_diff", args)
		mustNotHaveRun(t, ran, "get_diff")
		if !strings.Contains(out, "+Subproject commit ") || strings.Contains(out, "budget") {
			t.Fatalf("get_diff(%v) does not show the submodule bump as commit ids:\n%s", args, out)
		}
	}
	h.ok("list_changed_files", map[string]any{"base": "HEAD~1", "head": "HEAD", "mode": "direct"})
	mustNotHaveRun(t, ran, "list_changed_files")
}

// A promisor remote whose uploadpack is a script: reading a missing object
// is INVALID_REF, runs nothing and writes nothing.
func TestHostileLazyFetchTools(t *testing.T) {
	r := testrepo.New(t)
	commitOne(r, "a.txt", "a\n", "one")
	script, ran := hostileProgram(t)
	r.Git("config", "core.repositoryformatversion", "1")
	r.Git("config", "extensions.partialClone", "origin")
	r.Git("config", "remote.origin.url", t.TempDir())
	r.Git("config", "remote.origin.promisor", "true")
	r.Git("config", "remote.origin.uploadpack", script)
	before := r.Snapshot()

	h := serve(t, r)
	missing := strings.Repeat("ab", 20)
	h.fails("read_file", map[string]any{"path": "a.txt", "ref": missing}, "INVALID_REF")
	h.fails("search_code", map[string]any{"query": "a", "ref": missing}, "INVALID_REF")
	mustNotHaveRun(t, ran, "read_file and search_code")
	if after := r.Snapshot(); after != before {
		t.Fatal("the repository changed")
	}
}

// A committed .gitmodules that includes a host file: the submodule's URL
// is the committed one, and an included FIFO does not hang the call.
func TestHostileGitmodulesIncludeTools(t *testing.T) {
	outside := testrepo.OutsideSubmoduleConfig(t)
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sub := testrepo.New(t)
	sub.Commit("submodule root")
	r := testrepo.New(t)
	r.Git("-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.Dir, "sub")
	for _, include := range []string{outside, fifo} {
		r.Write(".gitmodules", "[submodule \"sub\"]\n\tpath = sub\n\turl = https://example.com/sub.git\n[include]\n\tpath = "+include+"\n")
		r.Git("add", ".gitmodules")
		r.Commit("include " + include)
		h := serve(t, r, withTimeout(10*time.Second))
		start := time.Now()
		var sm forge.ContentsResponse
		mustJSON(t, h.ok("get_file_content", fileArgs("sub", "with_metadata", true)), &sm)
		if got := deref(sm.SubmoduleGitURL); got != "https://example.com/sub.git" {
			t.Fatalf("include %s: submodule_git_url %q, want the committed URL", include, got)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Fatalf("include %s: the call took %v", include, d)
		}
		listing := h.ok("get_file_content", fileArgs("", "with_metadata", true))
		if strings.Contains(listing, "TOKEN") {
			t.Fatalf("the root listing shows the outside file's URL:\n%s", listing)
		}
	}
}

// A repository's own config that includes a host file: git may not read
// it, so the repository cannot be read, and the errors say the sandbox
// refused, without what the file holds or any host path (a retry never
// helps: not UNAVAILABLE).
func TestHostileConfigIncludeTools(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(outside, []byte("[remote \"origin\"]\n\turl = https://TOKEN@forge.example/secret.git\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := testrepo.New(t)
	commitOne(r, "a.txt", "a\n", "one")
	r.Git("config", "include.path", outside)
	if !strings.Contains(r.Git("config", "remote.origin.url"), "TOKEN") {
		t.Fatal("control: plain git did not read the included file")
	}
	if !testEnv(t).SandboxOn() {
		t.Skip("the sandbox is off: git reads the included file")
	}
	h := serve(t, r)
	for _, tool := range []string{"read_file", "search_code"} {
		a := map[string]any{"path": "a.txt", "ref": "HEAD"}
		if tool == "search_code" {
			a = map[string]any{"query": "a", "ref": "HEAD"}
		}
		msg := h.fails(tool, a, "PERMISSION_DENIED")
		if strings.Contains(msg, "TOKEN") || !strings.Contains(msg, "sandbox refused") || !strings.Contains(msg, "config") || strings.Contains(msg, outside) || strings.Contains(msg, r.Dir) {
			t.Errorf("%s: %s", tool, msg)
		}
	}
}

// One repository holding every way the review and the safety rules know for
// a repository to name a program, a host file or a fetch, served and asked
// through every tool the server lists, on the work tree and at refs: no
// program runs, the repository and the host stay as they were, and no
// reply carries what an include read from outside.
func TestHostileRepositoryEveryTool(t *testing.T) {
	base := t.TempDir()
	script, ran := hostileProgram(t)
	outside := testrepo.OutsideSubmoduleConfig(t)
	r := testrepo.SubmoduleBump(t, base)
	r.Write(".gitattributes", "* filter=evil diff=evil\n")
	r.Write(".gitmodules", "[submodule \"sub\"]\n\tpath = sub\n\turl = https://example.com/sub.git\n[include]\n\tpath = "+outside+"\n")
	r.Write("code.go", "package code\n\nfunc A() { B() }\n")
	r.Git("add", ".gitattributes", ".gitmodules", "code.go")
	r.Commit("bump, change, attributes and an include")
	r.Git("update-ref", "refs/pull/1/head", "HEAD")
	r.Git("reset", "-q", "--hard", "HEAD~2") // main is the pull request's base
	hooks := filepath.Join(t.TempDir(), "hooks")
	os.MkdirAll(hooks, 0o755)
	for _, hook := range []string{"post-checkout", "post-index-change", "reference-transaction", "pre-auto-gc"} {
		os.Symlink(script, filepath.Join(hooks, hook))
	}
	for _, kv := range [][2]string{
		{"core.hooksPath", hooks}, {"core.fsmonitor", script}, {"core.pager", script},
		{"core.sshCommand", script}, {"core.askPass", script}, {"credential.helper", "!" + script},
		{"diff.external", script}, {"diff.submodule", "diff"}, {"diff.evil.command", script},
		{"diff.evil.textconv", script}, {"filter.evil.clean", script}, {"filter.evil.smudge", script},
		{"filter.evil.process", script}, {"gpg.program", script}, {"log.showSignature", "true"},
		{"pager.grep", script}, {"pager.diff", script}, {"alias.grep", "!" + script},
		{"core.repositoryformatversion", "1"}, {"extensions.partialClone", "origin"},
		{"remote.origin.url", t.TempDir()}, {"remote.origin.promisor", "true"}, {"remote.origin.uploadpack", script},
	} {
		r.Git("config", kv[0], kv[1])
	}
	r.Git("--git-dir="+filepath.Join(r.Dir, ".git", "modules", "sub"), "config", "diff.external", script)
	r.Git("--git-dir="+filepath.Join(r.Dir, ".git", "modules", "sub"), "config", "core.fsmonitor", script)
	watch := &hostileWatch{dirs: []string{base}}
	before := watch.listing(t) // plain git status would run the fsmonitor
	missing := strings.Repeat("ab", 20)

	h := serve(t, r)
	calls := map[string][]map[string]any{
		"list_repositories":        {{}},
		"list_symbols":             {{"path": "t"}, {"path": "code.go", "ref": "pull/1/head"}, {"path": "t", "ref": missing}},
		"find_symbol":              {{"name": "B"}, {"name": "B", "mode": "references", "ref": "pull/1/head"}, {"name": "B", "include": "body", "ref": "pull/1/head"}, {"name": "B", "ref": missing}},
		"get_pull_request_symbols": {{"owner": "acme", "repo": "widgets", "index": 1}},
		"get_file_content": {fileArgs("t"), fileArgs("code.go", "ref", "pull/1/head"), fileArgs("sub", "with_metadata", true, "ref", "pull/1/head"),
			fileArgs("", "with_metadata", true), fileArgs("", "with_metadata", true, "ref", "pull/1/head")},
		"read_file":               {{"path": "t"}, {"path": "code.go", "ref": "pull/1/head"}, {"path": "code.go", "ref": missing}},
		"search_code":             {{"query": "func"}, {"query": "func", "ref": "pull/1/head"}, {"query": "B", "ref": missing}},
		"get_diff":                {{"base": "main", "head": "pull/1/head"}, {"base": "pull/1/head~1", "head": "pull/1/head", "mode": "direct", "paths": []string{"sub"}}},
		"list_changed_files":      {{"base": "main", "head": "pull/1/head"}},
		"get_pull_request":        {{"owner": "acme", "repo": "widgets", "index": 1}},
		"get_pull_request_diff":   {{"owner": "acme", "repo": "widgets", "index": 1}, {"owner": "acme", "repo": "widgets", "index": 1, "file_path": "sub"}},
		"list_pull_request_files": {{"owner": "acme", "repo": "widgets", "index": 1}},
		"list_commits":            {{}, {"base": "main", "head": "pull/1/head"}, {"owner": "acme", "repo": "widgets", "index": 1, "paths": []string{"sub", "code.go"}}, {"ref": "pull/1/head", "order": "oldest"}, {"ref": missing}},
		"get_commit":              {{"ref": "pull/1/head"}, {"ref": "pull/1/head~1"}, {"ref": "main"}, {"ref": missing}},
		"list_files":              {{}, {"ref": "pull/1/head", "recursive": true}, {"glob": []string{"*.go"}, "ref": "pull/1/head"}, {"ref": missing}},
		"blame":                   {{"path": "t"}, {"path": "code.go", "ref": "pull/1/head"}, {"path": ".gitmodules", "ref": "pull/1/head"}, {"path": "t", "ref": missing}},
	}
	tools, err := h.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		list, ok := calls[tool.Name]
		if !ok {
			t.Errorf("%s has no calls in this test: add some", tool.Name)
		}
		for _, a := range list {
			res := h.call(tool.Name, a)
			text := textOf(res)
			mustNotHaveRun(t, ran, fmt.Sprintf("%s(%v)", tool.Name, a))
			if strings.Contains(text, "TOKEN") {
				t.Errorf("%s(%v) shows what an include read from outside:\n%.500s", tool.Name, a, text)
			}
			if res.IsError && !strings.Contains(fmt.Sprint(a), missing) {
				t.Errorf("%s(%v) failed: %.300s", tool.Name, a, text)
			}
		}
	}
	if after := watch.listing(t); after != before {
		t.Fatalf("the repositories changed:\n%s", hostileDiffLines(before, after))
	}
}
