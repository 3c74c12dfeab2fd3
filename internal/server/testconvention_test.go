package server

import "testing"

// TestIsTestPathT: git's and Perl's t/ directories hold tests, at the top
// and deeper (Perl keeps one per distribution); a file or a longer name
// that merely holds a t is not one.
func TestIsTestPathT(t *testing.T) {
	for p, want := range map[string]bool{
		"t/t0001-init.sh": true, "t/helper/test-tool.c": true, "t/lib-git-daemon.sh": true, "t/basic.t": true,
		"t/perf/p0000-perf-lib-sanity.sh": true, "cpan/Test-Simple/t/Legacy/More.t": true, "dist/Data-Dumper/t/dumper.t": true,
		"t": false, "src/t": false, "t.c": false, "tt/x.c": false, "art/x.c": false, "t0001-init.sh": false, "lib/t.pm": false,
	} {
		if got := isTestPath(p); got != want {
			t.Errorf("isTestPath(%q) = %v, want %v", p, got, want)
		}
	}
}
