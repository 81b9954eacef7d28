package resource

import (
	"sort"
	"strings"
)

// List maps resource names ("cpu", "memory", "nvidia.com/gpu") to
// quantities, like corev1.ResourceList. A map keeps literals short and
// lookups direct; every output that lists names (Names, String) sorts them,
// so map order never reaches a result. A nil List and an empty one both mean
// "no resources". Lists are treated as read-only by every function here:
// results are new maps.
type List map[string]Quantity

// Add returns a new [List] with, for every name in l or o, the sum of the two
// quantities. A name in only one of them keeps that quantity as is, parsed
// spelling included; a sum follows [Quantity.Add] (format of l's quantity, or
// of o's when l's is zero). This is component-helpers' addResourceList.
func (l List) Add(o List) List {
	out := make(List, len(l)+len(o))
	for name, q := range l {
		out[name] = q
	}
	addInto(out, o)
	return out
}

// Max returns a new [List] with, for every name in l or o, the greater of the
// two quantities; on a tie l's quantity (and so its format and spelling) is
// kept. This is component-helpers' maxResourceList.
func (l List) Max(o List) List {
	out := make(List, len(l)+len(o))
	for name, q := range l {
		out[name] = q
	}
	maxInto(out, o)
	return out
}

// Names returns the names in l, sorted.
func (l List) Names() []string {
	names := make([]string, 0, len(l))
	for name := range l {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// String renders l as name=quantity pairs sorted by name and joined by
// commas, each quantity as [Quantity.String] prints it:
// "cpu=250m,memory=64Mi". An empty or nil [List] renders as "".
func (l List) String() string {
	var sb strings.Builder
	for i, name := range l.Names() {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(name)
		sb.WriteByte('=')
		sb.WriteString(l[name].String())
	}
	return sb.String()
}

// addInto adds every quantity of o to dst, in place.
func addInto(dst, o List) {
	for name, q := range o {
		if have, ok := dst[name]; ok {
			dst[name] = have.Add(q)
		} else {
			dst[name] = q
		}
	}
}

// maxInto raises every quantity of dst to o's where o's is greater, and adds
// o's names that dst lacks, in place.
func maxInto(dst, o List) {
	for name, q := range o {
		if have, ok := dst[name]; !ok || q.Cmp(have) > 0 {
			dst[name] = q
		}
	}
}
