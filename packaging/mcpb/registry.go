package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// serverVersion is the version server.json (the MCP Registry entry) names:
// the version a release builds.
func serverVersion(serverJSON string) (string, error) {
	raw, err := os.ReadFile(serverJSON) //nolint:gosec // G304: the server.json scripts/mcpb names
	if err != nil {
		return "", err
	}
	var s struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%s: %w", serverJSON, err)
	}
	if !semver.MatchString(s.Version) {
		return "", fmt.Errorf("%s: version %q is not semver", serverJSON, s.Version)
	}
	return s.Version, nil
}

// registryEntry writes out: server.json with the SHA-256 of the packed
// bundle in its mcpb package, whose download URL must end in the bundle's
// file name under the release tag v<version>.
func registryEntry(serverJSON, bundle, out string) error {
	raw, err := os.ReadFile(serverJSON) //nolint:gosec // G304: the server.json scripts/mcpb names
	if err != nil {
		return err
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return fmt.Errorf("%s: %w", serverJSON, err)
	}
	version, _ := doc["version"].(string)
	data, err := os.ReadFile(bundle) //nolint:gosec // G304: the bundle scripts/mcpb packed
	if err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	packages, _ := doc["packages"].([]any)
	found := 0
	for _, p := range packages {
		pkg, _ := p.(map[string]any)
		if pkg["registryType"] != "mcpb" {
			continue
		}
		found++
		id, _ := pkg["identifier"].(string)
		if wantSuffix := "/releases/download/v" + version + "/" + filepath.Base(bundle); !strings.HasSuffix(id, wantSuffix) {
			return fmt.Errorf("%s: mcpb identifier %q does not end in %q", serverJSON, id, wantSuffix)
		}
		pkg["fileSha256"] = hex.EncodeToString(sum[:])
	}
	if found != 1 {
		return fmt.Errorf("%s: %d mcpb packages, want 1", serverJSON, found)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}
