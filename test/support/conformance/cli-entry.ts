/** Test support: the `sandbox` program with only the conformance and certify commands, as main.ts will register them. */
import { Command } from 'commander';
import { register as registerCertify } from '../../../src/cli/commands/certify.js';
import { register as registerConformance } from '../../../src/cli/commands/conformance.js';

export function program(): Command {
  const root = new Command('sandbox').option('--json').option('--state-dir <path>', 'state folder', '.sandbox').exitOverride();
  registerConformance(root);
  registerCertify(root);
  return root;
}
