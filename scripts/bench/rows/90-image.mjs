// The sandbox image: size, build time (`npm run image`, cached layers as a developer's second build sees them) and
// container start → ready as `--image` sees it (manifest present, health 200, both chains answering eth_chainId).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, median, ms } from '../lib.mjs';

export const name = 'image';
export const description = 'sandbox image: size, build time, container start → ready (needs a Docker engine)';

const docker = existsSync('/usr/bin/docker') ? '/usr/bin/docker' : 'docker';

export async function run({ runs }) {
  if (spawnSync(docker, ['version', '--format', '{{.Server.Version}}'], { stdio: 'ignore' }).status !== 0) {
    return [{ benchmark: 'sandbox image', result: 'skipped', detail: 'no Docker engine answers', values: {} }];
  }
  const build = JSON.parse(
    execFileSync(process.execPath, [join(ROOT, 'scripts/image/build.mjs'), '--json'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  );
  const { startImage } = await import(pathToFileURL(join(ROOT, 'dist/conformance/deployment/image.js')).href);
  const ready = [];
  for (let i = 0; i < runs; i++) {
    const started = await startImage(build.tag, { stopOnSignals: false });
    ready.push(started.readyMs);
    await started.stop();
  }
  const value = median(ready);
  return [
    {
      benchmark: 'sandbox image size',
      result: `${(build.sizeBytes / 1e6).toFixed(0)} MB vs its base image ${(build.baseSizeBytes / 1e6).toFixed(0)} MB`,
      detail: `base ${build.base} ${(build.baseSizeBytes / 1e6).toFixed(0)} MB; ${build.packages} production packages`,
      values: { sizeBytes: build.sizeBytes, baseSizeBytes: build.baseSizeBytes },
    },
    {
      benchmark: 'npm run image (build)',
      result: `${ms(build.totalMs)} (no floor: depends on the layer cache found)`,
      detail: `image ${ms(build.imageBuildMs)}${build.baseBuildMs > 0 ? `, local base ${ms(build.baseBuildMs)}` : ''} (layer cache as found)`,
      values: { totalMs: build.totalMs, imageBuildMs: build.imageBuildMs, baseBuildMs: build.baseBuildMs },
    },
    {
      benchmark: 'container start → ready (--image, host network)',
      result: `${ms(value)} (floor: \`sandbox up\` outside a container, the devnet-ready row)`,
      detail: `median of ${runs}; runs ${ready.map((s) => s.toFixed(0)).join('/')} ms`,
      values: { medianMs: value, samplesMs: ready },
    },
  ];
}
