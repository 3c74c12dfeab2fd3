package forge

import (
	"context"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge/forgetest"
)

// giteaPull is a pull request as Gitea 1.26 writes it (trimmed of what
// PullDetails does not read, but keeping fields of the same names nested
// elsewhere: head.repo.name, user.id).
const giteaPull = `{"id":12,"url":"http://forge/api/v1/repos/acme/widgets/pulls/7","number":7,
"user":{"id":3,"login":"alice","full_name":"Alice"},"title":"Add widgets","body":"Why:\r\nbecause.\r\n",
"labels":[{"id":1,"name":"bug","color":"ee0701"},{"id":2,"name":"needs review"}],
"state":"closed","draft":false,"merged":true,"mergeable":false,"changed_files":6,"additions":10,"deletions":2,
"html_url":"http://forge/acme/widgets/pulls/7",
"base":{"label":"main","ref":"main","sha":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","repo":{"name":"widgets"}},
"head":{"label":"feature","ref":"feature","sha":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb","repo":{"name":"widgets"}},
"merge_base":"cccccccccccccccccccccccccccccccccccccccc",
"created_at":"2025-01-02T03:04:05Z","updated_at":"2025-02-03T04:05:06+01:00"}`

func TestPullDetails(t *testing.T) {
	var asked []string
	srv := fakeForge(t, "1.26.0", func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.Path)
		switch r.URL.Path {
		case "/api/v1/repos/acme/widgets/pulls/7":
			io.WriteString(w, giteaPull)
		case "/api/v1/repos/acme/widgets/pulls/8": // open, a draft, no count, no labels
			io.WriteString(w, `{"title":"WIP","body":"","user":{"login":"bob"},"state":"open","draft":true,"mergeable":true,"labels":[],
"base":{"ref":"main","sha":"a"},"head":{"ref":"wip","sha":"b"},"merge_base":"c"}`)
		case "/api/v1/repos/acme/widgets/pulls/9":
			io.WriteString(w, `{"title":`) // cut short
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"message":"The target couldn't be found."}`)
		}
	})
	c, err := New(context.Background(), srv.URL, secretToken)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	d, err := c.PullDetails(ctx, "acme", "widgets", 7)
	if err != nil {
		t.Fatal(err)
	}
	want := PullDetails{
		Title: "Add widgets", Body: "Why:\r\nbecause.\r\n", Author: "alice", State: "merged", Mergeable: false,
		BaseRef: "main", BaseSHA: strings.Repeat("a", 40), HeadRef: "feature", HeadSHA: strings.Repeat("b", 40),
		MergeBase: strings.Repeat("c", 40), Labels: []string{"bug", "needs review"}, URL: "http://forge/acme/widgets/pulls/7",
		Created: "2025-01-02T03:04:05Z", Updated: "2025-02-03T04:05:06+01:00", ChangedFiles: 6,
	}
	if !reflect.DeepEqual(*d, want) {
		t.Fatalf("got  %+v\nwant %+v", *d, want)
	}
	d, err = c.PullDetails(ctx, "acme", "widgets", 8)
	if err != nil || d.State != "open" || !d.Draft || !d.Mergeable || d.ChangedFiles != -1 || d.Labels == nil || len(d.Labels) != 0 || d.Author != "bob" || d.HeadRef != "wip" {
		t.Fatalf("#8: %+v, %v", d, err)
	}
	if _, err := c.PullDetails(ctx, "acme", "widgets", 404); errcode.Of(err) != errcode.NotFound {
		t.Fatalf("404: %v, want NOT_FOUND", err)
	}
	if _, err := c.PullDetails(ctx, "acme", "widgets", 9); errcode.Of(err) != errcode.Unavailable {
		t.Fatalf("bad JSON: %v, want UNAVAILABLE", err)
	}
	if !slices.Contains(asked, "/api/v1/repos/acme/widgets/pulls/7") {
		t.Fatalf("asked %v", asked)
	}
}

// A forge that echoes the request (token and all) in its errors: the
// error quotes the echo, scrubbed.
func TestPullDetailsNeverLeaksTheToken(t *testing.T) {
	f := forgetest.New(t)
	c, err := New(context.Background(), f.URL, secretToken)
	if err != nil {
		t.Fatal(err)
	}
	for _, status := range []int32{400, 401, 403, 404, 422, 500, 502} {
		f.EchoAPI.Store(status)
		_, err := c.PullDetails(context.Background(), "acme", "widgets", 1)
		if err == nil || strings.Contains(err.Error(), secretToken) {
			t.Fatalf("%d: %v", status, err)
		}
		if !strings.Contains(err.Error(), "token [token]") {
			t.Errorf("%d: the forge's echo is not quoted (scrubbed): %v", status, err)
		}
	}
}
