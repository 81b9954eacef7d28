// Package hashgolden records, for one Kubernetes minor, what kube/upstream
// needs to reproduce that minor's revision hash, and the hashes that minor's
// own code computes, so that kube/upstream's tests can compare the two.
//
// It runs from the per-minor modules beside it (k8s-1.34, k8s-1.35, …), each
// of which pins k8s.io/api and k8s.io/apimachinery to one minor; regenerate.sh
// runs them all. None of this is part of daemonplan's build: every directory
// here has its own go.mod, and go.work does not list them.
//
// For the minor it is built against, Main writes:
//
//  1. kube/upstream/layouts/v<minor>.txt: every type the revision hash dump
//     walks from corev1.PodTemplateSpec, with its fields in declaration
//     order (the format is described in the file's header);
//  2. kube/upstream/testdata/hash/golden-v<minor>.json: for every template
//     in kube/upstream/testdata/hash/templates and several collision counts,
//     the hash as the controller of that minor computes it.
//
// The controller receives objects from the API server in protobuf, so each
// template is decoded from its JSON file and then sent through a protobuf
// round trip (what an API server stores and serves) before it is hashed
// with the minor's own dump.ForHash. Where the hash of the JSON-decoded
// object differs, the golden file records that too.
package hashgolden

import (
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/dump"
	"k8s.io/apimachinery/pkg/util/rand"
)

// CollisionCounts are the collision counts every template is hashed with;
// nil stands for no count.
var CollisionCounts = []*int32{nil, ptr(0), ptr(1), ptr(5), ptr(2147483647)}

func ptr(v int32) *int32 { return &v }

// Golden is the content of golden-v<minor>.json.
type Golden struct {
	Kubernetes string            `json:"kubernetes"`
	Modules    map[string]string `json:"modules"`
	Hashes     []Entry           `json:"hashes"`
}

// Entry is one golden hash.
type Entry struct {
	Template       string `json:"template"`
	CollisionCount *int32 `json:"collisionCount"`
	Hash           string `json:"hash"`
	// JSONDecodedHash is set when hashing the template as decoded from its
	// JSON file, without the protobuf round trip, gives another hash.
	JSONDecodedHash string `json:"jsonDecodedHash,omitempty"`
}

// Main generates the layout and golden files for minor (e.g. "1.34"), the
// Kubernetes minor whose k8s.io/api the calling module pins.
func Main(minor string) {
	upstream := flag.String("upstream", filepath.Join("..", "..", "..", "upstream"), "the kube/upstream directory")
	flag.Parse()
	if err := run(minor, *upstream); err != nil {
		fmt.Fprintln(os.Stderr, "hashgolden:", err)
		os.Exit(1)
	}
}

func run(minor, dir string) error {
	modules, err := modules()
	if err != nil {
		return err
	}
	if want := "v0." + strings.TrimPrefix(minor, "1.") + "."; !strings.HasPrefix(modules["k8s.io/api"], want) {
		return fmt.Errorf("built against k8s.io/api %s, want %s*", modules["k8s.io/api"], want)
	}
	layout, err := Layout(reflect.TypeFor[corev1.PodTemplateSpec]())
	if err != nil {
		return err
	}
	header := fmt.Sprintf("# Kubernetes %s: k8s.io/api %s, k8s.io/apimachinery %s.\n",
		minor, modules["k8s.io/api"], modules["k8s.io/apimachinery"])
	layoutFile := filepath.Join(dir, "layouts", "v"+minor+".txt")
	if err := os.WriteFile(layoutFile, []byte(layoutHeader+header+layout), 0o644); err != nil {
		return err
	}

	templates, err := filepath.Glob(filepath.Join(dir, "testdata", "hash", "templates", "*.json"))
	if err != nil {
		return err
	}
	if len(templates) == 0 {
		return fmt.Errorf("no templates under %s", filepath.Join(dir, "testdata", "hash", "templates"))
	}
	sort.Strings(templates)
	golden := Golden{Kubernetes: minor, Modules: modules}
	for _, file := range templates {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		raw, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		// Two decodings: encoding a Quantity in protobuf caches its string
		// in it, which the dump shows.
		var decoded, sent corev1.PodTemplateSpec
		if err := json.Unmarshal(raw, &decoded); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		if err := json.Unmarshal(raw, &sent); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		served, err := protobufRoundTrip(&sent)
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		for _, cc := range CollisionCounts {
			e := Entry{Template: name, CollisionCount: cc, Hash: computeHash(served, cc)}
			if h := computeHash(&decoded, cc); h != e.Hash {
				e.JSONDecodedHash = h
			}
			golden.Hashes = append(golden.Hashes, e)
		}
	}
	out, err := json.MarshalIndent(golden, "", "  ")
	if err != nil {
		return err
	}
	goldenFile := filepath.Join(dir, "testdata", "hash", "golden-v"+minor+".json")
	if err := os.WriteFile(goldenFile, append(out, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Printf("wrote %s and %s (%d hashes)\n", layoutFile, goldenFile, len(golden.Hashes))
	return nil
}

// computeHash is the controller's ComputeHash for the pinned minor: FNV-1a
// 32 over dump.ForHash of the template value, then the collision count as 4
// little-endian bytes and 4 zero bytes, then the decimal sum in the safe
// alphabet.
func computeHash(template *corev1.PodTemplateSpec, collisionCount *int32) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%v", dump.ForHash(*template))
	if collisionCount != nil {
		b := make([]byte, 8)
		c := uint32(*collisionCount)
		b[0], b[1], b[2], b[3] = byte(c), byte(c>>8), byte(c>>16), byte(c>>24)
		h.Write(b)
	}
	return rand.SafeEncodeString(fmt.Sprint(h.Sum32()))
}

// protobufRoundTrip returns t as a client decodes it from an API server:
// encoded and decoded again in protobuf.
func protobufRoundTrip(t *corev1.PodTemplateSpec) (*corev1.PodTemplateSpec, error) {
	b, err := t.Marshal()
	if err != nil {
		return nil, fmt.Errorf("protobuf encoding: %w", err)
	}
	var out corev1.PodTemplateSpec
	if err := out.Unmarshal(b); err != nil {
		return nil, fmt.Errorf("protobuf decoding: %w", err)
	}
	return &out, nil
}

// modules returns the versions of the modules the hash depends on, as the
// running binary was built.
func modules() (map[string]string, error) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return nil, fmt.Errorf("no build information")
	}
	out := make(map[string]string)
	for _, m := range info.Deps {
		switch m.Path {
		case "k8s.io/api", "k8s.io/apimachinery", "k8s.io/utils", "github.com/davecgh/go-spew":
			v := m.Version
			if m.Replace != nil {
				v = m.Replace.Path + "@" + m.Replace.Version
			}
			out[m.Path] = v
		}
	}
	if out["k8s.io/api"] == "" || out["k8s.io/apimachinery"] == "" {
		return nil, fmt.Errorf("k8s.io/api or k8s.io/apimachinery missing from the build information")
	}
	return out, nil
}
