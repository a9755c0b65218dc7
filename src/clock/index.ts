export type { Clock, ClockStep, Job, JobErrorListener, ScheduleOptions, ScheduledJob, StepListener } from './types.js';
export { RealClock } from './real-clock.js';
export { TestClock, type AdvanceResult, type TestClockOptions } from './test-clock.js';
export { formatDuration, parseDuration } from './duration.js';
export { ChainTimeSync, type ChainTime } from './chain-time.js';
