package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	schdcache "sigs.k8s.io/kueue/pkg/cache/scheduler"
	"sigs.k8s.io/kueue/pkg/controller/jobframework"
	"sigs.k8s.io/kueue/pkg/workload"
)

type validateInput struct {
	gateInput
	PodSets        []podSetInput     `json:"podSets"`
	Integration    *integrationInput `json:"integration"`
	Topology       json.RawMessage   `json:"topology"`
	ResourceFlavor json.RawMessage   `json:"resourceFlavor"`
}

type validationError struct {
	PodSet     string  `json:"podSet"`
	Annotation *string `json:"annotation"`
	Reason     string  `json:"reason"`
	Message    string  `json:"message"`
	Type       *string `json:"type"`
	Value      any     `json:"value"`
	Field      *string `json:"field"`
}

// errorTypeNames are the contract's short names of field.ErrorType.
var errorTypeNames = map[field.ErrorType]string{
	field.ErrorTypeInvalid:      "Invalid",
	field.ErrorTypeForbidden:    "Forbidden",
	field.ErrorTypeRequired:     "Required",
	field.ErrorTypeDuplicate:    "Duplicate",
	field.ErrorTypeNotSupported: "NotSupported",
	field.ErrorTypeTooMany:      "TooMany",
	field.ErrorTypeTooLong:      "TooLong",
}

// badValue is the value a webhook error reports: none for the types that
// carry none (Forbidden, Required) and for an omitted value.
func badValue(e *field.Error) any {
	if e.Type == field.ErrorTypeForbidden || e.Type == field.ErrorTypeRequired {
		return nil
	}
	if _, omitted := e.BadValue.(field.OmitValueType); omitted {
		return nil
	}
	return e.BadValue
}

// ruleOrder is the order of the contract's rule table, used to order the
// errors of one podset.
var ruleOrder = []string{
	"MultipleTopologyAnnotations", "InvalidLabelName", "GroupNameNumeric", "GroupNameWithSlices",
	"GroupNameWithoutTopology", "InvalidBoolean", "SliceSizeNotNumeric", "SliceSizeTooSmall",
	"SliceSizeMissing", "SliceSizeWithoutTopology", "MultiLayerGateDisabled", "MultiLayerWithSingleLayer",
	"InvalidConstraintsJSON", "ConstraintLayerCount", "InvalidLabelName", "ConstraintSizeTooSmall",
	"DuplicateConstraintTopology", "ConstraintSizeNotDividing", "SliceSizeAboveCount", "GroupSize",
	"GroupWithoutSingleReplica", "GroupTopologyMismatch", "ElasticTopologyNotSupported",
}

func rank(reason string) int {
	for i, r := range ruleOrder {
		if r == reason {
			return i
		}
	}
	return len(ruleOrder)
}

func annotationsPath(name string) *field.Path {
	return field.NewPath("podSets").Key(name).Child("annotations")
}

// annotationOf reads the annotation key out of an error's field path,
// `podSets[<name>].annotations[<key>]...`.
func annotationOf(path string) (key string, rest string) {
	const marker = ".annotations["
	i := strings.Index(path, marker)
	if i < 0 {
		return "", ""
	}
	tail := path[i+len(marker):]
	j := strings.Index(tail, "]")
	if j < 0 {
		return "", ""
	}
	return tail[:j], tail[j+1:]
}

// fragmentReason is one row of an annotation's reason table: a webhook
// message holding fragment gets reason.
type fragmentReason struct{ fragment, reason string }

// fragmentReasons are the annotations whose reason the message alone decides,
// each table tried in order (so a fragment comes before a shorter one it
// contains, "may not be set when neither" before "may not be set when").
var fragmentReasons = map[string][]fragmentReason{
	kueue.PodSetGroupName: {
		{"must not be a number", "GroupNameNumeric"},
		{"may not be set when neither", "GroupNameWithoutTopology"},
		{"may not be set when", "GroupNameWithSlices"},
		{"can only define groups of exactly 2", "GroupSize"},
		{"at least one pod set has only 1 replica", "GroupWithoutSingleReplica"},
	},
	kueue.PodSetSliceSizeAnnotation: {
		{"must be a numeric value", "SliceSizeNotNumeric"},
		{"greater than or equal to 1", "SliceSizeTooSmall"},
		{"must be set when", "SliceSizeMissing"},
		{"may not be set when", "SliceSizeWithoutTopology"},
		{"must not be greater than pod set count", "SliceSizeAboveCount"},
	},
}

// reasonByFragment is the reason of the first row whose fragment msg holds,
// or "" when none does.
func reasonByFragment(rows []fragmentReason, msg string) string {
	for _, row := range rows {
		if strings.Contains(msg, row.fragment) {
			return row.reason
		}
	}
	return ""
}

// classify maps one webhook error to the contract's reason code.
func classify(podSet string, e *field.Error) (validationError, error) {
	key, rest := annotationOf(e.Field)
	msg := e.Detail
	if e.Type == field.ErrorTypeDuplicate {
		msg = fmt.Sprint(e.BadValue)
	}
	out := validationError{PodSet: podSet, Message: msg, Value: badValue(e), Field: ptr.To(e.Field)}
	if name, known := errorTypeNames[e.Type]; known {
		out.Type = ptr.To(name)
	} else {
		out.Type = ptr.To(string(e.Type))
	}
	if key != "" {
		out.Annotation = ptr.To(key)
	}
	has := func(s string) bool { return strings.Contains(msg, s) }
	switch {
	case key == "" && e.Type == field.ErrorTypeForbidden && has("is not supported with elastic jobs"):
		// the Job webhook names the annotation as a child segment
		out.Reason = "ElasticTopologyNotSupported"
		if i := strings.Index(e.Field, ".annotations."); i >= 0 {
			out.Annotation = ptr.To(e.Field[i+len(".annotations."):])
		}
	case key == "" && has("more than one topology annotation"):
		out.Reason = "MultipleTopologyAnnotations"
	case key == "" && has("topology consistent with"):
		out.Reason = "GroupTopologyMismatch"
	case key == kueue.PodSetRequiredTopologyAnnotation, key == kueue.PodSetPreferredTopologyAnnotation,
		key == kueue.PodSetSliceRequiredTopologyAnnotation:
		out.Reason = "InvalidLabelName"
	case key == kueue.PodSetGroupName, key == kueue.PodSetSliceSizeAnnotation:
		out.Reason = reasonByFragment(fragmentReasons[key], msg)
	case key == kueue.PodSetUnconstrainedTopologyAnnotation && has("must be a boolean value"):
		out.Reason = "InvalidBoolean"
	case key == kueue.PodSetSliceRequiredTopologyConstraintsAnnotation:
		switch {
		case has("feature gate must be enabled"):
			out.Reason = "MultiLayerGateDisabled"
		case rest == "" && has("may not be set when"):
			out.Reason = "MultiLayerWithSingleLayer"
		case has("must be a valid JSON array"):
			out.Reason = "InvalidConstraintsJSON"
		case has("between 1 and 3 entries"):
			out.Reason = "ConstraintLayerCount"
		case strings.HasSuffix(rest, ".topology") && e.Type == field.ErrorTypeDuplicate:
			out.Reason = "DuplicateConstraintTopology"
		case strings.HasSuffix(rest, ".topology"):
			out.Reason = "InvalidLabelName"
		case strings.HasSuffix(rest, ".size") && has("greater than or equal to 1"):
			out.Reason = "ConstraintSizeTooSmall"
		case has("must evenly divide"):
			out.Reason = "ConstraintSizeNotDividing"
		case has("must not be greater than pod set count"):
			out.Reason = "SliceSizeAboveCount"
		}
	}
	if out.Reason == "" {
		return out, fmt.Errorf("webhook error with no contract reason: %s", e.Error())
	}
	if out.Reason == "GroupTopologyMismatch" {
		out.Annotation = nil
	}
	return out, nil
}

// webhookErrors runs the webhooks' TAS checks over the podsets: each
// podset's annotations, the slice-size upper bound when they pass, then the
// grouping checks when every podset passed.
func webhookErrors(inputs []podSetInput) []validationError {
	var out []validationError
	var podSets []kueue.PodSet
	paths := map[kueue.PodSetReference]*field.Path{}
	buildFailed := false
	for _, p := range inputs {
		ps := p.podSet()
		path := field.NewPath("podSets").Key(p.Name)
		meta := &ps.Template.ObjectMeta
		errs := jobframework.ValidateTASPodSetRequest(path, meta)
		if len(errs) == 0 {
			errs = jobframework.ValidateSliceSizeAnnotationUpperBound(path, meta, &ps)
		}
		out = append(out, sortedErrors(p.Name, errs)...)
		tr, err := jobframework.NewPodSetTopologyRequest(meta).Build()
		if err != nil {
			buildFailed = true
		}
		ps.TopologyRequest = tr
		podSets = append(podSets, ps)
		paths[ps.Name] = annotationsPath(p.Name)
	}
	if len(out) > 0 || buildFailed {
		return out
	}
	groupErrs := jobframework.ValidatePodSetGroupingTopology(podSets, paths)
	byPodSet := map[string]field.ErrorList{}
	for _, e := range groupErrs {
		name := podSetOfPath(e.Field)
		byPodSet[name] = append(byPodSet[name], e)
	}
	for _, p := range inputs {
		out = append(out, sortedErrors(p.Name, byPodSet[p.Name])...)
	}
	return out
}

func podSetOfPath(path string) string {
	const prefix = "podSets["
	if !strings.HasPrefix(path, prefix) {
		return ""
	}
	tail := path[len(prefix):]
	return tail[:strings.Index(tail, "]")]
}

// errUnclassified is set when a webhook error has no contract reason; the
// operation then answers an error rather than guess one.
var errUnclassified error

func sortedErrors(podSet string, errs field.ErrorList) []validationError {
	var out []validationError
	for _, e := range errs {
		v, err := classify(podSet, e)
		if err != nil && errUnclassified == nil {
			errUnclassified = err
		}
		out = append(out, v)
	}
	sort.SliceStable(out, func(i, j int) bool { return rank(out[i].Reason) < rank(out[j].Reason) })
	return out
}

func requestView(tr *kueue.PodSetTopologyRequest) any {
	if tr == nil {
		return nil
	}
	var mode, level any
	sliceOnly := tr.Required == nil && tr.Preferred == nil &&
		(tr.PodSetSliceRequiredTopology != nil || len(tr.PodsetSliceRequiredTopologyConstraints) > 0)
	switch {
	case tr.Required != nil:
		mode, level = "required", *tr.Required
	case tr.Preferred != nil:
		mode, level = "preferred", *tr.Preferred
	case tr.Unconstrained != nil || sliceOnly:
		mode = "unconstrained"
	}
	layers := []map[string]any{}
	if len(tr.PodsetSliceRequiredTopologyConstraints) > 0 {
		for _, c := range tr.PodsetSliceRequiredTopologyConstraints {
			layers = append(layers, map[string]any{"topology": c.Topology, "size": c.Size})
		}
	} else if tr.PodSetSliceRequiredTopology != nil && tr.PodSetSliceSize != nil {
		layers = append(layers, map[string]any{"topology": *tr.PodSetSliceRequiredTopology, "size": *tr.PodSetSliceSize})
	}
	var group any
	if tr.PodSetGroupName != nil {
		group = *tr.PodSetGroupName
	}
	var subGroupCount any
	if tr.SubGroupCount != nil {
		subGroupCount = *tr.SubGroupCount
	}
	return map[string]any{"mode": mode, "level": level, "podSetGroupName": group, "sliceLayers": layers, "sliceOnly": sliceOnly,
		"podIndexLabel": tr.PodIndexLabel, "subGroupIndexLabel": tr.SubGroupIndexLabel, "subGroupCount": subGroupCount}
}

// levelErrors are the scheduler's checks of a request against the topology:
// the flavor assigner's HasLevel, then the early returns of the placement
// over an empty snapshot of the topology.
func levelErrors(name string, ps kueue.PodSet, topology *kueue.Topology, flavorName string) []validationError {
	tr := ps.TopologyRequest
	if tr == nil || !workload.IsExplicitlyRequestingTAS(ps) {
		// a request carrying only an integration's index labels asks for no level
		return nil
	}
	flavor := &kueue.ResourceFlavor{}
	flavor.Name = flavorName
	if flavor.Name == "" {
		flavor.Name = "flavor"
	}
	flavor.Spec.TopologyName = ptr.To(kueue.TopologyReference(topology.Name))
	flavor.Spec.NodeLabels = map[string]string{"conformance.topoconf/none": "x"}
	snap := schdcache.NewConformanceFlavor(topology, flavor).Snapshot()
	if hasAnyLevel(tr) && !snap.HasLevel(tr) {
		return []validationError{{PodSet: name, Reason: "UnknownTopologyLevel",
			Message: fmt.Sprintf("Flavor %q does not contain the requested level", flavorName)}}
	}
	// Only the placement's early returns are read here, and they do not
	// depend on the count; a podset of no pods is checked as one of one pod,
	// since v0.17.0's balanced placement divides by the count.
	if ps.Count == 0 {
		ps.Count = 1
	}
	req := schdcache.TASPodSetRequests{PodSet: &ps, SinglePodRequests: emptyRequests(), Count: ps.Count, Flavor: kueue.ResourceFlavorReference(flavor.Name), PodSetGroupName: nil}
	res := findAssignments(snap, schdcache.FlavorTASRequests{req}, schdcache.WithWorkload(&kueue.Workload{}))
	msg := res[ps.Name].FailureReason
	reason, _ := notFitReason(msg)
	switch {
	case reason == "SliceLevelAboveRequest", reason == "InvalidSliceLayerOrder", reason == "TopologyLevelNotSpecified", reason == "UnknownTopologyLevel":
		return []validationError{{PodSet: name, Reason: reason, Message: msg}}
	case strings.HasPrefix(msg, "additional slice layer size"):
		return []validationError{{PodSet: name, Reason: "ConstraintSizeNotDividing", Message: msg}}
	}
	return nil
}

func runValidate(raw json.RawMessage) answer {
	var in validateInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return failure("InvalidInput", err)
	}
	if g := configureGates(in.gateInput); g != nil {
		return g.answer()
	}
	built, errs, stop := podSetsAndWebhookErrors(in.PodSets, in.Integration)
	if stop != nil {
		return *stop
	}
	var views []map[string]any
	if len(errs) == 0 {
		var topology *kueue.Topology
		if len(in.Topology) > 0 && string(in.Topology) != "null" {
			t, err := decodeTopology(in.Topology)
			if err != nil {
				return failure("InvalidInput", fmt.Errorf("topology: %w", err))
			}
			topology = t
		}
		flavorName := ""
		if len(in.ResourceFlavor) > 0 && string(in.ResourceFlavor) != "null" {
			var rf kueue.ResourceFlavor
			if err := json.Unmarshal(in.ResourceFlavor, &rf); err == nil {
				flavorName = rf.Name
			}
		}
		for _, b := range built {
			ps := b.input.podSet()
			tr, err := b.request()
			if err != nil {
				return failure("annotations passed the webhook but do not parse", err)
			}
			ps.TopologyRequest = tr
			if topology != nil {
				errs = append(errs, levelErrors(b.input.Name, ps, topology, flavorName)...)
			}
			views = append(views, map[string]any{"name": b.input.Name, "topologyRequest": requestView(tr)})
		}
	}
	if errs == nil {
		errs = []validationError{}
	}
	result := map[string]any{"valid": len(errs) == 0, "errors": errs}
	if len(errs) == 0 {
		if views == nil {
			views = []map[string]any{}
		}
		result["podSets"] = views
	}
	return ok(result)
}

// podSetsAndWebhookErrors builds the podsets (the contract's list, or those
// the integration builds) and runs the matching webhook's checks.
func podSetsAndWebhookErrors(plain []podSetInput, integration *integrationInput) ([]builtPodSet, []validationError, *answer) {
	if (integration == nil) == (plain == nil) {
		a := failure("InvalidInput", fmt.Errorf("podSets: give exactly one of podSets and integration"))
		return nil, nil, &a
	}
	errUnclassified = nil
	var built []builtPodSet
	var errs []validationError
	if integration == nil {
		built = plainPodSets(plain)
		errs = webhookErrors(plain)
	} else {
		var err error
		if built, err = integration.build(); err != nil {
			a := failure("InvalidInput", fmt.Errorf("integration: %w", err))
			return nil, nil, &a
		}
		errs = integrationWebhookErrors(integration.Kind, integration.Metadata.Annotations, built)
	}
	if errUnclassified != nil {
		a := failure("unclassified webhook error", errUnclassified)
		return nil, nil, &a
	}
	return built, errs, nil
}
