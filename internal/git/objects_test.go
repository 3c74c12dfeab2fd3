//go:build unix

package git

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// blobRepo commits n files of different sizes and returns their blob ids
// with git's view of each blob's content.
func blobRepo(t *testing.T, n int) (*testrepo.Repo, []string, map[string]string) {
	t.Helper()
	r := testrepo.New(t)
	for i := range n {
		r.Write(fmt.Sprintf("f%03d.txt", i), strings.Repeat(fmt.Sprintf("file %d line\n", i), 1+i*i%700))
	}
	r.Commit("blobs")
	var oids []string
	want := map[string]string{}
	for i := range n {
		oid := strings.TrimSpace(r.Git("rev-parse", fmt.Sprintf("HEAD:f%03d.txt", i)))
		oids = append(oids, oid)
		want[oid] = r.Git("cat-file", "blob", oid)
	}
	return r, oids, want
}

// bigBlob adds a blob of size bytes (not committed) and returns its id.
func bigBlob(t *testing.T, r *testrepo.Repo, size int) string {
	t.Helper()
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "%09d\n", i)
	}
	return strings.TrimSpace(r.Git("hash-object", "-w", writeTemp(t, b.String()[:size])))
}

func TestObjectsConcurrentReads(t *testing.T) {
	r, oids, want := blobRepo(t, 200)
	g := open(t, r)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for w := range 32 {
		wg.Go(func() {
			for i := range 200 {
				oid := oids[(i*7+w*13)%len(oids)]
				if i%5 == 0 {
					o, err := g.Info(ctx, oid)
					if err != nil || o.OID != oid || o.Type != "blob" || o.Size != int64(len(want[oid])) {
						errs <- fmt.Errorf("Info(%s) = %+v, %v", oid, o, err)
						return
					}
					continue
				}
				var got []byte
				err := g.ReadObject(ctx, oid, func(o Object, body io.Reader) error {
					if o.OID != oid || o.Size != int64(len(want[oid])) {
						return fmt.Errorf("header %+v", o)
					}
					var err error
					got, err = io.ReadAll(body)
					return err
				})
				if err != nil || string(got) != want[oid] {
					errs <- fmt.Errorf("ReadObject(%s): %v (content equal: %v)", oid, err, string(got) == want[oid])
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := len(catFiles(t, r.GitDir())); n > gitexec.MaxReaders {
		t.Errorf("%d cat-file processes, at most %d expected", n, gitexec.MaxReaders)
	}
}

func TestReadObjectStopsEarly(t *testing.T) {
	r, oids, want := blobRepo(t, 5)
	big := bigBlob(t, r, drainLimit+2<<20)
	small := bigBlob(t, r, 200<<10)
	g := open(t, r)
	ctx := context.Background()
	readSome := func(name string) {
		t.Helper()
		err := g.ReadObject(ctx, name, func(_ Object, body io.Reader) error {
			buf := make([]byte, 10)
			_, err := io.ReadFull(body, buf)
			return err
		})
		if err != nil {
			t.Fatalf("ReadObject(%s) stopping early: %v", name, err)
		}
	}
	check := func() {
		t.Helper()
		for _, oid := range oids {
			if got := readBlob(t, g, oid); got != want[oid] {
				t.Fatalf("after an early stop, ReadObject(%s) is wrong", oid)
			}
		}
	}
	check()
	pid := idlePids(g)
	if len(pid) != 1 {
		t.Fatalf("idle readers %v, want one", pid)
	}
	// A small rest is drained: the same reader goes on.
	readSome(small)
	if got := idlePids(g); len(got) != 1 || got[0] != pid[0] {
		t.Fatalf("after a drained early stop the readers are %v, want %v", got, pid)
	}
	check()
	// A large rest replaces the reader.
	readSome(big)
	if got := idlePids(g); len(got) != 0 {
		t.Fatalf("after an early stop on a big blob the readers are %v, want none", got)
	}
	if !eventually(2*time.Second, func() bool { return !alive(pid[0]) }) {
		t.Fatal("the replaced reader is still running")
	}
	check()
	// A read that fails returns its error, and the pool stays in step.
	boom := errors.New("boom")
	err := g.ReadObject(ctx, small, func(Object, io.Reader) error { return boom })
	if err != boom {
		t.Fatalf("ReadObject = %v, want the reader's error", err)
	}
	check()
	// Info on a big object reads no body.
	if o, err := g.Info(ctx, big); err != nil || o.Size != drainLimit+2<<20 {
		t.Fatalf("Info(big) = %+v, %v", o, err)
	}
	check()
}

// A reader killed while idle is replaced: the next call still succeeds.
func TestCatFileKilledWhileIdle(t *testing.T) {
	r, oids, want := blobRepo(t, 3)
	g := open(t, r)
	for round := range 3 {
		readBlob(t, g, oids[0])
		pids := idlePids(g)
		if len(pids) != 1 {
			t.Fatalf("idle readers %v", pids)
		}
		if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		if !eventually(2*time.Second, func() bool { return !alive(pids[0]) }) {
			t.Fatal("the killed reader is still running")
		}
		if round%2 == 0 {
			if got := readBlob(t, g, oids[1]); got != want[oids[1]] {
				t.Fatalf("ReadObject after the kill = %q", got)
			}
		} else if o, err := g.Info(context.Background(), oids[2]); err != nil || o.OID != oids[2] {
			t.Fatalf("Info after the kill = %+v, %v", o, err)
		}
	}
}

// A reader that dies in the middle of an object must not hand over a
// truncated object as if it were whole.
func TestCatFileKilledMidObject(t *testing.T) {
	r, oids, want := blobRepo(t, 3)
	big := bigBlob(t, r, 8<<20)
	g := open(t, r)
	readBlob(t, g, oids[0])
	pids := idlePids(g)
	if len(pids) != 1 {
		t.Fatalf("idle readers %v", pids)
	}
	var got int
	err := g.ReadObject(context.Background(), big, func(_ Object, body io.Reader) error {
		if _, err := io.ReadFull(body, make([]byte, 1)); err != nil {
			return err
		}
		syscall.Kill(pids[0], syscall.SIGKILL)
		n, err := io.Copy(io.Discard, body)
		got = int(n) + 1
		return err
	})
	if err == nil {
		t.Fatalf("ReadObject of a blob cut at %d of %d bytes succeeded", got, 8<<20)
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("ReadObject = %v, want io.ErrUnexpectedEOF", err)
	}
	// A reader that swallows the error does not make a truncated read succeed.
	g.env.blobs.forget() // so that the read goes to a reader
	readBlob(t, g, oids[0])
	pids = idlePids(g)
	err = g.ReadObject(context.Background(), big, func(_ Object, body io.Reader) error {
		io.ReadFull(body, make([]byte, 1))
		syscall.Kill(pids[0], syscall.SIGKILL)
		io.Copy(io.Discard, body)
		return nil
	})
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("ReadObject with a reader ignoring the cut = %v, want io.ErrUnexpectedEOF", err)
	}
	if s := readBlob(t, g, oids[1]); s != want[oids[1]] {
		t.Fatal("the pool is out of step after a reader died")
	}
}

func TestReadObjectCancelled(t *testing.T) {
	r, oids, want := blobRepo(t, 3)
	big := bigBlob(t, r, 8<<20)
	g := open(t, r)

	ctx, cancel := context.WithCancel(context.Background())
	err := g.ReadObject(ctx, big, func(_ Object, body io.Reader) error {
		if _, err := io.ReadFull(body, make([]byte, 100)); err != nil {
			return err
		}
		cancel()
		_, err := io.Copy(io.Discard, body)
		return err
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("ReadObject cancelled mid-read = %v, want context.Canceled", err)
	}
	if got := readBlob(t, g, oids[0]); got != want[oids[0]] {
		t.Fatal("read after a cancel is wrong")
	}

	// An already cancelled context does nothing.
	if _, err := g.Info(ctx, oids[0]); !errors.Is(err, context.Canceled) {
		t.Fatalf("Info with a cancelled context = %v", err)
	}
	cause := errors.New("the caller's reason")
	ctx2, cancel2 := context.WithCancelCause(context.Background())
	cancel2(cause)
	if err := g.ReadObject(ctx2, oids[0], func(Object, io.Reader) error { return nil }); err != cause {
		t.Fatalf("ReadObject with a cancelled context = %v, want its cause", err)
	}

	// Waiting for a reader while all are busy ends with the context. (The
	// names are abbreviated: a full object id's answer is remembered, and
	// asks no reader.)
	release := make(chan struct{})
	var busy sync.WaitGroup
	started := make(chan struct{}, gitexec.MaxReaders)
	for range gitexec.MaxReaders {
		busy.Go(func() {
			g.ReadObject(context.Background(), oids[1][:20], func(_ Object, body io.Reader) error {
				started <- struct{}{}
				<-release
				_, err := io.Copy(io.Discard, body)
				return err
			})
		})
	}
	for range gitexec.MaxReaders {
		<-started
	}
	ctx3, cancel3 := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel3()
	if _, err := g.Info(ctx3, oids[0][:20]); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Info with every reader busy = %v, want the deadline", err)
	}
	close(release)
	busy.Wait()
	if got := readBlob(t, g, oids[2]); got != want[oids[2]] {
		t.Fatal("read after the busy readers is wrong")
	}
}

func TestPoolClose(t *testing.T) {
	r, oids, _ := blobRepo(t, 8)
	g := Open(newEnv(t), r.GitDir(), r.Dir)
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			if err := g.ReadObject(ctx, oids[w], func(_ Object, body io.Reader) error {
				_, err := io.Copy(io.Discard, body)
				return err
			}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if len(catFiles(t, r.GitDir())) == 0 {
		t.Fatal("no cat-file process found: the check below would prove nothing")
	}

	// Close with one read in flight: it finishes, then its reader stops too.
	inRead, release := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		done <- g.ReadObject(ctx, oids[0], func(_ Object, body io.Reader) error {
			close(inRead)
			<-release
			_, err := io.ReadAll(body)
			return err
		})
	}()
	<-inRead
	g.Close()
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("read in flight during Close: %v", err)
	}
	if !eventually(2*time.Second, func() bool { return len(catFiles(t, r.GitDir())) == 0 }) {
		t.Fatalf("cat-file processes left after Close: %v", catFiles(t, r.GitDir()))
	}
	if _, err := g.Info(ctx, oids[0]); err == nil || errors.Is(err, ErrMissing) {
		t.Fatalf("Info after Close = %v, want an error", err)
	}
	if err := g.ReadObject(ctx, oids[0], func(Object, io.Reader) error { return nil }); err == nil {
		t.Fatal("ReadObject after Close succeeded")
	}
	g.Close() // twice is fine
	if n := len(catFiles(t, r.GitDir())); n != 0 {
		t.Fatalf("%d cat-file processes started after Close", n)
	}
}

func TestObjectNames(t *testing.T) {
	r, oids, _ := blobRepo(t, 2)
	g := open(t, r)
	ctx := context.Background()
	for _, name := range []string{"a\nb", "a\x00b", "\n", oids[0] + "\n" + oids[1]} {
		if _, err := g.Info(ctx, name); err == nil || errors.Is(err, ErrMissing) {
			t.Errorf("Info(%q) = %v, want a refusal", name, err)
		}
		if err := g.ReadObject(ctx, name, func(Object, io.Reader) error { return nil }); err == nil {
			t.Errorf("ReadObject(%q) succeeded", name)
		}
	}
	for _, name := range []string{
		"nope", "HEAD:nope", strings.Repeat("0", 40), "", " ", "HEAD missing", "--batch",
		"HEAD@{99}", "HEAD@{upstream}", "main@{push}", // git dies on these
	} {
		if _, err := g.Info(ctx, name); !errors.Is(err, ErrMissing) {
			t.Errorf("Info(%q) = %v, want ErrMissing", name, err)
		}
		if o, err := g.Info(ctx, oids[0]); err != nil || o.OID != oids[0] {
			t.Fatalf("Info after %q = %+v, %v", name, o, err)
		}
	}

	// Two blobs whose ids share their first four hex digits: that prefix
	// is ambiguous.
	seen := map[string]string{}
	var prefix string
	for i := 0; prefix == ""; i++ {
		content := fmt.Sprintf("ambiguous %d\n", i)
		sum := sha1.Sum([]byte(fmt.Sprintf("blob %d\x00%s", len(content), content)))
		id := hex.EncodeToString(sum[:])
		if other, ok := seen[id[:4]]; ok {
			r.Git("hash-object", "-w", writeTemp(t, other))
			r.Git("hash-object", "-w", writeTemp(t, content))
			prefix = id[:4]
		}
		seen[id[:4]] = content
	}
	if out, err := r.TryGit("cat-file", "-t", prefix); err == nil {
		t.Fatalf("control: git cat-file -t %s = %q, want ambiguous", prefix, out)
	}
	if _, err := g.Info(ctx, prefix); !errors.Is(err, ErrMissing) {
		t.Errorf("Info(ambiguous %s) = %v, want ErrMissing", prefix, err)
	}
	if o, err := g.Info(ctx, oids[1][:10]); err != nil || o.OID != oids[1] {
		t.Errorf("Info(short id) = %+v, %v", o, err)
	}
}

func TestParseHeader(t *testing.T) {
	for _, tc := range []struct {
		header, name string
		want         Object
		missing, bad bool
	}{
		{"abc blob 12\n", "x", Object{"abc", "blob", 12}, false, false},
		{"x missing\n", "x", Object{}, true, false},
		{"a b missing\n", "a b", Object{}, true, false},
		{"x ambiguous\n", "x", Object{}, true, false},
		{"y missing\n", "x", Object{}, false, true},
		{"abc blob\n", "x", Object{}, false, true},
		{"abc blob -x\n", "x", Object{}, false, true},
	} {
		got, missing, err := parseHeader(tc.header, tc.name)
		if got != tc.want || missing != tc.missing || (err != nil) != tc.bad {
			t.Errorf("parseHeader(%q, %q) = %+v, %v, %v", tc.header, tc.name, got, missing, err)
		}
	}
}

// Random reads of random lengths from many goroutines: each stops early at
// a random point, some reads are cancelled, some readers are killed.
func TestObjectsChaos(t *testing.T) {
	r, oids, want := blobRepo(t, 40)
	big := bigBlob(t, r, drainLimit+1<<20)
	want[big] = r.Git("cat-file", "blob", big)
	oids = append(oids, big)
	g := open(t, r)
	var killed atomic.Bool
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for range 60 {
				oid := oids[rng.IntN(len(oids))]
				ctx, cancel := context.WithCancel(context.Background())
				stopAt := rng.IntN(len(want[oid]) + 1)
				cancelAt := -1
				if rng.IntN(10) == 0 {
					cancelAt = rng.IntN(len(want[oid]) + 1)
				}
				var got []byte
				err := g.ReadObject(ctx, oid, func(_ Object, body io.Reader) error {
					buf := make([]byte, 4096)
					for len(got) < stopAt {
						if cancelAt >= 0 && len(got) >= cancelAt {
							cancel()
						}
						n, err := body.Read(buf[:min(len(buf), stopAt-len(got))])
						got = append(got, buf[:n]...)
						if err != nil {
							return err
						}
					}
					return nil
				})
				cancel()
				switch {
				case err == nil:
					if string(got) != want[oid][:stopAt] {
						t.Errorf("read of %s up to %d returned other bytes", oid, stopAt)
					}
				case cancelAt >= 0 && errors.Is(err, context.Canceled):
				case killed.Load() && (errors.Is(err, io.ErrUnexpectedEOF) || strings.HasPrefix(err.Error(), "git cat-file: ")):
					// A reader killed while it answered this call.
				default:
					t.Errorf("ReadObject(%s): %v", oid, err)
				}
				if rng.IntN(40) == 0 {
					if pids := idlePids(g); len(pids) > 0 {
						killed.Store(true)
						syscall.Kill(pids[0], syscall.SIGKILL)
					}
				}
			}
		})
	}
	wg.Wait()
	for _, oid := range oids[:5] {
		if readBlob(t, g, oid) != want[oid] {
			t.Fatal("the pool is out of step")
		}
	}
}

// Readers nobody uses end: a server with many repositories keeps processes
// only for those in use.
func TestIdleReadersEnd(t *testing.T) {
	r, _, c2 := twoCommits(t)
	g := open(t, r)
	g.objects.idleTimeout = 100 * time.Millisecond
	if _, err := g.Info(context.Background(), c2); err != nil {
		t.Fatal(err)
	}
	if n := len(catFiles(t, r.GitDir())); n != 1 {
		t.Fatalf("%d readers after a read", n)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(catFiles(t, r.GitDir())) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("an idle reader is still running")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The pool starts a new one when needed.
	if _, err := g.Info(context.Background(), c2); err != nil {
		t.Fatal(err)
	}
}

// ObjectsStamp stays the same while the object store does, and changes
// when a commit it was asked about is pruned, loose or packed, and when a
// pack is written.
func TestObjectsStamp(t *testing.T) {
	r := testrepo.New(t)
	r.Write("a.txt", "one\n")
	base := r.Commit("base")
	r.Git("checkout", "-q", "-b", "gone")
	r.Write("a.txt", "two\n")
	gone := r.Commit("gone")
	r.Git("checkout", "-q", "main")
	g := open(t, r)
	stamp := func() string {
		s, ok := g.ObjectsStamp(base, gone)
		if !ok {
			t.Fatal("the store cannot be read")
		}
		return s
	}
	first := stamp()
	if again := stamp(); again != first {
		t.Fatalf("the stamp changed with the store unchanged:\n%s\n%s", first, again)
	}
	r.Git("branch", "-q", "-D", "gone")
	r.Git("reflog", "expire", "--expire=now", "--all")
	r.Git("prune", "--expire=now") // the loose commit goes
	if _, err := r.TryGit("cat-file", "-e", gone); err == nil {
		t.Fatal("control: the commit is still there")
	}
	pruned := stamp()
	if pruned == first {
		t.Fatal("pruning a loose commit left the stamp unchanged")
	}
	r.Git("gc", "-q") // a pack written, loose objects gone
	packed := stamp()
	if packed == pruned {
		t.Fatal("gc left the stamp unchanged")
	}
	// The layout is found once, but the files that make it are stamped:
	// objects borrowed from elsewhere change it.
	other := testrepo.New(t)
	other.Commit("elsewhere")
	r.Write(".git/objects/info/alternates", filepath.Join(other.Dir, ".git", "objects")+"\n")
	if stamp() == packed {
		t.Fatal("a new alternates file left the stamp unchanged")
	}
}

// forget empties the cache.
func (c *blobCache) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.items, c.bytes = nil, 0
	c.order.Init()
}

// Infos answers a list as Info answers each name, git's cat-file
// --batch-check the oracle: blobs, a tree, a missing path, names that can
// change; a long list in a few batches (round trips), not one per name,
// and names that start with an object id from memory the next time.
func TestInfos(t *testing.T) {
	r := testrepo.New(t)
	for i := range 400 {
		r.Write(fmt.Sprintf("f%03d.txt", i), strings.Repeat("line\n", i))
	}
	head := r.Commit("files")
	var names []string
	for i := range 400 {
		names = append(names, fmt.Sprintf("%s:f%03d.txt", head, i))
	}
	names = append(names, "main:f001.txt", head+":no-such-file", "main^{tree}", "no-such-ref", head)
	oracle := strings.Split(strings.TrimSuffix(r.GitInput(strings.Join(names, "\n")+"\n", "cat-file", "--batch-check"), "\n"), "\n")
	g := open(t, r)
	before := g.objects.requests.Load()
	got, err := g.Infos(context.Background(), names)
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range names {
		want := Object{}
		if f := strings.Fields(oracle[i]); len(f) == 3 {
			size, _ := strconv.ParseInt(f[2], 10, 64)
			want = Object{OID: f[0], Type: f[1], Size: size}
		}
		if got[i] != want {
			t.Errorf("%s: %+v, git says %q", name, got[i], oracle[i])
		}
	}
	if n := g.objects.requests.Load() - before; n > 4 {
		t.Errorf("%d names took %d round trips", len(names), n)
	}
	before = g.objects.requests.Load()
	again, err := g.Infos(context.Background(), names[:400])
	if err != nil || !slices.Equal(again, got[:400]) {
		t.Fatalf("asked again: %v, %v", err, again)
	}
	if n := g.objects.requests.Load() - before; n != 0 {
		t.Errorf("names that start with an object id were asked for again (%d round trips)", n)
	}
}
