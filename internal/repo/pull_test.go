package repo

import "testing"

// Only a remote whose host names GitLab gets the merge-requests fetch
// command; a path or a user name that says gitlab does not.
func TestLooksGitLab(t *testing.T) {
	for url, want := range map[string]bool{
		"https://gitlab.com/group/sub/project.git":  true,
		"git@gitlab.example.org:acme/widgets.git":   true,
		"ssh://git@gitlab.internal:2222/acme/w.git": true,
		"https://user:pw@GitLab.com/acme/w":         true,
		"https://github.com/acme/widgets.git":       false,
		"git@github.com:gitlab/widgets.git":         false,
		"https://gitlab@codeberg.org/acme/w.git":    false,
		"/srv/gitlab/widgets.git":                   false,
		"../gitlab-mirror":                          false,
		"file:///srv/gitlab/widgets.git":            false,
	} {
		if got := looksGitLab(url); got != want {
			t.Errorf("looksGitLab(%q) = %v, want %v", url, got, want)
		}
	}
}
