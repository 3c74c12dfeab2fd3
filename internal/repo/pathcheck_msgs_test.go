package repo

import (
	"strings"
	"testing"
)

// TestGlobRefusalsSayWhatWasGiven: review 3, section D. pathGlobs "/../*"
// was refused as `path "../*" contains a ".." segment` (another string, and
// not a path), and a leading "!" was taken as a name, matching nothing,
// though globs read as .gitignore lines, where "!" negates.
func TestGlobRefusalsSayWhatWasGiven(t *testing.T) {
	for glob, want := range map[string]string{
		"/../*":    `pathGlobs[0] "/../*": contains a ".." segment; a glob matches paths inside the repository`,
		"src/../x": `pathGlobs[0] "src/../x": contains a ".." segment`,
		"!x":       `pathGlobs[0] "!x" starts with "!", which in a .gitignore line negates the pattern`,
	} {
		err := CheckGlobs([]string{glob})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v; want %q", glob, err, want)
		}
	}
	if err := CheckGlobs([]string{`\!x`, "x!"}); err != nil {
		t.Errorf("an escaped or inner \"!\": %v", err)
	}
}
