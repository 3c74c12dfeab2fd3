package server

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/argcheck"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/globs"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// maxCountedDirs bounds the directories whose entries one page counts (a
// tree read through the cat-file reader each); the page's others are
// listed without a count.
const maxCountedDirs = 100

type listFilesIn struct {
	Owner     string   `json:"owner,omitempty"`
	Repo      string   `json:"repo,omitempty"`
	Path      string   `json:"path,omitempty" jsonschema:"directory; omit for the root"`
	Ref       string   `json:"ref,omitempty" jsonschema:"commit, branch, tag or refs/pull/N/head; omit for HEAD"`
	Recursive bool     `json:"recursive,omitempty"`
	PathGlobs []string `json:"pathGlobs,omitempty" jsonschema:"gitignore-style globs (*.c at any depth, src/**/*.go)"`
	Offset    int      `json:"offset,omitempty"`
	Limit     int      `json:"limit,omitempty"`
	Cursor    string   `json:"cursor,omitempty" jsonschema:"from a reply's next call"`
	paging.ReplyLimit
}

type fileEntry struct {
	Path    string  `json:"path" jsonschema:"from the repository root"`
	Type    string  `json:"type" jsonschema:"file, dir, symlink or submodule"`
	Size    *int64  `json:"size,omitempty" jsonschema:"a file's size in bytes"`
	Entries *int    `json:"entries,omitempty" jsonschema:"a directory's entries (secrets not counted); absent when not counted"`
	Commit  *string `json:"commit,omitempty" jsonschema:"the commit a submodule is at"`
}

type listFilesOut struct {
	Ref        string      `json:"ref" jsonschema:"the commit listed, a full SHA"`
	Path       string      `json:"path" jsonschema:"the directory listed (\"\" for the root)"`
	Recursive  bool        `json:"recursive"`
	Entries    []fileEntry `json:"entries"`
	Total      *int        `json:"total" jsonschema:"entries in the whole listing; null when the listing stopped after this page, with more to come"`
	NextOffset *int        `json:"nextOffset" jsonschema:"offset of the next page, null at the end"`
	paging.Paged
}

// listFilesTool is list_files's definition (registry.go).
var listFilesTool = defineTool(toolSpec{
	Name:  "list_files",
	Title: "List files",
	Description: "List a directory's entries at a ref (path, type, size); recursive or pathGlobs list all below. " +
		"Use it to find files by name; search_code finds text, read_file reads a file.",
	Tune: func(in *jsonschema.Schema) {
		argcheck.Prop(in, "pathGlobs").MaxItems = ptr(maxGlobs)
		argcheck.SetInt(in, "offset", 0, 0, 1<<31-1)
		argcheck.SetInt(in, "limit", 200, 1, 2000)
	},
}, (*Server).listFiles)

func (s *Server) listFiles(ctx context.Context, in listFilesIn) (reply[listFilesOut], error) {
	const tool = "list_files"
	dir, err := s.cfg.Policy.Check(in.Path)
	if err != nil {
		return reply[listFilesOut]{}, err
	}
	if err := repo.CheckGlobs(in.PathGlobs); err != nil {
		return reply[listFilesOut]{}, err
	}
	r, err := s.served.Get(ctx, in.Owner, in.Repo, false)
	if err != nil {
		return reply[listFilesOut]{}, err
	}
	digest := paging.ArgsDigest(in, "cursor", "offset")
	var commit string
	if in.Cursor != "" {
		cur, err := s.cursors.Decode(tool, in.Cursor, digest)
		if err != nil {
			return reply[listFilesOut]{}, err
		}
		pins, err := paging.CheckPins(ctx, r, &cur, 1)
		if err != nil {
			return reply[listFilesOut]{}, err
		}
		commit = pins[0]
	} else if commit, err = r.ResolveCommit(ctx, in.Ref); err != nil {
		return reply[listFilesOut]{}, err
	}

	recursive := in.Recursive || len(in.PathGlobs) > 0
	selects := globs.Filter(in.PathGlobs)
	end := in.Offset + in.Limit // entries before end are read; one more tells that more follow
	var kept []git.TreeEntry
	seen, more := 0, false
	err = r.Git.ListTree(ctx, commit, dir, recursive, func(e git.TreeEntry) error {
		if s.cfg.Policy.Denied(e.Path) || (selects != nil && !selects(e.Path)) {
			return nil
		}
		if seen >= end && recursive {
			// A recursive listing stops after its page: never the whole tree.
			more = true
			return git.ErrStop
		}
		if seen >= in.Offset && seen < end {
			kept = append(kept, e)
		}
		seen++
		return nil
	})
	if err != nil && in.Cursor != "" && pinGone(err) {
		return reply[listFilesOut]{}, errcode.New(errcode.NotFound, "commit %s, which this cursor was made for, is no longer in %s; leave cursor out to start again from the first page", git.Short(commit), r.FullName())
	}
	if err != nil {
		return reply[listFilesOut]{}, s.listTreeError(ctx, r, commit, in.Ref, dir, err)
	}
	var total *int
	if !more {
		total = ptr(seen)
	}

	entries := make([]fileEntry, len(kept))
	counted := 0
	for i, e := range kept {
		f := fileEntry{Path: e.Path, Type: e.Kind()}
		switch f.Type {
		case git.KindFile:
			f.Size = ptr(e.Size)
		case git.KindSubmodule:
			f.Commit = ptr(e.OID)
		case git.KindDir:
			if counted < maxCountedDirs {
				counted++
				n, err := s.countEntries(ctx, r, e)
				if err != nil {
					return reply[listFilesOut]{}, err
				}
				f.Entries = &n
			}
		}
		entries[i] = f
	}

	headNote := ""
	if !r.Bare() {
		headNote = "not the work tree"
	}
	from := in.Offset
	render := func(n int) reply[listFilesOut] {
		out := listFilesOut{Ref: commit, Path: dir, Recursive: recursive, Entries: entries[:n], Total: total}
		hasNext := more || (total != nil && from+n < *total)
		if hasNext {
			out.NextOffset = ptr(from + n)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s at %s: %s", r.FullName(), atCommit(commit, in.Ref, headNote), dirLabel(dir))
		if recursive {
			b.WriteString(", recursively")
		}
		if len(in.PathGlobs) > 0 {
			b.WriteString(", pathGlobs " + strings.Join(text.Names(in.PathGlobs), " "))
		}
		b.WriteString(" — ")
		switch {
		case total == nil:
			fmt.Fprintf(&b, "%s %d–%d shown; more follow", text.Plural("entry"), from+1, from+n)
		case n == *total:
			b.WriteString(text.Count(*total, "entry"))
		default:
			fmt.Fprintf(&b, "%s; %s", text.Count(*total, "entry"), paging.Shown(from, n, *total, "entry", "list_files", in))
		}
		b.WriteString("\n")
		for _, f := range out.Entries {
			b.WriteString(f.line())
		}
		if uncounted := countUncounted(out.Entries); uncounted > 0 {
			fmt.Fprintf(&b, "[not counted: %s on this page (at most %d per page): list them to see their entries]\n", text.Count(uncounted, "directory"), maxCountedDirs)
		}
		if total != nil && *total == 0 && len(in.PathGlobs) > 0 {
			b.WriteString(`[pathGlobs matched no path under ` + dirLabel(dir) + `: a pattern without "/" matches a name at any depth (*.c), one with "/" is anchored at the repository root (src/*.go, /Makefile), ** crosses directories (src/**/*_test.go), a trailing "/" selects a directory (docs/)]` + "\n")
		}
		rep := reply[listFilesOut]{Text: b.String(), Out: out}
		if hasNext {
			next := in
			next.Offset = from + n
			next.Cursor = s.cursors.Encode(paging.Cursor{Tool: tool, Args: digest, Commits: []string{commit}}, r.FullName())
			rep.Next = paging.Continue(tool, next)
		}
		return rep
	}
	rep := paging.FitList(s.budget(ctx), len(entries), render)
	if len(rep.Out.Entries) == 0 && len(entries) > 0 {
		return reply[listFilesOut]{}, errcode.New(errcode.TooLarge, "the entry at offset %d (a path of %d bytes) does not fit in one reply (%d bytes)", from, len(entries[0].Path), s.budget(ctx).MaxBytes)
	}
	return rep, nil
}

// line is an entry as the text shows it.
func (f fileEntry) line() string {
	p := text.Name(f.Path)
	switch f.Type {
	case git.KindDir:
		if f.Entries != nil {
			return fmt.Sprintf("dir   %s/ (%s)\n", p, text.Count(*f.Entries, "entry"))
		}
		return fmt.Sprintf("dir   %s/\n", p)
	case git.KindSymlink:
		return fmt.Sprintf("link  %s\n", p)
	case git.KindSubmodule:
		return fmt.Sprintf("submodule %s (commit %s)\n", p, git.Short(*f.Commit))
	}
	return fmt.Sprintf("file  %s %s\n", p, byteCount(*f.Size))
}

func countUncounted(entries []fileEntry) int {
	n := 0
	for _, f := range entries {
		if f.Type == git.KindDir && f.Entries == nil {
			n++
		}
	}
	return n
}

// countEntries counts a directory's entries that the policy does not hide,
// from its tree object (read through the cat-file reader, no process).
func (s *Server) countEntries(ctx context.Context, r *repo.Repository, e git.TreeEntry) (int, error) {
	children, err := r.Git.ReadTree(ctx, e.OID)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range children {
		if !s.cfg.Policy.Denied(e.Path + "/" + c.Name) {
			n++
		}
	}
	return n, nil
}

// listTreeError says why a directory could not be listed: it does not
// exist, or it is a file, a symlink or a submodule.
func (s *Server) listTreeError(ctx context.Context, r *repo.Repository, commit, refName, dir string, err error) error {
	switch {
	case errors.Is(err, git.ErrMissing):
		return errcode.New(errcode.NotFound, "%q does not exist at %s in %s", dir, repo.DescribeRef(refName, commit), r.FullName())
	case errors.Is(err, git.ErrNotDir):
		e, lerr := r.Git.Lookup(ctx, commit, dir)
		if lerr != nil {
			return lerr
		}
		switch e.Kind() {
		case git.KindSubmodule:
			return errcode.New(errcode.InvalidArgument, "%q is a submodule (commit %s), not a directory of this repository: its files are not listed here", dir, e.OID)
		case git.KindSymlink:
			return errcode.New(errcode.InvalidArgument, "%q is a symlink, not a directory: read_file shows its target", dir)
		}
		return errcode.New(errcode.InvalidArgument, "%q is a file, not a directory: read it with read_file, or list its directory", dir)
	}
	return err
}

// pinGone tells, for a listing under a cursor, that its commit was pruned
// since the first page (which listed the same directory at the same
// commit): the object reader finds the commit or the directory no more, or
// a long-lived reader that still had the commit led to a tree git ls-tree
// no longer finds.
func pinGone(err error) bool {
	var exit *gitexec.ExitError
	if errors.As(err, &exit) {
		msg := strings.TrimSpace(exit.Stderr)
		return strings.HasPrefix(msg, "fatal: not a tree object") || strings.HasPrefix(msg, "fatal: bad object")
	}
	return errors.Is(err, git.ErrMissing)
}

func dirLabel(dir string) string {
	if dir == "" {
		return "/"
	}
	return text.Name(dir) + "/"
}

// byteCount is "1 byte", "1,234 bytes".
func byteCount(n int64) string {
	if n == 1 {
		return "1 byte"
	}
	return grouped(n) + " bytes"
}

// grouped writes n with a comma between groups of three digits.
func grouped(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
