package diff

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var updateSamples = flag.Bool("update", false, "regenerate testdata/*.diff from the git fixture")

// samples are real git outputs of the fixture, stored so the fuzz seed
// corpus does not need git.
var samples = []struct {
	file      string
	quotePath bool
	args      []string
}{
	{"git-diff-quoted.diff", true, []string{"diff", "-M", "-C", "--find-copies-harder"}},
	{"git-diff-binary.diff", true, []string{"diff", "--binary", "-M", "-C", "--find-copies-harder"}},
	{"git-show-unquoted.diff", false, []string{"show", "-M", "-C", "--find-copies-harder"}},
	{"git-format-patch.diff", true, []string{"format-patch", "--stdout", "-M"}},
}

func TestUpdateSamples(t *testing.T) {
	if !*updateSamples {
		t.Skip("run with -update to regenerate")
	}
	for _, s := range samples {
		g, c1, c2, _ := fixture(t, s.quotePath)
		var rev []string
		switch s.args[0] {
		case "diff":
			rev = []string{c1, c2}
		case "show":
			rev = []string{c2}
		default:
			rev = []string{c1 + ".." + c2}
		}
		out := g.git(append(append([]string{}, s.args...), rev...)...)
		if err := os.WriteFile(filepath.Join("testdata", s.file), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readSamples returns the stored git outputs.
func readSamples(tb testing.TB) [][]byte {
	tb.Helper()
	var out [][]byte
	for _, s := range samples {
		b, err := os.ReadFile(filepath.Join("testdata", s.file))
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}
