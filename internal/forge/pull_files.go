package forge

import "context"

// PageSize is the most files a forge is asked for at once (Gitea's
// default MAX_RESPONSE_ITEMS).
const PageSize = 50

// PullFilesFrom asks the forge for a pull request's files from offset on,
// by its pages of size files: those of the page the offset falls in, from
// the offset, and the total count. A forge whose pages are smaller than
// asked for is asked again by its own page size.
func (c *Client) PullFilesFrom(ctx context.Context, owner, repo string, index, offset, size int) ([]ChangedFile, int, error) {
	for {
		files, total, err := c.PullFiles(ctx, owner, repo, index, offset/size+1, size)
		if err != nil {
			return nil, 0, err
		}
		start := offset/size*size + len(files)
		if n := len(files); n > 0 && n < size && (total < 0 || start < total) {
			size = n // the forge's pages are n files
			continue
		}
		skip := min(offset%size, len(files))
		return files[skip:], total, nil
	}
}
