package server

import "testing"

func TestCheckRegex(t *testing.T) {
	for q, ok := range map[string]bool{
		"^func (main|Needle)\\(":         true,
		"a{2,5}":                         true,
		"[a-z]{1,255}":                   true,
		"(ab){10}(cd){10}":               true,
		"(a{10}){10}":                    true,
		"x{3,}":                          true,
		"\\{1,99999\\}":                  true, // escaped braces are literal
		"[{]1,99999}":                    true,
		"a{":                             true,
		"a{1,32767}":                     false,
		"((a{1,100}){1,100}){1,100}":     false,
		"(a{40}){40}":                    false,
		"a{256}":                         false,
		"b{99999999999}":                 false,
		"((x{20}y){20}z){3}":             false,
		"(a{1000}|b)":                    false,
		"(?:a{10}){10}":                  true,
		"[[:alpha:]]{5}([[:digit:]]{3})": true,
	} {
		if err := checkRegex(q); (err == nil) != ok {
			t.Errorf("checkRegex(%q) = %v, want ok=%v", q, err, ok)
		}
	}
}
