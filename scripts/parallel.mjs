#!/usr/bin/env node
// `node scripts/parallel.mjs "<command>" "<command>" …`: runs shell commands at the same time and exits non-zero if
// any of them failed. `npm test` uses it for the typecheck and the contract tests, two single-threaded jobs (tsc,
// and solc-js compiling the Solidity tests) that would otherwise take turns on a 2-core machine. Each command's output
// is held and printed whole when it ends, so the two never interleave.
import { spawn } from 'node:child_process';

const commands = process.argv.slice(2);
if (commands.length === 0) {
  process.stderr.write('usage: node scripts/parallel.mjs "<command>" ["<command>" …]\n');
  process.exit(2);
}

const run = (command) =>
  new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(command, { shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.once('error', (error) => output.push(Buffer.from(`${error.message}\n`)));
    child.once('close', (code, signal) => {
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const outcome = code === 0 ? 'ok' : `failed (${signal ?? `exit ${code}`})`;
      process.stdout.write(`\n> ${command}\n${Buffer.concat(output).toString()}> ${command}: ${outcome} in ${seconds} s\n`);
      resolve(code === 0);
    });
  });

const results = await Promise.all(commands.map(run));
process.exitCode = results.every(Boolean) ? 0 : 1;
