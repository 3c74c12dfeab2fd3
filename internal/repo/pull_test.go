package repo

import "testing"

// The fetch command is told by the remote's host alone: a path or a user
// name that says gitlab is no GitLab host, and a path has no host.
func TestRemoteHost(t *testing.T) {
	for url, want := range map[string]string{
		"https://gitlab.com/group/sub/project.git":  "gitlab.com",
		"git@gitlab.example.org:acme/widgets.git":   "gitlab.example.org",
		"ssh://git@gitlab.internal:2222/acme/w.git": "gitlab.internal",
		"https://user:pw@GitLab.com/acme/w":         "gitlab.com",
		"https://github.com/acme/widgets.git":       "github.com",
		"git@github.com:gitlab/widgets.git":         "github.com",
		"https://gitlab@codeberg.org/acme/w.git":    "codeberg.org",
		"/srv/gitlab/widgets.git":                   "",
		"../gitlab-mirror":                          "",
		"file:///srv/gitlab/widgets.git":            "",
	} {
		if got := remoteHost(url); got != want {
			t.Errorf("remoteHost(%q) = %q, want %q", url, got, want)
		}
	}
}
