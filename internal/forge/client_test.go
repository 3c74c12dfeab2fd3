package forge

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
)

const secretToken = "s3cr3t-token-value"

// fakeForge answers /api/v1/version and hands every other request to h.
func fakeForge(t *testing.T, version string, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/version" {
			io.WriteString(w, `{"version":"`+version+`"}`)
			return
		}
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestDetectsForge(t *testing.T) {
	for version, kind := range map[string]string{"1.26.0": "Gitea", "7.0.4+gitea-1.22.0": "Forgejo", "11.0.1-forgejo": "Forgejo"} {
		srv := fakeForge(t, version, nil)
		c, err := New(context.Background(), srv.URL, "")
		if err != nil || c.Kind != kind || c.Version != version {
			t.Errorf("%s: %+v, %v; want %s", version, c, err, kind)
		}
	}
}

func TestStatusCodes(t *testing.T) {
	cases := []struct {
		status int
		code   errcode.Code
	}{
		{401, errcode.PermissionDenied}, {403, errcode.PermissionDenied}, {404, errcode.NotFound},
		{429, errcode.Unavailable}, {500, errcode.Unavailable}, {502, errcode.Unavailable}, {503, errcode.Unavailable},
		{422, errcode.InvalidArgument},
	}
	for _, c := range cases {
		srv := fakeForge(t, "1.26.0", func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "token "+secretToken {
				t.Errorf("request without the token: %v", r.Header)
			}
			w.WriteHeader(c.status)
			io.WriteString(w, `{"message":"fake `+http.StatusText(c.status)+`"}`)
		})
		cl, err := New(context.Background(), srv.URL, secretToken)
		if err != nil {
			t.Fatal(err)
		}
		_, err = cl.PullDiff(context.Background(), "acme", "widgets", 7)
		if errcode.Of(err) != c.code || strings.Contains(err.Error(), secretToken) {
			t.Errorf("%d: %v, want %s", c.status, err, c.code)
		}
	}
}

func TestSlowForgeEndsAtTheDeadline(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := fakeForge(t, "1.26.0", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	cl, err := New(context.Background(), srv.URL, secretToken)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeoutCause(context.Background(), 300*time.Millisecond, errcode.New(errcode.Unavailable, "deadline"))
	defer cancel()
	start := time.Now()
	_, err = cl.Contents(ctx, "acme", "widgets", "README.md", "main")
	if errcode.Of(err) != errcode.Unavailable || time.Since(start) > 3*time.Second {
		t.Fatalf("slow forge: %v after %v", err, time.Since(start))
	}
}

func TestUnreachableForge(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	_, err := New(context.Background(), url, secretToken)
	if errcode.Of(err) != errcode.Unavailable || strings.Contains(err.Error(), secretToken) {
		t.Fatalf("unreachable: %v", err)
	}
}

func TestRedirectToAnotherHostIsRefused(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			t.Error("the token followed a redirect to another host")
		}
	}))
	defer other.Close()
	srv := fakeForge(t, "1.26.0", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, strings.Replace(other.URL, "127.0.0.1", "localhost", 1)+"/steal", http.StatusFound)
	})
	cl, err := New(context.Background(), srv.URL, secretToken)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.PullDiff(context.Background(), "acme", "widgets", 1); err == nil {
		t.Fatal("redirect followed")
	}
}

func TestPullDiffStreams(t *testing.T) {
	// The body is produced as it is read: the client must hand it over as
	// a stream, not read 100 MB first.
	srv := fakeForge(t, "1.26.0", func(w http.ResponseWriter, r *http.Request) {
		line := []byte("+" + strings.Repeat("x", 99) + "\n")
		io.WriteString(w, "diff --git a/big b/big\n--- a/big\n+++ b/big\n@@ -0,0 +1,1000000 @@\n")
		for i := 0; i < 1_000_000; i++ {
			if _, err := w.Write(line); err != nil {
				return
			}
		}
	})
	cl, err := New(context.Background(), srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	body, err := cl.PullDiff(context.Background(), "acme", "widgets", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer body.Close()
	head := make([]byte, 16)
	if _, err := io.ReadFull(body, head); err != nil || string(head) != "diff --git a/big" {
		t.Fatalf("%q %v", head, err)
	}
}

func TestBadNamesNeverReachTheForge(t *testing.T) {
	srv := fakeForge(t, "1.26.0", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request for %s", r.URL)
	})
	cl, _ := New(context.Background(), srv.URL, "")
	m, err := NewMirrors(cl, nil, t.TempDir(), time.Minute, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range [][2]string{{"..", "x"}, {"a/b", "c"}, {"a", "../../etc"}, {"", "x"}, {"a", "b%2f"}} {
		if _, err := m.Open(context.Background(), name[0], name[1], false); errcode.Of(err) != errcode.InvalidArgument {
			t.Errorf("%q: %v", name, err)
		}
	}
}
