package gitexec

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// Searches take at most half the process slots: with them all taken by
// slow searches, another search waits and any other command still runs.
func TestSearchesTakeAtMostHalfTheSlots(t *testing.T) {
	r := testrepo.New(t)
	commitFile(r, "a.txt", "a\n", "one")
	env := newEnv(t)
	env.LimitProcesses(4)
	g := openIn(t, env, r)
	hold := make(chan struct{})
	started := make(chan struct{}, 2)
	for range 2 {
		go streamRaw(context.Background(), g, []string{"grep", "-e", "a", "HEAD", "--"}, func(io.Reader) error {
			started <- struct{}{}
			<-hold
			return nil
		})
	}
	<-started
	<-started
	defer close(hold)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := outputRaw(ctx, g, "grep", "-e", "a", "HEAD", "--"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a third search with two of four slots searching = %v, want it to wait", err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := outputRaw(ctx, g, "rev-parse", "HEAD"); err != nil {
		t.Fatalf("another command while searches hold their half: %v", err)
	}
}
