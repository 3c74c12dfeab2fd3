package main

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// The tree repository's shape. The PR (refs/pull/1/head = change) touches
// changedFiles+deletedFiles+renamedFiles+addedFiles files off the base.
const (
	treeSeed     = 0x7265706f2d747265
	treeFiles    = 20000
	treeDirs     = 900
	changedFiles = 3200
	deletedFiles = 100
	renamedFiles = 50
	addedFiles   = 200
	mainOnly     = 20 // files main changes after the branch point
	rareToken    = "zanzibarquux"
)

type genFile struct {
	path string
	seed uint64
	size int
	pkg  string
	rare bool // holds rareToken, for search_code's rare-match case
}

func (f genFile) content() []byte {
	b := source(f.seed, f.size, f.pkg)
	if f.rare {
		b = append(b, "\n// "+rareToken+": a token that occurs in three files only.\n"...)
	}
	return b
}

// treeLayout is the deterministic file list of the base commit.
func treeLayout() []genFile {
	r := newRNG(treeSeed)
	tops := []string{"cmd", "internal", "pkg", "lib", "services", "tools", "api", "web", "core", "plugins"}
	seen := map[string]bool{}
	var dirs []string
	for len(dirs) < treeDirs {
		d := pick(r, tops)
		for n := 1 + r.intn(4); n > 0; n-- {
			d += "/" + pick(r, words)
		}
		if !seen[d] {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	exts := []string{".go", ".go", ".go", ".go", ".go", ".go", ".ts", ".py", ".c", ".rs"}
	files := make([]genFile, 0, treeFiles)
	taken := map[string]bool{}
	for i := 0; i < treeFiles; i++ {
		dir := pick(r, dirs)
		p := dir + "/" + pick(r, words) + "_" + pick(r, words) + pick(r, exts)
		for n := 2; taken[p]; n++ {
			p = dir + "/" + pick(r, words) + "_" + strconv.Itoa(n) + pick(r, exts)
		}
		taken[p] = true
		files = append(files, genFile{path: p, seed: mix(treeSeed, i), size: fileSize(r), pkg: dir[strings.LastIndexByte(dir, '/')+1:],
			rare: i == 1234 || i == 9876 || i == 15555})
	}
	return files
}

// fileSize: mostly 1–20 KB, some small files and some larger ones.
func fileSize(r *rng) int {
	switch p := r.intn(100); {
	case p < 10:
		return 100 + r.intn(900)
	case p < 93:
		return 1024 + r.intn(19*1024)
	default:
		return 20*1024 + r.intn(44*1024)
	}
}

// edit makes small edits inside a file: one to three lines replaced or
// inserted, always including one tagged line, so the file surely changes.
func edit(content []byte, r *rng, tag string) []byte {
	lines := bytes.SplitAfter(content, []byte("\n"))
	if n := len(lines); n > 0 && len(lines[n-1]) == 0 {
		lines = lines[:n-1]
	}
	at := 1 + r.intn(max(1, len(lines)-1))
	lines = append(lines[:at], append([][]byte{[]byte("\t// bench: " + tag + "\n")}, lines[at:]...)...)
	for n := r.intn(3); n > 0; n-- {
		k := 1 + r.intn(max(1, len(lines)-1))
		if k >= len(lines) {
			continue
		}
		if r.intn(2) == 0 {
			lines[k] = []byte(stmt(r, 1) + "\n")
		} else {
			lines = append(lines[:k], append([][]byte{[]byte(stmt(r, 1) + "\n")}, lines[k:]...)...)
		}
	}
	return bytes.Join(lines, nil)
}

// genTree writes the base commit (20,000 files), the change branch off it
// (3,200 modified, 100 deleted, 50 renamed with edits, 200 added), one more
// commit on main so that merge-base ≠ main, refs/pull/1/head = change, and
// the history branch off main (gen_history.go).
func genTree(g gitRunner, gitDir string, logf logFunc) error {
	files := treeLayout()
	r := newRNG(treeSeed + 1)
	order := make([]int, len(files))
	for i := range order {
		order[i] = i
	}
	for i := len(order) - 1; i > 0; i-- { // Fisher–Yates
		j := r.intn(i + 1)
		order[i], order[j] = order[j], order[i]
	}
	modified, rest := order[:changedFiles], order[changedFiles:]
	deleted, rest := rest[:deletedFiles], rest[deletedFiles:]
	var renamed []int
	for len(renamed) < renamedFiles { // large enough to stay similar after an edit
		if files[rest[0]].size >= 2048 {
			renamed = append(renamed, rest[0])
		}
		rest = rest[1:]
	}
	mainChanged := rest[:mainOnly]

	err := fastImport(g, gitDir, func(im *importer) {
		im.commit("refs/heads/main", 1, 0, 0, "base: 20,000 files")
		var total int64
		for i, f := range files {
			c := f.content()
			total += int64(len(c))
			im.file(f.path, c)
			if (i+1)%5000 == 0 {
				logf("  tree: base commit, %d/%d files (%s)", i+1, len(files), humanBytes(total))
			}
		}
		im.endCommit()

		logf("  tree: change branch (%d modified, %d deleted, %d renamed, %d added)", len(modified), len(deleted), len(renamed), addedFiles)
		im.commit("refs/heads/change", 2, 1, 3600, "change: a large pull request")
		for _, i := range modified {
			im.file(files[i].path, edit(files[i].content(), r, "change "+files[i].path))
		}
		for _, i := range deleted {
			im.remove(files[i].path)
		}
		for k, i := range renamed {
			f := files[i]
			dir := f.path[:strings.LastIndexByte(f.path, '/')]
			im.remove(f.path)
			im.file(fmt.Sprintf("%s/renamed_%02d_%s", dir, k, f.path[len(dir)+1:]), edit(f.content(), r, "rename"))
		}
		for k := 0; k < addedFiles; k++ {
			f := genFile{path: fmt.Sprintf("feature/%s/added_%03d.go", pick(r, words), k), seed: mix(treeSeed+2, k), size: fileSize(r), pkg: "feature"}
			im.file(f.path, f.content())
		}
		im.endCommit()

		logf("  tree: main moves on by one commit")
		im.commit("refs/heads/main", 3, 1, 7200, "main: moves on after the branch point")
		for _, i := range mainChanged {
			im.file(files[i].path, edit(files[i].content(), r, "main"))
		}
		im.file("CHANGELOG.md", []byte("# Changes\n\n- main moved on after change branched off.\n"))
		im.endCommit()

		genHistory(im, files, rest[mainOnly:], 3, 7200, logf)

		im.reset("refs/pull/1/head", 2)
		im.reset("refs/tags/base", 1)
	})
	if err != nil {
		return err
	}
	// Pack as `git gc` would: the change branch's blobs become deltas of
	// their base versions, as in any repository that has been repacked.
	logf("  tree: git repack -a -d -f (about a minute or two on 2 cores)")
	_, err = g.output(gitDir, "repack", "-a", "-d", "-f", "-q")
	return err
}
