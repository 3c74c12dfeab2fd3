package diff

import (
	"bytes"
)

// Lines is a range of a file's lines, both included, from 1.
type Lines struct{ First, Last int64 }

// Widen cuts a file's section, git's patch of it with context enough for
// the whole file to be one hunk (git diff -U with more lines than the
// file has), into the hunks that show each changed line with context
// lines of context around it (git's rule: as -U context would), and
// every line of the ranges choose gives, of the old file and of the new;
// choose is given the old line numbers of the removed lines and the new
// ones of the added lines, in order. Each hunk is a run of git's lines,
// byte for byte, under an @@ line of its own, so the result is a patch
// git applies as it applies git's. ok is false, and the section is to
// be shown otherwise, when it is not one hunk whose counts hold.
func Widen(section []byte, context int, choose func(removed, added []int64) (old, new []Lines)) (_ []byte, ok bool) {
	at := hunkStart(section)
	if at < 0 {
		return nil, false
	}
	eol := bytes.IndexByte(section[at:], '\n')
	if eol < 0 {
		return nil, false
	}
	h, ok := parseHunkHead(section[at : at+eol+1])
	if !ok {
		return nil, false
	}
	lines, ok := wholeHunk(section[at+eol+1:], h)
	if !ok {
		return nil, false
	}
	var removed, added []int64
	var olds, news []int // the lines' indexes, by old and by new line number
	for i, l := range lines {
		switch l.kind {
		case '-':
			removed = append(removed, l.old)
			olds = append(olds, i)
		case '+':
			added = append(added, l.new)
			news = append(news, i)
		default:
			olds, news = append(olds, i), append(news, i)
		}
	}
	oldRanges, newRanges := choose(removed, added)
	marks := make([]int32, len(lines)+1)
	mark := func(i, j int) {
		if i <= j {
			marks[i]++
			marks[j+1]--
		}
	}
	for i, l := range lines {
		if l.kind != ' ' {
			mark(max(0, i-context), min(len(lines)-1, i+context))
		}
	}
	markRanges := func(rs []Lines, first int64, idx []int) {
		for _, r := range rs {
			lo, hi := max(r.First, first), min(r.Last, first+int64(len(idx))-1)
			if lo <= hi {
				mark(idx[lo-first], idx[hi-first])
			}
		}
	}
	markRanges(oldRanges, h.old.first, olds)
	markRanges(newRanges, h.new.first, news)
	shown := make([]bool, len(lines))
	for i := range lines {
		if i > 0 {
			marks[i] += marks[i-1]
		}
		shown[i] = marks[i] > 0
	}
	out := append([]byte(nil), section[:at]...)
	body := section[at+eol+1:]
	for i := 0; i < len(lines); {
		if !shown[i] {
			i++
			continue
		}
		j := i // the run of shown lines is i..j
		for j+1 < len(lines) && shown[j+1] {
			j++
		}
		hh := hunkHead{old: span{first: lines[i].oldAt}, new: span{first: lines[i].newAt}, tail: []byte("\n")}
		for _, l := range lines[i : j+1] {
			if l.kind != '+' {
				hh.old.n++
			}
			if l.kind != '-' {
				hh.new.n++
			}
		}
		out = appendHunkHead(out, hh)
		out = append(out, body[lines[i].from:lines[j].to]...)
		i = j + 1
	}
	return out, true
}

// hunkLine is one line of a whole-file hunk: where it is in the hunk's
// body (to: after the "\ No newline at end of file" that follows it), its
// sign, its old and new numbers (0 where it has none) and the numbers the
// next old and new lines at it have.
type hunkLine struct {
	from, to     int
	kind         byte
	old, new     int64
	oldAt, newAt int64
}

// hunkStart is where a section's first hunk starts, -1 when it has none.
func hunkStart(section []byte) int {
	for at := 0; at < len(section); {
		if bytes.HasPrefix(section[at:], []byte(hunkPrefix)) {
			return at
		}
		eol := bytes.IndexByte(section[at:], '\n')
		if eol < 0 {
			return -1
		}
		at += eol + 1
	}
	return -1
}

// wholeHunk reads body as the lines of the one hunk h heads; ok is false
// when it holds another hunk or its counts are not h's.
func wholeHunk(body []byte, h hunkHead) (lines []hunkLine, ok bool) {
	oldAt, newAt := h.old.first, h.new.first
	var olds, news int64
	for at := 0; at < len(body); {
		end := len(body)
		if eol := bytes.IndexByte(body[at:], '\n'); eol >= 0 {
			end = at + eol + 1
		}
		switch kind := body[at]; kind {
		case '\\':
			if len(lines) == 0 {
				return nil, false
			}
			lines[len(lines)-1].to = end
		case ' ', '-', '+':
			l := hunkLine{from: at, to: end, kind: kind, oldAt: oldAt, newAt: newAt}
			if kind != '+' {
				l.old, oldAt, olds = oldAt, oldAt+1, olds+1
			}
			if kind != '-' {
				l.new, newAt, news = newAt, newAt+1, news+1
			}
			lines = append(lines, l)
		default:
			return nil, false
		}
		at = end
	}
	return lines, olds == h.old.n && news == h.new.n
}
