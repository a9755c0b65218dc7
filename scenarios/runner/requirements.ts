import type { Scenario } from '../core/scenario.js';
import type { ScenarioTarget } from '../deployment/target.js';

/** What a scenario needs, declared or implied by its actors and steps. */
export function effectiveRequirements(scenario: Scenario): NonNullable<Scenario['requires']> {
  const declared = scenario.requires ?? {};
  const webhooks = Object.keys(scenario.actors?.webhooks ?? {}).length > 0;
  return {
    ...declared,
    loopbackWebhooks: declared.loopbackWebhooks ?? webhooks,
    scriptableSolvers: declared.scriptableSolvers ?? scenario.actors?.solvers !== undefined,
  };
}

/** Why `target` cannot run the scenario, or undefined when it can. */
export async function unmetRequirement(
  requires: NonNullable<Scenario['requires']>,
  target: ScenarioTarget,
  servesReferenceB: () => Promise<boolean>,
): Promise<string | undefined> {
  if (requires.environment !== undefined && requires.environment !== target.environment) {
    return `is about the ${requires.environment} environment; the target runs ${target.environment}`;
  }
  if (requires.restart && target.service === undefined)
    return 'stops and restarts the service: needs the sandbox fault routes (the service.restart switch)';
  if (requires.scriptableSolvers && !target.faultSwitches) {
    return 'scripts the reference solvers through solver fault switches: needs the sandbox fault routes (/api/v1/sandbox/faults)';
  }
  if (requires.testClock && !target.testClock) return 'advances the sandbox clock: needs the sandbox clock route';
  if (requires.faultSwitches && !target.faultSwitches)
    return 'sets fault switches: needs the sandbox fault routes (/api/v1/sandbox/faults)';
  if (requires.loopbackWebhooks && target.environment !== 'sandbox')
    return 'receives webhooks on 127.0.0.1, which only the sandbox accepts';
  if (requires.referenceB && !(await servesReferenceB()))
    return 'Reference B routes are not served by this target (POST /api/v1/rfq answers 404)';
  return undefined;
}
