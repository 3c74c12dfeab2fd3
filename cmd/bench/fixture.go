package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// change is one file of a diff as `git diff --raw -z -M` lists it.
type change struct {
	status        byte
	oldPath, path string
	newOID        string
}

// paths are the change's paths for a pathspec: both sides of a rename.
func (c change) paths() []string {
	if c.oldPath != c.path {
		return []string{c.oldPath, c.path}
	}
	return []string{c.path}
}

// fixture is what the cases of one repository need to know about it, found
// with plain git once, before anything is timed.
type fixture struct {
	g          gitRunner
	dir        string
	base, head string // revisions as given to both sides
	mergeBase  string // full SHA, computed once with git
	changes    []change
	slice      textFile // the file the read cases slice
	blame      textFile // the file the blame case blames (tree: at the history branch)
	scratch    string   // a directory of the run's own, for scratch work trees
}

// textFile is a text file at a revision and the 100-line slice to read.
type textFile struct {
	rev, path  string
	lines      []string // the file split on "\n", as get_file_content splits it
	start, end int      // 1-based, inclusive
}

// want is the slice as both read tools return it: lines joined with "\n".

// totalLines counts lines the way read_file does: a trailing "\n" ends the
// last line rather than starting an empty one.
func (t textFile) totalLines() int {
	if n := len(t.lines); n > 0 && t.lines[n-1] == "" {
		return n - 1
	}
	return len(t.lines)
}

// newFixture computes the merge base and the change list of base...head.
func newFixture(g gitRunner, dir, base, head string) (*fixture, error) {
	mb, err := g.line(dir, "merge-base", base, head)
	if err != nil {
		return nil, err
	}
	raw, err := g.output(dir, "diff", "--raw", "-z", "-M", "--no-abbrev", mb, head)
	if err != nil {
		return nil, err
	}
	changes, err := parseRaw(raw)
	if err != nil {
		return nil, err
	}
	return &fixture{g: g, dir: dir, base: base, head: head, mergeBase: mb, changes: changes}, nil
}

// parseRaw reads ":old new oid oid S\0path\0[new\0]" records.
func parseRaw(raw []byte) ([]change, error) {
	toks := strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00")
	var out []change
	for i := 0; i < len(toks) && toks[i] != ""; {
		f := strings.Fields(toks[i])
		if len(f) != 5 || i+1 >= len(toks) {
			return nil, fmt.Errorf("bad raw diff record %q", toks[i])
		}
		c := change{status: f[4][0], oldPath: toks[i+1], path: toks[i+1], newOID: f[3]}
		i += 2
		if c.status == 'R' || c.status == 'C' {
			c.path = toks[i]
			i++
		}
		out = append(out, c)
	}
	return out, nil
}

// find returns a change with the given status: the middle one, so that a
// case does not benefit from being first in git's order.
func (fx *fixture) find(status byte) (change, error) {
	var all []change
	for _, c := range fx.changes {
		if c.status == status {
			all = append(all, c)
		}
	}
	if len(all) == 0 {
		return change{}, fmt.Errorf("no change with status %c in %s...%s", status, fx.base, fx.head)
	}
	return all[len(all)/2], nil
}

// loadSlice reads path at rev and places a 100-line slice in its middle.
func loadSlice(g gitRunner, dir, rev, path string) (textFile, error) {
	data, err := g.output(dir, "cat-file", "-p", rev+":"+path)
	if err != nil {
		return textFile{}, err
	}
	t := textFile{rev: rev, path: path, lines: strings.Split(string(data), "\n")}
	n := t.totalLines()
	if n < 100 {
		t.start, t.end = 1, max(n, 1)
	} else {
		t.start = n/2 - 49
		t.end = t.start + 99
	}
	return t, nil
}

// fileNear returns the blob at rev whose size is closest to size bytes
// (first in path order on a tie).
func fileNear(g gitRunner, dir, rev string, size int64) (string, error) {
	out, err := g.output(dir, "ls-tree", "-r", "-l", "-z", rev)
	if err != nil {
		return "", err
	}
	best, bestDist := "", int64(math.MaxInt64)
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 || f[1] != "blob" {
			continue
		}
		n, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil {
			continue
		}
		if d := max(n-size, size-n); d < bestDist {
			best, bestDist = path, d
		}
	}
	if best == "" {
		return "", fmt.Errorf("no file at %s", rev)
	}
	return best, nil
}

// largestText returns the largest text file that head has and the diff
// changes (added, modified, renamed), for --repo mode. Text means no NUL in
// the first 8,000 bytes, git's rule.
func largestText(g gitRunner, fx *fixture) (string, error) {
	var req bytes.Buffer
	byOID := map[string][]string{}
	for _, c := range fx.changes {
		if c.status != 'D' && c.newOID != strings.Repeat("0", len(c.newOID)) {
			if byOID[c.newOID] == nil {
				req.WriteString(c.newOID + "\n")
			}
			byOID[c.newOID] = append(byOID[c.newOID], c.path)
		}
	}
	cmd := g.cmd(fx.dir, "cat-file", "--batch-check")
	cmd.Stdin = &req
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git cat-file --batch-check: %w", err)
	}
	type blob struct {
		oid  string
		size int64
	}
	var blobs []blob
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && f[1] == "blob" {
			n, _ := strconv.ParseInt(f[2], 10, 64)
			blobs = append(blobs, blob{f[0], n})
		}
	}
	sort.SliceStable(blobs, func(i, j int) bool { return blobs[i].size > blobs[j].size })
	for _, b := range blobs {
		if text, err := isText(g, fx.dir, b.oid); err != nil {
			return "", err
		} else if text {
			return byOID[b.oid][0], nil
		}
	}
	return "", fmt.Errorf("no changed text file in %s...%s", fx.base, fx.head)
}

// isText reads the first 8,000 bytes of a blob and stops git.
func isText(g gitRunner, dir, oid string) (bool, error) {
	cmd := g.cmd(dir, "cat-file", "blob", oid)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return false, err
	}
	if err := cmd.Start(); err != nil {
		return false, err
	}
	head, err := io.ReadAll(io.LimitReader(bufio.NewReader(stdout), 8000))
	_ = cmd.Process.Kill() // only the head was wanted
	_ = cmd.Wait()
	if err != nil {
		return false, err
	}
	return !bytes.Contains(head, []byte{0}), nil
}
