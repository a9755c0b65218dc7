// `node --import ./hardening/ts-register.mjs file.ts`: installs ts-hooks.mjs (see there) for this process.
import { register } from 'node:module';

register('./ts-hooks.mjs', import.meta.url);
