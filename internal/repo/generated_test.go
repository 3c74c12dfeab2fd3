package repo

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitattr"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

func TestIsGeneratedName(t *testing.T) {
	yes := []string{
		"package-lock.json", "yarn.lock", "pnpm-lock.yaml", "go.sum", "Cargo.lock", "poetry.lock",
		"Gemfile.lock", "composer.lock", "web/package-lock.json", "a/b/c/Cargo.lock",
		"vendor/a.go", "vendor/github.com/x/y/z.go", "a/b/vendor/c/d.go", "vendor/README",
		"node_modules/x/index.js", "web/node_modules/@scope/pkg/index.js",
		"x.min.js", "static/css/y.min.css",
	}
	no := []string{
		"main.go", "README.md", "vendor", "node_modules", "src/vendor", "vendor.go", "src/vendored/a.go",
		"myvendor/a.go", "vendors/a.go", "Vendor/a.go", "package-lock.json.bak", "go.summary",
		"go.sum/x", "Cargo.lock.old", "cargo.lock", "min.js", "x.min.jsx", "a.js",
	}
	for _, p := range yes {
		if !IsGeneratedName(p) {
			t.Errorf("IsGeneratedName(%q) = false", p)
		}
	}
	for _, p := range no {
		if IsGeneratedName(p) {
			t.Errorf("IsGeneratedName(%q) = true", p)
		}
	}
}

// TestIsGeneratedNameLinguist: the names GitHub Linguist v9.6.0 flags as
// generated without reading the file, each case of its
// test/test_generated.rb that reads no data (test_check_generated) and
// the rules of lib/linguist/generated.rb it has no case for; and what it
// does not flag.
func TestIsGeneratedNameLinguist(t *testing.T) {
	yes := []string{
		// test_check_generated, generated_*_without_loading_data.
		"Binary/MainMenu.nib", "Dummy/foo.xcworkspacedata", "Dummy/foo.xcuserstate",
		"Pods/Pods.xcodeproj", "Pods/SwiftDependency/foo.swift", "Pods/ObjCDependency/foo.h", "Dummy/Pods/ObjCDependency/foo.m",
		"Carthage/Build/.Dependency.version", "Carthage/Build/iOS/Dependency.framework", "src/Carthage/Build/Mac/Dependency.framework",
		"go/vendor/github.com/foo.go", "go/vendor/golang.org/src/foo.c", "go/vendor/gopkg.in/some/nested/path/foo.go",
		"Dummy/foo.designer.cs", "Dummy/foo.Designer.cs", "Dummy/foo.designer.vb", "Dummy/foo.Designer.vb",
		"JSON/composer.lock", "Dummy/node_modules/foo.js", "Dummy/npm-shrinkwrap.json", "Dummy/package-lock.json",
		"Dummy/pnpm-lock.yaml", "JSON/filenames/bun.lock", ".pnp.js", ".pnp.cjs", ".pnp.mjs", ".pnp.loader.mjs",
		"Godeps/Godeps.json", "Godeps/_workspace/src/github.com/kr/s3/sign.go",
		"C/exception.zep.c", "C/exception.zep.h", "PHP/exception.zep.php",
		"Data/bootstrap.css.map", "Generated/linked.css.map", "Features/BindingCulture.feature.cs",
		"Javascript/__generated__/App_user.graphql.js", "Dummy/Pipfile.lock", "TOML/filenames/Cargo.toml.orig",
		"JSON/filenames/Package.resolved", "TOML/filenames/poetry.lock", "TOML/filenames/pdm.lock", "TOML/filenames/uv.lock",
		"htmlcov/index.html", "htmlcov/coverage_html.js", "Dummy/htmlcov/style.css", "Dummy/htmlcov/status.json",
		"Shell/filenames/gradlew", "Batchfile/filenames/gradlew.bat", "Shell/filenames/mvnw", "Batchfile/filenames/mvnw.cmd",
		"TOML/filenames/mise.lock", "TOML/filenames/mise.local.lock", "TOML/filenames/mise.test.lock", "TOML/filenames/mise.test.local.lock",
		"TOML/filenames/Manifest.toml", "TOML/filenames/JuliaManifest.toml", "TOML/filenames/Manifest-v1.12.toml", "TOML/filenames/JuliaManifest-v1.12.toml",
		// Rules of generated.rb without a case there.
		".idea/workspace.xml", "app/.idea/modules.xml", "flake.lock", "nix/flake.lock", "deno.lock", "MODULE.bazel.lock",
		"Gopkg.lock", "glide.lock", "pixi.lock", "esy.lock", "foo.esy.lock", "bun.lockb", "infra/.terraform.lock.hcl",
		"src/Unit_tlb.pas", "GRADLEW.BAT", "app/dist/app.js.map",
		".sqlx/query-" + strings.Repeat("ab", 32) + ".json",
		// vendor.yml's minified files, flagged here as generated.
		"jquery-1.6.1.min.js", "x-min.css",
		// protoc's output, which Linguist tells by its banner.
		"api/v1/service.pb.go", "proto/api_pb2.py", "proto/api_pb2_grpc.py", "proto/api_pb2.pyi",
	}
	no := []string{
		// test_check_not_generated.
		"Jest Snapshot/css.test.tsx.snap",
		// Names that only hold one of the above.
		"uv.lock.bak", "my-uv.lock", "poetry.locked", "docs/flake.lock.md", "Cargo.toml", "package.json", "Pipfile",
		"idea/x.xml", "xPods/a.m", "Pod/a.m", "Carthage/Checkouts/x.swift", "generated/x.js", "__generated__",
		"designer.cs", "x.feature", "gradlew.sh", "mvnw.bat", "mise.toml", "Manifest.json", "Manifest-v1.toml",
		".sqlx/query-abc.json", "x.zep", "exception.zep.cc", "pnp.js", "htmlcov", "js.map", "x.map",
		"pb.go", "main.pb.golden", "api_pb2.pyc", "vendor.yml",
	}
	for _, p := range yes {
		if !IsGeneratedName(p) {
			t.Errorf("IsGeneratedName(%q) = false, Linguist flags it", p)
		}
	}
	for _, p := range no {
		if IsGeneratedName(p) {
			t.Errorf("IsGeneratedName(%q) = true, Linguist does not flag it", p)
		}
	}
}

// gitAttrs is git's answer for paths at commit: `git check-attr --cached`
// over a temporary index holding commit's tree, so only the commit's
// .gitattributes count (no work tree, no info/attributes, no system or
// user file).
func gitAttrs(t *testing.T, dir, commit string, paths []string) map[string][2]gitattr.Attr {
	t.Helper()
	home := t.TempDir()
	env := append(testrepo.Env(home), "GIT_ATTR_NOSYSTEM=1", "GIT_INDEX_FILE="+filepath.Join(home, "index"))
	run := func(stdin string, args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env, cmd.Stdin = dir, env, strings.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return string(out)
	}
	run("", "read-tree", commit)
	out := run(strings.Join(paths, "\x00")+"\x00", "check-attr", "--cached", "-z", "--stdin", attrGenerated, attrVendored)
	fields := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	got := map[string][2]gitattr.Attr{}
	for i := 0; i+2 < len(fields); i += 3 {
		a := got[fields[i]]
		a[min(i/3%2, 1)] = parseGitAttr(fields[i+2])
		got[fields[i]] = a
	}
	return got
}

func parseGitAttr(info string) gitattr.Attr {
	switch info {
	case "unspecified":
		return gitattr.Attr{}
	case "set":
		return gitattr.Attr{State: gitattr.Set}
	case "unset":
		return gitattr.Attr{State: gitattr.Unset}
	}
	return gitattr.Attr{State: gitattr.Value, Value: info}
}

// linguistWant is what Is must say, given git's attributes for path.
func linguistWant(path string, a [2]gitattr.Attr) bool {
	return linguistFlag(a[0], generatedName(path)) || linguistFlag(a[1], vendoredName(path))
}

func generatedRules(t *testing.T, r *Repository, commit string, paths []string, hidden func(string) bool) *Generated {
	t.Helper()
	g, err := r.GeneratedRules(context.Background(), commit, paths, hidden)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestGeneratedRules(t *testing.T) {
	r := testrepo.New(t)
	r.Write(".gitattributes", strings.Join([]string{
		"*.pb.go linguist-generated",
		"docs/*.html linguist-generated",
		"**/gen/** linguist-generated",
		"third_party/** linguist-vendored",
		"*.txt linguist-generated",
		"[attr]generated-code linguist-generated",
		"*.gen.ts generated-code",
		"*.snap linguist-generated=1",
		"",
	}, "\n"))
	r.Write("sub/.gitattributes", strings.Join([]string{
		"*.pb.go -linguist-generated",
		"go.sum -linguist-generated",
		"package-lock.json linguist-generated=false",
		"yarn.lock !linguist-generated",
		"vendor/** -linguist-generated",
		"vendor/keep/** -linguist-vendored",
		"app.min.js linguist-vendored=false",
		"",
	}, "\n"))
	r.Write("big/.gitattributes", "* linguist-generated\n"+strings.Repeat("# padding padding padding\n", 12000))
	r.Write("all.attributes", "* linguist-generated\n")
	r.Symlink("../all.attributes", "link/.gitattributes")
	r.Write("dir/.gitattributes/x", "* linguist-generated\n")
	r.Write(".ssh/.gitattributes", "* linguist-generated\n")
	r.Write("odd\ndir/.gitattributes", "*.go linguist-generated\n")
	one := r.Commit("one")

	// The second commit trades *.txt for *.md.
	r.Write(".gitattributes", strings.Replace(r.Show(one, ".gitattributes"), "*.txt", "*.md", 1))
	two := r.Commit("two")
	// Attributes in the work tree only, never committed, count for nothing.
	r.Write(".gitattributes", "* linguist-generated\n")
	r.Write("wt/.gitattributes", "* linguist-generated\n")

	repo := serveOne(t, newEnv(t), r.Dir)
	policy := mustPolicy(t)

	tests := []struct {
		path     string
		one, two bool
	}{
		{"package-lock.json", true, true},
		{"yarn.lock", true, true},
		{"pnpm-lock.yaml", true, true},
		{"go.sum", true, true},
		{"Cargo.lock", true, true},
		{"poetry.lock", true, true},
		{"Gemfile.lock", true, true},
		{"composer.lock", true, true},
		{"web/Cargo.lock", true, true},
		{"vendor/a.go", true, true},
		{"a/b/vendor/c/d.go", true, true},
		{"node_modules/x/index.js", true, true},
		{"web/node_modules/@s/p/i.js", true, true},
		{"x.min.js", true, true},
		{"css/y.min.css", true, true},
		{"main.go", false, false},
		{"README.md", false, true}, // the commit read decides
		{"notes.txt", true, false},
		{"src/vendor.go", false, false},

		{"a.pb.go", true, true},              // root: a name at any depth
		{"sub2/b.pb.go", true, true},         // likewise
		{"sub/b.pb.go", false, false},        // a subdirectory's file overrides the root's
		{"sub/deeper/c.pb.go", false, false}, // and applies below it
		{"sub/go.sum", false, false},         // "-linguist-generated" un-flags a lock file
		{"sub/x/go.sum", false, false},
		{"sub/package-lock.json", false, false}, // "=false" too
		{"sub/yarn.lock", true, true},           // "!name" is unspecified: the name decides
		{"sub/vendor/x.go", true, true},         // not generated, still vendored
		{"sub/vendor/keep/y.go", false, false},  // neither
		{"sub/app.min.js", true, true},          // not vendored, still generated

		{"docs/a.html", true, true}, // a pattern with "/" is relative to its file
		{"docs/x/b.html", false, false},
		{"other/docs/a.html", false, false},
		{"gen/a.go", true, true}, // "**"
		{"x/gen/y/z.go", true, true},
		{"generator/a.go", false, false},
		{"third_party/lib/a.c", true, true},
		{"web/app.gen.ts", true, true}, // a macro of the root file
		{"tests/a.snap", true, true},   // any value but "false" sets it, as in linguist

		{"big/a.go", false, false},  // too large: ignored
		{"link/a.go", false, false}, // a symlink: ignored
		{"dir/a.go", false, false},  // a directory: ignored
		{"odd\ndir/a.go", true, true},
		{"wt/a.go", false, false},          // only in the work tree
		{".ssh/config", false, false},      // its .gitattributes is hidden by the policy
		{".aws/vendor/key.go", true, true}, // under a secret-looking directory, by name
	}
	var paths []string
	for _, tt := range tests {
		paths = append(paths, tt.path)
	}
	for _, c := range []struct {
		commit string
		want   func(int) bool
	}{{one, func(i int) bool { return tests[i].one }}, {two, func(i int) bool { return tests[i].two }}} {
		g := generatedRules(t, repo, c.commit, paths, policy.Denied)
		oracle := gitAttrs(t, r.Dir, c.commit, paths)
		for i, tt := range tests {
			if got := g.Is(tt.path); got != c.want(i) {
				t.Errorf("%.7s: Is(%q) = %v", c.commit, tt.path, got)
			}
			// git agrees, but for the files git reads and this does not.
			if skip := strings.HasPrefix(tt.path, "big/") || strings.HasPrefix(tt.path, "link/") || strings.HasPrefix(tt.path, ".ssh/"); !skip && linguistWant(tt.path, oracle[tt.path]) != c.want(i) {
				t.Errorf("%.7s: git's attributes for %q disagree with the table: %+v", c.commit, tt.path, oracle[tt.path])
			}
		}
		notes := strings.Join(g.Notes, "\n")
		for _, want := range []string{`"big/.gitattributes" is 312021 bytes, over the 262144-byte limit`, `"link/.gitattributes" is a symlink`, `"dir/.gitattributes" is a dir`} {
			if !strings.Contains(notes, want) {
				t.Errorf("notes lack %q:\n%s", want, notes)
			}
		}
		if strings.Contains(notes, ".ssh") {
			t.Errorf("notes name a hidden file:\n%s", notes)
		}
	}

	// Without the policy, the hidden file counts like any other.
	if g := generatedRules(t, repo, one, []string{".ssh/config"}, nil); !g.Is(".ssh/config") {
		t.Error(".ssh/.gitattributes not read without a policy")
	}
	// Paths not asked about, and a nil Generated, go by name.
	g := generatedRules(t, repo, one, []string{"main.go"}, nil)
	var none *Generated
	if g.Is("notes.txt") || !g.Is("go.sum") || none.Is("notes.txt") || !none.Is("vendor/x") {
		t.Error("paths not asked about are not judged by name")
	}
}

func TestGeneratedRulesBounds(t *testing.T) {
	r := testrepo.New(t)
	r.Write(".gitattributes", "x linguist-generated\n")
	r.Write("d0000/.gitattributes", "x -linguist-generated\n")
	r.Write("d1000/.gitattributes", "x -linguist-generated\n") // past the bound: not read
	r.Write("hostile/.gitattributes", strings.Repeat(strings.Repeat("*a", 1000)+" linguist-generated\n", 100))
	commit := r.Commit("attributes")
	repo := serveOne(t, newEnv(t), r.Dir)

	var paths []string
	for i := range maxAttrDirs + 1 {
		paths = append(paths, fmt.Sprintf("d%04d/x", i))
	}
	g := generatedRules(t, repo, commit, paths, nil)
	if g.Is("d0000/x") || !g.Is("d0001/x") || !g.Is("d1000/x") {
		t.Errorf("d0000/x %v, d0001/x %v, d1000/x %v", g.Is("d0000/x"), g.Is("d0001/x"), g.Is("d1000/x"))
	}
	if len(g.Notes) != 1 || !strings.Contains(g.Notes[0], "2 directories past the first 1000") {
		t.Errorf("notes: %q", g.Notes)
	}

	// Matching past the work budget goes by name, and says so.
	defer func(w int64) { maxAttrWork = w }(maxAttrWork)
	maxAttrWork = 10_000_000
	long := "hostile/" + strings.Repeat("a", 1000) + "b"
	g = generatedRules(t, repo, commit, []string{"hostile/a.go", long, "hostile/go.sum", "x"}, nil)
	if g.Is("hostile/a.go") || g.Is(long) || !g.Is("hostile/go.sum") || g.Is("x") {
		t.Errorf("past the budget: %v %v %v %v", g.Is("hostile/a.go"), g.Is(long), g.Is("hostile/go.sum"), g.Is("x"))
	}
	if len(g.Notes) != 1 || !strings.Contains(g.Notes[0], "3 of 4 paths are flagged by name alone") {
		t.Errorf("notes: %q", g.Notes)
	}

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := repo.GeneratedRules(cancelled, commit, []string{"new/dir/x"}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := repo.GeneratedRules(context.Background(), strings.Repeat("0", 40), []string{"x"}, nil); err == nil {
		t.Error("no error for a commit that is not there")
	}
}

// propPatterns, propAttrs and propMacros make random .gitattributes lines.
var (
	propPatterns = []string{
		"*", "*.go", "*.pb.go", "go.sum", "*.min.js", "a.txt", "*.txt", "/a.txt", "c/*.txt", "c/**",
		"**/c/**", "**/*.go", "*/x.go", "x.go", "[ab].txt", "[!a]*.txt", "?.txt", "docs", "d*s/*",
		`"sp ace.txt"`, "**/vendor/**", "vendor/**", "node_modules/", "p/**", "y/z/*", "**", "*.lock",
		"yarn.lock", "/x.go", "b/**/x.go", "!neg.go", "#comment", "**/", "z/", `\!bang.txt`, "*.TXT",
		"[[:upper:]]*", "d/**/e.go", "w/*",
	}
	propAttrs = []string{
		"linguist-generated", "-linguist-generated", "!linguist-generated", "linguist-generated=true",
		"linguist-generated=false", "linguist-generated=1", "linguist-vendored", "-linguist-vendored",
		"!linguist-vendored", "linguist-vendored=false", "text", "-diff", "gen", "nogen", "both", "=bad",
	}
	propMacros = []string{
		"[attr]gen linguist-generated", "[attr]nogen -linguist-generated -linguist-vendored",
		"[attr]both gen linguist-vendored", "[attr]gen -linguist-generated",
	}
	propDirs  = []string{"", "b", "b/c", "c", "docs", "vendor", "a b", "x/y/z", "node_modules/p"}
	propFiles = []string{
		"a.txt", "b.txt", "x.go", "y.pb.go", "go.sum", "app.min.js", "sp ace.txt", "!bang.txt", "A.TXT",
		"yarn.lock", "neg.go", "README",
	}
)

// randomAttrFile is a .gitattributes of random lines.
func randomAttrFile(rng *rand.Rand) string {
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	var b strings.Builder
	for range 1 + rng.IntN(9) {
		switch rng.IntN(10) {
		case 0:
			b.WriteString(pick(propMacros) + "\n") // git honours these in the root file only
		case 1:
			b.WriteString("\n")
		default:
			line := pick([]string{"", "", "  ", "\t"}) + pick(propPatterns)
			for range 1 + rng.IntN(3) {
				line += pick([]string{" ", " ", "\t", "  "}) + pick(propAttrs)
			}
			b.WriteString(line + pick([]string{"\n", "\n", "\r\n"}))
		}
	}
	return b.String()
}

// Random .gitattributes files in random directories over many commits:
// the attributes read from each commit agree with git's, path by path.
func TestGeneratedRulesMatchGit(t *testing.T) {
	seed := uint64(20260102)
	rng := rand.New(rand.NewPCG(seed, seed))
	r := testrepo.New(t)
	repo := serveOne(t, newEnv(t), r.Dir)
	var paths []string
	for _, d := range propDirs {
		for _, f := range propFiles {
			paths = append(paths, strings.TrimPrefix(d+"/"+f, "/"))
		}
	}
	paths = append(paths, "b/c/d/e.go", "deep/er/x.go", "x/y/z/w/v.txt", "c/d/x.go", "x/y/x.go")

	compared, specified := 0, 0
	for round := range 20 {
		files := map[string]string{}
		for _, d := range propDirs {
			p := strings.TrimPrefix(d+"/.gitattributes", "/")
			if rng.IntN(3) == 0 {
				os.Remove(filepath.Join(r.Dir, p))
				continue
			}
			files[p] = randomAttrFile(rng)
			r.Write(p, files[p])
		}
		commit := r.Commit(fmt.Sprintf("round %d", round))
		g := generatedRules(t, repo, commit, paths, nil)
		want := gitAttrs(t, r.Dir, commit, paths)
		for _, p := range paths {
			got := gitattr.Check(g.stack(p), p, attrGenerated, attrVendored)
			if got[0] != want[p][0] || got[1] != want[p][1] {
				t.Fatalf("seed %d round %d: %q: got %+v, git says %+v; files: %q", seed, round, p, got, want[p], files)
			}
			if g.Is(p) != linguistWant(p, want[p]) {
				t.Fatalf("seed %d round %d: Is(%q) = %v", seed, round, p, g.Is(p))
			}
			compared++
			for _, a := range want[p] {
				if a.State != gitattr.Unspecified {
					specified++
				}
			}
		}
	}
	t.Logf("%d paths compared, git specified %d attributes", compared, specified)
	if specified < compared/4 {
		t.Errorf("too few attributes specified (%d of %d paths) for the comparison to mean much", specified, compared)
	}
}

func TestAttrMemo(t *testing.T) {
	m := attrMemo{limit: 1000}
	m.put("a", attrEntry{note: "a"}, 100)
	m.put("big", attrEntry{note: "big"}, 300) // over a quarter of the limit: not kept
	if e, ok := m.get("a"); !ok || e.note != "a" {
		t.Errorf("a: %v %v", e, ok)
	}
	if _, ok := m.get("big"); ok {
		t.Error("kept an entry over a quarter of the limit")
	}
	for i := range 10 {
		m.put(fmt.Sprint(i), attrEntry{}, 200)
	}
	if m.cost > m.limit {
		t.Errorf("cost %d over the limit %d", m.cost, m.limit)
	}
}
