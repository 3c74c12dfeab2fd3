package gitexec_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// A command with DiffDrivers reads the table, and the drivers given by
// path over it (a name with a space, glob characters and a quote matched
// as itself only), and no index's .gitattributes; any other command reads
// no attributes file.
func TestDiffDriversAsGitReadsThem(t *testing.T) {
	r := testrepo.New(t)
	r.Write(".gitattributes", "*.go diff=cpp\n") // in the index: not read
	r.Commit("attributes")
	g := open(t, r).runner()
	odd := `d/a b[1]*"q".inc`
	check := func(c *gitexec.Cmd) string {
		t.Helper()
		out, err := g.Output(context.Background(), c.Paths(odd, "d/a b1x.inc", "x.go", "y.go", "z.md", "w.js"))
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	got := check(gitexec.Command("check-attr", "diff").DiffDrivers(map[string]string{odd: "python", "x.go": ""}))
	for _, want := range []string{
		`"d/a b[1]*\"q\".inc": diff: python`, "d/a b1x.inc: diff: unspecified",
		"x.go: diff: set", "y.go: diff: golang", "z.md: diff: markdown", "w.js: diff: unspecified",
	} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("check-attr does not say %q:\n%s", want, got)
		}
	}
	if got := check(gitexec.Command("check-attr", "diff")); !strings.Contains(got, "y.go: diff: cpp\n") || strings.Contains(got, "golang") {
		t.Errorf("a command without DiffDrivers reads the table, or not the index:\n%s", got)
	}
	if _, err := g.Output(context.Background(), gitexec.Command("check-attr", "diff").DiffDrivers(map[string]string{"x.go": "a b"}).Paths("x.go")); err == nil {
		t.Error("a driver name with a space is taken")
	}
}
