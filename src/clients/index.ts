/** Wire clients of the settlement service: used by solvers, scenarios and conformance (never the service's internals). */
export * from './rest-client.js';
export * from './solver-stream-client.js';
export * from '../contracts/standard-order-wire.js';
export * from './webhook-verifier.js';
export * from './ws-client.js';
export * from './sandbox-admin-client.js';
