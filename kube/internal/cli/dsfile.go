package cli

import (
	"fmt"
	"maps"
	"strings"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/load"
)

// newDaemonSet reads --ds-file for command cmd (diff, simulate): one
// DaemonSet with the cluster's namespace (or none) and name. One with a UID (as kubectl get prints it) replaces
// the cluster's; a manifest is merged into it as kubectl apply merges. The
// status, generation and template-generation annotation are the
// cluster's, for whatif to raise as the API server would.
func (c *cli) newDaemonSet(cmd string, cl *load.Snapshot, file string) (*appsv1.DaemonSet, load.Position, *convert.Kruise, error) {
	objs, kruise, src, err := c.readIn(cmd, []string{file}, cl.DaemonSet.Namespace)
	if err != nil {
		return nil, load.Position{}, nil, err
	}
	if len(objs.DaemonSets) != 1 {
		return nil, load.Position{}, nil, c.fail("%s: --ds-file %s: want exactly one DaemonSet, found %d", cmd, src, len(objs.DaemonSets))
	}
	live, ds := cl.DaemonSet, objs.DaemonSets[0]
	if ds.Namespace == "" {
		ds = ds.DeepCopy()
		ds.Namespace = live.Namespace
	}
	if ds.Namespace != live.Namespace || ds.Name != live.Name {
		return nil, load.Position{}, nil, c.fail("%s: --ds-file %s holds DaemonSet %s/%s, the cluster's is %s/%s",
			cmd, src, ds.Namespace, ds.Name, live.Namespace, live.Name)
	}
	if ds.UID != "" && ds.UID != live.UID {
		return nil, load.Position{}, nil, c.fail("%s: --ds-file %s: DaemonSet %s/%s has uid %s, the cluster's has uid %s",
			cmd, src, ds.Namespace, ds.Name, ds.UID, live.UID)
	}
	var out *appsv1.DaemonSet
	if ds.UID != "" {
		out = ds.DeepCopy()
	} else {
		out, err = mergeManifest(live, ds)
		if err != nil {
			return nil, load.Position{}, nil, c.fail("%s: --ds-file %s: %v", cmd, src, err)
		}
	}
	// The API server keeps these: an update cannot set them.
	out.UID, out.Generation, out.CreationTimestamp = live.UID, live.Generation, live.CreationTimestamp
	out.Status = *live.Status.DeepCopy()
	out.Annotations = maps.Clone(out.Annotations)
	if g, ok := live.Annotations[api.AnnotationTemplateGeneration]; ok {
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[api.AnnotationTemplateGeneration] = g
	} else {
		delete(out.Annotations, api.AnnotationTemplateGeneration)
	}
	var at load.Position
	if len(objs.At.DaemonSets) > 0 {
		at = objs.At.DaemonSets[0]
	}
	// Only a live template the API server stored (all its defaults set)
	// makes the missing fields of the new one a difference from the
	// cluster's.
	if missing := undefaulted(&out.Spec.Template.Spec); len(missing) > 0 && len(undefaulted(&live.Spec.Template.Spec)) == 0 {
		more := ""
		if len(missing) > 3 {
			more = fmt.Sprintf(" and %d more", len(missing)-3)
			missing = missing[:3]
		}
		fmt.Fprintf(c.stderr, "%s: %s: note: --ds-file %s: the template lacks fields the API server fills in (%s%s): "+
			"the new revision's hash, and so its name and the new pods' hash label, will not be the real controller's; "+
			"which nodes change and the steps are not affected\n", c.name, cmd, src, strings.Join(missing, ", "), more)
	}
	return out, at, kruise[objs.DaemonSets[0]], nil
}
