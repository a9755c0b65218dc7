import { bValueChecks } from './b-values.js';
import { eventValueChecks } from './event-values.js';
import { orderValueChecks } from './order-values.js';
import { platformValueChecks } from './platform-values.js';

/** Checks of values and sequences: what a deployment can get wrong while every field keeps its shape. */
export const valueChecks = [...platformValueChecks, ...orderValueChecks, ...eventValueChecks, ...bValueChecks];
