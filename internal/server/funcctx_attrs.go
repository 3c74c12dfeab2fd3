package server

import (
	"context"
	"io"
	"path"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitattr"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
)

// A repository's own diff attribute wins over the server's table: git
// 2.39 reads no .gitattributes in a commit (no --attr-source), so the
// server reads them (repo.DiffAttributes, at the commit of each end) and,
// for the files git's heuristic widens whose attribute names another
// driver than the table's, runs git's --function-context again with
// those drivers given by path (gitexec.Cmd.DiffDrivers).

// tableDriver is the driver the server's table gives p, "" for none.
func tableDriver(p string) string {
	base := path.Base(p)
	driver := ""
	for _, e := range gitexec.DiffDriverTable {
		if strings.HasSuffix(base, strings.TrimPrefix(e[0], "*")) {
			driver = e[1] // the last line that matches wins, as in git
		}
	}
	return driver
}

// attrDriver is the driver a diff attribute names: its value, or "" for
// "diff" and "-diff" (no driver: git's default rule; the server shows
// every file's text, as its other diffs do).
func attrDriver(a gitattr.Attr) string {
	if a.State == gitattr.Value {
		return a.Value
	}
	return ""
}

// repositoryDrivers re-widens, by the repository's own drivers, the
// sections git's heuristic widened (heuristic, by index) whose attribute
// at their commit names another driver than the table: it replaces their
// text in sections and says so in by.
func (s *Server) repositoryDrivers(ctx context.Context, r *repo.Repository, opts git.DiffOptions, sections []section, heuristic []int, by map[string]widenedBy) error {
	var news, olds []string
	for _, k := range heuristic {
		if h := sections[k].header; h.IsDeleted {
			olds = append(olds, h.OldPath)
		} else {
			news = append(news, h.NewPath)
		}
	}
	attrsAt := func(commit string, paths []string) (map[string]gitattr.Attr, error) {
		if len(paths) == 0 {
			return nil, nil
		}
		return r.DiffAttributes(ctx, commit, paths, s.cfg.Policy.Denied)
	}
	newAttrs, err := attrsAt(opts.To, news)
	if err != nil {
		return err
	}
	oldAttrs, err := attrsAt(opts.From, olds)
	if err != nil {
		return err
	}
	drivers := map[string]string{}
	changed := map[[2]string]string{} // the sections to widen again, and their attribute
	var paths []string
	for _, k := range heuristic {
		h := sections[k].header
		attrs, p := newAttrs, h.NewPath
		if h.IsDeleted {
			attrs, p = oldAttrs, h.OldPath
		}
		a, ok := attrs[p]
		if !ok || attrDriver(a) == tableDriver(p) {
			continue
		}
		d := attrDriver(a)
		if d != "" && !gitexec.DriverName(d) {
			continue // not a name git's attribute lines could hold
		}
		drivers[h.OldPath], drivers[h.NewPath] = d, d
		changed[[2]string{h.OldPath, h.NewPath}] = attrText(a)
		paths = append(paths, h.OldPath)
		if h.NewPath != h.OldPath {
			paths = append(paths, h.NewPath)
		}
	}
	if len(changed) == 0 {
		return nil
	}
	again := opts
	again.Paths = paths
	if len(paths) > maxWholePaths {
		again.Paths = opts.Paths
	}
	redone := map[[2]string][]byte{}
	err = r.Git.FunctionContextPatch(ctx, again, drivers, func(rd io.Reader) error {
		return eachSection(rd, maxWidenedPatch, func(sec []byte) error {
			h, err := diff.ParseHeader(headerLines(sec))
			key := [2]string{h.OldPath, h.NewPath}
			if _, ok := changed[key]; err == nil && ok {
				redone[key] = append([]byte(nil), sec...)
			}
			return ctx.Err()
		})
	})
	if err != nil {
		return paging.GoneCommit(r, true, err)
	}
	for _, k := range heuristic {
		h := sections[k].header
		key := [2]string{h.OldPath, h.NewPath}
		if sec, ok := redone[key]; ok {
			sections[k].text = sec
			name := paging.SectionName(h)
			b := by[name]
			b.why += "; with the repository's " + changed[key]
			by[name] = b
		}
	}
	return nil
}

// attrText is a diff attribute as a .gitattributes line writes it.
func attrText(a gitattr.Attr) string {
	switch a.State {
	case gitattr.Value:
		return "diff=" + a.Value
	case gitattr.Unset:
		return "-diff"
	}
	return "diff"
}
