//go:build unix

package repo

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

func TestOpenWorkTreeFile(t *testing.T) {
	outside := t.TempDir()
	must(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("outside\n"), 0o644))

	r := testrepo.New(t)
	r.Write("a.txt", "a\n")
	r.Write("src/b.go", "package b\n")
	r.Write(".env", "TOKEN=x\n")
	r.Write("keys/deploy.pem", "-----BEGIN-----\n")
	r.Write("config/prod/db.yml", "password: x\n")
	r.Symlink("a.txt", "link-to-a")
	r.Symlink("../src/b.go", "docs/b-link.go")
	r.Symlink("src", "srclink")
	r.Symlink(filepath.Join(outside, "secret.txt"), "abs-outside")
	r.Symlink("../../"+filepath.Base(outside)+"/secret.txt", "rel-outside") // resolves outside whatever it is
	r.Symlink(".env", "notes.txt")
	r.Symlink("keys/deploy.pem", "cert.txt")
	r.Symlink("config/prod/db.yml", "db.txt")
	r.Symlink(".git/config", "gitconfig.txt")
	r.Symlink(".git", "gitlink")
	r.Symlink(outside, "outdir")
	r.Symlink("missing.txt", "dangling")
	r.Symlink("loop2", "loop1")
	r.Symlink("loop1", "loop2")
	r.Commit("files")
	must(t, syscall.Mkfifo(filepath.Join(r.Dir, "fifo"), 0o644))

	repo := serveOne(t, newEnv(t), r.Dir)
	p := mustPolicy(t, "config/prod/")

	tests := []struct {
		name string
		path string
		want string // content when the open succeeds
		code errcode.Code
	}{
		{"regular file", "a.txt", "a\n", ""},
		{"file in a directory", "src/b.go", "package b\n", ""},
		{"symlink to a file in the tree", "link-to-a", "a\n", ""},
		{"relative symlink up and down inside the tree", "docs/b-link.go", "package b\n", ""},
		{"through a symlinked directory inside the tree", "srclink/b.go", "package b\n", ""},

		{"absolute symlink outside the work tree", "abs-outside", "", errcode.PathDenied},
		{"relative symlink outside the work tree", "rel-outside", "", errcode.PathDenied},
		{"symlink to .env", "notes.txt", "", errcode.PathDenied},
		{"symlink to a private key", "cert.txt", "", errcode.PathDenied},
		{"symlink into a directory hidden by configuration", "db.txt", "", errcode.PathDenied},
		{"symlink into .git", "gitconfig.txt", "", errcode.PathDenied},
		{"through a symlink to .git", "gitlink/HEAD", "", errcode.PathDenied},
		{"through a symlinked directory that leaves the tree", "outdir/secret.txt", "", errcode.PathDenied},
		{"symlink loop", "loop1", "", errcode.PathDenied},
		{"directory", "src", "", errcode.InvalidArgument},
		{"the root", "", "", errcode.InvalidArgument},
		{"symlink to a directory", "srclink", "", errcode.InvalidArgument},
		{"missing file", "nope.txt", "", errcode.NotFound},
		{"missing directory", "nope/a.txt", "", errcode.NotFound},
		{"dangling symlink", "dangling", "", errcode.NotFound},
		{"file used as a directory", "a.txt/x", "", errcode.NotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := repo.OpenWorkTreeFile(p, tt.path)
			if tt.code != "" {
				if err == nil {
					f.Close()
					t.Fatalf("OpenWorkTreeFile(%q) opened a file; want %s", tt.path, tt.code)
				}
				if errcode.Of(err) != tt.code {
					t.Fatalf("OpenWorkTreeFile(%q): %v; want code %s", tt.path, err, tt.code)
				}
				return
			}
			if err != nil {
				t.Fatalf("OpenWorkTreeFile(%q): %v", tt.path, err)
			}
			defer f.Close()
			data, err := io.ReadAll(f)
			if err != nil || string(data) != tt.want {
				t.Errorf("read %q, %v; want %q", data, err, tt.want)
			}
		})
	}

	t.Run("FIFO is refused at once", func(t *testing.T) {
		done := make(chan error, 1)
		go func() {
			f, err := repo.OpenWorkTreeFile(p, "fifo")
			if err == nil {
				f.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if errcode.Of(err) != errcode.InvalidArgument {
				t.Errorf("OpenWorkTreeFile(fifo): %v; want INVALID_ARGUMENT", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("OpenWorkTreeFile(fifo) blocked")
		}
	})
}

func TestOpenWorkTreeFileBare(t *testing.T) {
	r := testrepo.New(t)
	r.Write("a.txt", "a\n")
	r.Commit("one")
	b := r.CloneBare(filepath.Join(t.TempDir(), "b.git"))
	repo := serveOne(t, newEnv(t), b.Dir)
	if !repo.Bare() {
		t.Fatal("bare clone not seen as bare")
	}
	f, err := repo.OpenWorkTreeFile(mustPolicy(t), "a.txt")
	if err == nil {
		f.Close()
	}
	if errcode.Of(err) != errcode.InvalidArgument {
		t.Errorf("OpenWorkTreeFile in a bare repository: %v; want INVALID_ARGUMENT", err)
	}
}

// In root mode the work tree is the resolved path under the root; a file
// symlinked to a sibling repository is outside this work tree.
func TestOpenWorkTreeFileRootMode(t *testing.T) {
	l := newRootLayout(t)
	w := filepath.Join(l.root, "acme", "widgets")
	must(t, os.Symlink("../../Other/Mixed/m.txt", filepath.Join(w, "sibling.txt")))
	must(t, os.Symlink("../../evil/repo/secret.txt", filepath.Join(w, "evil.txt")))
	s := serveRoot(t, l.root)
	r, err := s.Get(t.Context(), "acme", "widgets", true)
	if err != nil {
		t.Fatal(err)
	}
	p := mustPolicy(t)
	if f, err := r.OpenWorkTreeFile(p, "README.md"); err != nil {
		t.Errorf("README.md: %v", err)
	} else {
		f.Close()
	}
	for _, path := range []string{"sibling.txt", "evil.txt"} {
		f, err := r.OpenWorkTreeFile(p, path)
		if err == nil {
			f.Close()
		}
		if errcode.Of(err) != errcode.PathDenied {
			t.Errorf("%s: %v; want PATH_DENIED", path, err)
		}
	}
}
