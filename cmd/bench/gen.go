package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// genVersions key the cache, one per repository: change a repository's
// entry whenever its generator's output changes, so a stale repository is
// never measured and the others are not generated again.
var genVersions = map[string]string{
	repoTree:   "gen3-history", // the history branch (issue 14)
	repoPaging: "gen3-commits", // pull request #2 (issue 23)
	repoHuge:   "gen2",
}

func genVersion(name string) string {
	if v, ok := genVersions[name]; ok {
		return v
	}
	return "gen2"
}

// doneMarker is written into a generated repository last; a directory
// without it is an interrupted generation and is rebuilt.
const doneMarker = "bench-generated"

// generator writes one repository's content into a fresh bare repository.
type generator func(g gitRunner, gitDir string, logf logFunc) error

// ensureRepo returns the cached bare repository name.git, generating it
// first if it is missing or incomplete (generated is then true). Generation happens in a temporary
// directory renamed into place, so a crash never leaves a half repository
// that looks complete.
func ensureRepo(g gitRunner, cacheDir, name string, gen generator, logf logFunc) (dir string, generated bool, err error) {
	dir = filepath.Join(cacheDir, genVersion(name), name+".git")
	if _, err := os.Stat(filepath.Join(dir, doneMarker)); err == nil {
		logf("using cached %s repository %s", name, dir)
		return dir, false, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", false, err
	}
	if err := os.RemoveAll(dir); err != nil { // an incomplete one
		return "", false, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), name+".tmp-")
	if err != nil {
		return "", false, err
	}
	defer os.RemoveAll(tmp)
	start := time.Now()
	logf("generating %s repository in %s", name, dir)
	if _, err := g.output(tmp, "init", "--quiet", "--bare", "-b", "main"); err != nil {
		return "", false, err
	}
	if err := gen(g, tmp, logf); err != nil {
		return "", false, fmt.Errorf("generating %s: %w", name, err)
	}
	if err := os.WriteFile(filepath.Join(tmp, doneMarker), []byte(genVersion(name)+"\n"), 0o644); err != nil {
		return "", false, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		// Another run may have finished the same repository first.
		if _, serr := os.Stat(filepath.Join(dir, doneMarker)); serr == nil {
			return dir, false, nil
		}
		return "", false, err
	}
	logf("generated %s repository in %s (%s on disk)", name, time.Since(start).Round(time.Second), humanBytes(dirSize(dir)))
	return dir, true, nil
}

// dirSize sums the sizes of the files under dir.
func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error { // what cannot be read is not counted
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	default:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
}
