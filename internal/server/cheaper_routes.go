package server

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// A long drain with no way out: a 948 KB translation file took 94–143
// calls where contextLines 0 took 66, and nothing said so. The first part
// of a whole pull request diff of more than manyParts parts says what
// costs less, counted: the diff without context, the directories that
// hold its patch (paths reads one), and the share of generated, vendored
// and translation files.

// manyParts is the count of parts past which the first part names the
// cheaper routes.
const manyParts = 20

// routesKey carries, into a count of parts (partcount.go), the routes note
// the first part it counts holds, so that it is cut as the agent's is.
type routesKey struct{}

// firstPartRoutes is the routes note of the first part of in's diff, of
// size bytes of patch in files files, whose count is keyed key: one made
// when the whole diff (no file_path, paths or contextLines 0) takes more
// than manyParts parts by its estimate and is counted (maxCountedFiles), kept by key and budget as counts are.
func (s *Server) firstPartRoutes(ctx context.Context, in getPullRequestDiffIn, commits []string, files int, size int64, key string) string {
	if in.FilePath != "" || len(in.Paths) > 0 || in.ContextLines == 0 || in.FunctionContext || guessParts(s.budget(ctx), size) <= manyParts || files > maxCountedFiles {
		return ""
	}
	key = fmt.Sprintf("%s\x00%+v", key, s.budget(ctx))
	if routes, ok := s.routes.get(key); ok {
		return routes
	}
	// Within half of what a count may take: what is not known by then is
	// left out of the note.
	routesCtx, cancel := context.WithTimeout(ctx, countWait(ctx)/2)
	defer cancel()
	routes := s.cheaperRoutes(routesCtx, in, commits, files, size)
	s.routes.put(key, routes)
	return routes
}

// cheaperRoutes is the note that names them. It reads the pull request's
// changes from git (a forge's through its mirror); what cannot be known
// in time is left out.
func (s *Server) cheaperRoutes(ctx context.Context, in getPullRequestDiffIn, commits []string, files int, size int64) string {
	var routes []string
	bare := in
	bare.ContextLines = 0
	if n, _ := s.pullDiffParts(ctx, bare, commits, files, size/2, func(ctx context.Context, cursor string) (*paging.Call, error) {
		more := bare
		more.Cursor = cursor
		r, err := s.backend.pullRequestDiff(ctx, more, "")
		return r.Next, err
	}); n > 0 && n < guessParts(s.budget(ctx), size)*9/10 {
		// Only when it is cheaper: a change of every third line takes
		// more parts without context, a hunk header for each.
		routes = append(routes, fmt.Sprintf("contextLines 0 takes %s", text.Count(n, "part")))
	}
	if shares := s.patchShares(ctx, in); shares != "" {
		routes = append(routes, shares)
	}
	if len(routes) == 0 {
		return ""
	}
	return "[note: ways to read less of this diff: " + strings.Join(routes, "; ") + "]\n"
}

// patchShares says where the pull request's patch is: its largest
// directories (paths reads one) and its generated, vendored and
// translation files, each with its share of the patch's bytes. It reads
// the changes as they come, a batch at a time: memory follows the
// directories it names, not the pull request's size.
func (s *Server) patchShares(ctx context.Context, in getPullRequestDiffIn) string {
	r, pr, opts, err := s.pullRequest(ctx, in.Owner, in.Repo, in.Index, nil)
	if err != nil {
		return ""
	}
	var sh shares
	var batch []string
	var sizes []int64
	flush := func() {
		generated := s.generated(ctx, r, pr.Head, batch)
		for i, p := range batch {
			sh.add(p, sizes[i], generated(p))
		}
		batch, sizes = batch[:0], sizes[:0]
	}
	if _, err := s.diffs.PatchSizes(ctx, paging.Request{Repo: r, Opts: opts, Hide: s.hiddenSection}, 0, -1, func(_ int, c git.Change, bytes int64) error {
		if batch, sizes = append(batch, c.Path), append(sizes, bytes); len(batch) == sharesBatch {
			flush()
		}
		return nil
	}); err != nil {
		return ""
	}
	flush()
	return sh.String()
}

// sharesBatch is how many changes patchShares asks the attributes of at
// once; maxShareDirs how many directories it tells apart (the rest are
// not named).
const (
	sharesBatch  = 1000
	maxShareDirs = 1000
)

// shares adds up a patch's bytes by directory, below the directory all its
// files are under, and by kind of file.
type shares struct {
	total, generated, translation int64
	common                        string // the directory every file so far is under ("" at first: none yet)
	started                       bool
	byDir                         map[string]int64
}

func (sh *shares) add(p string, bytes int64, generated bool) {
	sh.total += bytes
	switch {
	case generated:
		sh.generated += bytes
	case isTranslation(p):
		sh.translation += bytes
	}
	if !sh.started {
		sh.started, sh.common, sh.byDir = true, commonDir([]string{p}), map[string]int64{}
	}
	if c := commonDir([]string{sh.common + "x", p}); c != sh.common {
		// A file outside the common directory: the directories are
		// named from a shallower one.
		old := sh.byDir
		sh.common, sh.byDir = c, map[string]int64{}
		for d, n := range old {
			sh.byDir[c+topDir(d[len(c):])] += n
		}
	}
	d := sh.common + topDir(p[len(sh.common):])
	if _, ok := sh.byDir[d]; ok || len(sh.byDir) < maxShareDirs {
		sh.byDir[d] += bytes
	}
}

func (sh *shares) String() string {
	if sh.total == 0 {
		return ""
	}
	pct := func(n int64) int64 { return (100*n + sh.total/2) / sh.total }
	var parts []string
	if len(sh.byDir) > 1 {
		dirs := slices.SortedFunc(maps.Keys(sh.byDir), func(a, b string) int {
			return cmp.Or(cmp.Compare(sh.byDir[b], sh.byDir[a]), cmp.Compare(a, b))
		})
		var top []string
		for _, d := range dirs[:min(len(dirs), 4)] {
			top = append(top, fmt.Sprintf("%s %d%%", text.Name(d), pct(sh.byDir[d])))
		}
		parts = append(parts, "by directory (paths reads one): "+strings.Join(top, ", "))
	}
	if sh.generated > 0 {
		parts = append(parts, fmt.Sprintf("generated or vendored files hold %d%% of the patch", pct(sh.generated)))
	}
	if sh.translation > 0 {
		parts = append(parts, fmt.Sprintf("translation files %d%%", pct(sh.translation)))
	}
	if sh.generated+sh.translation > 0 {
		parts = append(parts, "list_pull_request_files marks them")
	}
	return strings.Join(parts, "; ")
}

// commonDir is the directory every one of paths is under, with its slash
// ("web/ui/"), or "": the directories that hold a patch are named below it.
func commonDir(paths []string) string {
	common := path.Dir(paths[0]) + "/"
	for _, p := range paths[1:] {
		for common != "./" && !strings.HasPrefix(p, common) {
			common = path.Dir(strings.TrimSuffix(common, "/")) + "/"
		}
	}
	if common == "./" {
		return ""
	}
	return common
}

// topDir is a path's first directory, with its slash ("src/"), or the
// path itself for a file at the root.
func topDir(p string) string {
	if i := strings.IndexByte(p, '/'); i >= 0 {
		return p[:i+1]
	}
	return p
}

// isTranslation: p is, by its name, a file of translated messages
// (gettext, XLIFF, Apple, .NET, Flutter; any under a locale, i18n,
// translations or l10n directory: Qt's, Android's, Rails', i18next's).
func isTranslation(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".po", ".pot", ".xlf", ".xliff", ".strings", ".resx", ".arb":
		return true
	}
	lower := "/" + strings.ToLower(p)
	for _, dir := range []string{"/locale/", "/locales/", "/i18n/", "/translations/", "/l10n/"} {
		if strings.Contains(lower, dir) {
			return true
		}
	}
	return false
}
