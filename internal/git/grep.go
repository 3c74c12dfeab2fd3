package git

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/globs"
)

// GrepOptions is one search.
type GrepOptions struct {
	Pattern       string   // passed only through -e
	Regex         bool     // POSIX extended regex; else a fixed string
	CaseSensitive bool     //
	Word          bool     // -w: only where the pattern is a whole word
	Rev           string   // a full commit id; "" searches the work tree
	Globs         []string // include only the paths these patterns select, read as .gitignore lines (globs.Translate)
	Paths         []string // or only these files and directories, literally (not with Globs)
	Exclude       []string // never search paths matching these globs (case-insensitive)
	// MaxFileBytes skips files larger than this many bytes (0: none): git
	// grep holds a whole file in memory, whatever its size.
	MaxFileBytes int64
	// Hidden, for a work-tree search, tells the paths of modified files
	// the caller would never serve: they are not even read.
	Hidden func(path string) bool
}

// GrepMatch is one matching line.
type GrepMatch struct {
	Path string // repository path
	Line int    // 1-based
	// Text is the line without its newline, at most grepTextMax bytes of
	// it; valid only until the callback returns.
	Text  []byte
	Cut   bool  // the line is longer than Text
	Bytes int64 // the line's length, without its newline
}

// GrepResult is what Grep tells besides the matches.
type GrepResult struct {
	// Skipped counts the files over MaxFileBytes that the search would
	// otherwise have read (matching Globs, not Exclude).
	Skipped int
	// Searched, for a work-tree search, reads what was searched (for
	// context lines); the caller closes it.
	Searched *SearchedFiles
}

// ErrStopGrep, returned by Grep's callback, stops git: enough was seen.
var ErrStopGrep = errors.New("stop grep")

// TooManyLargeFilesError: more files over MaxFileBytes than one command line
// can name to skip.
type TooManyLargeFilesError struct {
	Files int
	Max   int64
}

func (e *TooManyLargeFilesError) Error() string {
	return fmt.Sprintf("%d files are larger than %d bytes, too many to skip one by one", e.Files, e.Max)
}

// Limits of what Grep keeps and passes.
const (
	grepTextMax = 1 << 10  // bytes kept of a matching line
	grepPathMax = 64 << 10 // longest path read from git's output
	// maxSkipped and maxSkipBytes bound the exclusions added to git's
	// command line (Linux allows 2 MiB of arguments in all, 128 KiB each).
	maxSkipped   = 4000
	maxSkipBytes = 1 << 20
)

// Grep runs git grep and calls each for every matching line, in git's order
// (by path, then line). Records are read from git's -z output, the one form
// no file name or content can make ambiguous: "PATH\0LINE\0COLUMN\0TEXT\n",
// where PATH (which may hold newlines) ends at the first NUL and TEXT (which
// may hold NULs) at the newline. No context lines are asked for: with them
// git's -z output cannot tell a context line holding a NUL from a match.
// Binary files are skipped, and so are files over MaxFileBytes, which git
// grep would read whole into memory. At a revision git reads objects only;
// without one it searches the work tree's tracked files as grepWorkTree
// tells, never reading the work tree by name. When each returns
// ErrStopGrep, git is stopped. Exit status 1 (nothing found) is not an
// error. A work-tree search's Searched must be closed; on an error Grep
// has closed it.
func (r *Repo) Grep(ctx context.Context, o GrepOptions, each func(GrepMatch) error) (GrepResult, error) {
	res, err := r.grep(ctx, o, each)
	if err != nil {
		res.Searched.Close()
		res.Searched = nil
	}
	return res, err
}

func (r *Repo) grep(ctx context.Context, o GrepOptions, each func(GrepMatch) error) (GrepResult, error) {
	var res GrepResult
	c := gitexec.Grep("--null", "-n", "--column", "-I", "--no-color", "--no-textconv", "--full-name")
	var large []string
	var err error
	switch {
	case o.Rev == "":
		// One search slot for all the steps (ls-files, update-index,
		// grep), each of which runs in it.
		release, aerr := r.run.SearchSlot(ctx)
		if aerr != nil {
			return res, aerr
		}
		defer release()
		large, res.Searched, err = r.grepWorkTree(ctx, c.InCallersSlot(), o)
	case o.MaxFileBytes > 0:
		large, err = r.largeBlobs(ctx, o.Rev, o.MaxFileBytes)
	}
	if err != nil {
		return res, err
	}
	skip, counted, err := r.grepSkips(ctx, o, large)
	if err != nil {
		return res, err
	}
	res.Skipped = counted
	if o.Regex {
		c.Flags("-E")
	} else {
		c.Flags("-F")
	}
	if !o.CaseSensitive {
		c.Flags("-i")
	}
	if o.Word {
		c.Flags("-w")
	}
	c.FlagValue("-e", o.Pattern)
	if o.Rev != "" {
		// git grep (2.39) takes no --end-of-options; Rev is a full
		// commit id, never a caller's text.
		c.Rev(o.Rev)
	}
	c.Pathspecs(":(glob)", globs.TranslateAll(o.Globs)...).
		Pathspecs(":(literal)", o.Paths...).
		Pathspecs(":(exclude,glob,icase)", o.Exclude...).
		Pathspecs(":(exclude,literal)", skip...)
	prefix := ""
	if o.Rev != "" {
		prefix = o.Rev + ":"
	}
	err = r.run.Stream(ctx, c, func(stdout io.Reader) error {
		err := parseGrep(stdout, prefix, each)
		if err == ErrStopGrep {
			return nil // git is stopped
		}
		return err
	})
	if exit, ok := err.(*gitexec.ExitError); ok && exit.Code == 1 && onlyDenials(exit.Stderr) {
		return res, nil
	}
	return res, err
}

// parseGrep reads git grep -z -n --column output.
func parseGrep(stdout io.Reader, prefix string, each func(GrepMatch) error) error {
	br := bufio.NewReaderSize(stdout, 64<<10)
	var path, num, col, text []byte
	for {
		var cut bool
		var err error
		path, cut, err = readField(br, 0, grepPathMax, path)
		if err == io.EOF && len(path) == 0 {
			return nil
		}
		if err != nil {
			return grepOutputError(err)
		}
		tooLong := cut
		if num, _, err = readField(br, 0, 20, num); err != nil {
			return grepOutputError(err)
		}
		if col, _, err = readField(br, 0, 20, col); err != nil {
			return grepOutputError(err)
		}
		var size int64
		text, size, cut, err = readCounted(br, '\n', grepTextMax, text)
		if err != nil && err != io.EOF {
			return grepOutputError(err)
		}
		line, nerr := strconv.Atoi(string(num))
		if _, cerr := strconv.Atoi(string(col)); nerr != nil || cerr != nil || line < 1 {
			return grepOutputError(fmt.Errorf("line %q, column %q", num, col))
		}
		p, ok := strings.CutPrefix(string(path), prefix)
		if !ok {
			return grepOutputError(fmt.Errorf("path %q lacks %q", path, prefix))
		}
		if !tooLong {
			if err := each(GrepMatch{Path: p, Line: line, Text: text, Cut: cut, Bytes: size}); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

func grepOutputError(err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("reading git grep output: %w", err)
}

// readField reads up to delim (consumed, not returned), keeping at most limit
// bytes in buf[:0] and skipping the rest; cut tells whether bytes were
// skipped. At the end of the input it returns io.EOF with what it read.
func readField(br *bufio.Reader, delim byte, limit int, buf []byte) (field []byte, cut bool, err error) {
	field, _, cut, err = readCounted(br, delim, limit, buf)
	return field, cut, err
}

// readCounted is readField, with the field's whole length.
func readCounted(br *bufio.Reader, delim byte, limit int, buf []byte) (field []byte, size int64, cut bool, err error) {
	buf = buf[:0]
	for {
		frag, err := br.ReadSlice(delim)
		if err == nil {
			frag = frag[:len(frag)-1]
		}
		size += int64(len(frag))
		room := limit - len(buf)
		if len(frag) > room {
			frag, cut = frag[:max(room, 0)], true
		}
		buf = append(buf, frag...)
		if err == bufio.ErrBufferFull {
			continue
		}
		return buf, size, cut, err
	}
}

// grepSkips lists the files over MaxFileBytes that git grep must not read,
// and counts those it would have read (those matching the globs, not
// excluded). Every large file is skipped when the list fits on the command
// line; else only those the globs select, as globs.Compile tells as git would.
func (r *Repo) grepSkips(ctx context.Context, o GrepOptions, large []string) (skip []string, counted int, err error) {
	if o.MaxFileBytes <= 0 || len(large) == 0 {
		return nil, 0, nil
	}
	include, exclude := globs.Compile(globs.TranslateAll(o.Globs), false), globs.Compile(o.Exclude, true)
	var selected []string
	for i, p := range large {
		// A tree can name one large blob under thousands of long
		// paths: each is matched against every glob.
		if i%16 == 15 && ctx.Err() != nil {
			return nil, 0, context.Cause(ctx)
		}
		if exclude != nil && exclude.MatchString(p) {
			continue // never searched anyway
		}
		skip = append(skip, p)
		if (include == nil || include.MatchString(p)) && underAnyPath(p, o.Paths) {
			selected = append(selected, p)
		}
	}
	if !fitsCommandLine(skip) {
		skip = selected
	}
	if !fitsCommandLine(skip) {
		return nil, 0, &TooManyLargeFilesError{Files: len(skip), Max: o.MaxFileBytes}
	}
	return skip, len(selected), nil
}

// underAnyPath: p is one of paths or in one of them; any p when there
// are none.
func underAnyPath(p string, paths []string) bool {
	for _, d := range paths {
		if p == d || strings.HasPrefix(p, d) && (strings.HasSuffix(d, "/") || p[len(d)] == '/') {
			return true
		}
	}
	return len(paths) == 0
}

// pathsBytes is what a list of paths costs in memory: the bytes of the
// paths and each string's header.
func pathsBytes(paths []string) int {
	n := 24 // the slice header
	for _, p := range paths {
		n += len(p) + 16
	}
	return n
}

func fitsCommandLine(paths []string) bool {
	n := 0
	for _, p := range paths {
		n += len(p) + 20
	}
	return len(paths) <= maxSkipped && n <= maxSkipBytes
}

// largeBlobs lists the regular files of commit larger than max bytes, from
// git ls-tree -l (which reads object headers, not contents). The answer
// never changes for a commit: it is kept.
func (r *Repo) largeBlobs(ctx context.Context, commit string, max int64) ([]string, error) {
	key := "large-blobs\x00" + commit + "\x00" + strconv.FormatInt(max, 10)
	if v, ok := r.memo.get(key); ok {
		return v.([]string), nil
	}
	var large []string
	err := r.run.Stream(ctx, gitexec.Command("ls-tree", "-r", "-l", "-z", "--full-tree").Rev(commit), func(stdout io.Reader) error {
		br := bufio.NewReaderSize(stdout, 64<<10)
		var rec []byte
		for {
			var cut bool
			var err error
			rec, cut, err = readField(br, 0, grepPathMax+128, rec)
			if err == io.EOF && len(rec) == 0 {
				return nil
			}
			if err != nil && err != io.EOF {
				return err
			}
			// "MODE TYPE OID SIZE\tPATH", SIZE padded with spaces.
			head, path, ok := strings.Cut(string(rec), "\t")
			f := strings.Fields(head)
			if !ok || len(f) != 4 {
				return fmt.Errorf("git ls-tree: unexpected record %q", rec)
			}
			if f[1] == "blob" && (f[0] == "100644" || f[0] == "100755") {
				if size, err := strconv.ParseInt(f[3], 10, 64); err == nil && size > max {
					if cut {
						return fmt.Errorf("git ls-tree: a path over %d bytes", grepPathMax)
					}
					large = append(large, path)
				}
			}
			if err == io.EOF {
				return nil
			}
		}
	})
	if err != nil {
		return nil, err
	}
	r.memo.put(key, large, len(key)+pathsBytes(large))
	return large, nil
}

// onlyDenials reports whether git's stderr holds nothing but files it was
// not allowed to open: in the work tree, the sandbox refuses what a symlink
// leads to outside the repository, which the server would not show anyway.
// git skips those files and searches the rest.
func onlyDenials(stderr string) bool {
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if line != "" && (!strings.HasPrefix(line, "error: ") || !strings.HasSuffix(line, ": Permission denied")) {
			return false
		}
	}
	return true
}
