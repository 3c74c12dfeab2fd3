package main

import (
	"bytes"
	"fmt"
	"strings"
)

// The paging repository: a pull request whose patch is too large for one
// reply many times over (issue 13), so that following next calls from the
// first part to the last is what is measured. Its patch holds a file whose
// own patch is over 1 MB (thousands of small hunks and one hunk of hundreds
// of KB, which must be cut at line boundaries), a new file over 300 KB (one
// hunk), and the usual rest of a large pull request: edits, additions,
// deletions, renames with edits, a mode change, a file without a final
// newline, CRLF and non-ASCII text, test files.
const (
	pagingSeed     = 0x706167696e672121
	pagingBigPath  = "internal/engine/engine.go"
	pagingNewPath  = "internal/tables/unicode_tables.go"
	pagingBigSize  = 1_200_000
	pagingNewSize  = 320_000
	pagingFiles    = 240 // other files of the base
	pagingModified = 90
	pagingAdded    = 20
	pagingDeleted  = 6
	pagingRenamed  = 4
	// The patch sizes the fixture insists on (prepare checks them).
	pagingMinPatch    = 2 << 20
	pagingMinBigPatch = 1 << 20
	pagingMinNewPatch = 300_000
	// Pull request #2 (issue 23): a long-lived branch of pagingCommits
	// small commits off main's first commit, each with a message of a
	// subject and a body of a few paragraphs, like a project's history
	// that a reviewer must read before the code.
	pagingCommits   = 700
	pagingCommitsPR = "refs/pull/2/head"
)

// pagingBigHead is the pull request's version of the big file: one line in
// ten changed (separate hunks: git joins changes at most 6 lines apart), and
// a run of 15% of the file rewritten, every line of it different (one hunk
// of about 400 KB).
func pagingBigHead(base []byte) []byte {
	lines := bytes.SplitAfter(base, []byte("\n"))
	r := newRNG(pagingSeed + 7)
	from, to := len(lines)*40/100, len(lines)*55/100
	var b bytes.Buffer
	for i, l := range lines {
		switch {
		case i >= from && i < to:
			fmt.Fprintf(&b, "%s // v2 %d\n", stmt(r, 1+r.intn(2)), i)
		case i%10 == 5 && len(l) > 1:
			b.Write(bytes.TrimSuffix(l, []byte("\n")))
			fmt.Fprintf(&b, " // reviewed: %s\n", phrase(r, 2))
		default:
			b.Write(l)
		}
	}
	return b.Bytes()
}

// pagingOther is the i-th small file of the base.
func pagingOther(i int) genFile {
	r := newRNG(mix(pagingSeed, i))
	dirs := []string{"api", "cmd/tool", "internal/store", "internal/auth", "internal/http", "pkg/client", "web/src", "docs"}
	dir := pick(r, dirs)
	name := fmt.Sprintf("%s/%s_%s_%03d", dir, pick(r, words), pick(r, words), i)
	switch {
	case strings.HasPrefix(dir, "web"):
		name += ".ts"
	case dir == "docs":
		name += ".md"
	case i%7 == 0:
		name += "_test.go"
	default:
		name += ".go"
	}
	return genFile{path: name, seed: mix(pagingSeed+1, i), size: 2048 + r.intn(28*1024), pkg: dir[strings.LastIndexByte(dir, '/')+1:]}
}

// crlfText is a text file with CRLF line ends and non-ASCII letters, both
// of which JSON escapes or keeps differently from plain ASCII.
func crlfText(r *rng, lines int, tag string) []byte {
	var b bytes.Buffer
	greek := []string{"αλφα", "βήτα", "γάμμα", "δέλτα", "naïve", "façade", "Zürich", "東京", "<tag>", "a & b", `"quoted"`, `back\slash`}
	for i := 0; i < lines; i++ {
		fmt.Fprintf(&b, "%d %s %s %s\r\n", i, pick(r, greek), phrase(r, 3), tag)
	}
	return b.Bytes()
}

// genPaging writes main (the base), the pull request's branch off it
// (feature = refs/pull/1/head), and one more commit on main after the
// branch point, so the merge base is not main's tip.
func genPaging(g gitRunner, gitDir string, logf logFunc) error {
	r := newRNG(pagingSeed + 2)
	big := source(pagingSeed+3, pagingBigSize, "engine")
	i18n := crlfText(newRNG(pagingSeed+6), 400, "base")
	others := make([]genFile, pagingFiles)
	for i := range others {
		others[i] = pagingOther(i)
	}
	err := fastImport(g, gitDir, func(im *importer) {
		im.commit("refs/heads/main", 1, 0, 0, "base")
		im.file("README.md", []byte("# paging\n\nA pull request larger than many replies.\n"))
		im.file(pagingBigPath, big)
		for _, f := range others {
			im.file(f.path, f.content())
		}
		im.file("docs/i18n.txt", i18n)
		im.file("scripts/run.sh", []byte("#!/bin/sh\nexec go run ./cmd/tool \"$@\"\n"))
		im.file("VERSION", []byte("1.4.2")) // no final newline
		im.endCommit()

		logf("  paging: the pull request's branch")
		im.commit("refs/heads/feature", 2, 1, 3600, "feature: a pull request larger than many replies")
		im.file(pagingBigPath, pagingBigHead(big))
		im.file(pagingNewPath, source(pagingSeed+4, pagingNewSize, "tables"))
		k := 0
		for i := 0; i < pagingModified; i++ {
			f := others[k]
			im.file(f.path, edit(edit(f.content(), r, "pr"), r, "pr again"))
			k++
		}
		for i := 0; i < pagingDeleted; i++ {
			im.remove(others[k].path)
			k++
		}
		for i := 0; i < pagingRenamed; i++ {
			f := others[k]
			dir := f.path[:strings.LastIndexByte(f.path, '/')]
			im.remove(f.path)
			im.file(fmt.Sprintf("%s/moved_%s", dir, f.path[len(dir)+1:]), edit(f.content(), r, "moved"))
			k++
		}
		for i := 0; i < pagingAdded; i++ {
			name := fmt.Sprintf("internal/feature/%s_%02d.go", pick(r, words), i)
			if i%5 == 0 {
				name = fmt.Sprintf("internal/feature/%s_%02d_test.go", pick(r, words), i)
			}
			im.file(name, source(mix(pagingSeed+5, i), 6*1024+r.intn(24*1024), "feature"))
		}
		im.file("docs/i18n.txt", edit(i18n, r, "pr\r"))
		im.fileMode("scripts/run.sh", "100755", []byte("#!/bin/sh\nset -eu\nexec go run ./cmd/tool \"$@\"\n"))
		im.file("VERSION", []byte("1.5.0")) // still no final newline
		im.endCommit()

		logf("  paging: main moves on by one commit")
		im.commit("refs/heads/main", 3, 1, 7200, "main: moves on after the branch point")
		im.file("CHANGELOG.md", []byte("# Changes\n\n- main moved on after feature branched off.\n"))
		f := others[len(others)-1]
		im.file(f.path, edit(f.content(), r, "main"))
		im.endCommit()

		im.reset("refs/pull/1/head", 2)

		logf("  paging: pull request #2, %d commits", pagingCommits)
		for i := 0; i < pagingCommits; i++ {
			mark, parent := 100+i, 99+i
			if i == 0 {
				parent = 1
			}
			im.commit("refs/heads/long", mark, parent, 10_000+60*i, longMessage(r, i))
			f := others[i%len(others)]
			im.file(fmt.Sprintf("%s.%d.notes", f.path, i), []byte(phrase(r, 12)+"\n"))
			im.endCommit()
		}
		im.reset(pagingCommitsPR, 100+pagingCommits-1)
	})
	if err != nil {
		return err
	}
	_, err = g.output(gitDir, "repack", "-a", "-d", "-f", "-q")
	return err
}

// longMessage is pull request #2's i-th commit message: a subject and a
// body of three paragraphs, about 500 bytes, as a careful project writes.
func longMessage(r *rng, i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "store: %s (%d of %d)\n", phrase(r, 5), i+1, pagingCommits)
	for p := 0; p < 3; p++ {
		b.WriteString("\n")
		for l := 0; l < 2; l++ {
			b.WriteString(phrase(r, 12) + "\n")
		}
	}
	return b.String()
}

// checkPagingShape: the pull request is the shape issue 13 asks for, as git
// sees it: at least 2 MB of patch, one file's patch at least 1 MB, and a new
// file of at least 300 KB in one hunk.
func checkPagingShape(fx *fixture) error {
	size := func(paths ...string) (int, error) {
		out, err := fx.g.output(fx.dir, append([]string{"diff", "-M", fx.mergeBase, fx.head, "--"}, paths...)...)
		return len(out), err
	}
	all, err := size()
	if err != nil {
		return err
	}
	bigPatch, err := size(pagingBigPath)
	if err != nil {
		return err
	}
	out, err := fx.g.output(fx.dir, "diff", fx.mergeBase, fx.head, "--", pagingNewPath)
	if err != nil {
		return err
	}
	hunks := strings.Count(string(out), "\n@@ ")
	newSize, err := fx.g.output(fx.dir, "cat-file", "-s", fx.head+":"+pagingNewPath)
	if err != nil {
		return err
	}
	var n int
	if _, err := fmt.Sscan(string(newSize), &n); err != nil {
		return err
	}
	if all < pagingMinPatch || bigPatch < pagingMinBigPatch || n < pagingMinNewPatch || hunks != 1 {
		return fmt.Errorf("the pull request's shape: patch %d bytes (want ≥ %d), %s's %d (want ≥ %d), new %s %d bytes in %d hunks (want ≥ %d in 1)",
			all, pagingMinPatch, pagingBigPath, bigPatch, pagingMinBigPatch, pagingNewPath, n, hunks, pagingMinNewPatch)
	}
	return nil
}
