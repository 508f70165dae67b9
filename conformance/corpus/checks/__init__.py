"""The checks `topoconf validate` runs on a loaded case or file, one module per
rule (its `RULE`), each a function returning problems:

| module | rule |
| --- | --- |
| schema | the JSON Schema keyword that failed (`required`, `type`, `enum`, ...) |
| vocabulary | `component-file`, `feature-prefix` (fixtures/features/) |
| component_folder | `component-folder` |
| required | `required` (operation, source, a feature, in the case or in defaults) |
| features | `unknown-feature`, `feature-component` |
| operation | `unknown-operation` (then the input against the operation's schema) |
| feature_claims | `feature-claim` |
| matchers | `matcher` |
| result_keys | `result-key` |
| ids | `duplicate-id` |

Loading itself reports `yaml`, `read`, the block rules (conformance/corpus/blocks.py),
the matrix rules (conformance/corpus/matrix.py) and the extra-folder rules
(conformance/corpus/extra.py).
"""
