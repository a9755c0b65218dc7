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
export { startInProcessSandbox } from './api/runners.js';
export type { InProcessSandbox, InProcessSandboxOptions } from './sandbox/in-process.js';
export { startDevnet, type Devnet, type StartDevnetOptions, type SandboxChain } from './devnet/devnet.js';
export { defaultChains, type ChainSpec } from './devnet/chain-config.js';
export { readManifest, readServiceManifest } from './devnet/manifest-file.js';
export type { ApiInfo, Environment, SandboxManifest, TokenInfo } from './contracts/deployment.js';
export { FAULT_KINDS, type FaultKind } from './contracts/fault-kinds.js';
export { typedDataFromJson } from './contracts/typed-data.js';

// Wire clients: REST, taker WebSocket stream, solver stream, webhook verification, the sandbox's admin routes.
export * from './clients/index.js';

// Scenarios and conformance: the runners here (loaded on first call); the catalogue, selection and report writers in
// `settlement-sandbox/scenarios` and `settlement-sandbox/conformance` (the same as `sandbox scenario run` / `conformance`).
export { certifySolver, certifyWebhookReceiver, runConformance, runScenarios } from './api/runners.js';
export type { RunOptions as ScenarioRunOptions, RunReport as ScenarioRunReport, Scenario, ScenarioResult } from '../scenarios/index.js';
export type {
  ConformanceOptions,
  ConformanceReport,
  ConformanceRun,
  Profile,
  ReceiverCertification,
  SolverCertification,
} from '../conformance/index.js';
