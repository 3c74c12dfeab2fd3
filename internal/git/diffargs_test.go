package git

import (
	"slices"
	"testing"
)

// The safety tests of package gitexec run the project's diff command line
// as a raw one (their projectDiff): this is that line, as diffArgs builds it.
func TestDiffArgsAreTheSafetyTests(t *testing.T) {
	want := []string{"diff", "--no-color", "--no-ext-diff", "--no-textconv", "--submodule=short", "--ignore-submodules=none",
		"--src-prefix=a/", "--dst-prefix=b/", "--indent-heuristic", "-M", "-l1000", "-U3", "-p", "--end-of-options", "c1", "c2", "--"}
	if got := diffArgs(DiffOptions{From: "c1", To: "c2", Context: 3}, "-p").Args(); !slices.Equal(got, want) {
		t.Errorf("diffArgs = %q; gitexec's safety tests run %q", got, want)
	}
}
