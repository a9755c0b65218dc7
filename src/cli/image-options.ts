import type { Command } from 'commander';
import type { ImageOptions } from '../../conformance/deployment/image.js';

/**
 * The `--image*` options shared by `sandbox conformance` and `sandbox scenario run`: start the deployment under test
 * from a Docker image (through testcontainers) instead of naming a running one.
 */
export interface ImageFlags {
  image?: string;
  imagePort?: string;
  imageNetwork?: string;
  imageEnv?: string[];
  imageCmd?: string;
  imageManifest?: string;
  imageTimeout?: string;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function addImageOptions(command: Command): Command {
  return command
    .option('--image <name>', 'start the deployment from this Docker image (testcontainers) and target it; stopped afterwards')
    .option('--image-port <ports>', "the image's container ports, API first (default 8080,8545,8546)")
    .option('--image-network <mode>', 'host (default: shares the host network, loopback only) or bridge (ports published on 127.0.0.1)')
    .option('--image-env <KEY=VALUE>', 'environment variable of the container (repeatable)', collect)
    .option('--image-cmd <args>', "replace the image's command (space-separated arguments)")
    .option('--image-manifest <path|none>', 'sandbox.json-shaped manifest inside the container (default /app/sandbox.json; none: URL only)')
    .option('--image-timeout <ms>', 'how long the container may take to become ready (default 120000)');
}

/** Turns the flags into options of startImage; throws ImageOptionError (a usage error) on bad values. */
export async function imageOptions(flags: ImageFlags, onProgress?: (line: string) => void): Promise<ImageOptions> {
  const { parseImageEnv, parseImagePorts, ImageOptionError } = await import('../../conformance/deployment/image.js');
  const ports = parseImagePorts(flags.imagePort);
  const network = flags.imageNetwork ?? 'host';
  if (network !== 'host' && network !== 'bridge') throw new ImageOptionError(`--image-network must be host or bridge, got ${network}`);
  const timeout = flags.imageTimeout === undefined ? undefined : Number(flags.imageTimeout);
  if (timeout !== undefined && !(Number.isInteger(timeout) && timeout > 0))
    throw new ImageOptionError(`--image-timeout must be a positive number of ms, got ${flags.imageTimeout}`);
  const command = flags.imageCmd?.trim().split(/\s+/).filter(Boolean);
  return {
    network,
    env: parseImageEnv(flags.imageEnv),
    ...(ports === undefined ? {} : { ports }),
    ...(command === undefined ? {} : { command }),
    ...(flags.imageManifest === undefined ? {} : { manifest: flags.imageManifest === 'none' ? null : flags.imageManifest }),
    ...(timeout === undefined ? {} : { readyTimeoutMs: timeout }),
    ...(onProgress === undefined ? {} : { onProgress }),
  };
}
