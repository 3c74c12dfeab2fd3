package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge/forgetest"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
)

// A count of a forge's diff's parts reads the diff, kept once, from the
// last section an earlier part passed, not from its start for every part:
// what a part's readers are given does not grow with where the part is in
// the diff (prometheus 4679 through Gitea was not counted in its 3 s: its
// 257 parts read 2.2 MB from its start, each several times).
func TestForgeCountReadsEachPartFromNearIt(t *testing.T) {
	f := forgetest.New(t)
	f.Repo.Git("checkout", "-q", "topic")
	for i := range 300 {
		f.Repo.Write(fmt.Sprintf("many/f%03d.txt", i), strings.Repeat(fmt.Sprintf("line of file %d\n", i), 60))
	}
	f.Repo.Commit("300 files")
	head := strings.TrimSpace(f.Repo.Git("rev-parse", "HEAD"))
	base := strings.TrimSpace(f.Repo.Git("rev-parse", "main"))
	patch := f.Repo.Git("diff", "-M", base, head)
	const p = "/api/v1/repos/acme/widgets"
	f.API = func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case p + "/pulls/1.diff":
			_, _ = w.Write([]byte(patch))
		case p + "/pulls/1":
			fmt.Fprintf(w, `{"number":1,"title":"t","state":"open","user":{"login":"a"},"changed_files":301,"base":{"ref":"main","sha":%q},"head":{"ref":"topic","sha":%q},"merge_base":%q}`, base, head, base)
		default:
			http.NotFound(w, r)
		}
	}
	h := serveForgeAs(t, f, "an-unknown-client")
	b := h.server.calls.Budget
	b.MaxBytes, b.Ceiling, b.Whole = 8000, 8000, DefaultMaxBytes
	shared := &countShared{}
	defer shared.close()
	ctx := paging.WithBudget(context.WithValue(context.Background(), countSharedKey{}, shared), b)
	var given []int64 // by each part's readers
	call := func(ctx context.Context, cursor string) (*paging.Call, error) {
		in := getPullRequestDiffIn{Owner: "acme", Repo: "widgets", Index: 1, ContextLines: defaultContextLines, Cursor: cursor}
		var before int64
		if shared.stream != nil {
			before = shared.stream.Given
		}
		r, err := h.server.backend.pullRequestDiff(ctx, in, "")
		given = append(given, shared.stream.Given-before)
		return r.Next, err
	}
	n := h.server.drainCount(context.WithValue(ctx, countingKey{}, 1), call)
	if n < 40 || n != len(given) {
		t.Fatalf("%d parts counted in %d calls, want the 300-file diff in more than 40", n, len(given))
	}
	second, most, at := given[1], int64(0), 0
	for i, g := range given[1:] {
		if g > most {
			most, at = g, i+2
		}
	}
	t.Logf("%d parts of a %d-byte diff; the second part's readers were given %d bytes, part %d's %d, the most", n, len(patch), second, at, most)
	if most > 2*second {
		t.Errorf("part %d's readers were given %d bytes, the second's %d: parts read the diff from its start", at, most, second)
	}
}
