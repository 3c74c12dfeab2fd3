package server

import (
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// Generated and vendored files are flagged, never hidden, in every listing
// of changed files and in get_diff, by the rules of the commit read: its
// .gitattributes, not the work tree's.
func TestGeneratedFilesAreFlagged(t *testing.T) {
	r := testrepo.New(t)
	r.Write("README.md", "x\n")
	base := r.Commit("base")
	r.Write(".gitattributes", "*.pb.go linguist-generated\n")
	r.Write("api/api.pb.go", "package api\n")
	r.Write("go.sum", "x v1 h1:abc\n")
	r.Write("vendor/lib/lib.go", "package lib\n")
	r.Write("web/app.min.js", "var a=1\n")
	r.Write("main.go", "package main\n")
	head := r.Commit("head")
	r.Git("update-ref", "refs/pull/1/head", head)
	r.Git("reset", "-q", "--soft", base)                   // the default branch is the pull request's base
	r.Write(".gitattributes", "*.go linguist-generated\n") // the work tree's: must not count
	want := map[string]bool{"api/api.pb.go": true, "go.sum": true, "vendor/lib/lib.go": true, "web/app.min.js": true, "main.go": false, ".gitattributes": false}

	h := serve(t, r)
	var list listChangedFilesOut
	text := h.structured("list_changed_files", args("base", base, "head", head), &list)
	var prs listPullRequestFilesOut
	h.structured("list_pull_request_files", prArgs(1), &prs)
	var d getDiffOut
	diffText := h.structured("get_diff", args("base", base, "head", head), &d)
	for tool, files := range map[string][]changedFile{"list_changed_files": list.Files, "list_pull_request_files": prs.changedFiles(), "get_diff": diffFileList(d)} {
		if len(files) != len(want) {
			t.Fatalf("%s: %d files, want %d", tool, len(files), len(want))
		}
		for _, f := range files {
			if f.Generated != want[f.Path] {
				t.Errorf("%s: %s generated %v, want %v", tool, f.Path, f.Generated, want[f.Path])
			}
		}
	}
	if !strings.Contains(text, "go.sum [generated]") || strings.Contains(text, "main.go [generated]") {
		t.Errorf("list_changed_files text:\n%s", text)
	}
	if !strings.Contains(diffText, "[generated or vendored: ") || !strings.Contains(diffText, "vendor/lib/lib.go") {
		t.Errorf("get_diff text does not flag generated files:\n%s", diffText)
	}
}

func diffFileList(d getDiffOut) []changedFile {
	out := make([]changedFile, len(d.Files))
	for i, f := range d.Files {
		out[i] = f.changedFile
	}
	return out
}
