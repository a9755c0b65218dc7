import type pgModule from 'pg';

/** `pg`'s module, loaded on first use: a service on SQLite (the default) never pays for it at start. */
export type Pg = typeof pgModule;

let loading: Promise<Pg> | undefined;

/** The async Postgres driver the instance bus, the singleton lease and the shared rate limits connect with. */
export function loadPg(): Promise<Pg> {
  loading ??= import('pg').then((module) => module.default);
  return loading;
}
