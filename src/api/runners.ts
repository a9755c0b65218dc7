// The runners of the main entry, loaded on their first call: the scenario runner brings the in-process sandbox and
// the whole service with it, the conformance suite its checks (3.2 s and 1.1 s of imports measured on a busy 2-core
// machine), which `import { up } from 'settlement-sandbox'` should not pay for. Same signatures as the modules'.
import type { ConformanceOptions, ConformanceRun, ReceiverCertification, SolverCertification } from '../../conformance/index.js';
import type { RunOptions, RunReport } from '../../scenarios/index.js';
import type { InProcessSandbox, InProcessSandboxOptions } from '../sandbox/in-process.js';

type CertifySolverOptions = Parameters<typeof import('../../conformance/index.js').certifySolver>[0];
type CertifyReceiverOptions = Parameters<typeof import('../../conformance/index.js').certifyWebhookReceiver>[0];

/** `sandbox scenario run`: the scenarios (from `settlement-sandbox/scenarios`) against a target, one report. */
export async function runScenarios(options: RunOptions): Promise<RunReport> {
  return (await import('../../scenarios/index.js')).runScenarios(options);
}

/** `sandbox conformance`: the suite against a deployment; the report is what `--report json=…` writes. */
export async function runConformance(options: ConformanceOptions): Promise<ConformanceRun> {
  return (await import('../../conformance/index.js')).runConformance(options);
}

/** `sandbox certify solver`. */
export async function certifySolver(options: CertifySolverOptions): Promise<SolverCertification> {
  return (await import('../../conformance/index.js')).certifySolver(options);
}

/** `sandbox certify webhook-receiver`. */
export async function certifyWebhookReceiver(options: CertifyReceiverOptions): Promise<ReceiverCertification> {
  return (await import('../../conformance/index.js')).certifyWebhookReceiver(options);
}

/** The service on a host that can stop and restart it, the reference solvers and the chains, all in this process. */
export async function startInProcessSandbox(options: InProcessSandboxOptions = {}): Promise<InProcessSandbox> {
  return (await import('../sandbox/in-process.js')).startInProcessSandbox(options);
}
