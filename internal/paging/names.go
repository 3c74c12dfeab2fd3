package paging

import (
	"fmt"
	"strings"
)

// FileList renders "path (N bytes), ..." for an error or a note, as many
// of names as fit in room bytes, and how many of the total files were left out (total
// may be more than names: a tally keeps only what a message can show).
func FileList(names []string, sizes []int64, total, room int, listedBy string) string {
	var b strings.Builder
	shown := 0
	for i, n := range names {
		item := n
		if sizes != nil {
			item = fmt.Sprintf("%s (%d bytes)", n, sizes[i])
		}
		if b.Len()+len(item)+LineSlack > room {
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(item)
		shown++
	}
	if more := total - shown; more > 0 {
		fmt.Fprintf(&b, "; and %d more", more)
		if listedBy != "" {
			fmt.Fprintf(&b, " (%s lists them all)", listedBy)
		}
	}
	return b.String()
}
