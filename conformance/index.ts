/**
 * The conformance harness: checks any deployment of the settlement service against Reference A or B over the
 * wire, and certifies solvers and webhook receivers by playing the server's side.
 */
export { runConformance, type ConformanceOptions, type ConformanceRun } from './run.js';
export { allChecks } from './checks/index.js';
export { REQUIREMENTS, coverage, requirement, type Requirement, type Level } from './catalogue/index.js';
export { runChecks, type Check, type RunOutcome } from './core/runner.js';
export { buildReport, summarise, REPORT_FORMAT, type ConformanceReport } from './core/report.js';
export { selectChecks, parseExpectedFailures, readExpectedFailures, type Selection, type ExpectedFailure } from './core/selection.js';
export {
  signDocument,
  verifyDocument,
  generateSigningKey,
  signingKeyFromPem,
  signingKeyToPem,
  keyIdOf,
  type SigningKey,
} from './core/signing.js';
export { canonicalJson } from './core/canonical-json.js';
export { Redactor, redactSecret } from './core/redact.js';
export { exitCodeOf, type Verdict } from './core/report.js';
export { PreflightRefused, preflight } from './preflight/preflight.js';
export { parseRpcOverride } from './deployment/chains.js';
export type { CheckResult, Status, Profile, Capability, Evidence } from './core/types.js';
export { discoverTarget, TargetUnreachable, UsageError, type Target } from './deployment/discover.js';
export { readSandboxFile, type SandboxFile } from './deployment/sandbox-file.js';
export {
  detectDockerEngine,
  startImage,
  NoDockerEngine,
  ImageNotReady,
  ImageOptionError,
  parseImageEnv,
  parseImagePorts,
  DEFAULT_IMAGE_PORTS,
  DEFAULT_IMAGE_MANIFEST,
  type ImageOptions,
  type RunningImage,
} from './deployment/image.js';
export { consoleProgress, consoleSummary } from './reporters/console.js';
export { junitXml, writeJunitReport } from './reporters/junit.js';
export { htmlReport, writeHtmlReport } from './reporters/html.js';
export { writeJsonReport } from './reporters/json.js';
export { coverageText } from './reporters/coverage.js';
export { capabilitiesReport, capabilitiesText, type CapabilitiesReport } from './reporters/capabilities.js';
export { webhookSignature } from './wire/webhook-signature.js';
export { certifyWebhookReceiver, receiverChecks, type ReceiverCertification } from './certify/webhook-receiver.js';
export { certifySolver, fundSolver, solverAddressFrom, solverCertificationChecks, type SolverCertification } from './certify/solver.js';

import { allChecks as conformanceChecks } from './checks/index.js';
import { receiverChecks as receiverCertification } from './certify/webhook-receiver.js';
import { solverCertificationChecks as solverCertification } from './certify/solver.js';
import type { Check as AnyCheck } from './core/runner.js';

/** Every check the catalogue is covered by: the conformance suite and both certify modes. */
export function everyCheck(): AnyCheck[] {
  return [...conformanceChecks(), ...receiverCertification, ...solverCertification];
}
