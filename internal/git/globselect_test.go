package git

import (
	"context"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

func TestGlobsSelectFile(t *testing.T) {
	r := testrepo.New(t)
	for _, p := range []string{"a.c", "src/b.go", "src/util/u_test.go", "tests/test_x.py"} {
		r.Write(p, "x\n")
	}
	r.Commit("glob fixture")
	// A submodule is not a file a search reads.
	r.Git("update-index", "--add", "--cacheinfo", "160000,"+strings.Repeat("1", 40)+",sub/module")
	r.Git("commit", "-q", "-m", "a submodule")
	commit := r.Head()
	g := open(t, r)
	for _, rev := range []string{commit, ""} {
		for _, c := range []struct {
			globs, exclude []string
			want           bool
		}{
			{[]string{"*.c"}, nil, true},
			{[]string{"nothing*", "*.go"}, nil, true},
			{[]string{"nothing*"}, nil, false},
			{[]string{"src/*.py"}, nil, false},
			{[]string{"sub/**"}, nil, false},
			{[]string{"module"}, nil, false},
			{[]string{"*.go"}, []string{"**/*.go"}, false},
			{[]string{"*.go"}, []string{"**/*_TEST.go"}, true},
			{[]string{"**/*_test.go"}, []string{"**/*_TEST.go"}, false}, // exclusions ignore case
			{nil, nil, true},
		} {
			got, err := g.GlobsSelectFile(context.Background(), rev, c.globs, c.exclude)
			if err != nil || got != c.want {
				t.Errorf("at %q, globs %q excluding %q: %v, %v; want %v", rev, c.globs, c.exclude, got, err, c.want)
			}
		}
	}
	if _, ok := g.memo.get("globs-select\x00" + commit + "\x00*.c\x00\x00"); !ok {
		t.Error("the answer for a commit is not kept")
	}
}
