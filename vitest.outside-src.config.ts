import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.js';

const HARDENING_CAMPAIGNS = 'hardening/harden.test.ts';

/**
 * The tests outside src/ as `npm test` runs them (the second run of `test:ts`): the settings of vitest.config.ts, in
 * two projects. Most files share their fork's module cache (`isolate: false`), as the tests under src/ do
 * (vitest.src.config.ts): each starts its own sandbox, service, proxy or receiver on its own ports and folders, and
 * none mocks a module. Measured on the 24 files it covers (one run each, same machine, load 2–4): 175.6 CPU-s with a
 * process per file, 153.3 shared, every test passing both ways. The hardening campaigns keep a process of their own:
 * their quick failover campaign is the one file that once failed when shared (vitest.config.ts tells the story).
 */
/**
 * `--exclude` on the command line (test:cpu passes one): vitest does not pass it on to inline projects, so each
 * project adds it to its own.
 */
const cliExcludes = process.argv.flatMap((arg, index, argv) =>
  arg === '--exclude' ? [argv[index + 1] ?? ''] : arg.startsWith('--exclude=') ? [arg.slice('--exclude='.length)] : [],
);

/** vitest.config.ts's settings but which files: each project names its own. */
const { include: _include, exclude: _exclude, ...settings } = base.test ?? {};

export default defineConfig({
  test: {
    ...settings,
    projects: [
      {
        test: {
          ...settings,
          name: 'outside-src',
          include: ['scenarios/**/*.test.ts', 'conformance/**/*.test.ts', 'test/**/*.test.ts', 'hardening/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/compose/**', HARDENING_CAMPAIGNS, ...cliExcludes],
          poolOptions: { forks: { ...settings.poolOptions?.forks, isolate: false } },
        },
      },
      {
        test: {
          ...settings,
          name: 'hardening-campaigns',
          include: [HARDENING_CAMPAIGNS],
          exclude: [...configDefaults.exclude, ...cliExcludes],
        },
      },
    ],
  },
});
