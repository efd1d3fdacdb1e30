/** The model catalog of a run started or resumed from the CLI: the spec's models plus its bundled scenario. */
import { scenarioPolicy } from '../demo/scenarios.js';
import type { ModelCatalog } from '../model/catalog.js';
import type { RunSpec } from '../run/run-spec.js';
import { catalogFromSpec } from '../topology/execute-run.js';

export function runCatalog(spec: RunSpec, env: NodeJS.ProcessEnv): ModelCatalog {
  const scripted = spec.scenario
    ? (scenarioPolicy(spec.scenario) ?? { error: `unknown scripted scenario '${spec.scenario}'` })
    : undefined;
  return catalogFromSpec(spec, env, scripted);
}
