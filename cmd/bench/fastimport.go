package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// benchTime is the fixed clock of every generated commit: with fixed content
// and dates, object ids are the same on every machine.
const benchTime = 1700000000

// importer writes a git fast-import stream. Errors stick: the first one
// ends all writing and is returned by close.
type importer struct {
	w   *bufio.Writer
	err error
}

// fastImport runs `git fast-import` on gitDir and feeds it what write
// produces. One process writes every object into one pack: generating
// 20,000 files this way takes seconds, where `git add` per file takes
// minutes. Blobs are stored without deltas (--depth=0): fast-import would
// chain each blob to whatever blob came before it, 50 deep, which no real
// repository looks like and which makes every blob read slow.
func fastImport(g gitRunner, gitDir string, write func(im *importer)) error {
	cmd := g.cmd(gitDir, "fast-import", "--quiet", "--done", "--depth=0")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	im := &importer{w: bufio.NewWriterSize(stdin, 1<<20)}
	write(im)
	im.printf("done\n")
	if im.err == nil {
		im.err = im.w.Flush()
	}
	cerr := stdin.Close()
	werr := cmd.Wait()
	if werr != nil {
		return fmt.Errorf("git fast-import: %w: %s", werr, strings.TrimSpace(stderr.String()))
	}
	return errors.Join(im.err, cerr)
}

func (im *importer) printf(format string, args ...any) {
	if im.err == nil {
		_, im.err = fmt.Fprintf(im.w, format, args...)
	}
}

// commit starts a commit on ref with the given mark, parent mark (0: none)
// and time offset; file commands follow.
func (im *importer) commit(ref string, mark, parent int, offset int, msg string) {
	im.printf("commit %s\nmark :%d\n", ref, mark)
	im.printf("author Bench <bench@example.com> %d +0000\n", benchTime+offset)
	im.printf("committer Bench <bench@example.com> %d +0000\n", benchTime+offset)
	im.printf("data %d\n%s\n", len(msg), msg)
	if parent != 0 {
		im.printf("from :%d\n", parent)
	}
}

// person is a commit's author (and committer) in fast-import's form.
type person struct{ name, email, tz string }

// commitBy starts a commit on ref by who, at the time offset, with the
// given parent marks (none: a root commit; two: a merge), explicit even
// when ref's tip is the first parent; file commands follow, against the
// first parent's tree.
func (im *importer) commitBy(ref string, mark int, parents []int, offset int, who person, msg string) {
	im.printf("commit %s\nmark :%d\n", ref, mark)
	im.printf("author %s <%s> %d %s\n", who.name, who.email, benchTime+offset, who.tz)
	im.printf("committer %s <%s> %d %s\n", who.name, who.email, benchTime+offset, who.tz)
	im.printf("data %d\n%s\n", len(msg), msg)
	for i, p := range parents {
		if i == 0 {
			im.printf("from :%d\n", p)
		} else {
			im.printf("merge :%d\n", p)
		}
	}
}

// file writes path with the given content (paths here never need quoting).
func (im *importer) file(path string, content []byte) { im.fileMode(path, "100644", content) }

// fileMode writes path with a mode (100644, or 100755 for an executable).
func (im *importer) fileMode(path, mode string, content []byte) {
	im.printf("M %s inline %s\ndata %d\n", mode, path, len(content))
	if im.err == nil {
		_, im.err = im.w.Write(content)
	}
	im.printf("\n")
}

// stream writes path with size bytes produced by fill, which must write
// exactly size bytes: the content never sits in memory.
func (im *importer) stream(path string, size int64, fill func(w io.Writer) (int64, error)) {
	im.printf("M 100644 inline %s\ndata %d\n", path, size)
	if im.err != nil {
		return
	}
	n, err := fill(im.w)
	if err == nil && n != size {
		err = fmt.Errorf("%s: wrote %d bytes, announced %d", path, n, size)
	}
	im.err = err
	im.printf("\n")
}

func (im *importer) remove(path string) { im.printf("D %s\n", path) }

// endCommit ends the file commands of a commit.
func (im *importer) endCommit() { im.printf("\n") }

// reset points ref at a mark.
func (im *importer) reset(ref string, mark int) { im.printf("reset %s\nfrom :%d\n\n", ref, mark) }
