package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"
)

// prepare makes the repository of one kind ready (generating it if needed)
// and computes its fixture with plain git.
func prepare(ctx context.Context, g gitRunner, o *options, kind string, logf logFunc) (string, *fixture, repoInfo, error) {
	info := repoInfo{Name: kind}
	var dir string
	switch kind {
	case repoGiven:
		abs, err := filepath.Abs(o.repo)
		if err != nil {
			return "", nil, info, err
		}
		dir = abs
	default:
		gen := genTree
		switch kind {
		case repoHuge:
			gen = genHuge
		case repoPaging:
			gen = genPaging
		}
		start := time.Now()
		var generated bool
		var err error
		dir, generated, err = ensureRepo(g, o.cache, kind, gen, logf)
		if err != nil {
			return "", nil, info, err
		}
		info.Generated = generated
		if generated {
			info.GenSec = time.Since(start).Seconds()
		}
		info.DiskMiB = float64(dirSize(dir)) / (1 << 20)
	}
	info.Path = dir
	if err := ctx.Err(); err != nil {
		return "", nil, info, err
	}
	logf("%s: computing the merge base and the change list with git", kind)
	var fx *fixture
	var err error
	switch kind {
	case repoTree:
		if fx, err = newFixture(g, dir, "main", "change"); err != nil {
			return "", nil, info, err
		}
		var path string
		if path, err = fileNear(g, dir, "main", 20_000); err == nil {
			fx.slice, err = loadSlice(g, dir, "main", path)
		}
		if err == nil {
			fx.blame, err = blameFile(g, dir)
		}
	case repoHuge:
		fx, err = newFixture(g, dir, "base", "main")
	case repoPaging:
		if fx, err = newFixture(g, dir, "main", "feature"); err == nil {
			err = checkPagingShape(fx)
		}
	case repoGiven:
		if fx, err = newFixture(g, dir, o.base, o.head); err != nil {
			return "", nil, info, err
		}
		var path string
		if path, err = largestText(g, fx); err == nil {
			fx.slice, err = loadSlice(g, dir, o.head, path)
		}
	}
	if err != nil {
		return "", nil, info, fmt.Errorf("%s: %w", kind, err)
	}
	logf("%s: merge base %.12s, %d changed files", kind, fx.mergeBase, len(fx.changes))
	return dir, fx, info, nil
}
