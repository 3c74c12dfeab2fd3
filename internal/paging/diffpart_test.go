package paging

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// partsRepo is a range (main..feature) whose diff has what parts must cut
// right: files larger than a part and than a run of the patch cache, a
// type change (two sections), a rename, binary files, many small files.
func partsRepo(t *testing.T) (*testrepo.Repo, *repo.Repository, git.DiffOptions) {
	t.Helper()
	r := testrepo.New(t)
	r.Write("big.txt", numbered(900, ""))
	r.Write("move/old.txt", numbered(120, ""))
	r.Symlink("big.txt", "link")
	r.Write("bin.dat", "\x00\x01\x02")
	for i := range 30 {
		r.Write(fmt.Sprintf("dir/f%02d.txt", i), numbered(40+i, ""))
	}
	r.Commit("base")
	r.Git("checkout", "-q", "-b", "feature")
	r.Write("big.txt", numbered(900, "edited"))
	r.Git("mv", "move/old.txt", "move/new.txt")
	r.Write("move/new.txt", numbered(120, "moved"))
	r.Git("rm", "-q", "link")
	r.Write("link", "a file now\n")
	r.Write("bin.dat", "\x00\x03")
	for i := range 30 {
		r.Write(fmt.Sprintf("dir/f%02d.txt", i), numbered(40+i, "f"))
	}
	r.Commit("feature")
	env, err := git.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	served, err := repo.ServeOne(context.Background(), env, r.Dir, "acme/widgets")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(served.Close)
	rp, err := served.Get(context.Background(), "acme", "widgets", true)
	if err != nil {
		t.Fatal(err)
	}
	from, to := strings.TrimSpace(r.Git("rev-parse", "main")), strings.TrimSpace(r.Git("rev-parse", "feature"))
	return r, rp, git.DiffOptions{From: from, To: to, Context: 3}
}

// numbered is n numbered lines, every seventh with edit appended.
func numbered(n int, edit string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString("line " + strconv.Itoa(i))
		if edit != "" && i%7 == 0 {
			b.WriteString(" " + edit)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// drainParts reads every part of q's diff with room, each from where the
// last one said the next starts, as the cursor carries it.
func drainParts(t *testing.T, ds *Diffs, q Request, room int) []*Part {
	t.Helper()
	var parts []*Part
	q.Room = room
	for {
		if len(parts) > 500 {
			t.Fatal("more than 500 parts")
		}
		p, err := ds.ReadPart(context.Background(), q)
		if err != nil {
			t.Fatalf("part %d: %v", len(parts)+1, err)
		}
		parts = append(parts, p)
		// As between an agent's calls: the run the part left filling is
		// filled first, so that the next part can be cut from it.
		for deadline := time.Now().Add(10 * time.Second); ds.Filling() && time.Now().Before(deadline); {
			time.Sleep(2 * time.Millisecond)
		}
		if p.Next == nil {
			return parts
		}
		q.Start, q.Split = *p.Next, p.NextSplit
	}
}

// The parts of a diff, read one after the other, are git's patch: joined
// (diff.Join) they are git diff's output byte for byte, each within its
// room, and a part cut from the patch cache is the part git gives (a
// Diffs with the cache off: a restarted server, or another replica).
func TestPartsAreGitsPatch(t *testing.T) {
	defer func(b int) { MaxRunBytes = b }(MaxRunBytes)
	MaxRunBytes = 24 << 10 // drains cross runs, and a file is larger than one
	tr, r, opts := partsRepo(t)
	want := []byte(tr.Git("diff", "-M", opts.From, opts.To))
	for _, room := range []int{MinPartRoom, 1500, 6000, 1 << 20} {
		t.Run(strconv.Itoa(room), func(t *testing.T) {
			warm, cold := NewDiffs(64<<20), NewDiffs(0)
			q := Request{Repo: r, Opts: opts}
			parts, again := drainParts(t, warm, q, room), drainParts(t, cold, q, room)
			if len(parts) != len(again) {
				t.Fatalf("%d parts from the cache, %d from git", len(parts), len(again))
			}
			texts := make([][]byte, len(parts))
			for i, p := range parts {
				g := again[i]
				if string(p.Page.Text) != string(g.Page.Text) || fmt.Sprint(p.Next) != fmt.Sprint(g.Next) || p.Range() != g.Range() {
					t.Fatalf("part %d: the cache's part differs from git's:\n%s (%s)\n-- git --\n%s (%s)", i+1, p.Page.Text, p.Range(), g.Page.Text, g.Range())
				}
				if cost := len(p.Page.Text); room < 1<<20 && cost > 2*room+2048 {
					t.Errorf("part %d holds %d bytes in a room of %d", i+1, cost, room)
				}
				texts[i] = p.Page.Text
			}
			got, err := diff.Join(texts...)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Fatalf("the %d parts joined are not git's patch:\n%s\n-- git --\n%s", len(parts), got, want)
			}
			if hits := cold.Hits(); hits != 0 {
				t.Errorf("with the cache off, %d parts came from it", hits)
			}
			if room < 1<<20 && len(parts) > 2 && warm.Hits() == 0 {
				t.Errorf("%d parts, none cut from the cache", len(parts))
			}
			t.Logf("%d parts, %d from the cache, %d of them cut ahead", len(parts), warm.Hits(), warm.AheadHits())
		})
	}
}

// A part past the diff's end is refused, not an empty part: the cursor
// was made for other arguments.
func TestPartPastTheEndIsRefused(t *testing.T) {
	_, r, opts := partsRepo(t)
	_, err := NewDiffs(0).ReadPart(context.Background(), Request{Repo: r, Opts: opts, Room: 6000, Start: Pos{Change: 1000}})
	if err == nil || !strings.Contains(err.Error(), "points past the end of the diff") {
		t.Fatalf("a start past the end: %v", err)
	}
}
