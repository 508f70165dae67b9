package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// The release's CRDs, copied by build.sh from the module source. The API
// server validates Topology and ResourceFlavor objects against their OpenAPI
// schemas and CEL rules before Kueue ever sees them; the shim runs the same
// validation with the apiextensions-apiserver library.
var (
	//go:embed build/crds/kueue.x-k8s.io_topologies.yaml
	topologyCRD []byte
	//go:embed build/crds/kueue.x-k8s.io_resourceflavors.yaml
	flavorCRD []byte
)

type crdValidator struct {
	schema     apiservervalidation.SchemaValidator
	structural *structuralschema.Structural
	cel        *cel.Validator
}

func newCRDValidator(raw []byte, version string) (*crdValidator, error) {
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		return nil, err
	}
	for _, v := range crd.Spec.Versions {
		if v.Name != version || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		internal := &apiextensions.JSONSchemaProps{}
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, internal, nil); err != nil {
			return nil, err
		}
		ss, err := structuralschema.NewStructural(internal)
		if err != nil {
			return nil, err
		}
		sv, _, err := apiservervalidation.NewSchemaValidator(internal)
		if err != nil {
			return nil, err
		}
		return &crdValidator{schema: sv, structural: ss, cel: cel.NewValidator(ss, true, celconfig.PerCallLimit)}, nil
	}
	return nil, fmt.Errorf("the CRD %s has no version %s", crd.Name, version)
}

func (v *crdValidator) validate(obj any) field.ErrorList {
	b, _ := json.Marshal(obj)
	var u map[string]any
	_ = json.Unmarshal(b, &u)
	errs := apiservervalidation.ValidateCustomResource(nil, u, v.schema)
	celErrs, _ := v.cel.Validate(context.Background(), nil, v.structural, u, nil, celconfig.RuntimeCELCostBudget)
	return append(errs, celErrs...)
}

var (
	crdOnce                    sync.Once
	topologyCheck, flavorCheck *crdValidator
	crdLoadErr                 error
)

func loadCRDs() {
	topologyCheck, crdLoadErr = newCRDValidator(topologyCRD, "v1beta2")
	if crdLoadErr == nil {
		flavorCheck, crdLoadErr = newCRDValidator(flavorCRD, "v1beta2")
	}
}

// crdProblem refuses a Topology or ResourceFlavor the API server would
// reject on creation.
func crdProblem(topology *kueue.Topology, flavor *kueue.ResourceFlavor) *answer {
	crdOnce.Do(loadCRDs)
	if crdLoadErr != nil {
		a := failure("cannot load the release's CRD schemas", crdLoadErr)
		return &a
	}
	t := topology.DeepCopy()
	t.APIVersion, t.Kind = kueueGroupVersion.String(), "Topology"
	if errs := topologyCheck.validate(t); len(errs) > 0 {
		a := ok(refused("InvalidTopology", joinErrors(errs)))
		return &a
	}
	f := flavor.DeepCopy()
	f.APIVersion, f.Kind = kueueGroupVersion.String(), "ResourceFlavor"
	if errs := flavorCheck.validate(f); len(errs) > 0 {
		a := ok(refused("InvalidResourceFlavor", joinErrors(errs)))
		return &a
	}
	return nil
}

func joinErrors(errs field.ErrorList) string {
	parts := make([]string, 0, len(errs))
	for _, e := range errs {
		parts = append(parts, e.Error())
	}
	return strings.Join(parts, "; ")
}
