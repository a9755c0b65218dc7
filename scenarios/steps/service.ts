import { fail } from '../core/errors.js';
import type { ScenarioContext } from '../core/context.js';
import type { Step } from '../core/scenario.js';

function control(context: ScenarioContext) {
  return context.target.service ?? fail('this target cannot stop its service');
}

/** Stops the settlement service abruptly mid-lifecycle (chains, solvers and clients keep running). */
export function stopService(): Step {
  return {
    title: 'stop the service',
    async run(context) {
      await control(context).stop();
      return 'stopped; chains, solvers and subscribers keep running';
    },
  };
}

/** Starts the service again on the same store, port and chains. */
export function startService(): Step {
  return {
    title: 'start the service again',
    async run(context) {
      const started = Date.now();
      await control(context).start();
      return `up again in ${Date.now() - started} ms`;
    },
  };
}

export function restartService(): Step {
  return {
    title: 'restart the service',
    async run(context) {
      const service = control(context);
      await service.stop();
      await service.start();
      return 'stopped and started on the same store';
    },
  };
}

/** Moves only the chains' time, as if the service had been down that long. */
export function advanceChainsWhileStopped(what: string, seconds: (context: ScenarioContext) => Promise<number> | number): Step {
  return {
    title: `move the chains ${what} while the service is down`,
    async run(context) {
      const move = context.target.advanceChains ?? fail('this target cannot move its chains alone');
      const by = Math.max(0, Math.ceil(await seconds(context)));
      await move(by);
      return `chains +${by} s`;
    },
  };
}
