package testrepo

import (
	"fmt"
	"os/exec"
	"strings"
)

// GitInput runs git with stdin and returns its stdout; failure fails the test.
func (r *Repo) GitInput(stdin string, args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env, cmd.Stdin = r.Dir, r.env, strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		r.t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

// CommitWide makes a commit on top of parent, touching no ref, work tree or
// index, whose tree is n files with paths each about depth × 200 bytes
// long: the shape of a hostile range that lists a great many files while
// the repository stays small (one blob, a few trees). It builds the trees
// with git mktree, which takes seconds where fast-import takes minutes.
func (r *Repo) CommitWide(parent string, n, depth int, msg string) string {
	r.t.Helper()
	blob := strings.TrimSpace(r.GitInput("x\n", "hash-object", "-w", "--stdin"))
	var leaves strings.Builder
	for i := range n {
		fmt.Fprintf(&leaves, "100644 blob %s\tf%07d\n", blob, i)
	}
	tree := strings.TrimSpace(r.GitInput(leaves.String(), "mktree"))
	for d := depth - 1; d >= 0; d-- {
		name := fmt.Sprintf("d%03d%s", d, strings.Repeat("x", 196))
		tree = strings.TrimSpace(r.GitInput("040000 tree "+tree+"\t"+name+"\n", "mktree"))
	}
	return strings.TrimSpace(r.Git("commit-tree", tree, "-p", parent, "-m", msg))
}
