//go:build unix

package gitexec_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitdir"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// fifoRepo is a repository whose branch evil is a FIFO, and so is the
// loose object of the commit blocked names: git waits on either for ever.
func fifoRepo(t *testing.T, env *git.Env) (g *Repo, blocked string) {
	t.Helper()
	r := testrepo.New(t)
	commitFile(r, "a.txt", "a\n", "one")
	if err := syscall.Mkfifo(filepath.Join(r.Dir, ".git", "refs", "heads", "evil"), 0o644); err != nil {
		t.Fatal(err)
	}
	blocked = strings.TrimSpace(r.Git("commit-tree", "-m", "unreferenced", "HEAD^{tree}"))
	object := filepath.Join(r.Dir, ".git", "objects", blocked[:2], blocked[2:])
	if err := os.Remove(object); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(object, 0o644); err != nil {
		t.Fatal(err)
	}
	return openIn(t, env, r), blocked
}

// A branch whose loose ref file is a FIFO is refused at once, naming the
// file, instead of holding a reader until the call's deadline
// (docs/security.md, finding 10).
func TestFIFORefIsRefusedNamingIt(t *testing.T) {
	g, _ := fifoRepo(t, newEnv(t))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	for _, name := range []string{"evil", "evil~0", "evil^{tree}", "evil:a.txt"} {
		_, err := g.CommitID(ctx, name)
		var fe *gitdir.FileError
		if !errors.As(err, &fe) || fe.Name != "refs/heads/evil" || fe.Kind != "a FIFO" {
			t.Fatalf("CommitID(%s) = %v; want a FileError naming refs/heads/evil as a FIFO", name, err)
		}
	}
}

// settled waits until n() has stopped changing for a while and returns it.
func settled(n func() int) int {
	last, since := n(), time.Now()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if now := n(); now != last {
			last, since = now, time.Now()
		} else if time.Since(since) > 500*time.Millisecond {
			break
		}
	}
	return last
}

// blockAll starts calls, each of which blocks until ctx ends; it returns
// a channel closed when every one has returned.
func blockAll(ctx context.Context, calls int, call func(context.Context)) <-chan struct{} {
	var wg sync.WaitGroup
	for range calls {
		wg.Add(1)
		go func() { defer wg.Done(); call(ctx) }()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	return done
}

// Two repositories whose files block (repro 10 with a FIFO as a loose
// object, which no check before git finds) hold no more than their share
// of the reader table: an honest repository's first read is answered while
// they are still blocked, not when their deadline ends them
// (docs/security.md, finding 10).
func TestBlockedRepositoriesLeaveReadersForOthers(t *testing.T) {
	env := newEnv(t)
	env.LimitProcesses(16)
	honest := readerRepos(t, env, 1)[0]
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var done []<-chan struct{}
	for range 2 {
		g, blocked := fifoRepo(t, env)
		done = append(done, blockAll(ctx, 10, func(ctx context.Context) { g.CommitID(ctx, blocked) }))
	}
	held := settled(func() int { live, _ := gitexec.Readers(env.Env); return live })
	_, bound := gitexec.Readers(env.Env)
	t.Logf("the blocked repositories hold %d of %d readers", held, bound)

	start := time.Now()
	wait, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	_, err := honest.CommitID(wait, "HEAD")
	t.Logf("the honest repository's first read took %v", time.Since(start))
	if err != nil {
		t.Fatalf("an honest repository's first read beside two blocked ones: %v", err)
	}
	for _, d := range done {
		select {
		case <-d:
			t.Fatal("the blocked calls returned before their deadline: the test proves nothing")
		default:
		}
	}
	cancel()
	for _, d := range done {
		<-d
	}
}

// The same for the process slots: a FIFO that blocks show-ref in two
// repositories leaves an honest repository its command.
func TestBlockedRepositoriesLeaveSlotsForOthers(t *testing.T) {
	env := newEnv(t)
	env.LimitProcesses(4)
	honest := readerRepos(t, env, 1)[0]
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var done []<-chan struct{}
	for range 2 {
		g, _ := fifoRepo(t, env)
		done = append(done, blockAll(ctx, 4, func(ctx context.Context) { g.HasRef(ctx, "refs/heads/evil") }))
	}
	held := settled(env.SlotsInUse)
	t.Logf("the blocked repositories hold %d of %d slots", held, gitexec.SlotCount(env.Env))

	start := time.Now()
	wait, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	ok := honest.HasRef(wait, "refs/heads/main")
	t.Logf("the honest repository's command took %v", time.Since(start))
	if !ok {
		t.Fatalf("an honest repository's command beside two blocked ones did not run: %v", context.Cause(wait))
	}
	for _, d := range done {
		select {
		case <-d:
			t.Fatal("the blocked commands returned before their deadline: the test proves nothing")
		default:
		}
	}
	cancel()
	for _, d := range done {
		<-d
	}
}
