package server

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

func diffArgs(kv ...any) map[string]any { return args(kv...) }

// The get_diff contract (docs/contracts.md, "get_diff").
func TestGetDiffContract(t *testing.T) {
	r := newPRRepo(t)
	h := serve(t, r.Repo)

	t.Run("Defaults to pull-request semantics", func(t *testing.T) {
		var out getDiffOut
		h.structured("get_diff", diffArgs("base", "main", "head", "feature"), &out)
		if out.MergeBase == nil || *out.MergeBase != r.mergeBase || out.Base != strings.TrimSpace(r.Git("rev-parse", "main")) || out.Head != r.feature {
			t.Fatalf("base/head/mergeBase: %+v", out)
		}
		// main moved on (unrelated.txt), which a pull request does not show.
		for _, f := range out.Files {
			if f.Path == "unrelated.txt" {
				t.Fatal("merge-base mode shows a change made on base")
			}
		}
	})
	t.Run("head defaults to HEAD", func(t *testing.T) {
		var out getDiffOut
		h.structured("get_diff", diffArgs("base", r.mergeBase), &out)
		if out.Head != strings.TrimSpace(r.Git("rev-parse", "HEAD")) || len(out.Files) != 1 || out.Files[0].Path != "unrelated.txt" {
			t.Fatalf("%+v", out)
		}
	})
	t.Run("direct mode diffs the two commits as they are", func(t *testing.T) {
		var out getDiffOut
		h.structured("get_diff", diffArgs("base", "main", "head", "feature", "mode", "direct"), &out)
		if out.MergeBase != nil {
			t.Fatalf("mergeBase %v in direct mode", *out.MergeBase)
		}
		if got, want := concat(out), withoutBinary(r.gitDiff("main", "feature")); got != want {
			t.Fatalf("direct: got\n%s\nwant\n%s", got, want)
		}
	})
	t.Run("patches are git's sections byte for byte", func(t *testing.T) {
		var out getDiffOut
		text := h.structured("get_diff", diffArgs("base", "main", "head", "feature"), &out)
		// Binary files are listed with patchOmitted binary; every other
		// section is the patch of its file.
		want := withoutBinary(r.gitDiff(r.mergeBase, r.feature))
		if got := concat(out); got != want {
			t.Fatalf("got\n%s\nwant\n%s", got, want)
		}
		if !strings.Contains(text, r.gitDiff(r.mergeBase, r.feature)) {
			t.Fatalf("the text does not carry the diff as git printed it:\n%s", text)
		}
		if out.Truncated || out.TotalFiles != len(out.Files) {
			t.Fatalf("truncated %v, %d of %d files", out.Truncated, len(out.Files), out.TotalFiles)
		}
	})
	t.Run("binary files have patchOmitted binary", func(t *testing.T) {
		var out getDiffOut
		h.structured("get_diff", diffArgs("base", "main", "head", "feature", "paths", []string{"img.png"}), &out)
		f := out.Files[0]
		if len(out.Files) != 1 || f.IsBinary == nil || !*f.IsBinary || f.Patch != nil || f.PatchOmitted == nil || *f.PatchOmitted != "binary" {
			t.Fatalf("%+v", out.Files)
		}
	})
	t.Run("renames carry oldPath", func(t *testing.T) {
		var out getDiffOut
		h.structured("get_diff", diffArgs("base", "main", "head", "feature", "paths", []string{"old.go", "new.go"}), &out)
		f := out.Files[0]
		if len(out.Files) != 1 || f.Status != "renamed" || f.OldPath == nil || *f.OldPath != "old.go" || f.Path != "new.go" || *f.Additions != 1 || *f.Deletions != 1 {
			t.Fatalf("%+v", out.Files)
		}
	})
	t.Run("paths are literal files or directories", func(t *testing.T) {
		r.Git("checkout", "-q", "feature")
		r.Write("*.go", "changed\n")
		r.Write("cmd/other.go", "package main\n")
		head := r.Commit("glob-like name")
		r.Git("checkout", "-q", "main")
		var out getDiffOut
		h.structured("get_diff", diffArgs("base", r.mergeBase, "head", head, "paths", []string{"*.go"}), &out)
		if len(out.Files) != 1 || out.Files[0].Path != "*.go" {
			t.Fatalf("paths=[*.go] selected %v", paths(out))
		}
		h.structured("get_diff", diffArgs("base", r.mergeBase, "head", head, "paths", []string{"cmd"}), &out)
		if got := paths(out); strings.Join(got, ",") != "cmd/main.go,cmd/other.go" {
			t.Fatalf("paths=[cmd] selected %v", got)
		}
	})
	t.Run("contextLines", func(t *testing.T) {
		var out getDiffOut
		h.structured("get_diff", diffArgs("base", "main", "head", "feature", "paths", []string{"old.go", "new.go"}, "contextLines", 0), &out)
		if got, want := concat(out), r.gitDiff("-U0", r.mergeBase, r.feature, "--", "old.go", "new.go"); got != want {
			t.Fatalf("-U0: got\n%s\nwant\n%s", got, want)
		}
	})
	t.Run("secrets are listed, never shown", func(t *testing.T) {
		var out getDiffOut
		text := h.structured("get_diff", diffArgs("base", "main", "head", "refs/pull/9/head"), &out)
		var env *diffFile
		for i := range out.Files {
			if out.Files[i].Path == ".env" {
				env = &out.Files[i]
			}
		}
		if env == nil || env.Patch != nil || env.PatchOmitted == nil || *env.PatchOmitted != "denied" || env.Additions != nil {
			t.Fatalf(".env entry: %+v", env)
		}
		if strings.Contains(text, "TOKEN") {
			t.Fatal("the secret's content is in the text")
		}
	})
}

// withoutBinary drops the binary sections of a diff.
func withoutBinary(d string) string {
	var b strings.Builder
	for _, sec := range sections(d) {
		if !strings.Contains(sec, "\nBinary files ") {
			b.WriteString(sec)
		}
	}
	return b.String()
}

// concat joins the patches of a get_diff answer.
func concat(out getDiffOut) string {
	var b strings.Builder
	for _, f := range out.Files {
		if f.Patch != nil {
			b.WriteString(*f.Patch)
		}
	}
	return b.String()
}

func paths(out getDiffOut) []string {
	var p []string
	for _, f := range out.Files {
		p = append(p, f.Path)
	}
	return p
}

// The concatenated patches apply cleanly with git apply onto the merge base
// and give head's files.
func TestGetDiffPatchesApply(t *testing.T) {
	r := newPRRepo(t)
	h := serve(t, r.Repo)
	var out getDiffOut
	h.structured("get_diff", diffArgs("base", "main", "head", "feature"), &out)
	patch := filepath.Join(t.TempDir(), "pr.patch")
	if err := os.WriteFile(patch, []byte(concat(out)), 0o644); err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(t.TempDir(), "wt")
	r.Git("worktree", "add", "-q", "--detach", wt, r.mergeBase)
	r.Git("-C", wt, "apply", "--index", patch)
	status := r.Git("-C", wt, "diff", "--cached", "--stat", r.feature, "--", ".", ":!img.png")
	if strings.TrimSpace(status) != "" {
		t.Fatalf("after applying the patches the tree differs from head:\n%s", status)
	}
}

// maxBytes bounds each part's patch; the parts, followed by their next
// calls, give back git's diff exactly.
func TestGetDiffBudget(t *testing.T) {
	r := testrepo.New(t)
	for _, f := range []string{"a", "b", "c", "d", "e"} {
		r.Write(f+".txt", "start\n")
	}
	base := r.Commit("base")
	r.Write("a.txt", "start\n"+strings.Repeat("small change line\n", 10))
	r.Write("b.txt", "start\n"+strings.Repeat("a much larger change, line after line\n", 300))
	r.Write("c.txt", "start\n"+strings.Repeat("small change line\n", 10))
	r.Write("d.txt", "start\n"+strings.Repeat("another large change, line after line\n", 300))
	r.Write("e.txt", "start\nend\n")
	head := r.Commit("head")
	h := serve(t, r, withTextOnly())
	parts := drain(t, h, "get_diff", diffArgs("base", base, "head", head, "maxBytes", 2000))
	if len(parts) < 10 {
		t.Fatalf("%d parts for 23 KB of patch at 2,000 bytes a part", len(parts))
	}
	for i, p := range parts {
		if len(p) > 2000 {
			t.Errorf("part %d: %d patch bytes, over maxBytes 2000", i, len(p))
		}
	}
	checkJoined(t, parts, r.Git("diff", "-M", base, head))
	// maxBytes over the server limit is clamped, not refused.
	h.ok("get_diff", diffArgs("base", base, "head", head, "maxBytes", 1<<30))
}

// Past the reply limit the diff comes in parts that, followed, cover every
// file.
func TestGetDiffManyFiles(t *testing.T) {
	r := testrepo.New(t)
	base := r.Commit("empty")
	for i := 0; i < 400; i++ {
		r.Write(filepath.Join("pkg", "dir"+itoa3(i), "file.txt"), "content\n")
	}
	head := r.Commit("many")
	h := serve(t, r, withMaxBytes(16384), withTextOnly())
	parts := drain(t, h, "get_diff", diffArgs("base", base, "head", head))
	if len(parts) < 3 {
		t.Fatalf("%d parts", len(parts))
	}
	checkJoined(t, parts, r.Git("diff", "-M", base, head))
}

func itoa3(i int) string { return fmt.Sprintf("%03d", i) }

// With --structured each file's fields are sent beside its patch, which
// for many small files weighs more than the patch; every part still fits
// the reply limit (the harness fails a reply over it), and the parts are
// git's patch. (The load test found a reply 16 bytes over the limit.)
func TestGetDiffStructuredManySmallFilesFit(t *testing.T) {
	r := testrepo.New(t)
	base := r.Commit("empty")
	for i := 0; i < 600; i++ {
		r.Write(filepath.Join("pkg", "a-directory-with-a-long-name-"+itoa3(i), "file.txt"), "content\n")
	}
	head := r.Commit("many")
	for _, maxBytes := range []int{0, 20000} {
		h := serve(t, r, withMaxBytes(32768)) // --structured
		parts := drain(t, h, "get_diff", diffArgs("base", base, "head", head, "maxBytes", maxBytes))
		checkJoined(t, parts, r.Git("diff", "-M", base, head))
	}
}

// A 1 MB patch of one file and a 300 KB new file in one hunk come in parts
// whose hunks are valid, and together are git's patch.
func TestGetDiffLargePatchesArePaged(t *testing.T) {
	r := testrepo.New(t)
	var old, changed strings.Builder
	for i := range 30_000 {
		fmt.Fprintf(&old, "line %d of a large file that changes\n", i)
		if i%2 == 0 {
			fmt.Fprintf(&changed, "line %d of a large file that changed\n", i)
		} else {
			fmt.Fprintf(&changed, "line %d of a large file that changes\n", i)
		}
	}
	r.Write("a.txt", "a\n")
	r.Write("big.txt", old.String())
	base := r.Commit("base")
	r.Write("a.txt", "a\nb\n")
	r.Write("big.txt", changed.String())
	r.Write("new.txt", strings.Repeat("a new line in a new file of 300 KB\n", 9000))
	r.Write("z.txt", "z\n")
	head := r.Commit("large")
	want := r.Git("diff", "-M", base, head)
	if len(want) < 1<<20+300<<10 {
		t.Fatalf("the fixture's patch is only %d bytes", len(want))
	}
	h := serve(t, r, withTextOnly())
	parts := drain(t, h, "get_diff", diffArgs("base", base, "head", head))
	checkJoined(t, parts, want)
	// Every part is a patch by itself: git reads it.
	for i, p := range parts {
		f := filepath.Join(t.TempDir(), "part.patch")
		if err := os.WriteFile(f, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("git", "apply", "--stat", f).CombinedOutput(); err != nil {
			t.Fatalf("part %d is not a patch git reads: %v\n%s", i, err, out)
		}
	}
}

func TestGetDiffBadInput(t *testing.T) {
	r := newPRRepo(t)
	h := serve(t, r.Repo)
	marker := filepath.Join(t.TempDir(), "written")
	cases := []struct {
		name string
		args map[string]any
		code string
	}{
		{"no base", diffArgs(), "INVALID_ARGUMENT"},
		{"unknown base", diffArgs("base", "nope"), "INVALID_REF"},
		{"unknown head", diffArgs("base", "main", "head", "nope"), "INVALID_REF"},
		{"base option", diffArgs("base", "--output="+marker), "INVALID_REF"},
		{"head option", diffArgs("base", "main", "head", "-p"), "INVALID_REF"},
		{"bad mode", diffArgs("base", "main", "mode", "sideways"), "INVALID_ARGUMENT"},
		{"traversal in paths", diffArgs("base", "main", "paths", []string{"../x"}), "PATH_DENIED"},
		{"absolute path", diffArgs("base", "main", "paths", []string{"/etc"}), "PATH_DENIED"},
		{"empty path", diffArgs("base", "main", "paths", []string{""}), "INVALID_ARGUMENT"},
		{"path option", diffArgs("base", "main", "paths", []string{"--output=" + marker}), ""},
		{"negative context", diffArgs("base", "main", "contextLines", -1), "INVALID_ARGUMENT"},
		{"negative maxBytes", diffArgs("base", "main", "maxBytes", -5), "INVALID_ARGUMENT"},
		{"too many paths", diffArgs("base", "main", "paths", make([]string, 201)), "INVALID_ARGUMENT"},
		{"unrelated histories", diffArgs("base", "main", "head", "orphan"), "INVALID_REF"},
	}
	r.Git("checkout", "-q", "--orphan", "orphan")
	r.Git("commit", "-q", "--allow-empty", "-m", "orphan")
	r.Git("checkout", "-q", "main")
	before := r.Snapshot()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.code == "" {
				h.ok("get_diff", c.args) // a path that looks like an option is just a path
				return
			}
			h.fails("get_diff", c.args, c.code)
			h.fails("list_changed_files", c.args, listChangedCode(c.name, c.code))
		})
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("an argument made git write a file")
	}
	if after := r.Snapshot(); after != before {
		t.Fatalf("repository changed")
	}
}

// list_changed_files shares get_diff's selection; maxBytes and contextLines
// are get_diff's own and unknown to it.
func listChangedCode(name, code string) string {
	if name == "negative context" || name == "negative maxBytes" {
		return "INVALID_ARGUMENT"
	}
	return code
}

func TestListChangedFiles(t *testing.T) {
	r := newPRRepo(t)
	h := serve(t, r.Repo)
	var out listChangedFilesOut
	text := h.structured("list_changed_files", diffArgs("base", "main", "head", "feature"), &out)
	if out.TotalFiles != 7 || len(out.Files) != 7 || out.NextOffset != nil || out.MergeBase == nil {
		t.Fatalf("%+v", out)
	}
	for _, f := range out.Files {
		if f.Path == "evil.txt" && (*f.Additions != 4 || f.Status != "added") {
			t.Errorf("evil.txt: %+v", f)
		}
		if f.Path == "img.png" && (f.IsBinary == nil || !*f.IsBinary) {
			t.Errorf("img.png not binary")
		}
	}
	if !strings.Contains(text, "renamed") || !strings.Contains(text, "new.go (from old.go)") {
		t.Errorf("text:\n%s", text)
	}
}

func TestIsTestPath(t *testing.T) {
	for p, want := range map[string]bool{
		"pkg/foo_test.go": true, "test/x.c": true, "a/tests/b.rs": true, "src/app.test.ts": true, "src/app.spec.js": true,
		"test_app.py": true, "app_test.py": true, "src/__tests__/x.js": true, "FooTest.java": true, "FooTests.cs": true,
		"spec/models/user_spec.rb": true, "internal/testdata/x.diff": true, "TestFoo.java": true,
		"main.go": false, "latest.go": false, "contest/x.go": false, "testing.md": false, "attest.py": false, "Testament.md": false,
	} {
		if got := isTestPath(p); got != want {
			t.Errorf("isTestPath(%q) = %v, want %v", p, got, want)
		}
	}
}
