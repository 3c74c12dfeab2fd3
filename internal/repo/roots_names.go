package repo

// Names of the repositories of several roots: each is named after its
// origin remote, but a name is never taken from another root. First come,
// first served let any checkout listed first (a vendored copy whose config
// claims github.com/acme/widgets) take acme/widgets from the real clone
// (docs/security.md, review 4, finding 12).

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// rootRepo is a repository found from one of the client's roots.
type rootRepo struct {
	root string
	r    *Repository
}

// clash is one root's name that another root claimed too.
type clash struct {
	name   string   // the name none of them gets
	others []string // the other roots that claimed it
}

// nameRoots gives each repository a name that depends on it alone, never
// on the other roots or their order: a name claimed by several (remotes
// that agree, or a remote that claims another's local/DIR) goes to none of
// them. Each is named after its directory instead (local/DIR), and if
// that clashes too, after its directory and a hash of its git directory's
// path. It returns the repositories served, a note for each renamed one,
// and, refused, any whose name still clashes (only a name made to).
func nameRoots(found []rootRepo) ([]*Repository, []string, []RootRefused) {
	first := map[int]clash{}
	renames := []func(*Repository) string{
		func(r *Repository) string { return sanitizeName(r.dirName()) },
		func(r *Repository) string { return sanitizeName(r.dirName() + "-" + pathHash(r.Git.GitDir())) },
	}
	for _, rename := range renames {
		groups := clashing(found)
		if len(groups) == 0 {
			break
		}
		for _, g := range groups {
			for _, i := range g {
				if _, ok := first[i]; !ok {
					first[i] = clash{name: found[i].r.FullName(), others: otherRoots(found, g, i)}
				}
			}
			for _, i := range g {
				found[i].r.Owner, found[i].r.Name = "local", rename(found[i].r)
			}
		}
	}
	refusedAt := map[int]bool{}
	var refused []RootRefused
	for _, g := range clashing(found) {
		for _, i := range g {
			refusedAt[i] = true
			why := fmt.Sprintf("not served: its name %s, and every other it could be given, is claimed by another root too (%s)", found[i].r.FullName(), strings.Join(otherRoots(found, g, i), ", "))
			refused = append(refused, RootRefused{Root: found[i].root, Why: why, Detail: why})
			found[i].r.Git.Close()
		}
	}
	var kept []*Repository
	for i, f := range found {
		if !refusedAt[i] {
			kept = append(kept, f.r)
		}
	}
	return kept, renameNotes(found, first, refusedAt), refused
}

// renameNotes says, for each name that several roots claimed, which roots
// claimed it and what each is served as instead.
func renameNotes(found []rootRepo, first map[int]clash, refusedAt map[int]bool) []string {
	type group struct {
		name     string
		claimers []string
		servedAs []string
	}
	groups := map[string]*group{}
	for i, f := range found {
		c, ok := first[i]
		if !ok {
			continue
		}
		k := strings.ToLower(c.name)
		if groups[k] == nil {
			groups[k] = &group{name: c.name}
		}
		g := groups[k]
		for _, r := range append([]string{f.root}, c.others...) {
			if !slices.Contains(g.claimers, r) {
				g.claimers = append(g.claimers, r)
			}
		}
		if !refusedAt[i] {
			g.servedAs = append(g.servedAs, f.root+" is served as "+f.r.FullName())
		}
	}
	var notes []string
	for _, g := range groups {
		sort.Strings(g.claimers)
		sort.Strings(g.servedAs)
		notes = append(notes, fmt.Sprintf("%s is claimed by %d roots (%s), and a name that several roots claim is given to none of them: %s",
			g.name, len(g.claimers), strings.Join(g.claimers, ", "), strings.Join(g.servedAs, "; ")))
	}
	sort.Strings(notes)
	return notes
}

// clashing groups the repositories whose names are one, ignoring case (as
// Get matches names), in the order of the roots.
func clashing(found []rootRepo) [][]int {
	by := map[string][]int{}
	var order []string
	for i, f := range found {
		k := strings.ToLower(f.r.FullName())
		if by[k] == nil {
			order = append(order, k)
		}
		by[k] = append(by[k], i)
	}
	var out [][]int
	for _, k := range order {
		if len(by[k]) > 1 {
			out = append(out, by[k])
		}
	}
	return out
}

// otherRoots are the roots of group g but i's.
func otherRoots(found []rootRepo, g []int, i int) []string {
	var out []string
	for _, j := range g {
		if j != i {
			out = append(out, found[j].root)
		}
	}
	return out
}

// pathHash is a short hash of a path, for a name no other directory gets.
func pathHash(p string) string {
	sum := sha256.Sum256([]byte(p))
	return hex.EncodeToString(sum[:4])
}
