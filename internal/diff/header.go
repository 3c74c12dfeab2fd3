package diff

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Values of Header.Status.
const (
	StatusAdded       = "added"
	StatusModified    = "modified"
	StatusDeleted     = "deleted"
	StatusRenamed     = "renamed"
	StatusCopied      = "copied"
	StatusTypeChanged = "type_changed"
)

// Header is the parsed header of one file's section.
type Header struct {
	// OldPath and NewPath are unquoted and carry no a/ b/ prefix. They are
	// equal unless the file was renamed or copied; for an added file both
	// hold the new name, for a deleted file both hold the old name.
	OldPath, NewPath string
	// Status is one of the Status* constants. Git itself prints a change of
	// file type (say regular file to symlink) as a deletion followed by an
	// addition of the same path, i.e. two sections; StatusTypeChanged is only
	// reported for an "old mode"/"new mode" pair whose file-type bits differ,
	// as other diff producers may print.
	Status    string
	IsNew     bool // "new file mode"
	IsDeleted bool // "deleted file mode"
	// IsBinary is set by "Binary files ... differ" or "GIT binary patch".
	IsBinary bool
	// OldMode and NewMode are as printed by "old mode"/"new mode",
	// "deleted file mode"/"new file mode", or else by the mode at the end of
	// an "index" line (which git prints when the mode did not change);
	// "" when absent.
	OldMode, NewMode string
	// Similarity is N from "similarity index N%", 0 if absent.
	Similarity int
}

// Matches reports whether path is exactly the old or the new path, so a
// renamed or copied file is found by either name.
func (h Header) Matches(path string) bool {
	return path != "" && (path == h.OldPath || path == h.NewPath)
}

// pathPair is one header line's idea of the two paths; "" means unknown.
type pathPair struct{ oldP, newP string }

// ParseHeader parses a file header: the "diff --git " line and the lines
// after it up to, but not including, the first "@@ " hunk line. A trailing
// "Binary files ... differ" or "GIT binary patch" line may be included (it
// sets IsBinary); unknown lines are ignored. Lines may keep their "\n" or
// "\r\n". On error the returned Header holds whatever could be parsed.
func ParseHeader(lines []string) (Header, error) {
	var h Header
	if len(lines) == 0 {
		return h, errors.New("diff: empty header")
	}
	first := trimEOL(lines[0])
	rest, ok := strings.CutPrefix(first, "diff --git ")
	if !ok {
		return h, fmt.Errorf("diff: header does not start with \"diff --git \": %q", first)
	}

	// Sources of the two paths, strongest first.
	var gitLine, renames, fileLines, binLine, weak pathPair
	if a, b, ok := splitPair(rest, " "); ok {
		gitLine = prefixedPair(a, b)
	}
	if a, b, ok := splitOnce(rest, " "); ok {
		weak = prefixedPair(a, b)
	}
	var isRename, isCopy, modeLines bool
	var indexMode string
	var minus, plus string
	var minusNull, plusNull bool

	for _, l := range lines[1:] {
		l = trimEOL(l)
		if v, ok := strings.CutPrefix(l, "old mode "); ok {
			h.OldMode, modeLines = v, true
		} else if v, ok := strings.CutPrefix(l, "new mode "); ok {
			h.NewMode, modeLines = v, true
		} else if v, ok := strings.CutPrefix(l, "deleted file mode "); ok {
			h.OldMode, h.IsDeleted = v, true
		} else if v, ok := strings.CutPrefix(l, "new file mode "); ok {
			h.NewMode, h.IsNew = v, true
		} else if v, ok := cutAny(l, "rename from ", "rename old "); ok {
			renames.oldP = oneName(v)
			isRename = true
		} else if v, ok := cutAny(l, "rename to ", "rename new "); ok {
			renames.newP = oneName(v)
			isRename = true
		} else if v, ok := strings.CutPrefix(l, "copy from "); ok {
			renames.oldP = oneName(v)
			isCopy = true
		} else if v, ok := strings.CutPrefix(l, "copy to "); ok {
			renames.newP = oneName(v)
			isCopy = true
		} else if v, ok := strings.CutPrefix(l, "similarity index "); ok {
			h.Similarity = leadingInt(v)
		} else if v, ok := strings.CutPrefix(l, "index "); ok {
			if _, m, found := strings.Cut(v, " "); found {
				indexMode = m
			}
		} else if v, ok := strings.CutPrefix(l, "--- "); ok {
			minus, minusNull, _ = fileLineName(v, "a/")
		} else if v, ok := strings.CutPrefix(l, "+++ "); ok {
			plus, plusNull, _ = fileLineName(v, "b/")
		} else if v, ok := strings.CutPrefix(l, "Binary files "); ok {
			h.IsBinary = true
			if v, ok := strings.CutSuffix(v, " differ"); ok {
				binLine = binaryPair(v)
			}
		} else if strings.HasPrefix(l, "GIT binary patch") {
			h.IsBinary = true
		}
	}
	fileLines = sidePair(minus, plus, minusNull, plusNull)

	switch {
	case isRename:
		h.Status = StatusRenamed
	case isCopy:
		h.Status = StatusCopied
	case h.IsNew:
		h.Status = StatusAdded
	case h.IsDeleted:
		h.Status = StatusDeleted
	case modeLines && typeChanged(h.OldMode, h.NewMode):
		h.Status = StatusTypeChanged
	default:
		h.Status = StatusModified
	}
	if indexMode != "" {
		if h.OldMode == "" && !h.IsNew {
			h.OldMode = indexMode
		}
		if h.NewMode == "" && !h.IsDeleted {
			h.NewMode = indexMode
		}
	}

	for _, p := range [...]pathPair{renames, gitLine, fileLines, binLine, weak} {
		if h.OldPath == "" {
			h.OldPath = p.oldP
		}
		if h.NewPath == "" {
			h.NewPath = p.newP
		}
	}
	switch h.Status {
	case StatusAdded:
		h.OldPath = h.NewPath
	case StatusDeleted:
		h.NewPath = h.OldPath
	}
	if h.OldPath == "" || h.NewPath == "" {
		h.OldPath, h.NewPath = "", ""
		return h, fmt.Errorf("diff: cannot determine file names from %q", first)
	}
	return h, nil
}

// prefixedPair strips the a/ and b/ prefixes, accepting the pair only if
// both are present and leave non-empty names.
func prefixedPair(a, b string) pathPair {
	oldP, _, okA := sideName(a, "a/")
	newP, _, okB := sideName(b, "b/")
	if !okA || !okB || oldP == "" || newP == "" {
		return pathPair{}
	}
	return pathPair{oldP, newP}
}

// sidePair combines the names from the two sides of a ---/+++ or Binary
// pair; /dev/null on one side means the file exists under the other name.
func sidePair(oldP, newP string, oldNull, newNull bool) pathPair {
	switch {
	case oldNull && !newNull:
		oldP = newP
	case newNull && !oldNull:
		newP = oldP
	}
	return pathPair{oldP, newP}
}

// binaryPair parses the names of "Binary files A and B differ".
func binaryPair(v string) pathPair {
	a, b, ok := splitPair(v, " and ")
	if !ok {
		if a, b, ok = splitOnce(v, " and "); !ok {
			return pathPair{}
		}
	}
	oldP, oldNull, okA := sideName(oneName(a), "a/")
	newP, newNull, okB := sideName(oneName(b), "b/")
	if !okA || !okB {
		return pathPair{}
	}
	return sidePair(oldP, newP, oldNull, newNull)
}

// typeChanged reports whether two octal modes differ in their file-type bits
// (S_IFMT), e.g. 100644 and 120000.
func typeChanged(oldMode, newMode string) bool {
	o, err1 := strconv.ParseUint(oldMode, 8, 32)
	n, err2 := strconv.ParseUint(newMode, 8, 32)
	return err1 == nil && err2 == nil && o&0o170000 != n&0o170000
}

// leadingInt parses the decimal digits at the start of s ("90%" -> 90).
func leadingInt(s string) int {
	n := 0
	for i := 0; i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9'; i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

func cutAny(s string, prefixes ...string) (string, bool) {
	for _, p := range prefixes {
		if v, ok := strings.CutPrefix(s, p); ok {
			return v, true
		}
	}
	return "", false
}

func trimEOL(s string) string {
	s = strings.TrimSuffix(s, "\n")
	return strings.TrimSuffix(s, "\r")
}
