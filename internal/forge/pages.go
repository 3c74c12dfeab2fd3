package forge

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"net/url"
	"strconv"
)

// readPages reads a list the forge gives page by page (size items a
// page, from page 1): each page's items and the forge's count of them all
// come from one answer's body and headers (decode). It stops at an empty
// page (a page can hold fewer than asked: the forge may drop items it
// hides after paging) or at the count, and keeps at most max items; more
// tells that the forge had more than it kept.
func readPages[T any](ctx context.Context, c *Client, path string, q url.Values, size, max int,
	decode func(data []byte, h http.Header) (items []T, total int, err error)) (items []T, more bool, err error) {
	q = maps.Clone(q)
	if q == nil {
		q = url.Values{}
	}
	q.Set("limit", strconv.Itoa(size))
	for page := 1; ; page++ {
		q.Set("page", strconv.Itoa(page))
		data, h, err := c.getRaw(ctx, path, q)
		if err != nil {
			return nil, false, err
		}
		got, total, err := decode(data, h)
		if errors.Is(err, errEnough) {
			return items, true, nil
		}
		if err != nil {
			return nil, false, jsonError(path, err)
		}
		for i, it := range got {
			if len(items) == max {
				return items, i < len(got) || page*size < total, nil
			}
			items = append(items, it)
		}
		if len(got) == 0 || page*size >= total {
			return items, false, nil
		}
	}
}

// errEnough, from a decode, stops readPages where it is: what it read is
// all a caller keeps, and there is more.
var errEnough = errors.New("enough read")

// headerTotal is the count a list's answer gives in X-Total-Count.
func headerTotal(h http.Header) int {
	n, _ := strconv.Atoi(h.Get("X-Total-Count"))
	return n
}
