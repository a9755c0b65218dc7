import type pgModule from 'pg';
import { lazyModule } from '../../lazy-module.js';

/** `pg`'s module, loaded on first use: a service on SQLite (the default) never pays for it at start. */
export type Pg = typeof pgModule;

/** The async Postgres driver the instance bus, the singleton lease and the shared rate limits connect with. */
export const loadPg: () => Promise<Pg> = lazyModule(() => import('pg').then((module) => module.default));
