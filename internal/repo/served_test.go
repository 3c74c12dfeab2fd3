//go:build unix

package repo

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitdir"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// rootLayout is a --root directory as Gitea lays it out, with traps:
//
//	ROOT/acme/widgets        non-bare, branch main
//	ROOT/acme/gadgets.git    bare, branch main
//	ROOT/Other/Mixed         non-bare, branch trunk
//	ROOT/acme/notes          a directory that is not a repository
//	ROOT/acme/README.md      a file
//	ROOT/bad name/x          an owner name that is not valid
//	ROOT/evil/repo           symlink to a repository outside the root
//	ROOT/evil/stash.git      symlink to a bare repository outside the root
//	ROOT/escape              symlink to a directory outside the root holding widgets/
type rootLayout struct {
	root                    string
	widgets, gadgets, mixed string // commit ids of HEAD
}

func newRootLayout(t *testing.T) rootLayout {
	t.Helper()
	root := t.TempDir()
	var l rootLayout
	l.root = root

	w := testrepo.Init(t, filepath.Join(root, "acme", "widgets"))
	w.Write("README.md", "widgets\n")
	l.widgets = w.Commit("widgets")

	src := testrepo.New(t)
	src.Write("g.txt", "gadgets\n")
	l.gadgets = src.Commit("gadgets")
	src.CloneBare(filepath.Join(root, "acme", "gadgets.git"))

	m := testrepo.Init(t, filepath.Join(root, "Other", "Mixed"))
	m.Write("m.txt", "mixed\n")
	m.Commit("mixed")
	m.Git("checkout", "-q", "-b", "trunk")
	m.Write("m.txt", "trunk\n")
	l.mixed = m.Commit("trunk")

	must(t, os.MkdirAll(filepath.Join(root, "acme", "notes"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "acme", "README.md"), []byte("hi\n"), 0o644))
	testrepo.Init(t, filepath.Join(root, "bad name", "x")).Commit("x")

	outside := t.TempDir()
	o := testrepo.Init(t, filepath.Join(outside, "secret"))
	o.Write("secret.txt", "outside\n")
	o.Commit("outside")
	o.CloneBare(filepath.Join(outside, "secret.git"))
	testrepo.Init(t, filepath.Join(outside, "widgets")).Commit("outside widgets")
	must(t, os.MkdirAll(filepath.Join(root, "evil"), 0o755))
	must(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "evil", "repo")))
	must(t, os.Symlink(filepath.Join(outside, "secret.git"), filepath.Join(root, "evil", "stash.git")))
	must(t, os.Symlink(outside, filepath.Join(root, "escape")))
	return l
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func serveRoot(t *testing.T, root string) *Served {
	t.Helper()
	s, err := ServeRoot(newEnv(t), root, RootOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func TestServeRootGet(t *testing.T) {
	l := newRootLayout(t)
	s := serveRoot(t, l.root)
	if s.single != nil {
		t.Fatal("a root serves more than one repository")
	}
	tests := []struct {
		name        string
		owner, repo string
		full        string // the repository found, named as on disk
		head        string
		bare        bool
		code        errcode.Code
	}{
		{"exact name", "acme", "widgets", "acme/widgets", l.widgets, false, ""},
		{"bare repository", "acme", "gadgets", "acme/gadgets", l.gadgets, true, ""},
		{"bare repository with .git", "acme", "gadgets.git", "acme/gadgets", l.gadgets, true, ""},
		{"non-bare repository with .git", "acme", "widgets.git", "acme/widgets", l.widgets, false, ""},
		{"upper case finds the lower-case directory", "ACME", "Widgets", "acme/widgets", l.widgets, false, ""},
		{"upper case finds a bare repository", "Acme", "GADGETS.git", "acme/gadgets", l.gadgets, true, ""},
		{"mixed case as on disk", "Other", "Mixed", "Other/Mixed", l.mixed, false, ""},
		{"lower case finds a mixed-case directory", "other", "mixed", "Other/Mixed", l.mixed, false, ""},
		{"any case finds a mixed-case directory", "OTHER", "mIxEd", "Other/Mixed", l.mixed, false, ""},

		{"unknown repository", "acme", "nope", "", "", false, errcode.NotFound},
		{"unknown owner", "nobody", "widgets", "", "", false, errcode.NotFound},
		{"directory that is not a repository", "acme", "notes", "", "", false, errcode.NotFound},
		{"file", "acme", "README.md", "", "", false, errcode.NotFound},
		{"symlink to a repository outside the root", "evil", "repo", "", "", false, errcode.NotFound},
		{"symlink to a bare repository outside the root", "evil", "stash", "", "", false, errcode.NotFound},
		{"owner symlinked outside the root", "escape", "widgets", "", "", false, errcode.NotFound},
		{"empty owner", "", "widgets", "", "", false, errcode.InvalidArgument},
		{"empty repo", "acme", "", "", "", false, errcode.InvalidArgument},
		{"both empty", "", "", "", "", false, errcode.InvalidArgument},
		{"only .git", "acme", ".git", "", "", false, errcode.InvalidArgument},
		{"dot-dot repo", "acme", "..", "", "", false, errcode.InvalidArgument},
		{"dot-dot owner", "..", "acme", "", "", false, errcode.InvalidArgument},
		{"dot owner", ".", "acme", "", "", false, errcode.InvalidArgument},
		{"slash in repo", "acme", "widgets/../gadgets", "", "", false, errcode.InvalidArgument},
		{"owner and repo in one", "acme/widgets", "widgets", "", "", false, errcode.InvalidArgument},
		{"climbing owner", "../..", "etc", "", "", false, errcode.InvalidArgument},
		{"percent-encoded dots", "%2e%2e", "widgets", "", "", false, errcode.InvalidArgument},
		{"percent-encoded dots in repo", "acme", "%2e%2e", "", "", false, errcode.InvalidArgument},
		{"NUL", "acme", "widgets\x00", "", "", false, errcode.InvalidArgument},
		{"space in owner", "bad name", "x", "", "", false, errcode.InvalidArgument},
		{"backslash", "acme", `..\widgets`, "", "", false, errcode.InvalidArgument},
		{"absolute path as owner", "/etc", "passwd", "", "", false, errcode.InvalidArgument},
	}
	ctx := context.Background()
	if _, err := s.List(ctx); err != nil { // NOT_FOUND names what a recent listing found
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, required := range []bool{true, false} {
				r, err := s.Get(ctx, tt.owner, tt.repo, required)
				if tt.code != "" {
					if err == nil || errcode.Of(err) != tt.code {
						t.Fatalf("Get(%q, %q, %v) = %v, %v; want code %s", tt.owner, tt.repo, required, r, err, tt.code)
					}
					if tt.code == errcode.NotFound && !strings.Contains(err.Error(), "acme/widgets") {
						t.Errorf("NOT_FOUND does not list what is served: %v", err)
					}
					if _, served, _ := strings.Cut(err.Error(), "served:"); strings.Contains(served, "evil") || strings.Contains(served, "escape") || strings.Contains(served, "bad name") {
						t.Errorf("error lists what is not served: %v", err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("Get(%q, %q, %v): %v", tt.owner, tt.repo, required, err)
				}
				if r.FullName() != tt.full || r.Bare() != tt.bare {
					t.Errorf("Get(%q, %q) = %s (bare %v), want %s (bare %v)", tt.owner, tt.repo, r.FullName(), r.Bare(), tt.full, tt.bare)
				}
				if !gitdir.Within(realPath(t, l.root), r.Git.GitDir()) {
					t.Errorf("git directory %s is outside the root", r.Git.GitDir())
				}
				if head, err := r.ResolveCommit(ctx, ""); err != nil || head != tt.head {
					t.Errorf("HEAD of %s = %q, %v; want %s", r.FullName(), head, err, tt.head)
				}
			}
		})
	}
}

// Names match whatever was asked before: a lookup never depends on what an
// earlier caller opened.
func TestServeRootGetDoesNotDependOnOrder(t *testing.T) {
	l := newRootLayout(t)
	ctx := context.Background()
	for _, order := range [][2]string{{"other/mixed", "Other/Mixed"}, {"Other/Mixed", "other/mixed"}, {"ACME/WIDGETS", "acme/widgets"}} {
		s := serveRoot(t, l.root)
		var first *Repository
		for i, name := range order {
			owner, repo, _ := strings.Cut(name, "/")
			r, err := s.Get(ctx, owner, repo, true)
			if err != nil {
				t.Fatalf("order %v: Get(%s): %v", order, name, err)
			}
			if i == 0 {
				first = r
			} else if r != first {
				t.Errorf("order %v: %s and %s opened the repository twice", order, order[0], name)
			}
		}
		if !strings.EqualFold(first.FullName(), order[0]) || first.FullName() == strings.ToUpper(first.FullName()) {
			t.Errorf("order %v: named %s, want the on-disk spelling", order, first.FullName())
		}
	}
}

func TestServeRootGetConcurrent(t *testing.T) {
	l := newRootLayout(t)
	s := serveRoot(t, l.root)
	ctx := context.Background()
	var wg sync.WaitGroup
	got := make([]*Repository, 16)
	for i := range got {
		wg.Go(func() {
			r, err := s.Get(ctx, "acme", "widgets", true)
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := r.ResolveCommit(ctx, "HEAD"); err != nil {
				t.Error(err)
			}
			got[i] = r
		})
	}
	wg.Wait()
	for _, r := range got[1:] {
		if r != got[0] {
			t.Fatal("concurrent Gets opened the repository more than once")
		}
	}
}

func TestServeRootList(t *testing.T) {
	l := newRootLayout(t)
	s := serveRoot(t, l.root)
	got, err := s.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []Info{
		{Owner: "Other", Name: "Mixed", Bare: false, DefaultBranch: "trunk"},
		{Owner: "acme", Name: "gadgets", Bare: true, DefaultBranch: "main"},
		{Owner: "acme", Name: "widgets", Bare: false, DefaultBranch: "main"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("List =\n%+v\nwant\n%+v", got, want)
	}
}

func TestServeRootListDetachedHeadAndBothForms(t *testing.T) {
	root := t.TempDir()
	d := testrepo.Init(t, filepath.Join(root, "o", "detached"))
	d.Commit("one")
	d.Git("checkout", "-q", "--detach")
	// The same name non-bare and bare: the non-bare one is served, once.
	w := testrepo.Init(t, filepath.Join(root, "o", "twin"))
	w.Commit("twin")
	w.CloneBare(filepath.Join(root, "o", "twin.git"))

	s := serveRoot(t, root)
	got, err := s.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []Info{
		{Owner: "o", Name: "detached", Bare: false, DefaultBranch: ""},
		{Owner: "o", Name: "twin", Bare: false, DefaultBranch: "main"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("List =\n%+v\nwant\n%+v", got, want)
	}
	r, err := s.Get(context.Background(), "o", "twin.git", true)
	if err != nil || r.Bare() {
		t.Errorf("Get(o, twin.git) = %v, %v; want the non-bare twin listed", r, err)
	}
}

func TestServeRootEmpty(t *testing.T) {
	s := serveRoot(t, t.TempDir())
	list, err := s.List(context.Background())
	if err != nil || len(list) != 0 {
		t.Fatalf("List = %v, %v", list, err)
	}
	_, err = s.Get(context.Background(), "acme", "widgets", true)
	if errcode.Of(err) != errcode.NotFound || !strings.Contains(err.Error(), "no repositories") {
		t.Errorf("Get in an empty root: %v", err)
	}
}

func TestServeRootRefusesNonDirectory(t *testing.T) {
	f := filepath.Join(t.TempDir(), "file")
	must(t, os.WriteFile(f, nil, 0o644))
	for _, dir := range []string{f, filepath.Join(t.TempDir(), "missing")} {
		if s, err := ServeRoot(newEnv(t), dir, RootOptions{}); err == nil {
			s.Close()
			t.Errorf("ServeRoot(%s) succeeded", dir)
		}
	}
}

// A symlinked root is resolved once; what lies under it is served.
func TestServeRootThroughSymlink(t *testing.T) {
	l := newRootLayout(t)
	link := filepath.Join(t.TempDir(), "root")
	must(t, os.Symlink(l.root, link))
	s := serveRoot(t, link)
	r, err := s.Get(context.Background(), "acme", "widgets", true)
	if err != nil {
		t.Fatal(err)
	}
	if head, err := r.ResolveCommit(context.Background(), ""); err != nil || head != l.widgets {
		t.Errorf("HEAD = %q, %v", head, err)
	}
}

func TestServeOneNaming(t *testing.T) {
	ctx := context.Background()
	env := newEnv(t)

	withOrigin := func(url string) string {
		r := testrepo.New(t)
		r.Commit("one")
		r.Git("remote", "add", "origin", url)
		return r.Dir
	}
	plain := testrepo.Init(t, filepath.Join(t.TempDir(), "my-tool"))
	plain.Commit("one")
	plain.Write("sub/dir/f.txt", "f\n")
	bare := plain.CloneBare(filepath.Join(t.TempDir(), "served.git"))
	bareNoSuffix := plain.CloneBare(filepath.Join(t.TempDir(), "mirror"))
	bareFromPath := plain.CloneBare(filepath.Join(t.TempDir(), "clone.git"))
	for _, b := range []*testrepo.Repo{bare, bareNoSuffix} {
		b.Git("remote", "remove", "origin")
	}

	tests := []struct {
		name     string
		dir      string
		override string
		want     string
		fails    bool
	}{
		{"scp-like origin", withOrigin("git@host:acme/widgets.git"), "", "acme/widgets", false},
		{"https origin", withOrigin("https://host/acme/widgets"), "", "acme/widgets", false},
		{"ssh origin with port", withOrigin("ssh://git@host:2222/acme/widgets.git"), "", "acme/widgets", false},
		{"origin without an owner falls back", withOrigin("https://host/widgets"), "", "local/repo", false},
		{"origin with a bad name falls back", withOrigin("https://host/acme/wid%20gets"), "", "local/repo", false},
		{"no origin", plain.Dir, "", "local/my-tool", false},
		{"no origin, from a subdirectory", filepath.Join(plain.Dir, "sub", "dir"), "", "local/my-tool", false},
		// Inside .git, git sees a git directory without a work tree.
		{"no origin, from inside .git", filepath.Join(plain.Dir, ".git", "refs"), "", "local/my-tool", false},
		{"bare without origin drops .git", bare.Dir, "", "local/served", false},
		{"bare named without .git", bareNoSuffix.Dir, "", "local/mirror", false},
		// A clone's origin is the path it was cloned from: its last two
		// directories name it, like any URL's.
		{"origin is a local path", bareFromPath.Dir, "", filepath.Base(filepath.Dir(plain.Dir)) + "/my-tool", false},
		{"override", withOrigin("git@host:acme/widgets.git"), "team/tool", "team/tool", false},
		{"override without origin", plain.Dir, "Team/Tool.v2", "Team/Tool.v2", false},
		{"override without a slash", plain.Dir, "tool", "", true},
		{"override with three parts", plain.Dir, "a/b/c", "", true},
		{"override with dots", plain.Dir, "../b", "", true},
		{"override with empty owner", plain.Dir, "/b", "", true},
		{"override with a space", plain.Dir, "a b/c", "", true},
		{"not a repository", t.TempDir(), "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ServeOne(ctx, env, tt.dir, tt.override)
			if tt.fails {
				if err == nil {
					s.Close()
					t.Fatalf("ServeOne(%s, %q) succeeded", tt.dir, tt.override)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.single == nil {
				t.Error("one repository, not served as single")
			}
			r, err := s.Get(ctx, "", "", false)
			if err != nil {
				t.Fatal(err)
			}
			if r.FullName() != tt.want {
				t.Errorf("named %s, want %s", r.FullName(), tt.want)
			}
		})
	}
}

func TestServeOneGet(t *testing.T) {
	ctx := context.Background()
	r := testrepo.New(t)
	r.Write("a.txt", "a\n")
	head := r.Commit("one")
	r.Git("remote", "add", "origin", "git@host:acme/widgets.git")
	s, err := ServeOne(ctx, newEnv(t), r.Dir, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	tests := []struct {
		name        string
		owner, repo string
		required    bool
		code        errcode.Code
	}{
		{"empty names select it when not required", "", "", false, ""},
		{"exact name, not required", "acme", "widgets", false, ""},
		{"exact name, required", "acme", "widgets", true, ""},
		{"names ignore case", "ACME", "Widgets", true, ""},
		{"a .git suffix is the same repository", "acme", "widgets.git", true, ""},
		{"empty names when required", "", "", true, errcode.InvalidArgument},
		{"owner only", "acme", "", false, errcode.InvalidArgument},
		{"repo only", "", "widgets", false, errcode.InvalidArgument},
		{"another repository", "acme", "gadgets", false, errcode.NotFound},
		{"another owner", "other", "widgets", true, errcode.NotFound},
		{"dot-dot", "..", "..", true, errcode.NotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Get(ctx, tt.owner, tt.repo, tt.required)
			if tt.code != "" {
				if err == nil || errcode.Of(err) != tt.code {
					t.Fatalf("Get(%q, %q, %v) = %v, %v; want code %s", tt.owner, tt.repo, tt.required, got, err, tt.code)
				}
				if !strings.Contains(err.Error(), "acme/widgets") {
					t.Errorf("error does not say what is served: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.FullName() != "acme/widgets" {
				t.Errorf("got %s", got.FullName())
			}
			if id, err := got.ResolveCommit(ctx, ""); err != nil || id != head {
				t.Errorf("HEAD = %q, %v; want %s", id, err, head)
			}
		})
	}

	list, err := s.List(ctx)
	want := []Info{{Owner: "acme", Name: "widgets", Bare: false, DefaultBranch: "main"}}
	if err != nil || !reflect.DeepEqual(list, want) {
		t.Errorf("List = %+v, %v; want %+v", list, err, want)
	}
}

func TestServeOneBareList(t *testing.T) {
	r := testrepo.New(t)
	r.Commit("one")
	b := r.CloneBare(filepath.Join(t.TempDir(), "widgets.git"))
	s, err := ServeOne(context.Background(), newEnv(t), b.Dir, "acme/widgets")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	list, err := s.List(context.Background())
	want := []Info{{Owner: "acme", Name: "widgets", Bare: true, DefaultBranch: "main"}}
	if err != nil || !reflect.DeepEqual(list, want) {
		t.Errorf("List = %+v, %v; want %+v", list, err, want)
	}
}

// A symlink inside the root to a repository inside the root is served under
// its own name, and does not rename the repository it points at.
func TestServeRootSymlinkInsideRoot(t *testing.T) {
	l := newRootLayout(t)
	must(t, os.MkdirAll(filepath.Join(l.root, "alias"), 0o755))
	must(t, os.Symlink(filepath.Join(l.root, "acme", "widgets"), filepath.Join(l.root, "alias", "w")))
	s := serveRoot(t, l.root)
	ctx := context.Background()
	for _, name := range [][2]string{{"alias", "w"}, {"acme", "widgets"}, {"ALIAS", "W"}} {
		r, err := s.Get(ctx, name[0], name[1], true)
		if err != nil {
			t.Fatalf("Get(%s/%s): %v", name[0], name[1], err)
		}
		if !strings.EqualFold(r.FullName(), name[0]+"/"+name[1]) {
			t.Errorf("Get(%s/%s) named %s", name[0], name[1], r.FullName())
		}
		if head, err := r.ResolveCommit(ctx, ""); err != nil || head != l.widgets {
			t.Errorf("HEAD of %s = %q, %v", r.FullName(), head, err)
		}
	}
}

// Finding: a FIFO as a repository's HEAD (or as its commondir or
// alternates) hung list_repositories and every NOT_FOUND error past the
// deadline. Nothing under the root is opened for a blocking read now, and
// an unknown name costs no scan of the root.
func TestServeRootFIFOsDoNotBlock(t *testing.T) {
	root := t.TempDir()
	good := testrepo.Init(t, filepath.Join(root, "acme", "good"))
	good.Commit("good")
	for _, name := range []string{"head", "commondir", "alternates"} {
		r := testrepo.Init(t, filepath.Join(root, "fifo", name))
		r.Commit(name)
		p := map[string]string{
			"head":       filepath.Join(r.Dir, ".git", "HEAD"),
			"commondir":  filepath.Join(r.Dir, ".git", "commondir"),
			"alternates": filepath.Join(r.Dir, ".git", "objects", "info", "alternates"),
		}[name]
		os.Remove(p)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := serveRoot(t, root)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	if _, err := s.Get(ctx, "acme", "nope", true); errcode.Of(err) != errcode.NotFound || !strings.Contains(err.Error(), "list_repositories") {
		t.Fatalf("unknown name before any listing: %v", err)
	}
	list, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, i := range list {
		names = append(names, i.Owner+"/"+i.Name+"@"+i.DefaultBranch)
	}
	for _, name := range []string{"commondir", "alternates", "head"} {
		if _, err := s.Get(ctx, "fifo", name, true); err == nil {
			t.Errorf("fifo/%s is served", name)
		}
	}
	if _, err := s.Get(ctx, "acme", "nope", true); errcode.Of(err) != errcode.NotFound || !strings.Contains(err.Error(), "acme/good") {
		t.Fatalf("unknown name after a listing: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("the calls took %v: something blocked", d)
	}
	if !slices.Contains(names, "acme/good@main") {
		t.Errorf("listing %v lacks acme/good", names)
	}
}

// One repository needs no name, however it is served: a root that holds
// one is read without owner and repo, unless the tool requires them; a
// root with two still asks.
func TestServeRootWithOneRepositoryNeedsNoName(t *testing.T) {
	root := t.TempDir()
	w := testrepo.Init(t, filepath.Join(root, "acme", "widgets"))
	w.Write("README.md", "widgets\n")
	w.Commit("widgets")
	s := serveRoot(t, root)
	r, err := s.Get(context.Background(), "", "", false)
	if err != nil || r.FullName() != "acme/widgets" {
		t.Fatalf("got %v, %v", r, err)
	}
	if _, err := s.Get(context.Background(), "", "", true); errcode.Of(err) != errcode.InvalidArgument {
		t.Fatalf("a tool that requires the name: %v", err)
	}

	g := testrepo.Init(t, filepath.Join(root, "acme", "gadgets"))
	g.Write("README.md", "gadgets\n")
	g.Commit("gadgets")
	two := serveRoot(t, root)
	if _, err := two.Get(context.Background(), "", "", false); errcode.Of(err) != errcode.InvalidArgument {
		t.Fatalf("two repositories, no name: %v", err)
	}
}

// An unknown name under a root lists the served names it can, within
// describeRoom however long they are, and says how many more there are.
func TestServeRootUnknownNameListsBoundedNames(t *testing.T) {
	root := t.TempDir()
	long := strings.Repeat("n", 200)
	src := testrepo.New(t)
	src.Write("a.txt", "a\n")
	src.Commit("first")
	for i := range 25 {
		src.CloneBare(filepath.Join(root, "owner"+strconv.Itoa(i), long+".git"))
	}
	s := serveRoot(t, root)
	if _, err := s.List(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, err := s.Get(context.Background(), "nobody", "nothing", true)
	if err == nil {
		t.Fatal("an unknown name was found")
	}
	msg := err.Error()
	if len(msg) > describeRoom+300 || !strings.Contains(msg, "more; list_repositories lists them all") {
		t.Errorf("the error is %d bytes (names within %d):\n%s", len(msg), describeRoom, msg)
	}
}
