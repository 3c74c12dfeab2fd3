package repo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// newEnv is the server's git environment for one test.
func newEnv(t *testing.T) *git.Env {
	t.Helper()
	env, err := git.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	return env
}

// realPath resolves symlinks (t.TempDir may sit under one).
func realPath(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// serveOne serves r's repository and returns it.
func serveOne(t *testing.T, env *git.Env, dir string) *Repository {
	t.Helper()
	s, err := ServeOne(context.Background(), env, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	r, err := s.Get(context.Background(), "", "", false)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestNameFromRemote(t *testing.T) {
	tests := []struct {
		url         string
		owner, name string // "" when the URL gives no name
	}{
		{"git@host:acme/widgets.git", "acme", "widgets"},
		{"git@host:acme/widgets", "acme", "widgets"},
		{"git@github.com:Acme-Corp/my_widgets.v2.git", "Acme-Corp", "my_widgets.v2"},
		{"https://host/acme/widgets", "acme", "widgets"},
		{"https://host/acme/widgets.git", "acme", "widgets"},
		{"https://host/acme/widgets.git/", "acme", "widgets"},
		{"https://host/acme/widgets/", "acme", "widgets"},
		{"https://user:token@host/acme/widgets.git", "acme", "widgets"},
		{"http://host:3000/acme/widgets", "acme", "widgets"},
		{"ssh://git@host:2222/acme/widgets.git", "acme", "widgets"},
		{"ssh://host/acme/widgets.git", "acme", "widgets"},
		{"git://host/acme/widgets", "acme", "widgets"},
		{"https://host/group/sub/widgets", "sub", "widgets"}, // GitLab subgroups: the last two segments
		{"https://host/forgejo/acme/widgets.git", "acme", "widgets"},
		// Local paths give their last two directories, like any other URL.
		{"/srv/git/widgets.git", "git", "widgets"},
		{"file:///srv/git/widgets.git", "git", "widgets"},
		{"../acme/widgets", "acme", "widgets"},

		{"", "", ""},
		{"https://host", "", ""},
		{"https://host/", "", ""},
		{"https://host/widgets", "", ""},
		{"git@host:widgets.git", "", ""},
		{"widgets", "", ""},
		{"../widgets", "", ""},
		{"git@host:acme/..", "", ""},
		{"https://host/acme/wid gets", "", ""},
		{"https://host/ac%2fme/widgets", "", ""},
		{"https://host/acme/widgets?ref=x", "", ""},
		{"https://host/acme/wîdgets", "", ""},
		{"https://host/acme/" + strings.Repeat("w", 256), "", ""},
	}
	for _, tt := range tests {
		owner, name, ok := nameFromRemote(tt.url)
		if ok != (tt.owner != "") || owner != tt.owner || name != tt.name {
			t.Errorf("nameFromRemote(%q) = %q, %q, %v; want %q, %q", tt.url, owner, name, ok, tt.owner, tt.name)
		}
	}
}

func TestValidName(t *testing.T) {
	for _, s := range []string{"a", "acme", "Acme-Corp", "my_repo.v2", "...", ".hidden", strings.Repeat("x", 255)} {
		if !ValidName(s) {
			t.Errorf("ValidName(%q) = false", s)
		}
	}
	for _, s := range []string{"", ".", "..", "a/b", "a b", "a\x00", "%2e%2e", "ü", `a\b`, strings.Repeat("x", 256)} {
		if ValidName(s) {
			t.Errorf("ValidName(%q) = true", s)
		}
	}
}

func TestFindRepository(t *testing.T) {
	r := testrepo.New(t)
	r.Write("a/b/c.txt", "c\n")
	r.Commit("one")
	wt := realPath(t, r.Dir)

	bare := r.CloneBare(filepath.Join(t.TempDir(), "widgets.git"))
	bareDir := realPath(t, bare.Dir)

	linked := filepath.Join(t.TempDir(), "linked")
	r.Git("worktree", "add", "-q", "-b", "feature", linked)
	linked = realPath(t, linked)
	if err := os.MkdirAll(filepath.Join(linked, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}

	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(r.Dir, link); err != nil {
		t.Fatal(err)
	}

	// A .git file with a relative gitdir, as submodules have.
	sub := filepath.Join(t.TempDir(), "super")
	if err := os.MkdirAll(filepath.Join(sub, "mod"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.CloneBare(filepath.Join(sub, "modgit"))
	if err := os.WriteFile(filepath.Join(sub, "mod", ".git"), []byte("gitdir: ../modgit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	modGit := filepath.Join(realPath(t, sub), "modgit")

	broken := t.TempDir()
	if err := os.WriteFile(filepath.Join(broken, ".git"), []byte("not a gitdir line\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name             string
		dir              string
		gitDir, workTree string
		fails            bool
	}{
		{"top of a work tree", r.Dir, filepath.Join(wt, ".git"), wt, false},
		{"subdirectory of a work tree", filepath.Join(r.Dir, "a", "b"), filepath.Join(wt, ".git"), wt, false},
		{"the .git directory itself is a git directory", filepath.Join(r.Dir, ".git"), filepath.Join(wt, ".git"), "", false},
		{"through a symlink", filepath.Join(link, "a"), filepath.Join(wt, ".git"), wt, false},
		{"bare repository", bareDir, bareDir, "", false},
		{"inside a bare repository", filepath.Join(bareDir, "refs", "heads"), bareDir, "", false},
		{"linked work tree", linked, filepath.Join(wt, ".git", "worktrees", "linked"), linked, false},
		{"subdirectory of a linked work tree", filepath.Join(linked, "sub"), filepath.Join(wt, ".git", "worktrees", "linked"), linked, false},
		{"relative gitdir in a .git file", filepath.Join(sub, "mod"), modGit, filepath.Join(realPath(t, sub), "mod"), false},
		{"not a repository", t.TempDir(), "", "", true},
		{"missing directory", filepath.Join(t.TempDir(), "nope"), "", "", true},
		{"invalid .git file", broken, "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := findRepository(tt.dir)
			gitDir, workTree := f.gitDir, f.workTree
			if tt.fails {
				if err == nil {
					t.Fatalf("findRepository(%s) = %s, %s; want an error", tt.dir, gitDir, workTree)
				}
				return
			}
			if err != nil || gitDir != tt.gitDir || workTree != tt.workTree {
				t.Errorf("findRepository(%s) = %q, %q, %v; want %q, %q", tt.dir, gitDir, workTree, err, tt.gitDir, tt.workTree)
			}
		})
	}
}

func TestResolveCommit(t *testing.T) {
	r := testrepo.New(t)
	r.Write("a.txt", "1\n")
	first := r.Commit("first")
	r.Write("a.txt", "2\n")
	second := r.Commit("second")
	r.Git("branch", "feature", first)
	r.Git("tag", "light", first)
	r.Git("tag", "-a", "-m", "annotated", "annotated", second)
	r.Git("tag", "-a", "-m", "tag of a tag", "nested", "annotated")
	blob := strings.TrimSpace(r.Git("rev-parse", "HEAD:a.txt"))
	r.Git("tag", "blobtag", blob)
	annotatedObj := strings.TrimSpace(r.Git("rev-parse", "annotated"))

	env := newEnv(t)
	repo := serveOne(t, env, r.Dir)
	written := filepath.Join(t.TempDir(), "f")

	tests := []struct {
		name string
		rev  string
		want string
		code errcode.Code
	}{
		{"empty means HEAD", "", second, ""},
		{"HEAD", "HEAD", second, ""},
		{"branch", "main", second, ""},
		{"full branch ref", "refs/heads/feature", first, ""},
		{"lightweight tag", "light", first, ""},
		{"annotated tag peeled to its commit", "annotated", second, ""},
		{"tag of a tag peeled", "nested", second, ""},
		{"annotated tag object id peeled", annotatedObj, second, ""},
		{"full id", first, first, ""},
		{"short id", first[:7], first, ""},
		{"parent", "HEAD~1", first, ""},
		{"first parent", "main^", first, ""},
		{"unknown branch", "nope", "", errcode.InvalidRef},
		{"unknown id", strings.Repeat("0", 40), "", errcode.InvalidRef},
		{"past the first commit", "HEAD~5", "", errcode.InvalidRef},
		{"blob", blob, "", errcode.InvalidRef},
		{"tag of a blob", "blobtag", "", errcode.InvalidRef},
		{"tree", "HEAD^{tree}", "", errcode.InvalidRef},
		{"path at a revision", "HEAD:a.txt", "", errcode.InvalidRef},
		{"option", "-x", "", errcode.InvalidRef},
		{"output option", "--output=" + written, "", errcode.InvalidRef},
		{"output option after a name", "main --output=" + written, "", errcode.InvalidRef},
		{"end of options", "--end-of-options", "", errcode.InvalidRef},
		{"newline", "main\nHEAD", "", errcode.InvalidRef},
		{"NUL", "main\x00", "", errcode.InvalidRef},
		{"tab", "ma\tin", "", errcode.InvalidRef},
		{"DEL", "main\x7f", "", errcode.InvalidRef},
		{"too long", strings.Repeat("a", 2000), "", errcode.InvalidRef},
		{"long but within the limit, unknown", strings.Repeat("a", maxRevLen), "", errcode.InvalidRef},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := repo.ResolveCommit(context.Background(), tt.rev)
			if tt.code == "" {
				if err != nil || got != tt.want {
					t.Errorf("ResolveCommit(%q) = %q, %v; want %s", tt.rev, got, err, tt.want)
				}
				return
			}
			if err == nil || errcode.Of(err) != tt.code {
				t.Errorf("ResolveCommit(%q) = %q, %v; want code %s", tt.rev, got, err, tt.code)
			}
		})
	}
	if _, err := os.Stat(written); err == nil {
		t.Errorf("a revision made git write %s", written)
	}
	// The reader stays usable after every refusal.
	if got, err := repo.ResolveCommit(context.Background(), "feature"); err != nil || got != first {
		t.Errorf("after the table, ResolveCommit(feature) = %q, %v", got, err)
	}
}

func TestResolveCommitEmptyRepository(t *testing.T) {
	r := testrepo.New(t)
	repo := serveOne(t, newEnv(t), r.Dir)
	if got, err := repo.ResolveCommit(context.Background(), ""); errcode.Of(err) != errcode.InvalidRef {
		t.Errorf("ResolveCommit in an empty repository = %q, %v; want INVALID_REF", got, err)
	}
}

func TestSanitizeName(t *testing.T) {
	for in, want := range map[string]string{
		"widgets":   "widgets",
		"my tool":   "my-tool",
		"my.tool":   "my.tool",
		"naïve":     "na-ve",
		"..":        "repo",
		"a/b":       "a-b",
		"v1.0_beta": "v1.0_beta",
	} {
		if got := sanitizeName(in); got != want {
			t.Errorf("sanitizeName(%q) = %q, want %q", in, got, want)
		}
	}
}
