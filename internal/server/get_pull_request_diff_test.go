package server

import (
	"strings"
	"testing"
)

// The get_pull_request_diff contract (docs/contracts.md, "get_pull_request_diff"):
// every scenario, against local repositories, with git as the oracle.
// TestGitea runs the same scenarios against a real Gitea, with the forge's
// own diff as the oracle.
func TestPullRequestDiffContract(t *testing.T) {
	r := newPRRepo(t)
	runPullRequestDiffContract(t, serve(t, r.Repo), 7, r.gitDiff(r.mergeBase, r.feature))
}

// runPullRequestDiffContract runs the contract's scenarios on pull request
// #index of acme/widgets (newPRRepo's feature branch); whole is its unified
// diff as the backend itself writes it.
func runPullRequestDiffContract(t *testing.T, h *harness, index int, whole string) {
	section := func(path string) string {
		var out []string
		for _, sec := range sections(whole) {
			if sectionPaths(sec)[0] == path || sectionPaths(sec)[1] == path {
				out = append(out, sec)
			}
		}
		return strings.Join(out, "")
	}
	t.Run("Omitting file_path returns full diff", func(t *testing.T) {
		if got := h.ok("get_pull_request_diff", prArgs(index)); got != whole {
			t.Fatalf("got\n%s\nwant\n%s", got, whole)
		}
		if got := h.ok("get_pull_request_diff", prArgs(index, "file_path", "")); got != whole {
			t.Fatal("an empty file_path is not the full diff")
		}
	})
	t.Run("file_path selects a single file's hunks", func(t *testing.T) {
		got := h.ok("get_pull_request_diff", prArgs(index, "file_path", "cmd/main.go"))
		if want := section("cmd/main.go"); got != want || !strings.HasPrefix(got, "diff --git a/cmd/main.go b/cmd/main.go\n") || strings.Count(got, "diff --git") != 1 {
			t.Fatalf("got\n%s\nwant\n%s", got, want)
		}
	})
	t.Run("Renamed file matches either side", func(t *testing.T) {
		want := section("new.go")
		if !strings.HasPrefix(want, "diff --git a/old.go b/new.go\n") {
			t.Fatalf("fixture: the diff shows no rename: %s", whole)
		}
		for _, p := range []string{"old.go", "new.go"} {
			if got := h.ok("get_pull_request_diff", prArgs(index, "file_path", p)); got != want {
				t.Errorf("file_path=%s: got\n%s\nwant\n%s", p, got, want)
			}
		}
	})
	t.Run("Binary-file diff section", func(t *testing.T) {
		got := h.ok("get_pull_request_diff", prArgs(index, "file_path", "img.png"))
		if want := section("img.png"); got != want || !strings.Contains(got, "Binary files a/img.png and b/img.png differ\n") {
			t.Fatalf("got %q, want %q", got, want)
		}
	})
	t.Run("file_path not in diff", func(t *testing.T) {
		msg := h.fails("get_pull_request_diff", prArgs(index, "file_path", "main.go"), "NOT_FOUND")
		if !strings.Contains(msg, `"main.go"`) || strings.Contains(msg, "@@") {
			t.Fatalf("message %q must name the missing path and not carry the diff", msg)
		}
		if !strings.Contains(msg, "cmd/main.go") {
			t.Fatalf("message %q does not list the files of the diff", msg)
		}
	})
}

func TestPullRequestDiffSections(t *testing.T) {
	r := newPRRepo(t)
	h := serve(t, r.Repo)
	// Every file of the diff is selected exactly, by its section.
	for _, sec := range sections(r.gitDiff(r.mergeBase, r.feature)) {
		var path string
		switch {
		case strings.HasPrefix(sec, "diff --git a/old.go b/new.go"):
			path = "new.go"
		case strings.HasPrefix(sec, "diff --git \"a/docs/na\\303\\257ve.md\""):
			path = "docs/naïve.md"
		case strings.HasPrefix(sec, "diff --git a/x b/y.txt b/x b/y.txt"):
			path = "x b/y.txt"
		default:
			path = strings.TrimPrefix(strings.Fields(sec)[2], "a/")
		}
		if got := h.ok("get_pull_request_diff", prArgs(7, "file_path", path)); got != sec {
			t.Errorf("file_path=%q: got\n%s\nwant\n%s", path, got, sec)
		}
	}
	// #8 is based on the first parent of its merge ref, not on main.
	if got, want := h.ok("get_pull_request_diff", prArgs(8)), r.gitDiff(r.mergeBase, "refs/pull/8/head"); got != want {
		t.Errorf("#8: got\n%s\nwant\n%s", got, want)
	}
}

// A pull request, or one file of it, larger than a reply comes in parts
// that, followed, are git's diff.
func TestPullRequestDiffBounds(t *testing.T) {
	r := newPRRepo(t)
	r.Git("checkout", "-q", "feature")
	r.Write("big.txt", strings.Repeat("a fairly long line of text in a big file\n", 400))
	r.Git("update-ref", "refs/pull/7/head", r.Commit("big"))
	r.Git("checkout", "-q", "main")
	h := serve(t, r.Repo, withMaxBytes(8192), withTextOnly())

	first := h.ok("get_pull_request_diff", prArgs(7))
	head := strings.TrimSpace(r.Git("rev-parse", "refs/pull/7/head"))
	if !strings.HasPrefix(first, "acme/widgets#7: base ") || !strings.Contains(strings.SplitN(first, "\n", 2)[0], "head "+head) || !strings.Contains(first, "bytes of patch") {
		t.Fatalf("a partial pull request diff does not start with its header:\n%s", first[:min(400, len(first))])
	}
	checkJoined(t, drain(t, h, "get_pull_request_diff", prArgs(7)), r.gitDiff(r.mergeBase, head))
	checkJoined(t, drain(t, h, "get_pull_request_diff", prArgs(7, "file_path", "big.txt")), r.Git("diff", "-M", r.mergeBase, head, "--", "big.txt"))
	// Smaller files still come whole, exactly as git prints them.
	if got, want := h.ok("get_pull_request_diff", prArgs(7, "file_path", "cmd/main.go")), r.Git("diff", "-M", r.mergeBase, head, "--", "cmd/main.go"); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestPullRequestBadInput(t *testing.T) {
	r := newPRRepo(t)
	h := serve(t, r.Repo)
	before := r.Snapshot()
	cases := []struct {
		name     string
		args     map[string]any
		code     string
		listCode string // list_pull_request_files with the same index; "" when file_path is the point
	}{
		{"unknown index", prArgs(99), "NOT_FOUND", "NOT_FOUND"},
		{"zero index", prArgs(0), "INVALID_ARGUMENT", "INVALID_ARGUMENT"},
		{"negative index", prArgs(-7), "INVALID_ARGUMENT", "INVALID_ARGUMENT"},
		{"index as a path", prArgs(0, "index", "7/../../x"), "INVALID_ARGUMENT", "INVALID_ARGUMENT"},
		{"fractional index", prArgs(0, "index", 7.5), "INVALID_ARGUMENT", "INVALID_ARGUMENT"},
		{"file_path with ..", prArgs(7, "file_path", "../cmd/main.go"), "PATH_DENIED", ""},
		{"absolute file_path", prArgs(7, "file_path", "/cmd/main.go"), "PATH_DENIED", ""},
		{"file_path is a directory", prArgs(7, "file_path", "cmd"), "NOT_FOUND", ""},
		{"file_path option", prArgs(7, "file_path", "--output=/tmp/x"), "NOT_FOUND", ""},
		{"file_path with NUL", prArgs(7, "file_path", "cmd/main.go\x00"), "INVALID_ARGUMENT", ""},
		{"secret file_path", prArgs(9, "file_path", ".env"), "PATH_DENIED", ""},
		{"unknown repository", map[string]any{"owner": "acme", "repo": "nope", "index": 7}, "NOT_FOUND", "NOT_FOUND"},
		{"owner missing", map[string]any{"repo": "widgets", "index": 7}, "INVALID_ARGUMENT", "INVALID_ARGUMENT"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			msg := h.fails("get_pull_request_diff", c.args, c.code)
			if strings.Contains(msg, "TOKEN") {
				t.Fatalf("a secret leaked: %s", msg)
			}
			if c.listCode != "" {
				h.fails("list_pull_request_files", c.args, c.listCode)
			}
		})
	}
	// Other files of #9 still come one by one.
	if got := h.ok("get_pull_request_diff", prArgs(9, "file_path", "ok.txt")); !strings.Contains(got, "+fine") {
		t.Fatalf("ok.txt of #9: %q", got)
	}
	if after := r.Snapshot(); after != before {
		t.Fatalf("repository changed")
	}
}

func TestListPullRequestFiles(t *testing.T) {
	r := newPRRepo(t)
	h := serve(t, r.Repo)
	var out listPullRequestFilesOut
	text := h.structured("list_pull_request_files", prArgs(7), &out)
	numstat := r.Git("diff", "-M", "--numstat", r.mergeBase, r.feature)
	if out.TotalCount != len(strings.Split(strings.TrimSpace(numstat), "\n")) || out.TotalCount != len(out.Files) || out.HasMore {
		t.Fatalf("files: %+v\nnumstat:\n%s", out, numstat)
	}
	byPath := map[string]changedFile{}
	for _, f := range out.Files {
		byPath[f.Path] = f.changedFile
	}
	if f := byPath["new.go"]; f.Status != "renamed" || f.OldPath == nil || *f.OldPath != "old.go" || *f.Additions != 1 || *f.Deletions != 1 {
		t.Errorf("rename: %+v", f)
	}
	if f := byPath["img.png"]; f.IsBinary == nil || !*f.IsBinary || f.Status != "modified" {
		t.Errorf("binary: %+v", f)
	}
	if f := byPath["a.txt"]; f.Status != "deleted" || *f.Deletions != 1 {
		t.Errorf("deleted: %+v", f)
	}
	if !strings.Contains(text, "new.go (from old.go)") {
		t.Errorf("text: %s", text)
	}
	// Pages.
	var p1, p2 listPullRequestFilesOut
	h.structured("list_pull_request_files", prArgs(7, "limit", 3), &p1)
	h.structured("list_pull_request_files", prArgs(7, "limit", 3, "page", 2), &p2)
	if len(p1.Files) != 3 || !p1.HasMore || p2.Files[0].Path != out.Files[3].Path || p1.TotalCount != out.TotalCount {
		t.Fatalf("pages: %+v %+v", p1, p2)
	}
	// The secret file of #9 is listed without its counts.
	var nine listPullRequestFilesOut
	h.structured("list_pull_request_files", prArgs(9), &nine)
	for _, f := range nine.Files {
		if f.Path == ".env" && f.Additions != nil {
			t.Errorf(".env counts are shown: %+v", f)
		}
	}
}
