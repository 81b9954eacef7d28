package resource_test

import (
	"fmt"
	"testing"

	"github.com/daemonplan/daemonplan/resource"
)

func TestWithFormat(t *testing.T) {
	tests := []struct {
		name, reason string
		in           string
		f            resource.Format
		want         string
	}{
		{"BinaryToDecimal", "the value is kept, printed in the new format", "1Ki", resource.DecimalSI, "1024"},
		{"DecimalToBinary", "a multiple of 1024 takes a binary suffix", "1048576", resource.BinarySI, "1Mi"},
		{"SpellingDropped", "a parsed spelling belongs to the old format", "+1", resource.DecimalSI, "1"},
		{"ZeroKeepsFormat", "a zero takes the format, which later sums adopt", "0", resource.BinarySI, "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := resource.MustParse(tt.in)
			got := in.WithFormat(tt.f)
			if got.String() != tt.want || got.Format() != tt.f || !got.Equal(in) {
				t.Errorf("MustParse(%q).WithFormat(%v) = %s (%v), want %s (%s)", tt.in, tt.f, got, got.Format(), tt.want, tt.reason)
			}
		})
	}
}

// apimachinery prints 0.5Ki as "512"; reading that text back gives a
// DecimalSI quantity, and WithFormat restores BinarySI, whose sums print
// with binary suffixes.
func ExampleQuantity_WithFormat() {
	q := resource.MustParse("512").WithFormat(resource.BinarySI)
	fmt.Println(q, q.Format(), q.Add(resource.MustParse("512")))
	// Output: 512 BinarySI 1Ki
}
