package server

import (
	"path"
	"strings"
)

// testDirs are directory names that hold tests by common convention, at
// any depth. "t" is git's own layout (t/t0001-init.sh, t/helper/) and
// Perl's, where every distribution of a tree keeps its own (cpan/Foo/t/x.t),
// so it counts at any depth too; only a directory: a file named t does not.
var testDirs = map[string]bool{"test": true, "tests": true, "__tests__": true, "testdata": true, "spec": true, "specs": true, "t": true}

// isTestPath reports whether a path follows a common test convention:
// _test.go, test/, tests/ and t/ folders, *.test.*, *.spec.*, test_*.py,
// *_test.py, *Test.java, *Tests.cs, *_spec.rb and the like.
func isTestPath(p string) bool {
	dir, base := path.Split(p)
	for _, seg := range strings.Split(strings.ToLower(strings.TrimSuffix(dir, "/")), "/") {
		if testDirs[seg] {
			return true
		}
	}
	lower := strings.ToLower(base)
	ext := path.Ext(lower)
	stem := strings.TrimSuffix(lower, ext)
	switch {
	case strings.HasSuffix(stem, "_test"), strings.HasSuffix(stem, "_spec"), strings.HasSuffix(stem, "_tests"):
		return true
	case strings.HasSuffix(stem, ".test"), strings.HasSuffix(stem, ".spec"), strings.HasSuffix(stem, ".tests"):
		return true
	case ext == ".py" && strings.HasPrefix(stem, "test_"):
		return true
	}
	// CamelCase conventions: FooTest.java, FooTests.cs, FooSpec.scala, TestFoo.java.
	orig := strings.TrimSuffix(base, path.Ext(base))
	return strings.HasSuffix(orig, "Test") || strings.HasSuffix(orig, "Tests") || strings.HasSuffix(orig, "Spec") ||
		(strings.HasPrefix(orig, "Test") && len(orig) > 4 && orig[4] >= 'A' && orig[4] <= 'Z')
}
