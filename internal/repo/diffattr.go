package repo

import (
	"context"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitattr"
)

// DiffAttributes are the diff attributes commit's own .gitattributes give
// paths (clean, relative), read from the commit's tree as GeneratedRules
// reads them, never the work tree: each path the files say anything of
// ("diff", "-diff", "diff=NAME"), mapped to what they say. A path past
// the matching's bounds is left out, as if they said nothing of it.
func (r *Repository) DiffAttributes(ctx context.Context, commit string, paths []string, hidden func(string) bool) (map[string]gitattr.Attr, error) {
	g := &Generated{flags: map[string]bool{}, files: map[string]*gitattr.File{}}
	if err := g.read(ctx, r, commit, paths, hidden); err != nil {
		return nil, err
	}
	out := map[string]gitattr.Attr{}
	if len(g.files) == 0 {
		return out, nil
	}
	m := gitattr.Matcher{Budget: maxAttrWork}
	for _, p := range paths {
		if err := context.Cause(ctx); err != nil {
			return nil, err
		}
		a, ok := m.Check(g.stack(p), p, "diff")
		if !ok {
			break
		}
		if a[0].State != gitattr.Unspecified {
			out[p] = a[0]
		}
	}
	return out, nil
}
