package main

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// The tree repository's history branch (issue 14): list_commits and blame
// need a history deeper than base, change and main's three commits. It is a
// branch of its own off main, so main, change, pull request #1 and every
// figure measured on them stay as they were.
const (
	historyRef = "refs/heads/history"
	// historyMainline commits on the branch's first-parent line, every
	// historyMergeEvery-th of them a merge of a topic branch of one to
	// three commits forked historyForkBack mainline commits earlier.
	historyMainline   = 130
	historyMergeEvery = 10
	historyForkBack   = 4
	historyFirstMark  = 10 // marks 1–3 are base, change and main
	// The blamed file: a Go file of the base commit this size, edited by
	// most mainline commits.
	blameMinSize, blameMaxSize = 14 << 10, 20 << 10
	blameEditPercent           = 85
	// topicPoolSize files are edited by topic branches only, so that a
	// merge never has to combine two sides' edits of one file.
	topicPoolSize = 400
)

var historyAuthors = []person{
	{"Ada Lovelace", "ada@example.com", "+0000"},
	{"Grace Hopper", "grace@example.org", "-0500"},
	{"Linus Pauling", "linus@example.net", "-0800"},
	{"Émilie du Châtelet", "emilie@example.fr", "+0100"},
	{"Srinivasa Ramanujan", "ramanujan@example.in", "+0530"},
	{"Sofia Kovalevskaya", "sofia@example.com", "+0300"},
	{"Alan Turing", "alan@example.co.uk", "+0000"},
}

var historyVerbs = []string{"fix", "add", "handle", "simplify", "remove", "rename", "document", "test", "speed up", "check"}

// genHistory writes the history branch on top of main (mark mainMark, at
// time offset mainOffset). pool are the files no other commit changes: the
// blamed file and the files the history edits come from it.
func genHistory(im *importer, files []genFile, pool []int, mainMark, mainOffset int, logf logFunc) {
	r := newRNG(treeSeed + 3)
	blame := -1
	for k, i := range pool {
		if f := files[i]; strings.HasSuffix(f.path, ".go") && f.size >= blameMinSize && f.size <= blameMaxSize {
			blame = i
			pool = append(pool[:k:k], pool[k+1:]...)
			break
		}
	}
	topicPool, mainPool := pool[:topicPoolSize], pool[topicPoolSize:]
	content := map[int][]byte{}
	current := func(i int) []byte {
		if c, ok := content[i]; ok {
			return c
		}
		return files[i].content()
	}
	editFile := func(i int, tag string) {
		if i == blame {
			content[i] = revise(current(i), r)
		} else {
			content[i] = edit(current(i), r, tag)
		}
		im.file(files[i].path, content[i])
	}
	subject := func(i int) string {
		dir := files[i].path[:strings.LastIndexByte(files[i].path, '/')]
		return fmt.Sprintf("%s: %s %s", dir[strings.LastIndexByte(dir, '/')+1:], pick(r, historyVerbs), phrase(r, 2+r.intn(5)))
	}
	message := func(subj string) string {
		if r.intn(2) == 0 {
			return subj
		}
		return subj + "\n\n" + strings.ToUpper(phrase(r, 1)[:1]) + phrase(r, 8+r.intn(12))[1:] + ".\n"
	}

	mark, offset := historyFirstMark, mainOffset
	line := []int{mainMark} // the first-parent line's marks, oldest first
	commits, merges := 0, 0
	for n := 0; n < historyMainline; n++ {
		offset += 600 + r.intn(3*3600)
		who := pick(r, historyAuthors)
		if n%historyMergeEvery == historyMergeEvery-1 && len(line) > historyForkBack {
			// A topic branch forked a few commits back, merged now; its
			// commits are dated between the fork and the merge.
			merges++
			name := pick(r, words) + "-" + pick(r, words)
			dev := pick(r, historyAuthors)
			parent := line[len(line)-1-historyForkBack]
			var touched []int
			k := 1 + r.intn(3)
			for j := k; j > 0; j-- {
				first := pick(r, topicPool)
				im.commitBy(historyRef, mark, []int{parent}, offset-j*300, dev, message(subject(first)))
				edits := []int{first}
				for m := r.intn(3); m > 0; m-- {
					edits = append(edits, pick(r, topicPool))
				}
				for _, i := range edits {
					editFile(i, "topic "+name)
					if !slices.Contains(touched, i) {
						touched = append(touched, i)
					}
				}
				im.endCommit()
				parent = mark
				mark++
				commits++
			}
			im.commitBy(historyRef, mark, []int{line[len(line)-1], parent}, offset, who,
				fmt.Sprintf("Merge pull request #%d from %s/%s\n\n%s", 100+merges, strings.ToLower(strings.Fields(dev.name)[0]), name, phrase(r, 4)))
			for _, i := range touched {
				im.file(files[i].path, content[i])
			}
			im.endCommit()
		} else {
			first := blame
			if r.intn(100) >= blameEditPercent {
				first = pick(r, mainPool)
			}
			im.commitBy(historyRef, mark, []int{line[len(line)-1]}, offset, who, message(subject(first)))
			editFile(first, "history")
			for m := r.intn(5); m > 0; m-- {
				if i := pick(r, mainPool); i != first {
					editFile(i, "history")
				}
			}
			im.endCommit()
		}
		line = append(line, mark)
		mark++
		commits++
	}
	logf("  tree: history branch, %d commits (%d merges) off main; blamed file %s", commits, merges, files[blame].path)
}

// revise makes one to four edits of the blamed file's lines past its
// package clause and imports: a line rewritten, a line inserted, or
// (in a file of more than 300 lines) a line deleted.
func revise(content []byte, r *rng) []byte {
	lines := bytes.SplitAfter(content, []byte("\n"))
	if n := len(lines); n > 0 && len(lines[n-1]) == 0 {
		lines = lines[:n-1]
	}
	for n := 1 + r.intn(4); n > 0; n-- {
		k := 8 + r.intn(len(lines)-8)
		switch p := r.intn(10); {
		case p < 5:
			lines[k] = []byte(stmt(r, 1) + "\n")
		case p < 9 || len(lines) <= 300:
			lines = append(lines[:k], append([][]byte{[]byte(stmt(r, 1) + "\n")}, lines[k:]...)...)
		default:
			lines = append(lines[:k], lines[k+1:]...)
		}
	}
	return bytes.Join(lines, nil)
}
