package gitexec_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/sysmem"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// readers opens n repositories, each with one commit, on one Env.
func readerRepos(t *testing.T, env *git.Env, n int) []*Repo {
	t.Helper()
	var out []*Repo
	for range n {
		r := testrepo.New(t)
		commitFile(r, "a.txt", "a\n", "one")
		out = append(out, openIn(t, env, r))
	}
	return out
}

// With cat-file readers bounded across repositories, reading a third
// repository retires the reader idle the longest in another one.
func TestReadersBoundedAcrossRepositories(t *testing.T) {
	env := newEnv(t)
	gitexec.SetReaderBound(env.Env, 2) // LimitProcesses allows at least gitexec.MaxReaders
	repos := readerRepos(t, env, 3)
	ctx := context.Background()
	for _, g := range repos {
		if _, err := g.CommitID(ctx, "HEAD"); err != nil {
			t.Fatal(err)
		}
	}
	live := 0
	for _, g := range repos {
		live += len(catFiles(t, g.GitDir()))
	}
	if live > 2 {
		t.Fatalf("%d cat-file readers alive, the bound is 2", live)
	}
	if n := len(catFiles(t, repos[0].GitDir())); n != 0 {
		t.Fatalf("the reader idle the longest (first repository) was not retired: %d alive", n)
	}
	if _, err := repos[0].CommitID(ctx, "HEAD"); err != nil { // and it comes back when asked
		t.Fatal(err)
	}
}

// When every reader is busy, a new one waits for one to finish, within
// the caller's deadline.
func TestReadersWaitWhenAllAreBusy(t *testing.T) {
	env := newEnv(t)
	gitexec.SetReaderBound(env.Env, 1)
	repos := readerRepos(t, env, 2)
	hold, holding := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- repos[0].ReadObject(context.Background(), "HEAD:a.txt", func(_ git.Object, r io.Reader) error {
			close(holding)
			<-hold
			_, err := io.Copy(io.Discard, r)
			return err
		})
	}()
	<-holding
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := repos[1].CommitID(ctx, "HEAD"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a read past the bound while the only reader is busy = %v, want the deadline", err)
	}
	close(hold)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := repos[1].CommitID(context.Background(), "HEAD"); err != nil {
		t.Fatalf("after the busy reader went idle: %v", err)
	}
}

// The memory budget is shared: each process gets budget / (commands +
// readers), never more than the per-process cap.
func TestShareMemory(t *testing.T) {
	env := newEnv(t)
	env.LimitProcesses(16)
	if total, each := env.ShareMemory(32<<30, 4<<30); total != 32<<30 || each != 1<<30 {
		t.Errorf("32 GiB over 32 processes = %d each (budget %d), want 1 GiB", each, total)
	}
	if _, each := env.ShareMemory(1<<40, 4<<30); each != 4<<30 {
		t.Errorf("a large budget gives %d each, want the 4 GiB cap", each)
	}
	if total, each := env.ShareMemory(0, 1<<40); total == 0 || total > sysmem.Total() || each != total/32 {
		t.Errorf("default budget %d (machine %d), each %d", total, sysmem.Total(), each)
	}
}

// Diffs started before they are known to be needed never take the last
// process slot: with every other slot held by one, the call that holds it
// still lists its changes, where it would wait until its deadline with
// every other such call (TestTwoHundredSimultaneousCalls saw 15 of 200).
func TestEarlyDiffsLeaveASlot(t *testing.T) {
	r := testrepo.New(t)
	commitFile(r, "a.txt", "a\n", "one")
	commitFile(r, "a.txt", "b\n", "two")
	env := newEnv(t)
	env.LimitProcesses(3)
	g := openIn(t, env, r)
	ctx := context.Background()
	o := git.DiffOptions{From: strings.TrimSpace(r.Git("rev-parse", "HEAD~1")), To: strings.TrimSpace(r.Git("rev-parse", "HEAD"))}
	var held []*git.StartedPatch
	for {
		p, ok := g.StartPatchEarly(ctx, o)
		if !ok {
			break
		}
		held = append(held, p)
	}
	if len(held) != 2 {
		t.Fatalf("%d early diffs of 3 slots, want 2", len(held))
	}
	// The last slot is a needed command's.
	wait, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := g.EachChange(wait, o, func(int, git.Change) error { return nil }); err != nil {
		t.Fatalf("listing with the early diffs holding their slots: %v", err)
	}
	for _, p := range held {
		p.Abandon()
	}
	// Given back, they can be started again.
	deadline := time.Now().Add(5 * time.Second)
	for {
		p, ok := g.StartPatchEarly(ctx, o)
		if ok {
			p.Abandon()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the early diffs' slots were not given back")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
