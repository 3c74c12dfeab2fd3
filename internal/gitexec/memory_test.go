package gitexec_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
)

// Every git process gets the Env's memory cap: git grep compiling a regex
// that expands to gigabytes fails fast instead of taking the host's memory,
// and ordinary commands still work under the cap.
func TestMemoryCap(t *testing.T) {
	r, _, c2 := twoCommits(t)
	env, err := git.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	env.LimitMemory(256 << 20)
	g := openIn(t, env, r)
	if out := output(t, g, "rev-parse", c2); strings.TrimSpace(out) != c2 {
		t.Fatalf("rev-parse under the cap: %q", out)
	}
	if _, err := g.Info(context.Background(), c2); err != nil {
		t.Fatalf("cat-file under the cap: %v", err)
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err = g.Grep(ctx, git.GrepOptions{Pattern: "a{1,32767}", Regex: true, Rev: c2}, func(git.GrepMatch) error { return nil })
	if err == nil || ctx.Err() != nil {
		t.Fatalf("a regex needing gigabytes: %v after %v", err, time.Since(start))
	}
	t.Logf("refused after %v: %v", time.Since(start), err)
}
