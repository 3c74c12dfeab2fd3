package git

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
)

// BlameLine is one line of a blamed range.
type BlameLine struct {
	Line     int    // its number in the file at the blamed commit, from 1
	OrigLine int    // its number in the file as SHA left it
	SHA      string // the commit that last changed it
	// Path is the file's path in SHA: not the blamed path when the line
	// came through a rename.
	Path string
	// Previous is the commit before SHA that had the file, under
	// PreviousPath: blaming there goes further back. Both are "" when SHA
	// added the file. (git tells them for each commit and path, so they
	// sit on the line, not on BlameCommit.)
	Previous, PreviousPath string
	Text                   string // the line, without its newline
	Truncated              bool   // Text is the first maxBlameLine bytes of a longer line
}

// BlameCommit is what blame tells of each commit once.
type BlameCommit struct {
	SHA               string
	Author, Committer Person // as the commit records them: no mailmap
	Summary           string // the first line of its message
}

// BlameRangeError: the range starts past the end of the file, which has
// Lines lines (0 for an empty file).
type BlameRangeError struct {
	Path  string
	Start int
	Lines int
}

func (e *BlameRangeError) Error() string {
	return fmt.Sprintf("git blame: line %d is past the end of %q, which has %d lines", e.Start, e.Path, e.Lines)
}

// maxBlameLine caps what is kept of one line of git blame's output: the
// text of a longer line is cut (Truncated), a longer header cut silently.
// In all, a Blame keeps at most gitexec.MaxOutput bytes.
const maxBlameLine = 64 << 10

// blameCommand is the one command line every Blame runs with: what the
// repository configures cannot change which commit a line is blamed on or
// what is printed, nor run a program or read a file.
//
//   - --no-textconv: a diff driver's textconv (chosen in info/attributes)
//     is a program blame would run on every version of the file.
//   - --no-ignore-revs-file: blame.ignoreRevsFile would hide commits, and
//     name a file (a FIFO hangs blame); -c blame.ignoreRevsFile= does not
//     help in git 2.39, where the empty value sorts first, before the
//     config's files, instead of clearing them. The option empties the list
//     before any file is read.
//   - -c mailmap.file= -c mailmap.blob=: blame always applies the mailmap
//     (it has no --no-mailmap); names stay the commit's own, as in Log.
//   - --indent-heuristic: diff.indentHeuristic=false moves lines between
//     commits (git's default, said on the command line).
//   - --encoding=UTF-8: i18n.logOutputEncoding would re-encode names and
//     summaries.
//
// No -w, -M or -C: whitespace changes count, and lines are not searched
// for in other files. git blame (2.39) takes no --end-of-options: the
// commit is a full commit id, the path goes after "--".
func blameCommand(commit, path string, start, end int) *gitexec.Cmd {
	return gitexec.Command("blame", "--porcelain", "--no-textconv", "--no-ignore-revs-file",
		"--indent-heuristic", "--encoding=UTF-8").
		Config("mailmap.file=").Config("mailmap.blob=").
		FlagValue("-L", strconv.Itoa(start)+","+strconv.Itoa(end)).
		Rev(commit).Paths(path)
}

// Blame tells, for lines start to end (from 1, inclusive) of the file at
// path in commit (a full commit id), the commit that last changed each
// line, and each such commit once, in the order of its first line. An end
// past the end of the file is the file's last line, as git has it; a start
// past it is a *BlameRangeError. A path commit does not have as a file
// (none, a directory, a submodule) is ErrMissing.
func (r *Repo) Blame(ctx context.Context, commit, path string, start, end int) ([]BlameLine, []BlameCommit, error) {
	if !IsObjectID(commit) {
		return nil, nil, fmt.Errorf("git blame: %q is not a full commit id", commit)
	}
	if !isCleanPath(path) {
		return nil, nil, fmt.Errorf("git blame: path %q is not a clean relative path", path)
	}
	if start < 1 || end < start {
		return nil, nil, fmt.Errorf("git blame: lines %d to %d: the first line is 1, and the last at least the first", start, end)
	}
	p := newBlameParser(ctx)
	err := r.run.Stream(ctx, blameCommand(commit, path, start, end), func(stdout io.Reader) error {
		return readError(ctx, p.parse(bufio.NewReaderSize(stdout, 64<<10)))
	})
	if err != nil {
		return nil, nil, blameError(err, path, start)
	}
	return p.lines, p.commits, nil
}

// hasOnly is git's "file F has only N lines" (F unquoted: matched from the
// end).
var hasOnly = regexp.MustCompile(`has only (\d+) lines?\s*$`)

// blameError maps git's refusals to the package's errors.
func blameError(err error, path string, start int) error {
	var exit *gitexec.ExitError
	if !errors.As(err, &exit) {
		return err
	}
	msg := strings.TrimSpace(exit.Stderr)
	if strings.HasPrefix(msg, "fatal: file ") {
		if m := hasOnly.FindStringSubmatch(msg); m != nil {
			n, _ := strconv.Atoi(m[1])
			return &BlameRangeError{Path: path, Start: start, Lines: n}
		}
	}
	if strings.HasPrefix(msg, "fatal: no such path ") {
		return fmt.Errorf("%w: no file %q in the commit", ErrMissing, path)
	}
	return missingRevision(err)
}

// blameOrigin is where a commit's lines come from: its path, and the
// previous commit and path that had the file.
type blameOrigin struct{ path, previous, previousPath string }

// blameParser reads git blame --porcelain: for each group of lines a header
// "SHA ORIG FINAL COUNT", the first time a commit appears its details
// ("author NAME", ..., "summary TEXT", perhaps "boundary"), and "previous
// SHA PATH" and "filename PATH" the first time and again for every group
// when the commit has lines from more than one path; then each line as a
// tab and its text, the lines after the first with a header "SHA ORIG
// FINAL" of their own.
type blameParser struct {
	ctx     context.Context
	lines   []BlameLine
	commits []BlameCommit
	seen    map[string]bool
	origins map[string]blameOrigin
	kept    int

	line    BlameLine   // the line whose header was read
	origin  blameOrigin // the line's origin
	fresh   bool        // origin was set by this header's own lines
	pending bool        // a header was read; its text is next
}

func newBlameParser(ctx context.Context) *blameParser {
	return &blameParser{ctx: ctx, seen: map[string]bool{}, origins: map[string]blameOrigin{}}
}

func (p *blameParser) parse(br *bufio.Reader) error {
	var buf []byte
	for n := 0; ; n++ {
		if n%checkEvery == checkEvery-1 {
			if err := context.Cause(p.ctx); err != nil {
				return err
			}
		}
		var cut bool
		var err error
		buf, cut, err = readField(br, '\n', maxBlameLine, buf)
		if err == io.EOF && len(buf) == 0 && !cut {
			if p.pending {
				return fmt.Errorf("git blame: %w", io.ErrUnexpectedEOF)
			}
			return nil
		}
		if err != nil && err != io.EOF {
			return err
		}
		if err := p.line1(buf, cut); err != nil {
			return err
		}
		if err == io.EOF {
			return nil
		}
	}
}

// line1 takes one line of the output.
func (p *blameParser) line1(b []byte, cut bool) error {
	if p.pending && len(b) > 0 && b[0] == '\t' {
		l := p.line
		l.Text, l.Truncated = string(b[1:]), cut
		l.Path, l.Previous, l.PreviousPath = p.origin.path, p.origin.previous, p.origin.previousPath
		if p.kept += len(l.Text) + 128; p.kept > gitexec.MaxOutput {
			return fmt.Errorf("git blame: over %d bytes: ask for fewer lines", gitexec.MaxOutput)
		}
		p.lines = append(p.lines, l)
		p.pending = false
		return nil
	}
	s := string(b)
	if !p.pending {
		return p.header(s)
	}
	key, value, _ := strings.Cut(s, " ")
	switch key {
	case "filename", "previous":
		if !p.fresh {
			p.origin, p.fresh = blameOrigin{}, true
		}
		if key == "filename" {
			p.origin.path = unquoteName(value)
			p.origins[p.line.SHA] = p.origin
		} else {
			sha, name, _ := strings.Cut(value, " ")
			p.origin.previous, p.origin.previousPath = sha, unquoteName(name)
		}
	default:
		p.detail(key, value)
	}
	return nil
}

// header reads "SHA ORIG FINAL [COUNT]".
func (p *blameParser) header(s string) error {
	f := strings.Fields(s)
	if len(f) < 3 || len(f) > 4 || !IsObjectID(f[0]) {
		return fmt.Errorf("git blame: unexpected line %q", s)
	}
	orig, err1 := strconv.Atoi(f[1])
	final, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		return fmt.Errorf("git blame: unexpected line %q", s)
	}
	p.line = BlameLine{Line: final, OrigLine: orig, SHA: f[0]}
	p.origin, p.fresh = p.origins[f[0]], false
	p.pending = true
	if !p.seen[f[0]] {
		p.seen[f[0]] = true
		p.commits = append(p.commits, BlameCommit{SHA: f[0]})
	}
	return nil
}

// detail fills in the commit's details, told once, right after its first
// header.
func (p *blameParser) detail(key, value string) {
	c := &p.commits[len(p.commits)-1]
	if c.SHA != p.line.SHA {
		return // details of a commit seen before: git does not repeat them
	}
	switch key {
	case "author":
		c.Author.Name = value
	case "author-mail":
		c.Author.Email = strings.TrimSuffix(strings.TrimPrefix(value, "<"), ">")
	case "author-time":
		c.Author.Date = unixDate(value, c.Author.Date)
	case "author-tz":
		c.Author.Date = inZone(c.Author.Date, value)
	case "committer":
		c.Committer.Name = value
	case "committer-mail":
		c.Committer.Email = strings.TrimSuffix(strings.TrimPrefix(value, "<"), ">")
	case "committer-time":
		c.Committer.Date = unixDate(value, c.Committer.Date)
	case "committer-tz":
		c.Committer.Date = inZone(c.Committer.Date, value)
	case "summary":
		c.Summary = value
	}
}

// unixDate reads seconds since the epoch (UTC until its zone is read).
func unixDate(s string, old time.Time) time.Time {
	sec, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return old
	}
	return time.Unix(sec, 0).UTC()
}

// inZone puts t in the zone "+HHMM" or "-HHMM".
func inZone(t time.Time, tz string) time.Time {
	if t.IsZero() || len(tz) != 5 || (tz[0] != '+' && tz[0] != '-') {
		return t
	}
	hh, err1 := strconv.Atoi(tz[1:3])
	mm, err2 := strconv.Atoi(tz[3:5])
	if err1 != nil || err2 != nil {
		return t
	}
	offset := (hh*60 + mm) * 60
	if tz[0] == '-' {
		offset = -offset
	}
	return t.In(time.FixedZone("", offset))
}

// unquoteName reads a name git may have C-quoted ("a\tb", octal escapes
// for bytes outside ASCII under core.quotePath).
func unquoteName(s string) string {
	if strings.HasPrefix(s, `"`) {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}
