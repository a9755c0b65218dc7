/** Test support: runs the conformance and certify commands as a process (commander's own usage errors exit). */
import { program } from './cli-entry.js';

await program().parseAsync(process.argv);
