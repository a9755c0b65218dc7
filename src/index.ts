// The package's public entry (`import … from 'settlement-sandbox'`): start and stop a sandbox, talk to it with the
// typed clients, run the scenario catalogue and the conformance suite, certify a solver or a webhook receiver.
// docs/api.md documents it. Everything here is a re-export: the CLI calls the same functions.

// A sandbox as `sandbox up` / `down` run it, with clients, clock and fault switches.
export { attach, down, toRunOptions, up, type SandboxClients, type SandboxHandle, type SandboxOptions } from './api/sandbox-handle.js';
export type { ClockAdvance, ClockState, SandboxClock } from './api/clock.js';
export type { FaultSwitch, FaultSwitchRequest, FaultSwitches } from './api/faults.js';
export { sandboxGlobalSetup, STATE_DIR_ENV, type ProvidedSandbox } from './api/vitest-global-setup.js';

// The layers underneath, for composing your own: the composition root, the in-process sandbox, the devnet alone.
export { startSandbox, type Sandbox, type SandboxComponent, type StartSandboxOptions } from './sandbox/sandbox.js';
export { runSandbox, type SandboxPartsOptions, type SandboxRunOptions } from './sandbox/run.js';
export { startDetached, stopSandbox, sandboxStatus, type SandboxStatus, type StopResult } from './sandbox/daemon.js';
export { startInProcessSandbox, type InProcessSandbox, type InProcessSandboxOptions } from './sandbox/in-process.js';
export { startDevnet, type Devnet, type StartDevnetOptions, type SandboxChain } from './devnet/devnet.js';
export { defaultChains, type ChainSpec } from './devnet/chain-config.js';
export { readManifest, readServiceManifest } from './devnet/manifest-file.js';
export type { ApiInfo, Environment, SandboxManifest, TokenInfo } from './contracts/deployment.js';
export { FAULT_KINDS, type FaultKind } from './contracts/fault-kinds.js';
export { typedDataFromJson } from './contracts/typed-data.js';

// Wire clients: REST, taker WebSocket stream, solver stream, webhook verification, the sandbox's admin routes.
export * from './clients/index.js';

// Scenarios: the catalogue, the runner and its reports (the same as `sandbox scenario run`).
export {
  catalogue,
  defineScenario,
  junitReport,
  jsonReport,
  runScenarios,
  selectScenarios,
  writeReports,
  type RunOptions as ScenarioRunOptions,
  type RunReport as ScenarioRunReport,
  type Scenario,
  type ScenarioResult,
} from '../scenarios/index.js';

// Conformance: the suite, certify modes and reporters (the same as `sandbox conformance run` / `sandbox certify`).
export {
  certifySolver,
  certifyWebhookReceiver,
  everyCheck,
  runConformance,
  writeHtmlReport,
  writeJsonReport,
  writeJunitReport,
  type ConformanceOptions,
  type ConformanceReport,
  type ConformanceRun,
  type Profile,
  type ReceiverCertification,
  type SolverCertification,
} from '../conformance/index.js';
