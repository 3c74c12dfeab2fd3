package git

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitattr"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

func TestReadAttrFile(t *testing.T) {
	r := testrepo.New(t)
	r.Write(".gitattributes", "*.go linguist-generated\n")
	r.Write("big/.gitattributes", "*.go linguist-generated\n"+strings.Repeat("# padding\n", 2000))
	r.Symlink("../.gitattributes", "link/.gitattributes")
	r.Write("dir/.gitattributes/x", "*.go linguist-generated\n")
	r.Write("exec/.gitattributes", "*.go linguist-generated\n")
	if err := os.Chmod(filepath.Join(r.Dir, "exec", ".gitattributes"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.Commit("files")
	addBlob(t, r, "100644", "new\nline/.gitattributes", "*.go linguist-generated\n")
	r.Git("update-index", "--add", "--cacheinfo", "160000,"+strings.Repeat("1", 40)+",sub/.gitattributes")
	r.Git("commit", "-q", "-m", "plumbing")
	commit := r.Head()
	g := open(t, r)
	ctx := context.Background()

	tests := []struct {
		dir     string
		read    bool   // a file comes back
		ignored string // the error says this, wrapping gitattr.ErrIgnored
	}{
		{dir: "", read: true},
		{dir: "exec", read: true},
		{dir: "new\nline", read: true},
		{dir: "nowhere"},
		{dir: "exec/.gitattributes"}, // below a file
		{dir: "sub"},                 // a submodule named .gitattributes: its commit is not here
		{dir: "big", ignored: `"big/.gitattributes" is 20024 bytes, over the 1000-byte limit`},
		{dir: "link", ignored: `"link/.gitattributes" is a symlink, not a file`},
		{dir: "dir", ignored: `"dir/.gitattributes" is a dir, not a file`},
	}
	for _, tt := range tests {
		f, err := g.ReadAttrFile(ctx, commit, tt.dir, 1000)
		switch {
		case tt.ignored != "":
			if !errors.Is(err, gitattr.ErrIgnored) || !strings.Contains(err.Error(), tt.ignored) || f != nil {
				t.Errorf("%q: got %v, %v; want an error saying %q", tt.dir, f, err, tt.ignored)
			}
		case err != nil || (f != nil) != tt.read:
			t.Errorf("%q: got %v, %v; want a file: %v", tt.dir, f, err, tt.read)
		case f != nil && (f.Dir != tt.dir || gitattr.Check([]*gitattr.File{f}, tt.dir+"/a.go", "linguist-generated")[0].State != gitattr.Set):
			t.Errorf("%q: read %+v", tt.dir, f)
		}
	}
	if f, err := g.ReadAttrFile(ctx, commit, "big", 1<<20); err != nil || f == nil {
		t.Errorf("big under a larger limit: %v, %v", f, err)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := g.ReadAttrFile(cancelled, commit, "", 1000); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
