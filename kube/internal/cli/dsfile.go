package cli

import (
	"maps"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/defaults"
	"github.com/daemonplan/daemonplan/kube/load"
)

// newDaemonSet reads --ds-file for command cmd (diff, simulate): one
// DaemonSet with the cluster's namespace (or none) and name. One with a UID (as kubectl get prints it) replaces
// the cluster's; a manifest is merged into it as kubectl apply merges. The
// status, generation and template-generation annotation are the
// cluster's, for whatif to raise as the API server would. The result has
// the API server's defaults of in's Kubernetes version (package
// kube/defaults), as an update stores it.
func (c *cli) newDaemonSet(cmd string, in *input, file string) (*appsv1.DaemonSet, load.Position, *convert.Kruise, error) {
	cl := in.cluster
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
	keepTemplateGeneration(out, live)
	var at load.Position
	if len(objs.At.DaemonSets) > 0 {
		at = objs.At.DaemonSets[0]
	}
	// Live, the API server defaults the new spec itself (a dry run);
	// without the right to, or from files, the offline defaults stand in.
	if stored, ok := c.serverDefault(cmd, src, out); ok {
		return stored, at, kruise[objs.DaemonSets[0]], nil
	}
	// An OpenKruise DaemonSet's webhook defaults otherwise than apps/v1.
	if kruise[objs.DaemonSets[0]] == nil {
		if out, err = defaults.DaemonSet(out, in.version); err != nil {
			return nil, load.Position{}, nil, c.fail("%s: --ds-file %s: %v", cmd, src, err)
		}
	}
	return out, at, kruise[objs.DaemonSets[0]], nil
}

// keepTemplateGeneration gives out the template-generation annotation of
// from (or none, as from has), on a copy of out's annotations: the API
// server manages it, so a new spec cannot set it, and the simulation raises
// it as the server would.
func keepTemplateGeneration(out, from *appsv1.DaemonSet) {
	out.Annotations = maps.Clone(out.Annotations)
	if g, ok := from.Annotations[api.AnnotationTemplateGeneration]; ok {
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[api.AnnotationTemplateGeneration] = g
	} else {
		delete(out.Annotations, api.AnnotationTemplateGeneration)
	}
}
