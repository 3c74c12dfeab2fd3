package fold

import (
	"bytes"
	"encoding/binary"
)

// site is where a pattern occurs.
type site struct {
	file    int
	number  int    // the new line for Edited and Added, the old line for Removed
	col     int    // Edited: where the added middle starts in text
	text    []byte // Edited: the new line, without its newline; else the line's indent
	pattern int    // its pattern's number (a key until the patterns are numbered)
	line    int    // its index in its hunk, for git's order
}

// change is a changed line, or an edited pair of them, of a hunk that may
// fold. lines are its indexes in the hunk; the second is -1 for one line.
type change struct {
	key      int
	site     site
	lines    [2]int
	runStart int  // the index of the first change of its run
	evenRun  bool // its run removes as many lines as it adds
}

// candidate is a hunk that may fold, with its changes keyed.
type candidate struct {
	file, hunk int
	changes    []change
}

// keyTable interns edits, so a pattern is a small number.
type keyTable struct {
	ids      map[string]int
	patterns []Pattern
}

func (t *keyTable) id(kind Kind, removed, added []byte) int {
	var b []byte
	b = append(b, byte(kind))
	b = binary.AppendUvarint(b, uint64(len(removed)))
	b = append(append(b, removed...), added...)
	if id, ok := t.ids[string(b)]; ok {
		return id
	}
	id := len(t.patterns)
	t.ids[string(b)] = id
	t.patterns = append(t.patterns, Pattern{Kind: kind, Removed: removed, Added: added})
	return id
}

// candidates lists the hunks that may fold.
func candidates(files []patchFile, keys *keyTable) []candidate {
	gitLines := map[string]int{}
	for i := range files {
		gitLines[string(files[i].gitLine())]++
	}
	var cands []candidate
	for fi := range files {
		f := &files[fi]
		// Sites of two files with one "diff --git" line could not be told apart.
		if gitLines[string(f.gitLine())] != 1 || plainPath(f.header) == nil || !inStep(f.hunks) {
			continue
		}
		for hi := range f.hunks {
			if changes, ok := hunkChanges(&f.hunks[hi], fi, keys); ok {
				cands = append(cands, candidate{file: fi, hunk: hi, changes: changes})
			}
		}
	}
	return cands
}

// inStep reports whether a file's hunks are in order, apart, and each where
// the changes before it put it. Rebuild finds the old line of an edited
// line from the changes before it, so it needs all three; git's hunks always
// are.
func inStep(hunks []hunk) bool {
	delta, end := 0, 0
	for i := range hunks {
		h := &hunks[i]
		if h.oldStart-h.newStart != delta || (i > 0 && h.oldStart <= end) {
			return false
		}
		for _, l := range h.lines {
			switch l.sign {
			case '-':
				delta++
			case '+':
				delta--
			}
		}
		end = h.oldEnd()
	}
	return true
}

// hunkChanges keys a hunk's changes, or says it cannot fold: a line without
// its newline, a removed line right after an added one (git always puts
// context between two runs), or a pair whose edit does not undo.
func hunkChanges(h *hunk, file int, keys *keyTable) ([]change, bool) {
	var changes []change
	lines := h.lines
	for i := 0; i < len(lines); {
		if lines[i].sign == ' ' {
			i++
			continue
		}
		j := i
		for j < len(lines) && lines[j].sign == '-' {
			j++
		}
		k := j
		for k < len(lines) && lines[k].sign == '+' {
			k++
		}
		if k < len(lines) && lines[k].sign == '-' {
			return nil, false
		}
		for _, l := range lines[i:k] {
			if l.marker != nil {
				return nil, false
			}
		}
		runStart := len(changes)
		// The run's first lines on each side pair one to one, so a line
		// broken in two still shows the edit of its first part; the lines
		// left over on the longer side are singles.
		paired := min(j-i, k-j)
		for n := range paired {
			oldText, newText := trimNewline(lines[i+n].body), trimNewline(lines[j+n].body)
			removed, added, col, ok := lineEdit(oldText, newText)
			if !ok {
				return nil, false
			}
			s := site{file: file, number: lines[j+n].new, col: col, text: newText}
			changes = append(changes, change{key: keys.id(Edited, removed, added), site: s, lines: [2]int{i + n, j + n}})
		}
		for n := i; n < k; n++ {
			if n < i+paired || n >= j && n < j+paired {
				continue
			}
			l := &lines[n]
			// The same line under another indent is the same single: the
			// site carries the indent.
			text := trimNewline(l.body)
			indent := text[:len(text)-len(bytes.TrimLeft(text, " \t"))]
			text = text[len(indent):]
			key := keys.id(Added, nil, text)
			if l.sign == '-' {
				key = keys.id(Removed, text, nil)
			}
			s := site{file: file, number: l.number(), text: indent}
			changes = append(changes, change{key: key, site: s, lines: [2]int{n, -1}})
		}
		for c := runStart; c < len(changes); c++ {
			changes[c].runStart = runStart
			changes[c].evenRun = j-i == k-j
		}
		i = k
	}
	return changes, len(changes) > 0
}

func trimNewline(b []byte) []byte { return bytes.TrimSuffix(b, []byte("\n")) }

// unitNumbers numbers what folds whole or not at all: a hunk with
// wholeHunks; else a pair of a run that removes as many lines as it adds
// (each such pair reads alone), or else a whole run, so the rest never
// shows part of a line broken in two, or a block without its braces.
func unitNumbers(cands []candidate, wholeHunks bool) func(ci, k int) int {
	first := make([]int, len(cands)) // the unit number of each candidate's first change
	n := 0
	for ci, c := range cands {
		first[ci] = n
		n += len(c.changes)
	}
	return func(ci, k int) int {
		ch := &cands[ci].changes[k]
		switch {
		case wholeHunks:
			return first[ci]
		case ch.evenRun:
			return first[ci] + k
		}
		return first[ci] + ch.runStart
	}
}

// selectUnits folds the units all of whose keys occur at least
// minFor(key) times in the units folded. Dropping a unit lowers the counts of its keys,
// which may drop more units; each unit is dropped once, so this is linear.
func selectUnits(cands []candidate, keyCount int, minFor func(key int) int, unitOf func(ci, k int) int) [][]bool {
	count := make([]int, keyCount)
	inUnits := make([][]int, keyCount)
	var members [][][2]int // a unit's changes, as (candidate, change)
	for ci, c := range cands {
		for k, ch := range c.changes {
			u := unitOf(ci, k)
			for u >= len(members) {
				members = append(members, nil)
			}
			members[u] = append(members[u], [2]int{ci, k})
			count[ch.key]++
			inUnits[ch.key] = append(inUnits[ch.key], u)
		}
	}
	dropped := make([]bool, len(members))
	var rare []int
	for key, n := range count {
		if n < minFor(key) {
			rare = append(rare, key)
		}
	}
	for len(rare) > 0 {
		key := rare[len(rare)-1]
		rare = rare[:len(rare)-1]
		for _, u := range inUnits[key] {
			if dropped[u] {
				continue
			}
			dropped[u] = true
			for _, m := range members[u] {
				other := cands[m[0]].changes[m[1]].key
				if count[other] == minFor(other) {
					rare = append(rare, other)
				}
				count[other]--
			}
		}
	}
	chosen := make([][]bool, len(cands))
	for ci, c := range cands {
		chosen[ci] = make([]bool, len(c.changes))
		for k := range c.changes {
			chosen[ci][k] = !dropped[unitOf(ci, k)]
		}
	}
	return chosen
}
