package differential

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/api"
)

// TestLabelSyntaxMessagesAgreeWithApimachinery: for generated label keys,
// label values and names (empty, too long, bad characters, bad prefixes,
// two slashes), selector reports exactly the problems apimachinery v0.37
// reports, word for word and in order: ValidateLabelKey as
// content.IsLabelKey (which API validation of label keys and toleration
// keys calls), ValidateLabelValue as content.IsLabelValue, and
// IsDNS1123Subdomain as validation.IsDNS1123Subdomain (object names).
func TestLabelSyntaxMessagesAgreeWithApimachinery(t *testing.T) {
	var c counter
	text := rapid.OneOf(
		rapid.StringMatching(`[a-zA-Z0-9._/-]{0,8}`),
		rapid.StringMatching(`[a-z0-9.-]{0,6}/[a-zA-Z0-9._-]{0,6}`),
		rapid.StringMatching(`[a-z0-9./ _A!-]{0,5}/[a-z/]{0,3}/?`),
		rapid.Custom(func(t *rapid.T) string {
			n := rapid.SampledFrom([]int{62, 63, 64, 252, 253, 254}).Draw(t, "n")
			s := strings.Repeat("a", n)
			switch rapid.IntRange(0, 2).Draw(t, "where") {
			case 1:
				return s + "/x"
			case 2:
				return "example.com/" + s
			}
			return s
		}),
	)
	rapid.Check(t, func(t *rapid.T) {
		s := text.Draw(t, "text")
		for _, fn := range []struct {
			name        string
			ours, their []string
		}{
			{"ValidateLabelKey", api.ValidateLabelKey(s), content.IsLabelKey(s)},
			{"ValidateLabelValue", api.ValidateLabelValue(s), content.IsLabelValue(s)},
			{"IsDNS1123Subdomain", api.IsDNS1123Subdomain(s), validation.IsDNS1123Subdomain(s)},
		} {
			if !slices.Equal(fn.ours, fn.their) {
				t.Fatalf("%s(%q) = %q, apimachinery %q", fn.name, s, fn.ours, fn.their)
			}
		}
		c.cases.Add(1)
		if len(content.IsLabelKey(s)) == 0 {
			c.a.Add(1)
		} else {
			c.b.Add(1)
		}
	})
	c.report(t, "valid keys", "invalid keys")
}
